"""forward_kinematics, rigid_forward_kinematics, skinning_matrices, matrix_inverse."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import skinkit as sk
from skinkit import _core
import helpers
import reference as ref

DTYPES = helpers.DTYPES
J = 12


def pose(rng, batch, J, dtype):
    """Random local rotations, translations and (positive, non-uniform) scales."""
    return (helpers.random_quats(rng, batch + (J,), dtype),
            rng.normal(size=batch + (J, 3)).astype(dtype),
            rng.uniform(0.5, 1.5, size=batch + (J, 3)).astype(dtype))


def seeded_tree(depth, *key):
    """A generator seeded by ``key`` and, drawn from it, a random forest of J joints listed out of
    topological order, of depth >= ``depth``."""
    rng = helpers.rng_for(*key)
    return rng, helpers.random_tree(rng, J, depth=depth)


def seeded_chain(*key):
    """A generator seeded by ``key`` and, drawn from it, one chain of 6 joints in random order."""
    rng = helpers.rng_for(*key)
    return rng, helpers.chain_parents(6, rng)


# --------------------------------------------------------------------------- forward_kinematics


@pytest.mark.parametrize("with_scales", [False, True])
@helpers.each_dtype_and_batch
def test_forward_kinematics(dtype, batch, with_scales):
    rng, parents = seeded_tree(5, "fk", batch, with_scales)
    assert any(parents[i] > i for i in range(J)), "parents must not be in topological order"
    assert max(helpers.depth_of(parents, i) for i in range(J)) >= 4
    r, t, s = pose(rng, batch, J, dtype)
    s = s if with_scales else None
    helpers.check_kernel(sk.forward_kinematics, ref.forward_kinematics, (parents, r, t, s),
                         dtype, batch + (J, 4, 4), scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_kinematics_chain_out_of_order(dtype):
    rng, parents = seeded_chain("chain")
    assert max(helpers.depth_of(parents, i) for i in range(6)) == 5
    assert any(parents[i] > i for i in range(6))
    r, t, s = pose(rng, (), 6, dtype)
    got = sk.forward_kinematics(parents, r, t, s)
    helpers.assert_close(got, ref.forward_kinematics(parents, r, t, s), scale=4)
    # M_i = M_p @ T R S, joint by joint
    for i, p in enumerate(parents):
        local = ref.trs_matrix(t[i], r[i], s[i])
        helpers.assert_close(got[i], local if p < 0 else got[p].astype(np.float64) @ local, scale=4)


def test_forward_kinematics_uses_rotations_as_given():
    """Not normalised: a non-unit quaternion gives the engines' matrix of the raw components."""
    q = np.array([[0.2, -0.4, 0.6, 1.5], [0.0, 0.0, 0.0, 2.0]])
    t = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, 0.0]])
    got = sk.forward_kinematics(np.array([-1, 0]), q, t)
    helpers.assert_close(got, ref.forward_kinematics([-1, 0], q, t))
    assert not np.allclose(got[0, :3, :3], ref.quat_to_matrix(ref.quat_normalize(q[0])))


def test_forward_kinematics_scales_none_means_one():
    rng, parents = seeded_tree(4, "ones")
    r, t, _ = pose(rng, (3,), J, np.float64)
    np.testing.assert_allclose(sk.forward_kinematics(parents, r, t),
                               sk.forward_kinematics(parents, r, t, np.ones((J, 3))),
                               rtol=1e-14, atol=1e-14)
    assert not np.allclose(sk.forward_kinematics(parents, r, t),
                           sk.forward_kinematics(parents, r, t, np.full((J, 3), 2.0)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_kinematics_broadcasts(dtype):
    rng, parents = seeded_tree(4, "fkb")
    r, _, _ = pose(rng, (4,), J, dtype)
    t = rng.normal(size=(J, 3)).astype(dtype)                      # shared by the batch
    s = rng.uniform(0.5, 1.5, size=(2, 1, J, 3)).astype(dtype)     # (2, 1) x (4,) -> (2, 4)
    got = sk.forward_kinematics(parents, r, t)
    assert got.shape == (4, J, 4, 4)
    helpers.assert_close(got, ref.forward_kinematics(parents, r, t), scale=4)
    helpers.check_kernel(sk.forward_kinematics, ref.forward_kinematics, (parents, r, t, s),
                         dtype, (2, 4, J, 4, 4), scale=4)


def test_forward_kinematics_deep_chain():
    """600 joints in one chain, listed in random order (no recursion-depth or O(J^2) traps)."""
    rng = helpers.rng_for("deep")
    n = 600
    parents = helpers.chain_parents(n, rng)
    q = helpers.random_quats(rng, (n,))
    t = rng.normal(size=(n, 3)) * 0.01
    got = sk.forward_kinematics(parents, q, t)
    order = [int(np.flatnonzero(parents == -1)[0])]
    child = {int(p): i for i, p in enumerate(parents) if p >= 0}
    while order[-1] in child:
        order.append(child[order[-1]])
    m = np.eye(4)
    for i in order:                                  # iterative: walk down the chain
        m = m @ ref.trs_matrix(t[i], q[i])
        np.testing.assert_allclose(got[i], m, rtol=1e-10, atol=1e-10)
    Q, tr = sk.rigid_forward_kinematics(parents, t, q)
    assert np.all(np.isfinite(Q)) and np.all(np.isfinite(tr))


@pytest.mark.parametrize("n", [7, 8, 13, 17, 64, 128, 129])
def test_forward_kinematics_joint_counts(n):
    """float32 poses make their local matrices 8 joints at a time and the rest one by one
    (fk_avx2.c), or 16 at a time with the last block's lanes masked (fk_avx512.c), up to 128
    joints (beyond, the portable code): every count agrees with the reference."""
    rng = helpers.rng_for("counts", n)
    parents = helpers.random_tree(rng, n, depth=min(n, 10))
    r, t, s = pose(rng, (3,), n, np.float32)
    helpers.check_kernel(sk.forward_kinematics, ref.forward_kinematics, (parents, r, t, s),
                         np.float32, (3, n, 4, 4), scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_kinematics_same_bits_wherever_a_joint_is_stored(dtype):
    """Listing the joints in another order moves them between the blocks of 8 and the one-by-one
    rest (fk_avx2.c): each joint's world matrix keeps its bits."""
    rng = helpers.rng_for("perm", np.dtype(dtype).name)
    n = 13
    parents = helpers.random_tree(rng, n, depth=6)
    r, t, s = pose(rng, (5,), n, dtype)
    world = sk.forward_kinematics(parents, r, t, s)
    perm = rng.permutation(n)                        # new joint i is old joint perm[i]
    inv = np.argsort(perm)
    moved = np.array([-1 if parents[p] < 0 else inv[parents[p]] for p in perm])
    got = sk.forward_kinematics(moved, r[:, perm], t[:, perm], s[:, perm])
    assert np.array_equal(got, world[:, perm])


SAME_BITS = """
import sys, numpy as np, skinkit as sk
d = np.load(sys.argv[1])
np.save(sys.argv[2], sk.forward_kinematics(d["parents"], d["r"], d["t"], d["s"], threads=1))
"""


@pytest.mark.skipif(_core.simd() != "avx512", reason="the default path is not AVX-512")
@pytest.mark.parametrize("n", [5, 16, 24, 37, 128])
def test_forward_kinematics_avx512_same_bits_as_avx2(tmp_path, n):
    """float32 poses at the AVX-512 level (fk_avx512.c: 16 joints' local matrices at once, a
    joint's 4x4 in one register) get the AVX2 level's bits (fk.c picks one of them by the size
    of a thread's range), roots and partial blocks of 8 and 16 joints included."""
    rng = helpers.rng_for("fk avx512", n)
    parents = helpers.random_tree(rng, n, depth=min(n, 8))
    r, t, s = pose(rng, (60,), n, np.float32)         # under simd.h's 8 MB: the AVX-512 kernel
    np.savez(tmp_path / "in.npz", parents=parents, r=r, t=t, s=s)
    subprocess.run([sys.executable, "-c", SAME_BITS, str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npy")], env=dict(os.environ, SKINKIT_SIMD="avx2"),
                   check=True)
    got = sk.forward_kinematics(parents, r, t, s, threads=1)
    assert np.array_equal(got.view(np.uint32), np.load(tmp_path / "out.npy").view(np.uint32))


@pytest.mark.parametrize("B, offset", [(74_000, 0), (74_000, 4), (74_000, 16), (74_000, 36),
                                       (3_000, 0), (3_000, 36)])
def test_forward_kinematics_large_batch_same_bits_as_small_calls(B, offset):
    """A float32 call whose range holds tens of MB of matrices (B=74,000: 109 MB, over fk_trs.h's
    STREAM_BYTES on each of 2 threads) is written with streaming stores (whole output lines, a
    pose's last part line carried to the next); a few MB (B=3,000: 4.4 MB, over PREFETCH_BYTES)
    prefetches a pose ahead.  Every pose gets the bits of calls of 64 poses, for outputs starting
    anywhere in a cache line, on 1 and 2 threads, and nothing outside the output is written."""
    rng = helpers.rng_for("fk stream", offset)
    n = 23
    parents = helpers.random_tree(rng, n, depth=6)
    r, t, s = pose(rng, (B,), n, np.float32)
    small = np.concatenate([sk.forward_kinematics(parents, r[i:i + 64], t[i:i + 64], s[i:i + 64],
                                                  threads=1) for i in range(0, B, 64)])
    for threads in (1, 2):
        raw = np.full(B * n * 64 + 128, 0xAB, np.uint8)
        start = (-raw.ctypes.data) % 64 + offset
        out = raw[start:start + B * n * 64].view(np.float32).reshape(B, n, 4, 4)
        sk.forward_kinematics(parents, r, t, s, out=out, threads=threads)
        assert np.array_equal(out, small)
        assert (raw[:start] == 0xAB).all() and (raw[start + B * n * 64:] == 0xAB).all()


@pytest.mark.parametrize("n", [0, 1])
def test_forward_kinematics_tiny_skeletons(n):
    rng = helpers.rng_for("tiny", n)
    parents = np.full(n, -1, dtype=np.int32)
    q, t, s = pose(rng, (2,), n, np.float64)
    got = sk.forward_kinematics(parents, q, t, s)
    assert got.shape == (2, n, 4, 4)
    helpers.assert_close(got, ref.forward_kinematics(parents, q, t, s))
    Q, tr = sk.rigid_forward_kinematics(parents, t, q)
    assert Q.shape == (2, n, 4) and tr.shape == (2, n, 3)


@pytest.mark.parametrize("ptype", [list, np.int32, np.int64, np.int16])
def test_forward_kinematics_parent_types(ptype):
    rng, parents = seeded_tree(4, "ptypes")
    r, t, s = pose(rng, (), J, np.float64)
    p = [int(x) for x in parents] if ptype is list else parents.astype(ptype)
    helpers.assert_close(sk.forward_kinematics(p, r, t, s),
                     ref.forward_kinematics(parents, r, t, s), scale=4)


def fk_error(parents, n=None):
    n = len(parents) if n is None else n
    q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    return sk.forward_kinematics(parents, q, np.zeros((n, 3)))


def word(n):
    return rf"(?<![\d.]){n}(?![\d.])"


@pytest.mark.parametrize("parents, joints, what", [
    ([-1, 0, 1, 2, 3, 7, 5, 6], (5, 6, 7), "cycl"),      # 5 -> 7 -> 6 -> 5
    ([6, 0, 1, 2, 3, 4, 5, -1], (0, 1, 2, 3, 4, 5, 6), "cycl"),
    ([-1, 0, 1, 2, 4, 3, 0, 6], (4,), ""),               # self-parent
    ([-1, 0, 1, 8, 3, 4, 0, 6], (3,), ""),               # parent == J
    ([-1, 0, 1, 2, 3, 4, -2, 6], (6,), ""),              # parent < -1
    ([-1, 0, 1, 2, 3, 4, 1000, 6], (6,), ""),
])
def test_forward_kinematics_bad_parents(parents, joints, what):
    for fn in (fk_error,
               lambda p: sk.rigid_forward_kinematics(p, np.zeros((8, 3)),
                                                     np.tile([0.0, 0, 0, 1], (8, 1)))):
        with pytest.raises(ValueError, match=f"(?i){what}") as info:
            fn(np.array(parents, dtype=np.int32))
        msg = str(info.value)
        assert any(re.search(word(j), msg) for j in joints), msg


def test_forward_kinematics_wrong_parents_length():
    # J comes from parents: the message may blame parents or the joint axis of rotations (J=3)
    with pytest.raises(ValueError, match=r"parents|J ?= ?3"):
        fk_error(np.array([-1, 0, 1], dtype=np.int32), n=4)
    with pytest.raises(ValueError, match="parents"):
        fk_error(np.array([[-1, 0], [1, 2]], dtype=np.int32), n=4)


def test_forward_kinematics_float_parents():
    with pytest.raises(TypeError, match="parents"):
        fk_error(np.array([-1.0, 0.0, 1.0]))


def test_forward_kinematics_mismatched_joint_count():
    q = np.tile([0.0, 0.0, 0.0, 1.0], (4, 1))
    with pytest.raises(ValueError):
        sk.forward_kinematics(np.array([-1, 0, 1, 2]), q, np.zeros((3, 3)))


# --------------------------------------------------------------------------- rigid FK


def rigid_inputs(rng, parents, x_batch, q_batch, dtype):
    """Rest positions x (x_batch + (J, 3)) and rotations q (q_batch + (J,)) for ``parents``."""
    J = len(parents)
    return (rng.normal(size=x_batch + (J, 3)).astype(dtype),
            helpers.random_quats(rng, q_batch + (J,), dtype))


def assert_rigid_fk(Q, t, parents, x, q):
    """(Q, t) is the reference rigid FK (libigl's recursion) of x, q; returns the reference."""
    eQ, et = ref.rigid_forward_kinematics(parents, x, q)
    helpers.assert_close(Q, eQ, scale=4)       # Q_i = Q_p q_i exactly, no sign change
    helpers.assert_close(t, et, scale=4)
    return eQ, et


@helpers.each_dtype_and_batch
def test_rigid_forward_kinematics(dtype, batch):
    rng, parents = seeded_tree(5, "rigid", batch)
    assert any(parents[i] > i for i in range(J))
    x, q = rigid_inputs(rng, parents, batch, batch, dtype)
    Q, t = sk.rigid_forward_kinematics(parents, x, q)
    assert Q.dtype == t.dtype == dtype
    assert Q.shape == batch + (J, 4) and t.shape == batch + (J, 3)
    assert_rigid_fk(Q, t, parents, x, q)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rigid_forward_kinematics_chain_and_article_closed_form(dtype):
    """libigl's recursion on a permuted chain of depth 5; the article's closed form agrees only
    for the children of roots, and differs further down (so this test can tell them apart)."""
    rng, parents = seeded_chain("article")
    x, q = rigid_inputs(rng, parents, (), (), dtype)
    Q, t = sk.rigid_forward_kinematics(parents, x, q)
    eQ, _ = assert_rigid_fk(Q, t, parents, x, q)
    article = ref.article_closed_form_translations(parents, x, eQ)
    depth = np.array([helpers.depth_of(parents, i) for i in range(6)])
    helpers.assert_close(t[depth <= 1], article[depth <= 1], scale=4)
    err = np.linalg.norm(t.astype(np.float64) - article, axis=1)
    assert np.all(err[depth >= 2] > 1e-3), err


@pytest.mark.parametrize("dtype", DTYPES)
def test_rigid_forward_kinematics_matches_trs_fk(dtype):
    """Rigid FK = TRS FK with local translations x_i - x_p, composed with T(-x_i)."""
    rng, parents = seeded_tree(5, "rigid-trs")
    x, q = rigid_inputs(rng, parents, (), (), dtype)
    Q, t = sk.rigid_forward_kinematics(parents, x, q)
    local = np.array([x[i] - (x[p] if p >= 0 else 0) for i, p in enumerate(parents)])
    world = ref.forward_kinematics(parents, q, local)
    shift = np.tile(np.eye(4), (J, 1, 1))
    shift[:, :3, 3] = -x
    m = world @ shift
    helpers.assert_close(ref.quat_to_matrix(Q), m[:, :3, :3], dtype=dtype, scale=4)
    helpers.assert_close(t, m[:, :3, 3], scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rigid_forward_kinematics_broadcasts(dtype):
    rng, parents = seeded_tree(4, "rigidb")
    x, q = rigid_inputs(rng, parents, (), (3, 1), dtype)
    x2 = rng.normal(size=(2, J, 3)).astype(dtype)
    Q, t = sk.rigid_forward_kinematics(parents, x, q)
    assert Q.shape == (3, 1, J, 4) and t.shape == (3, 1, J, 3)
    Q, t = sk.rigid_forward_kinematics(parents, x2, q)
    assert Q.shape == (3, 2, J, 4) and t.shape == (3, 2, J, 3)
    assert_rigid_fk(Q, t, parents, x2, q)


# --------------------------------------------------------------------------- matrices


@helpers.each_dtype_and_batch
def test_skinning_matrices(dtype, batch):
    rng = helpers.rng_for("skm", batch)
    w = helpers.random_affine(rng, batch + (J,)).astype(dtype)
    ib = helpers.random_affine(rng, batch + (J,)).astype(dtype)
    helpers.check_kernel(sk.skinning_matrices, ref.skinning_matrices, (w, ib),
                         dtype, batch + (J, 4, 4), scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_skinning_matrices_broadcast(dtype):
    rng = helpers.rng_for("skmb")
    w = helpers.random_affine(rng, (5, J)).astype(dtype)
    ib = helpers.random_affine(rng, (J,)).astype(dtype)
    got = sk.skinning_matrices(w, ib)
    assert got.shape == (5, J, 4, 4)
    helpers.assert_close(got, ref.skinning_matrices(w, ib), scale=4)


def assert_inverts(m, inverse):
    """m @ inverse is the identity, to the tolerance of m's dtype."""
    helpers.assert_close(m.astype(np.float64) @ inverse, np.broadcast_to(np.eye(4), m.shape),
                         dtype=m.dtype, scale=10)


@helpers.each_dtype_and_batch
def test_matrix_inverse(dtype, batch):
    rng = helpers.rng_for("ibm", batch)
    m = helpers.random_affine(rng, batch + (J,))
    m[..., 3, :3] = rng.normal(size=batch + (J, 3)) * 0.1     # general, not only affine
    m = m.astype(dtype)
    got = helpers.check_kernel(sk.matrix_inverse, ref.matrix_inverse, (m,),
                               dtype, batch + (J, 4, 4), scale=10)
    assert_inverts(m, got)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_inverse_tiny_scale_is_not_singular(dtype):
    """A joint scaled down uniformly (det 1e-18 in float64, 1e-9 in float32) is well conditioned:
    no absolute determinant threshold may call it singular."""
    s = 1e-6 if dtype == np.float64 else 1e-3
    m = helpers.random_affine(helpers.rng_for("tinyscale"), (J,))
    m[:, :3, :3] *= s
    m = m.astype(dtype)
    got = sk.matrix_inverse(m)
    assert_inverts(m, got)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_inverse_singular(dtype):
    rng = helpers.rng_for("sing")
    m = helpers.random_affine(rng, (3, 4)).astype(dtype)
    m[2, 1] = np.diag([1.0, 0.0, 1.0, 1.0])             # flat index 2 * 4 + 1 = 9
    m[2, 1, :3, 3] = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="singular") as info:
        sk.matrix_inverse(m)
    assert str(info.value) == "matrices[2, 1] is singular"   # its batch index, as documented
    with pytest.raises(ValueError):
        sk.matrix_inverse(np.zeros((4, 4), dtype))
