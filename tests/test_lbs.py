"""linear_blend_skinning, normalize_weights, limit_influences."""
import re

import numpy as np
import pytest

import skinkit as sk
import helpers
import reference as ref

DTYPES = helpers.DTYPES
J, V = 7, 40


def word(n):
    return rf"(?<![\d.]){n}(?![\d.])"


def rig(rng, K, jdtype=np.int32, dtype=np.float64, batch=(), unused=True):
    """Vertices, joints (V, K) with some -1 slots (signed types), un-normalised positive weights,
    skinning matrices (batch + (J, 4, 4)) with non-uniform positive scale."""
    verts = rng.normal(size=(V, 3)).astype(dtype)
    joints = rng.integers(0, J, size=(V, K))
    if unused and np.issubdtype(jdtype, np.signedinteger) and K > 1:
        joints[rng.uniform(size=(V, K)) < 0.25] = -1
    weights = rng.uniform(0.05, 0.6, size=(V, K)).astype(dtype)
    mats = helpers.random_affine(rng, batch + (J,)).astype(dtype)
    return verts, joints.astype(jdtype), weights, mats


def seeded_rig(dtype, *key, **kw):
    """A generator seeded by ``key`` and the rig of 4 int32 influences a vertex drawn from it:
    (rng, vertices, joints, weights, matrices)."""
    rng = helpers.rng_for(*key)
    return (rng, *rig(rng, 4, np.int32, dtype, **kw))


@helpers.each_skinning_case
def test_positions(dtype, K, jdtype):
    rng = helpers.rng_for("lbs", K, np.dtype(jdtype).name)
    verts, joints, weights, mats = rig(rng, K, jdtype, dtype)
    helpers.check_kernel(sk.linear_blend_skinning, ref.linear_blend_skinning,
                         (verts, joints, weights, mats), dtype, (V, 3), scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unused_slots_are_skipped(dtype):
    """A -1 slot contributes nothing even with a large weight (it is not joint J-1)."""
    _, verts, joints, weights, mats = seeded_rig(dtype, "unused", unused=False)
    joints[:, 3] = -1
    weights[:, 3] = 5.0
    got = sk.linear_blend_skinning(verts, joints, weights, mats)
    expected = ref.linear_blend_skinning(verts, joints[:, :3], weights[:, :3], mats)
    helpers.assert_close(got, expected, scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_normals(dtype):
    rng, verts, joints, weights, mats = seeded_rig(dtype, "normals")
    normals = rng.normal(size=(V, 3))
    normals = (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(dtype)
    _, nrm = helpers.check_kernel_with_normals(
        sk.linear_blend_skinning, ref.linear_blend_skinning,
        (verts, joints, weights, mats, normals), dtype, (V, 3), scale=4, normal_scale=10)
    helpers.assert_close(np.linalg.norm(nrm.astype(np.float64), axis=1), np.ones(V), dtype=dtype)


@pytest.mark.parametrize("scale", [(1.0, 3.0, 0.2), (2.0, 2.0, 2.0), (-1.0, 1.0, 1.0)],
                         ids=["nonuniform", "uniform", "mirror"])
def test_normals_stay_perpendicular_to_the_surface(scale):
    """Build a tangent t _|_ n; the blended 3x3 maps it into the skinned tangent plane, and the
    skinned normal must stay perpendicular to it, pointing to the same side as the inverse
    transpose (also for a mirroring joint: det < 0)."""
    rng, verts, joints, weights, mats = seeded_rig(np.float64, "perp", scale, unused=False)
    mats[:, :3, :3] *= np.asarray(scale)[None, None, :]        # scale every joint the same way
    n = rng.normal(size=(V, 3))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    tangent = np.cross(n, rng.normal(size=(V, 3)))
    _, nrm = sk.linear_blend_skinning(verts, joints, weights, mats, n)
    for i in range(V):
        blend = sum(weights[i, k] * mats[joints[i, k], :3, :3] for k in range(4))
        moved = blend @ tangent[i]
        assert abs(moved @ nrm[i]) < 1e-12 * np.linalg.norm(moved)
        assert nrm[i] @ (np.linalg.inv(blend).T @ n[i]) > 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_of_poses(dtype):
    rng, verts, joints, weights, mats = seeded_rig(dtype, "batch", batch=(3,))
    helpers.check_kernel(sk.linear_blend_skinning, ref.linear_blend_skinning,
                         (verts, joints, weights, mats), dtype, (3, V, 3), scale=4)
    # batched vertices and normals against one pose, and (2, 1) x (3,) broadcasting
    verts_b = rng.normal(size=(2, 1, V, 3)).astype(dtype)
    normals = rng.normal(size=(3, V, 3)).astype(dtype)
    helpers.check_kernel_with_normals(
        sk.linear_blend_skinning, ref.linear_blend_skinning,
        (verts_b, joints, weights, mats, normals), dtype, (2, 3, V, 3), scale=4, normal_scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_weights_used_as_given(dtype):
    _, verts, joints, weights, _ = seeded_rig(dtype, "asgiven", unused=False)
    eye = np.tile(np.eye(4, dtype=dtype), (J, 1, 1))
    got = sk.linear_blend_skinning(verts, joints, weights, eye)
    helpers.assert_close(got, verts * weights.sum(axis=1, keepdims=True).astype(np.float64))
    assert not np.allclose(got, verts)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_weights_give_zero_position_and_normal(dtype):
    _, verts, joints, weights, mats = seeded_rig(dtype, "zero")
    weights[:5] = 0
    normals = np.tile(np.array([0.0, 0.0, 1.0], dtype), (V, 1))
    pos, nrm = sk.linear_blend_skinning(verts, joints, weights, mats, normals)
    assert np.all(pos[:5] == 0) and np.all(nrm[:5] == 0)
    assert np.all(np.isfinite(nrm))


@pytest.mark.parametrize("with_normals", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_no_vertices(batch, with_normals):
    mats = np.tile(np.eye(4), batch + (J, 1, 1))
    verts = np.zeros((0, 3))
    joints, weights = np.zeros((0, 4), np.int32), np.zeros((0, 4))
    if with_normals:
        pos, nrm = sk.linear_blend_skinning(verts, joints, weights, mats, np.zeros((0, 3)))
        assert nrm.shape == batch + (0, 3)
    else:
        pos = sk.linear_blend_skinning(verts, joints, weights, mats)
    assert pos.shape == batch + (0, 3) and pos.dtype == np.float64


@pytest.mark.parametrize("jdtype", (np.int32, np.int64, np.int16))
@pytest.mark.parametrize("bad", [J, -2, 1000])
def test_joint_index_out_of_range(jdtype, bad):
    rng = helpers.rng_for("range")
    verts, joints, weights, mats = rig(rng, 8, np.int64, np.float64, unused=False)
    joints = np.ascontiguousarray(joints, dtype=jdtype)
    joints[9, 6] = bad                                  # vertex 9, slot 6
    with pytest.raises(ValueError) as info:
        sk.linear_blend_skinning(verts, joints, weights, mats)
    msg = str(info.value)
    assert re.search(word(9), msg) and re.search(word(6), msg), msg


@pytest.mark.parametrize("jdtype", (np.uint8, np.uint16))
def test_unsigned_joint_index_out_of_range(jdtype):
    rng = helpers.rng_for("urange")
    verts, joints, weights, mats = rig(rng, 4, jdtype, np.float64)
    joints[3, 2] = np.iinfo(jdtype).max               # 255 / 65535 is not "unused"
    with pytest.raises(ValueError):
        sk.linear_blend_skinning(verts, joints, weights, mats)


def test_joints_and_weights_shapes_must_match():
    rng = helpers.rng_for("shapes")
    verts, joints, weights, mats = rig(rng, 4)
    with pytest.raises(ValueError):
        sk.linear_blend_skinning(verts, joints, weights[:, :3], mats)
    with pytest.raises(ValueError):
        sk.linear_blend_skinning(verts[:-1], joints, weights, mats)
    with pytest.raises(ValueError):
        sk.linear_blend_skinning(verts, joints, weights, mats, np.zeros((V - 1, 3)))


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_normalize_weights(dtype):
    rng = helpers.rng_for("nw")
    w = rng.integers(0, 5, size=(30, 4)).astype(dtype)
    w[3] = 0
    before = w.copy()
    got = sk.normalize_weights(w)
    assert got.dtype == (np.float64 if dtype == np.int64 else dtype)
    assert got.shape == w.shape
    helpers.assert_close(got, ref.normalize_weights(w))
    assert np.all(got[3] == 0)
    rows = got.sum(axis=1)
    helpers.assert_close(rows[w.sum(axis=1) != 0], 1.0)
    np.testing.assert_array_equal(w, before)       # the input is not modified in place
    assert not np.shares_memory(got, w)


@pytest.mark.parametrize("jdtype", [np.uint8, np.uint16, np.int32])
@pytest.mark.parametrize("K, k", [(8, 4), (4, 4), (4, 1), (2, 4)])
def test_limit_influences(K, k, jdtype):
    rng = helpers.rng_for("limit", K, k)
    joints = rng.integers(0, 50, size=(25, K)).astype(jdtype)
    weights = rng.uniform(0, 1, size=(25, K))
    weights[0, :] = 0.25                   # ties keep the earlier slot
    weights[1, -1] = 10.0                  # the largest may be in the last slot
    gj, gw = sk.limit_influences(joints, weights, k)
    assert gj.shape == gw.shape == (25, k) and gj.dtype == jdtype
    ej, ew = ref.limit_influences(joints, weights, k)
    np.testing.assert_array_equal(gj, ej)
    helpers.assert_close(gw, ew)
    helpers.assert_close(gw.sum(axis=1), np.ones(25))
    if K < k:
        assert np.all(gj[:, K:] == 0) and np.all(gw[:, K:] == 0)
    else:
        assert gj[0, 0] == joints[0, 0]


@pytest.mark.parametrize("jdtype, J", [(np.uint8, 7), (np.uint8, 255), (np.uint16, 7),
                                       (np.uint16, 300), (np.int32, 7)])
@pytest.mark.parametrize("where", [0, 1023, 1024, 2999, 4095])
def test_the_first_bad_joint_index_is_named_wherever_it_is(jdtype, J, where):
    """The once-per-call index check scans blocks of 1024 (and 16-64 at a time on AVX-512): a
    bad index at any place, even after an earlier -1, is found and the first one is named."""
    V, K = 1024, 4
    rng = np.random.default_rng(where + J)
    joints = rng.integers(0, J, size=(V, K)).astype(jdtype)
    if jdtype == np.int32:
        joints.flat[max(where - 1, 0)] = -1                   # no influence: fine
    joints.flat[where] = J                                    # the first bad one
    joints.flat[(where + 7) % (V * K)] = J if (where + 7) % (V * K) > where else 0
    args = (np.zeros((V, 3), np.float32), joints, np.ones((V, K), np.float32),
            np.tile(np.eye(4, dtype=np.float32), (J, 1, 1)))
    with pytest.raises(ValueError, match=rf"joints\[{where // K}, {where % K}\] = {J}"):
        sk.linear_blend_skinning(*args)
    joints.flat[where] = J - 1
    joints.flat[(where + 7) % (V * K)] = 0
    sk.linear_blend_skinning(*args)                           # all valid: no error
