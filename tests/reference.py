"""Plain NumPy twins of the skinkit kernels: the test oracle.

Written for clarity, not speed: explicit Python loops over joints, vertices and keys.  Every
function computes in float64 whatever the input dtype, so a float32 kernel result is compared
with the float64 answer to its own (float32) inputs.

Conventions are those of ``skinkit.kernels``: quaternions (x, y, z, w), Hamilton product,
row-major matrices acting on column vectors.
"""
from __future__ import annotations

import numpy as np

# --------------------------------------------------------------------------- quaternions

def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _broadcast(*operands):
    """(array or None, number of core dims) pairs as float64 arrays broadcast over their leading
    (batch) dims: returns the batch shape, then the arrays (None stays None)."""
    arrays = [None if a is None else _f64(a) for a, _ in operands]
    cores = [None if a is None else a.shape[a.ndim - n:] for a, (_, n) in zip(arrays, operands)]
    shape = np.broadcast_shapes(*(a.shape[:a.ndim - len(c)] for a, c in zip(arrays, cores)
                                  if a is not None))
    return (shape,) + tuple(None if a is None else np.broadcast_to(a, shape + c)
                            for a, c in zip(arrays, cores))


def _per_item(f, x, core_nd, out_core):
    """f(item) for every item of x (its last core_nd dimensions), in float64."""
    x = _f64(x)
    batch = x.shape[:x.ndim - core_nd]
    out = np.empty(batch + out_core)
    for idx in np.ndindex(batch):
        out[idx] = f(x[idx])
    return out


def quat_multiply(a, b):
    """Hamilton product a * b."""
    a, b = np.broadcast_arrays(_f64(a), _f64(b))
    out = np.empty(a.shape)
    for idx in np.ndindex(a.shape[:-1]):
        x1, y1, z1, w1 = a[idx]
        x2, y2, z2, w2 = b[idx]
        out[idx] = (w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                    w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                    w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
                    w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2)
    return out


def quat_conjugate(q):
    q = _f64(q)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def quat_inverse(q):
    q = _f64(q)
    return quat_conjugate(q) / np.sum(q * q, axis=-1, keepdims=True)


def quat_normalize(q):
    q = _f64(q)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    ident = np.broadcast_to([0.0, 0.0, 0.0, 1.0], q.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n == 0, ident, q / n)


def quat_rotate(q, v):
    """q v q* with v as the pure quaternion (v, 0)."""
    shape, q, v = _broadcast((q, 1), (v, 1))
    pure = np.concatenate([v, np.zeros(shape + (1,))], axis=-1)
    return quat_multiply(quat_multiply(q, pure), quat_conjugate(q))[..., :3]


def quat_to_matrix(q):
    """Rotation matrix, with q used as given (the formula of glTF engines, e.g. three.js's
    Matrix4.compose: diagonal 1 - 2(y^2 + z^2) ...)."""
    def item(q):
        x, y, z, w = q
        return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return _per_item(item, q, 1, (3, 3))


def quat_from_matrix(m):
    """Unit quaternion with w >= 0 (Shepperd: branch on the largest of w^2, x^2, y^2, z^2)."""
    def item(r):
        tr = np.trace(r)
        k = int(np.argmax([tr, r[0, 0], r[1, 1], r[2, 2]]))
        if k == 0:
            w = 0.5 * np.sqrt(1 + tr)
            q = [(r[2, 1] - r[1, 2]) / (4 * w), (r[0, 2] - r[2, 0]) / (4 * w),
                 (r[1, 0] - r[0, 1]) / (4 * w), w]
        elif k == 1:
            x = 0.5 * np.sqrt(1 + r[0, 0] - r[1, 1] - r[2, 2])
            q = [x, (r[0, 1] + r[1, 0]) / (4 * x), (r[0, 2] + r[2, 0]) / (4 * x),
                 (r[2, 1] - r[1, 2]) / (4 * x)]
        elif k == 2:
            y = 0.5 * np.sqrt(1 - r[0, 0] + r[1, 1] - r[2, 2])
            q = [(r[0, 1] + r[1, 0]) / (4 * y), y, (r[1, 2] + r[2, 1]) / (4 * y),
                 (r[0, 2] - r[2, 0]) / (4 * y)]
        else:
            z = 0.5 * np.sqrt(1 - r[0, 0] - r[1, 1] + r[2, 2])
            q = [(r[0, 2] + r[2, 0]) / (4 * z), (r[1, 2] + r[2, 1]) / (4 * z), z,
                 (r[1, 0] - r[0, 1]) / (4 * z)]
        q = np.array(q)
        return -q if q[3] < 0 else q
    return _per_item(item, m, 2, (4,))


def quat_from_rotvec(rotvec):
    """exp map: (sin(a/2) axis, cos(a/2)); the series sin(a/2)/a ~ 1/2 - a^2/48 near zero."""
    def item(r):
        a = np.linalg.norm(r)
        k = 0.5 - a * a / 48.0 + a ** 4 / 3840.0 if a < 1e-4 else np.sin(a / 2) / a
        return [*(k * r), np.cos(a / 2)]
    return _per_item(item, rotvec, 1, (4,))


def slerp(q0, q1, t):
    """Textbook slerp (Shoemake) with the shortest-path flip: q1' = -q1 when q0 . q1 < 0, then
    sin((1 - t) theta) / sin(theta) q0 + sin(t theta) / sin(theta) q1' (lerp when theta ~ 0)."""
    shape, q0, q1, t = _broadcast((q0, 1), (q1, 1), (t, 0))
    out = np.empty(shape + (4,))
    for idx in np.ndindex(shape):
        a, b, u = q0[idx], q1[idx], t[idx]
        d = float(np.dot(a, b))
        if d < 0:
            b, d = -b, -d
        theta = np.arccos(min(d, 1.0))
        if theta < 1e-12:
            out[idx] = (1 - u) * a + u * b
        else:
            out[idx] = (np.sin((1 - u) * theta) * a + np.sin(u * theta) * b) / np.sin(theta)
    return out


# --------------------------------------------------------------------------- kinematics

def trs_matrix(t, q, s=None):
    """T(t) @ R(q) @ S(s) as a 4x4 matrix."""
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(q) * (np.ones(3) if s is None else _f64(s))[None, :]
    m[:3, 3] = _f64(t)
    return m


def forward_kinematics(parents, rotations, translations, scales=None):
    """M_i = M_parent(i) @ T(t_i) @ R(q_i) @ S(s_i), parents in any order (memoised recursion)."""
    parents = [int(p) for p in parents]
    J = len(parents)
    batch, rotations, translations, scales = _broadcast((rotations, 2), (translations, 2),
                                                        (scales, 2))
    out = np.empty(batch + (J, 4, 4))
    for b in np.ndindex(batch):
        memo = {}

        def world(i):
            if i not in memo:
                local = trs_matrix(translations[b][i], rotations[b][i],
                                   None if scales is None else scales[b][i])
                memo[i] = local if parents[i] < 0 else world(parents[i]) @ local
            return memo[i]

        for i in range(J):
            out[b][i] = world(i)
    return out


def rigid_forward_kinematics(parents, rest_positions, rotations):
    """Transcription of libigl's igl::forward_kinematics recursion (zero relative translations):

        fk_helper(b): if not computed[b]:
            if P(b) < 0: vQ[b] = dQ[b];            vT[b] = r - dQ[b] * r
            else:        fk_helper(P(b)); p = P(b)
                         vQ[b] = vQ[p] * dQ[b];    vT[b] = vT[p] - vQ[b] * r + vQ[p] * r
            computed[b] = true

    with r the rest position of joint b.  Returns (Q (..., J, 4), t (..., J, 3)).
    """
    P = [int(p) for p in parents]
    J = len(P)
    C, dQ = _f64(rest_positions), _f64(rotations)
    batch = np.broadcast_shapes(C.shape[:-2], dQ.shape[:-2])
    C = np.broadcast_to(C, batch + (J, 3))
    dQ = np.broadcast_to(dQ, batch + (J, 4))
    vQ_all = np.empty(batch + (J, 4))
    vT_all = np.empty(batch + (J, 3))
    for bi in np.ndindex(batch):
        vQ, vT, computed = [None] * J, [None] * J, [False] * J

        def fk_helper(b):
            if not computed[b]:
                r = C[bi][b]
                if P[b] < 0:
                    vQ[b] = dQ[bi][b]
                    vT[b] = r - quat_rotate(dQ[bi][b], r)
                else:
                    p = P[b]
                    fk_helper(p)
                    vQ[b] = quat_multiply(vQ[p], dQ[bi][b])
                    vT[b] = vT[p] - quat_rotate(vQ[b], r) + quat_rotate(vQ[p], r)
                computed[b] = True

        for b in range(J):
            fk_helper(b)
        vQ_all[bi] = np.array(vQ)
        vT_all[bi] = np.array(vT)
    return vQ_all, vT_all


def article_closed_form_translations(parents, rest_positions, Q):
    """The seed article's closed form t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p (roots:
    x_i - Q_i x_i), for one pose.  Right only when p is a root."""
    x = _f64(rest_positions)
    t = np.empty_like(x)
    for i, p in enumerate(parents):
        if p < 0:
            t[i] = x[i] - quat_rotate(Q[i], x[i])
        else:
            t[i] = (-quat_rotate(Q[i], x[i]) + quat_rotate(Q[p], x[i])
                    - quat_rotate(Q[p], x[p]) + x[p])
    return t


def skinning_matrices(world, inverse_bind):
    return np.matmul(_f64(world), _f64(inverse_bind))


def matrix_inverse(matrices):
    return np.linalg.inv(_f64(matrices))


# --------------------------------------------------------------------------- skinning

def _skin_inputs(vertices, joints, weights, mats, normals):
    """float64 inputs of a skinning reference, vertices, matrices and normals broadcast to the
    batch shape; returns them and the batch shape."""
    batch, vertices, mats, normals = _broadcast((vertices, 2), (mats, 3), (normals, 2))
    weights, joints = _f64(weights), np.asarray(joints).astype(np.int64)
    return vertices, joints, weights, mats, normals, batch


def _skin_each_vertex(vertices, joints, weights, mats, normals, one_vertex):
    """The batch and vertex loops of the skinning references: ``one_vertex(v, n, joints[i],
    weights[i], mats[b])`` gives the position and normal (n is None without normals)."""
    vertices, joints, weights, mats, normals, batch = _skin_inputs(vertices, joints, weights,
                                                                   mats, normals)
    V = joints.shape[0]
    pos = np.zeros(batch + (V, 3))
    nrm = None if normals is None else np.zeros(batch + (V, 3))
    for b in np.ndindex(batch):
        for i in range(V):
            p, n = one_vertex(vertices[b][i], None if normals is None else normals[b][i],
                              joints[i], weights[i], mats[b])
            pos[b][i] = p
            if normals is not None:
                nrm[b][i] = n
    return pos if normals is None else (pos, nrm)


def linear_blend_skinning(vertices, joints, weights, skinning_matrices, normals=None):
    """v' = sum_k w_k (M_{j_k} @ [v, 1])[:3], slots with joint -1 skipped; normals by the
    inverse transpose of the blended 3x3, renormalised (zero when the blend is zero)."""
    def one_vertex(v, n, js, ws, m):
        pos, blend = np.zeros(3), np.zeros((4, 4))
        for j, w in zip(js, ws):
            if j == -1:
                continue
            pos += w * (m[j] @ np.append(v, 1.0))[:3]
            blend += w * m[j]
        if n is None or np.linalg.det(blend[:3, :3]) == 0:
            return pos, np.zeros(3)
        n = np.linalg.inv(blend[:3, :3]).T @ n
        return pos, n / np.linalg.norm(n)
    return _skin_each_vertex(vertices, joints, weights, skinning_matrices, normals,
                             one_vertex)


def normalize_weights(weights):
    w = _f64(weights)
    out = np.zeros_like(w)
    for i in range(w.shape[0]):
        s = w[i].sum()
        if s != 0:
            out[i] = w[i] / s
    return out


def limit_influences(joints, weights, k):
    """Per vertex: the k largest weights (ties: earlier slot first), renormalised; padded with
    joint 0, weight 0 when there are fewer than k slots."""
    joints, weights = np.asarray(joints), _f64(weights)
    V, K = joints.shape
    oj = np.zeros((V, k), dtype=joints.dtype)
    ow = np.zeros((V, k))
    for i in range(V):
        slots = sorted(range(K), key=lambda s: (-weights[i, s], s))[:k]
        for n, s in enumerate(slots):
            oj[i, n], ow[i, n] = joints[i, s], weights[i, s]
        total = ow[i].sum()
        if total != 0:
            ow[i] /= total
    return oj, ow


# --------------------------------------------------------------------------- clip sampling

def sample_channel(times, values, interpolation, t, rotation):
    """glTF 2.0 sampler (Appendix C) at one time t.  ``values`` (K, C) or (3K, C) for
    CUBICSPLINE (in-tangent, value, out-tangent per key), C any width (morph weights: one per
    target).  Clamped outside the keys.  A rotation is a unit quaternion whatever its keys: STEP
    and LINEAR keys are normalized before use (slerp is defined on unit quaternions; ozz's
    AnimationBuilder), a CUBICSPLINE value after interpolation (Appendix C)."""
    times, values = _f64(times), _f64(values)
    t = float(t)
    K = times.size
    if interpolation == "CUBICSPLINE":
        a, v, b = values[0::3], values[1::3], values[2::3]   # in-tangents, values, out-tangents
    else:
        v = quat_normalize(values) if rotation else values
    if t <= times[0]:
        p = v[0].copy()
    elif t >= times[-1]:
        p = v[-1].copy()
    else:
        k = max(i for i in range(K) if times[i] <= t)       # times[k] <= t < times[k + 1]
        td = times[k + 1] - times[k]
        s = (t - times[k]) / td
        if interpolation == "STEP":
            p = v[k].copy()
        elif interpolation == "LINEAR":
            p = slerp(v[k], v[k + 1], s) if rotation else (1 - s) * v[k] + s * v[k + 1]
        else:
            s2, s3 = s * s, s * s * s
            p = ((2 * s3 - 3 * s2 + 1) * v[k] + td * (s3 - 2 * s2 + s) * b[k]
                 + (-2 * s3 + 3 * s2) * v[k + 1] + td * (s3 - s2) * a[k + 1])
    return p / np.linalg.norm(p) if rotation else p


def sample_clip(channels, times, rest, loop=False, duration=None):
    """Reference of Clip.sample for a list of skinkit Channel objects (or anything with node,
    path, times, values, interpolation)."""
    t = _f64(times)
    shape = t.shape
    t = t.reshape(-1)
    if loop and duration:
        t = np.mod(t, duration)
    rest_t, rest_r, rest_s = (_f64(a) for a in rest)
    n = rest_t.shape[0]
    out = {"translation": np.broadcast_to(rest_t, (t.size, n, 3)).copy(),
           "rotation": np.broadcast_to(rest_r, (t.size, n, 4)).copy(),
           "scale": np.broadcast_to(rest_s, (t.size, n, 3)).copy()}
    for ch in channels:
        for i, ti in enumerate(t):
            out[ch.path][i, ch.node] = sample_channel(ch.times, ch.values, ch.interpolation, ti,
                                                      ch.path == "rotation")
    return (out["translation"].reshape(shape + (n, 3)), out["rotation"].reshape(shape + (n, 4)),
            out["scale"].reshape(shape + (n, 3)))


# --------------------------------------------------------------------------- vector-Jacobian products
# Written from the chain rule on the forward formulas above, as plain loops; each is checked
# against central finite differences of its forward twin (tests/test_vjp.py).

def _skew(u):
    x, y, z = u
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def quat_to_matrix_vjp(q, g):
    """d<g, R(q)>/dq for R(q) = I + 2w[u]x + 2[u]x^2, the polynomial quat_to_matrix evaluates:
    the derivative of each term taken separately (d[u]x/du_e = [e_e]x)."""
    shape, q, g = _broadcast((q, 1), (g, 2))
    out = np.empty(shape + (4,))
    eye = np.eye(3)
    for idx in np.ndindex(shape):
        u, w, G = q[idx][:3], q[idx][3], g[idx]
        K = _skew(u)
        out[idx][3] = np.sum(G * 2 * K)
        for e in range(3):
            dK = _skew(eye[e])
            out[idx][e] = np.sum(G * (2 * w * dK + 2 * (dK @ K + K @ dK)))
    return out


def quat_from_rotvec_vjp(rotvec, g):
    """g . dq/dr for q = (sin(a/2)/a r, cos(a/2)), a = |r|, by the product rule (series of
    sin(a/2)/a and its derivative below a = 1e-3)."""
    shape, r, g = _broadcast((rotvec, 1), (g, 1))
    out = np.empty(shape + (3,))
    for idx in np.ndindex(shape):
        v, gu, gw = r[idx], g[idx][:3], g[idx][3]
        a = np.linalg.norm(v)
        if a < 1e-3:
            k, dk_over_a = 0.5 - a * a / 48, -1 / 24 + a * a / 960
        else:
            k = np.sin(a / 2) / a
            dk_over_a = (np.cos(a / 2) / 2 * a - np.sin(a / 2)) / a ** 3
        # d(k r)/dr = k I + r (dk/da) (r/a)^T;  d cos(a/2)/dr = -sin(a/2)/2 r/a = -(k/2) r
        jac_u = k * np.eye(3) + dk_over_a * np.outer(v, v)
        out[idx] = jac_u.T @ gu - gw * k / 2 * v
    return out


def rigid_forward_kinematics_vjp(parents, rest_positions, rotations, g_rot, g_trans):
    """Reverse mode through rigid_forward_kinematics for one pose at a time: recompute the
    world rotations, then visit joints deepest first, pushing the cotangents of Q_j and t_j
    to Q_p, t_p, x_j and q_j (quaternions as free 4-vectors: Q v = R(Q) v with R the
    polynomial above, Q_p q_j the Hamilton product, linear in each factor)."""
    P = [int(p) for p in parents]
    J = len(P)
    x, q = _f64(rest_positions), _f64(rotations)
    gQ_in, gt_in = _f64(g_rot), _f64(g_trans)
    batch = np.broadcast_shapes(x.shape[:-2], q.shape[:-2], gQ_in.shape[:-2], gt_in.shape[:-2])
    x, q = np.broadcast_to(x, batch + (J, 3)), np.broadcast_to(q, batch + (J, 4))
    gQ_in, gt_in = np.broadcast_to(gQ_in, batch + (J, 4)), np.broadcast_to(gt_in, batch + (J, 3))
    Q_all, _ = rigid_forward_kinematics(parents, x, q)
    gx_all, gq_all = np.zeros(batch + (J, 3)), np.zeros(batch + (J, 4))
    def depth(j):
        return 0 if P[j] < 0 else 1 + depth(P[j])

    order = sorted(range(J), key=lambda j: -depth(j))
    for b in np.ndindex(batch):
        Q = Q_all[b]
        gQ, gt = gQ_in[b].copy(), gt_in[b].copy()
        for j in order:
            xj, p = x[b][j], P[j]
            # t_j gets -R(Q_j) x_j
            gx_all[b][j] -= quat_to_matrix(Q[j]).T @ gt[j]
            gQ[j] -= quat_to_matrix_vjp(Q[j], np.outer(gt[j], xj))
            if p < 0:
                gx_all[b][j] += gt[j]
                gq_all[b][j] = gQ[j]
                continue
            # t_j = t_p + R(Q_p) x_j - ...
            gt[p] += gt[j]
            gx_all[b][j] += quat_to_matrix(Q[p]).T @ gt[j]
            gQ[p] += quat_to_matrix_vjp(Q[p], np.outer(gt[j], xj))
            # Q_j = Q_p q_j: the Jacobian of a*b in b is the left-multiplication matrix of a
            L = np.array([quat_multiply(Q[p], e) for e in np.eye(4)]).T
            Rm = np.array([quat_multiply(e, q[b][j]) for e in np.eye(4)]).T
            gq_all[b][j] = L.T @ gQ[j]
            gQ[p] += Rm.T @ gQ[j]
    return gx_all, gq_all


def linear_blend_skinning_vjp(vertices, joints, weights, mats, g):
    """Cotangents of the skinned positions' inputs: v'_i = sum_k w_ik (M_{j_ik} [v_i, 1])[:3]
    is linear in v_i (matrix sum_k w_ik M[:3, :3]) and in each M_j (outer product with
    [v_i, 1])."""
    vertices, weights, mats, g = _f64(vertices), _f64(weights), _f64(mats), _f64(g)
    joints = np.asarray(joints).astype(np.int64)
    V, K = joints.shape
    batch = np.broadcast_shapes(vertices.shape[:-2], mats.shape[:-3], g.shape[:-2])
    vertices = np.broadcast_to(vertices, batch + (V, 3))
    mats = np.broadcast_to(mats, batch + mats.shape[-3:])
    g = np.broadcast_to(g, batch + (V, 3))
    gv, gm = np.zeros(batch + (V, 3)), np.zeros(batch + mats.shape[-3:])
    for b in np.ndindex(batch):
        for i in range(V):
            for k in range(K):
                j = joints[i, k]
                if j == -1:
                    continue
                gv[b][i] += weights[i, k] * mats[b][j][:3, :3].T @ g[b][i]
                gm[b][j][:3] += weights[i, k] * np.outer(g[b][i], np.append(vertices[b][i], 1))
    return gv, gm


def linear_blend_skinning_weights_vjp(vertices, joints, mats, g):
    """Cotangent of each weight, per pose: v'_i is linear in w_ik with coefficient
    (M_{j_ik} [v_i, 1])[:3]."""
    vertices, mats, g = _f64(vertices), _f64(mats), _f64(g)
    joints = np.asarray(joints).astype(np.int64)
    V, K = joints.shape
    batch = np.broadcast_shapes(vertices.shape[:-2], mats.shape[:-3], g.shape[:-2])
    out = np.zeros(batch + (V, K))
    for b in np.ndindex(batch):
        v = np.broadcast_to(vertices, batch + (V, 3))[b]
        m, gb = np.broadcast_to(mats, batch + mats.shape[-3:])[b], np.broadcast_to(g, batch + (V, 3))[b]
        for i in range(V):
            for k in range(K):
                if joints[i, k] != -1:
                    out[b][i, k] = gb[i] @ (m[joints[i, k]] @ np.append(v[i], 1))[:3]
    return out

# --------------------------------------------------------------------------- dual quaternion skinning

def nearest_rotation(a):
    """The rotation nearest a 3x3 matrix: its orthogonal polar factor with det +1, by SVD
    (U diag(1, 1, det(U V^T)) V^T)."""
    u, _, vt = np.linalg.svd(_f64(a))
    return u @ np.diag([1.0, 1.0, np.sign(np.linalg.det(u @ vt))]) @ vt


def dual_quaternion_skinning(vertices, joints, weights, skinning_matrices, normals=None):
    """Kavan, Collins, Zara, O'Sullivan 2008, Algorithm 1, one vertex at a time, with Blender's
    "Preserve Volume" treatment of scale (pivot at the vertex).

    Influence k of vertex v (joint j != -1, weight w != 0): A, t = the 3x3 and translation of
    M_j; Q = nearest_rotation(A), q its quaternion; the rigid motion (Q, M_j v - Q v) as the
    dual quaternion (q, 1/2 (M_j v - Q v, 0) q); q negated when q . q_first < 0 (q_first: the
    first influence).  b = sum w q, e = sum w dual; v' = c v c* + 2 (e c*)_xyz with c = b / |b|,
    e / |b|.  Normals: (sum w S / sum w)^-T n with S = Q^T A, rotated by c, normalized.
    No influence (b = 0): the rest position and the normalized rest normal."""
    def one_vertex(v, n, js, ws, m):
        b, e, S, first = np.zeros(4), np.zeros(4), np.zeros((3, 3)), None
        for j, w in zip(js, ws):
            if j == -1 or w == 0:
                continue
            A, t = m[j][:3, :3], m[j][:3, 3]
            Q = nearest_rotation(A)
            q = quat_from_matrix(Q)
            dual = 0.5 * quat_multiply(np.append(A @ v + t - Q @ v, 0.0), q)
            if first is None:
                first = q
            s = -1.0 if q @ first < 0 else 1.0
            b += w * s * q
            e += w * s * dual
            S += w * (Q.T @ A)
        if not np.any(b):
            return v, None if n is None else n / np.linalg.norm(n)
        c, ce = b / np.linalg.norm(b), e / np.linalg.norm(b)
        pos = quat_rotate(c, v) + 2 * quat_multiply(ce, quat_conjugate(c))[:3]
        if n is None:
            return pos, None
        n = quat_rotate(c, np.linalg.inv(S / ws[js != -1].sum()).T @ n)
        return pos, n / np.linalg.norm(n)
    return _skin_each_vertex(vertices, joints, weights, skinning_matrices, normals,
                             one_vertex)


def igl_dqs(V, W, vQ, vT):
    """Transcription of libigl's igl::dqs (include/igl/dqs.cpp): dense weights W (#V, #C),
    rotations vQ (#C, 4) (x, y, z, w here) and translations vT (#C, 3):

        vD[c] = 1/2 (vT[c], 0) vQ[c]                      (dual parts)
        per vertex: b0 = be = 0
            for c: w = W(i, c); if b0 . vQ[c] < 0: w = -w
                   b0 += w vQ[c]; be += w vD[c]
            c0 = b0 / |b0|, ce = be / |b0|, d0 = c0.vec, de = ce.vec, a0 = c0.w, ae = ce.w
            U(i) = v + 2 d0 x (d0 x v + a0 v) + 2 (a0 de - ae d0 + d0 x de)
    """
    V, W, vQ, vT = _f64(V), _f64(W), _f64(vQ), _f64(vT)
    vD = np.array([0.5 * quat_multiply(np.append(t, 0.0), q) for q, t in zip(vQ, vT)])
    U = np.empty_like(V)
    for i, v in enumerate(V):
        b0, be = np.zeros(4), np.zeros(4)
        for c in range(W.shape[1]):
            w = W[i, c]
            if b0 @ vQ[c] < 0:
                w = -w
            b0 += w * vQ[c]
            be += w * vD[c]
        c0, ce = b0 / np.linalg.norm(b0), be / np.linalg.norm(b0)
        d0, de, a0, ae = c0[:3], ce[:3], c0[3], ce[3]
        U[i] = v + 2 * np.cross(d0, np.cross(d0, v) + a0 * v) + 2 * (a0 * de - ae * d0
                                                                     + np.cross(d0, de))
    return U


# Blender's "Preserve Volume" (source/blender/blenlib/intern/math_rotation.cc and
# source/blender/blenkernel/intern/armature_deform.cc), transcribed with NumPy matrices in the
# column-vector convention (Blender's m[i] is column i here).  A dual quaternion is a dict:
# quat and trans (w, x, y, z), scale (4, 4), scale_weight.

def _blender_mat4_to_quat(m):
    q = quat_from_matrix(m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0))     # normalize_m3
    return np.array([q[3], q[0], q[1], q[2]])


def _blender_orthogonalize_y(m):
    """orthogonalize_m4(m, 1): Y normalized, Z = X x Y normalized, X = Y x Z; sizes kept."""
    size = np.linalg.norm(m[:3, :3], axis=0)
    r = m.copy()
    y = r[:3, 1] / np.linalg.norm(r[:3, 1])
    z = np.cross(r[:3, 0], y)
    z /= np.linalg.norm(z)
    r[:3, 0], r[:3, 1], r[:3, 2] = np.cross(y, z) * size[0], y * size[1], z * size[2]
    return r


def blender_mat4_to_dquat(basemat, mat):
    basemat, mat = _f64(basemat), _f64(mat)
    baseRS = mat @ basemat
    dscale = np.linalg.norm(baseRS[:3, :3], axis=0) - 1.0
    m3 = mat[:3, :3]
    orthonormal = np.all(np.abs(m3.T @ m3 - np.eye(3)) <= 1.5 * np.finfo(np.float32).eps)
    dq = {"scale": np.zeros((4, 4)), "scale_weight": 0.0}
    if not orthonormal or np.linalg.det(mat) < 0 or dscale @ dscale > 1e-4 ** 2:
        baseR = np.eye(4)
        baseR[:3, :3] = quat_to_matrix(_xyzw(_blender_mat4_to_quat(
            _blender_orthogonalize_y(baseRS))))
        baseR[:3, 3] = baseRS[:3, 3]
        baseinv = np.linalg.inv(basemat)
        R = baseR @ baseinv
        S = np.linalg.inv(baseR) @ baseRS
        dq["scale"], dq["scale_weight"] = basemat @ S @ baseinv, 1.0
    else:
        R = mat
    q = _blender_mat4_to_quat(R)
    t = R[:3, 3]
    dq["quat"] = q
    dq["trans"] = np.array([-0.5 * (t[0] * q[1] + t[1] * q[2] + t[2] * q[3]),
                            0.5 * (t[0] * q[0] + t[1] * q[3] - t[2] * q[2]),
                            0.5 * (-t[0] * q[3] + t[1] * q[0] + t[2] * q[1]),
                            0.5 * (t[0] * q[2] - t[1] * q[1] + t[2] * q[0])])
    return dq


def _xyzw(wxyz):
    return np.array([wxyz[1], wxyz[2], wxyz[3], wxyz[0]])


def blender_add_weighted_dq_dq(dq_sum, dq, weight):
    flipped = False
    if dq["quat"] @ dq_sum["quat"] < 0:
        flipped, weight = True, -weight
    dq_sum["quat"] = dq_sum["quat"] + weight * dq["quat"]
    dq_sum["trans"] = dq_sum["trans"] + weight * dq["trans"]
    if dq["scale_weight"]:
        if flipped:
            weight = -weight
        dq_sum["scale"] = dq_sum["scale"] + weight * dq["scale"]
        dq_sum["scale_weight"] += weight


def blender_add_weighted_dq_dq_pivot(dq_sum, dq, pivot, weight):
    """With compute_scale_matrix (the scale matrix is moved to fix the pivot)."""
    if dq["scale_weight"]:
        mdq = {k: np.array(v, copy=True) for k, v in dq.items()}
        dst = (mdq["scale"] @ np.append(pivot, 1.0))[:3] - pivot
        q = mdq["quat"]
        mdq["trans"] = mdq["trans"] + 0.5 * np.array(
            [-(q[1] * dst[0] + q[2] * dst[1] + q[3] * dst[2]),
             q[0] * dst[0] + q[2] * dst[2] - q[3] * dst[1],
             q[0] * dst[1] + q[3] * dst[0] - q[1] * dst[2],
             q[0] * dst[2] + q[1] * dst[1] - q[2] * dst[0]])
        mdq["scale"][:3, 3] -= dst
        blender_add_weighted_dq_dq(dq_sum, mdq, weight)
    else:
        blender_add_weighted_dq_dq(dq_sum, dq, weight)


def blender_normalize_dq(dq, totweight):
    scale = 1.0 / totweight
    dq["quat"] = dq["quat"] * scale
    dq["trans"] = dq["trans"] * scale
    if dq["scale_weight"]:
        addweight = totweight - dq["scale_weight"]
        if addweight:
            dq["scale"] = dq["scale"] + addweight * np.eye(4)
        dq["scale"] = dq["scale"] * scale
        dq["scale_weight"] = 1.0


def blender_mul_v3m3_dq(r, dq):
    """Returns (the moved point, the deform 3x3 "crazy space" matrix)."""
    w, x, y, z = dq["quat"]
    t0, t1, t2, t3 = dq["trans"]
    M = np.array([[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), w * w + y * y - x * x - z * z, 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), w * w + z * z - x * x - y * y]])
    len2 = dq["quat"] @ dq["quat"]
    len2 = 1.0 / len2 if len2 > 0 else len2
    t = 2 * np.array([-t0 * x + w * t1 - t2 * z + y * t3,
                      -t0 * y + t1 * z - x * t3 + w * t2,
                      -t0 * z + x * t2 + w * t3 - t1 * y])
    r = _f64(r)
    if dq["scale_weight"]:
        r = (dq["scale"] @ np.append(r, 1.0))[:3]
    R = M @ dq["scale"][:3, :3] if dq["scale_weight"] else M
    return (M @ r + t) * len2, R * len2


def blender_preserve_volume(vertices, joints, weights, basemats, mats):
    """Blender's armature deform with "Preserve Volume" for one pose: per vertex,
    add_weighted_dq_dq_pivot of every influence with weight != 0 (pivot: the vertex), then
    normalize_dq(total weight) and mul_v3m3_dq when the total is > 0.0001.  basemats (J, 4, 4):
    each bone's rest matrix (Bone.arm_mat); mats (J, 4, 4): the skinning matrices
    (pchan.chan_mat).  Returns positions (V, 3) and deform matrices (V, 3, 3)."""
    dqs = [blender_mat4_to_dquat(b, m) for b, m in zip(basemats, mats)]
    V = len(vertices)
    pos, defm = _f64(vertices).copy(), np.tile(np.eye(3), (V, 1, 1))
    for i in range(V):
        acc = {"quat": np.zeros(4), "trans": np.zeros(4), "scale": np.zeros((4, 4)),
               "scale_weight": 0.0}
        contrib = 0.0
        for j, w in zip(joints[i], weights[i]):
            if j == -1 or w == 0:
                continue
            blender_add_weighted_dq_dq_pivot(acc, dqs[j], pos[i], w)
            contrib += w
        if contrib > 0.0001:
            blender_normalize_dq(acc, contrib)
            pos[i], defm[i] = blender_mul_v3m3_dq(pos[i], acc)
    return pos, defm


# --------------------------------------------------------------------------- pose blending

def blend_poses(rotations, translations, scales, weights, rest=None, threshold=0.1):
    """ozz-animation BlendingJob, per joint: layers with weight <= 0 skipped; translations and
    scales the weighted means, rotations the weighted sum with each quaternion flipped into the
    hemisphere of the first contributing layer, normalized; below ``threshold`` the rest pose
    adds weight threshold - total.  Total 0: identity.  weights (..., L) or (..., L, J)."""
    r, t, s = _f64(rotations), _f64(translations), _f64(scales)
    L, J = r.shape[-3:-1]
    w = _f64(weights)
    if w.ndim < 2 or w.shape[-2:] != (L, J):
        w = np.broadcast_to(w[..., None], w.shape + (J,))
    shapes = [r.shape[:-3], t.shape[:-3], s.shape[:-3], w.shape[:-2]]
    if rest is not None:
        rest = tuple(_f64(a) for a in rest)
        shapes += [a.shape[:-2] for a in rest]
    batch = np.broadcast_shapes(*shapes)
    r = np.broadcast_to(r, batch + (L, J, 4))
    t = np.broadcast_to(t, batch + (L, J, 3))
    s = np.broadcast_to(s, batch + (L, J, 3))
    w = np.broadcast_to(w, batch + (L, J))
    if rest is not None:
        rest = [np.broadcast_to(a, batch + (J, n)) for a, n in zip(rest, (4, 3, 3))]
    out_r, out_t, out_s = np.empty(batch + (J, 4)), np.empty(batch + (J, 3)), np.empty(batch + (J, 3))
    for b in np.ndindex(batch):
        for j in range(J):
            layers = [(w[b][l, j], r[b][l, j], t[b][l, j], s[b][l, j]) for l in range(L)
                      if w[b][l, j] > 0]
            total = sum(x[0] for x in layers)
            if rest is not None and total < threshold:
                layers.append((threshold - total, rest[0][b][j], rest[1][b][j], rest[2][b][j]))
                total = threshold
            if not layers:
                out_r[b][j], out_t[b][j], out_s[b][j] = [0, 0, 0, 1], 0, 1
                continue
            pivot = layers[0][1]
            q = sum(wl * (ql if ql @ pivot >= 0 else -ql) for wl, ql, _, _ in layers)
            out_r[b][j] = q / np.linalg.norm(q)
            out_t[b][j] = sum(wl * tl for wl, _, tl, _ in layers) / total
            out_s[b][j] = sum(wl * sl for wl, _, _, sl in layers) / total
    return out_r, out_t, out_s


def pose_delta(reference, pose):
    """three.js makeClipAdditive (rotation: normalize(r_ref)^-1 r; translation t - t_ref) and
    ozz's scale ratio s / s_ref."""
    (rr, tr, sr), (r, t, s) = ([_f64(a) for a in p] for p in (reference, pose))
    return (quat_multiply(quat_conjugate(quat_normalize(rr)), r), t - tr, s / sr)


def additive_pose(base, delta, weight):
    """three.js additive (r slerp(identity, dr, w), t + w dt) and ozz's scale s (1 + w (ds - 1));
    weight scalar or (..., J)."""
    (r, t, s), (dr, dt, ds) = ([_f64(a) for a in p] for p in (base, delta))
    w = _f64(weight)
    ident = np.broadcast_to([0.0, 0.0, 0.0, 1.0], dr.shape)
    part = slerp(ident, dr, np.broadcast_to(w, dr.shape[:-1]))
    return (quat_multiply(r, part), t + w[..., None] * dt, s * (1 + w[..., None] * (ds - 1)))


# --------------------------------------------------------------------------- blend shapes

def blend_shapes(base, deltas, weights):
    """glTF 2.0 3.7.2.2 morph targets: base + sum_m w_m delta_m, one weight row at a time."""
    w = _f64(weights)
    out = np.empty(w.shape[:-1] + np.shape(base))
    for idx in np.ndindex(*w.shape[:-1]):
        acc = _f64(base).copy()
        for m in range(np.shape(deltas)[0]):
            acc = acc + w[idx + (m,)] * _f64(deltas[m])
        out[idx] = acc
    return out
