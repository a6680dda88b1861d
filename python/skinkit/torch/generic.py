"""skinkit's operators in plain torch, for every device torch has: the kernels of
``torch.ops.skinkit.*`` on CUDA and any device that is not the CPU (the CPU runs the C kernels;
``use_torch_kernels()`` runs these there too, which is how the tests check them against the C
kernels without a GPU).  Each follows its C kernel's arithmetic (src/quat.c, fk.c, lbs.c, dqs.c,
morph.c) on whole batches at once: FK and rigid FK level by level of the joint tree (one batched
product per depth), LBS and DQS a gather of each influence's transform and a weighted sum over
the influences, blend shapes one ``matmul``.  Plain torch functions: autograd differentiates
them (the VJP operators of a non-CPU device are ``torch.func.vjp`` of these).

Each takes its operator's operands by keyword (the descriptor's names, src/bind_table.c);
shapes and dtypes are the operator's, checked before (``_surface.fake``).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import torch
from torch import Tensor

__all__ = ["blend_shapes", "dual_quaternion_skinning", "forward_kinematics",
           "linear_blend_skinning", "quat_from_rotvec", "quat_to_matrix",
           "rigid_forward_kinematics"]

def _mm(a: Tensor, b: Tensor) -> Tensor:
    """a @ b for small matrices as a broadcast product and sum: one vectorised pass (torch's
    batched matmul of 4x4s runs a BLAS call per matrix on the CPU, 100x slower)."""
    return (a[..., :, :, None] * b[..., None, :, :]).sum(-2)


def _mv(a: Tensor, v: Tensor) -> Tensor:
    """a @ v for small matrices a (..., R, C) and vectors v (..., C)."""
    return (a * v[..., None, :]).sum(-1)


def _broadcast(*shapes: Tuple[int, ...]) -> Tuple[int, ...]:
    return tuple(torch.broadcast_shapes(*shapes))  # type: ignore[no-untyped-call]  # untyped


# ------------------------------------------------------------------ quaternions (qmath.h)

def _qmul(a: Tensor, b: Tensor) -> Tensor:
    ax, ay, az, aw = (a[..., i] for i in range(4))
    bx, by, bz, bw = (b[..., i] for i in range(4))
    return torch.stack([aw * bx + ax * bw + ay * bz - az * by,
                        aw * by - ax * bz + ay * bw + az * bx,
                        aw * bz + ax * by - ay * bx + az * bw,
                        aw * bw - ax * bx - ay * by - az * bz], -1)


def _qrot(q: Tensor, v: Tensor) -> Tensor:
    """q v q* for unit q: v + w t + u x t, t = 2 u x v (q used as given)."""
    u, w = q[..., :3], q[..., 3:]
    t = 2 * torch.linalg.cross(u, v)
    out: Tensor = v + w * t + torch.linalg.cross(u, t)   # (linalg.cross is untyped)
    return out


def quat_to_matrix(q: Tensor) -> Tensor:
    """(..., 4) -> (..., 3, 3): the polynomial of q (used as given) that is R(q) for unit q."""
    x, y, z, w = q.unbind(-1)
    x2, y2, z2 = x + x, y + y, z + z
    xx, xy, xz, yy, yz, zz = x * x2, x * y2, x * z2, y * y2, y * z2, z * z2
    wx, wy, wz = w * x2, w * y2, w * z2
    return torch.stack([1 - (yy + zz), xy - wz, xz + wy,
                        xy + wz, 1 - (xx + zz), yz - wx,
                        xz - wy, yz + wx, 1 - (xx + yy)], -1).reshape(q.shape[:-1] + (3, 3))


def quat_from_rotvec(rotvec: Tensor) -> Tensor:
    """(..., 3) -> (..., 4): ``(sin(a/2)/a r, cos(a/2))``, a = |r|, by series where
    (a/2)^2 < eps (finite gradients at 0)."""
    a2 = (rotvec * rotvec).sum(-1, keepdim=True)
    small = a2 * 0.25 < torch.finfo(rotvec.dtype).eps
    a = torch.where(small, torch.ones_like(a2), a2).sqrt()
    s = torch.where(small, 0.5 * (1 - a2 / 24), torch.sin(0.5 * a) / a)
    w = torch.where(small, 1 - a2 / 8, torch.cos(0.5 * a))
    return torch.cat([rotvec * s, w], -1)


# ------------------------------------------------------------------ the joint tree

def _levels(parents: Tensor) -> Tuple[List[Tensor], List[Tensor], Tensor]:
    """The joints by depth (index tensors), each level's parents as positions in the level
    above, and the permutation from the levels' concatenation back to joint order.  ValueError
    for a parent index out of range or a cycle (as the C kernels)."""
    par = [int(p) for p in parents.tolist()]
    J = len(par)
    for j, p in enumerate(par):
        if not -1 <= p < J:
            raise ValueError(f"parents[{j}] = {p}: must be -1 or a joint index 0..{J - 1}")
    depth = [-1] * J
    for j in range(J):
        chain, k = [], j
        while k >= 0 and depth[k] < 0:
            if k in chain:
                raise ValueError(f"parents form a cycle through joint {k}")
            chain.append(k)
            k = par[k]
        d = depth[k] if k >= 0 else -1
        for c in reversed(chain):
            d += 1
            depth[c] = d
    levels: List[List[int]] = [[] for _ in range(max(depth, default=-1) + 1)]
    for j in range(J):
        levels[depth[j]].append(j)
    where = {j: i for lv in levels for i, j in enumerate(lv)}
    dev = parents.device
    idx = [torch.tensor(lv, device=dev) for lv in levels]
    pos = [torch.tensor([where[par[j]] for j in lv], device=dev) for lv in levels[1:]]
    order = [j for lv in levels for j in lv]
    inverse = torch.empty(J, dtype=torch.long)
    inverse[torch.tensor(order, dtype=torch.long)] = torch.arange(J)
    return idx, pos, inverse.to(dev)


def rigid_forward_kinematics(*, parents: Tensor, rest_positions: Tensor, rotations: Tensor
                             ) -> Tuple[Tensor, Tensor]:
    """libigl's recursion ``Q_i = Q_p q_i``, ``t_i = t_p + Q_p x_i - Q_i x_i`` (roots
    ``t_i = x_i - Q_i x_i``), one level of the tree at a time."""
    J = parents.shape[0]
    batch = _broadcast(rest_positions.shape[:-2], rotations.shape[:-2])
    x = rest_positions.expand(batch + (J, 3))
    q = rotations.expand(batch + (J, 4))
    idx, pos, inverse = _levels(parents)
    Q = [q[..., idx[0], :]]
    t = [x[..., idx[0], :] - _qrot(Q[0], x[..., idx[0], :])]
    for lv, p in zip(idx[1:], pos):
        Qp, tp, xi = Q[-1][..., p, :], t[-1][..., p, :], x[..., lv, :]
        Q.append(_qmul(Qp, q[..., lv, :]))
        t.append(tp + _qrot(Qp, xi) - _qrot(Q[-1], xi))
    return torch.cat(Q, -2)[..., inverse, :], torch.cat(t, -2)[..., inverse, :]


def forward_kinematics(*, parents: Tensor, rotations: Tensor, translations: Tensor,
                       scales: Optional[Tensor]) -> Tensor:
    """``M_i = M_p T(t_i) R(q_i) S(s_i)`` (glTF 2.0 section 3.5.3), one level at a time."""
    J = parents.shape[0]
    shapes = [rotations.shape[:-2], translations.shape[:-2]]
    shapes += [scales.shape[:-2]] if scales is not None else []
    batch = _broadcast(*shapes)
    R = quat_to_matrix(rotations.expand(batch + (J, 4)))
    if scales is not None:
        R = R * scales.expand(batch + (J, 3))[..., None, :]
    top = torch.cat([R, translations.expand(batch + (J, 3))[..., None]], -1)
    last = torch.zeros(batch + (J, 1, 4), dtype=top.dtype, device=top.device)
    last[..., 3] = 1
    local = torch.cat([top, last], -2)
    idx, pos, inverse = _levels(parents)
    world = [local[..., idx[0], :, :]]
    for lv, p in zip(idx[1:], pos):
        world.append(_mm(world[-1][..., p, :, :], local[..., lv, :, :]))
    return torch.cat(world, -3)[..., inverse, :, :]


# ------------------------------------------------------------------ skinning

def _influences(joints: Tensor, J: int) -> Tuple[Tensor, Tensor]:
    """(indices clamped to 0, mask of the used slots); ValueError for an index < -1 or >= J
    (indices of any integer dtype: uint8 ones compared as integers)."""
    joints = joints.long()
    bad = (joints < -1) | (joints >= J)
    if bool(bad.any()):
        v, k = (int(i) for i in bad.nonzero()[0])
        raise ValueError(f"joints[{v}, {k}] = {int(joints[v, k])} is not -1 or a joint index "
                         f"0..{J - 1}")
    return joints.clamp_min(0).long(), joints >= 0


def linear_blend_skinning(*, vertices: Tensor, joints: Tensor, weights: Tensor,
                          skinning_matrices: Tensor) -> Tensor:
    """``v'_i = sum_k w_ik M_{j_ik} [v_i; 1]`` (rows 0-2 of the matrices): the blended 3x4
    gathered one influence at a time (memory of one (..., V, 3, 4) at a time)."""
    J, V = skinning_matrices.shape[-3], vertices.shape[-2]
    j, used = _influences(joints, J)
    w = torch.where(used, weights, torch.zeros((), dtype=weights.dtype, device=weights.device))
    top = skinning_matrices[..., :3, :]
    batch = _broadcast(vertices.shape[:-2], top.shape[:-3], w.shape[:-2])
    A = torch.zeros(batch + (V, 3, 4), dtype=top.dtype, device=top.device)
    for k in range(j.shape[1]):
        A = A + w[..., k, None, None] * top[..., j[:, k], :, :]
    return _mv(A[..., :3], vertices) + A[..., 3]


def _from_rotation(a: Tensor) -> Tensor:
    """Shepperd's quaternion (x, y, z, w), w >= 0, of 3x3 rotations (src/quat.c from_matrix):
    the branch of the largest of the trace and the diagonal, then normalised."""
    m = a.reshape(a.shape[:-2] + (9,))
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = m.unbind(-1)
    tr = a0 + a4 + a8
    one = torch.ones_like(tr)

    def branch(big: Tensor, o: List[Tensor], at: int) -> Tensor:
        h = 0.5 * torch.sqrt(torch.clamp_min(1 + big, 1e-30))
        f = h.reciprocal() * 0.25
        parts = [x * f for x in o]
        parts.insert(at, h)
        return torch.stack(parts, -1)

    cands = [branch(tr, [a7 - a5, a2 - a6, a3 - a1], 3),
             branch(a0 - a4 - a8, [a1 + a3, a2 + a6, a7 - a5], 0),
             branch(a4 - a0 - a8, [a1 + a3, a5 + a7, a2 - a6], 1),
             branch(a8 - a0 - a4, [a2 + a6, a5 + a7, a3 - a1], 2)]
    pick = torch.where((tr >= a0) & (tr >= a4) & (tr >= a8), 0 * one,
                       torch.where((a0 >= a4) & (a0 >= a8), one, torch.where(a4 >= a8, 2 * one,
                                                                            3 * one))).long()
    q = torch.take_along_dim(torch.stack(cands, -2), pick[..., None, None], -2)[..., 0, :]
    q = q / torch.linalg.vector_norm(q, dim=-1, keepdim=True)
    out: Tensor = q * torch.where(q[..., 3:] < 0, -1.0, 1.0).to(q.dtype)
    return out


def _polar(a: Tensor) -> Tensor:
    """The orthogonal polar factor of 3x3 matrices, by Newton's iteration with Higham's scaling
    (Higham 1986), ten steps: its derivative has no branch where singular values meet."""
    x = a
    for _ in range(10):
        inv_t = torch.linalg.inv(x).transpose(-1, -2)
        g = (torch.linalg.matrix_norm(inv_t) / torch.linalg.matrix_norm(x)).sqrt()[..., None,
                                                                                    None]
        x = 0.5 * (g * x + inv_t / g)
    return x


def _records(m: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """Per joint the quaternion q of the rotation Q nearest to A = m[:3, :3], the dual part
    d = 1/2 (t, 0) q and E (4 x 3) with E v = 1/2 ((A - Q) v, 0) q (src/dqs.c,
    sk_skinning_dual_quaternions): the C kernel's scale path, taken for every matrix (for a
    rotation Q = A to rounding and E = 0, the C kernel's rigid path; its VJP differentiates
    the scale path too)."""
    a = m[..., :3, :3]
    q = _from_rotation(_polar(a))
    zero = torch.zeros(m.shape[:-2] + (1,), dtype=m.dtype, device=m.device)
    d = 0.5 * _qmul(torch.cat([m[..., :3, 3], zero], -1), q)
    u = torch.cat([a - quat_to_matrix(q), torch.zeros(m.shape[:-2] + (1, 3), dtype=m.dtype,
                                                      device=m.device)], -2)   # (4, 3): columns
    E = 0.5 * _qmul(u.transpose(-1, -2), q[..., None, :]).transpose(-1, -2)   # (..., 4, 3)
    return q, d, E


def dual_quaternion_skinning(*, vertices: Tensor, joints: Tensor, weights: Tensor,
                             skinning_matrices: Tensor) -> Tensor:
    """Kavan et al. 2008, Algorithm 1, with scaled matrices as Blender's "Preserve Volume"
    (src/dqs.c): b = sum_k s_k w_k q_k, e = sum_k s_k w_k (d_k + E_k v), s_k the sign putting
    q_k in the hemisphere of the vertex's pivot (its first influence with a joint and a non-zero
    weight); a vertex with b = 0 keeps its rest position.  The nearest rotation of a scaled
    matrix by polar iteration (the C kernel: an eigenvector; the same rotation where det > 0)."""
    J = skinning_matrices.shape[-3]
    j, used = _influences(joints, J)
    q, d, E = _records(skinning_matrices)
    w = torch.where(used, weights, torch.zeros((), dtype=weights.dtype, device=weights.device))
    K = j.shape[1]
    if K == 0:
        batch = _broadcast(vertices.shape[:-2], q.shape[:-2])
        return vertices.expand(batch + vertices.shape[-2:]).clone()
    qs = [q[..., j[:, k], :] for k in range(K)]
    # the pivot: the first slot with a joint and a non-zero weight (a zero weight still gets
    # its derivative, the one-sided limit, as the C VJP)
    first = (used & (weights != 0)).long().argmax(-1)                     # (..., V)
    pivot = sum((first == k)[..., None].to(q.dtype) * qs[k] for k in range(K))
    b = e = torch.zeros((), dtype=q.dtype, device=q.device)
    for k in range(K):
        qk = qs[k]
        sign = torch.where((pivot * qk).sum(-1, keepdim=True) < 0, -1.0, 1.0).to(q.dtype)
        ws = w[..., k, None] * sign
        b = b + ws * qk
        e = e + ws * (d[..., j[:, k], :] + _mv(E[..., j[:, k], :, :], vertices))
    b = b + torch.zeros(vertices.shape[:-1] + (4,), dtype=q.dtype, device=q.device)
    e = e + torch.zeros_like(b)
    n = torch.linalg.vector_norm(b, dim=-1, keepdim=True)
    empty = n == 0
    inv = 1 / torch.where(empty, torch.ones_like(n), n)
    c0, ce = b * inv, e * inv
    d0, a0, de, ae = c0[..., :3], c0[..., 3:], ce[..., :3], ce[..., 3:]
    v = vertices.expand(b.shape[:-1] + (3,))
    moved = (v + 2 * torch.linalg.cross(d0, torch.linalg.cross(d0, v) + a0 * v)
             + 2 * (a0 * de - ae * d0 + torch.linalg.cross(d0, de)))
    return torch.where(empty, v, moved)


def blend_shapes(*, base: Tensor, deltas: Tensor, weights: Tensor) -> Tensor:
    """``base + sum_m weights[..., m] deltas[m]`` (glTF 2.0 section 3.7.2.2) as one matmul."""
    M = deltas.shape[0]
    flat = weights.reshape(-1, M) @ deltas.reshape(M, -1)
    return base + flat.reshape(weights.shape[:-1] + base.shape)

