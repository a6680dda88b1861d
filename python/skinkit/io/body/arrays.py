"""Arrays rebuilt from the bytes of a body-model or motion file, after checking what the file
declares: the dtype against an allow-list of numeric types, the shape against the limits, the
byte count against the data, the sparse index arrays against the shape.  Only ``np.frombuffer``
(then a copy) makes an array: no NumPy constructor or ``__setstate__`` sees the file's values.
"""
from __future__ import annotations

import math
from typing import Any, Tuple

import numpy as np
from numpy.typing import NDArray

from ...body.kinds import BodyModelError
from ...limits import MAX_ARRAY_BYTES  # larger declared sizes are refused before allocating

# numeric dtypes a body model or motion file may hold (NumPy descr without the byte order)
NUMERIC = frozenset("b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8".split())
BYTE_ORDERS = frozenset("<>|=")


def numeric_dtype(descr: object, byteorder: object, key: str) -> np.dtype[Any]:
    """The dtype ``byteorder + descr`` if ``descr`` is one of NUMERIC ('f8', 'u4', ...) and
    ``byteorder`` one of '<', '>', '|', '='; BodyModelError naming ``key`` otherwise."""
    if not isinstance(descr, str) or descr not in NUMERIC:
        raise BodyModelError(f"{key}: dtype {descr!r} is not a numeric dtype "
                             f"({', '.join(sorted(NUMERIC))})")
    if not isinstance(byteorder, str) or byteorder not in BYTE_ORDERS:
        raise BodyModelError(f"{key}: dtype {descr!r} has byte order {byteorder!r}; expected one "
                             "of '<', '>', '|', '='")
    return np.dtype(("=" if byteorder == "|" else byteorder) + descr)


def checked_shape(shape: object, itemsize: int, key: str) -> Tuple[int, ...]:
    """``shape`` as a tuple of at most 32 non-negative Python ints, each and the byte count at
    most MAX_ARRAY_BYTES; BodyModelError naming ``key`` otherwise."""
    if not isinstance(shape, (tuple, list)) or len(shape) > 32 or not all(
            type(n) is int and n >= 0 for n in shape):
        raise BodyModelError(f"{key}: shape {shape!r} is not a tuple of non-negative integers")
    nbytes = math.prod(shape) * itemsize
    if nbytes > MAX_ARRAY_BYTES:
        raise BodyModelError(f"{key}: shape {tuple(shape)} asks for {nbytes} bytes, more than the "
                             f"limit of {MAX_ARRAY_BYTES} bytes (MAX_ARRAY_BYTES)")
    if any(n > MAX_ARRAY_BYTES for n in shape):     # an empty array with a huge dimension
        raise BodyModelError(f"{key}: shape {tuple(shape)} has a dimension above the limit of "
                             f"{MAX_ARRAY_BYTES} (MAX_ARRAY_BYTES)")
    return tuple(shape)


def from_bytes(dtype: np.dtype[Any], shape: object, data: object, fortran: bool,
               key: str) -> NDArray[Any]:
    """A new (owned, writeable) array of ``dtype`` and ``shape`` from the raw bytes ``data``,
    whose length must be the shape's byte count."""
    shape = checked_shape(shape, dtype.itemsize, key)
    if not isinstance(data, (bytes, bytearray)):
        raise BodyModelError(f"{key}: array data is a {type(data).__name__}, not bytes")
    want = math.prod(shape) * dtype.itemsize
    if len(data) != want:
        raise BodyModelError(f"{key}: shape {shape} of {dtype.str} needs {want} bytes, the file "
                             f"holds {len(data)}")
    if type(fortran) is not bool:
        raise BodyModelError(f"{key}: the array order flag is {fortran!r}, not a bool")
    flat = np.frombuffer(data, dtype=dtype, count=math.prod(shape))
    return flat.reshape(shape, order="F" if fortran else "C").copy(order="C")


def dense_from_compressed(fmt: str, shape: Any, data: NDArray[Any], indices: NDArray[Any],
                          indptr: NDArray[Any], key: str) -> NDArray[Any]:
    """The dense float64 matrix of a scipy.sparse CSC (``fmt`` 'csc') or CSR matrix's stored
    arrays, every array checked first: integer indices in range, a monotone ``indptr`` from 0
    of one entry per column (CSC) or row (CSR) plus one, numeric data."""
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise BodyModelError(f"{key}: sparse matrix shape {shape!r} is not (rows, columns)")
    rows, cols = checked_shape(shape, 8, key)
    outer, inner = (cols, rows) if fmt == "csc" else (rows, cols)
    for name, a, kinds in (("indices", indices, "iu"), ("indptr", indptr, "iu"),
                           ("data", data, "biuf")):
        if a.ndim != 1 or a.dtype.kind not in kinds:
            raise BodyModelError(f"{key}: sparse matrix {name} must be a 1-D "
                                 f"{'integer' if kinds == 'iu' else 'numeric'} array, got "
                                 f"{a.dtype} of shape {a.shape}")
    if indptr.shape != (outer + 1,):
        raise BodyModelError(f"{key}: sparse {fmt} matrix of shape {(rows, cols)} needs indptr of "
                             f"{outer + 1} entries, got {indptr.size}")
    ptr = indptr.astype(np.int64)
    nnz = int(ptr[-1])
    if ptr[0] != 0 or (np.diff(ptr) < 0).any() or nnz > min(indices.size, data.size):
        raise BodyModelError(f"{key}: sparse matrix indptr must rise from 0 to at most "
                             f"{min(indices.size, data.size)} (the stored entries)")
    minor = indices[:nnz].astype(np.int64)
    if nnz and (np.min(minor) < 0 or np.max(minor) >= inner):
        raise BodyModelError(f"{key}: sparse matrix index out of range 0..{inner - 1}")
    major = np.repeat(np.arange(outer), np.diff(ptr))
    dense = np.zeros((rows, cols))
    at = (minor, major) if fmt == "csc" else (major, minor)
    np.add.at(dense, at, data[:nnz].astype(np.float64))
    return dense
