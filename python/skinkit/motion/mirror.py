"""Left/right mirroring of a motion: each joint's rotation moved to its mirror joint and
reflected in the body's sagittal plane, the root's path reflected in the world's.

A reflection M (x -> -x about axis 0) takes a rotation R to M R M: the rotation axis, a
pseudovector, becomes -M axis and the angle stays, so a quaternion (x, y, z, w) becomes
(x, -y, -z, w).  That is the whole story for skeletons whose rest joints have no rotation and
whose rest pose is symmetric (SMPL, SMPL+H, SMPL-X).  A skeleton with rest rotations (glTF, BVH
rigs) keeps its rest pose when joint j's world rotation G becomes ``M G C_j`` on its mirror joint,
``C_j = G_rest(j)^T M G_rest(mirror(j))``; its local rotation becomes ``C_parent^T L C_j``
(``C`` of the world, above the root, is M).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..io.amass import BodyMotion
from ..kernels import wrappers as kernels
from ..model.joint_names import (SMPL_JOINT_NAMES, SMPLH_JOINT_NAMES, SMPLX_JOINT_NAMES,
                                 canonical_names)
from ._checks import values

__all__ = ["mirror", "mirror_permutation", "mirror_positions", "mirror_rotations"]

F64 = NDArray[np.float64]
_SIDE = {"left": "right", "right": "left", "Left": "Right", "Right": "Left", "LEFT": "RIGHT",
         "RIGHT": "LEFT"}
_BODY_NAMES = {len(n): n for n in (SMPL_JOINT_NAMES, SMPLH_JOINT_NAMES, SMPLX_JOINT_NAMES)}


def _swap_sides(name: str) -> str:
    return re.sub("|".join(_SIDE), lambda m: _SIDE[m.group()], name)


def _check_axis(axis: int) -> int:
    if isinstance(axis, (bool, np.bool_)) or axis not in (0, 1, 2):
        raise ValueError(f"axis: expected 0, 1 or 2 (the reflected coordinate), got {axis!r}")
    return int(axis)


def mirror_permutation(names: Sequence[str], preset: Optional[str] = None) -> NDArray[np.intp]:
    """Each joint's mirror joint: ``perm[j]`` is the joint on the other side (j itself on the
    midline).  Joints are paired by their canonical names (``skinkit.model.joint_names``: SMPL,
    SMPL+H, SMPL-X, Mixamo, MotionBuilder, CMU, LaFAN1; ``preset`` None detects it), and names
    the preset lacks (SMPL-X's eyes, a rig's extra bones) by swapping left and right in the name.

    Returns
    -------
    (J,) intp, an involution (``perm[perm] == arange(J)``).

    Raises
    ------
    ValueError
        if no joint has a mirror joint (no left/right names), or for an unknown preset.
    """
    names = [str(n) for n in names]
    try:
        canon = canonical_names(names, preset)
    except ValueError:
        if preset is not None:
            raise
        canon = [None] * len(names)
    by_canon = {c: i for i, c in enumerate(canon) if c}
    by_name = {n: i for i, n in enumerate(names)}
    perm = np.arange(len(names))
    for i, (name, c) in enumerate(zip(names, canon)):
        partner = by_canon.get(_swap_sides(c)) if c else by_name.get(_swap_sides(name))
        perm[i] = i if partner is None else partner
    if (perm == np.arange(len(names))).all() or (perm[perm] != np.arange(len(names))).any():
        raise ValueError(f"names: no left/right joint pairs found (names such as {names[:4]})")
    return perm


def mirror_positions(positions: ArrayLike, axis: int = 0) -> F64:
    """Points (..., 3) reflected in the plane normal to ``axis`` through the origin (float64;
    TypeError or ValueError for other than real numbers, finite and at most
    skinkit.limits.MAX_FILE_VALUE, or an axis other than 0, 1, 2)."""
    p = values(positions, "positions").copy()
    if p.shape[-1:] != (3,):
        raise ValueError(f"positions: expected shape (..., 3), got {p.shape}")
    p[..., _check_axis(axis)] *= -1
    return p


def mirror_rotations(rotations: ArrayLike, permutation: ArrayLike, axis: int = 0,
                     parents: Optional[ArrayLike] = None,
                     rest_world: Optional[ArrayLike] = None) -> F64:
    """Local joint rotations of the mirrored motion.

    Parameters
    ----------
    rotations : (..., J, 4) unit quaternions (x, y, z, w), each joint's relative to its parent.
    permutation : (J,) each joint's mirror joint (``mirror_permutation``).
    axis : the reflected coordinate of the body's rest frame (0: x, SMPL's left-right).
    parents, rest_world : (J,) parent indices (-1 for a root) and (J, 4) the rest pose's world
        rotations, for a skeleton whose rest joints are rotated (module docstring); None for
        rest rotations of identity (SMPL family): then the result is exactly
        ``rotations[..., permutation, :]`` with y and z negated (for axis 0).

    Returns
    -------
    (..., J, 4) float64; mirroring twice gives back the rotations (to rounding, up to the
    quaternion's sign when ``rest_world`` is given).

    Raises
    ------
    TypeError
        for rotations of other than real numbers.
    ValueError
        on mismatched shapes, values not finite or past skinkit.limits.MAX_FILE_VALUE, parents
        out of range, a permutation that is not an involution, or one that does not map each
        joint's parent to its mirror joint's parent.
    """
    q = values(rotations, "rotations")
    perm = np.asarray(permutation)
    J = q.shape[-2] if q.ndim >= 2 else -1
    if q.shape[-1:] != (4,) or perm.shape != (J,) or perm.dtype.kind not in "iu":
        raise ValueError(f"rotations (..., J, 4) and permutation (J,) integers expected, got "
                         f"{q.shape} and {perm.shape} {perm.dtype}")
    if ((perm < 0) | (perm >= J)).any() or (perm[perm] != np.arange(J)).any():
        raise ValueError("permutation: expected an involution of the joint indices")
    axis = _check_axis(axis)
    if rest_world is None:
        sign = -np.ones(4)
        sign[[axis, 3]] = 1.0
        out: F64 = q[..., perm, :] * sign
        return out
    if parents is None:
        raise ValueError("parents: needed with rest_world")
    par = np.asarray(parents)
    rest_q = values(rest_world, "rest_world")
    if par.shape != (J,) or par.dtype.kind not in "iu" or rest_q.shape != (J, 4):
        raise ValueError(f"parents (J,) integers and rest_world (J, 4) expected for J = {J}, "
                         f"got {par.shape} {par.dtype} and {rest_q.shape}")
    if ((par < -1) | (par >= J)).any():
        raise ValueError(f"parents: expected indices in [-1, {J}), got {par.tolist()}")
    rest = kernels.quat_to_matrix(rest_q)
    mapped = np.where(par >= 0, perm[np.maximum(par, 0)], -1)
    if (par[perm] != mapped).any():
        raise ValueError("permutation: a joint's mirror joint must have the mirror of its "
                         "parent as parent")
    M = np.eye(3)
    M[axis, axis] = -1.0
    C = np.swapaxes(rest, -1, -2) @ M @ rest[perm]
    C_parent = np.where((par >= 0)[:, None, None], C[np.maximum(par, 0)], M)
    L = kernels.quat_to_matrix(q)
    mirrored = np.swapaxes(C_parent, -1, -2) @ L @ C
    result: F64 = np.asarray(kernels.quat_from_matrix(mirrored[..., perm, :, :]), np.float64)
    return result


def mirror(motion: BodyMotion, root: Optional[ArrayLike] = None, axis: int = 0) -> BodyMotion:
    """The left/right mirror of an SMPL, SMPL+H or SMPL-X motion (body, hands, jaw, eyes).

    Joint rotations by ``mirror_rotations``'s rule applied to the rotation vectors (exact, so
    mirroring twice gives back the same bits) with the joints of the model's layout (24, 52 or 55
    joints), the root's path reflected in the world plane normal to ``axis`` (AMASS's and
    glTF's x: a vertical plane), so that the posed joints are the reflection of the original's
    when the body is symmetric (its rest joints, for these betas).

    Parameters
    ----------
    motion : BodyMotion
    root : (3,) the root joint's rest position for the motion's betas (a body model's joints at
        the rest pose: ``model(betas=motion.betas)[1][0]``): the root turns about it, so the
        translation is reflected about it; None for the origin.
    axis : the reflected coordinate (0: x).

    Returns
    -------
    BodyMotion with mirrored poses and translation, the rest unchanged.

    Raises
    ------
    ValueError
        if the motion's joint count is not one of the layouts, or ``root`` not (3,).
    """
    J = motion.poses.shape[1]
    if J not in _BODY_NAMES:
        raise ValueError(f"motion: expected {sorted(_BODY_NAMES)} joints (SMPL, SMPL+H, "
                         f"SMPL-X), got {J} ({motion.source})")
    perm = mirror_permutation(_BODY_NAMES[J], "smpl")
    sign = -np.ones(3)
    sign[_check_axis(axis)] = 1.0
    poses = motion.poses[:, perm] * sign      # the rule on rotation vectors: -M v
    pivot = np.zeros(3) if root is None else values(root, "root")
    if pivot.shape != (3,):
        raise ValueError(f"root: expected shape (3,), got {pivot.shape}")
    transl = mirror_positions(motion.transl + pivot, axis) - pivot
    return dataclasses.replace(motion, poses=poses, transl=transl)
