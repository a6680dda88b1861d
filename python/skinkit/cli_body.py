"""The body-model branches of the ``skinkit`` command (cli.py routes here):

* ``skinkit pose BODY.pkl|BODY.npz --params PARAMS.npz --out OUT.npz``: per-frame betas, pose,
  transl, expression from an .npz;
* ``skinkit pose BODY --motion AMASS.npz [--fps F] --out OUT.npz`` (or ``--body-dir DIR``
  instead of BODY, the model picked by the motion's type and gender): an AMASS motion;
* ``skinkit info BODY``: the model's type, sizes and joints.

Frames are posed in blocks of BLOCK_FRAMES (the working memory of a block is bounded; the
output itself is checked against the memory available before posing starts).
"""
from __future__ import annotations

import os
import sys
import time
import zipfile
from typing import Dict, Tuple

import numpy as np

from .body import BodyModel, load_body_model
from .io.body import KINDS, find_body_model, read_npz

PARAM_KEYS = ("betas", "pose", "transl", "expression")
BODY_SUFFIXES = (".pkl", ".npz")
BLOCK_FRAMES = 256
_MOTION_KINDS = {"smplh": "SMPL+H", "smplx": "SMPL-X"}


def _usage(args) -> None:
    """Usage errors (exit 2) of the body-model branch of ``pose``."""
    clip_flags = [f for f, on in (("--clip", args.clip is not None), ("--rest", args.rest),
                                  ("--times", args.times is not None),
                                  ("--fps", args.fps is not None and args.motion is None),
                                  ("--loop", args.loop), ("--normals", args.normals),
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


def _params(args, dtype) -> Tuple[BodyModel, Dict[str, np.ndarray], str]:
    """The model and the --params arrays, each with a leading frame axis."""
    from .cli import CliError
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
    return model, params, args.model


def _motion(args, dtype) -> Tuple[BodyModel, Dict[str, np.ndarray], str]:
    """The model and the arrays of an AMASS --motion (resampled with --fps)."""
    from .cli import CliError
    from .io.amass import load_amass
    motion = load_amass(args.motion)
    if args.fps is not None:
        motion = motion.resample(args.fps)
    path = args.model or find_body_model(args.body_dir, motion.model_type, motion.gender)
    model = load_body_model(path, dtype=dtype)
    if model.kind != _MOTION_KINDS[motion.model_type]:
        raise CliError(f"{args.motion}: a {motion.model_type} motion ({motion.poses.shape[1]} "
                       f"joints) cannot pose the {model.kind} model {path}")
    T = len(motion.poses)
    S = min(model.num_betas, len(motion.betas))
    params = {"pose": motion.poses, "transl": motion.transl,
              "betas": np.broadcast_to(motion.betas[:S], (T, S))}
    if motion.expression is not None and model.num_expression:
        E = min(model.num_expression, motion.expression.shape[1])
        params["expression"] = motion.expression[:, :E]
    params["times"] = motion.times
    return model, params, str(path)


def _available_memory() -> int:
    """Bytes of physical memory available now (Linux), or 8 GiB where unknown."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 1024**3


def _pose_frames(model: BodyModel, params: Dict[str, np.ndarray], bar) -> Tuple[np.ndarray, ...]:
    """positions (F, V, 3) and joints (F, J, 3), posed BLOCK_FRAMES frames at a time."""
    from .cli import CliError
    F = len(next(iter(params.values())))
    V, J, item = model.num_vertices, model.num_joints, np.dtype(model.dtype).itemsize
    need, have = F * (V + J) * 3 * item, _available_memory()
    if need > have:
        raise CliError(f"posing {F} frames of {V} vertices needs {need} bytes, more than the "
                       f"{have} bytes of memory available (fewer frames: --fps, or --dtype "
                       "float32)")
    verts, joints = np.empty((F, V, 3), model.dtype), np.empty((F, J, 3), model.dtype)
    for s in range(0, F, BLOCK_FRAMES):
        block = {k: v[s:s + BLOCK_FRAMES] for k, v in params.items()}
        try:
            verts[s:s + BLOCK_FRAMES], joints[s:s + BLOCK_FRAMES] = model.forward(**block)
        except (ValueError, TypeError) as exc:         # shapes and dtypes of the arrays
            raise CliError(str(exc)) from exc
        if bar is not None:
            bar.update(len(verts[s:s + BLOCK_FRAMES]))
    return verts, joints


def pose_body(args) -> int:
    """``skinkit pose`` with --params or --motion: writes ``positions_body`` (F, V, 3),
    ``joints`` (F, J, 3) and, for a motion, ``times`` (F,) to ``args.out``."""
    from .cli import CliError, _plural, _progress_bar, _summary, _write_npz_atomic
    _usage(args)
    start = time.perf_counter()
    dtype = np.dtype(args.dtype)
    try:
        model, params, label = (_motion if args.motion is not None else _params)(args, dtype)
    except ValueError as exc:                   # BodyModelError, a bad --fps
        raise CliError(str(exc)) from exc
    times = params.pop("times", None)
    F = len(next(iter(params.values())))
    with _progress_bar(F, args.quiet) as bar:
        vertices, joints = _pose_frames(model, params, bar)
    arrays = {"positions_body": vertices, "joints": joints}
    if times is not None:
        arrays["times"] = times.astype(dtype)
    _write_npz_atomic(args.out, arrays)
    _summary(args, f"{label}: {model.kind}, {_plural(F, 'frame')}, {model.num_vertices} "
                   "vertices", time.perf_counter() - start)
    return 0


def info_body(args) -> int:
    """``skinkit info BODY``: type, V, J, S (shape), E (expression), P (pose-corrective)
    components, faces, and the joints with their parents and names."""
    from .cli import CliError
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
