/* lbs_vjp.c -- vector-Jacobian product of linear blend skinning (positions):
 * v'_i = A_i [v_i; 1] with A_i = sum_k w_ik M_{j_ik} (rows 0..2), so for cotangents g_i:
 *   g_v_i = A_i[:, :3]^T g_i,    g_M_j += sum_{i,k: j_ik = j} w_ik g_i [v_i; 1]^T.
 * Items are vertices, as in lbs.c; g_mats is accumulated into (+=: the caller zeroes it), so
 * with stride som = 0 the vertices of one pose sum into that pose's matrices. */
#include "real.h"
#include "lbs_joints.h"

int FN(sk_linear_blend_skinning_vjp)(size_t n, size_t K, size_t J, const T *verts, ptrdiff_t sv,
                                     const void *joints, ptrdiff_t sj, int itype,
                                     const T *weights, ptrdiff_t sw, const T *mats, ptrdiff_t sm,
                                     const T *g, ptrdiff_t sg, T *restrict g_verts,
                                     ptrdiff_t sov, T *restrict g_mats, ptrdiff_t som,
                                     size_t *bad)
{
    for (size_t x = 0; x < n; x++) {
        const T *p = verts + x * sv, *ga = g + x * sg, *w = weights + x * sw, *m = mats + x * sm;
        T *gm = g_mats + x * som, b[9] = {0};
        for (size_t k = 0; k < K; k++) {
            int64_t j = FN(joint_at)(joints, itype, x * sj + k);
            if (j < 0 || (size_t)j >= J) {
                if (j == -1)
                    continue;
                *bad = x * K + k;
                return SK_ERR_JOINT_INDEX;
            }
            const T *mj = m + 16 * (size_t)j;
            T *gj = gm + 16 * (size_t)j;
            for (int r = 0; r < 3; r++) {
                T wg = w[k] * ga[r];
                for (int c = 0; c < 3; c++) {
                    b[3 * r + c] += w[k] * mj[4 * r + c];
                    gj[4 * r + c] += wg * p[c];
                }
                gj[4 * r + 3] += wg;
            }
        }
        T *gv = g_verts + x * sov;
        for (int c = 0; c < 3; c++)
            gv[c] = b[c] * ga[0] + b[3 + c] * ga[1] + b[6 + c] * ga[2];
    }
    return SK_OK;
}
