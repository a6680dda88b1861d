"""Hostile body-model files (.pkl and .npz): each is built here and must give a BodyModelError
naming the file, the key and what is wrong; never a crash, another exception, or an allocation
the file asks for.  Loads where a crash is possible run in a child process, so a segfault fails
the test instead of killing pytest (issue 17)."""
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA

sys.path.insert(0, str(DATA / "body"))
import py2pickle as p2  # noqa: E402

import skinkit as sk  # noqa: E402
from body_models import make_arrays  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _child_load(path):
    """load_body_model(path) in a child process: (exit status, the error line or 'ok')."""
    code = textwrap.dedent(f"""
        import skinkit
        try:
            skinkit.load_body_model({str(path)!r})
            print("ok")
        except skinkit.BodyModelError as e:
            print("BodyModelError:", e)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(ROOT / "python")})
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def _mano_pkl(tmp_path, name="model.pkl", **override):
    """The tiny MANO arrays as a Python 2 chumpy pickle, with ``override`` replacing keys."""
    a = {k: p2.ndarray(v) for k, v in make_arrays("MANO", V=40).items()}
    a.update(override)
    path = tmp_path / name
    path.write_bytes(p2.dumps(a))
    return path


def _object_dtype():
    """numpy.dtype('O8') with a version-3 state whose flags (63 for an object dtype) are 0."""
    return p2.dtype("O8", "|", flags=0)


EXPLOITS = {   # where the crafted object dtype sits -> the key the error must name
    "array": ("v_template", lambda: p2.ndarray(shape=(4,), dt=_object_dtype(),
                                               data=b"\x41" * 32)),
    "scalar": ("f", lambda: p2.Call(p2.Global("numpy.core.multiarray", "scalar"),
                                           (_object_dtype(), p2.Str(b"\x41" * 8)))),
    "sparse data": ("J_regressor", lambda: p2.sparse(
        np.eye(16, 40), data=p2.ndarray(shape=(16,), dt=_object_dtype(), data=b"\x41" * 128))),
}


@pytest.mark.parametrize("where", sorted(EXPLOITS))
def test_object_dtype_with_cleared_flags_is_refused_not_a_crash(tmp_path, where):
    """The issue-17 exploit: a version-3 dtype state with the flags of an object dtype cleared
    made ndarray.__setstate__ and multiarray.scalar take file bytes as object pointers (a
    segfault when they are used).  Now no NumPy constructor sees the state."""
    key, build = EXPLOITS[where]
    path = _mano_pkl(tmp_path, **{key: build()})
    status, out = _child_load(path)
    assert status == 0, f"child died with status {status}: {out[-2000:]}"
    assert out.startswith("BodyModelError:") and str(path) in out and key in out, out
    assert "dtype" in out, out
