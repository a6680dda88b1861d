"""Input checks of the motion features, canonical frame, mirroring and foot locking (arrays
computed in NumPy), so that each error is worded once: values are real numbers, finite and of
magnitude at most ``skinkit.limits.MAX_FILE_VALUE`` (so that squares and sums stay finite);
scalars, flags and joint indices are what their names say."""
from __future__ import annotations

import operator
from typing import Any, List, Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kernels._checks import real_array
from ..limits import MAX_FILE_VALUE


def values(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """``x`` as float64: TypeError for a dtype other than integers and floats, ValueError for
    NaN, infinity or a magnitude past MAX_FILE_VALUE (the message gives the first such index)."""
    a = np.asarray(real_array(x, name), np.float64)
    bad = ~(np.abs(a) <= MAX_FILE_VALUE)   # NaN too
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}: expected finite values of magnitude at most "
                         f"{MAX_FILE_VALUE:g} (skinkit.limits.MAX_FILE_VALUE), "
                         f"got {float(a[at])!r} at "
                         f"index {at}")
    return a


def number(x: Any, name: str, minimum: float = 0.0) -> float:
    """A real number in [minimum, MAX_FILE_VALUE]: TypeError for another type (a string, a
    bool), ValueError for NaN, infinity or a value out of range."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                                np.floating)):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__} {x!r}")
    v = float(x)
    if not minimum <= v <= MAX_FILE_VALUE:   # NaN too
        raise ValueError(f"{name}: expected a number in [{minimum:g}, {MAX_FILE_VALUE:g}], "
                         f"got {v!r}")
    return v


def integer(x: Any, name: str, minimum: int = 0, maximum: Optional[int] = None,
            limit: str = "") -> int:
    """An integer (not a bool, not a float) in [minimum, maximum]; ``limit`` names the
    skinkit.limits constant that ``maximum`` is, for the message."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: expected an integer, got {x!r}")
    try:
        v = operator.index(x)
    except TypeError:
        raise TypeError(f"{name}: expected an integer, got {type(x).__name__} {x!r}") from None
    if v < minimum or (maximum is not None and v > maximum):
        most = "" if maximum is None else f" and at most {maximum}" + (
            f" (skinkit.limits.{limit})" if limit else "")
        raise ValueError(f"{name}: expected an integer at least {minimum}{most}, got {v}")
    return v


def flag(x: Any, name: str) -> bool:
    """A bool (Python's or NumPy's); TypeError for anything else (a string is not a flag)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {type(x).__name__} {x!r}")
    return bool(x)


def joint_indices(idx: Sequence[Any], name: str, count: int) -> List[int]:
    """Joint indices: a non-empty sequence of integers in [0, count)."""
    if isinstance(idx, (str, bytes)) or len(idx) == 0:
        raise ValueError(f"{name}: expected joint indices below {count}, got {idx!r}")
    out = [integer(i, f"{name}[{k}]") for k, i in enumerate(idx)]
    if not all(i < count for i in out):
        raise ValueError(f"{name}: expected joint indices below {count}, got {out}")
    return out
