"""The ``skinkit`` command: pose a model to an .npz file, or describe a model.

Usage::

    skinkit pose [MODEL] [--clip NAME|INDEX | --rest] [--times T [T ...] | --fps F] [--loop]
                 [--dtype float64|float32] [--normals] --out FILE.npz
    skinkit info [MODEL]

Without MODEL the built-in model (``skinkit.default_model``) is used.  Exit status: 0 success,
2 usage error, 1 a model or input file that cannot be read or posed (one line
``skinkit: error: ...`` on stderr; ``--debug`` shows the traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path
from typing import List, Optional

import numpy as np

PROG = "skinkit"
MODEL_SUFFIXES = (".glb", ".gltf")


class CliError(Exception):
    """An input problem reported as ``skinkit: error: <message>`` with exit status 1."""


def _build_parser() -> argparse.ArgumentParser:
    def add_debug(p, default):
        # a separate action per parser: the sub-command's must not reset the main one's value
        p.add_argument("--debug", action="store_true", default=default,
                       help="show the full traceback of an error")

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Fast, batchable skeletal animation: pose glTF models with C kernels.")
    add_debug(parser, False)
    from . import __version__
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser(
        "pose", help="pose a model over time, write positions to an .npz",
        description="Sample a clip, run forward kinematics and linear blend skinning, and write "
                    "`times` (T,) and `positions_<node>_<primitive>` (T, V, 3) for every skinned "
                    "primitive to an .npz file (written atomically).")
    p.add_argument("model", nargs="?", metavar="MODEL",
                   help="a .glb or .gltf file (default: the built-in skinned cylinder)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--clip", metavar="NAME|INDEX",
                       help="clip to play, by name or index (default: the first clip)")
    which.add_argument("--rest", action="store_true",
                       help="pose the default (rest) TRS of every node; times = [0.0]")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--times", type=float, nargs="+", metavar="T",
                      help="times in seconds")
    when.add_argument("--fps", type=float, metavar="F",
                      help="frames per second covering the whole clip, both ends included "
                           "(default 30)")
    p.add_argument("--loop", action="store_true",
                   help="wrap times into [0, duration) before sampling")
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                   help="precision of the computation and of the output (default float64)")
    p.add_argument("--normals", action="store_true",
                   help="also write skinned `normals_<node>_<primitive>` (T, V, 3)")
    p.add_argument("--out", required=True, metavar="FILE.npz", help="output file")
    add_debug(p, argparse.SUPPRESS)
    p.set_defaults(func=_cmd_pose, parser=p)

    i = sub.add_parser("info", help="describe a model",
                       description="Print the skeleton, skins, skinned primitives and clips.")
    add_debug(i, argparse.SUPPRESS)
    i.add_argument("model", nargs="?", metavar="MODEL",
                   help="a .glb or .gltf file (default: the built-in skinned cylinder)")
    i.set_defaults(func=_cmd_info, parser=i)
    return parser


def _load(path: Optional[str], dtype):
    """The model at ``path`` (glTF), or the default model when ``path`` is None."""
    if path is None:
        from .default_model import default_model
        return default_model(dtype=dtype), "default model"
    p = Path(path)
    if p.suffix.lower() not in MODEL_SUFFIXES:
        raise CliError(f"{path}: unsupported model format {p.suffix or '(no suffix)'!r}; "
                       f"expected one of {', '.join(MODEL_SUFFIXES)}")
    from .gltf import load_gltf
    model = load_gltf(path, dtype=dtype)
    return model, p.name


def _error_types():
    types = [CliError, ValueError, OSError]
    try:
        from .gltf import GltfError
    except ImportError:  # pragma: no cover - the loader ships with the package
        pass
    else:
        types.append(GltfError)
    return tuple(types)


CHUNK_BYTES = 16 << 20  # memory for one block of frames while streaming the output


def _write_npz_atomic(out: str, write) -> None:
    """Call ``write(zipfile)`` on a new .npz in a temporary file in the output's folder, then
    move it over ``out`` with os.replace; the temporary file is removed on any failure, so an
    existing ``out`` is either replaced whole or left untouched."""
    folder = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        raise CliError(f"cannot write {out}: it is a directory")
    try:
        tmp = tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".npz",
                                          prefix=".skinkit-")
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror or exc}") from exc
    try:
        with tmp:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
                write(z)
        umask = os.umask(0)  # NamedTemporaryFile makes 0600; give the usual 0666 & ~umask
        os.umask(umask)
        os.chmod(tmp.name, 0o666 & ~umask)
        os.replace(tmp.name, out)
    except BaseException:
        try:
            os.unlink(tmp.name)
        except OSError:
            pass
        raise


def _npy_entry(z: zipfile.ZipFile, name: str, shape, dtype):
    """Open the member ``name``.npy of an .npz for writing and write its .npy header (the layout
    ``np.savez`` writes: stored, C order); the caller writes the data."""
    f = z.open(name + ".npy", "w", force_zip64=True)
    np.lib.format.write_array_header_1_0(f, {"descr": np.lib.format.dtype_to_descr(dtype),
                                             "fortran_order": False, "shape": tuple(shape)})
    return f


def _all_skin_matrices(model, clip, times, loop):
    """Skinning matrices (T, J, 4, 4) per skin, sampling and FK in blocks of frames so that the
    world matrices of all nodes never take more than about CHUNK_BYTES."""
    from .pose import skin_matrices, world_matrices

    T = len(times)
    step = max(1, CHUNK_BYTES // (model.skeleton.count * 16 * 8))
    if step >= T:
        return skin_matrices(model, world_matrices(model, clip, times, loop))
    mats = None
    for i in range(0, T, step):
        m = skin_matrices(model, world_matrices(model, clip, times[i:i + step], loop))
        if mats is None:
            mats = {k: np.empty((T,) + v.shape[1:], v.dtype) for k, v in m.items()}
        for k, v in m.items():
            mats[k][i:i + len(v)] = v
    return mats


def _stream_skinning(z, name, prim, mats, normals: bool) -> None:
    """Skin ``prim`` with ``mats`` (T, J, 4, 4) in blocks of frames and write the positions (or
    normals) (T, V, 3) to the member ``name``: the output is never held whole in memory."""
    from .kernels import linear_blend_skinning

    T, V = mats.shape[0], len(prim.positions)

    def block(m, out=None):
        if normals:
            return linear_blend_skinning(prim.positions, prim.joints, prim.weights, m,
                                         normals=prim.normals, out=out)[1]
        return linear_blend_skinning(prim.positions, prim.joints, prim.weights, m, out=out)

    step = max(1, CHUNK_BYTES // max(1, V * 3 * 8))
    first = block(mats[:step])
    with _npy_entry(z, name, (T, V, 3), first.dtype) as f:
        f.write(memoryview(np.ascontiguousarray(first)).cast("B"))
        if T <= step:
            return
        pos = np.empty_like(first)
        nrm = np.empty_like(first) if normals else None
        for i in range(step, T, step):
            n = min(step, T - i)
            out = (pos[:n], nrm[:n]) if normals else pos[:n]
            block(mats[i:i + n], out)
            f.write(memoryview(nrm[:n] if normals else pos[:n]).cast("B"))


def _write_pose(z, model, clip, times, loop, normals, dtype):
    """The ``skinkit pose`` output: ``times`` and, per skinned primitive,
    ``positions_<node>_<primitive>`` (and ``normals_...``)."""
    t = np.asarray(times, dtype=dtype)
    with _npy_entry(z, "times", t.shape, t.dtype) as f:
        f.write(memoryview(np.ascontiguousarray(t)).cast("B"))
    mats = _all_skin_matrices(model, clip, times, loop)
    for prim in model.primitives:
        _stream_skinning(z, f"positions_{prim.key}", prim, mats[prim.skin], False)
        if normals and prim.normals is not None:
            _stream_skinning(z, f"normals_{prim.key}", prim, mats[prim.skin], True)


def _cmd_pose(args) -> int:
    from .pose import frame_times, resolve_clip

    start = time.perf_counter()
    dtype = np.dtype(args.dtype)
    if args.rest and (args.times is not None or args.fps is not None):
        args.parser.error("--rest poses one frame at time 0; do not combine it with "
                          "--times or --fps")
    model, label = _load(args.model, dtype)

    clip = None
    if args.clip is not None:
        clip = _clip_by_name_or_index(model, args.clip)
    elif not args.rest and model.clips:
        clip = model.clips[0]
    if args.rest or clip is None:
        clip = None
        times = np.zeros(1) if args.times is None else np.asarray(args.times, dtype=np.float64)
    elif args.times is not None:
        times = np.asarray(args.times, dtype=np.float64)
    else:
        times = frame_times(clip, 30.0 if args.fps is None else args.fps)
    clip = resolve_clip(model, clip)
    if not np.all(np.isfinite(times)):
        raise CliError("times must be finite")

    _write_npz_atomic(args.out, lambda z: _write_pose(z, model, clip, times, args.loop,
                                                     args.normals, dtype))

    elapsed = time.perf_counter() - start
    nverts = sum(len(p.positions) for p in model.primitives)
    nprim = len(model.primitives)
    if clip is None:
        what = "rest pose" + ("" if args.rest or args.clip else " (the model has no clips)")
    else:
        index = next(i for i, c in enumerate(model.clips) if c is clip)
        what = f"clip {index}" + (f" {clip.name!r}" if clip.name is not None else " (unnamed)")
    print(f"{PROG}: {label}: {what}, {len(times)} frame{'s' * (len(times) != 1)}, "
          f"{nprim} skinned primitive{'s' * (nprim != 1)} ({nverts} vertices), "
          f"{elapsed:.3f} s -> {args.out}", file=sys.stderr)
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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _cmd_info(args) -> int:
    model, label = _load(args.model, np.float64)
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
    out.append(f"skinned primitives: {len(model.primitives)}")
    for prim in model.primitives:
        k = prim.joints.shape[1] if np.ndim(prim.joints) == 2 else 0
        extra = "" if prim.normals is not None else ", no normals"
        out.append(f"  {prim.key}: node {prim.node}, mesh {prim.mesh}, primitive {prim.index}, "
                   f"{len(prim.positions)} vertices, {_plural(k, 'influence')} per vertex, "
                   f"skin {prim.skin}{extra}")
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
    except _error_types() as exc:
        if args.debug:
            traceback.print_exc()
        message = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            message = f"{exc.filename}: {exc.strerror}"
        print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
