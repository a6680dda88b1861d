"""threads=: results are bitwise identical whatever the thread count; SKINKIT_NUM_THREADS."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import skinkit
from skinkit import _core

COUNTS = [1, 2, 3, 8]


def _unit(q):
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(11)


@pytest.mark.parametrize("dtype, jdtype", [(np.float32, np.int32), (np.float64, np.int32),
                                           (np.float32, np.uint16)])
def test_lbs_same_bits_for_any_thread_count(rng, dtype, jdtype):
    V, K, J = 50_001, 4, 30
    v = rng.normal(size=(V, 3)).astype(dtype)
    n = rng.normal(size=(V, 3)).astype(dtype)
    j = rng.integers(-1 if jdtype == np.int32 else 0, J, size=(V, K)).astype(jdtype)
    w = rng.random((V, K)).astype(dtype)
    m = rng.normal(size=(3, J, 4, 4)).astype(dtype)
    ref = skinkit.linear_blend_skinning(v, j, w, m[0], normals=n, threads=1)
    for t in COUNTS[1:]:
        got = skinkit.linear_blend_skinning(v, j, w, m[0], normals=n, threads=t)
        assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1]), t
    batch = skinkit.linear_blend_skinning(v, j, w, m, threads=1)
    for t in COUNTS[1:]:
        assert np.array_equal(skinkit.linear_blend_skinning(v, j, w, m, threads=t), batch), t


def test_lbs_error_names_the_first_bad_influence_with_threads(rng):
    V, J = 40_000, 5
    j = rng.integers(0, J, size=(V, 4)).astype(np.uint16)
    j[30_000, 1] = 9
    j[35_000, 2] = 7
    args = (np.zeros((V, 3)), j, np.ones((V, 4)), np.tile(np.eye(4), (J, 1, 1)))
    for t in COUNTS:
        with pytest.raises(ValueError, match=r"joints\[30000, 1\] = 9"):
            skinkit.linear_blend_skinning(*args, threads=t)


def test_fk_and_quaternions_same_bits_for_any_thread_count(rng):
    B, J = 2000, 24
    parents = np.arange(J) - 1
    q = _unit(rng.normal(size=(B, J, 4)))
    t = rng.normal(size=(B, J, 3))
    s = rng.random((B, J, 3)) + 0.5
    for f in (lambda th: skinkit.forward_kinematics(parents, q, t, s, threads=th),
              lambda th: skinkit.rigid_forward_kinematics(parents, t, q, threads=th),
              lambda th: skinkit.quat_multiply(q, q[::-1], threads=th),
              lambda th: skinkit.slerp(q, q[::-1], 0.3, threads=th)):
        ref = f(1)
        for th in COUNTS[1:]:
            got = f(th)
            if isinstance(ref, tuple):
                assert all(np.array_equal(a, b) for a, b in zip(got, ref)), th
            else:
                assert np.array_equal(got, ref), th


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_sampling_same_bits_for_any_thread_count(rng, dtype):
    J, K = 40, 30
    channels = []
    for node in range(J):
        times = np.cumsum(rng.random(K) + 0.01)
        channels.append(skinkit.Channel(node, "rotation", times, _unit(rng.normal(size=(K, 4)))))
        channels.append(skinkit.Channel(node, "translation", times, rng.normal(size=(K, 3))))
    clip = skinkit.Clip("c", channels, dtype)
    rest = (np.zeros((J, 3)), np.tile([0.0, 0, 0, 1], (J, 1)), np.ones((J, 3)))
    times = (rng.random(3000) * clip.duration).astype(dtype)
    ref = clip.sample(times, rest, threads=1)
    for th in COUNTS[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(clip.sample(times, rest, threads=th), ref))


@pytest.mark.parametrize("bad", [0, -1, 2.0, "2", True])
def test_threads_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="threads must be None or an integer >= 1"):
        skinkit.quat_normalize([0.0, 0, 0, 1], threads=bad)


def _default_threads(env_value):
    env = dict(os.environ, SKINKIT_NUM_THREADS=env_value)
    return subprocess.run([sys.executable, "-c",
                           "import skinkit._core as c; print(c.default_threads())"],
                          env=env, capture_output=True, text=True)


def test_environment_sets_the_default():
    r = _default_threads("3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "3"
    assert _core.default_threads() >= 1


@pytest.mark.parametrize("bad", ["many", "0", "-2", "3x"])
def test_bad_environment_value_is_a_warning_and_the_default(bad):
    r = _default_threads(bad)
    assert r.returncode == 0, r.stderr
    assert f"RuntimeWarning: SKINKIT_NUM_THREADS must be an integer >= 1, got '{bad}'" in r.stderr
    assert "Traceback" not in r.stderr
    unset = subprocess.run([sys.executable, "-c",
                            "import skinkit._core as c; print(c.default_threads())"],
                           env={k: v for k, v in os.environ.items()
                                if k != "SKINKIT_NUM_THREADS"}, capture_output=True, text=True)
    assert r.stdout == unset.stdout


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fk_pose_gets_the_same_bits_alone_or_in_a_batch(rng, dtype):
    """float32 rigid FK runs poses 8 side by side and the rest one at a time (fk_avx2.c), TRS FK
    one pose at a time; a pose's result must not depend on its batch."""
    B, J = 19, 24
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, J)])
    q = _unit(rng.normal(size=(B, J, 4))).astype(dtype)
    t = rng.normal(size=(B, J, 3)).astype(dtype)
    s = (rng.random((B, J, 3)) + 0.5).astype(dtype)
    world = skinkit.forward_kinematics(parents, q, t, s)
    rot, trans = skinkit.rigid_forward_kinematics(parents, t, q)
    rot1, trans1 = skinkit.rigid_forward_kinematics(parents, t[0], q)   # shared rest pose
    for b in range(B):
        assert np.array_equal(skinkit.forward_kinematics(parents, q[b], t[b], s[b]), world[b]), b
        r, tr = skinkit.rigid_forward_kinematics(parents, t[b], q[b])
        assert np.array_equal(r, rot[b]) and np.array_equal(tr, trans[b]), b
        r, tr = skinkit.rigid_forward_kinematics(parents, t[0], q[b])
        assert np.array_equal(r, rot1[b]) and np.array_equal(tr, trans1[b]), b


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_threads_work_in_a_forked_child(rng):
    """The kernels keep a pool of sleeping worker threads; fork() copies none of them, and a
    child's first threaded call must start its own instead of waiting for them forever."""
    V, J = 200_000, 10
    v = rng.normal(size=(V, 3))
    j = rng.integers(0, J, size=(V, 4)).astype(np.int32)
    w = rng.random((V, 4))
    m = rng.normal(size=(J, 4, 4))
    ref = skinkit.linear_blend_skinning(v, j, w, m, threads=2)     # the parent's pool is up
    pid = os.fork()
    if pid == 0:                                                   # child: exit code = verdict
        ok = False
        try:
            ok = np.array_equal(skinkit.linear_blend_skinning(v, j, w, m, threads=2), ref)
        finally:
            os._exit(0 if ok else 1)
    for _ in range(600):                                           # up to 60 s, then a hang
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung in a threaded call")
    assert os.waitstatus_to_exitcode(status) == 0
    assert np.array_equal(skinkit.linear_blend_skinning(v, j, w, m, threads=2), ref)


@pytest.fixture(scope="module")
def smplx_sized(tmp_path_factory):
    """A synthetic SMPL-X of 4,000 vertices: its basis products (12,000 columns) span several
    of skinkit.kernels._blas's fixed blocks."""
    from skinkit.body.synthetic import synthetic_body_arrays
    path = tmp_path_factory.mktemp("body") / "smplx.npz"
    np.savez(path, **synthetic_body_arrays("SMPL-X", seed=1, num_vertices=4000))
    return skinkit.load_body_model(path)


def _vjp_bits(body, threads, seed, N=4):
    r = np.random.default_rng(seed)
    pose = r.normal(scale=0.3, size=(N, body.num_joints, 3))
    (v, j), vjp = body.forward_vjp(betas=r.normal(size=(N, 10)), pose=pose,
                                   transl=r.normal(size=(N, 3)), threads=threads)
    grads = vjp(r.normal(size=v.shape), r.normal(size=j.shape))
    return [np.asarray(a).tobytes() for a in (v, j) + tuple(grads) if a is not None]


@pytest.mark.parametrize("N", [1, 4])
def test_body_vjp_same_bits_for_any_thread_count(smplx_sized, N):
    """Issue 31: threads=1 differed from the default in the last bit of the pose gradient (the
    BLAS product's threads followed threads=)."""
    ref = _vjp_bits(smplx_sized, 1, 0, N)
    for threads in (2, 3, 8, None):
        assert _vjp_bits(smplx_sized, threads, 0, N) == ref, threads


def test_body_vjp_same_bits_under_8_concurrent_python_threads(smplx_sized):
    """threadpoolctl's limits are process-wide: one caller's limit was another's; the products
    now run on one BLAS thread always, in fixed blocks."""
    import threading
    ref = [_vjp_bits(smplx_sized, 1, seed) for seed in range(8)]
    out = [[] for _ in range(8)]

    def caller(i):
        for threads in (None, 2, 1):
            out[i].append(_vjp_bits(smplx_sized, threads, i))

    callers = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert all(got == ref[i] for i in range(8) for got in out[i])
