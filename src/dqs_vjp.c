/* dqs_vjp.c -- vector-Jacobian product of dual quaternion skinning (positions), in the two
 * steps of dqs.c, backwards.
 *
 * sk_dual_quaternion_skinning_vjp, per vertex (an item, as in dqs.c): the forward blends
 * b = sum_k s_k w_k q_k, e = sum_k s_k w_k (d_k + E_k v) (s_k = +-1, the pivot's hemisphere,
 * constant where the result is differentiable), c0 = b / |b| = (d, a), ce = e / |b| = (de, ae),
 * and moves v to v' = v + 2 d x u + 2 (a de - ae d + d x de) with u = d x v + a v (Kavan et al.
 * 2008, Algorithm 1).  For the cotangent g of v':
 *   g_d  = 2 u x g + 2 v x (g x d) - 2 ae g + 2 de x g,   g_a  = 2 v.(g x d) + 2 g.de,
 *   g_de = 2 a g + 2 g x d,                               g_ae = -2 g.d,
 *   g_b  = (g_c0 - c0 (c0.g_c0 + ce.g_ce)) / |b|,         g_e  = g_ce / |b|,
 *   g_v  = g + 2 d x (d x g) - 2 a d x g + sum_k s_k w_k E_k^T g_e,
 *   g_w_k = s_k (g_b.q_k + g_e.(d_k + E_k v))  (also for a zero weight; 0 for joint -1),
 * and each joint's record gets g_q += s_k w_k g_b, g_d += s_k w_k g_e, g_E += s_k w_k g_e v^T.
 * g_E is summed for rigid joints too: E = 0 there, but not its derivative (see below).  A
 * vertex whose blended rotation is zero keeps its rest position: g_v = g, nothing else.
 *
 * sk_skinning_dual_quaternions_vjp, per skinning matrix M = [A | t]: the record cotangent to
 * g_A, g_t through the non-rigid path of dqs.c, q the top eigenvector of N(A) (dqs_polar.h),
 * d = 1/2 (t, 0) q, E_c = 1/2 ((A - R(q))_c, 0) q for each column c.  A rigid A is no exception:
 * any perturbation off the rotations makes the forward take that path, and along rotations the
 * two paths agree (E = 0, q the same up to rounding).  With <g, x y> = <g conj(y), x> =
 * <conj(x) g, y> for quaternion products:
 *   g_t = 1/2 (g_d conj(q))_xyz,  g_q += 1/2 conj((t, 0)) g_d,
 *   g_u_c = 1/2 (g_E_c conj(q))_xyz -> g_A_c += g_u_c, g_R_c -= g_u_c,
 *   g_q += 1/2 conj((u_c, 0)) g_E_c,
 *   g_q += quat_to_matrix_vjp(q, g_R),
 * then the eigenvector's derivative dq = sum_{j != max} v_j v_j^T dN q / (lam_max - lam_j)
 * gives g_N = h q^T with h = sum_{j != max} v_j (v_j.g_q) / (lam_max - lam_j), and g_A from
 * N's linear map.  It is unbounded as two top eigenvalues meet (A with det <= 0 at a
 * singular value tie: no unique nearest rotation).  The scale S enters the normals only: its
 * cotangent is not read.  Row 3 of g_M is 0. */
#include "real.h"
#include "qmath.h"
#include "dqs_influence.h"
#include "dqs_polar.h"

/* o = a x b */
static inline void FN(cross)(const T *a, const T *b, T *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static inline T FN(dot3)(const T *a, const T *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* the cotangents (g_c0, g_ce) of c0 = (d, a), ce = (de, ae) from g of v' (header comment) */
static void FN(motion_vjp)(const T *c0, const T *ce, const T *v, const T *g, T *g_c0, T *g_ce)
{
    const T *d = c0, *de = ce;
    T a = c0[3], ae = ce[3], u[3], gxd[3], t1[3], t2[3], t3[3];
    FN(cross)(d, v, u);
    for (int i = 0; i < 3; i++)
        u[i] += a * v[i];
    FN(cross)(g, d, gxd);
    FN(cross)(u, g, t1);
    FN(cross)(v, gxd, t2);
    FN(cross)(de, g, t3);
    for (int i = 0; i < 3; i++) {
        g_c0[i] = 2 * (t1[i] + t2[i] - ae * g[i] + t3[i]);
        g_ce[i] = 2 * (a * g[i] + gxd[i]);
    }
    g_c0[3] = 2 * (FN(dot3)(v, gxd) + FN(dot3)(g, de));
    g_ce[3] = -2 * FN(dot3)(g, d);
}

int FN(sk_dual_quaternion_skinning_vjp)(const FN(sk_skin_vjp_job) *job)
{
    size_t K = job->K, J = job->J;
    for (size_t x = 0; x < job->n; x++) {
        const T *rec = job->mats + x * job->mats_stride, *w = job->weights + x *
                       job->weights_stride, *v = job->verts + x * job->verts_stride,
                *g = job->g + x * job->g_stride;
        T *gv = job->g_verts + x * job->g_verts_stride, *grec = job->g_mats +
            x * job->g_mats_stride, *gw = job->g_weights + x * job->g_weights_stride;
        size_t at = x * (size_t)job->joints_stride;
        T b[4] = {0, 0, 0, 0}, e[4] = {0, 0, 0, 0};
        const T *pivot = NULL, *r;
        for (size_t k = 0; k < K; k++) { /* the forward's blend (dqs.c) */
            T ws;
            int use = FN(dq_influence)(job->joints, job->itype, at + k, J, 1, rec, w[k], &pivot,
                                       &r, &ws);
            if (use < 0) {
                *job->bad = x * K + k;
                return use;
            }
            if (!use)
                continue;
            for (int c = 0; c < 4; c++) {
                b[c] += ws * r[c];
                e[c] += ws * (r[4 + c] + FN(dot3)(r + 8 + 3 * c, v));
            }
        }
        T len = SQRT(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
        T g0[3] = {g[0], g[1], g[2]}; /* all of g read before g_v is written */
        if (len == 0) { /* the rest position */
            for (size_t k = 0; k < K; k++)
                gw[k] = 0;
            gv[0] = g0[0], gv[1] = g0[1], gv[2] = g0[2];
            continue;
        }
        T c0[4], ce[4], g_c0[4], g_ce[4], gb[4], ge[4];
        for (int c = 0; c < 4; c++) {
            c0[c] = b[c] / len;
            ce[c] = e[c] / len;
        }
        FN(motion_vjp)(c0, ce, v, g0, g_c0, g_ce);
        T s = 0;
        for (int c = 0; c < 4; c++)
            s += c0[c] * g_c0[c] + ce[c] * g_ce[c];
        for (int c = 0; c < 4; c++) {
            gb[c] = (g_c0[c] - c0[c] * s) / len;
            ge[c] = g_ce[c] / len;
        }
        T dxg[3], o[3];
        FN(cross)(c0, g0, dxg);
        FN(cross)(c0, dxg, o);
        for (int i = 0; i < 3; i++)
            o[i] = g0[i] + 2 * o[i] - 2 * c0[3] * dxg[i];
        for (size_t k = 0; k < K; k++) {
            T sk; /* the sign of slot k (weight 1: also for a zero weight) */
            if (!FN(dq_influence)(job->joints, job->itype, at + k, J, 0, rec, 1, &pivot, &r,
                                  &sk)) {
                gw[k] = 0;
                continue;
            }
            T ws = sk * w[k], gwk = 0, *gr = grec + (r - rec);
            for (int c = 0; c < 4; c++) {
                const T *E = r + 8 + 3 * c;
                gwk += gb[c] * r[c] + ge[c] * (r[4 + c] + FN(dot3)(E, v));
                gr[c] += ws * gb[c];
                gr[4 + c] += ws * ge[c];
                for (int i = 0; i < 3; i++) {
                    gr[8 + 3 * c + i] += ws * ge[c] * v[i];
                    o[i] += ws * E[i] * ge[c];
                }
            }
            gw[k] = sk * gwk;
        }
        gv[0] = o[0], gv[1] = o[1], gv[2] = o[2];
    }
    return SK_OK;
}

/* g_N = h q^T (header comment) onto the 3x3 g_A (row length 4), added */
static void FN(polar_vjp)(const T *a, const T *q, const T *gq, T *ga)
{
    T lam[4], v[4][4], h[4] = {0, 0, 0, 0}, G[4][4], S[4][4];
    int best = FN(polar_eigen)(a, 4, lam, v);
    for (int j = 0; j < 4; j++) {
        if (j == best)
            continue;
        T p = (v[0][j] * gq[0] + v[1][j] * gq[1] + v[2][j] * gq[2] + v[3][j] * gq[3]) /
              (lam[best] - lam[j]);
        for (int i = 0; i < 4; i++)
            h[i] += p * v[i][j];
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            G[i][j] = h[i] * q[j];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            S[i][j] = G[i][j] + G[j][i];
    ga[0] += G[0][0] - G[1][1] - G[2][2] + G[3][3];
    ga[5] += -G[0][0] + G[1][1] - G[2][2] + G[3][3];
    ga[10] += -G[0][0] - G[1][1] + G[2][2] + G[3][3];
    ga[1] += S[0][1] - S[2][3];
    ga[4] += S[0][1] + S[2][3];
    ga[2] += S[0][2] + S[1][3];
    ga[8] += S[0][2] - S[1][3];
    ga[6] += S[1][2] - S[0][3];
    ga[9] += S[1][2] + S[0][3];
}

/* one skinning matrix a (4x4) and its record's cotangent g -> o (4x4) */
static void FN(record_vjp)(const T *a, const T *g, T *o)
{
    T rec[SK_DQ_RECORD], gq[4], r[9], gr[9], t[4] = {-a[3], -a[7], -a[11], 0}, p[4];
    FN(sk_skinning_dual_quaternions)(1, a, 0, rec, 0);
    const T *q = rec, qc[4] = {-q[0], -q[1], -q[2], q[3]};
    for (int i = 0; i < 16; i++)
        o[i] = 0;
    FN(qmul)(t, g + 4, gq); /* d = 1/2 (t, 0) q */
    FN(qmul)(g + 4, qc, p);
    for (int i = 0; i < 4; i++)
        gq[i] = g[i] + (T)0.5 * gq[i];
    o[3] = (T)0.5 * p[0], o[7] = (T)0.5 * p[1], o[11] = (T)0.5 * p[2];
    FN(qmat)(q, r, 3);
    for (int c = 0; c < 3; c++) { /* E_c = 1/2 (u_c, 0) q, u_c = (A - R)_c */
        T ge[4] = {g[8 + c], g[11 + c], g[14 + c], g[17 + c]};
        T uc[4] = {r[c] - a[c], r[3 + c] - a[4 + c], r[6 + c] - a[8 + c], 0}; /* conj(u_c) */
        FN(qmul)(ge, qc, p);
        for (int i = 0; i < 3; i++) {
            o[4 * i + c] += (T)0.5 * p[i];
            gr[3 * i + c] = -(T)0.5 * p[i];
        }
        FN(qmul)(uc, ge, p);
        for (int i = 0; i < 4; i++)
            gq[i] += (T)0.5 * p[i];
    }
    FN(sk_quat_to_matrix_vjp)(1, q, 0, gr, 0, p, 0);
    for (int i = 0; i < 4; i++)
        gq[i] += p[i];
    FN(polar_vjp)(a, q, gq, o);
}
SK_MAP2(sk_skinning_dual_quaternions_vjp, FN(record_vjp))
