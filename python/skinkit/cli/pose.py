"""``skinkit pose MODEL --out OUT``: parse, build one ``PoseRequest`` (``build_request``), pick the writer of
``--out`` from ``skinkit.cli.outputs.WRITERS`` (``choose_writer``), check the output's size and stream
``Model.pose_blocks`` into it.  Body models (``--params``, ``--motion``) go to ``cli/body.py``,
``--animated`` to ``cli/retarget.py``."""
from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, Iterator, List, Type, Union

import numpy as np

from ..io.mesh_files import FORMATS, check_output_path
from ..model.pose import layout
from ..kernels.skinning import SKINNING
from . import retarget as cli_retarget
from .body import pose_body
from .common import (MODEL_ARGS, PROG, Arg, CliError, check_size, clip_key, load, plural,
                     summary)
from .outputs import WRITERS, known_outputs, writer_for

if TYPE_CHECKING:
    from ..model.model import Model
    from ..model.posed import PosedMeshes
    from ..model.request import PoseRequest
    from .outputs import Output

SUMMARY = "pose a model over time, write positions to an .npz"
def _size_arg(text: str) -> int:
    """``--max-output``: bytes, with an optional k, M, G or T (powers of 1000) and B."""
    units = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
    t = text.strip().lower().removesuffix("b")
    unit = t[-1:] if t[-1:] in units and t[-1:] else ""
    try:
        value = float(t[:len(t) - len(unit)]) * units[unit]
    except ValueError:
        value = -1.0
    if not (0 <= value < 2**63):
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (bytes, or a number with k, M, "
                                         "G or T)")
    return int(value)


ARGS: List[Union[Arg, List[Arg]]] = MODEL_ARGS + [
    [("--clip", dict(metavar="NAME|INDEX", help="clip to play, by name or index (default: the "
                                                "first clip)")),
     ("--rest", dict(action="store_true", help="pose the default (rest) TRS of every node; "
                                               "times = [0.0]"))],
    [("--times", dict(type=float, nargs="+", metavar="T", help="times in seconds")),
     ("--fps", dict(type=float, metavar="F", help="frames per second covering the whole clip, "
                                                  "both ends included (default 30)"))],
    [("--loop", dict(action="store_true", help="wrap times into [0, duration) before "
                                               "sampling")),
     ("--clamp", dict(action="store_true", help="clamp times to the clip without a warning "
                                                "(by default times outside the clip are "
                                                "clamped with one warning)"))],
    ("--dtype", dict(choices=("float64", "float32"), default="float64",
                     help="precision of the computation and of the output (default float64)")),
    ("--skinning", dict(choices=tuple(SKINNING), default="lbs",
                        help="linear blend (default) or dual quaternion skinning (volume "
                             "preserving, as Blender's Preserve Volume)")),
    ("--normals", dict(action="store_true", help="also write posed "
                                                 "`normals_<node>_<primitive>` (T, V, 3)")),
    ("--out", dict(required=True, metavar="FILE.npz|DIR/|FILE.glb",
                   help="output, by its suffix: an .npz, a directory (trailing slash or "
                        "existing) for one mesh file per frame, or a .glb of one posed frame; "
                        "an existing --out that is not a regular file (for DIR/: a directory) "
                        "is refused")),
    ("--max-output", dict(type=_size_arg, metavar="SIZE",
                          help="refuse, before posing, an output larger than SIZE bytes (k, M, "
                               "G, T: powers of 1000); the free disk space is always a limit")),
    ("--format", dict(choices=FORMATS, default=None,
                      help="mesh format of the frames written to --out DIR/ (default ply)")),
    [("--quiet", dict(action="store_true", help="no progress bar, no summary line and no "
                                                "warnings (errors are still reported)")),
     ("--verbose", dict(action="store_true", help="also say what the loader and the posing "
                                                  "decided (the skinkit logger's INFO lines)"))],
    cli_retarget.ANIMATED_ARG,
    ("--params", dict(metavar="PARAMS.npz",
                      help="pose a body model (MODEL a SMPL/SMPL+H/SMPL-X/MANO .pkl or .npz): "
                           "arrays betas, pose, transl, expression (each optional) with a "
                           "leading frame axis; writes positions_body (F, V, 3) and joints "
                           "(F, J, 3)")),
    ("--motion", dict(metavar="AMASS.npz", help="pose a body model (MODEL, or --body-dir) by an "
                      "AMASS motion, resampled with --fps; writes times, positions_body, joints")),
    ("--body-dir", dict(metavar="DIR", help="with --motion: the model by the motion's type and "
                        "gender in DIR laid out as smplx.create (DIR/smplh/SMPLH_MALE.pkl)")),
]
DESCRIPTION = (
    "Sample a clip, run forward kinematics, morph targets and skinning (or the node transform of "
    "rigid meshes), and write `times` (T,) and `positions_<node>_<primitive>` (T, V, 3) for "
    "every mesh primitive instance of the scene, in world space, to an .npz file (written "
    "atomically, block by block, after checking its size against --max-output and the free "
    "space); a model without meshes (a .bvh file) gets `joints` (T, N, 3), the world "
    "position of every joint.  --out DIR/ writes one PLY or OBJ mesh per frame instead "
    "(frame_0000.ply, ...: every primitive in one mesh), --out FILE.glb the model posed at one "
    "time as a static glTF binary.")


def choose_writer(args: argparse.Namespace) -> Type[Output]:
    """The output kind of ``--out`` (``skinkit.cli.outputs.WRITERS``), checked before any work: an
    unknown kind or ``-`` and a misplaced ``--format`` are usage errors (exit 2), an existing
    ``--out`` that is not what the writer replaces (a FIFO, a link, a device) exit 1."""
    parser: argparse.ArgumentParser = args.parser
    out, suffix = args.out, Path(args.out).suffix.lower()
    writer = None if out == "-" else writer_for(out)
    if writer is None and suffix[1:] in FORMATS:
        parser.error(f"--out {out}: meshes are written one file per frame into a "
                          f"directory; give --out DIR/ --format {suffix[1:]}")
    if writer is None:
        what = ("standard output: outputs are files written in place" if out == "-" else
                f"unknown output kind {suffix or '(no suffix)'!r}")
        parser.error(f"--out {out}: {what}; give {known_outputs()}")
    if args.format is not None and writer is not WRITERS["/"]:
        parser.error("--format applies only to --out DIR/ (one mesh file per frame)")
    check_output_path(out.rstrip("/" + os.sep) or out, directory=writer is WRITERS["/"])
    return writer


def build_request(model: Model, args: argparse.Namespace, writer: Type[Output]) -> PoseRequest:
    """The one place ``skinkit pose``'s arguments become a ``PoseRequest``."""
    clip = None
    if args.clip is not None:
        clip = clip_key(model, args.clip)
    elif not args.rest and model.clips:
        clip = 0
    return model.request(clip, args.times, fps=None if clip is None else args.fps,
                         loop=True if args.loop else False if args.clamp else None,
                         normals=args.normals or writer.always_normals, skinning=args.skinning,
                         joints=not model.primitives)


def advancing(blocks: Iterable[PosedMeshes], bar: Any) -> Iterator[PosedMeshes]:
    """The blocks, advancing ``bar`` once the caller is done with each."""
    for block in blocks:
        yield block
        if bar is not None:
            bar.update(len(block.times))


def progress_bar(total: int, quiet: bool) -> ContextManager[Any]:
    """A tqdm bar over the frames on stderr when it is a terminal and there are several frames;
    with ``--quiet``, a redirected stderr or without tqdm (the ``progress`` extra), a null context
    (nothing is printed)."""
    stream = sys.stderr
    try:
        tty = stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        tty = False
    if quiet or total < 2 or not tty:
        return contextlib.nullcontext(None)
    try:
        from tqdm import tqdm
    except ImportError:
        return contextlib.nullcontext(None)
    bar: ContextManager[Any] = tqdm(total=total, unit="frame", desc=PROG, file=stream,
                                    leave=False, dynamic_ncols=True)
    return bar


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.animated:   # the model and its clip as an animated glTF (skinkit.cli.retarget)
        return cli_retarget.pose_animated(args)
    writer = choose_writer(args)
    if args.params is not None or args.motion is not None or args.body_dir is not None:
        return pose_body(args)
    if args.rest and (args.times is not None or args.fps is not None):
        args.parser.error("--rest poses one frame at time 0; do not combine it with "
                          "--times or --fps")
    model, label = load(args.model, np.dtype(args.dtype), args.scene)
    request = build_request(model, args, writer)
    logging.getLogger(PROG).info("%s: %r", label, request)
    for played in [c for c in request.clips if c is not None]:
        for what in getattr(played, "unsupported", ()):   # a model's Clip
            logging.getLogger(PROG).info("clip %r: not played: %s", played.name, what)
    if writer.max_frames is not None and request.count > writer.max_frames:
        args.parser.error(f"--out {args.out} writes one posed frame, got {request.count} times; "
                          "give exactly one with --times T (or --rest)")
    output = writer(args.out, layout(model, request), {p.key: p.faces for p in model.primitives},
                    args.format, args.normals, model)
    check_size(args, output)
    try:
        with progress_bar(request.count, args.quiet) as bar:
            output.write(advancing(model.pose_blocks(request), bar))
    except ValueError as exc:   # what the model's data make the stages refuse: name the model
        raise CliError(str(exc) if label in str(exc) else f"{label}: {exc}") from exc

    nverts = sum(len(p.positions) for p in model.primitives)
    nskinned = sum(p.skinned for p in model.primitives)
    clip = request.clip
    if clip is None:
        what = "rest pose" + ("" if args.rest or args.clip else " (the model has no clips)")
    else:
        index = next(i for i, c in enumerate(model.clips) if c is clip)
        what = f"clip {index}" + (f" {clip.name!r}" if clip.name is not None else " (unnamed)")
    summary(args, f"{label}: {what}, {plural(request.count, 'frame')}, "
                   f"{plural(len(model.primitives), 'mesh primitive')} ({nskinned} skinned, "
                   f"{nverts} vertices)", time.perf_counter() - start, output.summary())
    return 0


