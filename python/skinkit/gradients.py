"""Vector-Jacobian products (VJPs) of the kernels, for gradient-based fitting without autograd.

Each ``*_vjp`` kernel takes the forward kernel's inputs and the cotangent ``g`` of its result
(an array of the result's shape) and returns the cotangents of its float inputs, one per batch
item: an input that was broadcast along a batch dimension gets its cotangent by summing over
that dimension (``BodyModel.forward_vjp`` does so, as ``jax.vjp``).  The products are analytic
and run in C (src/*_vjp.c); dtype, ``out=``, ``threads=`` and batch rules are those of every
kernel (see skinkit.kernels).  Quaternion inputs are free 4-vectors: the VJP differentiates the
very polynomial the forward kernel evaluates.
"""
from __future__ import annotations

import numpy as np

from . import _core
from .kernels import _shapes

__all__ = ["quat_to_matrix_vjp", "quat_from_rotvec_vjp", "rigid_forward_kinematics_vjp",
           "linear_blend_skinning_vjp", "forward_kinematics_vjp",
           "linear_blend_skinning_weights_vjp"]


@_shapes
def quat_to_matrix_vjp(q, g, out=None, threads=None):
    """Cotangent of q from the cotangent g of ``quat_to_matrix(q)``.

    The matrix is the polynomial I + 2w[u]x + 2[u]x^2 of q = (u, w) (used as given), so
    ``d<g, R>/dw = 2 a.u`` and ``d<g, R>/du = 2 w a + 2 (g + g^T) u - 4 tr(g) u`` with
    ``a = (g21 - g12, g02 - g20, g10 - g01)``."""
    return _core.quat_to_matrix_vjp(q, g, out, threads)


@_shapes
def quat_from_rotvec_vjp(rotvec, g, out=None, threads=None):
    """Cotangent of rotvec from the cotangent g of ``quat_from_rotvec(rotvec)``.

    With ``a = |r|`` and ``q = (sin(a/2)/a r, cos(a/2))``:
    ``g_r = k g_u + ((g_u.r) k'(a)/a - g_w k/2) r`` where k = sin(a/2)/a; k'(a)/a is taken from its Taylor series for a < 0.3, so the result is
    accurate at and near the zero rotation."""
    return _core.quat_from_rotvec_vjp(rotvec, g, out, threads)


@_shapes
def rigid_forward_kinematics_vjp(parents, rest_positions, rotations, g_rotations, g_translations,
                                 out=None, threads=None):
    """Cotangents of rest_positions and rotations from the cotangents g_rotations (of the world
    rotations Q) and g_translations (of t) of ``rigid_forward_kinematics``.

    Reverse mode through libigl's recursion ``Q_i = Q_p q_i``, ``t_i = t_p + Q_p x_i - Q_i x_i``
    (roots ``t_i = x_i - Q_i x_i``), children before parents, in C; ``out`` an optional pair.
    A root's rest position gets the cotangent of every joint below it."""
    return _core.rigid_forward_kinematics_vjp(parents, rest_positions, rotations, g_rotations,
                                              g_translations, out, threads)


@_shapes
def linear_blend_skinning_vjp(vertices, joints, weights, skinning_matrices, g, out=None,
                              threads=None):
    """Cotangents of vertices and skinning_matrices from the cotangent g of the positions of
    ``linear_blend_skinning`` (weights are constants here).

    With ``A_i = sum_k w_ik M_{j_ik}``: ``g_v_i = A_i[:3, :3]^T g_i`` and
    ``g_M_j = sum_{i,k: j_ik = j} w_ik g_i [v_i, 1]^T``, summed over a pose's vertices in C
    (threads split the batch by poses); row 3 of each matrix cotangent is 0.  ``out`` an
    optional pair."""
    return _core.linear_blend_skinning_vjp(vertices, joints, weights, skinning_matrices, g, out,
                                           threads)


def _children_first(parents):
    """Joint indices ordered so that every joint comes before its parent."""
    depth = np.zeros(len(parents), np.int64)
    for _ in range(len(parents)):
        d = np.where(parents >= 0, depth[parents] + 1, 0)
        if (d == depth).all():
            break
        depth = d
    return np.argsort(-depth, kind="stable")


def forward_kinematics_vjp(parents, rotations, translations, scales, world, g):
    """Cotangents (g_rotations, g_translations, g_scales) of ``forward_kinematics`` from the
    cotangent g (..., J, 4, 4) of its result ``world`` (..., J, 4, 4); g_scales is None when
    scales is None.

    Reverse mode through ``M_i = M_p L_i`` with ``L_i = T(t_i) R(q_i) S(s_i)``, children before
    parents: ``g_L_i = M_p^T g_M_i`` and ``g_M_p += g_M_i L_i^T``; then ``g_t = g_L[:3, 3]``,
    ``g_s = diag(R^T g_L[:3, :3])`` and the rotation's cotangent ``g_L[:3, :3] S`` goes through
    ``quat_to_matrix_vjp`` (C).  One NumPy step per joint, vectorised over the batch; results
    of the broadcast batch shape, in the result dtype of ``forward_kinematics``.
    """
    parents = np.asarray(parents).astype(np.int64)
    q, t, w, g = (np.asarray(a) for a in (rotations, translations, world, g))
    dt = np.result_type(w.dtype, g.dtype)
    J = len(parents)
    s = np.ones(t.shape, dt) if scales is None else np.asarray(scales)
    batch = np.broadcast_shapes(q.shape[:-2], t.shape[:-2], s.shape[:-2], w.shape[:-3],
                                g.shape[:-3])
    q, t, s = (np.broadcast_to(a, batch + a.shape[-2:]).astype(dt) for a in (q, t, s))
    R = _core.quat_to_matrix(q, None, None)
    L = np.zeros(batch + (J, 4, 4), dt)
    L[..., :3, :3] = R * s[..., None, :]
    L[..., :3, 3] = t
    L[..., 3, 3] = 1
    gM = np.array(np.broadcast_to(g, batch + (J, 4, 4)), dt)
    w = np.broadcast_to(w, batch + (J, 4, 4))
    gL = np.empty_like(gM)
    for j in _children_first(parents):
        p = parents[j]
        if p < 0:
            gL[..., j, :, :] = gM[..., j, :, :]
            continue
        gL[..., j, :, :] = np.swapaxes(w[..., p, :, :], -1, -2) @ gM[..., j, :, :]
        gM[..., p, :, :] += gM[..., j, :, :] @ np.swapaxes(L[..., j, :, :], -1, -2)
    gRS = gL[..., :3, :3]
    g_q = _core.quat_to_matrix_vjp(q, np.ascontiguousarray(gRS * s[..., None, :]), None, None)
    g_s = None if scales is None else (gRS * R).sum(axis=-2)
    return g_q, np.ascontiguousarray(gL[..., :3, 3]), g_s


@_shapes
def linear_blend_skinning_weights_vjp(vertices, joints, weights, skinning_matrices, g, out=None,
                                      threads=None):
    """Cotangent of the weights of ``linear_blend_skinning`` from the cotangent g of its
    positions, one per pose (sum over the batch for the weights' own cotangent):
    ``g_w_ik = dot(g_i, M_{j_ik} [v_i; 1])``, 0 for a slot with joint -1 (src/lbs_weights_vjp.c).
    The weights' values are not read (the positions are linear in them)."""
    return _core.linear_blend_skinning_weights_vjp(vertices, joints, weights, skinning_matrices,
                                                   g, out, threads)
