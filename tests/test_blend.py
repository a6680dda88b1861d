"""blend_poses, pose_delta, additive_pose against the NumPy references (ozz-animation's
BlendingJob, three.js's additive convention), antipodal inputs, zero weights with and without a
rest pose, batches against single calls, dtypes."""
import numpy as np
import pytest

import skinkit as sk
import helpers
import reference as ref

DTYPES = helpers.DTYPES
L, J = 3, 6


def layers(rng, batch=(), dtype=np.float64):
    r = helpers.random_quats(rng, batch + (L, J))
    t = rng.normal(size=batch + (L, J, 3))
    s = rng.uniform(0.5, 2.0, size=batch + (L, J, 3))
    return r.astype(dtype), t.astype(dtype), s.astype(dtype)


def rest_pose(rng, dtype=np.float64):
    return (helpers.random_quats(rng, (J,)).astype(dtype), rng.normal(size=(J, 3)).astype(dtype),
            rng.uniform(0.5, 2.0, size=(J, 3)).astype(dtype))


def close_pose(got, expected, dtype, scale=4):
    helpers.assert_quat_close(got[0], expected[0], dtype=dtype, scale=scale)
    helpers.assert_close(got[1], expected[1], dtype=dtype, scale=scale)
    helpers.assert_close(got[2], expected[2], dtype=dtype, scale=scale)


@pytest.mark.parametrize("with_rest", [False, True])
@pytest.mark.parametrize("per_joint", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_blend_poses(dtype, per_joint, with_rest):
    rng = helpers.rng_for("blend", per_joint, with_rest)
    r, t, s = layers(rng, (2,), dtype)
    w = rng.uniform(0.0, 0.6, size=(2, L, J) if per_joint else (2, L)).astype(dtype)
    w[0, 1] = -0.5                                        # a negative weight: the layer is out
    w[1] *= 0.05                                           # below the threshold
    rest = rest_pose(rng, dtype) if with_rest else None
    got = sk.blend_poses(r, t, s, w, rest=rest, threshold=0.2)
    assert all(g.dtype == dtype for g in got)
    assert [g.shape for g in got] == [(2, J, 4), (2, J, 3), (2, J, 3)]
    close_pose(got, ref.blend_poses(r, t, s, w, rest, 0.2), dtype)
    helpers.assert_close(np.linalg.norm(got[0].astype(np.float64), axis=-1), 1.0, dtype=dtype)
    for b in range(2):                                    # batch == single calls
        single = sk.blend_poses(r[b], t[b], s[b], w[b], rest=rest, threshold=0.2)
        for x, y in zip(single, got):
            assert np.array_equal(x, y[b])


def test_antipodal_layers_blend_to_the_same_rotation():
    """q and -q are one rotation: layers holding q, -q and q blend to +-q whatever the weights
    (a plain weighted sum would cancel out)."""
    rng = helpers.rng_for("antipodal")
    q = helpers.random_quats(rng, (J,))
    r = np.stack([q, -q, q])
    t = np.zeros((L, J, 3))
    s = np.ones((L, J, 3))
    for w in ([0.5, 0.5, 0.0], [0.2, 0.7, 0.1], [1.0, 1.0, 1.0]):
        got = sk.blend_poses(r, t, s, w)[0]
        helpers.assert_quat_close(got, q)
    # +-90.5 deg about z: 181 deg apart one way, 179 deg the other (q . q' < 0); the halfway
    # rotation on the short path is 180 deg, not the identity
    axis = np.array([0.0, 0.0, 1.0])
    a = ref.quat_from_rotvec(np.radians(90.5) * axis)
    b = ref.quat_from_rotvec(np.radians(-90.5) * axis)
    assert a @ b < 0
    got = sk.blend_poses(np.stack([a, b])[:, None], np.zeros((2, 1, 3)), np.ones((2, 1, 3)),
                         [0.5, 0.5])[0][0]
    helpers.assert_quat_close(got, ref.quat_from_rotvec(np.radians(180.0) * axis))


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_total_weight(dtype):
    """All weights 0: with a rest pose the result is the rest pose, without it the identity."""
    rng = helpers.rng_for("zero")
    r, t, s = layers(rng, (), dtype)
    w = np.zeros(L, dtype)
    rest = rest_pose(rng, dtype)
    got = sk.blend_poses(r, t, s, w, rest=rest)
    close_pose(got, rest, dtype)
    got = sk.blend_poses(r, t, s, w)
    assert np.array_equal(got[0], np.tile(np.array([0, 0, 0, 1], dtype), (J, 1)))
    assert np.array_equal(got[1], np.zeros((J, 3), dtype))
    assert np.array_equal(got[2], np.ones((J, 3), dtype))
    # per-joint zero: only those joints fall back
    wj = np.full((L, J), 0.4, dtype)
    wj[:, 2] = 0
    got = sk.blend_poses(r, t, s, wj, rest=rest)
    helpers.assert_quat_close(got[0][2], rest[0][2], dtype=dtype)
    close_pose(got, ref.blend_poses(r, t, s, wj, rest), dtype)


def test_blend_poses_validation():
    rng = helpers.rng_for("blend-bad")
    r, t, s = layers(rng)
    with pytest.raises(ValueError, match="threshold"):
        sk.blend_poses(r, t, s, np.ones(L), threshold=0)
    with pytest.raises(ValueError, match="weights"):
        sk.blend_poses(r, t, s, np.ones(L + 1))
    with pytest.raises(ValueError, match="translations"):
        sk.blend_poses(r, t[:, :-1], s, np.ones(L))
    with pytest.raises(TypeError, match="rest"):
        sk.blend_poses(r, t, s, np.ones(L), rest=(r[0], t[0]))
    with pytest.raises(ValueError, match="rest_translations"):
        sk.blend_poses(r, t, s, np.ones(L), rest=(r[0], t[0, :2], s[0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pose_delta_and_additive_pose(dtype):
    rng = helpers.rng_for("additive")
    r, t, s = (a[0] for a in layers(rng, (), dtype))
    reference = rest_pose(rng, dtype)
    base = tuple(a[1] for a in layers(rng, (), dtype))
    delta = sk.pose_delta(reference, (r, t, s))
    assert all(d.dtype == dtype for d in delta)
    close_pose(delta, ref.pose_delta(reference, (r, t, s)), dtype)
    # the whole delta on the reference gives the pose back; weight 0 gives the base
    close_pose(sk.additive_pose(reference, delta, 1.0), (r, t, s), dtype, scale=10)
    close_pose(sk.additive_pose(base, delta, 0.0), base, dtype)
    w = rng.uniform(-0.5, 1.5, size=J).astype(dtype)               # per joint, extrapolating
    got = sk.additive_pose(base, delta, w)
    assert all(g.dtype == dtype for g in got)
    close_pose(got, ref.additive_pose(base, delta, w), dtype, scale=10)


def test_additive_takes_the_short_way():
    """A delta stored as -q (w < 0) is the same rotation as q: half of it is half the short
    rotation, as three.js's slerp does."""
    axis = np.array([0.0, 1.0, 0.0])
    q = ref.quat_from_rotvec(np.radians(60.0) * axis)
    base = (np.array([[0.0, 0.0, 0.0, 1.0]]), np.zeros((1, 3)), np.ones((1, 3)))
    delta = (-q[None], np.zeros((1, 3)), np.ones((1, 3)))
    got = sk.additive_pose(base, delta, 0.5)[0][0]
    helpers.assert_quat_close(got, ref.quat_from_rotvec(np.radians(30.0) * axis))


def test_additive_batches_and_out():
    rng = helpers.rng_for("additive-batch")
    base = layers(rng)                                     # (L, J, *) as a batch of L poses
    delta = sk.pose_delta(tuple(a[0] for a in base), tuple(a[1] for a in base))
    w = rng.uniform(0, 1, size=(L, J))
    got = sk.additive_pose(base, delta, w)
    for i in range(L):
        single = sk.additive_pose(tuple(a[i] for a in base), delta, w[i])
        for x, y in zip(single, got):
            assert np.array_equal(x, y[i])
    out = tuple(np.empty_like(a) for a in got)
    res = sk.additive_pose(base, delta, w, out=out)
    assert all(a is b for a, b in zip(res, out)) and np.array_equal(out[0], got[0])
    with pytest.raises(TypeError, match="delta"):
        sk.additive_pose(base, delta[:2], w)
    with pytest.raises(ValueError, match="weight"):
        sk.additive_pose(base, delta, w[:, :2])
