"""The ``skinkit`` command: pose a model to an .npz file, or describe a model.

Usage::

    skinkit pose [MODEL] [--scene N] [--clip NAME|INDEX | --rest] [--times T [T ...] | --fps F]
                 [--loop | --clamp] [--dtype float64|float32] [--normals] [--max-output SIZE]
                 [--quiet | --verbose]
                 --out FILE.npz | --out DIR/ [--format ply|obj] | --out FILE.glb
    skinkit pose BODY.pkl|BODY.npz --params PARAMS.npz [--dtype ...] [--quiet] --out FILE.npz
    skinkit pose BODY|--body-dir DIR --motion AMASS.npz [--fps F] [--dtype ...] --out FILE.npz
    skinkit info [MODEL] [--scene N]

``pose`` parses, builds one ``PoseRequest`` (``_request``), picks the writer of ``--out`` from
``skinkit.cli.outputs.WRITERS`` (``_writer``), checks the output's size (``_check_size``) and
streams ``Model.pose_blocks`` into it; a sub-command is a row of ``_build_parser``'s table.
Without MODEL the built-in model (``skinkit.model.default_model``) is used.  Exit status: 0 success,
2 usage error, 1 a model, input file or argument value that cannot be read or posed (one line
``skinkit: error: ...`` on stderr; ``--debug`` shows the traceback).  Warnings (and, with
``--verbose``, what was decided) are the ``skinkit`` logger's lines.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Dict, Iterable, Iterator, List,
                    Optional, Sequence, Tuple, Type, Union)

import numpy as np
from numpy.typing import DTypeLike

from . import bake as cli_bake
from . import retarget as cli_retarget
from ..io.mesh_files import FORMATS
from ..kernels.skinning import SKINNING

if TYPE_CHECKING:
    from ..model.model import Model, Primitive
    from ..model.posed import PosedMeshes
    from ..model.request import PoseRequest
    from .outputs import Output

PROG = "skinkit"
MODEL_SUFFIXES = (".glb", ".gltf", ".bvh", ".fbx")


class CliError(Exception):
    """An input problem reported as ``skinkit: error: <message>`` with exit status 1."""


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


# The arguments of the sub-commands, as (name or flag, argparse keywords) pairs; a list of pairs
# is a mutually exclusive group.
_Arg = Tuple[str, Dict[str, Any]]
_MODEL_ARGS: List[Union[_Arg, List[_Arg]]] = [
    ("model", dict(nargs="?", metavar="MODEL", help="a .glb, .gltf or .bvh file (default: the "
                                                    "built-in skinned cylinder)")),
    ("--scene", dict(type=int, metavar="N", help="the glTF scene whose meshes are posed "
                                                 "(default: the file's default scene)")),
]
_POSE_ARGS = _MODEL_ARGS + [
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
_POSE_DESCRIPTION = (
    "Sample a clip, run forward kinematics, morph targets and skinning (or the node transform of "
    "rigid meshes), and write `times` (T,) and `positions_<node>_<primitive>` (T, V, 3) for "
    "every mesh primitive instance of the scene, in world space, to an .npz file (written "
    "atomically, block by block, after checking its size against --max-output and the free "
    "space); a model without meshes (a .bvh file) gets `joints` (T, N, 3), the world "
    "position of every joint.  --out DIR/ writes one PLY or OBJ mesh per frame instead "
    "(frame_0000.ply, ...: every primitive in one mesh), --out FILE.glb the model posed at one "
    "time as a static glTF binary.")


def _add_arguments(parser: argparse.ArgumentParser,
                   arguments: Sequence[Union[_Arg, List[_Arg]]]) -> None:
    """``parser.add_argument`` for each of ``arguments`` (see ``_MODEL_ARGS``)."""
    for arg in arguments:
        group: Union[argparse.ArgumentParser, argparse._MutuallyExclusiveGroup] = (
            parser.add_mutually_exclusive_group() if isinstance(arg, list) else parser)
        for flag, kwargs in arg if isinstance(arg, list) else [arg]:
            group.add_argument(flag, **kwargs)


def _add_debug(parser: argparse.ArgumentParser, default: Union[bool, str]) -> None:
    # a separate action per parser: the sub-command's must not reset the main one's value
    parser.add_argument("--debug", action="store_true", default=default,
                        help="show the full traceback of an error")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Fast, batchable skeletal animation: pose glTF models with C kernels.")
    _add_debug(parser, False)
    from .. import __version__, _core
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {__version__} (ufbx {_core.ufbx_version()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    commands: Dict[str, Tuple[str, str, Sequence[Union[_Arg, List[_Arg]]],
                              Callable[[argparse.Namespace], int]]] = {
        # name -> (summary, description, arguments, function)
        "pose": ("pose a model over time, write positions to an .npz", _POSE_DESCRIPTION,
                 _POSE_ARGS, _cmd_pose),
        "info": ("describe a model", "Print the skeleton, skins, meshes and clips.", _MODEL_ARGS,
                 _cmd_info),
        "bake": (cli_bake.SUMMARY, cli_bake.DESCRIPTION, cli_bake.ARGS, cli_bake.run),
        "retarget": ("retarget a clip onto another skeleton, write an animated file",
                     cli_retarget.RETARGET_DESCRIPTION, cli_retarget.RETARGET_ARGS,
                     cli_retarget.cmd_retarget),
    }
    for name, (summary, description, arguments, func) in commands.items():
        p = sub.add_parser(name, help=summary, description=description)
        _add_arguments(p, arguments)
        _add_debug(p, argparse.SUPPRESS)
        p.set_defaults(func=func, parser=p)
    return parser


def _load(path: Optional[str], dtype: DTypeLike,
          scene: Optional[int] = None) -> Tuple[Model, str]:
    """The model at ``path`` (glTF, FBX or BVH: the reader is chosen by content), or the default
    model when ``path`` is None; ``scene`` (glTF only) chooses the scene whose meshes are posed."""
    if scene is not None and (path is None or Path(path).suffix.lower() in (".bvh", ".fbx")):
        raise CliError("--scene applies only to glTF models")
    if path is None:
        from ..model.default_model import default_model
        return default_model(dtype=dtype), "default model"
    p = Path(path)
    if p.suffix.lower() not in MODEL_SUFFIXES:
        raise CliError(f"{path}: unsupported model format {p.suffix or '(no suffix)'!r}; "
                       f"expected one of {', '.join(MODEL_SUFFIXES)}")
    from ..io.detect import load_model
    from ..model.model import Model
    model = load_model(path, dtype=dtype, **({} if scene is None else {"scene": scene}))
    if not isinstance(model, Model):     # a body model's content under a model's suffix
        raise CliError(f"{path}: this is a body model; give its file a .pkl or .npz name")
    return model, p.name


# --- skinkit pose: parse, build the request, pick the writer, stream the blocks -----------------

def _writer(args: argparse.Namespace) -> Type[Output]:
    """The output kind of ``--out`` (``skinkit.cli.outputs.WRITERS``), checked before any work: an
    unknown kind or ``-`` and a misplaced ``--format`` are usage errors (exit 2), an existing
    ``--out`` that is not what the writer replaces (a FIFO, a link, a device) exit 1."""
    from ..io.mesh_files import check_output_path
    from .outputs import WRITERS, known_outputs, writer_for

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


def clip_key(model: Model, text: str) -> Union[str, int]:
    """``--clip NAME|INDEX``: the clip's name, or its index when ``text`` is an integer that no
    clip is named."""
    return text if any(c.name == text for c in model.clips) or not _is_int(text) else int(text)


def _request(model: Model, args: argparse.Namespace, writer: Type[Output]) -> PoseRequest:
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


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _check_size(args: argparse.Namespace, output: Output) -> None:
    """Refuse, before posing, an output larger than ``--max-output`` or the free space."""
    import shutil

    folder = os.path.dirname(os.path.abspath(args.out.rstrip("/" + os.sep) or args.out))
    free = shutil.disk_usage(folder).free
    size = output.size()
    limit, what = free, f"the free space in {folder}"
    if args.max_output is not None and args.max_output < free:
        limit, what = args.max_output, "--max-output"
    logging.getLogger(PROG).info("%s: %s, %s of at most %s", args.out, type(output).__name__,
                                 _bytes(size), _bytes(limit))
    if size > limit:
        vertices = sum(output.vertices().values())
        raise CliError(f"--out {args.out}: {_plural(output.frames, 'frame')}"
                       + (f" of {vertices} vertices" if vertices else "")
                       + f" would take {_bytes(size)}, more than {what} ({_bytes(limit)}); "
                       "pose fewer frames (--fps, --times) or raise --max-output")


def _bytes(n: int) -> str:
    """``n`` bytes for a message: 1.96 GB (and the exact count)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit} ({n} bytes)"
    return f"{n} bytes"


def _advancing(blocks: Iterable[PosedMeshes], bar: Any) -> Iterator[PosedMeshes]:
    """The blocks, advancing ``bar`` once the caller is done with each."""
    for block in blocks:
        yield block
        if bar is not None:
            bar.update(len(block.times))


def _progress_bar(total: int, quiet: bool) -> ContextManager[Any]:
    """A tqdm bar over the frames on stderr when it is a terminal and there are several frames;
    with ``--quiet``, a redirected stderr or without tqdm (the ``progress`` extra), a null context
    (nothing is printed)."""
    import contextlib

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


def _cmd_pose(args: argparse.Namespace) -> int:
    from ..model.pose import layout

    start = time.perf_counter()
    if args.animated:   # the model and its clip as an animated glTF (skinkit.cli.retarget)
        return cli_retarget.pose_animated(args)
    writer = _writer(args)
    if args.params is not None or args.motion is not None or args.body_dir is not None:
        from .body import pose_body
        return pose_body(args)
    if args.rest and (args.times is not None or args.fps is not None):
        args.parser.error("--rest poses one frame at time 0; do not combine it with "
                          "--times or --fps")
    model, label = _load(args.model, np.dtype(args.dtype), args.scene)
    request = _request(model, args, writer)
    logging.getLogger(PROG).info("%s: %r", label, request)
    for played in [c for c in request.clips if c is not None]:
        for what in played.unsupported:
            logging.getLogger(PROG).info("clip %r: not played: %s", played.name, what)
    if writer.max_frames is not None and request.count > writer.max_frames:
        args.parser.error(f"--out {args.out} writes one posed frame, got {request.count} times; "
                          "give exactly one with --times T (or --rest)")
    output = writer(args.out, layout(model, request), {p.key: p.faces for p in model.primitives},
                    args.format, args.normals, model)
    _check_size(args, output)
    try:
        with _progress_bar(request.count, args.quiet) as bar:
            output.write(_advancing(model.pose_blocks(request), bar))
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
    _summary(args, f"{label}: {what}, {_plural(request.count, 'frame')}, "
                   f"{_plural(len(model.primitives), 'mesh primitive')} ({nskinned} skinned, "
                   f"{nverts} vertices)", time.perf_counter() - start, output.summary())
    return 0


def _summary(args: argparse.Namespace, what: str, seconds: float, written: str = "") -> None:
    """The one line a command prints on stderr when done (not with --quiet)."""
    if not args.quiet:
        print(f"{PROG}: {what}, {seconds:.3f} s -> {args.out}{written}", file=sys.stderr)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _mesh_lines(model: Model) -> List[str]:
    """``skinkit info``'s mesh section: each mesh, its instances (skinned or rigid), vertex counts,
    morph target names and the clips that animate their weights."""
    meshes: Dict[int, List[Primitive]] = {}
    for prim in model.primitives:
        meshes.setdefault(prim.mesh, []).append(prim)
    out = [f"meshes: {len(meshes)} ({_plural(len(model.primitives), 'primitive instance')}, "
           f"{sum(p.skinned for p in model.primitives)} skinned)"]
    for m, prims in meshes.items():
        first = prims[0]
        nodes = list(dict.fromkeys(p.node for p in prims))
        line = (f"  mesh {m}: {_plural(len(nodes), 'instance')} (node{'s' * (len(nodes) != 1)} "
                f"{', '.join(map(str, nodes))})")
        if first.target_count:
            names = first.target_names or [str(i) for i in range(first.target_count)]
            animated = [c.name if c.name is not None else str(i)
                        for i, c in enumerate(model.clips) if set(c.weights_nodes) & set(nodes)]
            line += (f", {_plural(first.target_count, 'morph target')} ({', '.join(names)}), "
                     f"weights animated by {', '.join(animated) if animated else 'no clip'}")
        out.append(line)
        for prim in prims:
            k = prim.joints.shape[1] if prim.skinned and prim.joints is not None else 0
            how = (f"skinned (skin {prim.skin}, {_plural(k, 'influence')} per vertex)"
                   if prim.skinned else "rigid")
            extra = "" if prim.normals is not None else ", no normals"
            out.append(f"    {prim.key}: node {prim.node}, primitive {prim.index}, {how}, "
                       f"{len(prim.positions)} vertices{extra}")
    return out


def _cmd_info(args: argparse.Namespace) -> int:
    from .body import BODY_SUFFIXES, info_body
    if args.model is not None and args.model.lower().endswith(BODY_SUFFIXES):
        return info_body(args)
    model, label = _load(args.model, np.float64, args.scene)
    sk = model.skeleton
    out = []
    out.append(f"model: {label}" + (f" ({model.name})" if model.name and model.name != label
                                     else ""))
    out.append(f"skeleton: {sk.count} nodes")
    out.append(f"  {'index':>5}  {'parent':>6}  name")
    for idx in range(sk.count):
        name = sk.names[idx] if sk.names is not None and idx < len(sk.names) else None
        out.append(f"  {idx:>5}  {int(sk.parents[idx]):>6}  {name if name is not None else '-'}")
    out.append(f"skins: {len(model.skins)}")
    for idx, skin in enumerate(model.skins):
        root = "" if skin.skeleton is None else f", skeleton node {skin.skeleton}"
        out.append(f"  {idx}: {skin.name if skin.name is not None else '-'}: "
                   f"{_plural(len(skin.joints), 'joint')}{root}")
    out.extend(_mesh_lines(model))
    out.append(f"clips: {len(model.clips)}")
    for idx, clip in enumerate(model.clips):
        unsupported = (f", unsupported: {'; '.join(clip.unsupported)}" if clip.unsupported
                       else "")
        out.append(f"  {idx}: {clip.name if clip.name is not None else '-'}: "
                   f"{clip.duration:g} s, {_plural(len(clip.channels), 'channel')}, "
                   f"{'/'.join(clip.interpolations) or '-'}{unsupported}")
    print("\n".join(out))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Run the ``skinkit`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 for an input or model error (one line ``skinkit: error: ...`` on
        stderr, the traceback too with ``--debug``).  Usage errors raise SystemExit(2) through
        argparse, as for any argparse program.
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    log = logging.getLogger(PROG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogFormat())
    handler.setLevel(logging.ERROR if getattr(args, "quiet", False) else
                     logging.INFO if getattr(args, "verbose", False) else logging.WARNING)
    level = log.level
    log.addHandler(handler)
    log.setLevel(min(handler.level, logging.WARNING))
    try:
        status: int = args.func(args)
        return status
    except BrokenPipeError:
        # the reader of our output went away (``skinkit info | head``): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except (CliError, OSError, ValueError, TypeError, MemoryError) as exc:
        # what a bad file or argument causes: skinkit's errors (GltfError, BvhError and
        # BodyModelError are ValueErrors), the system's, and memory a file asked for
        if args.debug:
            traceback.print_exc()
        print(f"{PROG}: error: {_message(exc)}", file=sys.stderr)
        return 1
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


class _LogFormat(logging.Formatter):
    """``skinkit: warning: ...`` (the level in lower case, as the error lines)."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{PROG}: {record.levelname.lower()}: {record.getMessage()}"


def _message(exc: BaseException) -> str:
    """One line for an error: the file and the system's words for an OSError."""
    message = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, MemoryError):
        message = f"out of memory: {message} (an input asks for more than this machine holds)"
    return " ".join(message.split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
