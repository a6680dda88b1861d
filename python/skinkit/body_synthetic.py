"""Synthetic SMPL-family models: random arrays with the real sizes, keys and layouts of the model
files (which are licensed and cannot be shipped), for examples, tests and benchmarks."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

import numpy as np
from numpy.typing import DTypeLike, NDArray

if TYPE_CHECKING:
    from .body import BodyModel

SMPL_PARENTS = (-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21)
FLAME_PARENTS = (-1, 0, 1, 1, 1)   # global, neck, jaw, left eye, right eye
SIZES = {  # kind: (vertices, joints, shape columns, faces) of the distributed files
    "SMPL": (6890, 24, 10, 13776),
    "SMPL+H": (6890, 52, 16, 13776),
    "SMPL-X": (10475, 55, 400, 20908),
    "MANO": (778, 16, 10, 1538),
    "FLAME": (5023, 5, 400, 9976),
}


def synthetic_body_arrays(kind: str = "SMPL", seed: int = 0, num_vertices: Optional[int] = None,
                          shape_columns: Optional[int] = None,
                          max_influences: Optional[int] = None) -> Dict[str, NDArray[Any]]:
    """A model file's arrays, random but shaped like the real ones.

    Parameters
    ----------
    kind : "SMPL", "SMPL+H", "SMPL-X", "MANO" or "FLAME" (the joint count and default sizes).
    seed : int, for numpy.random.default_rng.
    num_vertices, shape_columns : override the real V and S (e.g. a small model for a test).
    max_influences : at most this many joints per vertex (default 4 for SMPL, else 8).

    Returns
    -------
    dict with the keys smplx reads: v_template (V, 3), shapedirs (V, 3, S), posedirs
    (V, 3, 9 (J - 1)), J_regressor (J, V) averaging 30 vertices per joint, weights (V, J)
    summing to 1 with 1..max_influences non-zeros per row, kintree_table (2, J) with
    2**32 - 1 at the root as in the files (SMPL's and FLAME's real trees, else a random
    tree listed parents first), f (F, 3) uint32; and for SMPL-X the optional keys a real file
    has (static and dynamic landmarks, hand PCA), so that smplx.SMPLX can read it too.
    """
    if kind not in SIZES:
        raise ValueError(f"kind must be one of {', '.join(SIZES)}, got {kind!r}")
    rng = np.random.default_rng(seed)
    V, J, S, F = SIZES[kind]
    V, S = num_vertices or V, shape_columns or S
    k_max = min(max_influences or (4 if kind == "SMPL" else 8), J)
    trees = {"SMPL": SMPL_PARENTS, "FLAME": FLAME_PARENTS}
    parents = np.array(trees[kind]) if kind in trees else np.array(
        [-1] + [int(rng.integers(max(0, i - 4), i)) for i in range(1, J)])
    jr = np.zeros((J, V))
    for j in range(J):
        idx = rng.choice(V, size=min(V, 30), replace=False)
        jr[j, idx] = rng.uniform(0.1, 1, idx.size)
    jr /= jr.sum(axis=1, keepdims=True)
    weights = np.zeros((V, J))
    cols = np.argsort(rng.random((V, J)), axis=1)[:, :k_max]       # distinct joints per row
    used = np.arange(k_max) < rng.integers(1, k_max + 1, size=(V, 1))
    np.put_along_axis(weights, cols, np.where(used, rng.uniform(0.05, 1, cols.shape), 0), axis=1)
    weights /= weights.sum(axis=1, keepdims=True)
    a: Dict[str, NDArray[Any]]
    a = {"v_template": rng.uniform(-0.5, 0.5, (V, 3)) * [0.8, 1.7, 0.3],
         "shapedirs": 0.02 * (rng.random((V, 3, S)) - 0.5),       # uniform: quick at real sizes
         "posedirs": 0.004 * (rng.random((V, 3, 9 * (J - 1))) - 0.5),
         "J_regressor": jr, "weights": weights,
         "kintree_table": np.stack([np.where(parents < 0, 2**32 - 1, parents),
                                    np.arange(J)]).astype(np.int64),
         "f": rng.integers(0, V, size=(min(F, 2 * V), 3)).astype(np.uint32)}
    if kind == "SMPL-X":
        nf = len(a["f"])
        a.update(lmk_faces_idx=rng.integers(0, nf, 51), lmk_bary_coords=np.full((51, 3), 1 / 3),
                 dynamic_lmk_faces_idx=rng.integers(0, nf, (79, 17)),
                 dynamic_lmk_bary_coords=np.full((79, 17, 3), 1 / 3),
                 hands_componentsl=np.eye(45), hands_componentsr=np.eye(45),
                 hands_meanl=np.zeros(45), hands_meanr=np.zeros(45))
    return a


def synthetic_body_model(kind: str = "SMPL", seed: int = 0, dtype: DTypeLike = np.float64,
                         **sizes: Optional[int]) -> BodyModel:
    """``BodyModel(synthetic_body_arrays(kind, seed, **sizes), dtype)``: a model to try the API
    on without the licensed files (its shapes are random, not human)."""
    from .body import BodyModel
    return BodyModel(synthetic_body_arrays(kind, seed, **sizes), dtype=dtype,
                     source=f"<synthetic {kind}>")
