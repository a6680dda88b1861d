"""A short run of each fuzzer in CI (issue #4): fuzz/run.py runs fuzz_gltf.py and
fuzz_kernels.py for a few thousand inputs each in a scratch corpus; any crash, disallowed
exception, out-of-memory or hang fails.  The long runs are ``python fuzz/run.py --minutes N``.

atheris is a test dependency (pyproject's [test] extra), so this is never skipped.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import atheris  # noqa: F401  (a missing test dependency must fail, not skip)

ROOT = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("SKINKIT_FUZZ_SMOKE_RUNS", "3000"))


@pytest.mark.parametrize("harness", ["gltf", "kernels"])
def test_fuzzer_runs_clean(tmp_path, harness):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "run.py"), "--runs", str(RUNS), "--corpus",
         str(tmp_path), "--nice", "0", harness],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    m = re.search(rf"^{harness}: (\d+) inputs", proc.stdout, re.M)
    assert m and int(m.group(1)) >= RUNS, proc.stdout
    assert not list((tmp_path / harness).glob("crash-*"))
