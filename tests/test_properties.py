"""Property-based tests (hypothesis) on random valid skeletons and poses (issue #4).

- identity local transforms give the identity / rest pose (FK, rigid FK), and the bind pose
  skins every vertex to where it was;
- rigid FK and unit-scale FK preserve bone lengths and distances between points of one bone;
- LBS with one matrix for every joint and weights summing to 1 equals that matrix applied;
- slerp keeps unit norm and hits its endpoints;
- a batch equals its items computed one by one;
- float32 agrees with float64 within stated tolerances.

Skeletons are forests in a random joint order (parents may come after children).  Runtime is kept
modest: max_examples 60, no deadline.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import skinkit as sk

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# float32 vs float64: relative to the size of the result (unit quaternions, poses of
# translations <= 2 over chains <= 10 bones, scales in [0.5, 2])
TOL32_QUAT = 2e-6
TOL32_POSE = 2e-4


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def skeletons(draw, max_joints=10):
    """parents (J,) int32: a random forest, numbered in a random order."""
    J = draw(st.integers(1, max_joints))
    tree = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, J)]  # topological
    perm = draw(st.permutations(range(J)))        # joint i of the tree is joint perm[i]
    parents = np.empty(J, np.int32)
    for i, p in enumerate(tree):
        parents[perm[i]] = -1 if p < 0 else perm[p]
    return parents


@st.composite
def unit_quats(draw, shape):
    q = draw(hnp.arrays(np.float64, tuple(shape) + (4,), elements=floats(-1, 1)))
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    assume(np.all(n > 0.1))
    return q / n


def vecs(shape, lo=-2.0, hi=2.0):
    return hnp.arrays(np.float64, tuple(shape) + (3,), elements=floats(lo, hi))


@st.composite
def posed(draw, batch=(), scaled=True):
    parents = draw(skeletons())
    J = len(parents)
    q = draw(unit_quats(batch + (J,)))
    t = draw(vecs(batch + (J,)))
    s = draw(vecs(batch + (J,), 0.5, 2.0)) if scaled else np.ones(batch + (J, 3))
    return parents, q, t, s


def joint_positions(world):
    return world[..., :3, 3]


# --------------------------------------------------------------------------- identity / rest


@SETTINGS
@given(skeletons(), st.sampled_from([np.float32, np.float64]))
def test_identity_local_transforms_give_identity_world(parents, dtype):
    J = len(parents)
    q = np.tile(np.array([0, 0, 0, 1], dtype), (J, 1))
    world = sk.forward_kinematics(parents, q, np.zeros((J, 3), dtype), np.ones((J, 3), dtype))
    np.testing.assert_array_equal(world, np.broadcast_to(np.eye(4, dtype=dtype), (J, 4, 4)))
    Q, t = sk.rigid_forward_kinematics(parents, np.arange(3 * J, dtype=dtype).reshape(J, 3), q)
    np.testing.assert_array_equal(Q, q)
    np.testing.assert_array_equal(t, np.zeros((J, 3), dtype))


@SETTINGS
@given(posed(), st.data())
def test_bind_pose_skins_to_the_rest_mesh(pose, data):
    """world = FK(rest TRS) is the bind pose; skinning with world @ inverse(world) and weights
    summing to 1 gives back the rest vertices (and normals)."""
    parents, q, t, s = pose
    J = len(parents)
    world = sk.forward_kinematics(parents, q, t, s)
    mats = sk.skinning_matrices(world, sk.matrix_inverse(world))
    V, K = data.draw(st.integers(0, 8)), data.draw(st.integers(1, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    verts, nrm = rng.normal(size=(V, 3)), rng.normal(size=(V, 3))
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    joints = rng.integers(0, J, size=(V, K)).astype(np.int32)
    weights = sk.normalize_weights(rng.uniform(0.1, 1.0, size=(V, K)))
    pos, n = sk.linear_blend_skinning(verts, joints, weights, mats, nrm)
    cond = np.linalg.cond(world).max()        # error of world @ inverse(world) ~ cond * eps
    np.testing.assert_allclose(pos, verts, atol=1e-14 * cond * (1 + np.abs(verts).max(initial=0)))
    np.testing.assert_allclose(n, nrm, atol=1e-14 * cond ** 2)


# --------------------------------------------------------------------------- rigidity


@SETTINGS
@given(posed(scaled=False))
def test_unit_scale_fk_is_rigid_and_keeps_bone_lengths(pose):
    parents, q, t, s = pose
    world = sk.forward_kinematics(parents, q, t)
    R = world[:, :3, :3]
    np.testing.assert_allclose(R @ np.swapaxes(R, -1, -2), np.broadcast_to(np.eye(3), R.shape),
                               atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-12)
    pos = joint_positions(world)
    for i, p in enumerate(parents):
        if p >= 0:
            assert np.linalg.norm(pos[i] - pos[p]) == pytest.approx(np.linalg.norm(t[i]),
                                                                    abs=1e-12)


@SETTINGS
@given(skeletons(), st.data())
def test_rigid_fk_preserves_distances(parents, data):
    """Every joint keeps its distance to its parent, and two points attached to one joint keep
    their distance."""
    J = len(parents)
    rest = data.draw(vecs((J,)))
    q = data.draw(unit_quats((J,)))
    Q, t = sk.rigid_forward_kinematics(parents, rest, q)
    np.testing.assert_allclose(np.linalg.norm(Q, axis=-1), 1.0, atol=1e-12)
    posed = sk.quat_rotate(Q, rest) + t
    for i, p in enumerate(parents):
        if p >= 0:
            assert np.linalg.norm(posed[i] - posed[p]) == pytest.approx(
                np.linalg.norm(rest[i] - rest[p]), abs=1e-12)
    a, b = data.draw(vecs((2,), -5, 5))
    j = data.draw(st.integers(0, J - 1))
    pa, pb = (sk.quat_rotate(Q[j], x) + t[j] for x in (a, b))
    assert np.linalg.norm(pa - pb) == pytest.approx(np.linalg.norm(a - b), abs=1e-12)


# --------------------------------------------------------------------------- LBS


@SETTINGS
@given(st.data())
def test_lbs_with_one_matrix_is_that_matrix(data):
    J, V, K = (data.draw(st.integers(lo, hi)) for lo, hi in ((1, 6), (0, 10), (1, 5)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    M = np.eye(4)
    M[:3, :3] = sk.quat_to_matrix(data.draw(unit_quats(()))) * data.draw(floats(0.25, 4.0))
    M[:3, 3] = data.draw(vecs(()))
    verts = data.draw(vecs((V,), -10, 10))
    joints = rng.integers(-1, J, size=(V, K)).astype(np.int32)
    joints[:, 0] = rng.integers(0, J, size=V)           # at least one influence per vertex
    raw = rng.uniform(0.0, 1.0, size=(V, K)) * (joints >= 0)
    raw[:, 0] += 0.1
    weights = sk.normalize_weights(raw)
    got = sk.linear_blend_skinning(verts, joints, weights, np.broadcast_to(M, (J, 4, 4)))
    np.testing.assert_allclose(got, verts @ M[:3, :3].T + M[:3, 3], atol=1e-12 * 100)


# --------------------------------------------------------------------------- slerp


@SETTINGS
@given(unit_quats((2,)), floats(0.0, 1.0), st.sampled_from([np.float32, np.float64]))
def test_slerp_unit_norm_and_endpoints(qs, t, dtype):
    q0, q1 = qs.astype(dtype)
    q0, q1 = sk.quat_normalize(q0), sk.quat_normalize(q1)
    tol = TOL32_QUAT if dtype == np.float32 else 1e-14
    mid = sk.slerp(q0, q1, t)
    assert mid.dtype == dtype
    assert abs(np.linalg.norm(mid.astype(np.float64)) - 1) < 4 * tol
    np.testing.assert_allclose(sk.slerp(q0, q1, 0.0), q0, atol=4 * tol)
    end = sk.slerp(q0, q1, 1.0)
    dot = float(np.dot(q0.astype(np.float64), q1))
    if abs(dot) > 1e-3:              # the shortest path: q1 or -q1 (either when orthogonal)
        np.testing.assert_allclose(end, np.sign(dot) * q1, atol=4 * tol)
    assert min(np.abs(end - q1).max(), np.abs(end + q1).max()) < 4 * tol
    # on the short arc: the angle to q0 grows with t
    a = [abs(float(np.dot(sk.slerp(q0, q1, x).astype(np.float64), q0))) for x in (0.0, t, 1.0)]
    assert a[0] + 4 * tol >= a[1] >= a[2] - 4 * tol


# --------------------------------------------------------------------------- batches


@SETTINGS
@given(posed(batch=(3,)), st.sampled_from([np.float32, np.float64]))
def test_batch_equals_items_one_by_one(pose, dtype):
    parents, q, t, s = (a.astype(dtype) if a.dtype.kind == "f" else a for a in pose)
    world = sk.forward_kinematics(parents, q, t, s)
    Q, tr = sk.rigid_forward_kinematics(parents, t, q)
    inv = sk.matrix_inverse(world)
    quats = sk.quat_multiply(q, q[::-1])
    for i in range(3):
        np.testing.assert_array_equal(world[i], sk.forward_kinematics(parents, q[i], t[i], s[i]))
        Qi, ti = sk.rigid_forward_kinematics(parents, t[i], q[i])
        np.testing.assert_array_equal(Q[i], Qi)
        np.testing.assert_array_equal(tr[i], ti)
        np.testing.assert_array_equal(inv[i], sk.matrix_inverse(world[i]))
        np.testing.assert_array_equal(quats[i], sk.quat_multiply(q[i], q[::-1][i]))


@SETTINGS
@given(st.data(), st.sampled_from([np.float32, np.float64]))
def test_lbs_batch_equals_items(data, dtype):
    J, V, K, B = (data.draw(st.integers(lo, hi)) for lo, hi in ((1, 5), (0, 40), (1, 4), (1, 4)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    mats = np.tile(np.eye(4), (B, J, 1, 1))
    mats[..., :3, :] = rng.normal(size=(B, J, 3, 4))
    mats = mats.astype(dtype)
    verts = rng.normal(size=(V, 3)).astype(dtype)
    joints = rng.integers(-1, J, size=(V, K)).astype(np.int32)
    weights = rng.uniform(size=(V, K)).astype(dtype)
    batch = sk.linear_blend_skinning(verts, joints, weights, mats, verts)
    for b in range(B):
        one = sk.linear_blend_skinning(verts, joints, weights, mats[b], verts)
        np.testing.assert_array_equal(batch[0][b], one[0])
        np.testing.assert_array_equal(batch[1][b], one[1])


@SETTINGS
@given(st.data())
def test_clip_sample_batch_equals_items(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(1, 5))
    keys = np.cumsum(rng.uniform(0.1, 1.0, size=data.draw(st.integers(1, 6))))
    chans = []
    for node in range(n):
        interp = data.draw(st.sampled_from(["STEP", "LINEAR", "CUBICSPLINE"]))
        per = 3 if interp == "CUBICSPLINE" else 1
        q = rng.normal(size=(per * len(keys), 4))
        chans.append(sk.Channel(node, "rotation", keys, q / np.linalg.norm(q, axis=1)[:, None],
                                interp))
        chans.append(sk.Channel(node, "translation", keys,
                                rng.normal(size=(per * len(keys), 3)), interp))
    clip = sk.Clip("c", chans)
    rest = (np.zeros((n, 3)), np.tile([0.0, 0, 0, 1], (n, 1)), np.ones((n, 3)))
    times = rng.uniform(-1, keys[-1] + 1, size=7)
    together = clip.sample(times, rest)
    for i, t in enumerate(times):
        for a, b in zip(together, clip.sample(t, rest)):
            np.testing.assert_array_equal(a[i], b)


# --------------------------------------------------------------------------- float32


@SETTINGS
@given(posed())
def test_float32_agrees_with_float64(pose):
    """FK, rigid FK, skinning matrices, slerp and quaternion products in float32 agree with
    float64 within TOL32_POSE (poses) / TOL32_QUAT (unit quaternions) of the result's size."""
    parents, q, t, s = pose
    f = [a.astype(np.float32) for a in (q, t, s)]
    w64, w32 = sk.forward_kinematics(parents, q, t, s), sk.forward_kinematics(parents, *f)
    assert w32.dtype == np.float32
    scale = 1 + np.abs(w64).max()
    np.testing.assert_allclose(w32, w64, atol=TOL32_POSE * scale)
    Q64, t64 = sk.rigid_forward_kinematics(parents, t, q)
    Q32, t32 = sk.rigid_forward_kinematics(parents, f[1], f[0])
    np.testing.assert_allclose(Q32, Q64, atol=TOL32_QUAT * len(parents))
    np.testing.assert_allclose(t32, t64, atol=TOL32_POSE * (1 + np.abs(t64).max()))
    np.testing.assert_allclose(sk.quat_multiply(f[0], f[0][::-1]),
                               sk.quat_multiply(q, q[::-1]), atol=TOL32_QUAT)
    # shortest-path slerp is discontinuous where q0 . q1 = 0 (both ways round are equally short),
    # so there the float32 rounding of the dot product may pick the other way: compare elsewhere
    away = np.abs(np.sum(q * q[::-1], axis=-1)) > 1e-3
    np.testing.assert_allclose(sk.slerp(f[0], f[0][::-1], 0.3)[away],
                               sk.slerp(q, q[::-1], 0.3)[away], atol=10 * TOL32_QUAT)
    np.testing.assert_allclose(sk.skinning_matrices(w32, w32), sk.skinning_matrices(w64, w64),
                               atol=TOL32_POSE * scale ** 2)
