/* lbs_weights_vjp.c -- vector-Jacobian product of linear blend skinning with respect to the
 * weights: v'_i = sum_k w_ik M_{j_ik} [v_i; 1], so for the cotangent g_i of v'_i
 *   g_w_ik = g_i . (M_{j_ik} [v_i; 1])   (rows 0..2; 0 for a slot with joint -1).
 * Items are vertices, as in lbs.c; one result per item (the caller sums over the poses). */
#include "real.h"
#include "lbs_joints.h"

int FN(sk_linear_blend_skinning_weights_vjp)(size_t n, size_t K, size_t J, const T *verts,
                                             ptrdiff_t sv, const void *joints, ptrdiff_t sj,
                                             int itype, const T *mats, ptrdiff_t sm,
                                             const T *g, ptrdiff_t sg, T *restrict out,
                                             ptrdiff_t so, size_t *bad)
{
    for (size_t x = 0; x < n; x++) {
        const T *p = verts + x * sv, *ga = g + x * sg, *m = mats + x * sm;
        T *o = out + x * so;
        for (size_t k = 0; k < K; k++) {
            int64_t j = FN(joint_at)(joints, itype, x * (size_t)sj + k);
            if (j == -1) {
                o[k] = 0;
                continue;
            }
            if (j < -1 || j >= (int64_t)J) {
                *bad = x * K + k;
                return SK_ERR_JOINT_INDEX;
            }
            const T *mj = m + 16 * (size_t)j;
            T s = 0;
            for (int r = 0; r < 3; r++)
                s += ga[r] * (mj[4 * r] * p[0] + mj[4 * r + 1] * p[1] + mj[4 * r + 2] * p[2] +
                              mj[4 * r + 3]);
            o[k] = s;
        }
    }
    return SK_OK;
}
