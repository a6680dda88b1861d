/* dqs.c -- dual quaternion skinning (Kavan, Collins, Zara, O'Sullivan, "Geometric Skinning with
 * Approximate Dual Quaternion Blending", ACM TOG 27(4), 2008, Algorithm 1), with skinning
 * matrices that scale or shear handled as Blender's armature modifier does with "Preserve
 * Volume" (BLI math_rotation: mat4_to_dquat, add_weighted_dq_dq_pivot, mul_v3m3_dq).
 *
 * Two steps.  sk_skinning_dual_quaternions turns each 4x4 skinning matrix M = [A | t] into a
 * record of SK_DQ_RECORD reals, once per joint and pose:
 *   [0..3]   q: unit quaternion of the rotation of A (A itself when A is a rotation; otherwise
 *            its nearest rotation Q, the orthogonal polar factor with det +1)
 *   [4..7]   d = 1/2 (t, 0) q, the dual part of the rigid motion (Q, t)
 *   [8..19]  E (4 x 3, row-major), with E v = 1/2 ((A - Q) v, 0) q: the dual part a vertex v
 *            adds when A is not a rotation, so that the motion (Q, t + (A - Q) v) takes v to M v
 *   [20..28] S = Q^T A (3 x 3, row-major), the scale/shear left after the rotation
 *   [29]     1 when A is not a rotation (then E and S are used), else 0 (E = 0, S = I)
 * sk_dual_quaternion_skinning then blends, per vertex, b = sum_k w_k s_k q_k and
 * e = sum_k w_k s_k (d_k + E_k v), s_k = +-1 putting q_k in the hemisphere of the vertex's
 * pivot (its first influence with a joint and a non-zero weight), and moves v by the unit dual
 * quaternion (b, e) / |b|.  For rigid matrices this is Kavan's DLB exactly.  With scale, each
 * influence first becomes the rigid motion that takes v where M_k takes it (Blender's scale
 * matrix "neutralized at the pivot" v), so positions need no scale matrix; normals go through
 * the inverse transpose of the blended scale S^ = sum_k w_k S_k / sum_k w_k (cofactor times the
 * sign of its determinant, as LBS), then the blended rotation, and are renormalized.
 * A vertex whose blended rotation is zero (no influence, zero weights) keeps its rest position
 * and normal, as in Blender. */
#include "simd.h"
#include "real.h"
#include "qmath.h"
#include "lbs_normal.h"
#include "dqs_influence.h"
#include "dqs_polar.h"

/* a 3x3 A is taken as a rotation when max |A^T A - I| <= this many epsilons and det A > 0 */
#define SK_RIGID_EPS 128

/* Unit quaternion of the rotation nearest to the 3x3 a (row length ld), for any a: the top
 * eigenvector of N(a) (dqs_polar.h).  w >= 0. */
static void FN(nearest_rotation)(const T *a, int ld, T *q)
{
    T lam[4], v[4][4];
    int best = FN(polar_eigen)(a, ld, lam, v);
    T len = SQRT(v[0][best] * v[0][best] + v[1][best] * v[1][best] + v[2][best] * v[2][best] +
                 v[3][best] * v[3][best]);
    if (v[3][best] < 0)
        len = -len;
    for (int i = 0; i < 4; i++)
        q[i] = v[i][best] / len;
}

/* whether the 3x3 a (row length 4) is a rotation to SK_RIGID_EPS epsilons */
static int FN(is_rotation)(const T *a)
{
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            T d = a[i] * a[j] + a[4 + i] * a[4 + j] + a[8 + i] * a[8 + j] - (i == j);
            if (!(d <= SK_RIGID_EPS * EPS && d >= -SK_RIGID_EPS * EPS))
                return 0;
        }
    T det = a[0] * (a[5] * a[10] - a[6] * a[9]) - a[1] * (a[4] * a[10] - a[6] * a[8]) +
            a[2] * (a[4] * a[9] - a[5] * a[8]);
    return det > 0;
}

void FN(sk_skinning_dual_quaternions)(size_t n, const T *m, ptrdiff_t sm, T *restrict out,
                                      ptrdiff_t so)
{
    for (size_t i = 0; i < n; i++) {
        const T *a = m + i * sm;
        T *o = out + i * so, *q = o;
        int rigid = FN(is_rotation)(a);
        if (rigid)
            FN(sk_quat_from_matrix)(1, (const T[9]){a[0], a[1], a[2], a[4], a[5], a[6], a[8],
                                                    a[9], a[10]}, 0, q, 0);
        else
            FN(nearest_rotation)(a, 4, q);
        T t[4] = {a[3], a[7], a[11], 0};
        FN(qmul)(t, q, o + 4);
        for (int k = 4; k < 8; k++)
            o[k] *= (T)0.5;
        for (int k = 8; k < 32; k++)
            o[k] = 0;
        T *E = o + 8, *S = o + 20;
        if (rigid) {
            S[0] = S[4] = S[8] = 1;
            continue;
        }
        T r[9];
        FN(qmat)(q, r, 3);
        for (int c = 0; c < 3; c++) {
            T u[4] = {a[c] - r[c], a[4 + c] - r[3 + c], a[8 + c] - r[6 + c], 0}, e[4];
            FN(qmul)(u, q, e);
            for (int k = 0; k < 4; k++)
                E[3 * k + c] = (T)0.5 * e[k];
            for (int k = 0; k < 3; k++) /* S = R^T A */
                S[3 * k + c] = r[k] * a[c] + r[3 + k] * a[4 + c] + r[6 + k] * a[8 + c];
        }
        o[29] = 1;
    }
}

/* portable C, any strides */
static int FN(dqs_items)(const FN(sk_skin_job) *j)
{
    size_t K = j->K, J = j->J;
    for (size_t x = 0; x < j->n; x++) {
        const T *rec = j->transforms + x * j->transforms_stride;
        const T *w = j->weights + x * j->weights_stride, *v = j->verts + x * j->verts_stride;
        T b[4] = {0, 0, 0, 0}, e[4] = {0, 0, 0, 0}, S[9] = {0}, wsum = 0, wscaled = 0;
        const T *pivot = NULL;
        int scaled = 0;
        for (int pass = 0; pass < 1 + scaled; pass++) /* pass 1: the scaled joints' terms */
            for (size_t k = 0; k < K; k++) {
                const T *r;
                T wk = w[k], ws;
                int use = FN(dq_influence)(j->joints, j->itype, x * j->joints_stride + k, J,
                                           j->bad != NULL, rec, wk, &pivot, &r, &ws);
                if (use < 0) {
                    *j->bad = x * K + k;
                    return use;
                }
                if (!use)
                    continue;
                if (pass == 0) {
                    for (int c = 0; c < 4; c++) {
                        b[c] += ws * r[c];
                        e[c] += ws * r[4 + c];
                    }
                    wsum += wk;
                    scaled |= r[29] != 0;
                } else if (r[29] != 0) {
                    const T *E = r + 8;
                    for (int c = 0; c < 4; c++)
                        e[c] += ws * (E[3 * c] * v[0] + E[3 * c + 1] * v[1] +
                                      E[3 * c + 2] * v[2]);
                    for (int c = 0; c < 9; c++)
                        S[c] += wk * r[20 + c];
                    wscaled += wk;
                }
            }
        T *op = j->out_pos + x * j->out_pos_stride;
        const T *nv = j->normals ? j->normals + x * j->normals_stride : NULL;
        T len = SQRT(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
        if (len == 0) { /* no influence: the rest pose */
            op[0] = v[0]; op[1] = v[1]; op[2] = v[2];
            if (nv) {
                T a[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
                FN(skin_normal)(a, nv, j->out_nrm + x * j->out_nrm_stride);
            }
            continue;
        }
        T c0[4], ce[4], inv = 1 / len;
        for (int c = 0; c < 4; c++) {
            c0[c] = b[c] * inv;
            ce[c] = e[c] * inv;
        }
        /* Kavan et al. 2008, Algorithm 1: v' = v + 2 d0 x (d0 x v + a0 v)
         * + 2 (a0 de - ae d0 + d0 x de), c0 = (d0, a0), ce = (de, ae) */
        T u[3] = {c0[1] * v[2] - c0[2] * v[1] + c0[3] * v[0],
                  c0[2] * v[0] - c0[0] * v[2] + c0[3] * v[1],
                  c0[0] * v[1] - c0[1] * v[0] + c0[3] * v[2]};
        T tr[3] = {c0[3] * ce[0] - ce[3] * c0[0] + c0[1] * ce[2] - c0[2] * ce[1],
                   c0[3] * ce[1] - ce[3] * c0[1] + c0[2] * ce[0] - c0[0] * ce[2],
                   c0[3] * ce[2] - ce[3] * c0[2] + c0[0] * ce[1] - c0[1] * ce[0]};
        op[0] = v[0] + 2 * (c0[1] * u[2] - c0[2] * u[1]) + 2 * tr[0];
        op[1] = v[1] + 2 * (c0[2] * u[0] - c0[0] * u[2]) + 2 * tr[1];
        op[2] = v[2] + 2 * (c0[0] * u[1] - c0[1] * u[0]) + 2 * tr[2];
        if (!nv)
            continue;
        T *on = j->out_nrm + x * j->out_nrm_stride, m[12] = {0};
        if (scaled) { /* the blended 3x3 R(c0) S^, S^ = (S + (wsum - wscaled) I) / wsum */
            T r[9], f = wsum != 0 ? 1 / wsum : 1;
            S[0] += wsum - wscaled;
            S[4] += wsum - wscaled;
            S[8] += wsum - wscaled;
            FN(qmat)(c0, r, 3);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    m[4 * i + j] = f * (r[3 * i] * S[j] + r[3 * i + 1] * S[3 + j] +
                                        r[3 * i + 2] * S[6 + j]);
            FN(skin_normal)(m, nv, on);
        } else { /* rotate, renormalize */
            T rn[3];
            FN(qrot)(c0, nv, rn);
            T a[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
            FN(skin_normal)(a, rn, on);
        }
    }
    return SK_OK;
}

int FN(sk_dual_quaternion_skinning)(const FN(sk_skin_job) *job)
{
    const FN(sk_skin_job) *j = job;
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    /* the SIMD variant takes packed vertices of one pose whose joints are all rigid; the AVX-512
       level runs it too (no AVX-512 DQS) */
    if (sk_simd() >= SK_SIMD_AVX2 && j->verts_stride == 3 && j->out_pos_stride == 3 &&
        j->transforms_stride == 0 && j->joints_stride == (ptrdiff_t)j->K &&
        j->weights_stride == (ptrdiff_t)j->K &&
        (!j->normals || (j->normals_stride == 3 && j->out_nrm_stride == 3))) {
        int rigid = 1;
        for (size_t x = 0; x < j->J && rigid; x++)
            rigid = j->transforms[SK_DQ_RECORD * x + 29] == 0;
        if (rigid)
            return sk_dqs_pose_avx2(j);
    }
#endif
    return FN(dqs_items)(j);
}
