"""The AVX2/FMA float32 skinning path and the portable path compute the same thing.

The SIMD choice is made at import (``SKINKIT_SIMD=baseline`` forces the portable code), so the
baseline runs in a subprocess; CI also runs the skinning tests with the fallback forced.
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


def _case(rng, V=1001, K=5, J=7):
    m = np.tile(np.eye(4, dtype=np.float32), (2, J, 1, 1))
    m[..., :3, :] += rng.normal(scale=0.3, size=(2, J, 3, 4)).astype(np.float32)
    j = rng.integers(-1, J, size=(V, K)).astype(np.int32)
    return dict(v=rng.normal(size=(V, 3)).astype(np.float32), j=j,
                w=rng.random((V, K)).astype(np.float32), m=m,
                n=rng.normal(size=(V, 3)).astype(np.float32))


def test_baseline_matches_default(tmp_path):
    d = _case(np.random.default_rng(5))
    np.savez(tmp_path / "in.npz", **d)
    env = dict(os.environ, SKINKIT_SIMD="baseline")
    subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npz")], env=env, check=True)
    base = np.load(tmp_path / "out.npz")
    assert str(base["simd"]) == "baseline"
    pos, nrm = skinkit.linear_blend_skinning(d["v"], d["j"], d["w"], d["m"], normals=d["n"])
    # FMA contraction is the only difference: a few float32 ulps of the magnitudes involved
    np.testing.assert_allclose(pos, base["pos"], rtol=0, atol=2e-5)
    np.testing.assert_allclose(nrm, base["nrm"], rtol=0, atol=2e-5)


def test_simd_reports_the_code_in_use():
    assert _core.simd() in ("avx2", "baseline")
    if os.environ.get("SKINKIT_SIMD") == "baseline":
        assert _core.simd() == "baseline"


@pytest.mark.parametrize("J", [256, 257, 600])
@pytest.mark.parametrize("K", [4, 3])
def test_large_skeletons_and_any_k_match_numpy(J, K):
    """The AVX2 variant keeps J <= 256 transposed matrices on the stack and unrolls K = 4; larger
    skeletons take the portable code.  Every combination agrees with a plain einsum."""
    d = _case(np.random.default_rng(J + K), V=2003, K=K, J=J)
    m = d["m"][0]
    pos = skinkit.linear_blend_skinning(d["v"], d["j"], d["w"], m)
    w = np.where(d["j"] >= 0, d["w"], 0).astype(np.float64)
    blended = np.einsum("vk,vkij->vij", w, m.astype(np.float64)[np.maximum(d["j"], 0)])
    ref = blended[:, :3, :3] @ d["v"].astype(np.float64)[:, :, None]
    np.testing.assert_allclose(pos, ref[:, :, 0] + blended[:, :3, 3], rtol=0, atol=5e-5)
