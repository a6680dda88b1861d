"""What the ``skinkit`` sub-commands share: the error a command reports, the model argument and its
loading, the output size check, and the one summary line."""
from __future__ import annotations

import argparse
import logging
import os
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

from numpy.typing import DTypeLike

from ..io.formats import format_of
from ..io.load import load_model
from ..model.default_model import default_model
from ..model.model import Model

if TYPE_CHECKING:
    from .outputs import Output

PROG = "skinkit"
MODEL_SUFFIXES = (".glb", ".gltf", ".bvh", ".fbx", ".usd", ".usda", ".usdc", ".usdz")


class CliError(Exception):
    """An input problem reported as ``skinkit: error: <message>`` with exit status 1."""


# The arguments of the sub-commands, as (name or flag, argparse keywords) pairs; a list of pairs
# is a mutually exclusive group.
Arg = Tuple[str, Dict[str, Any]]
MODEL_ARGS: List[Union[Arg, List[Arg]]] = [
    ("model", dict(nargs="?", metavar="MODEL", help="a .glb, .gltf, .fbx, .bvh or USD (.usd, "
                                                    ".usda, .usdc, .usdz) file (default: the "
                                                    "built-in skinned cylinder)")),
    ("--scene", dict(type=int, metavar="N", help="the glTF scene whose meshes are posed "
                                                 "(default: the file's default scene)")),
]
def add_arguments(parser: argparse.ArgumentParser,
                   arguments: Sequence[Union[Arg, List[Arg]]]) -> None:
    """``parser.add_argument`` for each of ``arguments`` (see ``MODEL_ARGS``)."""
    for arg in arguments:
        group: Union[argparse.ArgumentParser, argparse._MutuallyExclusiveGroup] = (
            parser.add_mutually_exclusive_group() if isinstance(arg, list) else parser)
        for flag, kwargs in arg if isinstance(arg, list) else [arg]:
            group.add_argument(flag, **kwargs)


def load(path: Optional[str], dtype: DTypeLike,
          scene: Optional[int] = None) -> Tuple[Model, str]:
    """The model at ``path`` (glTF, FBX or BVH: the reader is chosen by content), or the default
    model when ``path`` is None; ``scene`` (glTF only) chooses the scene whose meshes are posed."""
    if scene is not None and (path is None or Path(path).suffix.lower() not in (".glb", ".gltf")):
        raise CliError("--scene applies only to glTF models")
    if path is None:
        return default_model(dtype=dtype), "default model"
    p = Path(path)
    if p.suffix.lower() not in MODEL_SUFFIXES:
        raise CliError(f"{path}: unsupported model format {p.suffix or '(no suffix)'!r}; "
                       f"expected one of {', '.join(MODEL_SUFFIXES)}")
    model = load_model(path, dtype=dtype, **({} if scene is None else {"scene": scene}))
    if not isinstance(model, Model):     # a body model's content under a model's suffix
        raise CliError(f"{path}: this is a body model; give its file a .pkl or .npz name")
    return model, p.name


def clip_key(model: Model, text: str) -> Union[str, int]:
    """``--clip NAME|INDEX``: the clip's name, or its index when ``text`` is an integer that no
    clip is named.  A negative index is refused (CliError), not read as Python reads it (-1
    the last clip): on a command line it is more often a slip than a wish for the last clip,
    and the index a file's clips are listed under (``skinkit info``) counts from 0."""
    if any(c.name == text for c in model.clips) or not is_int(text):
        return text
    if int(text) < 0:
        raise CliError(f"--clip {text}: clip indices count from 0 (0..{len(model.clips) - 1} "
                       "here); a negative index is refused")
    return int(text)


AMASS_POSES = ("poses", "root_orient")    # the first pose array of each AMASS layout


def is_amass(path: str) -> bool:
    """``path`` is an AMASS motion: an .npz (told by its content) with the pose arrays of one of
    the AMASS layouts (``skinkit.io.amass``).  OSError: it cannot be read."""
    fmt = format_of(path)
    if fmt is None or fmt.name != "npz":
        return False
    try:
        with zipfile.ZipFile(path) as z:
            names = {n.removesuffix(".npy") for n in z.namelist()}
    except zipfile.BadZipFile:
        return False
    return any(k in names for k in AMASS_POSES)


def is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def check_size(args: argparse.Namespace, output: Output) -> None:
    """Refuse, before posing, an output larger than ``--max-output`` or the free space."""
    import shutil

    folder = os.path.dirname(os.path.abspath(args.out.rstrip("/" + os.sep) or args.out))
    free = shutil.disk_usage(folder).free
    size = output.size()
    limit, what = free, f"the free space in {folder}"
    if args.max_output is not None and args.max_output < free:
        limit, what = args.max_output, "--max-output"
    logging.getLogger(PROG).info("%s: %s, %s of at most %s", args.out, type(output).__name__,
                                 format_bytes(size), format_bytes(limit))
    if size > limit:
        vertices = sum(output.vertices().values())
        raise CliError(f"--out {args.out}: {plural(output.frames, 'frame')}"
                       + (f" of {vertices} vertices" if vertices else "")
                       + f" would take {format_bytes(size)}, more than {what} ({format_bytes(limit)}); "
                       "pose fewer frames (--fps, --times) or raise --max-output")


def format_bytes(n: int) -> str:
    """``n`` bytes for a message: 1.96 GB (and the exact count)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit} ({n} bytes)"
    return f"{n} bytes"


def summary(args: argparse.Namespace, what: str, seconds: float, written: str = "") -> None:
    """The one line a command prints on stderr when done (not with --quiet)."""
    if not args.quiet:
        print(f"{PROG}: {what}, {seconds:.3f} s -> {args.out}{written}", file=sys.stderr)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"
