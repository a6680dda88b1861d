"""What every baked store holds besides its source's own arrays (``Schema``: each source of
``skinkit.dataset.sources`` gives the schema of its stores), and the SHA-256 that names a bake's
input files in the store's attributes."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Dict, Tuple

from ..kernels._types import PathLike

# The arrays every store has besides its kind's own (``Schema``): their dimensions (a size's
# letter, or a number) and dtype.  Frame arrays (N, ...) are chunked by whole frames,
# chunk_done one chunk a mark, every other array is one chunk (read whole by open).
COMMON_FRAMES: Dict[str, Tuple[Tuple[Any, ...], str]] = {
    "frame_sequence": (("N",), "int32"), "frame_time": (("N",), "float64")}
COLUMNS_BEFORE: Dict[str, Tuple[Tuple[Any, ...], str]] = {
    "source": (("S",), "str"), "path": (("S",), "str"), "fps": (("S",), "float64")}
COLUMNS_AFTER: Dict[str, Tuple[Tuple[Any, ...], str]] = {
    "start": (("S",), "int64"), "count": (("S",), "int64"), "status": (("S",), "str"),
    "error": (("S",), "str")}


@dataclass(frozen=True)
class Schema:
    """The arrays of one kind of store (``skinkit.dataset.sources``: each source gives the
    schema of its stores, from their attributes) besides the common ones, by dimension letter:
    ``frames`` name -> one frame's dimensions (in the bake's dtype), ``faces`` name ->
    (dimensions, the frame array whose vertices its int32 indices address), ``columns`` the
    sequences table's own columns, name -> (dimensions, dtype; "str": text)."""
    frames: Dict[str, Tuple[Any, ...]]
    faces: Dict[str, Tuple[Tuple[Any, ...], str]]
    columns: Dict[str, Tuple[Tuple[Any, ...], str]]

    def arrays(self) -> Dict[str, Tuple[Tuple[Any, ...], str]]:
        """Every array of such a store, in the order they are checked: its dimensions and its
        dtype ("frame": the bake's dtype argument, "str": text)."""
        out: Dict[str, Tuple[Tuple[Any, ...], str]] = {
            name: (("N",) + dims, "frame") for name, dims in self.frames.items()}
        out.update(COMMON_FRAMES)
        out.update((name, (dims, "int32")) for name, (dims, _) in self.faces.items())
        out["chunk_done"] = (("C",), "uint8")
        columns = {**COLUMNS_BEFORE, **self.columns, **COLUMNS_AFTER}
        out.update((f"sequences/{name}", kind) for name, kind in columns.items())
        return out


def sha256(path: PathLike) -> str:
    """The SHA-256 of a file, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


FrameArrays = Dict[str, Tuple[Tuple[int, ...], Tuple[str, ...]]]
"""The frame arrays a source poses: name -> (shape of one frame, dimension names)."""
