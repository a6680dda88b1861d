"""skinkit.fit_body: pose, shape and translation recovered from a body-like model's own vertices
or joints (so the exact answer has zero error), each stage alone, and the argument errors."""
import numpy as np
import pytest

import helpers
import skinkit as sk
from skinkit.body.synthetic import body_like_arrays


@pytest.fixture(scope="module")
def model():
    return sk.BodyModel(body_like_arrays(num_vertices=1500))


def _targets(model, B, seed):
    rng = helpers.rng_for("fit", seed)
    params = (rng.normal(size=(B, 10)), rng.normal(scale=0.3, size=(B, 24, 3)),
              rng.normal(scale=0.5, size=(B, 3)))
    return params, model.forward(*params)


def _vertex_rms(model, fit, target):
    v, _ = model.forward(fit.betas, fit.pose, fit.transl)
    return np.sqrt(((v - target) ** 2).sum(-1).mean(-1))


def test_vertices_fitted_to_a_millimetre(model):
    _, (tv, _) = _targets(model, 3, "vertices")
    fit = sk.fit_body(model, target_vertices=tv, tol=1e-3)
    rms = _vertex_rms(model, fit, tv)
    np.testing.assert_allclose(rms, fit.rms, rtol=1e-9)
    assert rms.max() < 1e-3 and fit.betas.shape == (3, 10) and fit.pose.shape == (3, 24, 3)


def test_joints_fitted_to_a_millimetre(model):
    _, (_, tj) = _targets(model, 2, "joints")
    fit = sk.fit_body(model, target_joints=tj, tol=1e-3)
    _, j = model.forward(fit.betas, fit.pose, fit.transl)
    assert np.sqrt(((j - tj) ** 2).sum(-1).mean(-1)).max() < 1e-3


def test_each_gauss_newton_round_gets_closer_and_lbfgs_alone_converges(model):
    _, (tv, _) = _targets(model, 2, "rounds")
    worst = [sk.fit_body(model, target_vertices=tv, tol=0, gn_rounds=r, max_iter=0).rms.max()
             for r in range(4)]
    assert all(b < a for a, b in zip(worst, worst[1:])), worst
    lb = sk.fit_body(model, target_vertices=tv, tol=2e-2, gn_rounds=0, max_iter=200)
    assert lb.iterations > 0 and lb.rms.max() < 2e-2 < worst[0]


def test_bad_targets_raise_naming_them(model):
    with pytest.raises(ValueError, match="target_joints or target_vertices"):
        sk.fit_body(model)
    with pytest.raises(ValueError, match=r"target_vertices must have shape \(B, 1500, 3\)"):
        sk.fit_body(model, target_vertices=np.zeros((1, 10, 3)))
    with pytest.raises(ValueError, match="same batch size"):
        sk.fit_body(model, target_vertices=np.zeros((1, 1500, 3)),
                    target_joints=np.zeros((2, 24, 3)))
