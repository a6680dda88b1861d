"""HumanML3D's 263-dim motion features (Guo et al. 2022, "Generating Diverse and Natural 3D Human
Motions from Text", CVPR, section 3.3; computed as the EricGuo5513/HumanML3D repository's
``motion_representation`` does), their inverse (its ``recover_from_ric``) and its preprocessing
(uniform skeleton, floor, first frame facing +Z), a step of its own.

The 22 joints are SMPL's first 22 in SMPL's order, in +Y-up axes (HumanML3D's joints come from
AMASS turned to +Y up).  Rows of the features (T - 1 of them for T frames), in order: the root's
angular velocity about +Y (1, radians per frame, the half angle: HumanML3D's ``arcsin`` of the
quaternion's y), its linear velocity in the ground plane (2, in the facing frame), its height (1),
the other joints' positions relative to the root in the facing frame (21 x 3), their bone rotations
as 6D rotations (21 x 6), every joint's velocity in the facing frame (22 x 3, per frame) and the
foot contacts (left ankle, left toe, right ankle, right toe).

The repository's choices are kept, as its published features need them:

- the bone rotations are those of its ``Skeleton``: each bone turned the shortest way from its rest
  direction, every chain starting from the facing (the arms hang from the facing, not the spine),
  so they do not turn with the body (the other features do);
- the features' facing is smoothed over time by a Gaussian of sigma 20 frames (edges repeated),
  takes the hips from left to right but the shoulders from right to left (the preprocessing's
  takes both from right to left, ``FACE_JOINTS``), and is the identity at the first frame (the
  published pair agrees with that only: the smoothed facing there turns its first row 0.1 rad);
- the turn between frames flips sign where the heading passes half a turn from the first frame's
  (``continuous=True`` corrects it);
- a contact is a foot joint's squared displacement per frame below 0.002 m^2;
- its arithmetic is float32, this module's float64: the two agree within 1e-5 on its pair.
"""
from __future__ import annotations

from typing import Any, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kernels import wrappers as kernels
from ._checks import flag, number, values
from .rotations6d import matrix_to_6d

__all__ = ["HUMANML3D_BONE_LENGTHS", "HUMANML3D_PARENTS", "humanml3d_features",
           "humanml3d_joints", "humanml3d_preprocess"]

F64 = NDArray[np.float64]

JOINTS = 22
FEATURES = 263
CHAINS: Tuple[Tuple[int, ...], ...] = ((0, 2, 5, 8, 11), (0, 1, 4, 7, 10), (0, 3, 6, 9, 12, 15),
                                       (9, 14, 17, 19, 21), (9, 13, 16, 18, 20))
"""HumanML3D's kinematic chains (right leg, left leg, spine, right arm, left arm)."""
HUMANML3D_PARENTS = (-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19)
"""Parent of each of the 22 joints (SMPL's)."""
FIRST_OF_CHAIN = tuple(chain[1] for chain in CHAINS)
"""The joints whose bones start a chain, rotated relative to the facing."""
_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_DOWN, _LEFT = (0.0, -1.0, 0.0), (-1.0, 0.0, 0.0)
DIRECTIONS = np.array([(0.0, 0.0, 0.0), _X, _LEFT, _Y, _DOWN, _DOWN, _Y, _DOWN, _DOWN, _Y, _Z, _Z,
                       _Y, _X, _LEFT, _Z, _DOWN, _DOWN, _DOWN, _DOWN, _DOWN, _DOWN])
"""Each bone's rest direction (HumanML3D's ``t2m_raw_offsets``)."""
HUMANML3D_BONE_LENGTHS = np.array([
    0.0, 0.10307397, 0.10988336, 0.13156823, 0.39362319, 0.39018822, 0.14319022, 0.432433,
    0.4256434, 0.05736474, 0.14338179, 0.14941905, 0.21936005, 0.13748679, 0.14338281, 0.10303921,
    0.13161396, 0.12298439, 0.2568399, 0.26309186, 0.26601182, 0.26987629])
"""Bone lengths (metres) of HumanML3D's uniform skeleton (its example subject 000021), measured on
its published ``new_joints/012314.npy`` (constant over its frames within 2.5e-7)."""
FACE_JOINTS = (2, 1, 17, 16)
"""Right hip, left hip, right shoulder, left shoulder."""
LEG = (5, 8)
"""The bones whose lengths set the uniform skeleton's scale (right shin and right foot)."""
FEET = ((7, 10), (8, 11))
"""Left ankle and toe, right ankle and toe."""
FOOT_THRESHOLD = 0.002
FACING_SIGMA = 20.0


def _check_joints(joints: ArrayLike, name: str, min_frames: int) -> F64:
    j = values(joints, name)
    if j.ndim != 3 or j.shape[1:] != (JOINTS, 3) or len(j) < min_frames:
        raise ValueError(f"{name}: expected shape (T >= {min_frames}, {JOINTS}, 3), got {j.shape}")
    return j


def _between(u: ArrayLike, v: ArrayLike) -> F64:
    """Unit quaternions (x, y, z, w) of the shortest rotations taking directions u to v (...,
    3): HumanML3D's ``qbetween``, with half a turn for opposite directions."""
    a, b = np.broadcast_arrays(np.asarray(u, np.float64), np.asarray(v, np.float64))
    scale = np.sqrt((a * a).sum(-1) * (b * b).sum(-1))
    q = np.concatenate([np.cross(a, b), (scale + (a * b).sum(-1))[..., None]], axis=-1)
    size = np.linalg.norm(q, axis=-1, keepdims=True)
    # opposite directions (where HumanML3D divides 0 by 0): half a turn about an axis normal to u
    basis = np.eye(3)[np.argmin(np.abs(a), axis=-1)]
    normal = np.cross(a, basis)
    half_turn = np.concatenate([normal, np.zeros(a.shape[:-1] + (1,))], axis=-1)
    opposite = size <= 1e-12 * scale[..., None]
    out: F64 = np.where(opposite, half_turn / np.linalg.norm(half_turn, axis=-1, keepdims=True),
                        q / np.where(opposite, 1.0, size))
    return out


def _gaussian_smooth(x: F64, sigma: float) -> F64:
    """x (T, ...) smoothed along time by a Gaussian truncated at 4 sigma, the edge values repeated
    (SciPy's ``gaussian_filter1d(x, sigma, axis=0, mode='nearest')``)."""
    radius = int(4.0 * sigma + 0.5)
    taps = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    taps /= taps.sum()
    padded = np.concatenate([np.repeat(x[:1], radius, 0), x, np.repeat(x[-1:], radius, 0)])
    out = np.zeros_like(x)
    for k, w in enumerate(taps):
        out += w * padded[k:k + len(x)]
    return out


def _facing(joints: F64, across: Sequence[Tuple[int, int]], sigma: float = 0.0) -> F64:
    """Rotations (T, 4) about +Y taking each frame's forward direction to +Z: forward is up x
    (the sum of the ``a - b`` of the ``across`` joint pairs), smoothed over time when sigma > 0.
    ValueError naming the first frame whose pairs are vertical or cancel (no facing)."""
    side = sum(joints[:, a] - joints[:, b] for a, b in across)
    length = np.linalg.norm(side, axis=-1, keepdims=True)
    flat = ~(length[:, 0] > 0)
    if not flat.any():
        side = side / length
        forward = np.cross(np.array(_Y), side)
        flat = ~(np.linalg.norm(forward, axis=-1) > 1e-9)
    if flat.any():
        raise ValueError(f"joints: frame {int(np.argmax(flat))}'s hips and shoulders are "
                         "vertical or coincide; its facing is undefined")
    if sigma > 0:
        forward = _gaussian_smooth(forward, sigma)
        if not (np.linalg.norm(forward, axis=-1) > 1e-9).all():
            raise ValueError("joints: the facing smoothed over time cancels (opposite facings "
                             "within a few frames); it is undefined")
    forward /= np.linalg.norm(forward, axis=-1, keepdims=True)
    return _between(forward, np.array(_Z))


def _bone_rotations(joints: F64, sigma: float) -> F64:
    """HumanML3D's ``Skeleton.inverse_kinematics_np``: (T, 22, 4) quaternions (x, y, z, w), the
    root's the facing rotation (hips left to right, shoulders right to left, as written there;
    the identity at the first frame), each other's the rotation of its bone relative to the
    previous bone of its chain (the facing for a chain's first bone)."""
    r_hip, l_hip, r_shoulder, l_shoulder = FACE_JOINTS
    root = _facing(joints, ((l_hip, r_hip), (r_shoulder, l_shoulder)), sigma)
    root[0] = (0.0, 0.0, 0.0, 1.0)
    children = np.arange(1, JOINTS)
    parents = np.array(HUMANML3D_PARENTS[1:])
    vectors = joints[:, children] - joints[:, parents]
    short = ~(np.abs(vectors).max(-1) > 0)
    if short.any():
        t, b = (int(i) for i in np.argwhere(short)[0])
        raise ValueError(f"joints: frame {t}'s joint {b + 1} is at its parent's position (a bone "
                         "of length 0 has no rotation)")
    bones = np.concatenate([root[:, None], _between(DIRECTIONS[1:], vectors)], axis=1)
    previous = bones[:, np.where(np.isin(children, FIRST_OF_CHAIN), 0, parents)]
    rotations: NDArray[np.float64] = np.concatenate([root[:, None], kernels.quat_multiply(
        kernels.quat_conjugate(previous), bones[:, 1:])], axis=1)
    return rotations


def _chain_positions(rotations: F64, root: F64, lengths: F64) -> F64:
    """HumanML3D's ``Skeleton.forward_kinematics_np``: joint positions (T, 22, 3) of bone
    rotations (T, 22, 4), root positions (T, 3) and bone lengths (22,)."""
    joints = np.zeros(rotations.shape[:2] + (3,))
    joints[:, 0] = root
    offsets = DIRECTIONS * lengths[:, None]
    for chain in CHAINS:
        r: NDArray[np.floating[Any]] = rotations[:, 0]
        for parent, child in zip(chain[:-1], chain[1:]):
            r = kernels.quat_multiply(r, rotations[:, child])
            joints[:, child] = joints[:, parent] + kernels.quat_rotate(
                r, np.broadcast_to(offsets[child], (len(r), 3)))
    return joints


def humanml3d_preprocess(joints: ArrayLike,
                         bone_lengths: ArrayLike = HUMANML3D_BONE_LENGTHS) -> F64:
    """HumanML3D's preprocessing of joint positions (its ``process_file`` before the features).

    In order: the uniform skeleton (the bone rotations of ``joints`` put on bones of
    ``bone_lengths``, the root's path scaled by the ratio of the right shin and foot lengths,
    theirs to the first frame's), the floor (the lowest joint of the clip at height 0), the first
    frame's root over the origin and the first frame facing +Z (forward: up x the sum of the
    right-minus-left hip and shoulder vectors; not smoothed).

    Parameters
    ----------
    joints : (T, 22, 3) positions (metres, +Y up) of SMPL's first 22 joints, T >= 1.
    bone_lengths : (22,) metres; HumanML3D's uniform skeleton by default.

    Returns
    -------
    (T, 22, 3) float64

    Raises
    ------
    TypeError
        for arrays of other than real numbers.
    ValueError
        on other shapes, values not finite or past skinkit.limits.MAX_FILE_VALUE, non-positive
        bone lengths, a bone of length 0 or a frame whose facing is undefined (hips and
        shoulders vertical).
    """
    j = _check_joints(joints, "joints", 1)
    lengths = values(bone_lengths, "bone_lengths")
    if lengths.shape != (JOINTS,) or not (lengths[1:] > 0).all():
        raise ValueError(f"bone_lengths: expected ({JOINTS},) positive lengths (the root's "
                         f"ignored), got {lengths.shape} {lengths}")
    rotations = _bone_rotations(j, 0.0)     # refuses bones of length 0
    first = np.linalg.norm(j[0, 1:] - j[0, list(HUMANML3D_PARENTS[1:])], axis=-1)
    leg = [i - 1 for i in LEG]
    scale = lengths[list(LEG)].sum() / first[leg].sum()
    p = _chain_positions(rotations, j[:, 0] * scale, lengths)
    p[..., 1] -= np.min(p[..., 1])
    p -= p[0, 0] * np.array([1.0, 0.0, 1.0])
    r_hip, l_hip, r_shoulder, l_shoulder = FACE_JOINTS
    turn = _facing(p[:1], ((r_hip, l_hip), (r_shoulder, l_shoulder)))[0]
    return np.asarray(kernels.quat_rotate(np.broadcast_to(turn, p.shape[:2] + (4,)), p), np.float64)


def humanml3d_features(joints: ArrayLike, foot_threshold: float = FOOT_THRESHOLD,
                       continuous: bool = False) -> F64:
    """HumanML3D's 263-dim features of joint positions (its ``process_file`` after the
    preprocessing; the layout in the module's docstring).

    Parameters
    ----------
    joints : (T, 22, 3) positions (metres, +Y up), T >= 2, normally
        ``humanml3d_preprocess``'s (the features use the positions as given).
    foot_threshold : contact when a foot joint's squared displacement to the next frame is below
        this (m^2 per frame; 0.002 at HumanML3D's 20 fps).
    continuous : False (HumanML3D's): the turn between two frames is the ``arcsin`` of the y of
        the product of their facings as its ``qbetween`` gives them (w >= 0), which flips the
        sign of the turn where the heading passes half a turn from the first frame's; True:
        the turn of the product's w >= 0 form, right at any heading.

    Returns
    -------
    (T - 1, 263) float64

    Raises
    ------
    TypeError
        for arrays of other than real numbers, a foot_threshold that is not a number, a
        continuous that is not a bool.
    ValueError
        on other shapes, values not finite or past skinkit.limits.MAX_FILE_VALUE, a negative
        foot_threshold, a bone of length 0 or a frame whose facing is undefined.
    """
    p = _check_joints(joints, "joints", 2)
    foot_threshold = number(foot_threshold, "foot_threshold")
    continuous = flag(continuous, "continuous")
    step = p[1:] - p[:-1]
    contacts = [((step[:, list(foot)] ** 2).sum(-1) < foot_threshold) for foot in FEET]
    rotations = _bone_rotations(p, FACING_SIGMA)
    facing = rotations[:, 0]
    velocity = kernels.quat_rotate(facing[1:], step[:, 0])
    turn = kernels.quat_multiply(facing[1:], kernels.quat_conjugate(facing[:-1]))
    if continuous:
        turn *= np.where(turn[:, 3:] < 0, -1.0, 1.0)
    local = p - p[:, :1] * np.array([1.0, 0.0, 1.0])
    each = np.broadcast_to(facing[:, None], p.shape[:2] + (4,))
    ric = kernels.quat_rotate(each, local)
    six = matrix_to_6d(kernels.quat_to_matrix(rotations[:, 1:]))
    joint_velocity = kernels.quat_rotate(each[:-1], step)
    n = len(p) - 1
    return np.concatenate([np.arcsin(np.ascontiguousarray(turn[:, 1:2])), velocity[:, [0, 2]], p[:-1, 0, 1:2],
                           ric[:-1, 1:].reshape(n, -1), six[:-1].reshape(n, -1),
                           joint_velocity.reshape(n, -1), contacts[0], contacts[1]], axis=-1)


def humanml3d_joints(features: ArrayLike) -> F64:
    """Joint positions of HumanML3D features (its ``recover_from_ric``): the root's heading and
    path integrated from its velocities (the first frame at the origin facing +Z), the other
    joints from their root-relative positions.

    Parameters
    ----------
    features : (..., T, 263)

    Returns
    -------
    (..., T, 22, 3) float64: as many frames as feature rows.

    Raises
    ------
    TypeError
        for arrays of other than real numbers.
    ValueError
        if the last axis is not 263, there are no frames, or values are not finite or past
        skinkit.limits.MAX_FILE_VALUE.
    """
    f = values(features, "features")
    if f.ndim < 2 or f.shape[-1] != FEATURES or f.shape[-2] < 1:
        raise ValueError(f"features: expected shape (..., T >= 1, {FEATURES}), got {f.shape}")
    angle = np.zeros(f.shape[:-1])
    angle[..., 1:] = np.cumsum(f[..., :-1, 0], axis=-1)
    unturn = np.zeros(f.shape[:-1] + (4,))
    unturn[..., 1], unturn[..., 3] = -np.sin(angle), np.cos(angle)
    step = np.zeros(f.shape[:-1] + (3,))
    step[..., 1:, 0], step[..., 1:, 2] = f[..., :-1, 1], f[..., :-1, 2]
    root = np.cumsum(kernels.quat_rotate(unturn, step), axis=-2)
    root[..., 1] = f[..., 3]
    local = f[..., 4:4 + (JOINTS - 1) * 3].reshape(f.shape[:-1] + (JOINTS - 1, 3))
    others = kernels.quat_rotate(np.broadcast_to(unturn[..., None, :], local.shape[:-1] + (4,)),
                                 local)
    others += (root * np.array([1.0, 0.0, 1.0]))[..., None, :]
    out: F64 = np.concatenate([root[..., None, :], others], axis=-2)
    return out
