"""dual_quaternion_skinning: against the NumPy reference (Kavan et al. 2008, Algorithm 1), libigl's
dqs transcribed, rotations on both sides of the q / -q boundary, and Blender's "Preserve Volume"
math transcribed for scaled and sheared skinning matrices."""
import re

import numpy as np
import pytest

import skinkit as sk
import helpers
import reference as ref

DTYPES = helpers.DTYPES
J, V = 7, 40


def rigid(rng, shape, angle=None):
    """Rotation + translation 4x4 matrices; ``angle`` bounds the rotation angle (radians)."""
    q = helpers.random_quats(rng, shape)
    if angle is not None:
        axis = rng.normal(size=tuple(shape) + (3,))
        axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
        q = ref.quat_from_rotvec(axis * rng.uniform(0, angle, size=tuple(shape) + (1,)))
    m = np.zeros(tuple(shape) + (4, 4))
    m[..., :3, :3] = ref.quat_to_matrix(q)
    m[..., :3, 3] = rng.normal(size=tuple(shape) + (3,))
    m[..., 3, 3] = 1
    return m


def rig(rng, K, dtype=np.float64, jdtype=np.int32, batch=(), unused=True, mats=None):
    verts = rng.normal(size=(V, 3)).astype(dtype)
    joints = rng.integers(0, J, size=(V, K))
    if unused and K > 1:
        joints[rng.uniform(size=(V, K)) < 0.25] = -1
        joints[:, 0] = rng.integers(0, J, size=V)          # every vertex keeps an influence
    weights = rng.uniform(0.05, 0.6, size=(V, K)).astype(dtype)
    if mats is None:
        mats = rigid(rng, batch + (J,))
    return verts, joints.astype(jdtype), weights, mats.astype(dtype)


def unit(n):
    return n / np.linalg.norm(n, axis=-1, keepdims=True)


def sheared(rng, shape):
    """General affine matrices: a random 3x3 with singular values in [0.5, 2], det > 0."""
    u = ref.quat_to_matrix(helpers.random_quats(rng, shape))
    w = ref.quat_to_matrix(helpers.random_quats(rng, shape))
    s = rng.uniform(0.5, 2.0, size=tuple(shape) + (3,))
    m = np.zeros(tuple(shape) + (4, 4))
    m[..., :3, :3] = u @ (s[..., :, None] * w)
    m[..., :3, 3] = rng.normal(size=tuple(shape) + (3,))
    m[..., 3, 3] = 1
    return m


@helpers.each_skinning_case
def test_rigid_positions_and_normals(dtype, K, jdtype):
    rng = helpers.rng_for("dqs", K, np.dtype(jdtype).name)
    verts, joints, weights, mats = rig(rng, K, dtype, jdtype, unused=jdtype != np.uint8 and
                                       jdtype != np.uint16)
    normals = unit(rng.normal(size=(V, 3))).astype(dtype)
    pos, _ = helpers.check_kernel_with_normals(
        sk.dual_quaternion_skinning, ref.dual_quaternion_skinning,
        (verts, joints, weights, mats, normals), dtype, (V, 3), scale=10, normal_scale=10)
    assert np.array_equal(sk.dual_quaternion_skinning(verts, joints, weights, mats), pos)


@pytest.mark.parametrize("kind", ["scaled", "sheared", "mirrored"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scaled_and_sheared_matrices(dtype, kind):
    """Non-rigid skinning matrices against the reference (nearest rotation by SVD, Blender's
    pivot at the vertex)."""
    rng = helpers.rng_for("dqs-scale", kind)
    mats = {"scaled": lambda: helpers.random_affine(rng, (J,)), "sheared": lambda: sheared(rng, (J,)),
            "mirrored": lambda: sheared(rng, (J,)) @ np.diag([-1.0, 1, 1, 1])}[kind]()
    verts, joints, weights, mats = rig(rng, 4, dtype, mats=mats)
    normals = unit(rng.normal(size=(V, 3))).astype(dtype)
    helpers.check_kernel_with_normals(
        sk.dual_quaternion_skinning, ref.dual_quaternion_skinning,
        (verts, joints, weights, mats, normals), dtype, (V, 3), scale=100, normal_scale=100)


@pytest.mark.parametrize("kind", ["rigid", "sheared", "mirrored"])
def test_one_influence_is_the_matrix(kind):
    """With one influence a vertex goes exactly where its matrix takes it, whatever the matrix
    (Blender's pivot at the vertex makes each influence exact)."""
    rng = helpers.rng_for("dqs-one", kind)
    mats = {"rigid": rigid(rng, (J,)), "sheared": sheared(rng, (J,)),
            "mirrored": sheared(rng, (J,)) @ np.diag([1.0, -1, 1, 1])}[kind]
    verts, joints, weights, mats = rig(rng, 1, mats=mats)
    got = sk.dual_quaternion_skinning(verts, joints, weights * 3.0, mats)
    lbs = sk.linear_blend_skinning(verts, joints, np.ones_like(weights), mats)
    helpers.assert_close(got, lbs, scale=10)


def test_rigid_matches_libigl_dqs():
    """libigl's igl::dqs transcribed (dense weights, rotations as quaternions with random signs,
    translations) against the kernel fed the same rigid motions as matrices."""
    rng = helpers.rng_for("dqs-igl")
    base = helpers.random_quats(rng)
    q = ref.quat_multiply(base, ref.quat_from_rotvec(rng.normal(scale=0.5, size=(J, 3))))
    q *= rng.choice([-1.0, 1.0], size=(J, 1))                # q or -q: the same rotation
    t = rng.normal(size=(J, 3))
    mats = np.tile(np.eye(4), (J, 1, 1))
    mats[:, :3, :3], mats[:, :3, 3] = ref.quat_to_matrix(q), t
    verts, joints, weights, _ = rig(rng, 4, unused=False)
    W = np.zeros((V, J))
    np.add.at(W, (np.repeat(np.arange(V), 4), joints.ravel()), weights.ravel())
    expected = ref.igl_dqs(verts, W, q, t)
    helpers.assert_close(sk.dual_quaternion_skinning(verts, joints, weights, mats), expected,
                     scale=10)
    assert not np.allclose(expected, sk.linear_blend_skinning(verts, joints,
                                                              sk.normalize_weights(weights),
                                                              mats), atol=1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rotations_straddling_the_antipodal_boundary(dtype):
    """Rotations by 180 deg +- a few degrees about one axis: their matrices convert to
    quaternions (w >= 0) on opposite sides of the q / -q boundary.  Two equal weights at
    180 - d and 180 + d blend to exactly 180 deg; without the hemisphere alignment they would
    cancel out."""
    rng = helpers.rng_for("straddle")
    axis = unit(rng.normal(size=3))
    angles = np.pi + np.radians([-3.0, 3.0, -1.0, 2.0])
    mats = np.tile(np.eye(4), (4, 1, 1))
    mats[:, :3, :3] = ref.quat_to_matrix(ref.quat_from_rotvec(angles[:, None] * axis))
    mats[:, :3, 3] = [0.5, -0.2, 0.1]
    quats = sk.quat_from_matrix(mats[:, :3, :3])
    assert quats[0] @ quats[1] < 0                            # straddling, as converted
    verts = rng.normal(size=(V, 3)).astype(dtype)
    joints = np.tile(np.array([[0, 1]], np.int32), (V, 1))
    weights = np.full((V, 2), 0.5, dtype)
    got = sk.dual_quaternion_skinning(verts, joints, weights, mats.astype(dtype))
    half = ref.quat_to_matrix(ref.quat_from_rotvec(np.pi * axis))
    helpers.assert_close(got, verts.astype(np.float64) @ half.T + [0.5, -0.2, 0.1], scale=10)
    # four influences, random weights: the reference and libigl (with its own signs) agree
    joints4 = np.tile(np.arange(4, dtype=np.int32), (V, 1))
    w4 = rng.uniform(0.1, 1.0, size=(V, 4)).astype(dtype)
    got4 = sk.dual_quaternion_skinning(verts, joints4, w4, mats.astype(dtype))
    helpers.assert_close(got4, ref.dual_quaternion_skinning(verts, joints4, w4, mats), scale=10)
    helpers.assert_close(got4, ref.igl_dqs(verts, w4, quats, mats[:, :3, 3]), scale=10)


def blender_rig(rng, n_joints):
    """Bone rest matrices (rigid), posed matrices with anisotropic positive scale along the
    bone's own axes (no shear), and the skinning matrices pose @ rest^-1 (sheared in model
    space)."""
    rest = rigid(rng, (n_joints,))
    base = helpers.random_quats(rng)
    q = ref.quat_multiply(base, ref.quat_from_rotvec(rng.normal(scale=0.4,
                                                                    size=(n_joints, 3))))
    pose = np.tile(np.eye(4), (n_joints, 1, 1))      # rotated by q from the rest, then scaled
    pose[:, :3, :3] = (ref.quat_to_matrix(q) @ rest[:, :3, :3]
                       * rng.uniform(0.5, 1.8, size=(n_joints, 1, 3)))
    pose[:, :3, 3] = rng.normal(size=(n_joints, 3))
    pose[0, :3, :3] = ref.quat_to_matrix(q[0]) @ rest[0, :3, :3]   # one rigid bone
    return rest, pose @ np.linalg.inv(rest)


def test_scaled_bones_match_blender_preserve_volume_math():
    """Blender's mat4_to_dquat / add_weighted_dq_dq_pivot / normalize_dq / mul_v3m3_dq
    transcribed: same positions, and normals by the inverse transpose of Blender's deform
    matrix.  (The bones do not shear, where Blender's Gram-Schmidt rotation along the bone
    and the kernel's polar rotation agree.)"""
    rng = helpers.rng_for("dqs-blender")
    rest, mats = blender_rig(rng, J)
    verts, joints, weights, _ = rig(rng, 4)
    normals = unit(rng.normal(size=(V, 3)))
    bpos, bdef = ref.blender_preserve_volume(verts, joints, weights, rest, mats)
    pos, nrm = sk.dual_quaternion_skinning(verts, joints, weights, mats, normals)
    helpers.assert_close(pos, bpos, scale=100)
    bn = unit(np.einsum("vij,vj->vi", np.linalg.inv(bdef).transpose(0, 2, 1), normals))
    helpers.assert_close(nrm, bn, scale=100)
    # a rigid rig takes Blender's rigid branch: Kavan's result
    rmats = rigid(rng, (J,), angle=1.5)
    bpos, _ = ref.blender_preserve_volume(verts, joints, weights, rest, rmats)
    helpers.assert_close(sk.dual_quaternion_skinning(verts, joints, weights, rmats), bpos, scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_and_broadcasting(dtype):
    rng = helpers.rng_for("dqs-batch")
    verts, joints, weights, mats = rig(rng, 4, dtype, batch=(3,))
    got = sk.dual_quaternion_skinning(verts, joints, weights, mats)
    assert got.shape == (3, V, 3) and got.dtype == dtype
    for b in range(3):
        assert np.array_equal(got[b], sk.dual_quaternion_skinning(verts, joints, weights,
                                                                  mats[b]))
    verts_b = rng.normal(size=(2, 1, V, 3)).astype(dtype)
    normals = unit(rng.normal(size=(3, V, 3))).astype(dtype)
    pos, _ = helpers.check_kernel_with_normals(
        sk.dual_quaternion_skinning, ref.dual_quaternion_skinning,
        (verts_b, joints, weights, mats, normals), dtype, (2, 3, V, 3),
        scale=10, normal_scale=10)
    out = (np.empty((2, 3, V, 3), dtype), np.empty((2, 3, V, 3), dtype))
    res = sk.dual_quaternion_skinning(verts_b, joints, weights, mats, normals, out=out)
    assert res[0] is out[0] and res[1] is out[1] and np.array_equal(out[0], pos)
    assert np.array_equal(sk.dual_quaternion_skinning(verts_b, joints, weights, mats, normals,
                                                      threads=2)[0], pos)


def test_mixed_dtypes_compute_in_float64():
    rng = helpers.rng_for("dqs-mixed")
    verts, joints, weights, mats = rig(rng, 4)
    got = sk.dual_quaternion_skinning(verts, joints, weights.astype(np.float32),
                                      mats.astype(np.float32))
    assert got.dtype == np.float64
    helpers.assert_close(got, ref.dual_quaternion_skinning(verts, joints,
                                                       weights.astype(np.float32),
                                                       mats.astype(np.float32)), scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_weight_scale_and_unused_slots(dtype):
    """Rigid DQS normalizes: weights times 3 give the same result; a -1 slot contributes
    nothing even with a large weight; a vertex without weight keeps its rest pose."""
    rng = helpers.rng_for("dqs-weights")
    verts, joints, weights, mats = rig(rng, 4, dtype, unused=False)
    normals = unit(rng.normal(size=(V, 3))).astype(dtype)
    pos = sk.dual_quaternion_skinning(verts, joints, weights, mats)
    helpers.assert_close(sk.dual_quaternion_skinning(verts, joints, weights * 3, mats),
                     pos.astype(np.float64), dtype=dtype, scale=10)
    j2, w2 = joints.copy(), weights.copy()
    j2[:, 3], w2[:, 3] = -1, 5.0
    helpers.assert_close(sk.dual_quaternion_skinning(verts, j2, w2, mats),
                     ref.dual_quaternion_skinning(verts, joints[:, :3], weights[:, :3], mats),
                     scale=10)
    w2[:5] = 0
    p, n = sk.dual_quaternion_skinning(verts, j2, w2, mats, normals * 2)
    assert np.array_equal(p[:5], verts[:5])
    helpers.assert_close(n[:5], normals[:5])


@pytest.mark.parametrize("jdtype", (np.int32, np.int64, np.uint8))
def test_joint_index_out_of_range(jdtype):
    rng = helpers.rng_for("dqs-range")
    verts, joints, weights, mats = rig(rng, 8, jdtype=np.int64, unused=False)
    joints = joints.astype(jdtype)
    joints[9, 6] = J + 3
    with pytest.raises(ValueError) as info:
        sk.dual_quaternion_skinning(verts, joints, weights, mats)
    msg = str(info.value)
    assert re.search(r"(?<![\d.])9(?![\d.])", msg) and re.search(r"(?<![\d.])6(?![\d.])", msg)
    with pytest.raises(ValueError, match="skinning_matrices"):
        sk.dual_quaternion_skinning(verts, joints, weights, mats[..., :3, :])
    with pytest.raises(ValueError, match="V=39"):
        sk.dual_quaternion_skinning(verts[:-1], np.zeros((V, 8), np.int32), weights, mats)


def test_nan_propagates():
    rng = helpers.rng_for("dqs-nan")
    verts, joints, weights, mats = rig(rng, 4, unused=False)
    mats[2, 0, 0] = np.nan
    weights[1, 0] = np.nan
    got = sk.dual_quaternion_skinning(verts, joints, weights, mats)
    assert np.isnan(got[1]).all()
    bad = (joints == 2).any(axis=1)
    assert np.isnan(got[bad]).any(axis=1).all()
    assert np.isfinite(got[~bad & (np.arange(V) != 1)]).all()


SIMD_SCRIPT = """
import sys, numpy as np, skinkit
from skinkit import _core
d = np.load(sys.argv[1])
out = {"simd": _core.simd()}
for K in (4, 5):
    for jt in ("uint16", "int32"):
        j, w = d["j"][:, :K], d["w"][:, :K]
        if jt == "uint16":                  # no -1: unused slots become joint 0, weight 0
            j, w = np.where(j < 0, 0, j), np.where(j < 0, 0, w)
        p, n = skinkit.dual_quaternion_skinning(d["v"], j.astype(jt), w, d["m"], normals=d["n"])
        out[f"p{K}{jt}"], out[f"n{K}{jt}"] = p, n
np.savez(sys.argv[2], **out)
"""


def test_avx2_and_portable_paths_agree(tmp_path):
    """float32 poses of rigid joints take the AVX2 variant (by default, on CPUs that have it):
    the portable code (SKINKIT_SIMD=baseline, in a subprocess) gives the same up to FMA
    rounding, for K = 4 with uint16 joints (specialized), K = 5, vertex counts that are not a
    multiple of 8, unused slots and weightless vertices.  There is no AVX-512 DQS: the default
    level and SKINKIT_SIMD=avx2 run the same code, bit for bit."""
    import os
    import subprocess
    import sys
    rng = helpers.rng_for("dqs-simd")
    V = 1003
    d = {"v": rng.normal(size=(V, 3)).astype(np.float32),
         "j": rng.integers(0, J, size=(V, 5)).astype(np.int32),
         "w": rng.random((V, 5)).astype(np.float32),
         "m": rigid(rng, (2, J)).astype(np.float32),
         "n": unit(rng.normal(size=(V, 3))).astype(np.float32)}
    d["j"][rng.random((V, 5)) < 0.2] = -1
    d["j"][:, 0] = rng.integers(0, J, size=V)
    d["w"][::97] = 0
    np.savez(tmp_path / "in.npz", **d)
    runs = {}
    for simd in ("default", "avx2", "baseline"):
        env = dict(os.environ)
        env.pop("SKINKIT_SIMD", None)
        if simd != "default":
            env["SKINKIT_SIMD"] = simd
        subprocess.run([sys.executable, "-c", SIMD_SCRIPT, str(tmp_path / "in.npz"),
                        str(tmp_path / f"{simd}.npz")], env=env, check=True)
        runs[simd] = np.load(tmp_path / f"{simd}.npz")
    assert str(runs["baseline"]["simd"]) == "baseline"
    for key in runs["default"].files:
        if key != "simd":
            np.testing.assert_array_equal(runs["default"][key], runs["avx2"][key])
            np.testing.assert_allclose(runs["default"][key], runs["baseline"][key], rtol=0,
                                       atol=2e-5)
    helpers.assert_close(runs["default"]["p5int32"],
                     ref.dual_quaternion_skinning(d["v"], d["j"], d["w"], d["m"]), scale=10)


def test_twist_keeps_volume_where_lbs_collapses():
    """The candy wrapper: a cylinder along x whose far end twists 170 deg about x.  DQS keeps
    every vertex at its radius; LBS pulls the middle towards the axis."""
    x, a = np.meshgrid(np.linspace(0, 1, 11), np.linspace(0, 2 * np.pi, 16, endpoint=False))
    verts = np.stack([x.ravel(), np.cos(a.ravel()), np.sin(a.ravel())], axis=1)
    joints = np.tile(np.array([[0, 1]], np.int32), (len(verts), 1))
    weights = np.stack([1 - verts[:, 0], verts[:, 0]], axis=1)
    mats = np.tile(np.eye(4), (2, 1, 1))
    mats[1, :3, :3] = ref.quat_to_matrix(ref.quat_from_rotvec([np.radians(170.0), 0, 0]))
    dqs = sk.dual_quaternion_skinning(verts, joints, weights, mats)
    lbs = sk.linear_blend_skinning(verts, joints, weights, mats)
    helpers.assert_close(np.hypot(dqs[:, 1], dqs[:, 2]), np.ones(len(verts)))
    helpers.assert_close(dqs[:, 0], verts[:, 0])
    middle = np.isclose(verts[:, 0], 0.5)
    assert np.hypot(lbs[middle, 1], lbs[middle, 2]).max() < 0.1
