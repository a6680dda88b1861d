"""Rotation formats of smplx's and ML code's pose arguments, to the axis-angle the body
operator takes: rotation matrices (smplx's ``pose2rot=False``) and the 6D representation of
Zhou, Barnes, Lu, Yang and Li, "On the Continuity of Rotation Representations in Neural
Networks" (CVPR 2019).  Plain torch functions (autograd differentiates them)."""
from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["matrix_from_6d", "rotvec_from_matrix"]


def matrix_from_6d(d6: Tensor) -> Tensor:
    """Rotation matrices (..., 3, 3) of 6D rotations (..., 6): Gram-Schmidt on the two 3-vectors,
    which are the first two rows of the matrix (PyTorch3D's ``rotation_6d_to_matrix``
    convention; Zhou et al. 2019, section 4.2, write them as columns: the transpose).

    Raises
    ------
    ValueError
        The last dimension is not 6.
    """
    if d6.shape[-1] != 6:
        raise ValueError(f"6D rotations must have shape (..., 6), got {tuple(d6.shape)}")
    a1, a2 = d6[..., :3], d6[..., 3:]
    b1 = torch.nn.functional.normalize(a1, dim=-1)
    b2 = torch.nn.functional.normalize(a2 - (b1 * a2).sum(-1, keepdim=True) * b1, dim=-1)
    return torch.stack([b1, b2, torch.linalg.cross(b1, b2)], dim=-2)


def rotvec_from_matrix(R: Tensor) -> Tensor:
    """Rotation vectors (..., 3) (axis times angle in [0, pi], radians) of rotation matrices
    (..., 3, 3).

    Through the unit quaternion with w >= 0 taken, as in Shepperd's method (J. Guidance and
    Control 1(3), 1978), from the largest of 4w^2, 4x^2, 4y^2, 4z^2 (accurate at every angle),
    then ``r = 2 atan2(|u|, w) u / |u|`` with the series ``2 / w (1 - |u|^2 / (3 w^2))`` for
    ``|u| < 1e-4`` (finite gradients at the identity)."""
    m = R.reshape(R.shape[:-2] + (9,))
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = m.unbind(-1)
    # 4 q_k^2 for k = x, y, z, w, and each candidate row 4 q_k q (x, y, z, w)
    sq = torch.stack([1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22,
                      1 + m00 + m11 + m22], -1)
    rows = torch.stack([
        torch.stack([sq[..., 0], m01 + m10, m02 + m20, m21 - m12], -1),
        torch.stack([m01 + m10, sq[..., 1], m12 + m21, m02 - m20], -1),
        torch.stack([m02 + m20, m12 + m21, sq[..., 2], m10 - m01], -1),
        torch.stack([m21 - m12, m02 - m20, m10 - m01, sq[..., 3]], -1)], -2)
    best = sq.argmax(-1, keepdim=True)
    row = torch.take_along_dim(rows, best[..., None], dim=-2)[..., 0, :]
    scale = torch.take_along_dim(sq, best, dim=-1).clamp_min(1e-30).sqrt()
    q = row / (2 * scale)
    q = q * torch.where(q[..., 3:] < 0, -1.0, 1.0).to(q.dtype)
    u, w = q[..., :3], q[..., 3:]
    n = torch.linalg.vector_norm(u, dim=-1, keepdim=True)
    small = n < 1e-4
    n_safe = torch.where(small, torch.ones_like(n), n)
    factor = torch.where(small, 2 / w * (1 - n * n / (3 * w * w)),
                         2 * torch.atan2(n_safe, w) / n_safe)
    return u * factor
