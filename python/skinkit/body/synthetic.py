"""Synthetic SMPL-family models: random arrays with the real sizes, keys and layouts of the model
files (which are licensed and cannot be shipped), for examples, tests and benchmarks."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

import numpy as np
from numpy.typing import DTypeLike, NDArray

if TYPE_CHECKING:
    from .body_model import BodyModel

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
    from .body_model import BodyModel
    return BodyModel(synthetic_body_arrays(kind, seed, **sizes), dtype=dtype,
                     source=f"<synthetic {kind}>")


# a T-pose human's SMPL joints (metres, +Y up, +Z forward), for body_like_arrays
_BODY_JOINTS = np.array([
    [0, .90, 0], [.09, .82, 0], [-.09, .82, 0], [0, 1.0, 0], [.1, .48, 0], [-.1, .48, 0],
    [0, 1.12, 0], [.1, .08, 0], [-.1, .08, 0], [0, 1.25, 0], [.1, .02, .12], [-.1, .02, .12],
    [0, 1.5, 0], [.07, 1.42, 0], [-.07, 1.42, 0], [0, 1.62, 0], [.18, 1.42, 0],
    [-.18, 1.42, 0], [.45, 1.42, 0], [-.45, 1.42, 0], [.7, 1.42, 0], [-.7, 1.42, 0],
    [.8, 1.42, 0], [-.8, 1.42, 0]])
_LEAF_TIPS = {10: (0, 0, .08), 11: (0, 0, .08), 15: (0, .18, 0), 22: (.08, 0, 0),
              23: (-.08, 0, 0)}


def body_like_arrays(seed: int = 0, num_vertices: int = 6890, sigma: float = 0.04
                     ) -> Dict[str, NDArray[Any]]:
    """An SMPL-layout model with a body's part structure (for fitting benchmarks and tests):
    SMPL's tree on a T-posed stick figure (1.7 m), vertices on capsules around the bones, each
    skinned to the bones near it (weights ``exp(-(d / sigma)^2)`` of the distance to each bone,
    the 4 largest kept and normalised), joints regressed from the 30 vertices nearest each
    joint, 10 smooth shape directions (height, girth, then random affine fields) and small
    pose correctives.  Keys and layouts as ``synthetic_body_arrays``."""
    rng = np.random.default_rng(seed)
    x, parents = _BODY_JOINTS, np.array(SMPL_PARENTS)
    segs = [(p, x[p], x[j]) for j, p in enumerate(parents) if p >= 0]
    segs += [(j, x[j], x[j] + np.array(tip)) for j, tip in _LEAF_TIPS.items()]
    owner = np.array([s[0] for s in segs])
    a, b = np.array([s[1] for s in segs]), np.array([s[2] for s in segs])
    length = np.linalg.norm(b - a, axis=1)
    radius = np.clip(0.35 * length, 0.03, 0.12)
    k = rng.choice(len(segs), size=num_vertices, p=length / length.sum())
    t = rng.random(num_vertices)
    axis = (b - a)[k] / length[k, None]
    ortho = np.cross(axis, rng.normal(size=(num_vertices, 3)))
    ortho /= np.linalg.norm(ortho, axis=1, keepdims=True)
    v = a[k] + t[:, None] * (b - a)[k] + radius[k, None] * ortho
    # distance of every vertex to every bone segment, the bone's weight its nearest segment's
    ab = b - a
    s = np.clip(np.einsum("vsc,sc->vs", v[:, None] - a[None], ab) / (length ** 2), 0, 1)
    d = np.linalg.norm(v[:, None] - (a[None] + s[..., None] * ab[None]), axis=2) - radius
    bone = np.zeros((num_vertices, len(parents)))
    np.maximum.at(bone.T, owner, np.exp(-(np.maximum(d, 0) / sigma) ** 2).T)
    bone[np.arange(num_vertices), owner[k]] = np.maximum(bone[np.arange(num_vertices), owner[k]],
                                                         1.0)
    top = np.argsort(-bone, axis=1)[:, :4]
    w = np.zeros_like(bone)
    np.put_along_axis(w, top, np.take_along_axis(bone, top, axis=1), axis=1)
    w /= w.sum(axis=1, keepdims=True)
    jr = np.zeros((len(parents), num_vertices))
    near = np.argsort(np.linalg.norm(v[None] - x[:, None], axis=2), axis=1)[:, :30]
    np.put_along_axis(jr, near, 1 / 30, axis=1)
    centre = v - x[0]
    radial = v - (a[k] + t[:, None] * ab[k])
    dirs = [0.1 * centre, 0.3 * radial] + [        # height, girth, then per-part offsets
        0.02 * w @ rng.normal(size=(len(parents), 3)) for _ in range(8)]
    return {"v_template": v, "shapedirs": np.stack(dirs, axis=2),
            "posedirs": 0.002 * (rng.random((num_vertices, 3, 207)) - 0.5),
            "J_regressor": jr, "weights": w,
            "kintree_table": np.stack([np.where(parents < 0, 2**32 - 1, parents),
                                       np.arange(len(parents))]).astype(np.int64),
            "f": rng.integers(0, num_vertices, size=(2 * num_vertices, 3)).astype(np.uint32)}


def humanoid_smplh_arrays(seed: int = 0, num_vertices: int = 600) -> Dict[str, NDArray[Any]]:
    """SMPL+H arrays whose skeleton is a person's, for motions to retarget as a person's do
    (examples, tests): ``synthetic_body_arrays("SMPL+H")`` with SMPL+H's joint tree (SMPL's
    22 body joints, then five 3-joint fingers per hand, left 22..36, right 37..51), the body
    joints where ``skinkit.model.humanoid``'s SMPL T pose has them and the fingers fanned out from
    the wrists; the joint regressor picks vertices 0..51, placed on the joints, and the other
    vertices are scattered (3 cm) around the joints.  Keys and layouts as
    ``synthetic_body_arrays``."""
    from ..model.humanoid import humanoid_model
    from ..model.joint_names import SMPLH_JOINT_NAMES

    arrays = synthetic_body_arrays("SMPL+H", seed, num_vertices=num_vertices)
    parents = list(SMPL_PARENTS[:22])
    for wrist in (20, 21):
        for _ in range(5):
            parents += [wrist, len(parents), len(parents) + 1]
    human = humanoid_model("smpl", "T")
    rest = human.world_matrices()[0, :, :3, 3]
    joints = np.zeros((52, 3))
    joints[:22] = rest[[human.skeleton.names.index(n) for n in SMPLH_JOINT_NAMES[:22]]]
    for j in range(22, 52):
        finger = (j - 22) % 15 // 3
        joints[j] = joints[parents[j]] + [0.03 if j < 37 else -0.03, 0.0, 0.02 * (finger - 2)]
    arrays["kintree_table"][0] = np.where(np.array(parents) < 0, 2**32 - 1, parents)
    arrays["J_regressor"] = np.eye(52, num_vertices)
    arrays["v_template"][:52] = joints
    arrays["v_template"][52:] = joints[np.arange(52, num_vertices) % 52] + \
        np.random.default_rng(seed).normal(scale=0.03, size=(num_vertices - 52, 3))
    return arrays
