"""6D rotations (Zhou et al. 2019) against SciPy's rotations and HumanML3D's stored 6D values."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from conftest import shared_file
import skinkit


def test_round_trip_of_rotations():
    m = Rotation.random(500, random_state=1).as_matrix()
    six = skinkit.matrix_to_6d(m)
    np.testing.assert_array_equal(six[:, :3], m[:, :, 0])
    np.testing.assert_array_equal(six[:, 3:], m[:, :, 1])
    np.testing.assert_allclose(skinkit.matrix_from_6d(six), m, atol=1e-14)


def test_any_6d_gives_a_rotation_by_gram_schmidt():
    d = np.random.default_rng(2).normal(size=(4, 50, 6))
    m = skinkit.matrix_from_6d(d)
    assert m.shape == (4, 50, 3, 3)
    np.testing.assert_allclose(m @ np.swapaxes(m, -1, -2), np.broadcast_to(np.eye(3), m.shape),
                               atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(m), 1.0, atol=1e-14)
    a1 = d[..., :3] / np.linalg.norm(d[..., :3], axis=-1, keepdims=True)
    np.testing.assert_allclose(m[..., :, 0], a1, atol=1e-15)      # first column: a1 normalized
    # the second column lies in the plane of a1 and a2, on a2's side
    a2 = d[..., 3:]
    off_plane = np.einsum("...i,...i", m[..., :, 1], np.cross(a1, a2))
    np.testing.assert_allclose(off_plane, 0.0, atol=1e-13)
    assert (np.einsum("...i,...i", m[..., :, 1], a2) > 0).all()


def test_humanml3d_stored_6d_are_rotation_columns(shared):
    """HumanML3D's stored bone rotations (float32) are two orthonormal columns."""
    f = np.load(shared_file(shared, "humanml3d/HumanML3D/new_joint_vecs/012314.npy"))
    six = f[:, 67:193].reshape(-1, 21, 6).astype(np.float64)
    np.testing.assert_allclose(skinkit.matrix_to_6d(skinkit.matrix_from_6d(six)), six, atol=2e-6)


def test_bad_shapes():
    with pytest.raises(ValueError, match=r"matrices: expected shape \(\.\.\., 3, 3\)"):
        skinkit.matrix_to_6d(np.eye(4))
    with pytest.raises(ValueError, match=r"six: expected shape \(\.\.\., 6\)"):
        skinkit.matrix_from_6d(np.zeros(5))
