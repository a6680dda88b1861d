"""The benchmark suite runs at its tiny --quick size and writes valid JSON.

Only that: benchmarks are measurements, never timed tests, so no time is checked here.
"""
import json
import math
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "benchmarks", "run.py")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists(RUN), reason="benchmarks/ not in this tree")]


def test_quick_run_writes_valid_json(tmp_path):
    out = tmp_path / "results.json"
    r = subprocess.run([sys.executable, RUN, "--quick", "--repeats", "1", "--min-time", "0.0005",
                        "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    doc = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    groups = {c["group"] for c in doc["cases"]}
    assert groups == set(doc["meta"]["groups"])
    for case in doc["cases"]:
        names = [i["name"] for i in case["impls"]]
        assert names, case
        for im in case["impls"]:
            assert im["status"] != "mismatch", (case["operation"], im)
            if im["median_s"] is not None:
                assert math.isfinite(im["median_s"]) and im["median_s"] > 0
        if case["group"] not in ("triad", "memory") and case["threads"] in (1, "default"):
            sk = case["impls"][0]
            assert sk["name"] == "skinkit" and sk["median_s"] is not None, case
    assert "skinkit" in r.stdout and "JSON written" in r.stdout


def test_only_selects_groups_and_rejects_unknown(tmp_path):
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, RUN, "--quick", "--only", "overhead", "--repeats", "1",
                        "--min-time", "0.0005", "--json", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert {c["group"] for c in json.loads(out.read_text())["cases"]} == {"overhead"}
    r = subprocess.run([sys.executable, RUN, "--quick", "--only", "nonsense"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "unknown group" in r.stderr


def test_compare_runs_one_build_against_another(tmp_path):
    """benchmarks/compare.py (issue 12's before/after table) at its tiny size, with the
    installed skinkit as both builds."""
    import skinkit
    base = os.path.dirname(os.path.dirname(os.path.abspath(skinkit.__file__)))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "compare.py"), "--base",
                        base, "--quick", "--repeats", "1"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for what in ("LBS V=10,000 positions thr=2", "of triad", "FK rigid", "Clip.sample",
                 "after Mvert/s", "before Mvert/s"):
        assert what in r.stdout, what
    r = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "compare.py"), "--base",
                        str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "no skinkit package" in r.stderr
