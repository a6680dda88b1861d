"""IK kernels (src/ik.c, src/ik_chain.c) checked by their effect, with forward kinematics done
here in plain NumPy/SciPy: two-bone and aim IK by the properties ozz-animation documents for
its jobs (reach, the pole plane, twist, weight, soften, the reached flag), CCD and FABRIK by
reach, straight chains out of reach and their limits."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit

import helpers

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


# two-bone and aim IK by the properties ozz-animation documents for IKTwoBoneJob and IKAimJob
# (include/ozz/animation/runtime/ik_two_bone_job.h, ik_aim_job.h), on random chains, in float32
# and float64: the kernel gets the matrices in the dtype, the effect is measured here in float64
# (EPS: the error allowed, relative to the chain's length)
EPS = {np.float32: 1e-4, np.float64: 1e-9}


def solve(kernel, dtype, *args, **kw):
    """kernel's results on args and kw in dtype, as float64 (bool flags as they are)"""
    out = kernel(*(np.asarray(a, dtype) for a in args),
                 **{k: np.asarray(v, dtype) for k, v in kw.items()})
    for r in out[:-1]:
        assert r.dtype == dtype
    return tuple(r.astype(np.float64) for r in out[:-1]) + (out[-1],)


def nlerp_identity(q, weight):
    """normalize((1 - w) identity + w q): ozz's weighting of a correction (the documented blend
    from no IK at 0 to full IK at 1, on the rotation)"""
    w = np.clip(weight, 0, 1)[..., None]
    r = w * q + (1 - w) * np.array([0, 0, 0, 1.0])
    return r / np.linalg.norm(r, axis=-1, keepdims=True)


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def two_bone_chains(rng, n):
    """n random three-joint chains: local transforms (base, trans, rots), world matrices w,
    joint positions p, bone lengths a and b, the hinge axis in the mid joint's frame (random
    sign: the chain may bend either way about it)"""
    base, trans, rots = random_chain(n, 3)
    w = chain_world(base, trans, rots)
    p = positions(w)
    a = np.linalg.norm(p[:, 1] - p[:, 0], axis=-1)
    b = np.linalg.norm(p[:, 2] - p[:, 1], axis=-1)
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)[:, None]
    hinge = np.einsum("nji,nj->ni", w[:, 1, :3, :3],
                      sign * np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 1]))
    return base, trans, rots, w, p, a, b, unit(hinge)


def around(rng, origin, distance):
    """points at distance from origin in random directions, and those directions"""
    d = unit(rng.normal(size=origin.shape))
    return origin + d * distance[:, None], d


def pole_for(rng, d):
    """random pole vectors at least 0.3 rad from the start-to-target directions d (ozz: the
    chain flips where they align)"""
    pole = rng.normal(size=d.shape)
    while True:
        bad = np.linalg.norm(np.cross(unit(pole), d), axis=-1) < 0.3
        if not bad.any():
            return pole
        pole[bad] = rng.normal(size=(int(bad.sum()), 3))


def reachable_case(name, dtype, n):
    """(rng, chains, target, d, pole): n chains with reachable targets in directions d"""
    rng = helpers.rng_for(name, np.dtype(dtype).name)
    chains = two_bone_chains(rng, n)
    _, _, _, _, p, a, b, _ = chains
    lo = np.abs(a - b)
    target, d = around(rng, p[:, 0], lo + rng.uniform(0.1, 0.9, n) * (a + b - lo))
    return rng, chains, target, d, pole_for(rng, d)


def two_bone_posed(chains, dtype, target, pole, **kw):
    base, trans, rots, w, p, a, b, hinge = chains
    qs, qm, reached = solve(skinkit.ik_two_bone, dtype, w[:, 0], w[:, 1], w[:, 2], target, pole,
                            hinge, **kw)
    r = rots.copy()
    r[:, 0] = skinkit.quat_multiply(rots[:, 0], qs)
    r[:, 1] = skinkit.quat_multiply(rots[:, 1], qm)
    return positions(chain_world(base, trans, r)), qs, qm, reached


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_two_bone_reaches_what_it_can_and_points_at_the_rest(dtype):
    """Reachable targets (|a - b| < distance < a + b) are reached, and flagged so; beyond a + b
    the chain lies straight on the line to the target, its end at a + b; nearer than |a - b|
    the chain folds, its end |a - b| from the start toward the target.  Bones keep their
    lengths."""
    rng = helpers.rng_for("two-bone reach", np.dtype(dtype).name)
    n = 600
    chains = two_bone_chains(rng, n)
    _, _, _, _, p, a, b, _ = chains
    kind = rng.integers(0, 3, n)                 # 0: reachable, 1: too far, 2: too near
    u = rng.uniform(0.05, 0.95, n)
    lo, hi = np.abs(a - b), a + b
    distance = np.select([kind == 0, kind == 1], [lo + u * (hi - lo), hi * (1.05 + 2 * u)],
                         lo * u)
    target, d = around(rng, p[:, 0], distance)
    q, _, _, reached = two_bone_posed(chains, dtype, target, pole_for(rng, d))
    eps = EPS[dtype] * hi
    np.testing.assert_array_equal(reached, kind == 0)
    err = np.linalg.norm(q[:, 2] - target, axis=-1)
    assert np.all(err[kind == 0] < eps[kind == 0])
    far = kind == 1
    np.testing.assert_array_less(np.linalg.norm(q[far, 2] - (p[far, 0] + d[far] * hi[far, None]),
                                                axis=-1), eps[far])
    np.testing.assert_array_less(np.linalg.norm(np.cross(unit(q[far, 1] - q[far, 0]), d[far]),
                                                axis=-1), 10 * EPS[dtype])
    near = kind == 2                             # folded: the end at |a - b|, toward the target
    reach = q[near, 2] - q[near, 0]
    np.testing.assert_array_less(np.abs(np.linalg.norm(reach, axis=-1) - lo[near]),
                                 10 * eps[near])
    assert np.all(np.einsum("ij,ij->i", unit(reach), d[near]) > 0.99)
    np.testing.assert_allclose(np.linalg.norm(q[:, 1] - q[:, 0], axis=-1), a, rtol=EPS[dtype])
    np.testing.assert_allclose(np.linalg.norm(q[:, 2] - q[:, 1], axis=-1), b, rtol=EPS[dtype])


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_two_bone_mid_joint_in_the_pole_plane_toward_the_pole(dtype):
    """The mid joint lies in the plane of the start joint, the target and the pole vector, on
    the pole's side of the start-to-target line."""
    n = 500
    rng, chains, target, d, pole = reachable_case("two-bone pole", dtype, n)
    _, _, _, _, p, a, b, _ = chains
    q, _, _, reached = two_bone_posed(chains, dtype, target, pole)
    assert reached.all()
    m = q[:, 1] - q[:, 0]
    off_plane = np.einsum("ij,ij->i", m, unit(np.cross(d, pole)))
    np.testing.assert_array_less(np.abs(off_plane), EPS[dtype] * (a + b))
    side = lambda v: v - np.einsum("ij,ij->i", v, d)[:, None] * d
    assert np.all(np.einsum("ij,ij->i", side(m), side(pole)) > 0)


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_two_bone_twist_turns_the_chain_about_start_to_target(dtype):
    """twist_angle turns the solved chain about the start-to-target axis (right-handed), the
    end staying on the target."""
    n = 400
    rng, chains, target, d, pole = reachable_case("two-bone twist", dtype, n)
    _, _, _, _, p, a, b, _ = chains
    twist = rng.uniform(-np.pi, np.pi, n)
    q0 = two_bone_posed(chains, dtype, target, pole)[0]
    q = two_bone_posed(chains, dtype, target, pole, twist_angle=twist)[0]
    turn = Rotation.from_rotvec(d * twist[:, None])
    for k in (1, 2):
        np.testing.assert_array_less(np.linalg.norm(
            q[:, k] - (q0[:, 0] + turn.apply(q0[:, k] - q0[:, 0])), axis=-1), EPS[dtype] * (a + b))


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_two_bone_weight_blends_from_no_correction_to_full_ik(dtype):
    """weight (clamped to [0, 1]) blends each correction's rotation from the identity (0: the
    pose unchanged) to full IK (1); a target is reached only at weight 1."""
    n = 400
    rng, chains, target, d, pole = reachable_case("two-bone weight", dtype, n)
    _, _, _, _, p, a, b, _ = chains
    weight = np.concatenate([[0.0, -0.5, 1.0, 1.5], rng.uniform(0, 1, n - 4)])
    _, qs1, qm1, reached1 = two_bone_posed(chains, dtype, target, pole)
    q, qs, qm, reached = two_bone_posed(chains, dtype, target, pole, weight=weight)
    assert reached1.all()
    np.testing.assert_array_equal(reached, weight >= 1)
    helpers.assert_quat_close(qs, nlerp_identity(qs1, weight), dtype=dtype, scale=10)
    helpers.assert_quat_close(qm, nlerp_identity(qm1, weight), dtype=dtype, scale=10)
    np.testing.assert_array_equal(qs[:2].astype(dtype), np.tile([0, 0, 0, 1], (2, 1)))
    np.testing.assert_allclose(q[:2], p[:2], atol=EPS[dtype] * 10)


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_two_bone_soften_falls_behind_past_the_soften_distance(dtype):
    """soften s: up to s (a + b) from the start the target is reached; beyond, the end falls
    behind on the line to it, never flat: at s L + (1 - s) L (1 - (3 / (alpha + 3))^4), alpha
    the distance past s L in units of (1 - s) L (ozz's SoftenTarget, ik_two_bone_job.cc), which
    meets s L with no jump and tends to the chain's length L; reached only up to s L."""
    rng = helpers.rng_for("two-bone soften", np.dtype(dtype).name)
    n = 600
    chains = two_bone_chains(rng, n)
    _, _, _, _, p, a, b, _ = chains
    length = a + b
    soften = rng.uniform(0.5, 0.95, n)
    distance = np.maximum(np.abs(a - b) * 1.1, length * rng.uniform(0.3, 3.0, n))
    target, d = around(rng, p[:, 0], distance)
    q, _, _, reached = two_bone_posed(chains, dtype, target, pole_for(rng, d), soften=soften)
    start = soften * length
    alpha = np.maximum(distance - start, 0) / ((1 - soften) * length)
    expected = np.where(distance <= start, distance,
                        start + (1 - soften) * length * (1 - (3 / (alpha + 3)) ** 4))
    reach = q[:, 2] - q[:, 0]
    eps = EPS[dtype] * length
    np.testing.assert_array_less(np.abs(np.linalg.norm(reach, axis=-1) - expected), eps)
    np.testing.assert_array_less(np.linalg.norm(np.cross(unit(reach), d), axis=-1),
                                 10 * EPS[dtype])
    assert np.all(expected < length)
    sure = np.abs(distance - start) > eps
    np.testing.assert_array_equal(reached[sure], (distance <= start)[sure])


def aim_setup(rng, n, offset_scale=0.2):
    """n joints (rotations q0, matrices), targets 1-5 away, random unit forward axes, up axes
    perpendicular to them, offsets and pole vectors"""
    q0 = Rotation.random(n, random_state=rng.integers(1 << 30)).as_quat()
    joint = matrix(q0, rng.normal(size=(n, 3)))
    target, d = around(rng, joint[:, :3, 3], rng.uniform(1, 5, n))
    forward = unit(rng.normal(size=(n, 3)))
    up = unit(np.cross(forward, rng.normal(size=(n, 3))))
    offset = rng.normal(size=(n, 3)) * offset_scale
    return q0, joint, target, d, forward, up, offset, pole_for(rng, d)


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_aim_forward_from_the_offset_at_the_target_up_toward_the_pole(dtype):
    """The forward axis, from the offset point, points at the target (ahead); the up axis lies
    in the plane of the joint-to-target direction and the pole vector, on the pole's side."""
    rng = helpers.rng_for("aim", np.dtype(dtype).name)
    n = 600
    q0, joint, target, d, forward, up, offset, pole = aim_setup(rng, n)
    offset[: n // 3] = 0
    corr, reached = solve(skinkit.ik_aim, dtype, joint, target, forward=forward, up=up,
                          offset=offset, pole_vector=pole)
    assert reached.all()
    world = Rotation.from_quat(q0) * Rotation.from_quat(corr)
    ray = unit(target - (joint[:, :3, 3] + world.apply(offset)))
    np.testing.assert_array_less(np.linalg.norm(world.apply(forward) - ray, axis=-1), EPS[dtype])
    u = world.apply(up)
    np.testing.assert_array_less(np.abs(np.einsum("ij,ij->i", u, unit(np.cross(d, pole)))),
                                 10 * EPS[dtype])
    assert np.all(np.einsum("ij,ij->i", u, pole) > 0)


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_aim_twist_turns_about_joint_to_target_and_weight_blends(dtype):
    """twist_angle turns the aimed joint about the joint-to-target axis (right-handed); weight
    (clamped to [0, 1]) blends the correction's rotation from the identity to the full one."""
    rng = helpers.rng_for("aim twist", np.dtype(dtype).name)
    n = 400
    q0, joint, target, d, forward, up, offset, pole = aim_setup(rng, n)
    kw = dict(forward=forward, up=up, offset=offset, pole_vector=pole)
    full, _ = solve(skinkit.ik_aim, dtype, joint, target, **kw)
    twist = rng.uniform(-np.pi, np.pi, n)
    turned, _ = solve(skinkit.ik_aim, dtype, joint, target, twist_angle=twist, **kw)
    expected = Rotation.from_rotvec(d * twist[:, None]) * Rotation.from_quat(q0) * \
        Rotation.from_quat(full)
    off = (expected.inv() * Rotation.from_quat(q0) * Rotation.from_quat(turned)).magnitude()
    np.testing.assert_array_less(off, 10 * EPS[dtype])
    weight = np.concatenate([[0.0, -1.0, 1.0, 2.0], rng.uniform(0, 1, n - 4)])
    blended, reached = solve(skinkit.ik_aim, dtype, joint, target, weight=weight, **kw)
    assert reached.all()
    helpers.assert_quat_close(blended, nlerp_identity(full, weight), dtype=dtype, scale=10)


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_aim_target_between_joint_and_offset_is_not_reached(dtype):
    """A target nearer the joint than the offset's distance from the forward line through the
    joint cannot be aimed at from the offset: not reached, the identity."""
    rng = helpers.rng_for("aim unreached", np.dtype(dtype).name)
    n = 300
    q0, joint, _, _, forward, up, offset, pole = aim_setup(rng, n, offset_scale=2.0)
    side = np.linalg.norm(np.cross(offset, forward), axis=-1)   # the offset's distance to the line
    far = rng.random(n) < 0.5
    distance = side * np.where(far, rng.uniform(1.05, 3, n), rng.uniform(0.1, 0.95, n))
    target, _ = around(rng, joint[:, :3, 3], distance)
    corr, reached = solve(skinkit.ik_aim, dtype, joint, target, forward=forward, up=up,
                          offset=offset, pole_vector=pole)
    np.testing.assert_array_equal(reached, far)
    np.testing.assert_array_equal(corr[~far], np.tile([0, 0, 0, 1.0], (int((~far).sum()), 1)))


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
