"""skinkit's benchmark suite: skinkit against NumPy, SciPy, smplx (torch CPU) and the machine's
memory bandwidth, measured in one run.

    python benchmarks/run.py                      # everything (minutes); needs scipy, torch, smplx
    python benchmarks/run.py --quick              # every case at a tiny size (seconds; CI)
    python benchmarks/run.py --only lbs,fk        # some groups
    python benchmarks/run.py --json out.json      # where the JSON goes (default benchmarks/results.json)

Groups: triad (STREAM triad, the bandwidth limit), lbs (linear blend skinning), fk (forward
kinematics), sample (Clip.sample), quat (quaternion kernels), overhead (smallest calls), memory
(peak memory of LBS), smpl (SMPL-shaped batches against smplx).

Each row is the median of interleaved repeats: in each round every contender of the case runs
once, in alternating order, so that the machine's drift hits them alike.  "vs skinkit" is the
peer's median over skinkit's (how many times faster skinkit is).  Each peer's result is checked
against skinkit's once per case ("max|diff|"); a disagreement beyond the tolerance makes the run
exit with status 1.  Missed targets are reported, never an error: these are measurements, not
tests.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import cases
import context  # noqa: E402
from harness import Case, accepts_threads, fmt_diff, fmt_num, fmt_time  # noqa: E402

import skinkit  # noqa: E402
from skinkit import kernels  # noqa: E402

COLS = [("operation", 30), ("size", 26), ("dtype", 7), ("thr", 7), ("implementation", 27),
        ("median", 13), ("vs skinkit", 10), ("max|diff|", 9), ("metric", 40), ("target", 0)]

PEER_MODULES = {"smpl": ("torch", "smplx"), "sample": ("scipy",), "quat": ("scipy",),
                "overhead": ("scipy",)}


def fmt_row(values):
    out = []
    for (name, width), v in zip(COLS, values):
        v = str(v)
        if width and len(v) > width:
            v = v[:width - 1] + "~"
        out.append(v.rjust(width) if name in ("median", "vs skinkit", "max|diff|", "thr")
                   else v.ljust(width))
    return " ".join(out).rstrip()


def fmt_target(t) -> str:
    val = fmt_num(t.value)
    verdict = "n/a" if t.met is None else ("ok" if t.met else "MISS")
    if t.skip:
        verdict = "not judged (--quick)"
    return f"{t.what} {val} {t.op} {fmt_num(t.bound)}: {verdict}"


def print_case(case: Case, out=sys.stdout):
    for i, im in enumerate(case.impls):
        left = ([case.op, case.size, case.dtype, case.threads] if i == 0 else [""] * 4)
        if im.ok:
            med = fmt_time(im.median_s)
        elif case.group == "memory" and im.status == "ok":
            med = ""
        else:
            med = im.status
        r = case.ratio(im.name) if im.name != "skinkit" and im.ok else None
        ratio = "" if r is None else (f"{r:.3g}x" if r < 100 else f"{r:.0f}x")
        diff = fmt_diff(im.max_abs_diff) if im.max_abs_diff is not None else ""
        if im.status == "mismatch":
            diff += " MISMATCH"
        metric = ", ".join(f"{fmt_num(v)} {k}" for k, v in case.metrics.get(im.name, {}).items())
        targets = "; ".join(fmt_target(t) for t in case.targets if t.impl == im.name)
        print(fmt_row(left + [im.name, med, ratio, diff, metric, targets]), file=out)
        if im.status not in ("ok", "mismatch") and im.note and im.note != im.status:
            print(fmt_row([""] * 4 + ["", "", "", "", f"({im.note})", ""]), file=out)
    out.flush()


def git_commit():
    try:
        r = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", HERE, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return r.stdout.strip() + ("+dirty" if dirty else "") if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions():
    from importlib.metadata import PackageNotFoundError, version
    v = {"python": platform.python_version(), "skinkit": skinkit.__version__,
         "numpy": np.__version__}
    for name in ("scipy", "torch", "smplx"):
        try:
            v[name] = version(name)
        except PackageNotFoundError:
            v[name] = None
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="skinkit benchmark suite: skinkit vs NumPy, SciPy, smplx and the memory "
                    "bandwidth; a table on stdout and JSON in a file.")
    ap.add_argument("--quick", action="store_true",
                    help="every case at a tiny size, few repeats (seconds); peers that are not "
                         "installed are reported as such")
    ap.add_argument("--only", default=None,
                    help="comma-separated groups: " + ",".join(cases.GROUPS))
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"),
                    help="where to write the JSON results (default benchmarks/results.json)")
    ap.add_argument("--repeats", type=int, default=None,
                    help="interleaved rounds per case (default 7, --quick 3)")
    ap.add_argument("--min-time", type=float, default=None,
                    help="seconds per timing sample (default 0.05, --quick 0.002)")
    ap.add_argument("--threads", default="1,2",
                    help="thread counts to measure (default 1,2)")
    args = ap.parse_args(argv)

    groups = list(cases.GROUPS) if args.only is None else [
        g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in groups if g not in cases.GROUPS]
    if unknown:
        ap.error(f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(cases.GROUPS)}")
    if not args.quick:
        need = sorted({m for g in groups for m in PEER_MODULES.get(g, ())
                       if context.installed(m)})
        if need:
            print(f"error: the full run measures against {', '.join(need)}, which "
                  f"{'is' if len(need) == 1 else 'are'} not installed.  Install with\n"
                  "    pip install scipy && pip install torch==2.13.0 && pip install smplx\n"
                  "(torch pinned, and first, so that pip takes the CPU wheel), or use --quick.",
                  file=sys.stderr)
            return 2
    threads = [int(t) for t in args.threads.split(",")]
    ctx = context.Ctx(quick=args.quick,
                    repeats=args.repeats or (3 if args.quick else 7),
                    min_time=args.min_time or (0.002 if args.quick else 0.05),
                    threads=threads, strict=not args.quick,
                    llc_bytes=context.last_level_cache(),
                    emit=print_case)

    simd = getattr(skinkit._core, "simd", None)
    meta = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "git": git_commit(), "versions": versions(), "cpu": cpu_model(),
        "cpus": os.cpu_count(), "largest_cache_bytes": ctx.llc_bytes,
        "platform": platform.platform(),
        "skinkit_threads_argument": accepts_threads(kernels.linear_blend_skinning),
        "skinkit_simd": simd() if callable(simd) else None,
        "SKINKIT_NUM_THREADS": os.environ.get("SKINKIT_NUM_THREADS"),
        "quick": args.quick, "groups": groups, "repeats": ctx.repeats,
        "min_time_s": ctx.min_time, "threads": threads,
        "loadavg_start": os.getloadavg(),
    }
    v = meta["versions"]
    print(f"skinkit {v['skinkit']} ({meta['git']}, SIMD {meta['skinkit_simd']}, threads= "
          f"{'yes' if meta['skinkit_threads_argument'] else 'no'}), NumPy {v['numpy']}, SciPy "
          f"{v['scipy']}, torch {v['torch']}, smplx {v['smplx']}, Python {v['python']}")
    print(f"{meta['cpu']}, {meta['cpus']} CPUs, largest cache {ctx.llc_bytes / 2**20:g} MiB, "
          f"load {meta['loadavg_start'][0]:.2f}; "
          f"median of {ctx.repeats} interleaved rounds, >= {ctx.min_time * 1e3:g} ms per sample"
          + ("; --quick: tiny sizes, targets not judged" if args.quick else ""))
    print(fmt_row([c for c, _ in COLS]))
    t0 = time.perf_counter()
    for g in groups:
        print(f"-- {g}")
        getattr(cases, "group_" + g)(ctx)
    meta["loadavg_end"] = os.getloadavg()
    meta["seconds"] = time.perf_counter() - t0

    targets = [(c, t) for c in ctx.cases for t in c.targets]
    judged = [(c, t) for c, t in targets if t.met is not None]
    misses = [(c, t) for c, t in judged if not t.met]
    mismatches = [(c, im) for c in ctx.cases for im in c.impls if im.status == "mismatch"]
    print(f"\n{len(ctx.cases)} cases in {meta['seconds']:.0f} s; targets: "
          f"{len(judged) - len(misses)} met, {len(misses)} missed"
          + (f", {len(targets) - len(judged)} not judged" if len(targets) > len(judged) else ""))
    for c, t in misses:
        print(f"  MISS {c.op} {c.size} {c.dtype} threads={c.threads}: {fmt_target(t)}")
    for c, im in mismatches:
        print(f"  MISMATCH {c.op} {c.size} threads={c.threads}: {im.name} differs from skinkit "
              f"by {im.max_abs_diff:.3g} (tolerance {im.tolerance:.3g})")

    doc = {"meta": meta,
           "cases": [c.as_dict() for c in ctx.cases],
           "summary": {"targets_met": len(judged) - len(misses), "targets_missed": len(misses),
                       "misses": [{"operation": c.op, "size": c.size, "threads": c.threads,
                                   **t.as_dict()} for c, t in misses],
                       "mismatches": [{"operation": c.op, "size": c.size,
                                       "threads": c.threads, "impl": im.name,
                                       "max_abs_diff": im.max_abs_diff} for c, im in mismatches]}}
    path = os.path.abspath(args.json)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(_finite(doc), f, indent=1, allow_nan=False, default=_json_default)
    os.replace(tmp, path)
    print(f"JSON written to {path}")
    return 1 if mismatches else 0


def _finite(x):
    """NaN and infinities as null, so that the file is strict JSON."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, (float, np.floating)) and not np.isfinite(x):
        return None
    return x


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(type(x).__name__)


if __name__ == "__main__":
    sys.exit(main())
