"""Writing .npz files member by member for hostile-input tests: a member's .npy header may
declare any shape and dtype whatever data follows, and the zip's central directory may declare
any uncompressed size (a zip bomb without its gigabytes)."""
from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import numpy.lib.format as npy


def npy_bytes(a=None, *, header=None, data=None) -> bytes:
    """The .npy file of ``a`` (any array, object arrays pickled as np.save does), or a
    ``header`` dict ({'descr', 'fortran_order', 'shape'}) followed by raw ``data``."""
    buf = io.BytesIO()
    if header is None:
        np.save(buf, a, allow_pickle=True)
        return buf.getvalue()
    npy.write_array_header_1_0(buf, header)
    return buf.getvalue() + data


def write_npz(path, members, declared_sizes=None, compress=False) -> None:
    """An .npz at ``path`` of ``members`` (key -> array or .npy bytes); ``declared_sizes``
    (key -> n) rewrites the uncompressed size the central directory gives that member."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as zf:
        for key, value in members.items():
            zf.writestr(f"{key}.npy", value if isinstance(value, bytes) else npy_bytes(value))
    if declared_sizes:
        raw = bytearray(open(path, "rb").read())
        for key, size in declared_sizes.items():
            name = f"{key}.npy".encode()
            at = raw.index(b"PK\x01\x02")                  # the central directory
            while raw[at + 46:at + 46 + len(name)] != name:
                at = raw.index(b"PK\x01\x02", at + 4)
            raw[at + 24:at + 28] = struct.pack("<I", size)
        open(path, "wb").write(bytes(raw))
