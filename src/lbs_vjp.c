/* lbs_vjp.c -- vector-Jacobian product of linear blend skinning (positions):
 * v'_i = A_i [v_i; 1] with A_i = sum_k w_ik M_{j_ik} (rows 0..2), so for cotangents g_i:
 *   g_v_i = A_i[:, :3]^T g_i,    g_M_j += sum_{i,k: j_ik = j} w_ik g_i [v_i; 1]^T.
 * An item is one pose (its V vertices, cotangents and J matrices); joints (V, K) int32 with
 * -1 for an unused slot and weights (V, K) are shared by all poses. */
#ifndef SK_DOUBLE
#define SK_DOUBLE 0
#include "lbs_vjp.c"
#undef SK_DOUBLE
#define SK_DOUBLE 1
#include "lbs_vjp.c"
#else
#include "real.h"

int FN(sk_linear_blend_skinning_vjp)(size_t n, size_t V, size_t K, size_t J, const T *verts,
                                     ptrdiff_t sv, const int32_t *joints, const T *weights,
                                     const T *mats, ptrdiff_t sm, const T *g, ptrdiff_t sg,
                                     T *restrict g_verts, ptrdiff_t sov, T *restrict g_mats,
                                     ptrdiff_t som, size_t *bad)
{
    for (size_t x = 0; x < V * K; x++)
        if (joints[x] < -1 || (joints[x] >= 0 && (size_t)joints[x] >= J)) {
            *bad = x;
            return SK_ERR_JOINT_INDEX;
        }
    for (size_t i = 0; i < n; i++) {
        const T *v = verts + i * sv, *m = mats + i * sm, *gi = g + i * sg;
        T *gv = g_verts + i * sov, *gm = g_mats + i * som;
        for (size_t e = 0; e < 16 * J; e++)
            gm[e] = 0;
        for (size_t a = 0; a < V; a++) {
            const T *p = v + 3 * a, *ga = gi + 3 * a, *w = weights + a * K;
            const int32_t *jn = joints + a * K;
            T b[9] = {0};
            for (size_t k = 0; k < K; k++) {
                if (jn[k] < 0)
                    continue;
                const T *mj = m + 16 * (size_t)jn[k];
                T *gj = gm + 16 * (size_t)jn[k];
                for (int r = 0; r < 3; r++) {
                    T wg = w[k] * ga[r];
                    for (int c = 0; c < 3; c++) {
                        b[3 * r + c] += w[k] * mj[4 * r + c];
                        gj[4 * r + c] += wg * p[c];
                    }
                    gj[4 * r + 3] += wg;
                }
            }
            for (int c = 0; c < 3; c++)
                gv[3 * a + c] = b[c] * ga[0] + b[3 + c] * ga[1] + b[6 + c] * ga[2];
        }
    }
    return SK_OK;
}
#endif
