"""The body-model branches of the ``skinkit`` command (cli.py routes here):

* ``skinkit pose BODY.pkl|BODY.npz --params PARAMS.npz --out OUT.npz``: per-frame betas, pose,
  transl, expression from an .npz;
* ``skinkit pose BODY --motion AMASS.npz [--fps F] --out OUT.npz`` (or ``--body-dir DIR``
  instead of BODY, the model picked by the motion's type and gender): an AMASS motion;
* ``skinkit info BODY``: the model's type, sizes and joints.

Frames are posed block by block and streamed into the .npz (``BodyModel.pose_blocks``,
``writers.NpzOutput``), the output's size checked first as for every ``pose``.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import zipfile
from typing import Any, Dict, Iterable, Iterator, Optional, Tuple

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ..body.body_model import BodyModel
from ..body.kinds import KINDS
from ..io.amass import BodyMotion, load_amass
from ..io.body import find_body_model, load_body_model, read_npz
from ..model.posed import PosedMeshes, layout
from .common import CliError, check_size, plural, summary
from .outputs import NpzOutput


PARAM_KEYS = ("betas", "pose", "transl", "expression")
BODY_SUFFIXES = (".pkl", ".npz")
_MOTION_KINDS = {"smplh": "SMPL+H", "smplx": "SMPL-X"}


def _usage(args: argparse.Namespace) -> None:
    """Usage errors (exit 2) of the body-model branch of ``pose``."""
    clip_flags = [f for f, on in (("--clip", args.clip is not None), ("--rest", args.rest),
                                  ("--times", args.times is not None),
                                  ("--fps", args.fps is not None and args.motion is None),
                                  ("--loop", args.loop), ("--clamp", args.clamp),
                                  ("--normals", args.normals),
                                  ("--format", args.format),
                                  ("--scene", getattr(args, "scene", None) is not None))
                  if on]
    what = "--params" if args.params is not None else "--motion"
    if clip_flags:
        args.parser.error(f"{what} poses a body model; {', '.join(clip_flags)} do not apply")
    if args.params is not None and (args.motion is not None or args.body_dir is not None):
        args.parser.error("--params and --motion/--body-dir are different inputs; give one")
    if args.body_dir is not None and args.motion is None:
        args.parser.error("--body-dir picks the model of a --motion file; give --motion")
    if args.body_dir is not None and args.model is not None:
        args.parser.error("give either MODEL or --body-dir, not both")
    if args.body_dir is None and (args.model is None or
                                  not args.model.lower().endswith(BODY_SUFFIXES)):
        args.parser.error(f"{what} needs a body model file (.pkl or .npz) as MODEL"
                          + (" or --body-dir DIR" if args.motion is not None else ""))
    if not args.out.lower().endswith(".npz"):
        args.parser.error(f"--out {args.out}: a body model is posed to an .npz file")


Inputs = Tuple[BodyModel, Dict[str, NDArray[Any]], str, Optional[float]]


def _params(args: argparse.Namespace, dtype: np.dtype[Any]) -> Inputs:
    """The model, the --params arrays (each with a leading frame axis), the model's path, and
    no frame rate."""
    model = load_body_model(args.model, dtype=dtype)
    try:
        with zipfile.ZipFile(args.params) as z:
            names = {n[:-4] for n in z.namelist() if n.endswith(".npy")}
    except zipfile.BadZipFile as exc:
        raise CliError(f"{args.params}: not an .npz file: {exc}") from None
    unknown = sorted(names - set(PARAM_KEYS))
    if unknown:
        raise CliError(f"{args.params}: unknown arrays {', '.join(unknown)}; expected "
                       f"{', '.join(PARAM_KEYS)} (each optional)")
    params = read_npz(args.params, PARAM_KEYS)
    if not params:
        raise CliError(f"{args.params}: no arrays; expected {', '.join(PARAM_KEYS)}")
    frames = {k: v.shape[0] if v.ndim else None for k, v in params.items()}
    if None in frames.values() or len(set(frames.values())) != 1:
        raise CliError(f"{args.params}: every array needs the same leading frame axis, got "
                       + ", ".join(f"{k} {params[k].shape}" for k in params))
    pose = params.get("pose")
    if pose is not None and pose.ndim == 2:                       # smplx's flat (F, 3 J)
        if pose.shape[1] % 3:
            raise CliError(f"{args.params}: pose (F, 3 J) has {pose.shape[1]} columns, not a "
                           "multiple of 3")
        params["pose"] = pose.reshape(len(pose), -1, 3)
    return model, params, args.model, None


def _motion(args: argparse.Namespace, dtype: np.dtype[Any]) -> Inputs:
    """The model, the arrays of an AMASS --motion (resampled with --fps; its betas cut to the
    model's shape components), the model's path and the motion's frame rate."""
    motion = load_amass(args.motion)
    if args.fps is not None:
        motion = motion.resample(args.fps)
    model, path = motion_body_model(motion, args.model, args.body_dir, dtype)
    params = {"pose": motion.poses, "transl": motion.transl,
              "betas": motion.betas[:model.num_betas]}
    if motion.expression is not None and model.num_expression:
        params["expression"] = motion.expression[:, :model.num_expression]
    return model, params, path, motion.fps


def motion_body_model(motion: BodyMotion, model: Optional[str], body_dir: Optional[str],
                      dtype: DTypeLike = np.float64) -> Tuple[BodyModel, str]:
    """The body model of an AMASS ``motion`` and its path: the file ``model``, else the one of
    the motion's type and gender in ``body_dir`` (``find_body_model``); a CliError when it is
    not of the motion's kind (``pose --motion`` and ``retarget`` with an AMASS SOURCE)."""
    if model is None:
        if body_dir is None:
            raise CliError(f"{motion.source}: an AMASS motion needs its body model")
        model = str(find_body_model(body_dir, motion.model_type, motion.gender))
    body = load_body_model(model, dtype=dtype)
    if body.kind != _MOTION_KINDS[motion.model_type]:
        raise CliError(f"{motion.source}: a {motion.model_type} motion ({motion.poses.shape[1]} "
                       f"joints) cannot pose the {body.kind} model {model}")
    return body, model


def _seconds(blocks: Iterable[PosedMeshes], fps: float, dtype: np.dtype[Any]
             ) -> Iterator[PosedMeshes]:
    """pose_blocks' blocks with their frame indices as times in seconds (k / fps), in the
    output's ``dtype`` (float32 with --dtype float32)."""
    for block in blocks:
        yield dataclasses.replace(block, times=(np.asarray(block.times) / fps).astype(dtype))


def pose_body(args: argparse.Namespace) -> int:
    """``skinkit pose`` with --params or --motion: streams ``positions_body`` (F, V, 3),
    ``joints`` (F, J, 3) and, for a motion, ``times`` (F,) into ``args.out``, block by block
    (``BodyModel.pose_blocks``, ``writers.NpzOutput``), after checking the output's size."""
    _usage(args)
    start = time.perf_counter()
    dtype = np.dtype(args.dtype)
    try:
        model, params, label, fps = (_motion if args.motion is not None else _params)(args,
                                                                                      dtype)
    except ValueError as exc:                   # BodyModelError, a bad --fps
        raise CliError(str(exc)) from exc
    count = len(params["pose"]) if fps is not None else len(next(iter(params.values())))
    output = NpzOutput(args.out, layout(count, {"body": model.num_vertices},
                                        joints=model.num_joints, dtype=model.dtype,
                                        times=fps is not None),
                       {"body": model.faces})
    check_size(args, output)
    try:
        blocks = model.pose_blocks(betas=params.get("betas"), pose=params.get("pose"),
                                   transl=params.get("transl"),
                                   expression=params.get("expression"))
        output.write(blocks if fps is None else _seconds(blocks, fps, model.dtype))
    except (ValueError, TypeError) as exc:         # shapes and dtypes of the arrays
        raise CliError(f"{args.params or args.motion}: {exc}") from exc
    summary(args, f"{label}: {model.kind}, {plural(count, 'frame')}, "
                   f"{model.num_vertices} vertices", time.perf_counter() - start)
    return 0


def info_body(args: argparse.Namespace) -> int:
    """``skinkit info BODY``: type, V, J, S (shape), E (expression), P (pose-corrective)
    components, faces, and the joints with their parents and names."""
    try:
        m = load_body_model(args.model)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    kind = KINDS[m.num_joints]
    out = [f"model: {args.model}",
           f"type: {m.kind} (smplx model_type {kind.model_type!r})",
           f"vertices (V): {m.num_vertices}", f"faces: {len(m.faces)}",
           f"joints (J): {m.num_joints}", f"shape components (S): {m.num_betas}",
           f"expression components (E): {m.num_expression}",
           f"pose-corrective components (P): {m.posedirs.shape[2]}",
           f"  {'index':>5}  {'parent':>6}  name"]
    out += [f"  {j:>5}  {int(p):>6}  {n}" for j, (p, n) in enumerate(zip(m.parents,
                                                                         m.joint_names))]
    print("\n".join(out), file=sys.stdout)
    return 0
