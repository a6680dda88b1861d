"""The AVX-512, AVX2/FMA and portable float32 skinning paths compute the same thing.

The SIMD choice is made at import (``SKINKIT_SIMD=avx2`` or ``baseline`` caps it), so the other
paths run in a subprocess; CI also runs the skinning tests with each path forced.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import skinkit
from skinkit import _core

SCRIPT = """
import sys, numpy as np, skinkit
from skinkit import _core
d = np.load(sys.argv[1])
pos, nrm = skinkit.linear_blend_skinning(d["v"], d["j"], d["w"], d["m"], normals=d["n"])
np.savez(sys.argv[2], pos=pos, nrm=nrm, simd=_core.simd())
"""


def _case(rng, V=1001, K=5, J=7, jdtype=np.int32):
    """-1 (no influence) among the int32 joints; unsigned joints take every joint."""
    m = np.tile(np.eye(4, dtype=np.float32), (2, J, 1, 1))
    m[..., :3, :] += rng.normal(scale=0.3, size=(2, J, 3, 4)).astype(np.float32)
    j = rng.integers(-1 if jdtype == np.int32 else 0, J, size=(V, K)).astype(jdtype)
    return dict(v=rng.normal(size=(V, 3)).astype(np.float32), j=j,
                w=rng.random((V, K)).astype(np.float32), m=m,
                n=rng.normal(size=(V, 3)).astype(np.float32))


LEVELS = ["baseline", "avx2", "avx512"]


@pytest.mark.parametrize("cap", LEVELS[:-1])
@pytest.mark.parametrize("V", [1001, 3, 140_000])
@pytest.mark.parametrize("K, jdtype", [(5, np.int32), (4, np.uint16), (4, np.uint8)])
def test_capped_path_matches_default(tmp_path, cap, V, K, jdtype):
    """Every path below the default one gives the same results up to FMA rounding (V = 3: a
    partial first group of 4 or 8 vertices; K = 4 has its own unrolled code; V = 140,000: the
    AVX2 kernel's prefetching, SK_PREFETCH_MIN in lbs_avx2.c)."""
    d = _case(np.random.default_rng(5 + V + K), V=V, K=K, jdtype=jdtype)
    np.savez(tmp_path / "in.npz", **d)
    env = dict(os.environ, SKINKIT_SIMD=cap)
    subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npz")], env=env, check=True)
    base = np.load(tmp_path / "out.npz")
    assert LEVELS.index(str(base["simd"])) <= LEVELS.index(cap)  # or the best below it here
    pos, nrm = skinkit.linear_blend_skinning(d["v"], d["j"], d["w"], d["m"], normals=d["n"])
    # FMA contraction is the only difference: a few float32 ulps of the magnitudes involved
    np.testing.assert_allclose(pos, base["pos"], rtol=0, atol=2e-5)
    np.testing.assert_allclose(nrm, base["nrm"], rtol=0, atol=2e-5)


def test_simd_reports_the_code_in_use():
    assert _core.simd() in LEVELS
    cap = os.environ.get("SKINKIT_SIMD")
    if cap in LEVELS:
        assert LEVELS.index(_core.simd()) <= LEVELS.index(cap)


def test_unknown_simd_value_is_a_warning_and_the_default():
    code = "import skinkit._core as c; print(c.simd())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, SKINKIT_SIMD="sse9"))
    assert r.returncode == 0, r.stderr
    assert "RuntimeWarning: SKINKIT_SIMD must be avx512, avx2 or baseline, got 'sse9'" in r.stderr
    assert "Traceback" not in r.stderr
    best = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "SKINKIT_SIMD"})
    assert r.stdout == best.stdout


@pytest.mark.parametrize("J", [256, 257, 600])
@pytest.mark.parametrize("K", [4, 3])
def test_large_skeletons_and_any_k_match_numpy(J, K):
    """The SIMD variants keep J <= 256 transposed matrices on the stack and unroll K = 4; larger
    skeletons take the portable code.  Every combination agrees with a plain einsum."""
    d = _case(np.random.default_rng(J + K), V=2003, K=K, J=J)
    m = d["m"][0]
    pos = skinkit.linear_blend_skinning(d["v"], d["j"], d["w"], m)
    w = np.where(d["j"] >= 0, d["w"], 0).astype(np.float64)
    blended = np.einsum("vk,vkij->vij", w, m.astype(np.float64)[np.maximum(d["j"], 0)])
    ref = blended[:, :3, :3] @ d["v"].astype(np.float64)[:, :, None]
    np.testing.assert_allclose(pos, ref[:, :, 0] + blended[:, :3, 3], rtol=0, atol=5e-5)
