"""The container of a ``CompressedClip`` (``.skc``): versioned, checksummed, every size bounded.

Layout (little-endian; ``varint`` is unsigned LEB128, at most 5 bytes)::

    header (16 bytes)
      magic    4s   b"SKCC"
      version  u16  2
      itemsize u8   4 (float32 clip) or 8 (float64 clip)
      reserved u8   0
      length   u32  bytes of the body that follows (exactly: nothing may trail it)
      crc32    u32  zlib.crc32 of the body
    body
      nodes varint, ntimes varint, ntracks varint, name: varint length + 1 (0 for None), UTF-8
      ntimes key-time arrays: kind u8, count varint, then
        kind 0 (uniform):  t0 f64, rate f64; t_i = t0 + i / rate
        kind 1 (explicit): count f64, strictly increasing
        kind 2 (explicit float32): count f32, strictly increasing
      ntracks tracks: node varint, path | interpolation << 2 | dropped << 4 u8 (path:
        translation, rotation, scale, weights; interpolation: STEP, LINEAR, CUBICSPLINE;
        dropped: the rotation component left out, 3 otherwise), level u8, ncomp varint (a
        weights track only: the path gives it otherwise), times varint (which key-time array;
        only with ntimes > 1 and a level other than constant, 0 otherwise), then by level:
        0 (constant):     c f32
        1 (constant):     c values of 3 bytes, each the top 24 bits of a float32 (rounded)
        2 (24-bit keys):  rows * c values so
        3..23 (bit rate): c f32 minimum, c f32 extent (the range over the clip), keys a
                          segment varint (0: one segment), then each segment's c u8 minimum
                          and c u8 extent in 255ths of the clip's range (only with keys a
                          segment > 0) and c u8 widths (the bits of each component, at most
                          level), then the codes, segment after segment and row after row,
                          in ceil(sum of rows * sum(widths) over the segments / 8) bytes
        255 (raw):        rows * ncomp values of the clip's dtype
      with rows = K keys (3 K for CUBICSPLINE) and c the stored components (3 for a constant
      or quantized STEP or LINEAR rotation, whose component ``dropped`` is >= 0 and implied;
      ncomp otherwise).

``loads`` refuses (ValueError naming the container and the field) a wrong magic, version, dtype,
length or checksum, a count larger than the bytes left could hold, a node outside ``nodes``, a
component count other than the path's, a non-finite or negative range, and trailing bytes.
"""
from __future__ import annotations

import math
import os
import struct
import zlib
from pathlib import Path
from typing import Any, List, Union

import numpy as np
from numpy.typing import NDArray

from .mesh_files import atomic_file
from ..limits import MAX_FILE_VALUE, nodes_error
from ..model.clip import INTERPOLATIONS, PATHS
from ..model.compressed_clip import (BIT_RATES, CONSTANT, CONSTANT24, CONSTANTS, KEYS24, PATH_NAMES, RAW,
                              CompressedClip, Track, from_float24)

MAGIC = b"SKCC"
VERSION = 2
_HEADER = struct.Struct("<4sHBBII")
MAX_COMPONENTS = 1 << 16
MAX_KEYS = 1 << 24        # keys of a uniform key-time array (the only count no byte backs)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _times(t: NDArray[Any]) -> bytes:
    k = t.size
    if k >= 2:
        rate = (k - 1) / (t[-1] - t[0])
        if np.array_equal(t[0] + np.arange(k) / rate, t):
            return b"\0" + _varint(k) + struct.pack("<dd", t[0], rate)
    if np.array_equal(t.astype(np.float32).astype(np.float64), t):
        return b"\2" + _varint(k) + t.astype("<f4").tobytes()
    return b"\1" + _varint(k) + t.astype("<f8").tobytes()


def track_bytes(tr: Track, ntimes: int) -> bytes:
    """One track as the container stores it."""
    head = [_varint(tr.node), bytes([tr.path | tr.interp << 2 | tr.dropped << 4, tr.level])]
    if PATH_NAMES[tr.path] not in PATHS:
        head.append(_varint(tr.ncomp))
    if ntimes > 1 and tr.level not in CONSTANTS:
        head.append(_varint(tr.times))
    if tr.level in BIT_RATES:
        c = tr.minimum.size
        segs: NDArray[np.uint8] = tr.widths.astype(np.uint8).reshape(-1, c)
        if tr.seg_keys:
            segs = np.concatenate([tr.seg_codes.astype(np.uint8), segs], axis=1)
        head += [tr.minimum.astype("<f4").tobytes(), tr.extent.astype("<f4").tobytes(),
                 _varint(tr.seg_keys), segs.tobytes()]
    return b"".join(head) + tr.payload


def dumps(cc: CompressedClip) -> bytes:
    """The container of ``cc`` (layout in this module's docstring)."""
    try:
        name = b"" if cc.name is None else cc.name.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"the clip's name {cc.name!r} is not UTF-8 (a lone surrogate); the "
                         "container stores UTF-8: rename it") from None
    body = [_varint(cc.node_count), _varint(len(cc.times)), _varint(len(cc.tracks)),
            _varint(0 if cc.name is None else len(name) + 1), name]
    body += [_times(np.asarray(t, np.float64)) for t in cc.times]
    body += [track_bytes(tr, len(cc.times)) for tr in cc.tracks]
    data = b"".join(body)
    return _HEADER.pack(MAGIC, VERSION, cc.dtype.itemsize, 0, len(data), zlib.crc32(data)) + data


class _Reader:
    def __init__(self, data: bytes, where: str):
        self.data, self.pos, self.where = data, 0, where

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{self.where}: {what} (at byte {self.pos + _HEADER.size})")

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or n > len(self.data) - self.pos:
            raise self.fail(f"{what} needs {n} bytes, {len(self.data) - self.pos} are left")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def varint(self, what: str, limit: int) -> int:
        n = 0
        for shift in range(0, 35, 7):
            byte = self.take(1, what)[0]
            n |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if n > limit:
                    raise self.fail(f"{what} is {n}, more than {limit}")
                return n
        raise self.fail(f"{what} is not a varint of at most 5 bytes")

    def floats(self, n: int, dtype: str, what: str) -> NDArray[Any]:
        a = np.frombuffer(self.take(n * np.dtype(dtype).itemsize, what), dtype)
        if not np.all(np.abs(a) <= MAX_FILE_VALUE):      # NaN too
            raise self.fail(f"{what} holds a value that is not finite or beyond 1e30")
        return a.astype(np.dtype(dtype).newbyteorder("="))

    def left(self) -> int:
        return len(self.data) - self.pos


def loads(data: bytes, where: str = "compressed clip") -> CompressedClip:
    """A ``CompressedClip`` from its container; ValueError for anything not as ``dumps`` writes
    (see the module docstring), naming ``where``."""
    if len(data) < _HEADER.size:
        raise ValueError(f"{where}: {len(data)} bytes, shorter than the {_HEADER.size}-byte header")
    magic, version, itemsize, _, length, crc = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"{where}: magic {magic!r}, expected {MAGIC!r}: not a skinkit "
                         "compressed clip")
    if version != VERSION:
        raise ValueError(f"{where}: container version {version}, this skinkit reads {VERSION}")
    if itemsize not in (4, 8):
        raise ValueError(f"{where}: dtype item size {itemsize}, expected 4 or 8")
    body = data[_HEADER.size:]
    if length != len(body):
        raise ValueError(f"{where}: the header says {length} bytes of body, {len(body)} follow "
                         "(truncated or trailing bytes)")
    if zlib.crc32(body) != crc:
        raise ValueError(f"{where}: checksum {zlib.crc32(body):#010x} does not match the "
                         f"header's {crc:#010x}: the container is damaged")
    dtype = np.dtype(np.float32 if itemsize == 4 else np.float64)
    r = _Reader(body, where)
    nodes = r.varint("node count", 1 << 32)
    err = nodes_error(nodes)
    if err:
        raise r.fail(err)
    ntimes = r.varint("key-time array count", r.left() // 2)
    ntracks = r.varint("track count", r.left() // 5)
    nlen = r.varint("name length", r.left() + 1)
    name = None if nlen == 0 else r.take(nlen - 1, "name").decode("utf-8", "replace")
    times: List[NDArray[Any]] = []
    for i in range(ntimes):
        kind = r.take(1, f"times[{i}] kind")[0]
        if kind == 0:
            k = r.varint(f"times[{i}] count", MAX_KEYS)
            t0, rate = struct.unpack("<dd", r.take(16, f"times[{i}] t0 and rate"))
            if not (math.isfinite(t0) and math.isfinite(rate) and rate > 0 and k >= 2):
                raise r.fail(f"times[{i}]: t0 {t0}, rate {rate}, count {k} out of range")
            t = t0 + np.arange(k) / rate
        elif kind in (1, 2):
            size = 8 if kind == 1 else 4
            k = r.varint(f"times[{i}] count", r.left() // size)
            t = r.floats(k, "<f8" if kind == 1 else "<f4", f"times[{i}]").astype(np.float64)
        else:
            raise r.fail(f"times[{i}] kind {kind}, expected 0, 1 or 2")
        if t.size == 0 or np.any(np.diff(t) <= 0):
            raise r.fail(f"times[{i}] must hold at least one strictly increasing time")
        times.append(t)
    tracks = [_track(r, i, nodes, times, dtype) for i in range(ntracks)]
    if r.left():
        raise r.fail(f"{r.left()} bytes trail the last track")
    try:
        return CompressedClip(name, dtype, nodes, times, tracks)
    except ValueError as e:                  # the clip's own rules: named with the file
        raise ValueError(f"{where}: {e}") from None


def _track(r: _Reader, i: int, nodes: int, times: List[NDArray[Any]], dtype: np.dtype[Any]
           ) -> Track:
    what = f"track {i}"
    node = r.varint(f"{what} node", max(nodes - 1, 0))
    if nodes == 0:
        raise r.fail(f"{what}: the clip has no nodes")
    code, level = r.take(2, f"{what} path and level")
    path, interp, dropped = code & 3, code >> 2 & 3, code >> 4
    if interp >= len(INTERPOLATIONS) or dropped > 3:
        raise r.fail(f"{what}: interpolation {interp} or dropped component {dropped} unknown")
    if level not in (CONSTANT, CONSTANT24, KEYS24, RAW) and level not in BIT_RATES:
        raise r.fail(f"{what}: level {level}, expected 0, 1, 2, 255 or one of {BIT_RATES}")
    expected = PATHS.get(PATH_NAMES[path])
    ncomp = expected or r.varint(f"{what} components", MAX_COMPONENTS)
    if ncomp == 0:
        raise r.fail(f"{what}: 0 components for a {PATH_NAMES[path]} track")
    if not times:
        raise r.fail(f"{what}: the container has no key times")
    keyed = len(times) > 1 and level not in CONSTANTS
    t = r.varint(f"{what} key times", len(times) - 1) if keyed else 0
    tr = Track(node, path, interp, t, ncomp, level, dropped)
    c, rows = tr.stored_components(), tr.rows(times[t].size)
    if level == CONSTANT:
        tr.payload = r.floats(c, "<f4", f"{what} constant").astype(np.float32).tobytes()
    elif level in (CONSTANT24, KEYS24):
        n = c if level == CONSTANT24 else rows * c
        tr.payload = r.take(3 * n, f"{what} 24-bit values")
        if not np.all(np.abs(from_float24(tr.payload)) <= MAX_FILE_VALUE):
            raise r.fail(f"{what} holds a value that is not finite or beyond 1e30")
    elif level == RAW:
        tr.payload = r.floats(rows * ncomp, dtype.newbyteorder("<").str, f"{what} keys"
                              ).astype(dtype).tobytes()
    else:
        tr.minimum = r.floats(c, "<f4", f"{what} range minimum").astype(np.float32)
        tr.extent = r.floats(c, "<f4", f"{what} range extent").astype(np.float32)
        if np.any(tr.extent < 0):
            raise r.fail(f"{what}: a negative range extent")
        tr.seg_keys = r.varint(f"{what} keys a segment", times[t].size)
        nseg = -(-rows // tr.seg_rows(times[t].size))
        per = 3 * c if tr.seg_keys else c
        segs = np.frombuffer(r.take(nseg * per, f"{what} segments"), np.uint8).reshape(nseg, per)
        tr.widths = segs[:, per - c:].reshape(-1).copy()
        if tr.seg_keys:
            tr.seg_codes = segs[:, :2 * c].copy()
        if np.any(tr.widths > level):
            raise r.fail(f"{what}: a component width above its level {level}")
        tr.payload = r.take(-(-int(tr.code_bits(times[t].size)[-1]) // 8), f"{what} codes")
    return tr


def save_compressed(cc: CompressedClip, path: Union[str, "os.PathLike[str]"]) -> None:
    """Write ``cc``'s container to ``path`` atomically (a temporary beside it, renamed)."""
    with atomic_file(path) as f:
        f.write(dumps(cc))


def load_compressed(path: Union[str, "os.PathLike[str]"]) -> CompressedClip:
    """Read a container written by ``save_compressed``; ValueError naming the file for a
    container that is damaged, truncated, of another version, or that asks for sizes its bytes
    cannot hold."""
    p = Path(path)
    size = p.stat().st_size
    if size > 1 << 31:
        raise ValueError(f"{p}: {size} bytes, more than a compressed clip may hold (2 GiB)")
    return loads(p.read_bytes(), str(p))
