/* lbs.c -- linear blend skinning: v' = sum_k w_k M_{j_k} v, normals by the cofactor matrix.
 * float32 poses run the AVX2/FMA variant (lbs_avx2.c) when the CPU has it (cpu.c). */
#ifndef SK_DOUBLE
#include "simd.h"
#define SK_DOUBLE 0
#include "lbs.c"
#undef SK_DOUBLE
#define SK_DOUBLE 1
#include "lbs.c"
#else
#include "real.h"
#include "lbs_normal.h"

static inline int64_t FN(joint_at)(const void *joints, int itype, size_t i)
{
    switch (itype) {
    case SK_U8: return ((const uint8_t *)joints)[i];
    case SK_U16: return ((const uint16_t *)joints)[i];
    default: return ((const int32_t *)joints)[i];
    }
}

/* one pose, portable C */
static int FN(lbs_pose)(size_t V, size_t K, size_t J, const T *restrict v, const void *joints,
                        int itype, const T *restrict weights, const T *restrict m,
                        const T *restrict nv, T *restrict op, T *restrict on, size_t *bad)
{
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
    return SK_OK;
}

int FN(sk_linear_blend_skinning)(size_t n, size_t V, size_t K, size_t J, const T *verts,
                                 ptrdiff_t sv, const void *joints, int itype, const T *weights,
                                 const T *mats, ptrdiff_t sm, const T *normals, ptrdiff_t sn,
                                 T *restrict out_pos, ptrdiff_t sp, T *restrict out_nrm,
                                 ptrdiff_t so, size_t *bad)
{
    int (*pose)(size_t, size_t, size_t, const T *, const void *, int, const T *, const T *,
                const T *, T *, T *, size_t *) = FN(lbs_pose);
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (sk_simd())
        pose = sk_lbs_pose_avx2;
#endif
    for (size_t i = 0; i < n; i++) {
        int st = pose(V, K, J, verts + i * sv, joints, itype, weights, mats + i * sm,
                      normals ? normals + i * sn : NULL, out_pos + i * sp,
                      out_nrm ? out_nrm + i * so : NULL, bad);
        if (st != SK_OK)
            return st;
    }
    return SK_OK;
}
#endif
