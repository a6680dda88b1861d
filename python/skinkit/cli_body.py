"""``skinkit pose BODY.pkl|BODY.npz --params PARAMS.npz --out OUT.npz``: a body model posed
frame by frame (the body-model branch of the ``pose`` command in cli.py)."""
from __future__ import annotations

import argparse
import sys
import time
import zipfile

import numpy as np

from .body import load_body_model

PARAM_KEYS = ("betas", "pose", "transl", "expression")
BODY_SUFFIXES = (".pkl", ".npz")


def pose_body(args: argparse.Namespace) -> int:
    """Reads ``args.model`` (a body model file) and ``args.params`` (an .npz of betas (F, S),
    pose (F, J, 3) or (F, 3 J), transl (F, 3), expression (F, E), each optional, F frames),
    writes ``positions_body`` (F, V, 3) and ``joints`` (F, J, 3) to ``args.out``."""
    from .cli import CliError, _check_size, _plural, _summary
    from .posed import layout
    from .writers import NpzOutput
    start = time.perf_counter()
    clip_flags = [f for f, on in (("--clip", args.clip is not None), ("--rest", args.rest),
                                  ("--times", args.times is not None),
                                  ("--fps", args.fps is not None), ("--loop", args.loop),
                                  ("--clamp", args.clamp),
                                  ("--normals", args.normals), ("--format", args.format),
                                  ("--scene", getattr(args, "scene", None) is not None))
                  if on]
    if clip_flags:
        args.parser.error(f"--params poses a body model; {', '.join(clip_flags)} do not apply")
    if args.model is None or not args.model.lower().endswith(BODY_SUFFIXES):
        args.parser.error("--params needs a body model file (.pkl or .npz) as MODEL")
    if not args.out.lower().endswith(".npz"):
        args.parser.error(f"--out {args.out}: a body model is posed to an .npz file")
    try:
        model = load_body_model(args.model, dtype=np.dtype(args.dtype))
        with np.load(args.params, allow_pickle=False) as z:
            params = {k: z[k] for k in z.files}
    except (ValueError, zipfile.BadZipFile) as exc:  # BodyModelError, or not an .npz
        raise CliError(str(exc)) from exc
    unknown = sorted(set(params) - set(PARAM_KEYS))
    if unknown:
        raise CliError(f"{args.params}: unknown arrays {', '.join(unknown)}; expected "
                       f"{', '.join(PARAM_KEYS)} (each optional)")
    if not params:
        raise CliError(f"{args.params}: no arrays; expected {', '.join(PARAM_KEYS)}")
    frames = {k: v.shape[0] if v.ndim else None for k, v in params.items()}
    if None in frames.values() or len(set(frames.values())) != 1:
        raise CliError(f"{args.params}: every array needs the same leading frame axis, got "
                       + ", ".join(f"{k} {params[k].shape}" for k in params))
    pose = params.get("pose")
    if pose is not None and pose.ndim == 2:                       # smplx's flat (F, 3 J)
        params["pose"] = pose.reshape(len(pose), -1, 3)
    count = len(next(iter(params.values())))
    output = NpzOutput(args.out, layout(count, {"body": model.num_vertices},
                                        joints=model.num_joints, dtype=model.dtype, times=False),
                       {"body": model.faces})
    _check_size(args, output)
    try:
        output.write(model.pose_blocks(**params))
    except (ValueError, TypeError) as exc:         # shapes and dtypes of the arrays
        raise CliError(f"{args.params}: {exc}") from exc
    _summary(args, f"{args.model}: {model.kind}, {_plural(count, 'frame')}, "
                   f"{model.num_vertices} vertices", time.perf_counter() - start)
    return 0
