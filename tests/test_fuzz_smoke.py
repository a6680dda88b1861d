"""A short run of each fuzzer in CI (issue #4): fuzz/run.py runs fuzz_gltf.py, fuzz_bvh.py,
fuzz_kernels.py and fuzz_body.py for a few thousand inputs each in a scratch corpus; any crash, disallowed
exception, out-of-memory or hang fails.  The long runs are ``python fuzz/run.py --minutes N``.

atheris is a test dependency on Linux (pyproject's [test] extra): under CI a missing one fails
(conftest.missing); elsewhere, or off Linux, these tests skip.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import optional_import

optional_import("atheris", 'pip install ".[test,fuzz]" on Linux (atheris builds for Linux only)')

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("SKINKIT_FUZZ_SMOKE_RUNS", "3000"))


@pytest.mark.parametrize("harness", ["gltf", "bvh", "kernels", "body"])
def test_fuzzer_runs_clean(tmp_path, harness):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "run.py"), "--runs", str(RUNS), "--corpus",
         str(tmp_path), "--nice", "0", harness],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    m = re.search(rf"^{harness}: (\d+) inputs", proc.stdout, re.M)
    assert m and int(m.group(1)) >= RUNS, proc.stdout
    assert not list((tmp_path / harness).glob("crash-*"))
