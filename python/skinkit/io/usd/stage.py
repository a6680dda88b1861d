"""Opening a USD stage with usd-core, and reading its attributes as checked NumPy arrays.

The file is untrusted: a stage with composition errors (reference cycles, missing layers) is
refused, every array is checked for its length and finiteness before use, and the bytes the
time samples of an attribute would take are charged to the reader's budget
(``skinkit.limits.Budget``) before any sample is read.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from ... import limits
from ...kernels._optional import require

Pxr = Any   # usd-core's modules and objects carry no type information


class UsdError(ValueError):
    """A file that usd-core cannot open, or whose UsdSkel content skinkit refuses (broken
    indices, mismatched array lengths, non-finite values, over the limits): the message starts
    with the file."""


def pxr() -> ModuleType:
    """The ``pxr`` package of usd-core, or an ImportError naming the ``skinkit[usd]`` extra."""
    require("pxr.Usd", "usd", "USD reading and writing")
    require("pxr.UsdSkel", "usd", "USD reading and writing")
    return require("pxr", "usd", "USD reading and writing")


def open_stage(path: Path) -> Pxr:
    """The stage of ``path``, every payload loaded; UsdError when usd-core cannot open it or
    reports a composition error (such as a reference cycle)."""
    px = pxr()
    from pxr import Tf, Usd
    del px
    try:
        stage = Usd.Stage.Open(str(path), Usd.Stage.LoadAll)
    except Tf.ErrorException as e:
        raise UsdError(f"{path}: usd-core cannot open it: {_first_line(e)}") from None
    if stage is None:
        raise UsdError(f"{path}: usd-core cannot open it as a USD stage")
    errors = stage.GetCompositionErrors()
    if errors:
        raise UsdError(f"{path}: composition error (usd-core): {_first_line(errors[0])}"
                       + (f" and {len(errors) - 1} more" if len(errors) > 1 else ""))
    return stage


def _first_line(e: object) -> str:
    text = " ".join(str(e).split())
    return text[:300]


class Arrays:
    """Attribute values of one stage as checked arrays, charged to a budget."""

    def __init__(self, path: Path, budget: limits.Budget):
        self.path = path
        self.budget = budget

    def error(self, where: Any, message: str) -> UsdError:
        """A UsdError naming the file and ``where`` (an attribute, a prim or a path)."""
        name = where.GetPath() if hasattr(where, "GetPath") else where
        return UsdError(f"{self.path}: {name}: {message}")

    def charge(self, nbytes: int, where: Any, what: str) -> None:
        refused = self.budget.charge(nbytes, what)
        if refused is not None:
            raise self.error(where, refused)

    def value(self, attr: Any, time: Any, width: int, count: Optional[int] = None,
              what: str = "values", finite: bool = True) -> Optional[NDArray[Any]]:
        """The array value of ``attr`` at ``time`` as float64 (n, width) (width 0: (n,)), None
        when it has none; checked to hold ``count`` entries and finite numbers."""
        v = attr.Get(time)
        if v is None:
            return None
        a = np.asarray(v)
        if a.dtype.kind not in "iufb":
            raise self.error(attr, f"{what} must be numbers, got {type(v).__name__}")
        n = a.shape[0] if a.ndim else 1
        self.charge(a.size * 8, attr, f"{what} ({n} entries)")
        a = a.astype(np.float64 if a.dtype.kind == "f" else np.int64).reshape(
            (n, width) if width else (n,))
        if count is not None and n != count:
            raise self.error(attr, f"{n} {what} at time code {_code(time)}, expected {count}")
        if finite and a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            raise self.error(attr, f"{what} at time code {_code(time)} hold NaN or infinity")
        if a.dtype.kind == "f" and np.any(np.abs(a) > limits.MAX_FILE_VALUE):
            raise self.error(attr, f"{what} at time code {_code(time)} exceed "
                             f"{limits.MAX_FILE_VALUE:g} (skinkit.limits.MAX_FILE_VALUE)")
        return a

    def samples(self, attr: Any, count: int, width: int, rate: float, what: str
                ) -> Optional[Tuple[NDArray[Any], NDArray[Any]]]:
        """Every time sample of ``attr``: times in seconds (time code / ``rate``) (K,) and
        values (K, count, width); its default value as one key at time 0 when it has no
        samples; None when it has neither.  The samples' bytes are charged before any is
        read, and the last time checked against ``skinkit.limits.MAX_DURATION``."""
        from pxr import Usd
        if not attr.HasAuthoredValue():
            return None
        n = attr.GetNumTimeSamples()
        self.charge(n * count * max(width, 1) * 8, attr,
                    f"{n} time samples of {count} {what}")
        codes = np.asarray(attr.GetTimeSamples(), np.float64) if n else np.zeros(1)
        if n and np.abs(codes).max() / rate > limits.MAX_DURATION:
            raise self.error(attr, limits.duration_error(float(np.abs(codes).max() / rate))
                             or "")
        times = [Usd.TimeCode(float(c)) for c in codes] if n else [Usd.TimeCode.Default()]
        values = []
        for t in times:
            v = self.value(attr, t, width, count, what)
            if v is None:
                return None
            values.append(v)
        return codes / rate, np.stack(values)

    def matrices(self, attr: Any, count: int, what: str) -> Optional[NDArray[Any]]:
        """A matrix4d[] attribute at its default time as (count, 4, 4) matrices acting on column
        vectors (USD stores row-vector matrices: the transposes), None when not authored;
        UsdError when any is not an affine transform of finite numbers."""
        from pxr import Usd
        if not attr.HasAuthoredValue():
            return None
        m = self.value(attr, Usd.TimeCode.EarliestTime(), 16, count, what)
        assert m is not None
        out = m.reshape(-1, 4, 4).transpose(0, 2, 1).copy()
        bad = np.flatnonzero(np.any(np.abs(out[:, 3] - [0, 0, 0, 1]) > 1e-6, axis=1))
        if bad.size:
            raise self.error(attr, f"{what}[{bad[0]}] is not an affine transform (its last "
                             f"column is {m.reshape(-1, 4, 4)[bad[0], :, 3].tolist()})")
        out[:, 3] = [0, 0, 0, 1]
        return out


def _code(time: Any) -> str:
    return "default" if time.IsDefault() else f"{time.GetValue():g}"
