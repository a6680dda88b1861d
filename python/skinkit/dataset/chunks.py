"""Bounded chunk reads of a baked store: only the codecs a bake writes, and each chunk file's
decoded size checked against its array's chunk shape and dtype before Zarr decodes it.

A store is untrusted (``skinkit.limits``): a small chunk file can declare gigabytes (a Zstandard
frame's content size, a vlen-utf8 item count or length, a chunk file larger than its chunk),
and a codec named in ``zarr.json`` can run code (numcodecs' ``pickle``).  A bake writes Zarr v3
arrays with the codecs ``bytes`` (numbers) or ``vlen-utf8`` (text), each alone or followed by
``zstd`` (RFC 8878), chunk keys ``c/i/j/...``, on a local folder; anything else is refused by
``check_array`` before a chunk is read, and ``check_chunk`` holds each chunk file to its
array: raw chunks exactly the chunk's bytes, Zstandard frames declaring exactly them in their
header (RFC 8878 section 3.1.1.1: libzstd then decodes into a buffer of that size, and a frame
regenerating more fails), text chunks decoded (bounded) and walked as vlen-utf8 (a uint32 item
count, then each item's uint32 length and bytes) before numcodecs allocates their items.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np

from .. import limits
from ..kernels._optional import require

# the codec chains a bake writes (store.create): numbers, text, each with or without zstd
CODECS = {("bytes",): False, ("bytes", "zstd"): True, ("vlen-utf8",): False,
          ("vlen-utf8", "zstd"): True}
CHUNK_KEYS = {"name": "default", "configuration": {"separator": "/"}}
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_FCS_BYTES = (0, 2, 4, 8)     # Frame_Content_Size field sizes by its flag (RFC 8878 3.1.1.1.1)
_DICT_BYTES = (0, 1, 2, 4)


class ChunkError(ValueError):
    """A chunk or an array's codecs that a bake does not write (the store raises its
    StoreError with the message)."""


@dataclass(frozen=True)
class ArrayChunks:
    """What one array's chunk files must hold: ``folder`` the array's folder, ``chunk`` the
    chunk shape, ``itemsize`` the bytes of one number (0: text), ``zstd`` whether chunks are
    Zstandard frames, ``metadata`` zarr's (for the chunk keys)."""
    folder: str
    chunk: Tuple[int, ...]
    itemsize: int
    zstd: bool
    metadata: Any

    def path(self, coords: Tuple[int, ...]) -> str:
        """The file of the chunk at ``coords`` (chunk indices)."""
        return os.path.join(self.folder, *self.metadata.encode_chunk_key(coords).split("/"))

    @property
    def decoded_bytes(self) -> int:
        """A chunk's decoded bytes (numbers), or the most a text chunk may take: a uint32
        count, then each item's uint32 length and at most ``limits.MAX_CELL_BYTES``."""
        items = math.prod(self.chunk)
        return items * self.itemsize if self.itemsize else 4 + items * (4 + limits.MAX_CELL_BYTES)


def check_array(folder: str, a: Any) -> ArrayChunks:
    """The chunk rules of zarr array ``a`` (stored in ``folder``); ChunkError unless its
    metadata is a bake's: Zarr v3, no storage transformer, the default chunk keys, and codecs
    of ``CODECS`` (numcodecs' pickle or any other codec is refused before a chunk is read)."""
    meta = a.metadata
    if getattr(meta, "zarr_format", None) != 3:
        raise ChunkError(f"a Zarr v{getattr(meta, 'zarr_format', '?')} array, a bake writes v3")
    codecs = tuple(str(c.to_dict().get("name")) for c in meta.codecs)
    if codecs not in CODECS:
        raise ChunkError(f"the codecs {', '.join(codecs)}; a bake writes only "
                         f"{'; '.join(', '.join(c) for c in CODECS)}")
    if meta.storage_transformers or meta.chunk_key_encoding.to_dict() != CHUNK_KEYS:
        raise ChunkError(f"chunk keys {meta.chunk_key_encoding.to_dict()} and storage "
                         f"transformers {meta.storage_transformers}; a bake writes {CHUNK_KEYS} "
                         "and none")
    dtype = np.dtype(a.dtype)
    return ArrayChunks(folder, tuple(a.chunks), 0 if codecs[0] == "vlen-utf8" else dtype.itemsize,
                       CODECS[codecs], meta)


def check_chunk(rules: ArrayChunks, coords: Tuple[int, ...]) -> None:
    """ChunkError unless the chunk file at ``coords`` (absent: the fill value) decodes to
    at most the bytes its chunk holds, read from its size or header only for numbers."""
    key, path = rules.metadata.encode_chunk_key(coords), rules.path(coords)
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return
    want = rules.decoded_bytes
    where = f"chunk {key}"
    if not rules.zstd:
        if rules.itemsize and size != want:
            raise ChunkError(f"{where}: {size} bytes, expected {want} (the chunk's "
                             f"{rules.chunk} items of {rules.itemsize} bytes)")
        if not rules.itemsize:
            _check_vlen(_read(path, size, want, where), math.prod(rules.chunk), where)
        return
    with open(path, "rb") as f:
        head = f.read(18)
    declared = zstd_content_size(head)
    if declared is None:
        raise ChunkError(f"{where}: not a Zstandard frame declaring its content size "
                         f"(starts {head[:8].hex()})")
    if (rules.itemsize and declared != want) or declared > want:
        raise ChunkError(f"{where}: a Zstandard frame of {declared} bytes, expected "
                         f"{'' if rules.itemsize else 'at most '}{want} (the chunk's "
                         f"{rules.chunk} items)")
    if not rules.itemsize:
        raw = _read(path, size, want, where)
        try:
            data = bytes(require("numcodecs.zstd", "dataset", "a baked store").Zstd().decode(raw))
        except Exception as exc:   # noqa: BLE001 - whatever numcodecs raises for a bad frame
            raise ChunkError(f"{where}: the Zstandard frame does not decode "
                             f"({type(exc).__name__}: {exc})") from None
        _check_vlen(data, math.prod(rules.chunk), where)


def zstd_content_size(head: bytes) -> Any:
    """The Frame_Content_Size of the Zstandard frame starting ``head`` (its first 18 bytes),
    or None when it is not a frame or does not declare it (RFC 8878 section 3.1.1.1)."""
    if len(head) < 6 or head[:4] != ZSTD_MAGIC:
        return None
    descriptor = head[4]
    fcs_flag, single_segment, dict_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    fcs_bytes = _FCS_BYTES[fcs_flag] or single_segment
    if not fcs_bytes:
        return None
    at = 5 + (0 if single_segment else 1) + _DICT_BYTES[dict_flag]
    field = head[at:at + fcs_bytes]
    if len(field) < fcs_bytes:
        return None
    return int.from_bytes(field, "little") + (256 if fcs_bytes == 2 else 0)


def _read(path: str, size: int, most: int, where: str) -> bytes:
    if size > most:
        raise ChunkError(f"{where}: {size} bytes, more than the {most} its items may take")
    with open(path, "rb") as f:
        return f.read(most + 1)


def _check_vlen(data: bytes, items: int, where: str) -> None:
    """ChunkError unless ``data`` is a vlen-utf8 buffer of ``items`` items, each at most
    ``limits.MAX_CELL_BYTES``, ending where its last item ends."""
    if len(data) < 4 or int.from_bytes(data[:4], "little") != items:
        count = int.from_bytes(data[:4], "little") if len(data) >= 4 else None
        raise ChunkError(f"{where}: a vlen-utf8 chunk of {count} items, expected {items}")
    at = 4
    for i in range(items):
        n = int.from_bytes(data[at:at + 4], "little") if at + 4 <= len(data) else -1
        if n < 0 or n > limits.MAX_CELL_BYTES or at + 4 + n > len(data):
            raise ChunkError(f"{where}: vlen-utf8 item {i} of {n} bytes at byte {at} of "
                             f"{len(data)} (at most {limits.MAX_CELL_BYTES}, "
                             "skinkit.limits.MAX_CELL_BYTES, within the chunk)")
        at += 4 + n
    if at != len(data):
        raise ChunkError(f"{where}: {len(data) - at} bytes after the last vlen-utf8 item")


class CheckedArray:
    """A zarr array of a store whose chunks ``check_chunk`` holds to its rules before each
    read (``dask.array.from_array`` reads it one whole chunk at a time); any error reading a
    chunk is the store's error naming the store, the array and the chunk."""

    def __init__(self, store: str, name: str, array: Any, rules: ArrayChunks, error: Any):
        self.store, self.name, self.array, self.rules, self.error = store, name, array, rules, error
        self.shape, self.dtype, self.ndim = array.shape, array.dtype, array.ndim

    def __dask_tokenize__(self) -> Tuple[str, str]:
        return (self.store, self.name)

    def __getitem__(self, index: Any) -> Any:
        start = [s.start or 0 if isinstance(s, slice) else int(s) for s in
                 (index if isinstance(index, tuple) else (index,))]
        start += [0] * (len(self.shape) - len(start))
        first = tuple(int(x) // c for x, c in zip(start, self.rules.chunk))
        try:
            check_chunk(self.rules, first)
            return self.array[index]
        except Exception as exc:   # noqa: BLE001 - the store's error, naming the chunk
            what = str(exc) if isinstance(exc, ChunkError) else f"{type(exc).__name__}: {exc}"
            raise self.error(f"{self.store}: {self.name}: chunk {first[0]} cannot be read "
                             f"({what})") from None


def check_chunks(rules: ArrayChunks) -> int:
    """``check_chunk`` on every chunk file of the array (for the small arrays read whole); the
    number of chunk files."""
    top = os.path.join(rules.folder, "c")
    found = 0
    for folder, _, files in os.walk(top):
        for name in files:
            parts = os.path.relpath(os.path.join(folder, name), top).split(os.sep)
            if all(p.isdigit() for p in parts) and len(parts) == len(rules.chunk):
                check_chunk(rules, tuple(int(p) for p in parts))
                found += 1
    return found
