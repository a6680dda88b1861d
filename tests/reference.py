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
    q, v = _f64(q), _f64(v)
    shape = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    q = np.broadcast_to(q, shape + (4,))
    v = np.broadcast_to(v, shape + (3,))
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
    q0, q1 = _f64(q0), _f64(q1)
    t = _f64(t)
    shape = np.broadcast_shapes(q0.shape[:-1], q1.shape[:-1], t.shape)
    q0 = np.broadcast_to(q0, shape + (4,))
    q1 = np.broadcast_to(q1, shape + (4,))
    t = np.broadcast_to(t, shape)
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
    rotations, translations = _f64(rotations), _f64(translations)
    arrays = [rotations[..., :, :], translations]
    if scales is not None:
        arrays.append(_f64(scales))
    batch = np.broadcast_shapes(*(a.shape[:-2] for a in arrays))
    rotations = np.broadcast_to(rotations, batch + (J, 4))
    translations = np.broadcast_to(translations, batch + (J, 3))
    if scales is not None:
        scales = np.broadcast_to(_f64(scales), batch + (J, 3))
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


def matrix_inverse(world):
    return np.linalg.inv(_f64(world))


# --------------------------------------------------------------------------- skinning

def linear_blend_skinning(vertices, joints, weights, mats, normals=None):
    """v' = sum_k w_k (M_{j_k} @ [v, 1])[:3], slots with joint -1 skipped; normals by the
    inverse transpose of the blended 3x3, renormalised (zero when the blend is zero)."""
    vertices, weights, mats = _f64(vertices), _f64(weights), _f64(mats)
    joints = np.asarray(joints).astype(np.int64)
    V, K = joints.shape
    arrays = [vertices[..., :, :], mats[..., 0, :, :]]
    if normals is not None:
        normals = _f64(normals)
        arrays.append(normals)
    batch = np.broadcast_shapes(*(a.shape[:-2] for a in arrays))
    vertices = np.broadcast_to(vertices, batch + (V, 3))
    mats = np.broadcast_to(mats, batch + mats.shape[-3:])
    pos = np.zeros(batch + (V, 3))
    nrm = None
    if normals is not None:
        normals = np.broadcast_to(normals, batch + (V, 3))
        nrm = np.zeros(batch + (V, 3))
    for b in np.ndindex(batch):
        for i in range(V):
            blend = np.zeros((4, 4))
            for k in range(K):
                j = joints[i, k]
                if j == -1:
                    continue
                pos[b][i] += weights[i, k] * (mats[b][j] @ np.append(vertices[b][i], 1.0))[:3]
                blend += weights[i, k] * mats[b][j]
            if normals is not None:
                a = blend[:3, :3]
                if np.linalg.det(a) != 0:
                    n = np.linalg.inv(a).T @ normals[b][i]
                    nrm[b][i] = n / np.linalg.norm(n)
    return pos if normals is None else (pos, nrm)


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
    CUBICSPLINE (in-tangent, value, out-tangent per key).  Clamped outside the keys."""
    times, values = _f64(times), _f64(values)
    t = float(t)
    K = times.size
    if interpolation == "CUBICSPLINE":
        a, v, b = values[0::3], values[1::3], values[2::3]   # in-tangents, values, out-tangents
    else:
        v = values
    if t <= times[0]:
        return v[0].copy()
    if t >= times[-1]:
        return v[-1].copy()
    k = max(i for i in range(K) if times[i] <= t)       # times[k] <= t < times[k + 1]
    td = times[k + 1] - times[k]
    s = (t - times[k]) / td
    if interpolation == "STEP":
        return v[k].copy()
    if interpolation == "LINEAR":
        if rotation:
            return slerp(v[k], v[k + 1], s)
        return (1 - s) * v[k] + s * v[k + 1]
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
