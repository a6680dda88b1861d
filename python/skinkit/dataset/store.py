"""The baked store's layout (Zarr v3, zstd): creating it whole, checking a resumed bake's
arguments against it, writing one chunk of frames, finishing it, and opening it to read.

Layout (N frames, S sequences, V vertices, J joints, F faces; chunks of whole frames)::

    vertices        (N, V, 3) float32|float16   posed vertex positions, model units
    joints          (N, J, 3) float32|float16   posed joint positions
    faces           (F, 3) int32                the body model's triangles
    frame_sequence  (N,) int32                  the sequence of each frame
    frame_time      (N,) float64                the frame's time in its sequence, seconds
    chunk_done      (C,) uint8                  1 once chunk c (frames c K .. c K + K - 1) is in
    sequences/      source, fps, gender, betas (S, B), start, count, status, error
    attributes      skinkit: version, arguments, body models (file name, SHA-256)

A store of characters (``--clips``) has ``vertices/<key>`` (N, V_p, 3) and ``faces/<key>``
(F_p, 3) for each mesh primitive instead of ``vertices`` and ``faces``, ``joints`` the world
position of every node, a ``clip`` column instead of gender and betas, and the attributes
``primitives`` (the keys) and ``characters`` (file name, SHA-256).
"""
from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .. import limits
from ..kernels._optional import require
from . import chunks as _chunks
from .schema import COMMON_FRAMES, FrameArrays
from .sources import store_schema

if TYPE_CHECKING:
    from .plan import Plan

STATUS_PENDING, STATUS_DONE, STATUS_FAILED = "pending", "done", "failed"
DTYPES = ("float32", "float16")
COMPRESSIONS = ("zstd", "none")
class StoreError(ValueError):
    """A folder that is not a skinkit bake store, or whose layout is not a bake's: the message
    names the store, the array, what was expected and what was found."""


def _zarr() -> ModuleType:
    return require("zarr", "dataset", "a baked store")


def _group(path: str, mode: str) -> Any:
    """The zarr group of the store at ``path``, its own metadata only (a consolidated copy in
    the root's zarr.json is ignored: every array's codecs are checked from its own)."""
    return _zarr().open_group(path, mode=mode, zarr_format=3, use_consolidated=False)


def _compressors(compression: str = "zstd") -> Any:   # zarr codecs, or None
    # level 1: on vertex coordinates level 3 saves no more (0.92 of the bytes either way) and
    # takes 10% longer (benchmarks/bake.py)
    return None if compression == "none" else _zarr().codecs.ZstdCodec(level=1)


def create(out: str, plan: Plan, frames: FrameArrays, static: Dict[str, NDArray[Any]],
           columns: Dict[str, NDArray[Any]], dtype: str, compression: str,
           attributes: Dict[str, Any]) -> None:
    """Lay the store out at ``out`` (a new folder) for ``plan``: the ``frames`` arrays in
    ``dtype`` (``vertices``, ``joints``, or ``vertices/<primitive>``, ...), ``frame_sequence``,
    ``frame_time``, the ``static`` arrays (``faces``), the sequences group (status
    ``pending``, or ``failed`` with its error; the source's ``columns`` after ``fps``) and the
    attributes, written in a sibling folder first and renamed into place, so that ``out`` is
    never half made.  ValueError when a chunk would pass ``skinkit.limits`` (before anything
    is written); the folder is checked as ``skinkit.dataset.open`` checks a store (its source's
    ``Schema``) before it is renamed."""
    zarr = _zarr()
    N, K = plan.frames, plan.frames_per_chunk
    frame_arrays = {name: (tail, dtype, dims) for name, (tail, dims) in frames.items()}
    frame_arrays.update({"frame_sequence": ((), "int32", ()), "frame_time": ((), "float64", ())})
    static = {name: np.asarray(a, np.int32) for name, a in static.items()}
    too_big = _limits_error(N, K, {**{name: ((K,) + tail, np.dtype(dt).itemsize)
                                      for name, (tail, dt, _) in frame_arrays.items()},
                                   **{name: (a.shape, 4) for name, a in static.items()}})
    if too_big is not None:
        raise ValueError(f"--out {out}: {too_big}")
    tmp = Path(f"{out}.creating")
    shutil.rmtree(tmp, ignore_errors=True)
    g = zarr.open_group(str(tmp), mode="w-", zarr_format=3)
    for name, (tail, dt, dims) in frame_arrays.items():
        g.create_array(name, shape=(N,) + tail, chunks=(K,) + tail, dtype=dt, fill_value=0,
                       compressors=_compressors(compression),
                       dimension_names=("frame",) + dims)
    for name, a in static.items():
        g.create_array(name, data=a, chunks=tuple(max(n, 1) for n in a.shape),
                       compressors=_compressors(), dimension_names=("face", "corner"))
    g.create_array("chunk_done", shape=(plan.chunks,), chunks=(1,), dtype="uint8", fill_value=0,
                   compressors=None, dimension_names=("chunk",))
    write_sequences(g, plan, columns)
    g.attrs["skinkit"] = attributes
    _checked(str(tmp))   # what skinkit.dataset.open will hold it to: its source's schema, the limits
    os.replace(tmp, out)


def write_sequences(g: Any, plan: Plan, columns: Dict[str, NDArray[Any]]) -> None:
    """The sequences group of a new store's group ``g``: source, path, fps, the source's
    ``columns``, start, count, status (``pending``, or ``failed`` with its error), error."""
    seqs = plan.sequences
    columns = {"source": np.array([os.path.basename(s.source) for s in seqs], dtype=str),
               "path": np.array([s.source for s in seqs], dtype=str),
               "fps": np.array([s.fps for s in seqs], np.float64), **columns,
               "start": plan.starts, "count": plan.ends - plan.starts,
               "status": np.array([STATUS_FAILED if s.error else STATUS_PENDING for s in seqs],
                                  dtype=str),
               # a text cell takes at most MAX_CELL_BYTES of UTF-8 (4 bytes a character)
               "error": np.array([(s.error or "")[:limits.MAX_CELL_BYTES // 4] for s in seqs],
                                 dtype=str)}
    sg = g.create_group("sequences")
    for name, a in columns.items():
        arr = sg.create_array(name, shape=a.shape, chunks=tuple(max(n, 1) for n in a.shape),
                              dtype=str if a.dtype.kind == "U" else a.dtype,
                              compressors=_compressors(),
                              dimension_names=("sequence", "beta")[:a.ndim])
        if a.size:
            arr[...] = a


def check_layout(out: str, plan: Plan) -> None:
    """ValueError unless the store at ``out`` was laid out for ``plan`` (the motion files
    changed between the bake and its resumption)."""
    count = _read_whole(out, _group(out, "r"), "sequences/count")
    want = plan.ends - plan.starts
    if count.shape != want.shape or (count != want).any():
        bad = [plan.sequences[i].source for i in np.flatnonzero(count != want)] \
            if count.shape == want.shape else ["the number of sequences"]
        raise ValueError(f"--out {out}: the motions changed since the store was laid out "
                         f"({', '.join(bad[:3])}); bake to a new store")


def discard_partial_writes(out: str) -> None:
    """Remove the ``*.partial`` files that Zarr's local store writes before renaming each
    chunk into place, left behind by a process killed mid-write: a resumed store then holds
    the same files as an uninterrupted one."""
    for tmp in Path(out).rglob("*.partial"):
        tmp.unlink(missing_ok=True)


def done_chunks(out: str) -> NDArray[Any]:
    """(C,) bool: the chunks already written."""
    done: NDArray[Any] = _read_whole(out, _group(out, "r"), "chunk_done").astype(bool)
    return done


class ChunkWriter:
    """The frame arrays and chunk marks of the store at ``out``, opened once (by a bake task):
    whether a chunk is written, and writing one.

    Attributes
    ----------
    arrays : dict name -> zarr array, the frame arrays (``frame_names``) with their shapes
        and dtypes.
    """

    def __init__(self, out: str) -> None:
        g = _group(out, "r+")
        self.out = out
        # every chunk is whole: zarr's scan of each for the fill value (to leave it out) is a
        # pass over the frames for nothing (an array takes the setting when it is opened)
        with _zarr().config.set({"array.write_empty_chunks": True}):
            self.arrays = {k: g[k] for k in frame_names(dict(g.attrs)["skinkit"])}
        self._marks = g["chunk_done"]
        self._rules = {k: _rules(out, k, a) for k, a in self.arrays.items()}
        self._done = _chunks.CheckedArray(out, "chunk_done", self._marks,
                                          _rules(out, "chunk_done", self._marks), StoreError)

    @property
    def frames_per_chunk(self) -> int:
        return int(self.arrays["frame_time"].chunks[0])

    def done(self, chunk: int) -> bool:
        """Whether chunk ``chunk`` is written (reads its mark only)."""
        return bool(self._done[chunk])

    def write(self, chunk: int, arrays: Dict[str, NDArray[Any]]) -> None:
        """Write the frame arrays of chunk ``chunk`` (each a whole Zarr chunk), each chunk file
        then flushed to the disk and dropped from the page cache (``_flush``), then its done
        mark: a chunk cut short by a killed process is not marked, and is written again on
        resuming."""
        lo = chunk * self.frames_per_chunk
        for name, a in arrays.items():
            self.arrays[name][lo:lo + len(a)] = a
            _flush(self._rules[name].path((chunk,) + (0,) * (a.ndim - 1)))
        self._marks[chunk] = 1


def _flush(path: str) -> None:
    """The file's data written to the disk (fdatasync, else fsync) and its pages dropped from the page cache
    (POSIX_FADV_DONTNEED, where the OS has it): a bake writes each byte once and reads none
    back, and pages dropped are reused by the next chunk's write, where a page cache filling
    with the store takes memory the system has not handed out yet (on a new virtual machine
    ten times the cost of writing to reused pages: docs/guide/dataset.rst)."""
    fd = os.open(path, os.O_RDWR)     # Windows flushes only a handle opened for writing
    try:
        getattr(os, "fdatasync", os.fsync)(fd)
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def finish(out: str, failed_chunks: List[int]) -> None:
    """Status ``done`` for every pending sequence with all its chunks written (those in
    ``failed_chunks`` are not)."""
    g = _group(out, "r+")
    done = _read_whole(out, g, "chunk_done").astype(bool)
    K = g["frame_time"].chunks[0]
    start, count, status = (_read_whole(out, g, f"sequences/{k}")
                            for k in ("start", "count", "status"))
    for i in range(len(status)):
        chunks = range(int(start[i]) // K, -(-int(start[i] + count[i]) // K))
        if status[i] == STATUS_PENDING and all(done[c] for c in chunks):
            status[i] = STATUS_DONE
    if len(status):
        g["sequences/status"][...] = status


@dataclass(frozen=True)
class BakedStore:
    """A baked store opened for reading (``skinkit.dataset.open``).

    Attributes
    ----------
    vertices : dask.array (N, V, 3), or for characters a dict primitive key -> dask.array
        (N, V_p, 3); float32 or float16, chunked as stored (whole frames).
    joints : dask.array (N, J, 3), float32 or float16
    frame_sequence : dask.array (N,) int32; frame_time : dask.array (N,) float64 (seconds)
    faces : numpy (F, 3) int32, or for characters a dict primitive key -> (F_p, 3)
    sequences : dict of numpy arrays, one row per sequence: source, path, fps, gender and
        betas (S, B) (motions) or clip (characters), start, count, status ("done", "failed" or
        "pending"), error.
    attributes : dict, the store's ``skinkit`` attributes (version, arguments, body models or
        characters).
    """
    vertices: Any
    joints: Any
    frame_sequence: Any
    frame_time: Any
    faces: Any
    sequences: Dict[str, NDArray[Any]]
    attributes: Dict[str, Any]

    def __len__(self) -> int:
        return int(self.frame_time.shape[0])

    def __repr__(self) -> str:      # counts, not the arrays (Jupyter prints it)
        return (f"BakedStore({len(self)} frames, {self.sequences['status'].size} sequences, "
                f"{self.faces.shape[0] if hasattr(self.faces, 'shape') else len(self.faces)} "
                f"{'faces' if hasattr(self.faces, 'shape') else 'primitives'})")


def frame_names(attributes: Dict[str, Any]) -> List[str]:
    """The frame arrays of a store with these attributes (its ``Schema``'s, then the common
    ones): ``vertices`` (or, for characters, ``vertices/<primitive key>`` of each primitive),
    ``joints``, ``frame_sequence``, ``frame_time``."""
    return list(store_schema(attributes).frames) + list(COMMON_FRAMES)


def open_mesh_store(path: str) -> BakedStore:
    """The mesh store at ``path`` as dask arrays, checked as ``skinkit.dataset.open`` says
    (``dataset/opening.py``: the one entry, which tells a store's kind)."""
    da = require("dask.array", "dataset", "skinkit.dataset.open")
    g, attrs, static, sequences = _checked(path)
    frames = {}
    for k in frame_names(attrs):
        a = g[k]
        checked = _chunks.CheckedArray(path, k, a, _rules(path, k, a), StoreError)
        frames[k] = da.from_array(checked, chunks=a.chunks, inline_array=True,
                                  name=f"skinkit-store-{k}-{id(checked):x}")
    if "primitives" in attrs:      # characters: one vertices and faces array per primitive
        keys = attrs["primitives"]
        vertices: Any = {k: frames.pop(f"vertices/{k}") for k in keys}
        faces: Any = {k: static[f"faces/{k}"] for k in keys}
    else:
        vertices, faces = frames.pop("vertices"), static["faces"]
    return BakedStore(vertices=vertices, faces=faces, attributes=attrs, sequences=sequences,
                      **frames)


def _checked(path: str) -> Tuple[Any, Dict[str, Any], Dict[str, NDArray[Any]],
                                 Dict[str, NDArray[Any]]]:
    """The zarr group, skinkit attributes, faces arrays (by name) and sequences columns of the
    store at ``path``, once it is seen to be laid out as ``create`` lays it out: as the schema
    of its source, from its attributes, says (StoreError if not)."""
    zarr = _zarr()
    g, attrs = attributes(path)
    K, dtype = attrs["arguments"].get("frames_per_chunk"), attrs["arguments"].get("dtype")
    if type(K) is not int or K < 1 or dtype not in DTYPES:
        raise StoreError(f"{path}: the attributes' arguments frames_per_chunk {K!r:.40} and "
                         f"dtype {dtype!r:.40} are not a bake's (a positive integer; "
                         f"{' or '.join(DTYPES)})")
    try:
        kind = store_schema(attrs)
    except ValueError as exc:
        raise StoreError(f"{path}: {exc}") from None
    sizes: Dict[str, int] = {}
    shapes: Dict[str, Tuple[int, ...]] = {}
    chunks: Dict[str, Tuple[Tuple[int, ...], int]] = {}
    layout, framed = kind.arrays(), set(frame_names(attrs))
    for name, (dims, dt) in layout.items():
        a = _array(zarr, g, path, name)
        _check_array(a, path, name, dims, dtype if dt == "frame" else dt, sizes)
        want = ((K,) + a.shape[1:] if name in framed else (1,) if name == "chunk_done"
                else tuple(max(n, 1) for n in a.shape))
        if a.chunks != want or a.shards is not None:
            shards = "" if a.shards is None else f" in shards of {a.shards}"
            raise StoreError(f"{path}: {name}: chunks of {a.chunks}{shards}, expected {want}")
        chunks[name] = (a.chunks, np.dtype(a.dtype).itemsize)
        shapes[name] = a.shape
    N = sizes["N"]
    if sizes["S"] > limits.MAX_SEQUENCES:
        raise StoreError(f"{path}: sequences: {sizes['S']} rows, more than the limit of "
                         f"{limits.MAX_SEQUENCES} (skinkit.limits.MAX_SEQUENCES)")
    too_big = _limits_error(N, K, chunks)
    if too_big is not None:
        raise StoreError(f"{path}: {too_big}")
    if sizes["C"] != -(-N // K):
        raise StoreError(f"{path}: chunk_done: {sizes['C']} marks, expected {-(-N // K)} "
                         f"(one for each chunk of {K} of the {N} frames)")
    faces = {}
    for name, (_, vertices) in kind.faces.items():
        f, V = _read_whole(path, g, name, written=shapes[name][0] > 0), shapes[vertices][1]
        if f.size and not (f.min() >= 0 and f.max() < V):
            raise StoreError(f"{path}: {name}: an index outside 0..{V - 1} (the vertex rows "
                             f"of {vertices})")
        faces[name] = f
    sequences = {k.split("/")[1]: _read_whole(path, g, k) for k in layout
                 if k.startswith("sequences/")}
    _check_sequences(path, sequences, N)
    return g, attrs, faces, sequences


def attributes(path: str) -> Tuple[Any, Dict[str, Any]]:
    """The zarr group and the ``skinkit`` attributes (with the bake's arguments) of the store
    at ``path``, a folder of only files and folders (StoreError otherwise)."""
    if not os.path.isdir(path):
        raise StoreError(f"{path}: {'not a folder' if os.path.exists(path) else 'no such folder'}")
    _only_files_and_folders(path)
    try:
        g = _group(path, "r")
        attrs = dict(g.attrs).get("skinkit")
    except Exception as exc:   # noqa: BLE001 - whatever zarr raises for a foreign folder
        raise StoreError(f"{path}: not a Zarr v3 store ({type(exc).__name__}: {exc})") from None
    if not isinstance(attrs, dict) or not isinstance(attrs.get("arguments"), dict):
        raise StoreError(f"{path}: not a skinkit bake store (no skinkit attributes with the "
                         "bake's arguments)")
    return g, attrs


def _only_files_and_folders(path: str) -> None:
    """StoreError for a symbolic link, FIFO, socket or device anywhere in the store: reading it
    could leave the folder, or block (a FIFO) or never end (/dev/zero)."""
    folders = [path]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    folders.append(e.path)
                elif not e.is_file(follow_symlinks=False):
                    raise StoreError(f"{path}: {os.path.relpath(e.path, path)} is a symbolic "
                                     "link, FIFO, socket or device; a store holds only files "
                                     "and folders")


def _array(zarr: ModuleType, g: Any, path: str, name: str) -> Any:
    """Array ``name`` of group ``g`` (its metadata only)."""
    try:
        a = g[name]
    except KeyError:
        raise StoreError(f"{path}: no array {name}") from None
    except Exception as exc:   # noqa: BLE001 - whatever zarr raises for broken metadata
        raise StoreError(f"{path}: {name}: unreadable metadata ({type(exc).__name__}: "
                         f"{exc})") from None
    if not isinstance(a, zarr.Array):
        raise StoreError(f"{path}: {name} is a {type(a).__name__}, not an array")
    _rules(path, name, a)
    return a


def _rules(path: str, name: str, a: Any) -> _chunks.ArrayChunks:
    """What the chunk files of array ``name`` must hold (StoreError for codecs or chunk
    keys a bake does not write)."""
    try:
        return _chunks.check_array(os.path.join(path, name), a)
    except _chunks.ChunkError as exc:
        raise StoreError(f"{path}: {name}: {exc}") from None


def _read_whole(path: str, g: Any, name: str, written: bool = False) -> NDArray[Any]:
    """Array ``name`` read whole, once each chunk file is seen to decode within its chunk
    (StoreError naming the array and the chunk otherwise, or whatever zarr raises).  A chunk
    without a file stands for the fill value (zarr writes none for a chunk of it): StoreError
    when ``written`` (an array a bake always writes: the faces) or when those chunks would
    take more than ``skinkit.limits.DECODED_FLOOR`` bytes (a store of a few bytes declaring a
    2 GiB array)."""
    a = g[name]
    rules = _rules(path, name, a)
    try:
        found = _chunks.check_chunks(rules)
        grid = math.prod(-(-n // c) for n, c in zip(a.shape, rules.chunk))
        missing = max(grid - found, 0)
        fill = missing * math.prod(rules.chunk) * (rules.itemsize or 8)   # text: a reference
        if missing and (written or fill > limits.DECODED_FLOOR):
            why = ("a bake writes every chunk of it" if written else
                   f"more than the limit of {limits.DECODED_FLOOR} bytes "
                   "(skinkit.limits.DECODED_FLOOR) of fill value")
            raise _chunks.ChunkError(f"{missing} of its {grid} chunks (of {rules.chunk}, shape "
                                     f"{a.shape}) have no chunk file, {fill} bytes that zarr "
                                     f"would make of the fill value; {why}")
        out: NDArray[Any] = a[...]
    except Exception as exc:   # noqa: BLE001 - a chunk that does not decode
        what = str(exc) if isinstance(exc, _chunks.ChunkError) else f"{type(exc).__name__}: {exc}"
        raise StoreError(f"{path}: {name}: {what}") from None
    return out


def _check_array(a: Any, path: str, name: str, dims: Tuple[Any, ...], dtype: str,
                 sizes: Dict[str, int]) -> None:
    """StoreError unless ``a`` has the dimensions ``dims`` (letters take the size they first
    had in ``sizes``) and the dtype ``dtype``."""
    want = tuple(sizes.get(d, n) if isinstance(d, str) else d for d, n in zip(dims, a.shape))
    if len(a.shape) != len(dims) or a.shape != want:
        expected = ", ".join(f"{d}={sizes[d]}" if d in sizes else str(d) for d in dims)
        raise StoreError(f"{path}: {name}: shape {a.shape}, expected ({expected})")
    sizes.update((d, n) for d, n in zip(dims, a.shape) if isinstance(d, str))
    found = np.dtype(a.dtype)
    if (found.kind in "TUO" and dtype == "str") or found.name == dtype:
        return
    raise StoreError(f"{path}: {name}: dtype {found}, expected {dtype}")


def _check_sequences(path: str, columns: Dict[str, NDArray[Any]], frames: int) -> None:
    """StoreError unless the sequences lie end to end over the ``frames`` frames (start and
    count) with a known status."""
    start, count = columns["start"], columns["count"]
    ends = np.cumsum(count)    # a sum past int64 wraps to a negative one
    if (count < 0).any() or (ends < 0).any() or (ends[-1] if len(ends) else 0) != frames:
        raise StoreError(f"{path}: sequences/count: the counts {count[:4].tolist()}"
                         f"{'...' if len(count) > 4 else ''} do not add up to the {frames} "
                         "frames of the frame arrays")
    bad = np.flatnonzero(start != ends - count)
    if bad.size:
        i = int(bad[0])
        raise StoreError(f"{path}: sequences/start: sequence {i} starts at frame {start[i]}, "
                         f"expected {ends[i] - count[i]} (after the frames of those before)")
    statuses = (STATUS_PENDING, STATUS_DONE, STATUS_FAILED)
    for i, status in enumerate(columns["status"]):
        if status not in statuses:
            raise StoreError(f"{path}: sequences/status: sequence {i} is {str(status)!r:.40}, "
                             f"expected one of {', '.join(statuses)}")


def _limits_error(frames: int, frames_per_chunk: int,
                  chunks: Dict[str, Tuple[Tuple[int, ...], int]]) -> Optional[str]:
    """Why a store of ``frames`` frames in chunks of ``frames_per_chunk`` whose arrays have
    ``chunks`` {name: (chunk shape, item size)} passes skinkit.limits (None if it does not)."""
    n = -(-frames // frames_per_chunk)
    if n > limits.MAX_CHUNKS:
        return (f"{frames} frames in chunks of {frames_per_chunk} make {n} chunks, more than "
                f"the limit of {limits.MAX_CHUNKS} (skinkit.limits.MAX_CHUNKS)")
    for name, (shape, itemsize) in chunks.items():
        nbytes = math.prod(shape) * itemsize
        if nbytes > limits.MAX_ARRAY_BYTES:
            return (f"{name}: a chunk of {shape} takes {nbytes} bytes, more than the limit of "
                    f"{limits.MAX_ARRAY_BYTES} (skinkit.limits.MAX_ARRAY_BYTES)")
    return None


def frame_arrays(group: Any, chunk: int) -> Tuple[int, Dict[str, NDArray[Any]]]:
    """The first frame and the arrays of chunk ``chunk`` of an open store (for readers that
    go chunk by chunk), named as ``frame_names`` names them."""
    K = group["frame_time"].chunks[0]
    lo = chunk * K
    path = str(group.store.root)
    out = {}
    for k in frame_names(dict(group.attrs)["skinkit"]):
        a = group[k]
        out[k] = _chunks.CheckedArray(path, k, a, _rules(path, k, a), StoreError)[lo:lo + K]
    return lo, out
