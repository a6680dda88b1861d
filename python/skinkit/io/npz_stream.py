"""An .npz written block by block: each member's place in the file is known before its data.

``np.savez`` needs every array whole.  Posed meshes come in blocks of frames, each block holding a
piece of every array, so here the shapes and dtypes of the members are given first: each member
(a ``.npy``: its ``numpy.lib.format`` header, then its data) gets its own region of the file,
blocks are written in place as they come (any interleaving of members, in order within each
member), each member's CRC-32 accumulates, and ``finish`` writes the zip's local headers and
central directory.  The result is an uncompressed zip as ``np.savez`` writes (ZIP64 records
where a member or an offset passes 4 GiB), read by ``np.load`` and any unzip.

Format: PKWARE APPNOTE.TXT 6.3 (sections 4.3.7 local file header, 4.3.12 central directory
header, 4.3.14-4.3.16 end records, 4.5.3 the ZIP64 extra field); the ``.npy`` header is NumPy's
(``numpy.lib.format``, version 1.0, or 2.0 when the header needs it, as ``np.save``).
"""
from __future__ import annotations

import io
import struct
import time
import zlib
from typing import Any, BinaryIO, Dict, List, Mapping, Sequence, Tuple, Union

import numpy as np
from numpy.typing import DTypeLike, NDArray

__all__ = ["NpzStream", "npz_size"]

Members = Mapping[str, Tuple[Tuple[int, ...], np.dtype[Any]]]   # name -> (shape, dtype)
_Stamp = Tuple[int, int]   # the zip's (time, date) fields, MS-DOS format
_MAX32 = 0xFFFFFFFF    # a 32-bit field's "see the ZIP64 record" value
_ZIP64_AT = _MAX32     # sizes and offsets from here on need ZIP64 records
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END64 = struct.Struct("<IQHHIIQQQQ")
_LOCATOR = struct.Struct("<IIQI")
_END = struct.Struct("<IHHHHIIH")


def _npy_header(shape: Sequence[int], dtype: DTypeLike) -> bytes:
    d = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
         "shape": tuple(int(n) for n in shape)}
    buf = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(buf, d)
    except ValueError:    # a header longer than 64 KiB: version 2.0, as np.save
        buf = io.BytesIO()
        np.lib.format.write_array_header_2_0(buf, d)
    return buf.getvalue()


class _Member:
    def __init__(self, name: str, shape: Sequence[int], dtype: DTypeLike, offset: int):
        self.name = (name + ".npy").encode()
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.header = _npy_header(self.shape, self.dtype)
        self.row_bytes = int(np.prod(self.shape[1:], dtype=np.int64)) * self.dtype.itemsize
        self.size = len(self.header) + self.row_bytes * (self.shape[0] if self.shape else 1)
        self.offset = offset                              # of the local header
        self.zip64 = self.size >= _ZIP64_AT
        self.data = offset + _LOCAL.size + len(self.name) + 20 * self.zip64
        self.end = self.data + self.size
        self.rows = 0
        self.crc = zlib.crc32(self.header)

    def local_header(self, stamp: _Stamp) -> bytes:
        size = _MAX32 if self.zip64 else self.size
        extra = struct.pack("<HHQQ", 1, 16, self.size, self.size) if self.zip64 else b""
        return _LOCAL.pack(0x04034B50, 45 if self.zip64 else 20, 0, 0, *stamp, self.crc, size,
                           size, len(self.name), len(extra)) + self.name + extra

    def _central_fields(self) -> List[int]:
        """The ZIP64 extra field's values of the central header (none when not needed)."""
        return ([self.size, self.size] if self.zip64 else []) + (
            [self.offset] if self.offset >= _ZIP64_AT else [])

    def central_size(self) -> int:
        n = len(self._central_fields())
        return _CENTRAL.size + len(self.name) + (4 + 8 * n if n else 0)

    def central_header(self, stamp: _Stamp) -> bytes:
        fields = self._central_fields()
        extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) if fields else b""
        size = _MAX32 if self.zip64 else self.size
        return _CENTRAL.pack(0x02014B50, 45, 45 if fields else 20, 0, 0, *stamp, self.crc, size,
                             size, len(self.name), len(extra), 0, 0, 0, 0o600 << 16,
                             _MAX32 if self.offset >= _ZIP64_AT else self.offset
                             ) + self.name + extra


def _plan(members: Members) -> Tuple[Dict[str, _Member], int]:
    out: Dict[str, _Member] = {}
    offset = 0
    for name, (shape, dtype) in members.items():
        m = out[name] = _Member(name, shape, dtype, offset)
        offset = m.end
    return out, offset


def npz_size(members: Members) -> int:
    """The size in bytes of the .npz ``NpzStream`` writes for ``members`` (name -> (shape,
    dtype)), known before any data (also when too large to write)."""
    planned, end = _plan(members)
    central = sum(m.central_size() for m in planned.values())
    return end + central + _END64.size + _LOCATOR.size + _END.size


class NpzStream:
    """Write the members of an .npz block by block into ``file``.

    Parameters
    ----------
    file : binary file
        Open for writing, buffered and seekable (each block is written at its place), empty:
        ``open(path, "wb")`` or ``skinkit.io.mesh_files.atomic_file``.
    members : mapping name -> (shape, dtype)
        The arrays, in the order of the zip (``np.load(...).files``); each is written as
        ``<name>.npy``, C order, rows along its first axis.

    ``write(name, block)`` appends rows; ``finish()`` checks that every row came and writes the
    zip's records.  Raises ValueError for a block of another dtype or row shape, or too many rows.
    """

    def __init__(self, file: BinaryIO, members: Members):
        self._file = file
        self._members, self._end = _plan(members)
        if npz_size(members) >= 2**64:
            raise ValueError(f"an .npz of {npz_size(members)} bytes: more than a zip can hold")
        for m in self._members.values():
            self._write_at(m.header, m.data)

    def _write_at(self, data: Union[bytes, memoryview], offset: int) -> None:
        # a buffered file writes all of it or raises (io.BufferedWriter.write)
        self._file.seek(offset)
        self._file.write(memoryview(data).cast("B"))

    def write(self, name: str, block: NDArray[Any]) -> None:
        """Append ``block`` (B, ...) to member ``name``: the next B rows."""
        m = self._members[name]
        b = np.ascontiguousarray(block)
        if b.dtype != m.dtype or b.shape[1:] != m.shape[1:]:
            raise ValueError(f"{name}: a block of {b.dtype} {b.shape} for a member of "
                             f"{m.dtype} {m.shape}")
        if m.rows + len(b) > m.shape[0]:
            raise ValueError(f"{name}: more than its {m.shape[0]} rows")
        if b.size:   # a block of no bytes (0 rows, or rows of 0 values) writes nothing
            self._write_at(b.data, m.data + len(m.header) + m.rows * m.row_bytes)
            m.crc = zlib.crc32(b.data, m.crc)
        m.rows += len(b)

    def finish(self) -> None:
        """Write the local headers and the central directory (every row must have come)."""
        for m in self._members.values():
            if m.rows != (m.shape[0] if m.shape else 1):
                raise ValueError(f"{m.name.decode()}: {m.rows} of {m.shape[0]} rows written")
        t = time.localtime()
        stamp = (t.tm_hour << 11 | t.tm_min << 5 | t.tm_sec // 2,
                 (t.tm_year - 1980) << 9 | t.tm_mon << 5 | t.tm_mday)
        for m in self._members.values():
            self._write_at(m.local_header(stamp), m.offset)
        central = b"".join(m.central_header(stamp) for m in self._members.values())
        n = len(self._members)
        end64 = _END64.pack(0x06064B50, _END64.size - 12, 45, 45, 0, 0, n, n, len(central),
                            self._end)
        locator = _LOCATOR.pack(0x07064B50, 0, self._end + len(central), 1)
        end = _END.pack(0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF), len(central),
                        _MAX32 if self._end >= _ZIP64_AT else self._end, 0)
        self._write_at(central + end64 + locator + end, self._end)
