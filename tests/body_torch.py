"""A torch transcription of smplx 0.1.28's ``lbs`` (smplx/lbs.py) with exact rotations: the
oracle for BodyModel.forward and, through torch autograd, for its VJP.

Differences from smplx, all deliberate: Rodrigues' formula without smplx's ``+ 1e-8`` on the
rotation vector (so this is the exact rotation and not defined at a zero rotation vector), the
translation added at the end (as smplx's SMPL.forward does), and betas padded with zeros to the
model's shape columns with the SMPL-X expression columns after them (as smplx's SMPLX does).
"""
from __future__ import annotations

import numpy as np
import torch


def rodrigues(r):
    """Exact rotation matrices (..., 3, 3) of rotation vectors (..., 3): I + sin(a)/a K +
    (1 - cos a)/a^2 K^2, K = [r]x (smplx.lbs.batch_rodrigues without its epsilon)."""
    a = torch.linalg.norm(r, dim=-1, keepdim=True)[..., None]
    x, y, z = r.unbind(-1)
    o = torch.zeros_like(x)
    K = torch.stack([o, -z, y, z, o, -x, -y, x, o], -1).reshape(r.shape[:-1] + (3, 3))
    return torch.eye(3, dtype=r.dtype) + torch.sin(a) / a * K + (1 - torch.cos(a)) / a ** 2 * K @ K


def body_forward(model, betas, pose, transl=None, expression=None):
    """(vertices (B, V, 3), joints (B, J, 3)) of a skinkit BodyModel ``model`` (its arrays)
    for torch tensors betas (B, S), pose (B, J, 3), transl (B, 3), expression (B, E)."""
    B, dt = pose.shape[0], pose.dtype
    t = lambda a: torch.tensor(np.ascontiguousarray(a), dtype=dt)  # noqa: E731
    coeff = torch.nn.functional.pad(betas, [0, model.num_betas - betas.shape[-1]])
    dirs = model.shapedirs
    if expression is not None:
        coeff = torch.cat([coeff, expression], -1)
        dirs = np.concatenate([dirs, model.exprdirs[:, :, :expression.shape[-1]]], -1)
    # smplx.lbs.lbs, step by step
    v_shaped = t(model.v_template) + torch.einsum("bl,mkl->bmk", coeff, t(dirs))
    J = torch.einsum("bik,ji->bjk", v_shaped, t(model.J_regressor))
    R = rodrigues(pose)
    pose_feature = (R[:, 1:] - torch.eye(3, dtype=dt)).reshape(B, -1)
    posedirs = t(model.posedirs.reshape(-1, model.posedirs.shape[-1]).T)
    v_posed = v_shaped + (pose_feature @ posedirs).reshape(B, -1, 3)
    # batch_rigid_transform
    parents = model.parents
    rel = torch.cat([J[:, :1], J[:, 1:] - J[:, parents[1:]]], 1)
    bottom = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=dt).expand(B, len(parents), 1, 4)
    local = torch.cat([torch.cat([R, rel[..., None]], -1), bottom], -2)
    chain = [local[:, 0]]
    for i in range(1, len(parents)):
        chain.append(chain[parents[i]] @ local[:, i])
    G = torch.stack(chain, 1)
    posed_joints = G[:, :, :3, 3]
    homog = torch.nn.functional.pad(J, [0, 1])[..., None]
    A = torch.cat([G[..., :3], G[..., 3:] - G @ homog], -1)
    T = torch.einsum("vj,bjrc->bvrc", t(model.weights), A)
    verts = (T[..., :3, :3] @ v_posed[..., None])[..., 0] + T[..., :3, 3]
    if transl is not None:
        verts, posed_joints = verts + transl[:, None], posed_joints + transl[:, None]
    return verts, posed_joints
