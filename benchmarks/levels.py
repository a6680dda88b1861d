"""skinkit's rates by SIMD level: the benchmark suite run once per level, one table.

    python benchmarks/levels.py [--levels avx512,avx2,baseline] [run.py's options]

Runs ``benchmarks/run.py`` in a fresh process for each level with ``SKINKIT_SIMD`` set to it
(the cap is read at import: docs/performance.md, "Threads, SIMD and precision"), each writing
its JSON beside the default results (``results-LEVEL.json``), then prints one Markdown table:
a row per case, skinkit's first rate metric at each level (the level the module reported, which
is lower than the one asked for where the CPU lacks it), headed by the CPU's name.  Options
other than ``--levels`` go to every run (``--only lbs,fk,sample --threads 1``).  The levels run
one after another, not interleaved: on a loaded machine compare rows of one run with care.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))


def skinkit_rate(case: Dict[str, Any]) -> str:
    """skinkit's first metric of a case as 'value unit', or '-' where it did not run."""
    for im in case["impls"]:
        if im["name"] == "skinkit" and im["metrics"]:
            name, value = next(iter(im["metrics"].items()))
            return f"{value:.3g} {name}" if value is not None else "-"
    return "-"


def table(docs: Dict[str, Dict[str, Any]]) -> str:
    """The Markdown table of the runs docs (level asked -> run.py's JSON)."""
    levels = list(docs)
    first = docs[levels[0]]["meta"]
    got = [docs[lv]["meta"]["skinkit_simd"] or "?" for lv in levels]
    lines = [f"{first['cpu']}, {first['cpus']} CPUs, largest cache "
             f"{first['largest_cache_bytes'] / 2**20:g} MiB, skinkit {first['git']}", "",
             "| case | " + " | ".join(got) + " |", "|---|" + "---|" * len(levels)]
    rows: Dict[str, List[str]] = {}
    for i, lv in enumerate(levels):
        for c in docs[lv]["cases"]:
            key = f"{c['operation']}, {c['size']}, {c['dtype']}, {c['threads']} thr"
            rows.setdefault(key, ["-"] * len(levels))[i] = skinkit_rate(c)
    lines += [f"| {key} | " + " | ".join(vals) + " |" for key, vals in rows.items()]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="avx512,avx2,baseline",
                    help="comma-separated SKINKIT_SIMD values (default avx512,avx2,baseline)")
    args, rest = ap.parse_known_args(argv)
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    bad = [lv for lv in levels if lv not in ("avx512", "avx2", "baseline")]
    if bad or not levels:
        ap.error(f"--levels takes avx512, avx2 and baseline, got {args.levels!r}")
    docs: Dict[str, Dict[str, Any]] = {}
    for lv in levels:
        path = os.path.join(HERE, f"results-{lv}.json")
        env = dict(os.environ, SKINKIT_SIMD=lv)
        r = subprocess.run([sys.executable, os.path.join(HERE, "run.py"), *rest,
                            "--json", path], env=env)
        if r.returncode not in (0, 1):  # 1: a mismatch, reported by run.py; its JSON is written
            return r.returncode
        with open(path) as f:
            docs[lv] = json.load(f)
    print(table(docs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
