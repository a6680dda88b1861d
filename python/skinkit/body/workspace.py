"""Scratch arrays that ``BodyModel.forward`` takes its temporaries from, call after call.

A forward pass of N frames makes about 2.2 N x (3 V) numbers of temporaries (the blend-shape
product, the skinning matrices, the rotations, ...): for 256 SMPL+H frames 25 MB, freed at the end
of the call.  Where the allocator hands such blocks back to the system at once (glibc under
``MALLOC_TRIM_THRESHOLD_``, which Dask's nanny sets in its workers), every call maps them again
and takes a page fault on each of their pages; with a ``Workspace`` the calls of a loop reuse
one set of arrays.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Tuple

import numpy as np
from numpy.typing import DTypeLike, NDArray


class Workspace:
    """Scratch arrays by name, each grown to the largest size asked for and reused below it.

    Pass one to ``BodyModel.forward(..., workspace=w)``.  A workspace serves one call at a
    time (one thread); the arrays it lends hold nothing after the call that asked for them.

    Attributes
    ----------
    nbytes : int, the bytes it holds.
    """

    def __init__(self) -> None:
        self._arrays: Dict[str, NDArray[Any]] = {}

    def array(self, name: str, shape: Tuple[int, ...], dtype: DTypeLike) -> NDArray[Any]:
        """An uninitialized C-contiguous array ``shape`` of ``dtype``: a view of the array kept
        under ``name``, which is replaced by a larger one when it holds fewer items or another
        dtype."""
        n, dt = math.prod(shape), np.dtype(dtype)
        kept = self._arrays.get(name)
        if kept is None or kept.size < n or kept.dtype != dt:
            kept = self._arrays[name] = np.empty(n, dt)
        return kept[:n].reshape(shape)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._arrays.values())


__all__ = ["Workspace"]
