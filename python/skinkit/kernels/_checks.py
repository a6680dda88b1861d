"""Input checks shared by the modules that compute in NumPy rather than in a C kernel (clip
sampling's ``out=``, blend shapes), so that each error is worded once."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray


def real_array(x: ArrayLike, name: str) -> NDArray[Any]:
    """``x`` as an array of real numbers (integers or floats); TypeError naming ``name`` for any
    other dtype (bool, complex, str, object...)."""
    a = np.asarray(x)
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number array, got dtype {a.dtype}")
    return a


def check_out(out: object, dtype: DTypeLike, shape: Sequence[int], name: str = "out",
              why: str = "") -> None:
    """An ``out=`` array: an ndarray of exactly ``dtype`` and ``shape``, C-contiguous and
    writeable.  TypeError for another type or dtype, ValueError for the shape or the layout; the
    message names ``name`` and adds ``why`` to the dtype it wants."""
    if not isinstance(out, np.ndarray) or out.dtype != dtype:
        raise TypeError(f"{name} must be a {np.dtype(dtype)} array{why}, got "
                        f"{getattr(out, 'dtype', type(out).__name__)}")
    if out.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {out.shape}")
    if not (out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"{name} must be C-contiguous and writeable")
