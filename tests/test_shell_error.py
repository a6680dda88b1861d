"""_core._shell_error_fk (src/shell_error.c), the exact check of skinkit.compress: FK of the joints
of a mask (the others' world matrices read from out=, zero without it) and each one's error on
its three shell vertices, against plain NumPy (tests/reference.py's FK, the vertices transformed
one by one)."""
import numpy as np
import pytest

from skinkit import _core

import reference as ref
from conftest import at_simd_level


def _case(rng, poses, n):
    q = rng.normal(size=(poses, n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return q, rng.normal(size=(poses, n, 3)), rng.uniform(0.5, 2.0, size=(poses, n, 3))


def _shell(world, world_ref, shell):
    """(P, J): the largest distance between the images of the vertices shell e_x, e_y, e_z."""
    err = np.zeros(world.shape[:2])
    for axis in range(3):
        v = np.zeros((world.shape[0], 1, 4, 1))            # the vertex of each pose's shell
        v[:, 0, axis, 0], v[:, 0, 3, 0] = shell, 1.0
        moved = (world @ v - world_ref @ v)[..., :3, 0]
        err = np.maximum(err, np.linalg.norm(moved, axis=-1))
    return err


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_against_numpy(dtype, tol):
    rng = np.random.default_rng(3)
    parents = np.array([-1, 0, 1, 1, 0, 4, -1, 6])         # two roots
    q, t, s = _case(rng, 9, 8)
    exact = ref.forward_kinematics(parents, q, t, s)
    world_ref = exact.copy()
    world_ref[..., :3, :] += rng.normal(scale=1e-3, size=(9, 8, 3, 4))
    shell = rng.uniform(0.01, 0.1, size=9)
    args = [a.astype(dtype) for a in (q, t, s, world_ref, shell)]
    world, err = _core._shell_error_fk(parents, *args, np.ones(8, dtype))
    assert world.dtype == dtype and err.dtype == dtype and err.shape == (9, 8)
    q64, t64, s64, r64, sh64 = (a.astype(np.float64) for a in args)
    want_w = ref.forward_kinematics(parents, q64, t64, s64)
    np.testing.assert_allclose(world, want_w, atol=tol * 10)
    np.testing.assert_allclose(err, _shell(want_w, r64, sh64), rtol=tol * 100, atol=tol)
    assert float(err.max()) > 1e-4                          # the perturbation is seen


def test_mask_computes_a_subtree_in_place():
    """The joints of a mask below kept parents: the full FK's bits (the check of one changed
    track sees what the full check sees); the others' world matrices untouched, error 0."""
    rng = np.random.default_rng(4)
    parents = np.array([-1, 0, 1, 2, 1, 4])
    q, t, s = _case(rng, 7, 6)
    full = _core.forward_kinematics(parents, q, t, s)
    world = full.copy()
    world[:, 1:4] = np.nan                                 # joints 1, 2, 3 recomputed
    world[:, 5] = 7.0                                      # joint 5 kept as it is
    mask = np.array([0, 1, 1, 1, 0, 0.0])
    err = np.full((7, 6), np.nan)
    _core._shell_error_fk(parents, q, t, s, full, np.full(7, 0.03), mask, (world, err))
    assert np.array_equal(world[:, :5], full[:, :5])
    assert np.all(world[:, 5] == 7.0)
    assert np.array_equal(err, np.zeros((7, 6)))



def test_mask_without_out_reads_zero_world_matrices():
    """Without out=, the world matrices the mask leaves out are zero (not whatever memory the
    output got): every call gives the same bits, and the joints below see a zero parent."""
    rng = np.random.default_rng(6)
    parents = np.array([-1, 0, 1])
    q, t, s = _case(rng, 5, 3)
    ref_world = _core.forward_kinematics(parents, q, t, s)
    mask = np.array([0, 1, 1.0])
    calls = [_core._shell_error_fk(parents, q, t, s, ref_world, np.full(5, 0.03), mask)
             for _ in range(3)]
    world, err = calls[0]
    assert np.array_equal(world[:, 0], np.zeros((5, 4, 4)))
    assert np.array_equal(world[:, 1:, :3], np.zeros((5, 2, 3, 4)))   # zero parent: zero below
    assert all(np.array_equal(a, b) for c in calls[1:] for a, b in zip(calls[0], c))
    np.testing.assert_allclose(err[:, 1:], _shell(world, ref_world, 0.03)[:, 1:], rtol=1e-12)


def test_threads_bitwise():
    rng = np.random.default_rng(5)
    parents = np.array([-1, 0, 1, 2, 3, 4, 5, 6])
    q, t, s = _case(rng, 3000, 8)
    world_ref = _core.forward_kinematics(parents, q[::-1], t, s)
    shell, mask = np.full(3000, 0.03), np.ones(8)
    one = _core._shell_error_fk(parents, q, t, s, world_ref, shell, mask, None, 1)
    two = _core._shell_error_fk(parents, q, t, s, world_ref, shell, mask, None, 2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))


LEVELS_SCRIPT = """
import sys, numpy as np
from skinkit import _core
d = np.load(sys.argv[1])
world, err = _core._shell_error_fk(d["parents"], d["q"], d["t"], d["s"], d["ref"], d["shell"],
                                   d["mask"], (d["world"].copy(), np.zeros(d["shell"].shape + (6,))))
np.savez(sys.argv[2], world=world, err=err, simd=_core.simd())
"""


@pytest.mark.parametrize("cap", ["baseline", "avx2"])
def test_float64_bits_at_every_simd_level(tmp_path, cap):
    """The float64 check four poses at a time (shell_error_avx2.c, at the AVX2 and AVX-512
    levels) gives the portable code's bits: 11 poses (a partial group of 4), a mask below kept
    parents, signed zeros and a NaN among the inputs (the error of a joint whose matrix it
    reaches NaN, which the checks count as above any limit)."""
    rng = np.random.default_rng(8)
    parents = np.array([-1, 0, 1, 2, 1, 4])
    q, t, s = _case(rng, 11, 6)
    s[0, 2], t[1, 3], q[2, 1] = -0.0, np.nan, [0, 0, 0, 1]
    full = _core.forward_kinematics(parents, q, t, s)
    d = {"parents": parents, "q": q, "t": t, "s": s, "shell": rng.uniform(0.01, 0.1, 11),
         "ref": full + rng.normal(scale=1e-3, size=full.shape), "world": full,
         "mask": np.array([0, 1, 1, 1, 0, 1.0])}
    got = at_simd_level(LEVELS_SCRIPT, d, cap, tmp_path)
    assert str(got["simd"]) == cap or cap == "avx2" and str(got["simd"]) == "baseline"
    world, err = _core._shell_error_fk(parents, q, t, s, d["ref"], d["shell"], d["mask"],
                                       (full.copy(), np.zeros((11, 6))))
    assert np.array_equal(world.view(np.uint64), got["world"].view(np.uint64))
    assert np.array_equal(err.view(np.uint64), got["err"].view(np.uint64))
    assert float(np.nanmax(err)) > 1e-4 and np.isnan(world).any()  # errors seen, the NaN kept
    assert np.array_equal(np.isnan(err), np.isnan(world).any(axis=(2, 3)))  # its errors NaN


def test_bad_parents_named():
    with pytest.raises(ValueError, match="parents"):
        _core._shell_error_fk(np.array([-1, 5]), np.tile([0, 0, 0, 1.0], (2, 1)),
                              np.zeros((2, 3)), np.ones((2, 3)), np.zeros((2, 4, 4)), 0.03,
                              np.ones(2))


def _check_args(rng, poses=13):
    """A tree of 6 joints in depth-first preorder (joint 1's subtree is 1..3) at ``poses``
    poses, the reference perturbed more at some poses than at others."""
    parents = np.array([-1, 0, 1, 1, 0, 4], np.int32)
    q, t, s = _case(rng, poses, 6)
    full = _core.forward_kinematics(parents, q, t, s)
    ref_world = full.copy()
    ref_world[..., :3, 3] += rng.uniform(0, 1e-2, size=(poses, 1, 1)) * rng.normal(
        size=(poses, 6, 3))
    return parents, q, t, s, ref_world, np.full(poses, 0.03), full


def test_shell_check_is_the_masked_check_of_a_subtree():
    """All rows from a start, round: the bits of _shell_error_fk with the subtree's mask, in
    world and errors; the other joints untouched."""
    rng = np.random.default_rng(11)
    parents, q, t, s, ref_world, shells, full = _check_args(rng)
    mask = np.array([0, 1, 1, 1, 0, 0.0])
    want_w, want_e = _core._shell_error_fk(parents, q, t, s, ref_world, shells, mask,
                                           (full.copy(), np.zeros((13, 6))))
    world, err = full.copy(), np.full((13, 6), -1.0)
    start, done, above = _core.shell_check(parents, np.arange(1, 4, dtype=np.int32), q, t, s,
                                           ref_world, shells, world, err, 5, 13, 0.0)
    assert (start, done, above) == (5, 13, False)
    assert np.array_equal(world.view(np.uint64), want_w.view(np.uint64))
    assert np.array_equal(err[:, 1:4], want_e[:, 1:4]) and np.all(err[:, [0, 4, 5]] == -1)


def test_shell_check_stops_after_the_first_group_above_its_limit():
    """From the row where the joints' errors are largest (start -1), round: it stops within a
    group (4 rows with AVX2) of the first row above the limit; the rows after are untouched."""
    rng = np.random.default_rng(12)
    parents, q, t, s, ref_world, shells, full = _check_args(rng)
    order = np.arange(6, dtype=np.int32)
    err = _shell(full, ref_world, 0.03)
    worst = int(err.max(axis=1).argmax())
    rows = (worst + np.arange(13)) % 13
    limit = float(np.sort(err.max(axis=1))[6])         # rows above it, and rows below it
    first = int(np.flatnonzero(err.max(axis=1)[rows] > limit)[0])
    world, got = np.full_like(full, np.nan), np.full((13, 6), np.nan)
    last = np.zeros((13, 6))
    last[worst] = 1.0              # the errors it reads to find its start: the worst row's
    got[:] = last
    start, done, above = _core.shell_check(parents, order, q, t, s, ref_world, shells, world,
                                           got, -1, 13, limit)
    assert start == worst and above and first < done <= first + 4
    np.testing.assert_allclose(got[rows[:done]], err[rows[:done]], rtol=1e-9, atol=1e-15)
    assert np.all(np.isnan(world[rows[done:]])) and np.all(got[rows[done:]] == last[rows[done:]])
    # above every error: all rows, none above
    start, done, above = _core.shell_check(parents, order, q, t, s, ref_world, shells, world,
                                           got, 0, 13, float(err.max()) * 2)
    assert (start, done, above) == (0, 13, False)


def test_shell_check_refuses_bad_arguments():
    rng = np.random.default_rng(13)
    parents, q, t, s, ref_world, shells, full = _check_args(rng, 4)
    order = np.arange(6, dtype=np.int32)
    err = np.zeros((4, 6))
    with pytest.raises(ValueError, match="order"):
        _core.shell_check(parents, np.array([0, 6], np.int32), q, t, s, ref_world, shells,
                          full, err, 0, 4, 0.0)
    with pytest.raises(ValueError, match="start"):
        _core.shell_check(parents, order, q, t, s, ref_world, shells, full, err, 4, 4, 0.0)
    with pytest.raises(ValueError, match="errors"):
        _core.shell_check(parents, order, q, t, s, ref_world, shells, full, err[:3], 0, 4, 0.0)
    with pytest.raises(TypeError, match="world"):
        _core.shell_check(parents, order, q, t, s, ref_world, shells, full.astype(np.float32),
                          err, 0, 4, 0.0)


def test_subtree_reach_against_numpy():
    """Each joint's reach (the farthest shell vertex of its subtree) and its parent's largest
    axis scale: plain NumPy over every (joint, descendant) pair, the same bits."""
    rng = np.random.default_rng(14)
    parents = np.array([-1, 0, 1, 1, 0, 4, -1, 6], np.int32)       # preorder, two roots
    size = np.array([6, 3, 1, 1, 2, 1, 2, 1], np.int64)
    q, t, s = _case(rng, 5, 8)
    world = _core.forward_kinematics(parents, q, t, s)
    reach, scale = _core.subtree_reach(parents, size, world, 0.03)
    axis = np.sqrt((world[..., 0, :3] ** 2 + world[..., 1, :3] ** 2) + world[..., 2, :3] ** 2
                   ).max(axis=-1)                                   # (5, 8)
    want = np.zeros((5, 8))
    for j in range(8):
        for i in range(j, j + size[j]):
            d = world[:, i, :3, 3] - world[:, j, :3, 3]
            dist = np.sqrt((d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2])
            want[:, j] = np.maximum(want[:, j], dist + 0.03 * axis[:, i])
    assert np.array_equal(reach, want)
    assert np.array_equal(scale, np.where(parents >= 0, axis[:, np.maximum(parents, 0)], 1.0))
    assert float(axis.max()) > 2.0 and float(reach.max()) > 0.5    # scales, distances seen
    with pytest.raises(ValueError, match="preorder"):
        _core.subtree_reach(parents[::-1].copy(), size, world, 0.03)


def test_shell_refine_is_shell_check_try_by_try():
    """shell_refine's tries: each track's values written into its joint's column, its subtree
    checked, refused ones written back and their rows computed again -- the bits of the same
    steps through shell_check, stopping at the first kept try (or a refused one marked last)."""
    rng = np.random.default_rng(15)
    parents, q, t, s, ref_world, shells, full = _check_args(rng)
    order = np.arange(6, dtype=np.int32)
    base = [t.copy(), q.copy(), s.copy()]

    def state():
        world, err = full.copy(), np.zeros((13, 6))
        _core.shell_check(parents, order, base[1].copy(), base[0].copy(), base[2].copy(),
                          ref_world, shells, world, err, 0, 13, 0.0)
        return [a.copy() for a in base], world, err

    limit = 1.01 * float(state()[2].max())       # the pose as it is: within the limit

    near = q[:, 2] + 1e-6                      # joint 2: a rotation nearly the same (kept)
    far = np.tile([0.0, 0.0, 1.0, 0.0], (13, 1))       # a rotation far off (refused)
    tries = [(1, 4, 6, far[:, :], q[:, 4].copy(), False),       # joint 4's subtree: 4, 5
             (0, 1, 4, np.array([5.0, 0.0, 0.0]), t[:, 1].copy(), False),
             (1, 2, 3, near / np.linalg.norm(near, axis=-1, keepdims=True), q[:, 2].copy(),
              False)]
    local, world, err = state()
    got = _core.shell_refine(parents, order, local[1], local[0], local[2], ref_world, shells,
                             world, err, limit, tries)
    want_local, want_world, want_err = state()
    for n, (k, a, b, new, kept, _) in enumerate(tries):
        want_local[k][:, a] = new
        start, done, above = _core.shell_check(parents, order[a:b], want_local[1],
                                               want_local[0], want_local[2], ref_world,
                                               shells, want_world, want_err, -1, 13, limit)
        if above:
            want_local[k][:, a] = kept
            _core.shell_check(parents, order[a:b], want_local[1], want_local[0],
                              want_local[2], ref_world, shells, want_world, want_err, start,
                              done, 0.0)
        else:
            assert got == (n, True)
            break
    else:
        assert got == (len(tries), False)
    assert got == (2, True)                   # the two far ones refused, the near one kept
    for x, y in zip(local + [world, err], want_local + [want_world, want_err]):
        assert np.array_equal(x.view(np.uint64), y.view(np.uint64))
    # a refused try marked last stops there
    local, world, err = state()
    assert _core.shell_refine(parents, order, local[1], local[0], local[2], ref_world, shells,
                              world, err, limit, [tries[0][:5] + (True,)] + tries[1:]) == (0,
                                                                                         False)
    with pytest.raises(ValueError, match="try 0"):
        _core.shell_refine(parents, order, local[1], local[0], local[2], ref_world, shells,
                           world, err, limit, [(1, 4, 7, far, far, False)])
