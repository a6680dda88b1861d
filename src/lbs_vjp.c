/* lbs_vjp.c -- vector-Jacobian product of linear blend skinning (positions):
 * v'_i = A_i [v_i; 1] with A_i = sum_k w_ik M_{j_ik} (rows 0..2), so for cotangents g_i:
 *   g_v_i = A_i[:, :3]^T g_i,    g_M_j += sum_{i,k: j_ik = j} w_ik g_i [v_i; 1]^T.
 * Items are vertices, as in lbs.c; g_mats is accumulated into (+=: the caller zeroes it), so
 * with stride som = 0 the vertices of one pose sum into that pose's matrices.  The loop is
 * written once per joint index type and specialised for K = 4 and 8, so that the compiler sees a
 * fixed type and trip count (3.5x faster than reading indices through a switch). */
#include "real.h"

#define SK_LBS_VJP(NAME, JT)                                                                  \
    static inline int FN(NAME##_body)(size_t n, size_t K, size_t J, const T *verts,          \
                                      ptrdiff_t sv, const JT *joints, ptrdiff_t sj,          \
                                      const T *weights, ptrdiff_t sw, const T *mats,         \
                                      ptrdiff_t sm, const T *g, ptrdiff_t sg,                \
                                      T *restrict g_verts, ptrdiff_t sov,                    \
                                      T *restrict g_mats, ptrdiff_t som, size_t *bad)        \
    {                                                                                        \
        for (size_t x = 0; x < n; x++) {                                                     \
            const T *p = verts + x * sv, *ga = g + x * sg, *w = weights + x * sw;            \
            const T *m = mats + x * sm;                                                      \
            const JT *jn = joints + x * sj;                                                  \
            T *gm = g_mats + x * som, b[9] = {0};                                            \
            T g0 = ga[0], g1 = ga[1], g2 = ga[2], X[12];                                     \
            for (int r = 0; r < 3; r++) /* g_i [v_i; 1]^T, shared by the vertex's slots */   \
                X[4 * r] = ga[r] * p[0], X[4 * r + 1] = ga[r] * p[1],                       \
                X[4 * r + 2] = ga[r] * p[2], X[4 * r + 3] = ga[r];                          \
            for (size_t k = 0; k < K; k++) {                                                 \
                size_t j = (size_t)jn[k];                                                    \
                if (j >= J) {                                                                \
                    if ((JT)-1 < 0 && j == (size_t)-1)                                       \
                        continue;                                                            \
                    *bad = x * K + k;                                                        \
                    return SK_ERR_JOINT_INDEX;                                               \
                }                                                                            \
                const T *mj = m + 16 * j;                                                    \
                T *gj = gm + 16 * j, wk = w[k];                                              \
                for (int c = 0; c < 3; c++)                                                  \
                    b[c] += wk * mj[c], b[3 + c] += wk * mj[4 + c], b[6 + c] += wk * mj[8 + c]; \
                for (int e = 0; e < 12; e++)                                                 \
                    gj[e] += wk * X[e];                                                      \
            }                                                                                \
            T *gv = g_verts + x * sov;                                                       \
            for (int c = 0; c < 3; c++)                                                      \
                gv[c] = b[c] * g0 + b[3 + c] * g1 + b[6 + c] * g2;                           \
        }                                                                                    \
        return SK_OK;                                                                        \
    }                                                                                        \
    static int FN(NAME)(size_t n, size_t K, size_t J, const T *v, ptrdiff_t sv,              \
                        const JT *jn, ptrdiff_t sj, const T *w, ptrdiff_t sw, const T *m,    \
                        ptrdiff_t sm, const T *g, ptrdiff_t sg, T *gv, ptrdiff_t sov,        \
                        T *gm, ptrdiff_t som, size_t *bad)                                   \
    {                                                                                        \
        if (K == 4)                                                                          \
            return FN(NAME##_body)(n, 4, J, v, sv, jn, sj, w, sw, m, sm, g, sg, gv, sov, gm, \
                                   som, bad);                                                \
        if (K == 8)                                                                          \
            return FN(NAME##_body)(n, 8, J, v, sv, jn, sj, w, sw, m, sm, g, sg, gv, sov, gm, \
                                   som, bad);                                                \
        return FN(NAME##_body)(n, K, J, v, sv, jn, sj, w, sw, m, sm, g, sg, gv, sov, gm, som, \
                               bad);                                                         \
    }
SK_LBS_VJP(lbs_vjp_u8, uint8_t)
SK_LBS_VJP(lbs_vjp_u16, uint16_t)
SK_LBS_VJP(lbs_vjp_i32, int32_t)

int FN(sk_linear_blend_skinning_vjp)(size_t n, size_t K, size_t J, const T *verts, ptrdiff_t sv,
                                     const void *joints, ptrdiff_t sj, int itype,
                                     const T *weights, ptrdiff_t sw, const T *mats, ptrdiff_t sm,
                                     const T *g, ptrdiff_t sg, T *restrict g_verts,
                                     ptrdiff_t sov, T *restrict g_mats, ptrdiff_t som,
                                     size_t *bad)
{
    if (itype == SK_U8)
        return FN(lbs_vjp_u8)(n, K, J, verts, sv, joints, sj, weights, sw, mats, sm, g, sg,
                              g_verts, sov, g_mats, som, bad);
    if (itype == SK_U16)
        return FN(lbs_vjp_u16)(n, K, J, verts, sv, joints, sj, weights, sw, mats, sm, g, sg,
                               g_verts, sov, g_mats, som, bad);
    return FN(lbs_vjp_i32)(n, K, J, verts, sv, joints, sj, weights, sw, mats, sm, g, sg,
                           g_verts, sov, g_mats, som, bad);
}
