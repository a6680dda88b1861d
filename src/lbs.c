/* lbs.c -- linear blend skinning: v' = sum_k w_k M_{j_k} v, normals by the cofactor matrix. */
#ifndef SK_DOUBLE
#define SK_DOUBLE 0
#include "lbs.c"
#undef SK_DOUBLE
#define SK_DOUBLE 1
#include "lbs.c"
#else
#include "real.h"

static inline int64_t FN(joint_at)(const void *joints, int itype, size_t i)
{
    switch (itype) {
    case SK_U8: return ((const uint8_t *)joints)[i];
    case SK_U16: return ((const uint16_t *)joints)[i];
    default: return ((const int32_t *)joints)[i];
    }
}

/* n' = cofactor(A) n (the inverse transpose times det, sign-corrected), renormalized */
static inline void FN(skin_normal)(const T *a, const T *nv, T *o)
{
    T c00 = a[5] * a[10] - a[6] * a[9], c01 = a[6] * a[8] - a[4] * a[10];
    T c02 = a[4] * a[9] - a[5] * a[8], c10 = a[2] * a[9] - a[1] * a[10];
    T c11 = a[0] * a[10] - a[2] * a[8], c12 = a[1] * a[8] - a[0] * a[9];
    T c20 = a[1] * a[6] - a[2] * a[5], c21 = a[2] * a[4] - a[0] * a[6];
    T c22 = a[0] * a[5] - a[1] * a[4];
    T det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    T x = c00 * nv[0] + c01 * nv[1] + c02 * nv[2];
    T y = c10 * nv[0] + c11 * nv[1] + c12 * nv[2];
    T z = c20 * nv[0] + c21 * nv[1] + c22 * nv[2];
    T len = SQRT(x * x + y * y + z * z);
    T r = len > 0 ? (det < 0 ? -1 / len : 1 / len) : len == 0 ? 0 : len;
    o[0] = x * r; o[1] = y * r; o[2] = z * r;
}

int FN(sk_linear_blend_skinning)(size_t n, size_t V, size_t K, size_t J, const T *verts,
                                 ptrdiff_t sv, const void *joints, int itype, const T *weights,
                                 const T *mats, ptrdiff_t sm, const T *normals, ptrdiff_t sn,
                                 T *restrict out_pos, ptrdiff_t sp, T *restrict out_nrm,
                                 ptrdiff_t so, size_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        const T *v = verts + i * sv, *m = mats + i * sm;
        const T *nv = normals ? normals + i * sn : NULL;
        T *op = out_pos + i * sp, *on = out_nrm ? out_nrm + i * so : NULL;
        for (size_t x = 0; x < V; x++) {
            T a[12] = {0};
            for (size_t k = 0; k < K; k++) {
                int64_t j = FN(joint_at)(joints, itype, x * K + k);
                if (j < 0 || (size_t)j >= J) {
                    if (j == -1)
                        continue;
                    *bad = x * K + k;
                    return SK_ERR_JOINT_INDEX;
                }
                T w = weights[x * K + k];
                const T *mj = m + 16 * (size_t)j;
                for (int e = 0; e < 12; e++)
                    a[e] += w * mj[e];
            }
            const T *p = v + 3 * x;
            for (int r = 0; r < 3; r++)
                op[3 * x + r] = a[4 * r] * p[0] + a[4 * r + 1] * p[1] + a[4 * r + 2] * p[2] +
                                a[4 * r + 3];
            if (on)
                FN(skin_normal)(a, nv + 3 * x, on + 3 * x);
        }
    }
    return SK_OK;
}
#endif
