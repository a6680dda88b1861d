"""_core._shell_error_fk (src/shell_error.c), the exact check of skinkit.compress: FK below given
parent transforms and each joint's error on its three shell vertices, against plain NumPy
(tests/reference.py's FK, the vertices transformed one by one)."""
import numpy as np
import pytest

from skinkit import _core

import reference as ref


def _case(rng, poses, parents):
    n = parents.size
    q = rng.normal(size=(poses, n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    t = rng.normal(size=(poses, n, 3))
    s = rng.uniform(0.5, 2.0, size=(poses, n, 3))
    pq = rng.normal(size=(poses, 4))
    parent = ref.forward_kinematics(np.array([-1]), (pq / np.linalg.norm(pq, axis=-1,
                                                                           keepdims=True))[:, None],
                                    rng.normal(size=(poses, 1, 3)),
                                    rng.uniform(0.5, 2.0, size=(poses, 1, 3)))[:, 0]
    return parent, q, t, s


def _reference(parents, parent, q, t, s, world_ref, shell):
    local = ref.forward_kinematics(np.full(parents.size, -1), q, t, s)     # each joint alone
    world = np.empty_like(local)
    for j in range(parents.size):                  # parents come first in these forests
        world[:, j] = (parent if parents[j] < 0 else world[:, parents[j]]) @ local[:, j]
    err = np.zeros(world.shape[:2])
    for axis in range(3):
        v = np.zeros((world.shape[0], 1, 4, 1))            # the vertex of each pose's shell
        v[:, 0, axis, 0], v[:, 0, 3, 0] = shell, 1.0
        moved = (world @ v - world_ref @ v)[..., :3, 0]
        err = np.maximum(err, np.linalg.norm(moved, axis=-1))
    return world, err


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_against_numpy(dtype, tol):
    rng = np.random.default_rng(3)
    parents = np.array([-1, 0, 1, 1, 0, 4, -1, 6])         # two roots below parent_world
    parent, q, t, s = _case(rng, 9, parents)
    exact, _ = _reference(parents, parent, q, t, s, np.zeros((9, 8, 4, 4)), 0.0)
    world_ref = exact + rng.normal(scale=1e-3, size=exact.shape) * np.array([1, 1, 1, 0])[:, None]
    world_ref[..., 3, :] = exact[..., 3, :]
    shell = rng.uniform(0.01, 0.1, size=9)
    args = [a.astype(dtype) for a in (parent, q, t, s, world_ref, shell)]
    world, err = _core._shell_error_fk(parents, *args)
    assert world.dtype == dtype and err.dtype == dtype and err.shape == (9, 8)
    want_w, want_e = _reference(parents, *(a.astype(np.float64) for a in args[:5]),
                                shell.astype(dtype).astype(np.float64))
    np.testing.assert_allclose(world, want_w, atol=tol * 10)
    np.testing.assert_allclose(err, want_e, rtol=tol * 100, atol=tol)
    assert float(err.max()) > 1e-4                          # the perturbation is seen


def test_equals_full_fk_of_the_subtree():
    """A subtree below its parent's world matrices: the full FK's bits (the check of one
    changed track sees what the full check sees)."""
    rng = np.random.default_rng(4)
    parents = np.array([-1, 0, 1, 2, 1, 4])
    _, q, t, s = _case(rng, 7, parents)
    full = _core.forward_kinematics(parents, q, t, s)
    sub = np.array([-1, 0, 1])                             # joints 1, 2, 3 below joint 0
    world, err = _core._shell_error_fk(sub, full[:, 0], q[:, 1:4], t[:, 1:4], s[:, 1:4],
                                       full[:, 1:4], np.full(7, 0.03))
    assert np.array_equal(world, full[:, 1:4])
    assert np.array_equal(err, np.zeros((7, 3)))


def test_threads_bitwise():
    rng = np.random.default_rng(5)
    parents = np.array([-1, 0, 1, 2, 3, 4, 5, 6])
    parent, q, t, s = _case(rng, 3000, parents)
    world_ref = _core.forward_kinematics(parents, q[::-1], t, s)
    shell = np.full(3000, 0.03)
    one = _core._shell_error_fk(parents, parent, q, t, s, world_ref, shell, None, 1)
    two = _core._shell_error_fk(parents, parent, q, t, s, world_ref, shell, None, 2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))


def test_bad_parents_named():
    with pytest.raises(ValueError, match="parents"):
        _core._shell_error_fk(np.array([-1, 5]), np.eye(4), np.tile([0, 0, 0, 1.0], (2, 1)),
                              np.zeros((2, 3)), np.ones((2, 3)), np.zeros((2, 4, 4)), 0.03)
