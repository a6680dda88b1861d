"""Body models for the tests: skinkit's synthetic arrays (real sizes and layouts), and random
parameters."""
from __future__ import annotations


from skinkit.body.synthetic import SIZES, synthetic_body_arrays

__all__ = ["SIZES", "make_arrays", "random_params"]


def make_arrays(kind="SMPL", seed=0, V=None, S=None):
    """synthetic_body_arrays with short names for the size overrides."""
    return synthetic_body_arrays(kind, seed, num_vertices=V, shape_columns=S)


def random_params(model, rng, batch=(), scale=0.5):
    """betas, pose, transl, expression (None unless SMPL-X) for ``model``."""
    betas = rng.normal(size=batch + (model.num_betas,))
    pose = rng.normal(scale=scale, size=batch + (model.num_joints, 3))
    transl = rng.normal(size=batch + (3,))
    expr = rng.normal(size=batch + (model.num_expression,)) if model.num_expression else None
    return betas, pose, transl, expr
