"""SMPL-family bodies as a skinned Model, and their motions as clips, for write_gltf: the
template mesh with the shape baked into the rest pose and the joints, skinned by the model's
weights; one clip per motion.  The pose-corrective blend shapes (posedirs, linear in the
entries of R_j - I: Loper et al. 2015, "SMPL", eq. 9) can ride along exactly as morph targets,
one per entry, with the entries as the clip's morph weights."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kernels import wrappers as kernels
from ..model.clip import Channel, Clip
from ..model.joint_names import SMPL_JOINT_NAMES, SMPLH_JOINT_NAMES, SMPLX_JOINT_NAMES
from ..model.model import Model
from ..model.records import Primitive, Skeleton, Skin

if TYPE_CHECKING:
    from .body_model import BodyModel

__all__ = ["body_model_to_model", "body_clip", "body_skeleton"]

_NAMES = {24: SMPL_JOINT_NAMES, 52: SMPLH_JOINT_NAMES, 55: SMPLX_JOINT_NAMES}


def _shaped(body: BodyModel, betas: Optional[ArrayLike]) -> NDArray[np.float64]:
    b = np.zeros(body.num_betas) if betas is None else np.asarray(betas, np.float64).reshape(-1)
    if b.size > body.num_betas:
        raise ValueError(f"betas must have at most {body.num_betas} values for this "
                         f"{body.kind} model, got {b.size}")
    sd = np.asarray(body.shapedirs[..., :b.size], np.float64)   # (the columns used only)
    return np.asarray(body.v_template, np.float64) + sd @ b


def _skeleton(body: BodyModel, joints: NDArray[np.float64],
              names: Optional[Sequence[str]] = None) -> Skeleton:
    """The skeleton of ``body`` with its rest joints at ``joints`` (J, 3): offsets from the
    parent, identity rotations, unit scales."""
    J = body.num_joints
    parents = np.asarray(body.parents, np.int32)
    local = joints - np.where(parents[:, None] >= 0, joints[np.maximum(parents, 0)], 0.0)
    names = list(names) if names is not None else list(_NAMES.get(J, [f"joint{j}" for j in range(J)]))
    return Skeleton(names=names, parents=parents, translations=local,
                    rotations=np.tile([0.0, 0.0, 0.0, 1.0], (J, 1)), scales=np.ones((J, 3)))


def body_skeleton(body: BodyModel, betas: Optional[ArrayLike] = None) -> Skeleton:
    """The skeleton of ``body_model_to_model(body, betas)`` (float64), without its mesh: the
    rest pose that ``body_clip``'s clips animate (its root translation the shaped rest root,
    metres)."""
    x = np.asarray(body.J_regressor, np.float64) @ _shaped(body, betas)
    return _skeleton(body, x)


def body_model_to_model(body: BodyModel, betas: Optional[ArrayLike] = None,
                        correctives: bool = False,
                        names: Optional[Sequence[str]] = None) -> Model:
    """A skinned Model of ``body`` with shape ``betas`` (float64).

    Parameters
    ----------
    body : BodyModel
    betas : (S,) or None
        Shape coefficients baked into the rest mesh and the joints (None: the template).
    correctives : bool
        Add the pose-corrective blend shapes as 9 (J - 1) morph targets (``body_clip`` with
        ``correctives=True`` animates their weights).
    names : J joint names, default SMPL/SMPL+H/SMPL-X's (``skinkit.model.joint_names``) by the joint
        count, else ``joint0``...

    Returns
    -------
    Model
        Nodes = the J joints (rest translations: joint offsets from the parent, identity
        rotations), one skin (inverse bind matrices: translations by -joint), one primitive on
        node 0 with the shaped template, faces, and the model's nonzero weights (K = the most
        nonzeros of a vertex).
    """
    J = body.num_joints
    v = _shaped(body, betas)
    x = np.asarray(body.J_regressor, np.float64) @ v
    skeleton = _skeleton(body, x, names)
    ibm = np.tile(np.eye(4), (J, 1, 1))
    ibm[:, :3, 3] = -x
    w = np.asarray(body.weights, np.float64)
    K = max(1, int(np.max(np.count_nonzero(w > 0, axis=1))))
    idx = np.argsort(-w, axis=1)[:, :K]
    weights = np.take_along_axis(w, idx, axis=1)
    prim = Primitive(node=0, mesh=0, index=0, skin=0, positions=v,
                     joints=idx.astype(np.uint8 if J < 256 else np.uint16), weights=weights,
                     faces=np.asarray(body.faces, np.int64))
    if correctives:
        P = 9 * (J - 1)
        prim.morph_positions = np.ascontiguousarray(
            np.asarray(body.posedirs, np.float64).transpose(2, 0, 1))
        prim.morph_weights = np.zeros(P)
    return Model(skeleton=skeleton, skins=[Skin("body", np.arange(J, dtype=np.int32), ibm)],
                 primitives=[prim], clips=[], name=f"{body.kind} body")


def body_clip(body: BodyModel, pose: ArrayLike, transl: Optional[ArrayLike] = None,
              betas: Optional[ArrayLike] = None, fps: float = 30.0,
              name: Optional[str] = None, correctives: bool = False) -> Clip:
    """A motion of ``body`` (AMASS layout: per-frame axis-angle poses and root translations) as
    a clip of ``body_model_to_model(body, betas)``.

    Parameters
    ----------
    pose : (T, J, 3) or (T, 3 J)
        Axis-angle rotation of every joint relative to its parent, radians (joint 0 global).
    transl : (T, 3) or None
        Root translation added to every vertex (SMPL's ``transl``; AMASS's ``trans``).
    betas : as for body_model_to_model (the rest root position depends on them).
    fps : frames per second (key i at i / fps).
    correctives : bool
        Also a LINEAR weights channel on node 0 with the 9 (J - 1) entries of R_j - I per frame
        (the model must have been made with ``correctives=True``).

    Returns
    -------
    Clip (float64)
        LINEAR rotation keys for every joint and translation keys for the root, one per frame;
        posing the model at the key times gives the body's vertices (``BodyModel.forward``)
        without the correctives, or exactly with them.
    """
    J = body.num_joints
    p = np.asarray(pose, np.float64)
    p = p.reshape(p.shape[0], J, 3) if p.ndim == 2 else p
    if p.ndim != 3 or p.shape[1:] != (J, 3):
        raise ValueError(f"pose must have shape (T, {J}, 3) or (T, {3 * J}), got {np.shape(pose)}")
    T = p.shape[0]
    times = np.arange(T) / float(fps)
    q = kernels.quat_from_rotvec(p)
    x0 = np.asarray(body.J_regressor, np.float64)[0] @ _shaped(body, betas)
    root = x0 + (np.zeros((T, 3)) if transl is None else np.asarray(transl, np.float64))
    channels = [Channel(j, "rotation", times, q[:, j]) for j in range(J)]
    channels.append(Channel(0, "translation", times, root))
    if correctives:
        feat = kernels.quat_to_matrix(q[:, 1:]) - np.eye(3)
        channels.append(Channel(0, "weights", times, feat.reshape(T, -1)))
    return Clip(name, channels, np.float64)
