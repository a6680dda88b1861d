"""Fitting a body model's pose and shape to 3D joints or vertices: ``fit_body``.

Three stages, batched over the targets:

1. initialisation by alternation, in the spirit of smplfitter (Sárándi and Pons-Moll, "Neural
   Localizer Fields for Continuous 3D Human Pose and Shape Estimation", NeurIPS 2024): with the
   shape fixed, each joint's world rotation is the weighted Procrustes (Kabsch) fit of the rest
   vertices it skins (and of its children's rest offsets) to the targets, in kinematic order;
   with the pose fixed, the posed model is affine in betas and the translation, so they are the
   solution of one regularised linear least-squares problem (its matrix from S + 1 forward
   passes, exact);
2. Gauss-Newton on the world-frame joint rotations, the translation and betas, with the
   Jacobian of a vertex subset and of the joints in closed form (``_gauss_newton``);
3. for items still above ``tol``, L-BFGS (Nocedal, "Updating quasi-Newton matrices with limited storage", Math.
   Comp. 35, 1980; Armijo backtracking) on the analytic gradients of ``BodyModel.forward_vjp``,
   item by item, until the RMS error is below ``tol``.
"""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Tuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .body_model import BodyModel
from ..kernels._blas import one_blas_thread
from ..kernels._generated import Float
from ..kernels.wrappers import quat_from_matrix, quat_from_rotvec, quat_to_matrix

__all__ = ["FitResult", "fit_body"]


def children_first(parents: NDArray[np.integer[Any]]) -> NDArray[np.intp]:
    """The joints ordered by decreasing depth (each after all its descendants; reversed, each
    after its parent)."""
    depth: NDArray[Any] = np.zeros(len(parents), np.int64)
    for _ in range(len(parents)):
        d = np.where(parents >= 0, depth[parents] + 1, 0)
        if (d == depth).all():
            break
        depth = d
    return np.argsort(-depth, kind="stable")


class FitResult(NamedTuple):
    """``fit_body``'s result: betas (B, S), pose (B, J, 3) axis-angle, transl (B, 3), the RMS
    distance to the targets per item (B,) in the model's units (vertices when they were given,
    else joints), the Gauss-Newton rounds and the L-BFGS iterations run."""
    betas: Float
    pose: Float
    transl: Float
    rms: Float
    rounds: int
    iterations: int


def _rotvec(R: Float) -> Float:
    """Rotation vectors of rotation matrices (through unit quaternions with w >= 0)."""
    q = quat_from_matrix(R)
    n = np.linalg.norm(q[..., :3], axis=-1, keepdims=True)
    safe = np.where(n > 1e-12, n, 1)
    w = np.ascontiguousarray(q[..., 3:])          # see _euler (io/bvh/write.py)
    rotvec: Float = q[..., :3] * np.where(n > 1e-12, 2 * np.arctan2(n, w) / safe, 2)
    return rotvec


def _polar(M: Float) -> Float:
    """The rotation nearest each M (..., 3, 3) (Kabsch: U diag(1, 1, det) V^T)."""
    U, _, Vt = np.linalg.svd(M)
    d = np.sign(np.linalg.det(U @ Vt))
    U[..., :, 2] *= d[..., None]
    R: Float = U @ Vt
    return R


class _Problem:
    """Targets, weights and the per-item objective 0.5 (|v - tv|^2 / V wv + |j - tj|^2 / J wj)."""

    def __init__(self, model: BodyModel, tv: Optional[Float], tj: Optional[Float], wv: float,
                 wj: float, S: int, threads: Optional[int]) -> None:
        self.m, self.tv, self.tj, self.S, self.threads = model, tv, tj, S, threads
        self.cv = 0 if tv is None else wv / model.num_vertices
        self.cj = 0 if tj is None else wj / model.num_joints
        self.skinned = [np.flatnonzero(model.weights[:, j] > 0) for j in range(model.num_joints)]

    def split(self, x: Float) -> Tuple[Float, Float, Float]:
        J, S = self.m.num_joints, self.S
        return x[:, :S], x[:, S:S + 3 * J].reshape(-1, J, 3), x[:, S + 3 * J:]

    def residuals(self, v: Float, j: Float) -> Tuple[Optional[Float], Optional[Float]]:
        rv = None if self.tv is None else v - self.tv
        rj = None if self.tj is None else j - self.tj
        return rv, rj

    def rms(self, v: Float, j: Float) -> Float:
        rv, rj = self.residuals(v, j)
        r = next(a for a in (rv, rj) if a is not None)
        out: Float = np.sqrt((r ** 2).sum(-1).mean(-1))
        return out

    def value_and_grad(self, x: Float) -> Tuple[Float, Float, Float]:
        b, p, t = self.split(x)
        (v, j), vjp = self.m.forward_vjp(b, p, t, threads=self.threads)
        rv, rj = self.residuals(v, j)
        f = np.zeros(len(x))
        if rv is not None:
            f += 0.5 * self.cv * (rv ** 2).sum((1, 2))
        if rj is not None:
            f += 0.5 * self.cj * (rj ** 2).sum((1, 2))
        g = vjp(None if rv is None else self.cv * rv, None if rj is None else self.cj * rj)
        gp = cast(NDArray[Any], g[1])    # not None: pose was given
        return f, np.concatenate([g[0], gp.reshape(len(x), -1), g[2]], 1), self.rms(v, j)


def _procrustes_pose(pr: _Problem, betas: Float) -> Float:
    """Local rotations (B, J, 3) with the shape ``betas`` fixed: each joint's world rotation is
    the weighted Kabsch fit, about the weighted centroids, of the rest vertices it skins
    (weights: its skinning weights) and of its children's rest offsets to the targets; a joint
    with neither keeps its parent's rotation."""
    m, tv, tj = pr.m, pr.tv, pr.tj
    B, J = len(betas), m.num_joints
    rest, x = m.forward(betas)                                  # (B, V, 3), (B, J, 3)
    parents = m.parents
    G = np.zeros((B, J, 3, 3))
    for j in children_first(parents)[::-1]:                    # parents first
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
    return _rotvec(local)


def _mean_offset(pr: _Problem, betas: Float, pose: Float) -> Float:
    """The translation (B, 3) that moves the posed model onto the targets on average."""
    v, j = pr.m.forward(betas, pose)
    rv, rj = pr.residuals(v, j)
    r = np.concatenate([a for a in (rv, rj) if a is not None], 1)
    offset: Float = -r.mean(1)
    return offset


def _least_squares_shape(pr: _Problem, pose: Float, lam: float) -> Tuple[Float, Float]:
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


def _skew(q: Float) -> Float:
    """[q]x (..., 3, 3): the cross-product matrix, [q]x w = q x w."""
    o = np.zeros(q.shape[:-1])
    x, y, z = q[..., 0], q[..., 1], q[..., 2]
    skew: Float = np.stack([o, -z, y, z, o, -x, -y, x, o], -1).reshape(q.shape + (3,))
    return skew


def _gauss_newton(pr: _Problem, betas: Float, pose: Float, transl: Float, idx: NDArray[np.int64],
                  rounds: int, tol: float, lam: float = 1e-6
                  ) -> Tuple[Float, Float, Float, Float, int]:
    """Gauss-Newton on (world-frame joint rotations, translation, betas), the residuals of
    the vertices ``idx`` and of the joints.  A world-frame rotation w_j of joint j moves every
    point p of its subtree by w_j x (p - c_j) (c_j its posed position); a skinned vertex moves by
    w_j x sum_k w_ik [k below j] (M_k v_i - c_j), exact but for the pose correctives' change.
    The betas' columns are exact (the model is affine in them): S + 1 forward passes, one call.
    Returns betas, pose, transl and the RMS distance of each item (all vertices)."""
    m, S = pr.m, pr.S
    B, J = len(pose), m.num_joints
    parents = m.parents
    order = children_first(parents)[::-1]
    below = np.eye(J, dtype=bool)                 # below[j, k]: k in the subtree of j
    for k in order:
        if parents[k] >= 0:
            below[:, k] |= below[:, parents[k]]
    lj, lw = (np.asarray(a)[idx] for a in m._influences)
    lj = lj.astype(np.int64)
    E = np.concatenate([np.zeros((1, S)), np.eye(S)])
    for done in range(rounds + 1):
        cols = 1 if done == rounds else S + 1        # the last round only measures the error
        N = B * cols
        flat = {"betas": (betas[:, None] + E[:cols]).reshape(N, S),
                "pose": np.repeat(pose, cols, axis=0), "transl": np.repeat(transl, cols, 0)}
        flat = {k: np.ascontiguousarray(a, m.dtype) for k, a in flat.items()}
        with one_blas_thread():     # every BLAS call of the pass (skinkit.kernels._blas)
            v, jt, sv = m._forward(flat, N, pr.threads)
        v, jt = v.reshape(B, cols, -1, 3), jt.reshape(B, cols, J, 3)
        rms = pr.rms(v[:, 0], jt[:, 0])
        if (rms <= tol).all() or done == rounds:
            break
        G = sv["G"].reshape(B, cols, J, 4, 4)[:, 0]
        vp = sv["v_posed"].reshape(B, cols, -1, 3)[:, 0, idx]
        c = jt[:, 0]
        Qs, rs, bs = [], [], []
        if pr.tv is not None:
            sq = np.sqrt(pr.cv * m.num_vertices / len(idx))
            Q = np.zeros((B, len(idx), J, 3))
            for k in range(lj.shape[1]):
                M = G[:, lj[:, k]]
                vk = (M[..., :3, :3] @ vp[..., None])[..., 0] + M[..., :3, 3]
                if not sv["fold"]:
                    vk += transl[:, None]
                Q += (lw[:, k, None] * below[:, lj[:, k]].T)[None, :, :, None] * (
                    vk[:, :, None] - c[:, None])
            Qs.append(sq * Q)
            rs.append(sq * (v[:, 0, idx] - pr.tv[:, idx]))
            bs.append(sq * (v[:, 1:, idx] - v[:, :1, idx]))
        if pr.tj is not None:
            sq = np.sqrt(pr.cj)
            Qs.append(sq * below.T[None, :, :, None] * (c[:, :, None] - c[:, None]))
            rs.append(sq * (jt[:, 0] - pr.tj))
            bs.append(sq * (jt[:, 1:] - jt[:, :1]))
        Q, r, Jb = np.concatenate(Qs, 1), np.concatenate(rs, 1), np.concatenate(bs, 2)
        n = Q.shape[1]
        Jw = -_skew(Q).transpose(0, 1, 3, 2, 4).reshape(B, 3 * n, 3 * J)
        scale = np.concatenate([np.full(len(idx), np.sqrt(pr.cv * m.num_vertices / len(idx)))
                                if pr.tv is not None else np.zeros(0),
                                np.full(J, np.sqrt(pr.cj)) if pr.tj is not None else np.zeros(0)])
        Jt = np.broadcast_to((scale[:, None, None] * np.eye(3)).reshape(3 * n, 3), (B, 3 * n, 3))
        Jb = np.moveaxis(Jb.reshape(B, S, 3 * n), 1, 2)
        Jf = np.concatenate([Jw, Jt, Jb], 2)
        r = r.reshape(B, 3 * n)
        H = np.swapaxes(Jf, 1, 2) @ Jf
        d = np.arange(H.shape[1])
        H[:, d, d] += lam * (1 + H[:, d, d])
        step = -np.linalg.solve(H, (np.swapaxes(Jf, 1, 2) @ r[..., None]))[..., 0]
        omega = step[:, :3 * J].reshape(B, J, 3)
        for k in order:                            # world rotation of each joint: its chain's
            if parents[k] >= 0:
                omega[:, k] += omega[:, parents[k]]
        R = quat_to_matrix(quat_from_rotvec(omega)) @ G[..., :3, :3]
        local = R.copy()
        nz = parents >= 0
        local[:, nz] = np.swapaxes(R[:, parents[nz]], -1, -2) @ R[:, nz]
        pose, transl = _rotvec(local), transl + step[:, 3 * J:3 * J + 3]
        betas = betas + step[:, 3 * J + 3:]
    return betas, pose, transl, rms, done


def _lbfgs(pr: _Problem, x: Float, max_iter: int, tol: float, memory: int = 8
           ) -> Tuple[Float, Float, int]:
    f, g, rms = pr.value_and_grad(x)
    S: List[Float] = []   # the last steps s_k = x_{k+1} - x_k and gradient changes y_k
    Y: List[Float] = []
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
        step: NDArray[Any] = np.ones(len(x))
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


def fit_body(model: BodyModel, target_joints: Optional[ArrayLike] = None,
             target_vertices: Optional[ArrayLike] = None, *, num_betas: int = 10,
             joint_weight: float = 1.0, vertex_weight: float = 1.0,
             shape_regularizer: float = 1e-4, init_iterations: int = 1, gn_rounds: int = 10,
             vertex_subset: int = 512, max_iter: int = 200, tol: float = 1e-3,
             threads: Optional[int] = None) -> FitResult:
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
    gn_rounds : int
        Gauss-Newton rounds at most (stage 2), on ``vertex_subset`` vertices spread over the mesh
        and the joints.
    vertex_subset : int
        How many vertices the Gauss-Newton steps use.
    max_iter : int
        L-BFGS iterations at most (stage 3, for items not yet within ``tol``); an item stops when its RMS distance is below ``tol``.
    tol : float
        RMS distance (metres) at which an item is done (1e-3: one millimetre).
    threads : int or None
        The kernels' (and BLAS's) threads.

    Returns
    -------
    FitResult
        betas (B, num_betas), pose (B, J, 3), transl (B, 3), rms (B,), rounds, iterations.

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
    B = next(len(t) for t in (tv, tj) if t is not None)
    S = min(int(num_betas), model.num_betas)
    pr = _Problem(model, tv, tj, vertex_weight, joint_weight, S, threads)
    betas: Float = np.zeros((B, S))
    pose: Float = np.zeros((B, J, 3))
    transl: Float = np.zeros((B, 3))
    for _ in range(init_iterations):
        pose = _procrustes_pose(pr, betas)
        if S:   # the shape solve gives the translation too
            betas, transl = _least_squares_shape(pr, pose, shape_regularizer)
        else:
            transl = _mean_offset(pr, betas, pose)
    idx = np.unique(np.linspace(0, V - 1, min(V, vertex_subset)).astype(np.int64))
    betas, pose, transl, rms, rounds = _gauss_newton(pr, betas, pose, transl, idx, gn_rounds,
                                                     tol)
    x = np.concatenate([betas, pose.reshape(B, -1), transl], 1)
    if (rms > tol).any() and max_iter > 0:
        x, rms, it = _lbfgs(pr, x, max_iter, tol)
    else:
        it = 0
    return FitResult(*pr.split(x), rms, rounds, it)
