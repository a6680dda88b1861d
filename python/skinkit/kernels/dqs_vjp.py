"""The VJP of ``dual_quaternion_skinning`` (positions): ``dual_quaternion_skinning_vjp``,
exported by ``skinkit.kernels.gradients``, in two C kernels (src/dqs_vjp.c) that run the forward's two
steps backwards: the per-vertex blend to the cotangents of the joint records, then each record to
its skinning matrix."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from .. import _core
from ._generated import Float, Input
from .wrappers import _dq_matrices

__all__ = ["dual_quaternion_skinning_vjp"]

RECORD_SIZE = _core._skinning_dual_quaternions(np.eye(4), None, None).shape[-1]
"""Reals per joint record (SK_DQ_RECORD in src/skinkit.h)."""


def blend_vjp(vertices: Input, joints: Input, weights: Input, skinning_matrices: Input, g: Input,
              threads: Optional[int] = None) -> Tuple[Float, Float, Float]:
    """(g_vertices, g_weights, g_records): the first step of ``dual_quaternion_skinning_vjp``,
    g_records (..., J, RECORD_SIZE) the cotangents of the joint records."""
    m = _dq_matrices(skinning_matrices, vertices, weights, g)
    records = _core._skinning_dual_quaternions(m, None, threads)
    return _core._dual_quaternion_skinning_vjp(vertices, joints, weights, records, g, None,
                                               threads)


def records_vjp(skinning_matrices: Input, g_records: Input, threads: Optional[int] = None
                ) -> Float:
    """g_skinning_matrices (..., J, 4, 4) from g_records: the second step."""
    return _core._skinning_dual_quaternions_vjp(_dq_matrices(skinning_matrices, g_records),
                                                g_records, None, threads)


def dual_quaternion_skinning_vjp(vertices: Input, joints: Input, weights: Input,
                                 skinning_matrices: Input, g: Input,
                                 threads: Optional[int] = None) -> Tuple[Float, Float, Float]:
    """Cotangents of vertices, weights and skinning_matrices from the cotangent g of the
    positions of ``dual_quaternion_skinning`` (one pass over the vertices gives all three: the
    positions are not linear in the weights, as they are in linear blend skinning).

    Reverse mode through Kavan et al. 2008, Algorithm 1 (the blend b = sum s_k w_k q_k, its
    normalisation and the rigid motion of the unit dual quaternion), each joint's cotangent
    summed over a pose's vertices in C (threads split the batch by poses, so the sums do not
    depend on the thread count), then through each skinning matrix's record: the quaternion of
    the rotation Q nearest to A = M[:3, :3] (the eigenvector of Horn's 4x4 matrix N(A); its
    derivative ``dq = sum_{j != max} v_j v_j^T dN q / (lambda_max - lambda_j)``), the dual part
    ``1/2 (t, 0) q`` and the scale term ``1/2 ((A - Q) v, 0) q``.  For a rigid A this is the
    derivative along every direction, rotations or not (off the rotations the forward takes
    the scale path, which agrees with the rigid one on them).  Derivation in src/dqs_vjp.c.

    The hemisphere signs s_k are held constant: the result is the derivative wherever it
    exists, not at an influence whose rotation is a half turn from the vertex's pivot, nor
    where two top eigenvalues of N(A) meet (A with det <= 0 whose two smallest singular values
    are equal: no unique nearest rotation).  A vertex whose blended rotation is zero keeps its
    rest position: g_v = g there, and no cotangent for its weights or matrices.  A zero weight
    gets its derivative too (the one-sided limit as it grows).

    Parameters
    ----------
    vertices : (..., V, 3)
    joints : (V, K) integers, -1 for an unused slot
    weights : (V, K)
    skinning_matrices : (..., J, 4, 4)
    g : (..., V, 3)
        Cotangent of the skinned positions.
    threads : int or None
        As for every kernel.

    Returns
    -------
    g_vertices : (..., V, 3)
    g_weights : (..., V, K)
        One per pose (sum over the batch for the weights' own cotangent), 0 for joint -1.
    g_skinning_matrices : (..., J, 4, 4)
        Row 3 is 0.  Results are float64 unless every operand is float32.

    Raises
    ------
    ValueError
        As ``dual_quaternion_skinning``: shapes that do not match, a joint index outside
        -1..J-1 (naming the vertex and slot).
    """
    gv, gw, gr = blend_vjp(vertices, joints, weights, skinning_matrices, g, threads)
    return gv, gw, records_vjp(skinning_matrices, gr, threads)
