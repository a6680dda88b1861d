"""Quaternion kernels and slerp vs the NumPy reference and SciPy's Rotation / Slerp."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

import skinkit as sk
import helpers
import reference as ref

DTYPES = helpers.DTYPES
rng_for = helpers.rng_for


# --------------------------------------------------------------------------- each kernel on batches


def quats(rng, batch, dtype):
    return helpers.random_quats(rng, batch, dtype)


def normals(size, factor=1.0):
    """An input: normal numbers times ``factor``, of shape batch + (size,)."""
    return lambda rng, batch, dtype: (rng.normal(size=batch + (size,)) * factor).astype(dtype)


def fractions(rng, batch, dtype):
    return rng.uniform(0, 1, size=batch).astype(dtype)


def unit_norm(got, dtype, *args):
    helpers.assert_close(np.linalg.norm(got.astype(np.float64), axis=-1), np.ones(got.shape[:-1]),
                         dtype=dtype)


def scipy_product(got, dtype, a, b):
    # SciPy: Rotation(a) * Rotation(b) applies b first, i.e. the Hamilton product a * b
    ra, rb = Rotation.from_quat(a.reshape(-1, 4)), Rotation.from_quat(b.reshape(-1, 4))
    helpers.assert_quat_close(got.reshape(-1, 4), (ra * rb).as_quat())


def scipy_rotate(got, dtype, q, v):
    helpers.assert_close(got.reshape(-1, 3),
                         Rotation.from_quat(q.reshape(-1, 4)).apply(v.reshape(-1, 3)))


def scipy_matrix(got, dtype, q):
    helpers.assert_close(got.reshape(-1, 3, 3), Rotation.from_quat(q.reshape(-1, 4)).as_matrix())


def scipy_rotvec(got, dtype, r):
    helpers.assert_close(got.reshape(-1, 4), Rotation.from_rotvec(r.reshape(-1, 3)).as_quat())


def scipy_slerp(got, dtype, q0, q1, t):
    unit_norm(got, dtype)
    for idx in np.ndindex(t.shape):
        s = Slerp([0.0, 1.0], Rotation.from_quat(np.stack([q0[idx], q1[idx]]).astype(np.float64)))
        helpers.assert_quat_close(got[idx], s([float(t[idx])]).as_quat()[0], dtype=dtype, scale=3)


# name: (seed, kernel, reference, makers of the inputs, result shape after the batch, tolerance
# scale, the check of the result against SciPy (or of its norm))
KERNELS = {
    "multiply": ("mul", sk.quat_multiply, ref.quat_multiply, (quats, quats), (4,), 1,
                 scipy_product),
    "normalize": ("norm", sk.quat_normalize, ref.quat_normalize, (normals(4, 7),), (4,), 1,
                  unit_norm),
    "rotate": ("rot", sk.quat_rotate, ref.quat_rotate, (quats, normals(3)), (3,), 1, scipy_rotate),
    "to_matrix": ("tomat", sk.quat_to_matrix, ref.quat_to_matrix, (quats,), (3, 3), 1,
                  scipy_matrix),
    "from_axis_angle": ("rotvec", sk.quat_from_rotvec, ref.quat_from_rotvec, (normals(3, 1.2),),
                        (4,), 1, scipy_rotvec),
    "slerp": ("slerp", sk.slerp, ref.slerp, (quats, quats, fractions), (4,), 3, scipy_slerp),
}


@helpers.each_dtype_and_batch
@pytest.mark.parametrize("name", KERNELS)
def test_kernel(name, dtype, batch):
    """Random inputs of every batch shape: dtype, shape and values against reference.py, then
    against SciPy."""
    seed, kernel, reference, inputs, shape, scale, check = KERNELS[name]
    rng = rng_for(seed, batch)
    args = tuple(make(rng, batch, dtype) for make in inputs)
    got = helpers.check_kernel(kernel, reference, args, dtype, batch + shape, scale=scale)
    check(got, dtype, *args)


# --------------------------------------------------------------------------- products


def test_multiply_order_is_hamilton():
    x90 = np.array([np.sin(np.pi / 4), 0, 0, np.cos(np.pi / 4)])
    y90 = np.array([0, np.sin(np.pi / 4), 0, np.cos(np.pi / 4)])
    # a * b applies b first: rotate e_z by y90 -> e_x, then by x90 -> e_x
    v = sk.quat_rotate(sk.quat_multiply(x90, y90), [0.0, 0.0, 1.0])
    np.testing.assert_allclose(v, [1.0, 0.0, 0.0], atol=1e-15)
    assert not np.allclose(sk.quat_multiply(x90, y90), sk.quat_multiply(y90, x90))


@pytest.mark.parametrize("dtype", DTYPES)
def test_multiply_broadcasts(dtype):
    rng = rng_for("mulb")
    a, b = helpers.random_quats(rng, (2, 1), dtype), helpers.random_quats(rng, (3,), dtype)
    helpers.check_kernel(sk.quat_multiply, ref.quat_multiply, (a, b), dtype, (2, 3, 4))


@helpers.each_dtype_and_batch
def test_conjugate_and_inverse(dtype, batch):
    rng = rng_for("inv", batch)
    q = (helpers.random_quats(rng, batch) * rng.uniform(0.5, 3.0, size=batch + (1,))).astype(dtype)
    conj, inv = sk.quat_conjugate(q), sk.quat_inverse(q)
    assert conj.dtype == inv.dtype == dtype
    assert conj.shape == inv.shape == batch + (4,)
    helpers.assert_close(conj, ref.quat_conjugate(q))
    helpers.assert_close(inv, ref.quat_inverse(q))
    # q * q^-1 = identity for non-unit q as well
    ident = np.broadcast_to([0.0, 0.0, 0.0, 1.0], batch + (4,))
    helpers.assert_close(ref.quat_multiply(q, inv), ident, dtype=dtype, scale=2)


def test_inverse_of_zero_is_not_finite():
    assert not np.all(np.isfinite(sk.quat_inverse(np.zeros(4))))


@pytest.mark.parametrize("dtype", DTYPES)
def test_normalize_zero_gives_identity(dtype):
    tiny = 1e-15 if dtype == np.float32 else 1e-100     # squares stay normal numbers
    q = np.array([[0, 0, 0, 0], [3 * tiny, 0, -4 * tiny, 0], [-2, 0, 0, 0]], dtype=dtype)
    got = sk.quat_normalize(q)
    assert got.dtype == dtype
    helpers.assert_close(got, [[0, 0, 0, 1], [0.6, 0, -0.8, 0], [-1, 0, 0, 0]])


# --------------------------------------------------------------------------- rotate, matrices


@pytest.mark.parametrize("dtype", DTYPES)
def test_rotate_broadcasts(dtype):
    rng = rng_for("rotb")
    q = helpers.random_quats(rng, (2, 1), dtype)
    v = rng.normal(size=(3, 3)).astype(dtype)
    helpers.check_kernel(sk.quat_rotate, ref.quat_rotate, (q, v), dtype, (2, 3, 3))


def test_to_matrix_uses_quaternion_as_given():
    # not normalised: the engines' formula 1 - 2(y^2 + z^2) ... on the raw components
    q = np.array([0.2, -0.4, 0.6, 1.5])
    got = sk.quat_to_matrix(q)
    np.testing.assert_allclose(got, ref.quat_to_matrix(q), rtol=1e-14, atol=1e-14)
    assert not np.allclose(got, Rotation.from_quat(q).as_matrix())


@helpers.each_dtype_and_batch
def test_from_matrix(dtype, batch):
    rng = rng_for("frommat", batch)
    m = Rotation.from_quat(helpers.random_quats(rng, batch).reshape(-1, 4)).as_matrix()
    m = m.reshape(batch + (3, 3)).astype(dtype)
    got = sk.quat_from_matrix(m)
    assert got.dtype == dtype and got.shape == batch + (4,)
    assert np.all(got[..., 3] >= 0)
    helpers.assert_close(got, ref.quat_from_matrix(m))
    helpers.assert_close(got.reshape(-1, 4),
                     Rotation.from_matrix(m.reshape(-1, 3, 3).astype(np.float64))
                     .as_quat(canonical=True))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("angle", [0.0, 1e-9, 1e-3, 1.0, np.pi / 2, 3.0, np.pi - 1e-6, np.pi])
def test_from_matrix_every_angle(dtype, angle):
    """Shepperd's branches: accurate near 0 and near 180 degrees, about every axis."""
    rng = rng_for("angles", angle)
    axes = np.concatenate([np.eye(3), rng.normal(size=(6, 3))])
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    q = np.concatenate([np.sin(angle / 2) * axes, np.full((9, 1), np.cos(angle / 2))], axis=1)
    m = ref.quat_to_matrix(q).astype(dtype)
    got = sk.quat_from_matrix(m)
    assert np.all(got[:, 3] >= 0)
    # at exactly 180 degrees w = 0 and the sign is free: compare up to sign
    helpers.assert_quat_close(got, q, dtype=dtype, scale=10)
    helpers.assert_close(ref.quat_to_matrix(got), m, dtype=dtype, scale=10)


def test_from_axis_angle_beyond_half_turn():
    """Angles past pi (w < 0) and several turns: the exp map, as SciPy's from_rotvec."""
    rng = helpers.rng_for("bigangle")
    axes = rng.normal(size=(6, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    r = axes * np.array([np.pi, 4.0, 2 * np.pi, 7.5, 13.0, 50.0])[:, None]
    got = sk.quat_from_rotvec(r)
    np.testing.assert_allclose(got, Rotation.from_rotvec(r).as_quat(), rtol=1e-12, atol=1e-12)
    helpers.assert_close(got, ref.quat_from_rotvec(r))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [0.0, 1e-30, 1e-12, 1e-6, 1e-4])
def test_from_axis_angle_near_zero(dtype, size):
    r = (np.array([[1.0, -2.0, 2.0]]) / 3 * size).astype(dtype)
    got = sk.quat_from_rotvec(r)
    assert np.all(np.isfinite(got))
    a = float(size)
    expected = np.concatenate([r.astype(np.float64) * np.sinc(a / (2 * np.pi)) / 2,
                               [[np.cos(a / 2)]]], axis=1)
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    # relative accuracy on the tiny x, y, z (an absolute tolerance would hide sin(a/2)/a errors)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=0)


# --------------------------------------------------------------------------- slerp


def rotation_about(axis, angle):
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    return np.append(np.sin(angle / 2) * axis, np.cos(angle / 2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_slerp_broadcasts(dtype):
    rng = rng_for("slerpb")
    q0 = helpers.random_quats(rng, (5,), dtype)
    q1 = helpers.random_quats(rng, (), dtype)
    t = np.linspace(0, 1, 3).reshape(3, 1).astype(dtype)
    helpers.check_kernel(sk.slerp, ref.slerp, (q0, q1, t), dtype, (3, 5, 4), scale=3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_slerp_python_float_t_keeps_dtype(dtype):
    q0, q1 = helpers.random_quats(rng_for("pyt"), (2,), dtype)
    helpers.check_kernel(sk.slerp, ref.slerp, (q0, q1, 0.25), dtype, (4,), scale=3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_slerp_endpoints_and_shortest_path(dtype):
    rng = rng_for("ends")
    q0, q1 = helpers.random_quats(rng, (50,), dtype), helpers.random_quats(rng, (50,), dtype)
    sign = np.where(np.sum(q0.astype(np.float64) * q1, axis=-1) < 0, -1.0, 1.0)[:, None]
    assert np.any(sign < 0) and np.any(sign > 0)
    helpers.assert_close(sk.slerp(q0, q1, np.zeros(50, dtype)), q0)
    helpers.assert_close(sk.slerp(q0, q1, np.ones(50, dtype)), sign * q1)
    # the midpoint lies on the short arc: the angle to both ends is half the short angle
    mid = sk.slerp(q0, q1, np.full(50, 0.5, dtype)).astype(np.float64)
    d0 = np.abs(np.sum(mid * q0, axis=-1))
    d1 = np.abs(np.sum(mid * q1, axis=-1))
    half = np.arccos(np.abs(np.sum(q0.astype(np.float64) * q1, axis=-1))) / 2
    helpers.assert_close(d0, np.cos(half), dtype=dtype, scale=3)
    helpers.assert_close(d1, np.cos(half), dtype=dtype, scale=3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("antipodal", [False, True])
def test_slerp_nearly_equal_quaternions(dtype, antipodal):
    """Angle 1e-7 between q0 and q1 (or -q1): exact answer q0 * r(t * angle)."""
    rng = rng_for("tiny", antipodal)
    q0 = helpers.random_quats(rng, (6,))
    axis = rng.normal(size=(6, 3))
    angle = 1e-7
    q1 = ref.quat_multiply(q0, np.stack([rotation_about(a, angle) for a in axis]))
    if antipodal:
        q1 = -q1
    t = np.array([0.0, 0.1, 0.3, 0.5, 0.9, 1.0])
    expected = ref.quat_multiply(q0, np.stack([rotation_about(a, s * angle)
                                               for a, s in zip(axis, t)]))
    got = sk.slerp(q0.astype(dtype), q1.astype(dtype), t.astype(dtype))
    assert got.dtype == dtype and np.all(np.isfinite(got))
    helpers.assert_close(np.linalg.norm(got.astype(np.float64), axis=-1), np.ones(6), dtype=dtype)
    if dtype == np.float64:
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)
    else:
        np.testing.assert_allclose(got, expected, rtol=0, atol=3e-7)
    # the reference agrees (it falls back to lerp below theta ~ 1e-12, not here)
    np.testing.assert_allclose(ref.slerp(q0, q1, t), expected, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_slerp_identical_and_opposite(dtype):
    q = helpers.random_quats(rng_for("same"), (4,), dtype)
    t = np.array([0.0, 0.25, 0.75, 1.0], dtype)
    for q1, expected in ((q, q), (-q, q)):
        got = sk.slerp(q, q1, t)
        assert np.all(np.isfinite(got))
        helpers.assert_close(got, expected)
