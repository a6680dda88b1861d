/* fk_vjp.c -- vector-Jacobian products of forward kinematics (fk.c): the TRS one (with scale,
 * at the end of the file) and the joint-centred rigid one:
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
static inline void FN(world_rotation)(const int32_t *parents, const T *q, size_t j, T *Q)
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

/* pose i of a rigid FK VJP job into gx (g_rest) and gq (g_rot): restrict parameters, which GCC
 * honours (not a job's fields) */
static inline void FN(rigid_vjp_pose)(const FN(sk_rigid_fk_vjp_job) *job, size_t i,
                                      T *restrict gx, T *restrict gq)
{
    size_t J = job->J;
    const int32_t *parents = job->parents, *order = job->order;
    const T *x = job->rest + i * job->rest_stride, *q = job->rot + i * job->rot_stride;
    const T *gQin = job->g_world_rot + i * job->g_world_rot_stride;
    const T *gtin = job->g_world_trans + i * job->g_world_trans_stride;
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

void FN(sk_rigid_forward_kinematics_vjp)(const FN(sk_rigid_fk_vjp_job) *job)
{
    for (size_t i = 0; i < job->n; i++)
        FN(rigid_vjp_pose)(job, i, job->g_rest + i * job->g_rest_stride,
                           job->g_rot + i * job->g_rot_stride);
}

/* VJP of sk_forward_kinematics: M_j = M_p L_j with L_j = [A_j t_j; 0 1], A_j = qmat(q_j)
 * diag(s_j).  Only rows 0..2 of a world matrix vary, so the cotangent G_j of M_j is a 3x4,
 * kept in work (J x 12 reals), set from g and summed into, children first (the next J x 12
 * reals of work hold rows 0..2 of the world matrices, copied in memory order: read in the
 * joints' order, world missed the cache at every parent, a third of the time):
 *   G_p[:, :3] += G_j[:, :3] A_j^T + G_j[:, 3] t_j^T,   G_p[:, 3] += G_j[:, 3];
 *   g_L = R_p^T G_j (R_p = M_p[:3, :3], read from world; a root's g_L is G_j);
 *   g_t = g_L[:, 3],  g_s[c] = sum_r g_L[r, c] qmat[r, c],  g_q = qmat_vjp(q, g_L[:, :3] diag(s)).
 * Pose i of a job into gq, gt, gs (g_rot, g_trans, g_scale or NULL), with work: restrict
 * parameters, as rigid_vjp_pose. */
static inline void FN(fk_vjp_pose)(const FN(sk_fk_vjp_job) *job, size_t i, T *restrict gq,
                                   T *restrict gt, T *restrict gs, T *restrict work)
{
    size_t J = job->J;
    const int32_t *parents = job->parents, *order = job->order;
    const T *q = job->rot + i * job->rot_stride, *t = job->trans + i * job->trans_stride;
    const T *s = job->scale ? job->scale + i * job->scale_stride : NULL;
    const T *w = job->world + i * job->world_stride, *gw = job->g + i * job->g_stride;
    T *M = work + 12 * J;
    for (size_t j = 0; j < J; j++) /* in memory order, as prefetching reads ahead */
        for (int e = 0; e < 12; e++) {
            work[12 * j + e] = gw[16 * j + e];
            M[12 * j + e] = w[16 * j + e];
        }
    for (size_t k = J; k-- > 0;) {
        size_t j = (size_t)order[k];
        int32_t p = parents[j];
        const T *tj = t + 3 * j, one[3] = {1, 1, 1}, *sj = s ? s + 3 * j : one;
        T G[12], R[9], A[9], gL[12], gR[9];
        for (int e = 0; e < 12; e++) /* a local copy: work[p] is summed into below */
            G[e] = work[12 * j + e];
        FN(qmat)(q + 4 * j, R, 3);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                A[3 * r + c] = R[3 * r + c] * sj[c];
        if (p < 0) {
            for (int e = 0; e < 12; e++)
                gL[e] = G[e];
        } else {
            const T *Mp = M + 12 * (size_t)p;
            T *Gp = work + 12 * (size_t)p;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++)
                    gL[4 * r + c] = Mp[r] * G[c] + Mp[4 + r] * G[4 + c] + Mp[8 + r] * G[8 + c];
            for (int r = 0; r < 3; r++) {
                const T *Gr = G + 4 * r;
                for (int c = 0; c < 3; c++)
                    Gp[4 * r + c] += Gr[0] * A[3 * c] + Gr[1] * A[3 * c + 1] +
                                     Gr[2] * A[3 * c + 2] + Gr[3] * tj[c];
                Gp[4 * r + 3] += Gr[3];
            }
        }
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                gR[3 * r + c] = gL[4 * r + c] * sj[c];
        FN(qmat_vjp)(q + 4 * j, gR, gq + 4 * j);
        for (int r = 0; r < 3; r++)
            gt[3 * j + r] = gL[4 * r + 3];
        if (gs)
            for (int c = 0; c < 3; c++)
                gs[3 * j + c] = gL[c] * R[c] + gL[4 + c] * R[3 + c] + gL[8 + c] * R[6 + c];
    }
}

void FN(sk_forward_kinematics_vjp)(const FN(sk_fk_vjp_job) *job)
{
    for (size_t i = 0; i < job->n; i++)
        FN(fk_vjp_pose)(job, i, job->g_rot + i * job->g_rot_stride,
                        job->g_trans + i * job->g_trans_stride,
                        job->g_scale ? job->g_scale + i * job->g_scale_stride : NULL, job->work);
}
