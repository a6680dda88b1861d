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

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .._optional import require
from .._types import PathLike

if TYPE_CHECKING:
    from .plan import Plan

STATUS_PENDING, STATUS_DONE, STATUS_FAILED = "pending", "done", "failed"
DTYPES = ("float32", "float16")
COMPRESSIONS = ("zstd", "none")


def _zarr() -> ModuleType:
    return require("zarr", "dataset", "a baked store")


def _compressors(compression: str = "zstd") -> Any:   # zarr codecs, or None
    # level 1: on vertex coordinates level 3 saves no more (0.92 of the bytes either way) and
    # takes 10% longer (benchmarks/bake.py)
    return None if compression == "none" else _zarr().codecs.ZstdCodec(level=1)


def sha256(path: PathLike) -> str:
    """The SHA-256 of a file, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


FrameArrays = Dict[str, Tuple[Tuple[int, ...], Tuple[str, ...]]]
"""The frame arrays a source poses: name -> (shape of one frame, dimension names)."""


def create(out: str, plan: Plan, frames: FrameArrays, static: Dict[str, NDArray[Any]],
           columns: Dict[str, NDArray[Any]], dtype: str, compression: str,
           attributes: Dict[str, Any]) -> None:
    """Lay the store out at ``out`` (a new folder) for ``plan``: the ``frames`` arrays in
    ``dtype`` (``vertices``, ``joints``, or ``vertices/<primitive>``, ...), ``frame_sequence``,
    ``frame_time``, the ``static`` arrays (``faces``), the sequences group (status
    ``pending``, or ``failed`` with its error; the source's ``columns`` after ``fps``) and the
    attributes, written in a sibling folder first and renamed into place, so that ``out`` is
    never half made."""
    zarr = _zarr()
    tmp = Path(f"{out}.creating")
    shutil.rmtree(tmp, ignore_errors=True)
    g = zarr.open_group(str(tmp), mode="w-", zarr_format=3)
    N, K = plan.frames, plan.frames_per_chunk
    frame_arrays = {name: (tail, dtype, dims) for name, (tail, dims) in frames.items()}
    frame_arrays.update({"frame_sequence": ((), "int32", ()), "frame_time": ((), "float64", ())})
    for name, (tail, dt, dims) in frame_arrays.items():
        g.create_array(name, shape=(N,) + tail, chunks=(K,) + tail, dtype=dt, fill_value=0,
                       compressors=_compressors(compression),
                       dimension_names=("frame",) + dims)
    for name, a in static.items():
        g.create_array(name, data=np.asarray(a, np.int32), compressors=_compressors(),
                       dimension_names=("face", "corner"))
    g.create_array("chunk_done", shape=(plan.chunks,), chunks=(1,), dtype="uint8", fill_value=0,
                   compressors=None, dimension_names=("chunk",))
    seqs = plan.sequences
    columns = {"source": np.array([os.path.basename(s.source) for s in seqs], dtype=str),
               "path": np.array([s.source for s in seqs], dtype=str),
               "fps": np.array([s.fps for s in seqs], np.float64), **columns,
               "start": plan.starts, "count": plan.ends - plan.starts,
               "status": np.array([STATUS_FAILED if s.error else STATUS_PENDING for s in seqs],
                                  dtype=str),
               "error": np.array([s.error or "" for s in seqs], dtype=str)}
    sg = g.create_group("sequences")
    for name, a in columns.items():
        arr = sg.create_array(name, shape=a.shape, chunks=tuple(max(n, 1) for n in a.shape),
                              dtype=str if a.dtype.kind == "U" else a.dtype,
                              compressors=_compressors(),
                              dimension_names=("sequence", "beta")[:a.ndim])
        if a.size:
            arr[...] = a
    g.attrs["skinkit"] = attributes
    os.replace(tmp, out)


def existing(out: str, arguments: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The attributes of the store at ``out`` if there is one made with the same
    ``arguments`` (a resumed bake); None if there is no store.

    Raises
    ------
    ValueError
        ``out`` exists but is not a skinkit bake store, or was made with other arguments (the
        message names each argument that differs, with both values).
    """
    if not os.path.exists(out):
        return None
    try:
        attrs = dict(_zarr().open_group(out, mode="r").attrs).get("skinkit")
    except Exception as exc:   # noqa: BLE001 - whatever zarr raises for a foreign folder
        raise ValueError(f"--out {out}: exists and is not a Zarr store ({exc})") from None
    if not isinstance(attrs, dict) or "arguments" not in attrs:
        raise ValueError(f"--out {out}: exists and is not a skinkit bake store")
    old = attrs["arguments"]
    diff = [f"{k} ({old.get(k)!r} in the store, {arguments.get(k)!r} now)"
            for k in sorted(set(old) | set(arguments)) if old.get(k) != arguments.get(k)]
    if diff:
        raise ValueError(f"--out {out}: a bake with other arguments is there; it resumes only "
                         f"with the same ones. Different: {'; '.join(diff)}")
    return attrs


def check_layout(out: str, plan: Plan) -> None:
    """ValueError unless the store at ``out`` was laid out for ``plan`` (the motion files
    changed between the bake and its resumption)."""
    g = _zarr().open_group(out, mode="r")
    count = g["sequences/count"][...]
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
    done: NDArray[Any] = _zarr().open_group(out, mode="r")["chunk_done"][...].astype(bool)
    return done


def chunk_done(out: str, chunk: int) -> bool:
    """Whether chunk ``chunk`` is written (reads its mark only)."""
    return bool(_zarr().open_group(out, mode="r")["chunk_done"][chunk])


def write_chunk(out: str, chunk: int, frames_per_chunk: int, arrays: Dict[str, NDArray[Any]]
                ) -> None:
    """Write the frame arrays of chunk ``chunk`` (each a whole Zarr chunk), then its done mark:
    a chunk cut short by a killed process is not marked, and is written again on resuming."""
    g = _zarr().open_group(out, mode="r+")
    lo = chunk * frames_per_chunk
    for name, a in arrays.items():
        g[name][lo:lo + len(a)] = a
    g["chunk_done"][chunk] = 1


def finish(out: str, failed_chunks: List[int]) -> None:
    """Status ``done`` for every pending sequence with all its chunks written (those in
    ``failed_chunks`` are not)."""
    g = _zarr().open_group(out, mode="r+")
    done = g["chunk_done"][...].astype(bool)
    K = g["frame_time"].chunks[0]
    start, count = g["sequences/start"][...], g["sequences/count"][...]
    status = g["sequences/status"][...]
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


def frame_names(attributes: Dict[str, Any]) -> List[str]:
    """The frame arrays of a store with these attributes: ``vertices`` (or, for characters,
    ``vertices/<primitive key>`` of each primitive), ``joints``, ``frame_sequence``,
    ``frame_time``."""
    vertices = [f"vertices/{k}" for k in attributes["primitives"]] \
        if "primitives" in attributes else ["vertices"]
    return vertices + ["joints", "frame_sequence", "frame_time"]


def open_store(store: PathLike) -> BakedStore:
    """Open a store written by ``skinkit.dataset.bake`` as dask arrays (nothing is read but
    the small arrays: faces and the sequences table).

    Parameters
    ----------
    store : str or os.PathLike, the store's folder (of motions or of characters).

    Returns
    -------
    BakedStore.  The arrays carry Zarr v3 dimension names, so ``xarray.open_zarr(store)``
    reads the same store as a labelled Dataset where xarray is installed.

    Raises
    ------
    ValueError
        ``store`` is not a skinkit bake store.
    """
    zarr = _zarr()
    da = require("dask.array", "dataset", "skinkit.dataset.open")
    g = zarr.open_group(str(store), mode="r")
    attrs = dict(g.attrs).get("skinkit")
    if not isinstance(attrs, dict):
        raise ValueError(f"{store}: not a skinkit bake store (no skinkit attributes)")
    seq = g["sequences"]
    frames = {k: da.from_zarr(g[k]) for k in frame_names(attrs)}
    if "primitives" in attrs:      # characters: one vertices and faces array per primitive
        keys = attrs["primitives"]
        vertices: Any = {k: frames.pop(f"vertices/{k}") for k in keys}
        faces: Any = {k: g[f"faces/{k}"][...] for k in keys}
    else:
        vertices, faces = frames.pop("vertices"), g["faces"][...]
    return BakedStore(vertices=vertices, faces=faces, attributes=attrs,
                      sequences={k: seq[k][...] for k, _ in seq.arrays()}, **frames)


def frame_arrays(group: Any, chunk: int) -> Tuple[int, Dict[str, NDArray[Any]]]:
    """The first frame and the arrays of chunk ``chunk`` of an open store (for readers that
    go chunk by chunk), named as ``frame_names`` names them."""
    K = group["frame_time"].chunks[0]
    lo = chunk * K
    names = frame_names(dict(group.attrs)["skinkit"])
    return lo, {k: group[k][lo:lo + K] for k in names}
