"""What every benchmark group shares: the run's context (``Ctx``: sizes, threads, the compiled
triad), the machine's cache size, ``bench`` (one case: check the contenders against the first,
then time them interleaved), the metrics and the record of a finished case."""
from __future__ import annotations

import functools
import importlib.util
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import numpy as np

from harness import Case, Impl, Unavailable, time_interleaved, with_threads
import peers

OUT_OF_CACHE = 4     # a case "out of cache" moves at least this many times the largest cache


@dataclass
class Ctx:
    quick: bool
    repeats: int
    min_time: float
    threads: List[int]
    strict: bool                                   # a missing peer is an error (full run)
    llc_bytes: int                                 # the largest CPU cache (last_level_cache)
    emit: Callable[[Case], None] = print
    _triad: object = None
    cases: List[Case] = field(default_factory=list)

    @property
    def triad_bytes(self) -> int:
        return triad_array_bytes(self.llc_bytes, self.quick)

    def triad(self) -> peers.CTriad:
        """The compiled STREAM triad (the yardstick), built on first use; raises Unavailable
        when it cannot be compiled here."""
        if self._triad is None:
            try:
                self._triad = peers.CTriad(self.triad_bytes, max(self.threads))
            except peers.CTriadUnavailable as e:
                self._triad = e
        if isinstance(self._triad, Exception):
            e = Unavailable(str(self._triad))
            e.status = "n/a"
            raise e
        return self._triad

    def triad_entry(self, threads: int):
        """(name, entry) of the compiled triad as a contender of a case (timed in its rounds)."""
        name = f"C triad ({threads} thr)"
        try:
            return name, (functools.partial(self.triad().run, threads), None)
        except Unavailable as e:
            return name, e

    def triad_fraction(self, case: Case, nbytes: float, impl: str = "skinkit"):
        """Records GB/s of the triad row and ``impl``'s bandwidth as a fraction of it (both
        medians of the same rounds); returns the fraction or None."""
        name = f"C triad ({case.threads} thr)"
        tri_t, t = case.time(name), case.time(impl)
        if not tri_t:
            return None
        tri_bw = self.triad().bytes_moved / tri_t
        case.metrics[name] = {"GB/s": tri_bw / 1e9}
        if not t:
            return None
        frac = nbytes / t / tri_bw
        case.metrics.setdefault(impl, {})["of C triad"] = frac
        return frac


def last_level_cache() -> int:
    """Bytes of the largest CPU cache this machine reports (Linux's sysfs, else glibc's
    sysconf), or 32 MiB when it says nothing."""
    sizes = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    for d in (os.listdir(base) if os.path.isdir(base) else []):
        try:
            with open(os.path.join(base, d, "size")) as f:
                text = f.read().strip()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        if text.rstrip("KMG").isdigit():
            sizes.append(int(text.rstrip("KMG")) * scale)
    if not sizes:
        try:
            sizes.append(os.sysconf("SC_LEVEL3_CACHE_SIZE"))
        except (ValueError, OSError):
            pass
    return max(sizes) if sizes and max(sizes) > 0 else 32 << 20


def out_of_cache(llc_bytes: int, bytes_each: int) -> int:
    """How many items of ``bytes_each`` bytes move OUT_OF_CACHE times ``llc_bytes``."""
    return -(-OUT_OF_CACHE * llc_bytes // bytes_each)


def triad_array_bytes(llc_bytes: int, quick: bool = False) -> int:
    """Bytes of each of the triad's three arrays: 8 MiB with --quick, else 256 MiB or more,
    so that the three move at least OUT_OF_CACHE times ``llc_bytes``."""
    return 8 << 20 if quick else max(256 << 20, out_of_cache(llc_bytes, 3))


def installed(*modules) -> Optional[str]:
    """None when every module can be imported, else the first missing one."""
    for m in modules:
        if importlib.util.find_spec(m) is None:
            return m
    return None


def missing(name: str) -> Unavailable:
    e = Unavailable(f"{name} not installed")
    e.status = "not installed"
    return e


def tol_for(dtype, scale=1.0) -> float:
    return (2e-3 if np.dtype(dtype) == np.float32 else 1e-8) * max(1.0, float(scale))


def maxdiff(a, b) -> float:
    if isinstance(a, (tuple, list)):
        return max(maxdiff(x, y) for x, y in zip(a, b))
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise AssertionError(f"shapes differ: {a.shape} vs {b.shape}")
    d = np.abs(a - b)
    return float(np.nan if np.isnan(d).any() else d.max(initial=0.0))


def quat_diff(a, b) -> float:
    """Max |a - b| of quaternions up to sign (q and -q are the same rotation)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.minimum(np.abs(a - b).max(axis=-1), np.abs(a + b).max(axis=-1)).max(
        initial=0.0))


def bench(ctx: Ctx, case: Case, entries: Dict[str, object], compare=maxdiff, tol=None,
          gap=0.001):
    """Check every peer against skinkit once, then time every available entry interleaved.

    entries: name -> zero-argument callable, or (callable, compare or None), or an Unavailable
    (then reported, not timed).  The first entry is the reference ("skinkit").  ``gap``: the
    sleep between two contenders (longer after torch, whose OpenMP threads spin a while).
    """
    fns, checks = {}, {}
    impls = []
    for name, e in entries.items():
        im = Impl(name)
        impls.append(im)
        if isinstance(e, Unavailable):
            im.status = getattr(e, "status", "unavailable")
            im.note = str(e)
            continue
        fn, chk = e if isinstance(e, tuple) else (e, compare)
        fns[name], checks[name] = fn, chk
        im.same_work = chk is not None or not impls[:-1]      # the reference, or checked
    ref_name = next(iter(entries))
    first_call = {}

    def call(name):
        t0 = time.perf_counter()
        r = fns[name]()
        first_call[name] = time.perf_counter() - t0
        return r

    ref = call(ref_name) if ref_name in fns else None
    if ref is not None:
        ref = _snapshot(ref)                       # out= buffers are overwritten later
    for im in impls:
        if im.name not in fns or im.name == ref_name or ref is None or checks[im.name] is None:
            continue
        im.max_abs_diff = checks[im.name](ref, call(im.name))
        im.tolerance = tol
        if tol is not None and not (im.max_abs_diff <= tol):
            im.status = "mismatch"
    if fns:
        timed = time_interleaved(fns, ctx.repeats, ctx.min_time, first_call=first_call,
                                 gap=gap)
        for im in impls:
            if im.name in timed:
                im.median_s, im.samples_s, im.inner = timed[im.name]
    case.impls = impls
    return case


def _snapshot(x):
    if isinstance(x, (tuple, list)):
        items = [_snapshot(y) for y in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)   # a NamedTuple
    return np.array(x, copy=True) if isinstance(x, np.ndarray) else x


def sk(fn, threads):
    """skinkit callable with threads= bound, or the Unavailable to report."""
    try:
        return with_threads(fn, threads)
    except Unavailable as e:
        e.status = "n/a"
        return e


def rate_metrics(case: Case, unit: str, count) -> None:
    """``unit`` (millions per second) of every implementation that ran: ``count`` items a call."""
    for im in case.impls:
        if im.ok:
            case.metrics[im.name] = {unit: count / im.median_s / 1e6}


def finish(ctx: Ctx, case: Case):
    case.params["loadavg_1min"] = round(os.getloadavg()[0], 2)   # other work on the machine
    if ctx.quick:
        for t in case.targets:
            t.skip = True
    ctx.cases.append(case)
    ctx.emit(case)
