"""Timing harness of the benchmark suite: interleaved repeats, medians, threads, records.

Every case times its contenders (skinkit and its peers) in rounds: one round runs each
contender once (``inner`` calls in a row, ``inner`` chosen so that one sample lasts about
``min_time``), the order of the contenders alternates between rounds, and the reported time is
the median over rounds of the per-call time.  Slow drifts of the machine (this one's speed
changes up to 2x over minutes) then hit skinkit and its peers alike, and the ratio stays
meaningful even when the absolute times move.
"""
from __future__ import annotations

import functools
import gc
import inspect
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

# ------------------------------------------------------------------------------- threads


class Unavailable(Exception):
    """A contender that cannot run here: a peer that is not installed, or a thread count the
    installed skinkit cannot be asked for."""


def accepts(fn, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def accepts_threads(fn) -> bool:
    return accepts(fn, "threads")


def accepts_out(fn) -> bool:
    """Whether ``fn`` takes ``out=`` (Clip.sample since issue 12; an older skinkit does not)."""
    return accepts(fn, "out")


def with_threads(fn, threads: int):
    """``fn`` with ``threads=`` bound when it takes it; without it, skinkit is single-threaded,
    so only threads == 1 can be asked for."""
    if accepts_threads(fn):
        return functools.partial(fn, threads=threads)
    if threads == 1:
        return fn
    raise Unavailable(f"{getattr(fn, '__qualname__', fn)} takes no threads= argument")


# -------------------------------------------------------------------------------- records


@dataclass
class Impl:
    """One contender of a case: its median time per call and how its result compared."""

    name: str
    median_s: Optional[float] = None
    samples_s: List[float] = field(default_factory=list)
    inner: int = 0
    max_abs_diff: Optional[float] = None
    tolerance: Optional[float] = None
    status: str = "ok"          # ok | not installed | n/a | mismatch | error
    note: str = ""
    same_work: bool = True      # False for a reference of another computation (the triad)

    @property
    def ok(self) -> bool:
        return self.median_s is not None


@dataclass
class Target:
    what: str                   # e.g. "fraction of triad bandwidth"
    impl: str                   # the row it belongs to
    value: Optional[float]
    op: str                     # ">=" or "<="
    bound: float
    unit: str = ""
    skip: bool = False          # shown, not judged (a --quick run's sizes are too small)

    @property
    def met(self) -> Optional[bool]:
        if self.skip or self.value is None or math.isnan(self.value):
            return None
        return self.value >= self.bound if self.op == ">=" else self.value <= self.bound

    def as_dict(self) -> Dict[str, Any]:
        return {"what": self.what, "impl": self.impl, "value": self.value, "op": self.op,
                "bound": self.bound, "unit": self.unit, "met": self.met,
                "judged": not self.skip}


@dataclass
class Case:
    group: str
    op: str
    size: str
    dtype: str
    threads: int
    params: Dict[str, Any] = field(default_factory=dict)
    impls: List[Impl] = field(default_factory=list)
    metrics: Dict[str, Dict[str, Any]] = field(default_factory=dict)  # impl -> {name: value}
    targets: List[Target] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def impl(self, name: str) -> Optional[Impl]:
        return next((i for i in self.impls if i.name == name), None)

    def time(self, name: str) -> Optional[float]:
        i = self.impl(name)
        return i.median_s if i is not None else None

    def ratio(self, name: str, base: str = "skinkit") -> Optional[float]:
        """How many times faster ``base`` is than ``name`` (peer median / base median); None
        for a row that does not compute the same thing."""
        i = self.impl(name)
        a, b = self.time(name), self.time(base)
        return a / b if a is not None and b and i.same_work else None

    def as_dict(self) -> Dict[str, Any]:
        sk = self.time("skinkit")
        return {
            "group": self.group, "operation": self.op, "size": self.size, "dtype": self.dtype,
            "threads": self.threads, "params": self.params,
            "skinkit_median_s": sk,
            "impls": [{"name": i.name, "median_s": i.median_s, "samples_s": i.samples_s,
                       "calls_per_sample": i.inner,
                       "ratio_to_skinkit": self.ratio(i.name),
                       "max_abs_diff": i.max_abs_diff, "tolerance": i.tolerance,
                       "status": i.status, "note": i.note,
                       "metrics": self.metrics.get(i.name, {})} for i in self.impls],
            "targets": [t.as_dict() for t in self.targets],
            "notes": self.notes,
        }


# -------------------------------------------------------------------------------- timing


def _per_call(fn: Callable[[], Any], n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def time_interleaved(contenders: Dict[str, Callable[[], Any]], repeats: int, min_time: float,
                     max_inner: int = 200_000, gap: float = 0.001, slow: float = 1.0,
                     slow_rounds: int = 3, first_call: Optional[Dict[str, float]] = None):
    """Median seconds per call of each zero-argument callable, over ``repeats`` interleaved
    rounds.  Returns {name: (median, samples, inner)}.

    ``gap`` seconds of sleep between two contenders lets the worker threads of a threaded peer
    (OpenMP pools spin for a while after a parallel region) go idle before the next one starts.
    A contender whose one call takes more than ``slow`` seconds (a NumPy loop over 1024 joints
    of 4096 poses) runs in only ``slow_rounds`` of the rounds, spread over the run (first,
    middle, last), so that it does not make the suite last an hour.  ``first_call`` gives the
    seconds of a call already made (the result check): one over 10 ms is warm-up and estimate
    enough, and a slow peer is not run twice more before its timing starts.
    """
    names = list(contenders)
    inner, rounds = {}, {}
    for name in names:
        fn = contenders[name]
        one = (first_call or {}).get(name, 0.0)
        if one < 1e-2:
            fn()                               # warm-up: page in, fill caches, lazy init
            one = _per_call(fn, 1)
        if one < 1e-4:                         # too short to time once: time a short loop
            one = _per_call(fn, max(1, min(1000, int(1e-3 / max(one, 1e-8)))))
        inner[name] = max(1, min(max_inner, math.ceil(min_time / max(one, 1e-9))))
        rounds[name] = (set(range(repeats)) if one <= slow or repeats <= slow_rounds else
                        {round(i * (repeats - 1) / (slow_rounds - 1)) for i in range(slow_rounds)})
    samples: Dict[str, List[float]] = {n: [] for n in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(repeats):
            for name in (names if r % 2 == 0 else names[::-1]):
                if r not in rounds[name]:
                    continue
                if gap:
                    time.sleep(gap)
                samples[name].append(_per_call(contenders[name], inner[name]))
    finally:
        if gc_was_enabled:
            gc.enable()
    return {n: (statistics.median(samples[n]), samples[n], inner[n]) for n in names}


# ----------------------------------------------------------------------------- formatting


def fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}" if s / scale < 100 else f"{s / scale:.0f} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_num(x: Optional[float], digits: int = 3) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def fmt_diff(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.1e}"
