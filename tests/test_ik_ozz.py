"""The IK kernels against ozz-animation's own IKTwoBoneJob and IKAimJob (an optional peer:
tests/ozz_ik_peer.cc compiled here with g++ against ozz's sources, $SKINKIT_OZZ_SRC, a checkout
of github.com/guillaumeblanc/ozz-animation, or /work/ozz-src).  ozz computes in float32 with
SSE estimates refined by Newton-Raphson: agreement to 2e-5 without softening, where ozz's
reciprocal estimate (12 bits) enters, to 2e-3."""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from conftest import missing

pytestmark = pytest.mark.integration   # compiles and drives ozz-animation
HERE = Path(__file__).resolve().parent
SOURCES = ["src/animation/runtime/ik_two_bone_job.cc", "src/animation/runtime/ik_aim_job.cc",
           "src/base/maths/simd_math.cc", "src/base/log.cc", "src/base/platform.cc",
           "src/base/memory/allocator.cc"]


@pytest.fixture(scope="module")
def peer(tmp_path_factory):
    root = Path(os.environ.get("SKINKIT_OZZ_SRC", "/work/ozz-src"))
    cxx = shutil.which("g++") or shutil.which("c++")
    if not (root / SOURCES[0]).exists() or cxx is None:
        missing("ozz", "set SKINKIT_OZZ_SRC to a checkout of "
                "https://github.com/guillaumeblanc/ozz-animation (and have g++)")
    exe = tmp_path_factory.mktemp("ozz") / "peer"
    subprocess.run([cxx, "-O2", "-std=c++17", f"-I{root / 'include'}", f"-I{root / 'src'}",
                    str(HERE / "ozz_ik_peer.cc"), *(str(root / s) for s in SOURCES),
                    "-o", str(exe)], check=True, capture_output=True)
    return exe


def run(exe, lines):
    out = subprocess.run([str(exe)], input="\n".join(lines), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return np.array([[float(x) for x in line.split()] for line in out if line.strip()])


def fmt(*arrays):
    return " ".join(f"{x:.9g}" for a in arrays for x in np.ravel(a))


def colmajor(m):
    return np.swapaxes(m, -1, -2)


def random_frames(rng, n):
    m = np.tile(np.eye(4), (n, 1, 1))
    m[:, :3, :3] = Rotation.random(n, random_state=rng.integers(1 << 30)).as_matrix()
    m[:, :3, 3] = rng.normal(size=(n, 3))
    return m


def chains(rng, n):
    """start, mid, end model-space matrices of random two-bone chains, and the hinge axis"""
    s = random_frames(rng, n)
    local = random_frames(rng, n)
    local[:, :3, 3] = [0.0, 1.0, 0.0]
    mid = s @ local
    local2 = random_frames(rng, n)
    local2[:, :3, 3] = [0.0, 0.8, 0.0]
    end = mid @ local2
    ps, pm, pe = s[:, :3, 3], mid[:, :3, 3], end[:, :3, 3]
    hinge = np.cross(pe - pm, pm - ps)
    axis = np.einsum("nji,nj->ni", mid[:, :3, :3], hinge)
    return s, mid, end, axis / np.linalg.norm(axis, axis=1, keepdims=True)


def same_rotation(a, b):
    """|a . b| of the normalized quaternions (ozz normalizes a weighted aim with an estimate)"""
    unit = lambda q: q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.abs(np.einsum("...i,...i", unit(a), unit(b)))


@pytest.mark.parametrize("soften,tol", [(1.0, 2e-5), (0.8, 2e-3)])
def test_two_bone_agrees_with_ozz(peer, soften, tol):
    rng = np.random.default_rng(1)
    n = 200
    s, m, e, axis = chains(rng, n)
    target = s[:, :3, 3] + rng.normal(size=(n, 3)) * 1.2
    pole = rng.normal(size=(n, 3))
    weight = rng.choice([1.0, 0.5, 0.0], n)
    twist = rng.choice([0.0, 0.7], n)
    lines = [f"two {fmt(colmajor(s[i]), colmajor(m[i]), colmajor(e[i]), target[i], pole[i], axis[i], weight[i], soften, twist[i])}"
             for i in range(n)]
    ozz = run(peer, lines)
    qs, qm, reached = skinkit.ik_two_bone(s, m, e, target, pole, axis, weight, soften, twist)
    np.testing.assert_allclose(same_rotation(qs, ozz[:, 0:4]), 1.0, atol=tol)
    np.testing.assert_allclose(same_rotation(qm, ozz[:, 4:8]), 1.0, atol=tol)
    assert (reached == (ozz[:, 8] == 1)).mean() > 0.97    # borderline reach may differ


def test_aim_agrees_with_ozz(peer):
    rng = np.random.default_rng(2)
    n = 200
    j = random_frames(rng, n)
    target = rng.normal(size=(n, 3)) * 3
    fwd = rng.normal(size=(n, 3))
    fwd /= np.linalg.norm(fwd, axis=1, keepdims=True)
    up = rng.normal(size=(n, 3))
    offset = rng.normal(size=(n, 3)) * 0.3
    pole = rng.normal(size=(n, 3))
    twist = rng.choice([0.0, -0.4], n)
    weight = rng.choice([1.0, 0.3], n)
    lines = [f"aim {fmt(colmajor(j[i]), target[i], fwd[i], up[i], offset[i], pole[i], twist[i], weight[i])}"
             for i in range(n)]
    ozz = run(peer, lines)
    q, reached = skinkit.ik_aim(j, target, fwd, up, offset, pole, twist, weight)
    np.testing.assert_allclose(same_rotation(q, ozz[:, :4]), 1.0, atol=2e-5)
    np.testing.assert_array_equal(reached, ozz[:, 4] == 1)
