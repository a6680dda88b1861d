"""Deprecated names (issue 8): they warn, name their replacement, and give its results, until 0.3."""
import importlib

import numpy as np
import pytest

import skinkit as sk
import helpers


@pytest.mark.parametrize("old, new, arg", [
    ("quat_from_axis_angle", "quat_from_rotvec", np.array([[0.3, -0.2, 0.9], [0.0, 0.0, 0.0]])),
    ("inverse_bind_matrices", "matrix_inverse",
     helpers.random_affine(helpers.rng_for("deprecated"), (2, 3))),
])
def test_deprecated_alias_warns_and_matches(old, new, arg):
    with pytest.warns(DeprecationWarning,
                      match=rf"skinkit\.{old} is deprecated .* use skinkit\.kernels\.{new}$"):
        got = getattr(sk, old)(arg)
    np.testing.assert_array_equal(got, getattr(sk, new)(arg))
    assert old not in sk.__all__ and new in sk.__all__


def test_skin_matrices_is_now_skinning_matrices():
    pose_module = importlib.import_module("skinkit.model.pose")
    m = sk.default_model()
    world = sk.world_matrices(m, 0, [0.0, 0.5])
    with pytest.warns(DeprecationWarning, match=r"skinkit\.pose\.skin_matrices is deprecated"):
        old = pose_module.skin_matrices(m, world)
    new = pose_module.skinning_matrices(m, world)
    assert old.keys() == new.keys() == {0}
    np.testing.assert_array_equal(old[0], new[0])
