"""Synthetic SMPL-family model files of the real sizes and layouts (the real ones are licensed):
random but plausible arrays with the keys, shapes and dtypes of the distributed files."""
from __future__ import annotations

import numpy as np

SMPL_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21]
SIZES = {  # kind: (V, J, shape columns, faces)
    "SMPL": (6890, 24, 10, 13776),
    "SMPL+H": (6890, 52, 16, 13776),
    "SMPL-X": (10475, 55, 400, 20908),
    "MANO": (778, 16, 10, 1538),
}


def parents_for(J, rng):
    """SMPL's tree for 24 joints, else a random tree listed parents first (as the files are)."""
    if J == 24:
        return np.array(SMPL_PARENTS)
    return np.array([-1] + [int(rng.integers(max(0, i - 4), i)) for i in range(1, J)])


def make_arrays(kind="SMPL", seed=0, V=None, S=None, max_influences=None):
    """A model dict as smplx reads it: v_template (V, 3), shapedirs (V, 3, S), posedirs
    (V, 3, 9(J-1)), J_regressor (J, V) with a few dozen vertices per joint (rows sum to 1),
    weights (V, J) with 1..max_influences non-zeros per vertex (4 for SMPL, 8 otherwise),
    kintree_table (2, J) with 2**32 - 1 at the root (as in the files), f (F, 3) uint32."""
    rng = np.random.default_rng(seed)
    V0, J, S0, F = SIZES[kind]
    V, S = V or V0, S or S0
    k_max = max_influences or (4 if kind == "SMPL" else 8)
    v_template = rng.normal(scale=0.3, size=(V, 3))
    shapedirs = rng.normal(scale=0.01, size=(V, 3, S))
    posedirs = rng.normal(scale=0.002, size=(V, 3, 9 * (J - 1)))
    jr = np.zeros((J, V))
    for j in range(J):
        idx = rng.choice(V, size=min(V, 30), replace=False)
        jr[j, idx] = rng.uniform(0.1, 1, idx.size)
        jr[j] /= jr[j].sum()
    weights = np.zeros((V, J))
    for i in range(V):
        k = int(rng.integers(1, k_max + 1))
        weights[i, rng.choice(J, size=min(k, J), replace=False)] = rng.uniform(0.05, 1, min(k, J))
    weights /= weights.sum(axis=1, keepdims=True)
    parents = parents_for(J, rng)
    kintree = np.stack([np.where(parents < 0, 2**32 - 1, parents), np.arange(J)]).astype(np.int64)
    faces = rng.integers(0, V, size=(min(F, 2 * V), 3)).astype(np.uint32)
    return {"v_template": v_template, "shapedirs": shapedirs, "posedirs": posedirs,
            "J_regressor": jr, "weights": weights, "kintree_table": kintree, "f": faces}


def random_params(model, rng, batch=(), scale=0.5):
    """betas, pose, transl, expression (None unless SMPL-X) for ``model``."""
    betas = rng.normal(size=batch + (model.num_betas,))
    pose = rng.normal(scale=scale, size=batch + (model.num_joints, 3))
    transl = rng.normal(size=batch + (3,))
    expr = rng.normal(size=batch + (model.num_expression,)) if model.num_expression else None
    return betas, pose, transl, expr
