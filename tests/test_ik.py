"""IK kernels (src/ik.c, src/ik_chain.c) checked by their effect, with forward kinematics done
here in plain NumPy/SciPy: reachable targets reached, unreachable ones give a straight chain,
pole planes respected, weight 0 the identity, limits kept."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit

RNG = np.random.default_rng(22)


def matrix(q, t):
    m = np.zeros(q.shape[:-1] + (4, 4))
    m[..., :3, :3] = Rotation.from_quat(q.reshape(-1, 4)).as_matrix().reshape(q.shape[:-1] + (3, 3))
    m[..., :3, 3] = t
    m[..., 3, 3] = 1
    return m


def chain_world(base, trans, rots):
    """world matrices (..., L, 4, 4) of a chain under base (..., 4, 4)"""
    out, w = [], base
    for j in range(trans.shape[-2]):
        w = w @ matrix(rots[..., j, :], trans[..., j, :])
        out.append(w)
    return np.stack(out, axis=-3)


def random_chain(n, L, scale=1.0):
    base = matrix(Rotation.random(n, random_state=1).as_quat(), RNG.normal(size=(n, 3)))
    base[:, :3, :3] *= scale
    trans = np.zeros((n, L, 3))
    trans[:, 1:, :] = RNG.uniform(0.3, 1.0, size=(n, L - 1, 1)) * [[0.0, 1.0, 0.0]]
    trans[:, 0] = RNG.normal(size=(n, 3)) * 0.1
    rots = Rotation.random(n * L, random_state=2).as_quat().reshape(n, L, 4)
    rots = Rotation.from_rotvec(0.4 * Rotation.from_quat(rots.reshape(-1, 4)).as_rotvec()
                                ).as_quat().reshape(n, L, 4)
    return base, trans, rots


def positions(w):
    return w[..., :3, 3]


def two_bone_setup(n, reach):
    base, trans, rots = random_chain(n, 3)
    w = chain_world(base, trans, rots)
    p = positions(w)
    lengths = np.linalg.norm(p[:, 1] - p[:, 0], axis=-1) + np.linalg.norm(p[:, 2] - p[:, 1], axis=-1)
    d = RNG.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    target = p[:, 0] + d * (reach * lengths)[:, None]
    pole = RNG.normal(size=(n, 3))
    return base, trans, rots, w, p, lengths, target, pole


def hinge_axis(w, p, sign=1.0):
    """the mid joint's bending axis in its own frame: the normal of the bones' plane (ozz's
    mid_axis is the hinge the chain bends about)"""
    n = sign * np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 1])
    return np.einsum("nji,nj->ni", w[:, 1, :3, :3], n)


def apply_two_bone(base, trans, rots, qs, qm):
    r = rots.copy()
    r[:, 0] = skinkit.quat_multiply(rots[:, 0], qs)
    r[:, 1] = skinkit.quat_multiply(rots[:, 1], qm)
    return positions(chain_world(base, trans, r))


def test_two_bone_reaches_reachable_targets_in_the_pole_plane():
    n = 200
    base, trans, rots, w, p, lengths, target, pole = two_bone_setup(n, 0.0)
    # reachable: between |a - b| and a + b
    a = np.linalg.norm(p[:, 1] - p[:, 0], axis=-1)
    b = np.linalg.norm(p[:, 2] - p[:, 1], axis=-1)
    reach = np.abs(a - b) + RNG.uniform(0.05, 0.95, n) * (a + b - np.abs(a - b))
    d = RNG.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    target = p[:, 0] + d * reach[:, None]
    axis = hinge_axis(w, p, np.where(RNG.random(n) < 0.5, -1.0, 1.0)[:, None])
    qs, qm, reached = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, axis)
    assert reached.all()
    q = apply_two_bone(base, trans, rots, qs, qm)
    assert np.all(np.linalg.norm(q[:, 2] - target, axis=-1) < 1e-6 * lengths)
    # the mid joint lies in the plane of start -> target and the pole vector
    normal = np.cross(target - q[:, 0], pole)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    off_plane = np.abs(np.einsum("ij,ij->i", q[:, 1] - q[:, 0], normal))
    assert np.all(off_plane < 1e-6 * lengths)
    # bone lengths are unchanged
    np.testing.assert_allclose(np.linalg.norm(q[:, 1] - q[:, 0], axis=-1), a, rtol=1e-12)


def test_two_bone_unreachable_target_gives_a_straight_chain_toward_it():
    n = 100
    base, trans, rots, w, p, lengths, target, pole = two_bone_setup(n, 1.7)
    qs, qm, reached = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p))
    assert not reached.any()
    q = apply_two_bone(base, trans, rots, qs, qm)
    d = (target - p[:, 0]) / np.linalg.norm(target - p[:, 0], axis=-1, keepdims=True)
    np.testing.assert_allclose(q[:, 2], p[:, 0] + d * lengths[:, None], atol=1e-9)
    mid_dir = (q[:, 1] - q[:, 0]) / np.linalg.norm(q[:, 1] - q[:, 0], axis=-1, keepdims=True)
    np.testing.assert_allclose(mid_dir, d, atol=1e-7)


def test_two_bone_weight_zero_is_the_identity_and_weights_blend():
    base, trans, rots, w, p, lengths, target, pole = two_bone_setup(10, 0.5)
    qs, qm, reached = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p), weight=0.0)
    np.testing.assert_array_equal(qs, np.tile([0, 0, 0, 1.0], (10, 1)))
    np.testing.assert_array_equal(qm, qs)
    assert not reached.any()
    full = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p))[0]
    half = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p), weight=0.5)[0]
    ang = lambda q: 2 * np.arccos(np.clip(np.abs(q[:, 3]), 0, 1))
    assert np.all(ang(half) < ang(full) + 1e-12) and np.all(ang(half) > 0.3 * ang(full))


def test_two_bone_soften_pulls_the_target_in_smoothly():
    base, trans, rots, w, p, lengths, target, pole = two_bone_setup(50, 0.97)
    qs, qm, reached = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p),
                                          soften=0.9)
    q = apply_two_bone(base, trans, rots, qs, qm)
    reach = np.linalg.norm(q[:, 2] - q[:, 0], axis=-1)
    assert np.all(reach < 0.97 * lengths) and np.all(reach > 0.9 * lengths)
    assert not reached.any()


def test_two_bone_float32_matches_float64():
    base, trans, rots, w, p, lengths, target, pole = two_bone_setup(20, 0.6)
    r64 = skinkit.ik_two_bone(w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p))
    args = (w[:, 0], w[:, 1], w[:, 2], target, pole, hinge_axis(w, p))
    r32 = skinkit.ik_two_bone(*(np.float32(x) for x in args))
    assert r32[0].dtype == np.float32
    np.testing.assert_allclose(r32[0], r64[0], atol=2e-4)
    np.testing.assert_allclose(r32[1], r64[1], atol=2e-4)


def test_aim_points_forward_at_the_target_with_up_toward_the_pole():
    n = 100
    q0 = Rotation.random(n, random_state=5).as_quat()
    joint = matrix(q0, RNG.normal(size=(n, 3)))
    target = RNG.normal(size=(n, 3)) * 3
    pole = RNG.normal(size=(n, 3))
    fwd = np.array([0.0, 0.0, 1.0])
    up = np.array([1.0, 0.0, 0.0])
    corr, reached = skinkit.ik_aim(joint, target, forward=fwd, up=up, pole_vector=pole)
    assert reached.all()
    world = Rotation.from_quat(q0) * Rotation.from_quat(corr)
    f = world.apply(fwd)
    d = target - joint[:, :3, 3]
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    np.testing.assert_allclose(f, d, atol=1e-9)
    u = world.apply(up)
    n_plane = np.cross(d, pole)
    n_plane /= np.linalg.norm(n_plane, axis=-1, keepdims=True)
    assert np.all(np.abs(np.einsum("ij,ij->i", u, n_plane)) < 1e-9)
    assert np.all(np.einsum("ij,ij->i", u, pole) > 0)
    zero, _ = skinkit.ik_aim(joint, target, forward=fwd, up=up, pole_vector=pole, weight=0.0)
    np.testing.assert_allclose(zero, np.tile([0, 0, 0, 1.0], (n, 1)), atol=1e-15)


def test_aim_with_offset_aims_the_offset_ray():
    joint = np.eye(4)
    offset = np.array([0.0, 0.5, 0.0])
    target = np.array([3.0, 1.0, -2.0])
    corr, reached = skinkit.ik_aim(joint, target, offset=offset)
    r = Rotation.from_quat(corr)
    o = r.apply(offset)
    ray = target - o
    np.testing.assert_allclose(np.cross(r.apply([1.0, 0, 0]), ray), 0, atol=1e-12)
    assert reached
    corr, reached = skinkit.ik_aim(joint, [0.1, 0, 0], offset=[0, 1.0, 0])
    assert not reached
    np.testing.assert_array_equal(corr, [0, 0, 0, 1.0])


@pytest.mark.parametrize("solver", ["ccd", "fabrik"])
def test_chain_reaches_reachable_targets(solver):
    n, L = 40, 5
    base, trans, rots = random_chain(n, L, scale=0.5)
    w = chain_world(base, trans, rots)
    p = positions(w)
    length = np.linalg.norm(np.diff(p, axis=1), axis=-1).sum(-1)
    # a target made by another pose of the same chain: reachable
    other = Rotation.from_rotvec(RNG.normal(size=(n * L, 3)) * 0.5).as_quat().reshape(n, L, 4)
    target = positions(chain_world(base, trans, other))[:, -1]
    if solver == "ccd":
        out = skinkit.ik_ccd(base, trans, rots, target, iterations=2000, tolerance=1e-9)
    else:
        out = skinkit.ik_fabrik(base, trans, rots, target, iterations=2000, tolerance=1e-9)
    q = positions(chain_world(base, trans, out))
    err = np.linalg.norm(q[:, -1] - target, axis=-1)
    assert np.all(err < 1e-6 * length), err.max() / length.min()
    np.testing.assert_allclose(np.linalg.norm(np.diff(q, axis=1), axis=-1),
                               np.linalg.norm(np.diff(p, axis=1), axis=-1), rtol=1e-9)
    np.testing.assert_array_equal(out[:, -1], rots[:, -1])


@pytest.mark.parametrize("solver, atol", [("ccd", 1e-6), ("fabrik", 1e-9)])
def test_chain_unreachable_target_gives_a_straight_chain(solver, atol):
    """Out of reach, the chain ends straight and pointing at the target from its first joint.
    CCD (three.js CCDIKSolver): each sweep turns every joint to aim the effector at the target,
    and it stops once a sweep turns no joint (every angle below 1e-5 rad), so more iterations
    change nothing; straight to the precision that stop leaves."""
    n, L = 20, 5
    base, trans, rots = random_chain(n, L)
    p = positions(chain_world(base, trans, rots))
    lengths = np.linalg.norm(np.diff(p, axis=1), axis=-1)
    length = lengths.sum(-1)
    d = RNG.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    target = p[:, 0] + d * RNG.uniform(1.2, 3.0, (n, 1)) * length[:, None]
    solve = skinkit.ik_ccd if solver == "ccd" else skinkit.ik_fabrik
    out = solve(base, trans, rots, target, iterations=1000)
    q = positions(chain_world(base, trans, out))
    np.testing.assert_allclose(q[:, 0], p[:, 0], atol=1e-12)
    np.testing.assert_allclose(q[:, -1], p[:, 0] + d * length[:, None], atol=atol)
    bones = np.diff(q, axis=1)
    np.testing.assert_allclose(np.linalg.norm(bones, axis=-1), lengths, rtol=1e-9)
    bones /= np.linalg.norm(bones, axis=-1, keepdims=True)
    np.testing.assert_allclose(bones, np.broadcast_to(d[:, None], bones.shape), atol=atol)
    np.testing.assert_array_equal(out[:, -1], rots[:, -1])
    if solver == "ccd":
        np.testing.assert_array_equal(solve(base, trans, rots, target, iterations=100_000), out)


def test_fabrik_keeps_the_cone_limits():
    n, L = 30, 5
    base, trans, rots = random_chain(n, L)
    p = positions(chain_world(base, trans, rots))
    target = p[:, 0] + RNG.normal(size=(n, 3))
    limit = np.full(L, 0.35)
    out = skinkit.ik_fabrik(base, trans, rots, target, max_angle=limit, iterations=50)
    q = positions(chain_world(base, trans, out))
    bones = np.diff(q, axis=1)
    bones /= np.linalg.norm(bones, axis=-1, keepdims=True)
    bend = np.arccos(np.clip(np.einsum("nij,nij->ni", bones[:, 1:], bones[:, :-1]), -1, 1))
    assert bend.max() <= 0.35 + 1e-9
    # without limits the same targets bend the chain further
    free = positions(chain_world(base, trans, skinkit.ik_fabrik(base, trans, rots, target,
                                                                iterations=50)))
    fb = np.diff(free, axis=1)
    fb /= np.linalg.norm(fb, axis=-1, keepdims=True)
    assert np.arccos(np.clip(np.einsum("nij,nij->ni", fb[:, 1:], fb[:, :-1]), -1, 1)).max() > 0.5


def test_ccd_keeps_euler_limits_and_weightless_targets_change_nothing():
    n, L = 30, 4
    base, trans, rots = random_chain(n, L)
    rots[:] = [0, 0, 0, 1.0]
    p = positions(chain_world(base, trans, rots))
    target = p[:, 0] + RNG.normal(size=(n, 3))
    lo = np.full((L, 3), -0.3)
    hi = np.full((L, 3), 0.3)
    out = skinkit.ik_ccd(base, trans, rots, target, lo, hi, iterations=30)
    eul = Rotation.from_quat(out[:, :-1].reshape(-1, 4)).as_euler("XYZ")   # three.js XYZ
    assert np.all(eul >= -0.3 - 1e-9) and np.all(eul <= 0.3 + 1e-9)
    assert np.abs(eul).max() > 0.29
    # a target already at the effector: no change
    same = skinkit.ik_ccd(base, trans, rots, p[:, -1], iterations=5)
    np.testing.assert_array_equal(same, rots)


def test_chain_longer_than_the_limit_is_refused():
    L = 65
    with pytest.raises(ValueError, match="at most 64 joints, got 65"):
        skinkit.ik_fabrik(np.eye(4), np.zeros((L, 3)), np.tile([0, 0, 0, 1.0], (L, 1)), [1, 0, 0])


@pytest.mark.parametrize("bad", [np.inf, -1, 2.5, np.nan, 10**7])
def test_chain_iterations_are_checked(bad):
    with pytest.raises(ValueError, match="iterations must be whole numbers in 0..1000000"):
        skinkit.ik_ccd(np.eye(4), np.zeros((3, 3)), np.tile([0, 0, 0, 1.0], (3, 1)), [1, 0, 0],
                       iterations=bad)
