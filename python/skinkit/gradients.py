"""Vector-Jacobian products (VJPs) of the kernels, for gradient-based fitting without autograd.

Each ``*_vjp`` function takes the forward kernel's arguments and the cotangent ``g`` of its
result (an array of the result's shape) and returns the cotangents of the float arguments, each
in that argument's shape (summed over the dimensions along which it was broadcast), as
``jax.vjp`` does.  The products are analytic and run in C (src/*_vjp.c): dtype, threads= and
batch rules are the forward kernel's (see skinkit.kernels).  Quaternion arguments are treated as
free 4-vectors: the VJP differentiates the very polynomial the forward kernel evaluates (for a
unit quaternion, any tangent direction gives the same first-order change as the rotation).
"""
from __future__ import annotations

import numpy as np

from . import _core
from .kernels import _asarray, _joint_indices, rigid_forward_kinematics

__all__ = ["quat_to_matrix_vjp", "quat_from_axis_angle_vjp", "rigid_forward_kinematics_vjp",
           "linear_blend_skinning_vjp"]


def unbroadcast(g, shape):
    """Sum ``g`` over the leading and length-1 dimensions it gained by broadcasting to its
    shape from ``shape``; the cotangent of an argument of that shape."""
    shape = tuple(shape)
    g = np.asarray(g)
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=ones, keepdims=True) if ones else g


def _shape(x):
    return np.shape(_asarray(x))


def quat_to_matrix_vjp(q, g, threads=None):
    """Cotangent of q (..., 4) from the cotangent g (..., 3, 3) of ``quat_to_matrix(q)``.

    The matrix is the polynomial I + 2w[u]x + 2[u]x^2 of q = (u, w) (used as given), so
    ``d<g, R>/dw = 2 a.u`` and ``d<g, R>/du = 2 w a + 2 (g + g^T) u - 4 tr(g) u`` with
    ``a = (g21 - g12, g02 - g20, g10 - g01)``.
    """
    out = _core.quat_to_matrix_vjp(q, g, None, threads)
    return unbroadcast(out, _shape(q))


def quat_from_axis_angle_vjp(rotvec, g, threads=None):
    """Cotangent of rotvec (..., 3) from the cotangent g (..., 4) of
    ``quat_from_axis_angle(rotvec)``.

    With a = |r| and q = (sin(a/2)/a r, cos(a/2)): ``g_r = k g_u + ((g_u.r) k'(a)/a - g_w k/2) r``
    where k = sin(a/2)/a; k'(a)/a is taken from its Taylor series for a < 0.3, so the result is
    accurate at and near the zero rotation.
    """
    out = _core.quat_from_axis_angle_vjp(rotvec, g, None, threads)
    return unbroadcast(out, _shape(rotvec))


def rigid_forward_kinematics_vjp(parents, rest_positions, rotations, g_rotations, g_translations,
                                 threads=None):
    """Cotangents of ``rigid_forward_kinematics(parents, rest_positions, rotations)``.

    Parameters
    ----------
    parents : integer array (J,), -1 for roots, any order.
    rest_positions : (..., J, 3); rotations : (..., J, 4) as in the forward kernel.
    g_rotations : (..., J, 4) cotangent of the world rotations Q.
    g_translations : (..., J, 3) cotangent of the translations t.

    Returns
    -------
    g_rest_positions (shape of rest_positions), g_rotations_local (shape of rotations).

    Notes
    -----
    Reverse mode through libigl's recursion ``Q_i = Q_p q_i``, ``t_i = t_p + Q_p x_i - Q_i x_i``
    (roots ``t_i = x_i - Q_i x_i``), children before parents, in C.  A root's translation
    (its rest position) gets the cotangent of every joint below it.
    """
    Q, _ = rigid_forward_kinematics(parents, rest_positions, rotations, threads=threads)
    gx, gq = _core.rigid_forward_kinematics_vjp(parents, rest_positions, rotations, Q,
                                                g_rotations, g_translations, None, threads)
    return unbroadcast(gx, _shape(rest_positions)), unbroadcast(gq, _shape(rotations))


def linear_blend_skinning_vjp(vertices, joints, weights, skinning_matrices, g, threads=None):
    """Cotangents of ``linear_blend_skinning(vertices, joints, weights, skinning_matrices)``
    (positions only) for the cotangent g (..., V, 3) of the skinned positions.

    Returns
    -------
    g_vertices (shape of vertices), g_skinning_matrices (shape of skinning_matrices; row 3 of
    each matrix is 0, as that row does not enter the result).

    Notes
    -----
    With ``A_i = sum_k w_ik M_{j_ik}``: ``g_v_i = A_i[:3, :3]^T g_i`` and
    ``g_M_j = sum_{i,k: j_ik = j} w_ik g_i [v_i, 1]^T``, summed over a pose's vertices in C
    (threads split the batch by poses).  Weights are constants here (no cotangent).
    """
    gv, gm = _core.linear_blend_skinning_vjp(vertices, _joint_indices(joints), weights,
                                             skinning_matrices, g, None, threads)
    return unbroadcast(gv, _shape(vertices)), unbroadcast(gm, _shape(skinning_matrices))
