"""MotionStreamer's 272-dim motion representation (Xiao et al. 2025, "MotionStreamer: Streaming
Motion Generation via Diffusion-based Autoregressive Model in Causal Latent Space", ICCV; computed
as its 272-dim-Motion-Representation repository does) and its inverses: back to joint positions,
and back to SMPL rotations without inverse kinematics (the representation keeps them).

The 22 joints are SMPL's first 22, +Y up, with SMPL's axis-angle rotations (the root's the body's
orientation in the same world).  Each frame's heading is the root's: the yaw of its +Z axis.
Columns, for T frames (T rows; the first row's velocities are 0 and its turn the identity):

- ``0:2`` the root's ground-plane velocity from the previous frame, in that frame's heading frame;
- ``2:8`` the change from the previous frame of the yaw that removes the heading (6D; minus the
  turn);
- ``8:74`` the joints relative to the root's ground-plane position, in the frame's heading frame,
  above the clip's lowest joint;
- ``74:140`` their change from the previous frame;
- ``140:272`` the joints' rotations (6D), the root's without its heading.

Its 6D rotations are the first two rows of each matrix (PyTorch3D's ``matrix_to_rotation_6d``),
where HumanML3D's are the first two columns.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..io.amass import quat_to_rotvec
from ..kernels import wrappers as kernels
from ._checks import values
from .rotations6d import from_6d, matrix_to_6d

__all__ = ["rep272_features", "rep272_joints", "rep272_rotations"]

F64 = NDArray[np.float64]
JOINTS = 22
FEATURES = 8 + 12 * JOINTS


def _yaw(angle: F64) -> F64:
    """Rotations (..., 3, 3) by ``angle`` radians about +Y."""
    c, s = np.cos(angle), np.sin(angle)
    out = np.zeros(np.shape(angle) + (3, 3))
    out[..., 0, 0], out[..., 0, 2], out[..., 1, 1], out[..., 2, 0], out[..., 2, 2] = c, s, 1, -s, c
    return out


def _rows6d(m: F64) -> F64:
    return matrix_to_6d(np.swapaxes(m, -1, -2))


def _from_rows6d(d: F64, name: str) -> F64:
    return np.swapaxes(from_6d(d, name), -1, -2)


def rep272_features(joints: ArrayLike, rotations: ArrayLike) -> F64:
    """The 272-dim representation of a motion.

    Parameters
    ----------
    joints : (T, >= 22, 3) posed joint positions (metres, +Y up), T >= 1; the first 22 used.
    rotations : (T, >= 22, 3) SMPL axis-angle rotations (radians) of the same motion.

    Returns
    -------
    (T, 272) float64 (the module docstring's columns).

    Raises
    ------
    TypeError
        for arrays of other than real numbers.
    ValueError
        on other shapes, different frame counts, values not finite or past
        skinkit.limits.MAX_FILE_VALUE.
    """
    p = values(joints, "joints")
    r = values(rotations, "rotations")
    for name, a in (("joints", p), ("rotations", r)):
        if a.ndim != 3 or a.shape[1] < JOINTS or a.shape[2] != 3 or len(a) < 1:
            raise ValueError(f"{name}: expected shape (T >= 1, >= {JOINTS}, 3), got {a.shape}")
    if len(p) != len(r):
        raise ValueError(f"joints and rotations: expected as many frames, got {len(p)} and "
                         f"{len(r)}")
    p, T = p[:, :JOINTS].copy(), len(p)
    matrices = np.asarray(kernels.quat_to_matrix(kernels.quat_from_rotvec(r[:, :JOINTS])),
                          np.float64)
    p -= p[0, 0] * np.array([1.0, 0.0, 1.0]) + np.array([0.0, np.min(p[..., 1]), 0.0])
    root_step = p[1:, 0] - p[:-1, 0]
    p[..., 0] -= p[:, :1, 0]
    p[..., 2] -= p[:, :1, 2]
    heading = -np.arctan2(np.ascontiguousarray(matrices[:, 0, 0, 2]),   # contiguous: see _euler
                          np.ascontiguousarray(matrices[:, 0, 2, 2]))     # (io/bvh/write.py)
    unturn = _yaw(heading)
    local = np.einsum("tij,tkj->tki", unturn, p)
    matrices[:, 0] = unturn @ matrices[:, 0]
    out = np.zeros((T, FEATURES))
    out[0, 2:8] = _rows6d(np.eye(3))
    out[1:, 2:8] = _rows6d(_yaw(heading[1:] - heading[:-1]))
    out[1:, 0:2] = np.einsum("tij,tj->ti", unturn[:-1], root_step)[:, [0, 2]]
    out[:, 8:8 + 3 * JOINTS] = local.reshape(T, -1)
    out[1:, 8 + 3 * JOINTS:8 + 6 * JOINTS] = (local[1:] - local[:-1]).reshape(T - 1, 3 * JOINTS)
    out[:, 8 + 6 * JOINTS:] = _rows6d(matrices).reshape(T, -1)
    return out


def _check(features: ArrayLike) -> F64:
    f = values(features, "features")
    if f.ndim != 2 or f.shape[1] != FEATURES or len(f) < 1:
        raise ValueError(f"features: expected shape (T >= 1, {FEATURES}), got {f.shape}")
    return f


def _headings(f: F64) -> Tuple[F64, F64]:
    """The recovered heading rotations (T, 3, 3) (the first frame's the identity) and root path
    (T, 3): ground-plane positions from the velocities, height from the root's row."""
    turns = _from_rows6d(f[:, 2:8], "features[:, 2:8]")
    heading = np.empty_like(turns)
    heading[0] = turns[0]
    for t in range(1, len(f)):
        heading[t] = turns[t] @ heading[t - 1]
    step = np.zeros((len(f), 3))
    step[1:, [0, 2]] = f[1:, 0:2]
    step[1:] = np.einsum("tji,tj->ti", heading[:-1], step[1:])
    root = np.cumsum(step, axis=0)
    root[:, 1] = f[:, 9]
    return heading, root


def rep272_joints(features: ArrayLike) -> F64:
    """Joint positions (T, 22, 3) of the representation (the repository's
    ``recover_from_local_position``): the motion turned so that its first heading is 0, its first
    root over the origin, on the floor.

    Raises
    ------
    TypeError, ValueError
        features not (T >= 1, 272) real numbers, finite and at most
        skinkit.limits.MAX_FILE_VALUE, or a 6D turn with parallel or zero halves.
    """
    f = _check(features)
    heading, root = _headings(f)
    local = f[:, 8:8 + 3 * JOINTS].reshape(len(f), JOINTS, 3)
    out: F64 = np.einsum("tji,tkj->tki", heading, local) + root[:, None] * [1.0, 0.0, 1.0]
    return out


def rep272_rotations(features: ArrayLike) -> Tuple[F64, F64]:
    """SMPL rotations and root path of the representation, without inverse kinematics (the
    repository's ``recover_from_local_rotation``).

    Returns
    -------
    rotations (T, 22, 3) axis-angle (radians, angles in [0, pi]), root (T, 3) the root joint's
    positions (metres; a body model's translation is ``root - its rest root joint``); the
    motion turned so that its first heading is 0, as ``rep272_joints``'s.

    Raises
    ------
    TypeError, ValueError
        as ``rep272_joints``, and for a 6D rotation with parallel or zero halves.
    """
    f = _check(features)
    heading, root = _headings(f)
    matrices = _from_rows6d(f[:, 8 + 6 * JOINTS:].reshape(len(f), JOINTS, 6),
                            f"features[:, {8 + 6 * JOINTS}:] as (T, {JOINTS}, 6)")
    matrices[:, 0] = np.swapaxes(heading, -1, -2) @ matrices[:, 0]
    rotvec: F64 = np.asarray(quat_to_rotvec(kernels.quat_from_matrix(matrices)), np.float64)
    return rotvec, root
