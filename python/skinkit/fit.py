"""Fitting a body model's pose and shape to 3D joints or vertices: ``fit_body``.

Two stages, batched over the targets:

1. initialisation by alternation, in the spirit of smplfitter (Sárándi and Pons-Moll, "Neural
   Localizer Fields for Continuous 3D Human Pose and Shape Estimation", NeurIPS 2024): with the
   shape fixed, each joint's world rotation is the weighted Procrustes (Kabsch) fit of the rest
   vertices it skins (and of its children's rest offsets) to the targets, in kinematic order;
   with the pose fixed, the posed model is affine in betas and the translation, so they are the
   solution of one regularised linear least-squares problem (its matrix from S + 1 forward
   passes, exact);
2. refinement by L-BFGS (Nocedal, "Updating quasi-Newton matrices with limited storage", Math.
   Comp. 35, 1980; Armijo backtracking) on the analytic gradients of ``BodyModel.forward_vjp``,
   item by item, until the RMS error is below ``tol``.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from .body import BodyModel
from .gradients import _children_first
from .kernels import quat_from_matrix

__all__ = ["FitResult", "fit_body"]


class FitResult(NamedTuple):
    """``fit_body``'s result: betas (B, S), pose (B, J, 3) axis-angle, transl (B, 3), the RMS
    distance to the targets per item (B,) in the model's units (vertices when they were given,
    else joints), and the L-BFGS iterations run."""
    betas: np.ndarray
    pose: np.ndarray
    transl: np.ndarray
    rms: np.ndarray
    iterations: int


def _rotvec(R):
    """Rotation vectors of rotation matrices (through unit quaternions with w >= 0)."""
    q = quat_from_matrix(R)
    n = np.linalg.norm(q[..., :3], axis=-1, keepdims=True)
    safe = np.where(n > 1e-12, n, 1)
    return q[..., :3] * np.where(n > 1e-12, 2 * np.arctan2(n, q[..., 3:]) / safe, 2)


def _polar(M):
    """The rotation nearest each M (..., 3, 3) (Kabsch: U diag(1, 1, det) V^T)."""
    U, _, Vt = np.linalg.svd(M)
    d = np.sign(np.linalg.det(U @ Vt))
    U[..., :, 2] *= d[..., None]
    return U @ Vt


class _Problem:
    """Targets, weights and the per-item objective 0.5 (|v - tv|^2 / V wv + |j - tj|^2 / J wj)."""

    def __init__(self, model, tv, tj, wv, wj, S, threads):
        self.m, self.tv, self.tj, self.S, self.threads = model, tv, tj, S, threads
        self.cv = 0 if tv is None else wv / model.num_vertices
        self.cj = 0 if tj is None else wj / model.num_joints

    def split(self, x):
        J, S = self.m.num_joints, self.S
        return x[:, :S], x[:, S:S + 3 * J].reshape(-1, J, 3), x[:, S + 3 * J:]

    def residuals(self, v, j):
        rv = None if self.tv is None else v - self.tv
        rj = None if self.tj is None else j - self.tj
        return rv, rj

    def rms(self, v, j):
        rv, rj = self.residuals(v, j)
        r = rv if rv is not None else rj
        return np.sqrt((r ** 2).sum(-1).mean(-1))

    def value_and_grad(self, x):
        b, p, t = self.split(x)
        (v, j), vjp = self.m.forward_vjp(b, p, t, threads=self.threads)
        rv, rj = self.residuals(v, j)
        f = np.zeros(len(x))
        if rv is not None:
            f += 0.5 * self.cv * (rv ** 2).sum((1, 2))
        if rj is not None:
            f += 0.5 * self.cj * (rj ** 2).sum((1, 2))
        g = vjp(None if rv is None else self.cv * rv, None if rj is None else self.cj * rj)
        return f, np.concatenate([g[0], g[1].reshape(len(x), -1), g[2]], 1), self.rms(v, j)


def _procrustes_pose(pr, betas):
    """Local rotations (B, J, 3) and translation (B, 3) with the shape ``betas`` fixed: each
    joint's world rotation is the weighted Kabsch fit, about the weighted centroids, of the rest
    vertices it skins (weights: its skinning weights) and of its children's rest offsets to the
    targets; a joint with neither keeps its parent's rotation."""
    m, tv, tj = pr.m, pr.tv, pr.tj
    B, J = len(betas), m.num_joints
    rest, x = m.forward(betas)                                  # (B, V, 3), (B, J, 3)
    parents = m.parents
    G = np.zeros((B, J, 3, 3))
    for j in _children_first(parents)[::-1]:                    # parents first
        p = parents[j]
        M = 1e-6 * (G[:, p] if p >= 0 else np.eye(3))           # near the parent's rotation
        if tv is not None:
            idx = pr.skinned[j]
            w = m.weights[idx, j] / m.weights[idx, j].sum()
            a, b = rest[:, idx], tv[:, idx]
            a = a - np.einsum("n,bnk->bk", w, a)[:, None]
            b = b - np.einsum("n,bnk->bk", w, b)[:, None]
            M = M + np.einsum("n,bni,bnk->bik", w, b, a)
        if tj is not None:
            kids = np.flatnonzero(parents == j)
            M = M + np.einsum("bni,bnk->bik", tj[:, kids] - tj[:, j, None],
                              x[:, kids] - x[:, j, None])
        G[:, j] = _polar(M)
    local = G.copy()
    nz = parents >= 0
    local[:, nz] = np.swapaxes(G[:, parents[nz]], -1, -2) @ G[:, nz]
    pose = _rotvec(local)
    # the translation: the posed model's offset from the targets, on average
    v, j = m.forward(betas, pose)
    rv, rj = pr.residuals(v, j)
    r = np.concatenate([a for a in (rv, rj) if a is not None], 1)
    return pose, -r.mean(1)


def _least_squares_shape(pr, pose, lam):
    """betas (B, S) and transl (B, 3) minimising the objective for a fixed pose: the model is
    affine in both, so one regularised linear solve (columns from S + 1 forward passes)."""
    m, S = pr.m, pr.S
    B = len(pose)
    E = np.concatenate([np.zeros((1, S)), np.eye(S)])             # betas 0, then e_s
    v, j = m.forward(E[None], pose[:, None], threads=pr.threads)  # (B, S + 1, ...)
    cols, rhs = [], []
    for out, tgt, c in ((v, pr.tv, pr.cv), (j, pr.tj, pr.cj)):
        if tgt is None:
            continue
        n = out.shape[2]
        A = (out[:, 1:] - out[:, :1]).reshape(B, S, -1)            # (B, S, 3n)
        T = np.broadcast_to(np.tile(np.eye(3), (1, n)), (B, 3, 3 * n))
        cols.append(np.sqrt(c) * np.concatenate([A, T], 1))
        rhs.append(np.sqrt(c) * (tgt - out[:, 0]).reshape(B, -1))
    A, b = np.concatenate(cols, 2), np.concatenate(rhs, 1)      # (B, S + 3, R), (B, R)
    N = A @ np.swapaxes(A, 1, 2)
    N[:, np.arange(S), np.arange(S)] += lam
    sol = np.linalg.solve(N, (A @ b[..., None]))[..., 0]
    return sol[:, :S], sol[:, S:]


def _lbfgs(pr, x, max_iter, tol, memory=8):
    f, g, rms = pr.value_and_grad(x)
    S, Y = [], []
    active = rms > tol
    it = 0
    while it < max_iter and active.any():
        it += 1
        q = g.copy()
        hist = []
        for s, y in zip(reversed(S), reversed(Y)):
            sy = (s * y).sum(1)
            rho = np.where(sy > 0, 1 / np.where(sy > 0, sy, 1), 0)
            a = rho * (s * q).sum(1)
            q -= a[:, None] * y
            hist.append((a, rho))
        if S:
            yy = (Y[-1] * Y[-1]).sum(1)
            q *= np.where(yy > 0, (S[-1] * Y[-1]).sum(1) / np.where(yy > 0, yy, 1), 1e-3)[:, None]
        else:
            q *= (1e-2 / np.maximum(np.abs(g).max(1), 1e-30))[:, None]
        for (s, y), (a, rho) in zip(zip(S, Y), reversed(hist)):
            q += s * (a - rho * (y * q).sum(1))[:, None]
        d = -q * active[:, None]
        gd = (g * d).sum(1)
        bad = gd >= 0                                    # not a descent direction: gradient
        d[bad] = -g[bad] * (1e-2 / np.maximum(np.abs(g[bad]).max(1, initial=0), 1e-30))[:, None]
        gd = (g * d).sum(1)
        step = np.ones(len(x))
        for _ in range(30):
            xn = x + step[:, None] * d
            fn, gn, rn = pr.value_and_grad(xn)
            ok = fn <= f + 1e-4 * step * gd
            if ok.all():
                break
            step = np.where(ok, step, 0.5 * step)
        s, y = xn - x, gn - g
        curved = (s * y).sum(1) > 1e-20
        S.append(s * curved[:, None])
        Y.append(y * curved[:, None])
        S, Y = S[-memory:], Y[-memory:]
        x, f, g, rms = xn, fn, gn, rn
        active &= rms > tol
    return x, rms, it


def fit_body(model: BodyModel, target_joints=None, target_vertices=None, *, num_betas=10,
             joint_weight=1.0, vertex_weight=1.0, shape_regularizer=1e-4, init_iterations=2,
             max_iter=200, tol=1e-3, threads: Optional[int] = None) -> FitResult:
    """Fit pose, shape and translation of ``model`` to target joints and/or vertices.

    Parameters
    ----------
    model : skinkit.BodyModel
    target_joints : (B, J, 3) or None
        The model's J joints (posed, as ``BodyModel.forward`` returns them), metres.
    target_vertices : (B, V, 3) or None
        Every vertex, in the model's vertex order, metres.
    num_betas : int
        How many shape coefficients to fit (at most ``model.num_betas``).
    joint_weight, vertex_weight : float
        Weights of the mean squared joint and vertex distances in the objective.
    shape_regularizer : float
        Ridge weight on betas in the linear shape solve of the initialisation.
    init_iterations : int
        Rounds of the alternating initialisation (rotations, then shape).
    max_iter : int
        L-BFGS iterations at most; an item stops when its RMS distance is below ``tol``.
    tol : float
        RMS distance (metres) at which an item is done (1e-3: one millimetre).
    threads : int or None
        The kernels' (and BLAS's) threads.

    Returns
    -------
    FitResult
        betas (B, num_betas), pose (B, J, 3), transl (B, 3), rms (B,), iterations.

    Raises
    ------
    ValueError
        No target, or a target of the wrong shape (the message names it).

    Notes
    -----
    The objective per item is ``0.5 (vertex_weight |v - tv|^2 / V + joint_weight |j - tj|^2 /
    J)``; see the module docstring for the two stages.  Expressions (SMPL-X) are not fitted.
    """
    J, V = model.num_joints, model.num_vertices
    tv = None if target_vertices is None else np.asarray(target_vertices, np.float64)
    tj = None if target_joints is None else np.asarray(target_joints, np.float64)
    if tv is None and tj is None:
        raise ValueError("fit_body needs target_joints or target_vertices")
    for name, t, n in (("target_vertices", tv, V), ("target_joints", tj, J)):
        if t is not None and (t.ndim != 3 or t.shape[1:] != (n, 3)):
            raise ValueError(f"{name} must have shape (B, {n}, 3), got {t.shape}")
    if tv is not None and tj is not None and len(tv) != len(tj):
        raise ValueError(f"target_vertices and target_joints must have the same batch size, got "
                         f"{len(tv)} and {len(tj)}")
    B = len(tv if tv is not None else tj)
    S = min(int(num_betas), model.num_betas)
    pr = _Problem(model, tv, tj, vertex_weight, joint_weight, S, threads)
    pr.skinned = [np.flatnonzero(model.weights[:, j] > 0) for j in range(J)]
    betas, pose, transl = np.zeros((B, S)), np.zeros((B, J, 3)), np.zeros((B, 3))
    for _ in range(init_iterations):
        pose, transl = _procrustes_pose(pr, betas)
        if S:
            betas, transl = _least_squares_shape(pr, pose, shape_regularizer)
    x = np.concatenate([betas, pose.reshape(B, -1), transl], 1)
    x, rms, it = _lbfgs(pr, x, max_iter, tol)
    b, p, t = pr.split(x)
    return FitResult(b, p, t, rms, it)
