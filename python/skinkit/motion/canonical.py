"""The canonical frame of a motion: glTF's axes (+Y up; AMASS's +Z up turned by -90 degrees
about +X), the lowest foot joint at height 0 (over the clip or at every frame), the root's first
position over the origin and the first frame facing +Z, facing as HumanML3D's preprocessing
takes it (up x the sum of the right-minus-left hip and shoulder vectors; Guo et al. 2022)."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..io.amass import BodyMotion, quat_to_rotvec
from ..kernels import wrappers as kernels
from ._checks import flag, joint_indices, values
from .humanml3d import FACE_JOINTS, _facing

if TYPE_CHECKING:
    from ..body.body_model import BodyModel

__all__ = ["canonical_joints", "canonical_motion", "canonical_transform", "transform_motion"]

F64 = NDArray[np.float64]
SMPL_FEET = (7, 8, 10, 11)
"""SMPL's ankles and feet (toes)."""
Z_UP_TO_Y_UP = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])
"""-90 degrees about +X: (x, y, z) -> (x, z, -y)."""
_FLOORS = ("clip", "frame")
_BLOCK = 256   # frames posed at a time by canonical_motion


def canonical_transform(joints: ArrayLike, z_up: bool = True, floor: str = "clip",
                        feet: Sequence[int] = SMPL_FEET,
                        face_joints: Sequence[int] = FACE_JOINTS) -> Tuple[F64, F64]:
    """The rigid motion to the canonical frame: ``rotate(rotation, p) + offset[t]``.

    Parameters
    ----------
    joints : (T, J, 3) world joint positions (metres), T >= 1.
    z_up : True for +Z up (AMASS), False for +Y up.
    floor : 'clip': the lowest foot joint of the clip at height 0; 'frame': of every frame
        (HumanML3D's floor is the clip's lowest joint of all).
    feet : the foot joints (SMPL's ankles and toes by default).
    face_joints : right hip, left hip, right shoulder, left shoulder (SMPL's by default).

    Returns
    -------
    rotation (4,) quaternion (x, y, z, w), offset (T, 3) metres; float64.

    Raises
    ------
    TypeError
        for positions of other than real numbers, joint indices that are not integers, a z_up
        that is not a bool.
    ValueError
        on a wrong shape, values not finite or past skinkit.limits.MAX_FILE_VALUE, an unknown
        floor, joint indices out of range, or a first frame whose facing is undefined (hips and
        shoulders vertical or at one point).
    """
    p = values(joints, "joints")
    if p.ndim != 3 or p.shape[-1] != 3 or len(p) < 1:
        raise ValueError(f"joints: expected (T >= 1, J, 3) positions, got {p.shape}")
    if floor not in _FLOORS:
        raise ValueError(f"floor: expected one of {_FLOORS}, got {floor!r}")
    feet = joint_indices(feet, "feet", p.shape[1])
    face = joint_indices(face_joints, "face_joints", p.shape[1])
    if len(face) != 4:
        raise ValueError(f"face_joints: expected 4 joints, got {face_joints}")
    up = Z_UP_TO_Y_UP if flag(z_up, "z_up") else np.array([0.0, 0.0, 0.0, 1.0])
    first = np.asarray(kernels.quat_rotate(np.broadcast_to(up, p[0].shape[:-1] + (4,)), p[0]),
                       np.float64)
    r_hip, l_hip, r_shoulder, l_shoulder = face
    turn = _facing(first[None], ((r_hip, l_hip), (r_shoulder, l_shoulder)))[0]
    rotation = np.asarray(kernels.quat_multiply(turn, up), np.float64)
    turned = kernels.quat_rotate(np.broadcast_to(rotation, p.shape[:-1] + (4,)), p)
    heights = turned[:, feet, 1]
    offset = -turned[0, 0] * np.array([1.0, 0.0, 1.0]) + np.zeros((len(p), 3))
    offset[:, 1] = -(np.min(heights) if floor == "clip" else np.min(heights, axis=1))
    return rotation, offset


def canonical_joints(joints: ArrayLike, z_up: bool = True, floor: str = "clip",
                     feet: Sequence[int] = SMPL_FEET,
                     face_joints: Sequence[int] = FACE_JOINTS) -> F64:
    """Joint positions (T, J, 3) in the canonical frame (``canonical_transform``'s arguments and
    errors); float64."""
    p = values(joints, "joints")
    rotation, offset = canonical_transform(p, z_up, floor, feet, face_joints)
    out: F64 = kernels.quat_rotate(np.broadcast_to(rotation, p.shape[:-1] + (4,)), p) + \
        offset[:, None]
    return out


def canonical_motion(motion: BodyMotion, model: "BodyModel", fps: Optional[float] = None,
                     z_up: bool = True, floor: str = "clip",
                     feet: Sequence[int] = SMPL_FEET) -> Tuple[BodyMotion, F64]:
    """A body motion in the canonical frame, resampled first (``BodyMotion.resample``: slerp at
    exact times ``k / fps``, the source rate the file's).

    The root's rotation is turned by the canonical rotation and its translation moved so that
    the posed joints are ``canonical_joints`` of the original's (the root turns about its rest
    position ``model(betas)``'s joint 0).

    Parameters
    ----------
    motion : BodyMotion (``skinkit.load_amass``).
    model : the BodyModel that poses it (SMPL's first 22 joints in SMPL's order).
    fps : the output rate; None keeps the motion's.
    z_up, floor, feet : as ``canonical_transform`` (facing from SMPL's hips and shoulders).

    Returns
    -------
    (BodyMotion, joints (T, J, 3) float64 posed in the canonical frame)

    Raises
    ------
    ValueError
        as ``canonical_transform`` and ``BodyMotion.resample``.
    """
    m = motion if fps is None else motion.resample(fps)
    betas = m.betas[:model.num_betas]
    rest_root = np.asarray(model(betas=betas)[1], np.float64)[0]
    joints = np.concatenate([np.asarray(model(betas=betas, pose=m.poses[s:s + _BLOCK],
                                              transl=m.transl[s:s + _BLOCK])[1], np.float64)
                             for s in range(0, len(m.poses), _BLOCK)])
    rotation, offset = canonical_transform(joints, z_up, floor, feet)
    each: Any = np.broadcast_to(rotation, joints.shape[:-1] + (4,))
    canonical = np.asarray(kernels.quat_rotate(each, joints), np.float64) + offset[:, None]
    return transform_motion(m, rotation, offset, rest_root), canonical


def transform_motion(motion: BodyMotion, rotation: ArrayLike, offset: ArrayLike,
          rest_root: ArrayLike) -> BodyMotion:
    """The body motion whose posed points are ``rotate(rotation, p) + offset[t]`` of the
    original's: the root's rotation turned, its translation moved (the root turns about its rest
    position ``rest_root`` (3,), a body model's joint 0 for the motion's betas).

    Parameters
    ----------
    motion : BodyMotion
    rotation : (4,) unit quaternion (x, y, z, w).
    offset : (T, 3) or (3,) metres.
    rest_root : (3,) metres.

    Raises
    ------
    TypeError, ValueError
        for arrays of other than real numbers, of other shapes, values not finite or past
        skinkit.limits.MAX_FILE_VALUE, a rotation that is not of unit length.
    """
    q = values(rotation, "rotation")
    T = len(motion.poses)
    if q.shape != (4,) or not abs(float(np.linalg.norm(q)) - 1.0) <= 1e-6:
        raise ValueError(f"rotation: expected a unit quaternion (4,), got {q}")
    shift = values(offset, "offset")
    if shift.shape not in ((T, 3), (3,)):
        raise ValueError(f"offset: expected shape ({T}, 3) or (3,), got {shift.shape}")
    pivot = values(rest_root, "rest_root")
    if pivot.shape != (3,):
        raise ValueError(f"rest_root: expected shape (3,), got {pivot.shape}")
    root = kernels.quat_multiply(np.broadcast_to(q, (T, 4)),
                                 kernels.quat_from_rotvec(motion.poses[:, 0]))
    poses = motion.poses.copy()
    poses[:, 0] = quat_to_rotvec(root)
    transl = kernels.quat_rotate(np.broadcast_to(q, (T, 4)), motion.transl + pivot) - pivot + \
        shift
    return dataclasses.replace(motion, poses=poses, transl=np.asarray(transl, np.float64))
