"""Inverse kinematics, batched over poses: two-bone and aim IK as ozz-animation defines them
(``IKTwoBoneJob``, ``IKAimJob``), and CCD (three.js ``CCDIKSolver``) and FABRIK chains.  The
kernels are in src/ik.c and src/ik_chain.c.

Two-bone and aim IK take model-space (world) 4x4 joint matrices and return local-space
corrections: the joint's new local rotation is ``quat_multiply(local, correction)`` (ozz's
samples apply them so).  The chain solvers take the chain's local transforms and return its new
local rotations.  Leading batch dimensions ``...`` broadcast; dtype rules are those of
``skinkit.kernels`` (the defaults take the dtype of the first argument).
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from ._generated import Float

__all__ = ["ik_two_bone", "ik_aim", "ik_ccd", "ik_fabrik"]


def _real(*values: ArrayLike) -> List[NDArray[np.floating[Any]]]:
    """values as arrays of the float dtype of the first (float64 for integers)."""
    a = np.asarray(values[0])
    dtype = a.dtype if a.dtype in (np.float32, np.float64) else np.float64
    return [np.asarray(v, dtype=dtype) for v in values]


def _iterations(iterations: ArrayLike) -> NDArray[Any]:
    it = np.asarray(iterations)
    if it.dtype.kind not in "iuf" or not np.all((it >= 0) & (it <= 1_000_000) & (it == np.floor(it))):
        raise ValueError(f"iterations must be whole numbers in 0..1000000, got {iterations!r:.60}")
    return it


def ik_two_bone(start: ArrayLike, mid: ArrayLike, end: ArrayLike, target: ArrayLike,
                pole_vector: ArrayLike, mid_axis: ArrayLike = (0.0, 0.0, 1.0),
                weight: ArrayLike = 1.0, soften: ArrayLike = 1.0, twist_angle: ArrayLike = 0.0,
                threads: Optional[int] = None) -> Tuple[Float, Float, NDArray[np.bool_]]:
    """Two-bone IK (ozz-animation ``IKTwoBoneJob``): the rotation corrections of the start and
    mid joints that bring the end joint to ``target``, the chain's plane through the pole vector.

    Parameters
    ----------
    start, mid, end : (..., 4, 4) float
        Model-space (world) matrices of the three joints (end a descendant of mid, mid of start).
    target : (..., 3)
        Effector target, model space, the matrices' units.
    pole_vector : (..., 3)
        Model-space direction the chain's plane (and the mid joint's bend) points to.
    mid_axis : (..., 3)
        The mid joint's bending axis in its own frame (normalized here); the chain bends so that
        the effector turns positively about it.  Default z.
    weight : (...), in [0, 1]
        Blend from no correction (0: the identities) to full IK (1), by normalized lerp.
    soften : (...), in [0, 1]
        Ratio of the chain length beyond which the target is pulled in smoothly (1: no
        softening; ozz's ``soften``).
    twist_angle : (...), radians
        Rotation of the chain's plane about the start-to-target axis.

    Returns
    -------
    start_correction, mid_correction : (..., 4)
        Unit quaternions (x, y, z, w) in the start and mid joints' local frames.
    reached : (...) bool
        Whether the (softened) target is reachable and weight >= 1.
    """
    s, m, e, t, p, a, w, f, tw = _real(start, mid, end, target, pole_vector, mid_axis, weight,
                                       soften, twist_angle)
    qs, qm, reached = _core._ik_two_bone(s, m, e, t, p, a, w, f, tw, None, threads)
    return qs, qm, reached != 0


def ik_aim(joint: ArrayLike, target: ArrayLike, forward: ArrayLike = (1.0, 0.0, 0.0),
           up: ArrayLike = (0.0, 1.0, 0.0), offset: ArrayLike = (0.0, 0.0, 0.0),
           pole_vector: ArrayLike = (0.0, 1.0, 0.0), twist_angle: ArrayLike = 0.0,
           weight: ArrayLike = 1.0, threads: Optional[int] = None
           ) -> Tuple[Float, NDArray[np.bool_]]:
    """Aim IK (ozz-animation ``IKAimJob``): the rotation correction that points the joint's
    forward axis (from ``offset``) at ``target`` and keeps its up axis toward the pole vector.

    Parameters
    ----------
    joint : (..., 4, 4) float
        Model-space matrix of the joint.
    target : (..., 3)
        Model-space point to aim at.
    forward, up, offset : (..., 3)
        The joint's forward axis (normalized here), up axis and the offset of the aiming point,
        in the joint's frame.  Defaults x, y, 0.
    pole_vector : (..., 3)
        Model-space direction the up axis is turned toward.  Default y.
    twist_angle : (...), radians
        Rotation about the joint-to-target axis.
    weight : (...), in [0, 1]
        Blend from the identity (0) to the full correction (1).

    Returns
    -------
    correction : (..., 4)
        Unit quaternion in the joint's local frame; the identity when the target is closer to
        the joint than the offset allows (ozz's behaviour).
    reached : (...) bool
    """
    j, t, f, u, o, p, tw, w = _real(joint, target, forward, up, offset, pole_vector, twist_angle,
                                    weight)
    q, reached = _core._ik_aim(j, t, f, u, o, p, tw, w, None, threads)
    return q, reached != 0


def ik_ccd(base: ArrayLike, translations: ArrayLike, rotations: ArrayLike, target: ArrayLike,
           rotation_min: Optional[ArrayLike] = None, rotation_max: Optional[ArrayLike] = None,
           iterations: ArrayLike = 10, tolerance: ArrayLike = 0.0,
           threads: Optional[int] = None) -> Float:
    """Cyclic coordinate descent on a chain (three.js ``CCDIKSolver``).

    Each iteration turns every joint from the effector's parent up to the chain's first joint
    so that the effector points at the target; each new rotation is clamped to the joint's XYZ
    Euler limits.  Stops after ``iterations``, when an iteration changes nothing (angles below
    1e-5 rad), or once the effector is within ``tolerance`` of the target.

    Parameters
    ----------
    base : (..., 4, 4) float
        World matrix of the parent of the chain's first joint (rigid or uniformly scaled).
    translations, rotations : (..., L, 3), (..., L, 4)
        Local transforms of the L <= 64 chain joints, each the parent of the next; the last is
        the effector.
    target : (..., 3)
        World position for the effector.
    rotation_min, rotation_max : (..., L, 3) or None
        Bounds of each joint's XYZ Euler angles (radians, three.js ``rotationMin`` /
        ``rotationMax``); None: -inf / +inf.
    iterations : (...) int, 0..1000000
    tolerance : (...) float, world units

    Returns
    -------
    (..., L, 4)
        The chain's new local rotations (the effector's as given).

    Raises
    ------
    ValueError
        A chain longer than 64 joints; iterations not whole numbers in 0..1000000.
    """
    r0 = np.asarray(rotations)
    lo = np.full(r0.shape[-2:-1] + (3,), -np.inf) if rotation_min is None else rotation_min
    hi = np.full(r0.shape[-2:-1] + (3,), np.inf) if rotation_max is None else rotation_max
    b, t, r, x, lo_, hi_, it, tol = _real(base, translations, rotations, target, lo, hi,
                                          _iterations(iterations), tolerance)
    return _core._ik_ccd(b, t, r, x, lo_, hi_, it, tol, None, threads)


def ik_fabrik(base: ArrayLike, translations: ArrayLike, rotations: ArrayLike, target: ArrayLike,
              max_angle: Optional[ArrayLike] = None, iterations: ArrayLike = 10,
              tolerance: ArrayLike = 1e-6, threads: Optional[int] = None) -> Float:
    """FABRIK on a chain (Aristidou and Lasenby 2011, "FABRIK: a fast, iterative solver for the
    inverse kinematics problem", Graph. Models 73(5)), with a cone limit per joint.

    Alternating passes from the effector (placed on the target) and from the chain's first joint
    (back on its place) until the effector is within ``tolerance`` of the target or after
    ``iterations``; a target out of reach gives the chain straight toward it.  In the pass from
    the first joint each bone is kept within ``max_angle[j]`` of the previous bone (the first
    bone: of its given direction).  Each joint is then turned by the shortest rotation from its
    bone's direction to the solved one.

    Parameters
    ----------
    base, translations, rotations, target, iterations, tolerance
        As ``ik_ccd``.
    max_angle : (..., L) or None
        Radians; None or >= pi for no limit.

    Returns
    -------
    (..., L, 4)
        The chain's new local rotations (the effector's as given).
    """
    r0 = np.asarray(rotations)
    lim = np.full(r0.shape[-2:-1], np.inf) if max_angle is None else max_angle
    b, t, r, x, lim_, it, tol = _real(base, translations, rotations, target, lim,
                                      _iterations(iterations), tolerance)
    return _core._ik_fabrik(b, t, r, x, lim_, it, tol, None, threads)
