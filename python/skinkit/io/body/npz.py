"""A safe .npz reader: member by member with zipfile, only the keys asked for, each .npy header
parsed on the member stream and checked before its data is decompressed.

The uncompressed size comes from the zip's own headers (``ZipInfo.file_size``) and must be
within the limit; the header's dtype must be numeric (never an object array: ``np.load`` is
not used, so no pickle is ever read), or a 0-d string for text keys; the declared shape times
the item size must equal the member's size.  Members not asked for (SMPL-X's object arrays
``joint2num`` / ``part2num``, AMASS's ``dmpls``, a zip bomb's padding) are never opened.
"""
from __future__ import annotations

import math
import os
import tokenize
import zipfile
import zlib
from typing import Any, Dict, Iterable, Tuple, Union

import numpy as np
from numpy.typing import NDArray
import numpy.lib.format as npy

from ...kernels._types import PathLike
from ...limits import MAX_ARRAY_BYTES, MAX_FRAMES, MAX_TEXT_BYTES
from ...body.kinds import BodyModelError
from .arrays import checked_shape, from_bytes, numeric_dtype

_HEADER_READERS = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
# what zipfile and NumPy's header parser raise on bad bytes (tokenize.TokenError and
# SyntaxError from the parser of old-style headers)
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
               RuntimeError, ValueError, KeyError, OverflowError, tokenize.TokenError,
               SyntaxError)


def _check_dtype(dtype: np.dtype[Any], kind: str, shape: Tuple[int, ...],
                 where: str) -> np.dtype[Any]:
    if kind == "text":
        if dtype.kind not in "US" or shape != ():
            raise BodyModelError(f"{where}: expected a 0-d string, got dtype {dtype.str} of "
                                 f"shape {shape}")
        return dtype
    if dtype.hasobject or dtype.names is not None or dtype.subdtype is not None:
        raise BodyModelError(f"{where}: an object or structured array (dtype {dtype}); only "
                             "numeric arrays are read")
    return numeric_dtype(dtype.str[1:], dtype.str[0], where)


def _member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, kind: str,
            where: str, frames: bool) -> Union[str, NDArray[Any]]:
    limit = MAX_TEXT_BYTES if kind == "text" else MAX_ARRAY_BYTES
    if info.file_size > limit + 65536:                # the .npy header is at most 64 KiB
        raise BodyModelError(f"{where}: the member is {info.file_size} bytes uncompressed, "
                             f"more than the limit of {limit} bytes")
    with zf.open(info) as fp:
        version = npy.read_magic(fp)
        if version not in _HEADER_READERS:
            raise BodyModelError(f"{where}: .npy format version {version} (1.0 or 2.0 read)")
        shape, fortran, dtype = _HEADER_READERS[version](fp)
        dtype = _check_dtype(dtype, kind, shape, where)
        shape = checked_shape(shape, dtype.itemsize, where)
        if frames and shape and shape[0] > MAX_FRAMES:
            raise BodyModelError(f"{where}: {shape[0]} frames, more than the limit of "
                                 f"{MAX_FRAMES} (skinkit.limits.MAX_FRAMES)")
        want = math.prod(shape) * dtype.itemsize
        have = info.file_size - fp.tell()
        if have != want:
            raise BodyModelError(f"{where}: the header declares shape {shape} of {dtype.str} "
                                 f"({want} bytes), the member holds {have}")
        data = fp.read(want)
        fp.read(1)                                    # end of member: zipfile checks the CRC
    if kind == "text":
        value = np.frombuffer(data, dtype)[0] if want else ""
        return value.decode("latin1") if isinstance(value, bytes) else str(value)
    return from_bytes(dtype, shape, data, fortran, where)


def _read(path: PathLike, keys: Iterable[str], kind: str, frames: bool = False
          ) -> Dict[str, Any]:
    name = os.fspath(path)
    with open(path, "rb"):
        pass                                          # OSError for a missing file, as before
    try:
        zf = zipfile.ZipFile(path)
    except _ZIP_ERRORS as e:
        raise BodyModelError(f"{name}: not a readable .npz: {type(e).__name__}: {e}") from None
    with zf:
        members = {i.filename[:-4]: i for i in zf.infolist() if i.filename.endswith(".npy")}
        out = {}
        for key in keys:
            if key in members:
                where = f"{name}: {key}"
                try:
                    out[key] = _member(zf, members[key], kind, where, frames)
                except BodyModelError:
                    raise
                except _ZIP_ERRORS as e:
                    raise BodyModelError(f"{where}: unreadable member: {type(e).__name__}: "
                                         f"{e}") from None
    return out


def read_npz(path: PathLike, keys: Iterable[str], frames: bool = False
             ) -> Dict[str, NDArray[Any]]:
    """The numeric arrays ``keys`` of the .npz at ``path`` that it holds (owned copies);
    missing keys are absent from the result.  With ``frames`` (a motion file's arrays), an
    array of more than ``skinkit.limits.MAX_FRAMES`` rows is refused before it is read.

    Raises
    ------
    BodyModelError
        Naming the file and the key: not a zip, a corrupt or oversized member, an object,
        structured or non-numeric array, a header whose shape does not match the data.
    OSError
        The file cannot be opened.
    """
    return _read(path, keys, "numeric", frames)


def read_npz_text(path: PathLike, keys: Iterable[str]) -> Dict[str, str]:
    """The 0-d string members ``keys`` (str or bytes arrays, bytes read as latin1) of the .npz
    at ``path`` that it holds, as str; errors as ``read_npz``."""
    return _read(path, keys, "text")
