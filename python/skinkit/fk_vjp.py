"""The VJP of ``forward_kinematics`` (local TRS to world matrices), in NumPy with the C
quaternion VJP: ``forward_kinematics_vjp``, exported by ``skinkit.gradients``."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._kernels import Float, Input

__all__ = ["forward_kinematics_vjp"]


def children_first(parents: NDArray[np.integer[Any]]) -> NDArray[np.intp]:
    depth: NDArray[Any] = np.zeros(len(parents), np.int64)
    depth = np.zeros(len(parents), np.int64)
    for _ in range(len(parents)):
        d = np.where(parents >= 0, depth[parents] + 1, 0)
        if (d == depth).all():
            break
        depth = d
    return np.argsort(-depth, kind="stable")


def forward_kinematics_vjp(parents: Input, rotations: Input, translations: Input,
                           scales: Optional[Input], world: Input, g: Input
                           ) -> Tuple[Float, Float, Optional[Float]]:
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
    for j in children_first(parents):
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
