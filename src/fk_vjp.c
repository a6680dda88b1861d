/* fk_vjp.c -- vector-Jacobian product of the joint-centred rigid FK (fk.c):
 *   roots:    Q_j = q_j,        t_j = x_j - Q_j x_j
 *   children: Q_j = Q_p q_j,    t_j = t_p + Q_p x_j - Q_j x_j
 * ("Q x" is qrot, a polynomial of the quaternion used as given, as in the forward kernel).
 * Joints are visited children first (the topological order reversed); the outputs double as
 * the accumulators of the cotangents of Q_j (in g_rot) and t_j (in g_rest) until joint j is
 * reached, and each world rotation is rebuilt from the chain of local ones (depth products),
 * so the kernel needs no workspace. */
#include "real.h"
#include "qmath.h"

/* o += s * d(g . qrot(q, v))/dq:  du = 2 w (v x g) + 2 ((u.v) g + (u.g) v - 2 (g.v) u),
 * dw = 2 g . (u x v) */
static inline void FN(qrot_vjp_q)(const T *q, const T *v, const T *g, T s, T *o)
{
    T uv = q[0] * v[0] + q[1] * v[1] + q[2] * v[2];
    T ug = q[0] * g[0] + q[1] * g[1] + q[2] * g[2];
    T gv = g[0] * v[0] + g[1] * v[1] + g[2] * v[2];
    T vxg[3] = {v[1] * g[2] - v[2] * g[1], v[2] * g[0] - v[0] * g[2], v[0] * g[1] - v[1] * g[0]};
    for (int e = 0; e < 3; e++)
        o[e] += s * 2 * (q[3] * vxg[e] + uv * g[e] + ug * v[e] - 2 * gv * q[e]);
    o[3] += s * 2 * (q[0] * vxg[0] + q[1] * vxg[1] + q[2] * vxg[2]); /* g.(u x v) = u.(v x g) */
}

/* o = qrot(q, v)^T-applied: qmat(q)^T g = qmat(conj q) g */
static inline void FN(qrot_t)(const T *q, const T *g, T *o)
{
    T c[4] = {-q[0], -q[1], -q[2], q[3]};
    FN(qrot)(c, g, o);
}

/* Q = q_root ... q_j, the world rotation of joint j (Q_j = Q_p q_j unrolled) */
static void FN(world_rotation)(const int32_t *parents, const T *q, size_t j, T *Q)
{
    for (int e = 0; e < 4; e++)
        Q[e] = q[4 * j + e];
    for (int32_t p = parents[j]; p >= 0; p = parents[p]) {
        T t[4];
        FN(qmul)(q + 4 * (size_t)p, Q, t);
        for (int e = 0; e < 4; e++)
            Q[e] = t[e];
    }
}

void FN(sk_rigid_forward_kinematics_vjp)(size_t n, size_t J, const int32_t *parents,
                                         const int32_t *order, const T *rest, ptrdiff_t sx,
                                         const T *rot, ptrdiff_t sr, const T *g_rot,
                                         ptrdiff_t sgr,
                                         const T *g_trans, ptrdiff_t sgt, T *restrict g_rest,
                                         ptrdiff_t sox, T *restrict g_q, ptrdiff_t soq)
{
    for (size_t i = 0; i < n; i++) {
        const T *x = rest + i * sx, *q = rot + i * sr;
        const T *gQin = g_rot + i * sgr, *gtin = g_trans + i * sgt;
        T *gx = g_rest + i * sox, *gq = g_q + i * soq;
        for (size_t e = 0; e < 4 * J; e++)
            gq[e] = gQin[e];
        for (size_t e = 0; e < 3 * J; e++)
            gx[e] = gtin[e];
        for (size_t k = J; k-- > 0;) {
            size_t j = (size_t)order[k];
            int32_t p = parents[j];
            const T *xj = x + 3 * j;
            T gt[3] = {gx[3 * j], gx[3 * j + 1], gx[3 * j + 2]}, a[3], b[3], Qj[4], Qp[4];
            FN(world_rotation)(parents, q, j, Qj);
            T *gQ = gq + 4 * j;
            FN(qrot_t)(Qj, gt, b);
            FN(qrot_vjp_q)(Qj, xj, gt, -1, gQ);
            if (p < 0) {
                for (int e = 0; e < 3; e++)
                    gx[3 * j + e] = gt[e] - b[e];
                continue;
            }
            FN(world_rotation)(parents, q, (size_t)p, Qp);
            T *gQp = gq + 4 * (size_t)p, cq[4] = {-q[4 * j], -q[4 * j + 1], -q[4 * j + 2],
                                                  q[4 * j + 3]};
            T cQp[4] = {-Qp[0], -Qp[1], -Qp[2], Qp[3]}, d[4], gl[4];
            FN(qrot_t)(Qp, gt, a);
            for (int e = 0; e < 3; e++) {
                gx[3 * (size_t)p + e] += gt[e];
                gx[3 * j + e] = a[e] - b[e];
            }
            FN(qrot_vjp_q)(Qp, xj, gt, 1, gQp);
            /* Q_j = Q_p q_j: dq_j = conj(Q_p) gQ_j, dQ_p += gQ_j conj(q_j) */
            FN(qmul)(cQp, gQ, gl);
            FN(qmul)(gQ, cq, d);
            for (int e = 0; e < 4; e++) {
                gQp[e] += d[e];
                gQ[e] = gl[e];
            }
        }
    }
}
