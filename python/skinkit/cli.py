"""The ``skinkit`` command: pose a model to an .npz file, or describe a model.

Usage::

    skinkit pose [MODEL] [--scene N] [--clip NAME|INDEX | --rest] [--times T [T ...] | --fps F]
                 [--loop] [--dtype float64|float32] [--normals] [--quiet]
                 --out FILE.npz | --out DIR/ [--format ply|obj] | --out FILE.glb
    skinkit pose BODY.pkl|BODY.npz --params PARAMS.npz [--dtype ...] [--quiet] --out FILE.npz
    skinkit info [MODEL] [--scene N]

Without MODEL the built-in model (``skinkit.default_model``) is used.  Exit status: 0 success,
2 usage error, 1 a model or input file that cannot be read or posed (one line
``skinkit: error: ...`` on stderr; ``--debug`` shows the traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from . import cli_bake

PROG = "skinkit"
MODEL_SUFFIXES = (".glb", ".gltf", ".bvh")


class CliError(Exception):
    """An input problem reported as ``skinkit: error: <message>`` with exit status 1."""


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
    ("--loop", dict(action="store_true", help="wrap times into [0, duration) before sampling")),
    ("--dtype", dict(choices=("float64", "float32"), default="float64",
                     help="precision of the computation and of the output (default float64)")),
    ("--skinning", dict(choices=("lbs", "dqs"), default="lbs",
                        help="linear blend (default) or dual quaternion skinning (volume "
                             "preserving, as Blender's Preserve Volume)")),
    ("--normals", dict(action="store_true", help="also write posed "
                                                 "`normals_<node>_<primitive>` (T, V, 3)")),
    ("--out", dict(required=True, metavar="FILE.npz|DIR/|FILE.glb",
                   help="output: an .npz (default), a directory (trailing slash or existing) "
                        "for one mesh file per frame, or a .glb of one posed frame")),
    ("--format", dict(choices=("ply", "obj"), default=None,
                      help="mesh format of the frames written to --out DIR/ (default ply)")),
    ("--quiet", dict(action="store_true", help="no progress bar and no summary line (errors "
                                               "are still reported)")),
    ("--params", dict(metavar="PARAMS.npz",
                      help="pose a body model (MODEL a SMPL/SMPL+H/SMPL-X/MANO .pkl or .npz): "
                           "arrays betas, pose, transl, expression (each optional) with a "
                           "leading frame axis; writes positions_body (F, V, 3) and joints "
                           "(F, J, 3)")),
]
_POSE_DESCRIPTION = (
    "Sample a clip, run forward kinematics, morph targets and skinning (or the node transform of "
    "rigid meshes), and write `times` (T,) and `positions_<node>_<primitive>` (T, V, 3) for "
    "every mesh primitive instance of the scene, in world space, to an .npz file (written "
    "atomically); a model without meshes (a .bvh file) gets `joints` (T, N, 3), the world "
    "position of every joint.  --out DIR/ writes one PLY or OBJ mesh per frame instead "
    "(frame_0000.ply, ...: every primitive in one mesh), --out FILE.glb the model posed at one "
    "time as a static glTF binary.")


def _add_arguments(parser, arguments: List[Union[_Arg, List[_Arg]]]) -> None:
    """``parser.add_argument`` for each of ``arguments`` (see ``_MODEL_ARGS``)."""
    for arg in arguments:
        group = parser.add_mutually_exclusive_group() if isinstance(arg, list) else parser
        for flag, kwargs in arg if isinstance(arg, list) else [arg]:
            group.add_argument(flag, **kwargs)


def _add_debug(parser, default) -> None:
    # a separate action per parser: the sub-command's must not reset the main one's value
    parser.add_argument("--debug", action="store_true", default=default,
                        help="show the full traceback of an error")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Fast, batchable skeletal animation: pose glTF models with C kernels.")
    _add_debug(parser, False)
    from . import __version__
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    commands = {   # name -> (summary, description, arguments, function)
        "pose": ("pose a model over time, write positions to an .npz", _POSE_DESCRIPTION,
                 _POSE_ARGS, _cmd_pose),
        "info": ("describe a model", "Print the skeleton, skins, meshes and clips.", _MODEL_ARGS,
                 _cmd_info),
        "bake": (cli_bake.SUMMARY, cli_bake.DESCRIPTION, cli_bake.ARGS, cli_bake.run),
    }
    for name, (summary, description, arguments, func) in commands.items():
        p = sub.add_parser(name, help=summary, description=description)
        _add_arguments(p, arguments)
        _add_debug(p, argparse.SUPPRESS)
        p.set_defaults(func=func, parser=p)
    return parser


def _load(path: Optional[str], dtype, scene: Optional[int] = None):
    """The model at ``path`` (glTF or BVH), or the default model when ``path`` is None;
    ``scene`` (glTF only) chooses the scene whose meshes are posed."""
    if scene is not None and (path is None or Path(path).suffix.lower() == ".bvh"):
        raise CliError("--scene applies only to glTF models")
    if path is None:
        from .default_model import default_model
        return default_model(dtype=dtype), "default model"
    p = Path(path)
    if p.suffix.lower() not in MODEL_SUFFIXES:
        raise CliError(f"{path}: unsupported model format {p.suffix or '(no suffix)'!r}; "
                       f"expected one of {', '.join(MODEL_SUFFIXES)}")
    if p.suffix.lower() == ".bvh":
        from .io.bvh import load_bvh
        return load_bvh(path, dtype=dtype), p.name
    from .io.gltf import load_gltf
    model = load_gltf(path, dtype=dtype, scene=scene)
    return model, p.name


def _write_npz_atomic(out: str, arrays) -> None:
    """``np.savez`` into a temporary file in the output's folder, then ``os.replace`` it over
    ``out``: an existing ``out`` is either replaced whole or left untouched."""
    from .export import write_atomic

    if os.path.isdir(out):
        raise CliError(f"cannot write {out}: it is a directory")
    write_atomic(out, lambda f: np.savez(f, **arrays), suffix=".npz")


# --- output kinds and progress of ``skinkit pose`` ---------------------------------------------

BLOCK_FRAMES = 64  # frames per pose() call, so that the progress bar moves while posing


def _output_kind(args) -> str:
    """``"npz"``, ``"dir"`` (one mesh file per frame) or ``"glb"`` from ``--out``; a mismatched
    ``--format`` or a single .ply/.obj file is a usage error (exit 2)."""
    out = args.out
    seps = tuple(s for s in (os.sep, os.altsep) if s)
    if out.endswith(seps) or os.path.isdir(out):
        kind = "dir"
    else:
        suffix = Path(out).suffix.lower()
        if suffix in (".ply", ".obj"):
            args.parser.error(f"--out {out}: meshes are written one file per frame into a "
                              f"directory; give --out DIR/ --format {suffix[1:]}")
        kind = "glb" if suffix == ".glb" else "npz"
    if args.format is not None and kind != "dir":
        args.parser.error("--format applies only to --out DIR/ (one mesh file per frame)")
    return kind


def _progress_bar(total: int, quiet: bool):
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
    return tqdm(total=total, unit="frame", desc=PROG, file=stream, leave=False,
                dynamic_ncols=True)


def _pose_blocks(model, clip, times, loop: bool, normals: bool, bar, skinning: str):
    """``skinkit.pose.pose`` over ``times`` in blocks of ``BLOCK_FRAMES``: yields
    ``(first frame, result)`` and advances ``bar`` once the caller is done with the block."""
    from .pose import pose

    for start in range(0, len(times), BLOCK_FRAMES):
        block = times[start:start + BLOCK_FRAMES]
        yield start, pose(model, clip, block, loop, normals, skinning)
        if bar is not None:
            bar.update(len(block))


def _joint_positions(model, clip, times, loop: bool, bar) -> np.ndarray:
    """World positions (T, N, 3) of every skeleton node, in blocks of ``BLOCK_FRAMES``."""
    from .pose import world_matrices

    out = np.empty((len(times), model.skeleton.count, 3), dtype=model.skeleton.translations.dtype)
    for start in range(0, len(times), BLOCK_FRAMES):
        block = times[start:start + BLOCK_FRAMES]
        out[start:start + len(block)] = world_matrices(model, clip, block, loop)[..., :3, 3]
        if bar is not None:
            bar.update(len(block))
    return out


def _pose_to_npz(model, clip, times, args, dtype, bar) -> None:
    arrays = {"times": np.asarray(times, dtype=dtype)}
    if not model.primitives:  # a skeleton-only model (BVH): `joints`, world positions
        arrays["joints"] = _joint_positions(model, clip, times, args.loop, bar)
    for start, posed in (_pose_blocks(model, clip, times, args.loop, args.normals, bar,
                                      args.skinning)
                         if model.primitives else ()):
        for name, a in posed.arrays().items():
            if name not in arrays:
                arrays[name] = np.empty((len(times),) + a.shape[1:], dtype=a.dtype)
            arrays[name][start:start + len(a)] = a
    _write_npz_atomic(args.out, arrays)


def _pose_to_frames(model, clip, times, args, bar) -> None:
    """One PLY/OBJ per frame into ``args.out`` (see ``skinkit.export.FrameWriter``)."""
    from .export import FrameWriter

    if not model.primitives:
        raise CliError("the model has no mesh primitives to write as meshes")
    if args.normals:
        missing = [p.key for p in model.primitives if p.normals is None]
        if missing:
            raise CliError(f"--normals: mesh primitive {missing[0]} has no normals")
    faces = {p.key: p.faces for p in model.primitives}
    try:
        writer = FrameWriter(args.out, faces, len(times), args.format or "ply",
                             normals=args.normals)
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    with writer:
        for _, posed in _pose_blocks(model, clip, times, args.loop, args.normals, bar,
                                     args.skinning):
            writer.write(posed.positions, posed.normals if args.normals else None)


def _pose_to_glb(model, clip, times, args) -> None:
    """The model posed at the one time as a static GLB, with skinned normals where the model
    has normals (see ``skinkit.export.write_glb``)."""
    from .export import write_glb
    from .pose import pose

    if not model.primitives:
        raise CliError("the model has no mesh primitives to write as meshes")
    posed = pose(model, clip, times, args.loop, normals=True, skinning=args.skinning)
    try:
        write_glb(args.out, {k: p[0] for k, p in posed.positions.items()},
                  {p.key: p.faces for p in model.primitives},
                  {k: n[0] for k, n in posed.normals.items()})
    except ImportError as exc:
        raise CliError(str(exc)) from exc


def _from_arguments(fn, *args):
    """``fn(*args)`` on values from the command line: a ValueError is the user's input error."""
    try:
        return fn(*args)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def _cmd_pose(args) -> int:
    if args.params is not None:  # a body model (issue 11): its own branch
        from .cli_body import pose_body
        return pose_body(args)
    from .clip import as_times
    from .pose import frame_times, resolve_clip

    start = time.perf_counter()
    dtype = np.dtype(args.dtype)
    if args.rest and (args.times is not None or args.fps is not None):
        args.parser.error("--rest poses one frame at time 0; do not combine it with "
                          "--times or --fps")
    kind = _output_kind(args)
    model, label = _load(args.model, dtype, args.scene)

    clip = None
    if args.clip is not None:
        clip = _from_arguments(_clip_by_name_or_index, model, args.clip)
    elif not args.rest and model.clips:
        clip = model.clips[0]
    if args.rest or clip is None:
        clip = None
        times = np.zeros(1) if args.times is None else args.times
    elif args.times is not None:
        times = args.times
    else:
        times = _from_arguments(frame_times, clip, 30.0 if args.fps is None else args.fps)
    clip = resolve_clip(model, clip)
    times = _from_arguments(as_times, times, np.float64)

    if kind == "glb" and len(times) != 1:
        args.parser.error(f"--out {args.out} writes one posed frame, got {len(times)} times; "
                          "give exactly one with --times T (or --rest)")
    with _progress_bar(len(times), args.quiet) as bar:
        if kind == "npz":
            _pose_to_npz(model, clip, times, args, dtype, bar)
        elif kind == "dir":
            _pose_to_frames(model, clip, times, args, bar)
        else:
            _pose_to_glb(model, clip, times, args)

    elapsed = time.perf_counter() - start
    nverts = sum(len(p.positions) for p in model.primitives)
    nprim = len(model.primitives)
    nskinned = sum(p.skinned for p in model.primitives)
    if clip is None:
        what = "rest pose" + ("" if args.rest or args.clip else " (the model has no clips)")
    else:
        index = next(i for i, c in enumerate(model.clips) if c is clip)
        what = f"clip {index}" + (f" {clip.name!r}" if clip.name is not None else " (unnamed)")
    written = (f" ({_plural(len(times), (args.format or 'ply').upper() + ' file')})"
               if kind == "dir" else "")
    _summary(args, f"{label}: {what}, {_plural(len(times), 'frame')}, "
                   f"{_plural(nprim, 'mesh primitive')} ({nskinned} skinned, {nverts} vertices)",
             elapsed, written)
    return 0


def _clip_by_name_or_index(model, text: str):
    """A clip by exact name first, then by integer index."""
    for c in model.clips:
        if c.name == text:
            return c
    try:
        index = int(text)
    except ValueError:
        index = None
    from .pose import resolve_clip
    return resolve_clip(model, text if index is None else index)


def _summary(args, what: str, seconds: float, written: str = "") -> None:
    """The one line a command prints on stderr when done (not with --quiet)."""
    if not args.quiet:
        print(f"{PROG}: {what}, {seconds:.3f} s -> {args.out}{written}", file=sys.stderr)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _mesh_lines(model) -> List[str]:
    """``skinkit info``'s mesh section: each mesh, its instances (skinned or rigid), vertex counts,
    morph target names and the clips that animate their weights."""
    meshes: dict = {}
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
            k = prim.joints.shape[1] if prim.skinned else 0
            how = (f"skinned (skin {prim.skin}, {_plural(k, 'influence')} per vertex)"
                   if prim.skinned else "rigid")
            extra = "" if prim.normals is not None else ", no normals"
            out.append(f"    {prim.key}: node {prim.node}, primitive {prim.index}, {how}, "
                       f"{len(prim.positions)} vertices{extra}")
    return out


def _cmd_info(args) -> int:
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
        0 on success, 1 for an input or model error (one line on stderr).  Usage errors raise
        SystemExit(2) through argparse, as for any argparse program.
    """
    from .io.bvh import BvhError
    from .io.gltf import GltfError

    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader of our output went away (``skinkit info | head``): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except (CliError, GltfError, BvhError, OSError) as exc:  # skinkit's own input errors
        if args.debug:
            traceback.print_exc()
        message = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            message = f"{exc.filename}: {exc.strerror}"
        print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
