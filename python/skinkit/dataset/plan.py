"""Planning a bake: motion arguments -> files in the store's order, each file -> a sequence of
frames (read and checked once, on the workers), sequences laid end to end -> chunks of whole
frames, each chunk a list of pieces (a range of one sequence's frames)."""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence as Seq, Tuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from ..io.amass import BodyMotion

GLOB_CHARS = "*?["
# files of an AMASS folder that hold a subject's shape, not a motion: left out of a folder's list
NOT_MOTIONS = ("shape.npz", "*_stagei.npz")
# the files of a folder of characters (glTF/FBX/USD: skinkit.load_model tells them by content)
CHARACTER_SUFFIXES = (".glb", ".gltf", ".fbx", ".usd", ".usda", ".usdc", ".usdz")


def motion_files(arguments: Seq[str], suffixes: Seq[str] = (".npz",),
                 exclude: Seq[str] = NOT_MOTIONS, what: str = "motion") -> List[Path]:
    """The motion files named by ``arguments``, in the store's order.

    Each argument is a file, a folder (every ``.npz`` below it, except AMASS's per-subject shape
    files ``shape.npz`` and ``*_stagei.npz``) or a glob pattern (``**`` recursive); the files of
    one argument are sorted, the arguments keep their order and a file named twice is kept once.

    Raises
    ------
    ValueError
        An argument that names no file (a missing path, an empty folder, a pattern matching
        nothing), or no argument at all.
    """
    if not arguments:
        raise ValueError(f"no {what} files given")
    out: Dict[Path, None] = {}   # an ordered set
    for arg in arguments:
        p = Path(arg)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file()
                           and f.suffix in suffixes
                           and not any(f.match(n) for n in exclude))
        elif any(c in arg for c in GLOB_CHARS):
            found = sorted(Path(f) for f in glob.glob(arg, recursive=True) if os.path.isfile(f))
        elif p.is_file():
            found = [p]
        else:
            raise ValueError(f"{what} {arg}: no such file or folder")
        if not found:
            raise ValueError(f"{what} {arg}: no {'/'.join(suffixes)} {what} file there")
        out.update((f.resolve(), None) for f in found)
    return list(out)


def character_files(arguments: Seq[str]) -> List[Path]:
    """``motion_files`` for glTF/FBX/USD characters: files, folders (every file of
    ``CHARACTER_SUFFIXES`` below) or glob patterns."""
    return motion_files(arguments, CHARACTER_SUFFIXES, (), "character")


@dataclass(frozen=True)
class Sequence:
    """One sequence as the store holds it: ``count`` frames at ``fps`` (after resampling), or
    ``error`` (then ``count`` is 0) when the file cannot be read.

    A motion (AMASS) has a body ``gender``, ``model_type``, ``betas`` and its ``joints`` and
    ``expression`` widths; a character's clip has ``clip`` (its name, or its index when it has
    none), ``clip_index`` and ``layout`` (its primitives and node count: what must agree
    across the store)."""
    source: str
    count: int
    fps: float
    gender: str = ""
    model_type: str = ""
    betas: NDArray[Any] = field(default_factory=lambda: np.zeros(0))
    joints: int = 0
    expression: int = 0
    error: Optional[str] = None
    clip: Optional[str] = None
    clip_index: int = -1
    layout: Tuple[Any, ...] = ()

    def failed(self, message: str) -> "Sequence":
        return replace(self, count=0, error=message)


def read_motion(path: str, fps: Optional[float]) -> BodyMotion:
    """``skinkit.load_amass(path)``, resampled at ``fps`` when given, with every array finite
    (ValueError naming the file and the array otherwise)."""
    from ..io.amass import load_amass
    motion = load_amass(path)
    if fps is not None and fps != motion.fps:
        motion = motion.resample(fps)
    for name in ("poses", "transl", "betas", "expression"):
        a = getattr(motion, name)
        if a is not None and not np.isfinite(a).all():
            raise ValueError(f"{path}: {name} holds non-finite values (NaN or infinity)")
    return motion


def read_sequence(path: str, fps: Optional[float]) -> Sequence:
    """The sequence of one motion file (runs on a worker: reads and checks the whole file, so
    that a malformed file is found before the store is laid out).  Never raises: a file that
    cannot be read gives a Sequence with ``error`` set (an ImportError is raised: it is the
    worker's environment, not the file)."""
    try:
        m = read_motion(path, fps)
        return Sequence(path, int(m.poses.shape[0]), float(m.fps), str(m.gender),
                        str(m.model_type), np.asarray(m.betas, np.float64), int(m.poses.shape[1]),
                        0 if m.expression is None else int(m.expression.shape[1]))
    except ImportError:        # the environment (a worker without the reader), not the file
        raise
    except Exception as exc:   # noqa: BLE001 - any failure of one file is that file's status
        return Sequence(path, 0, float(fps or 0), error=error_message(path, exc))


def error_message(path: str, exc: Exception) -> str:
    """``"Type: path: message"`` for a file's failure (the path once)."""
    message = str(exc) or type(exc).__name__
    if path not in message:
        message = f"{path}: {message}"
    return f"{type(exc).__name__}: {message}"


@dataclass(frozen=True)
class Piece:
    """Frames ``first:stop`` of sequence ``sequence``, at rows ``row:row + stop - first`` of
    their chunk."""
    sequence: int
    first: int
    stop: int
    row: int


@dataclass(frozen=True)
class Plan:
    """Sequences laid end to end along the frame axis, cut into chunks of ``frames_per_chunk``
    whole frames (the last one shorter)."""
    sequences: Tuple[Sequence, ...]
    frames_per_chunk: int

    @cached_property
    def ends(self) -> NDArray[Any]:
        """(S,) int64: one past the last frame of each sequence in the store."""
        return np.cumsum([s.count for s in self.sequences], dtype=np.int64)

    @property
    def starts(self) -> NDArray[Any]:
        """(S,) int64: the first frame of each sequence in the store."""
        return self.ends - [s.count for s in self.sequences]

    @property
    def frames(self) -> int:
        return int(self.ends[-1]) if self.sequences else 0

    @property
    def chunks(self) -> int:
        return -(-self.frames // self.frames_per_chunk)

    def pieces(self, chunk: int) -> List[Piece]:
        """The pieces of chunk ``chunk``, in row order."""
        lo = chunk * self.frames_per_chunk
        hi = min(lo + self.frames_per_chunk, self.frames)
        out: List[Piece] = []
        i = int(np.searchsorted(self.ends, lo, side="right"))   # the sequence of row 0
        while i < len(self.sequences) and int(self.ends[i]) - self.sequences[i].count < hi:
            start = int(self.ends[i]) - self.sequences[i].count
            a, b = max(lo, start), min(hi, int(self.ends[i]))
            if a < b:                                           # (empty sequences: none)
                out.append(Piece(i, a - start, b - start, a - lo))
            i += 1
        return out
