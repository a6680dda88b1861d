/* lbs.c -- linear blend skinning: v' = sum_k w_k M_{j_k} v, normals by the cofactor matrix.
 * float32 poses run the AVX-512 (lbs_avx512.c) or AVX2/FMA (lbs_avx2.c) variant when the CPU
 * has it (cpu.c). */
#include "simd.h"
#include "real.h"
#include "lbs_joints.h"
#include "lbs_normal.h"

/* portable C, any strides */
static int FN(lbs_items)(size_t n, size_t K, size_t J, const T *v, ptrdiff_t sv,
                         const void *joints, ptrdiff_t sj, int itype, const T *weights,
                         ptrdiff_t sw, const T *mats, ptrdiff_t sm, const T *nv, ptrdiff_t sn,
                         T *restrict op, ptrdiff_t sp, T *restrict on, ptrdiff_t so, size_t *bad)
{
    for (size_t x = 0; x < n; x++) {
        const T *m = mats + x * sm, *w = weights + x * sw, *p = v + x * sv;
        T a[12] = {0};
        for (size_t k = 0; k < K; k++) {
            int64_t j = FN(joint_at)(joints, itype, x * sj + k);
            if (j < 0 || (size_t)j >= J) {
                if (j == -1 || !bad) /* no influence, or checked by the caller already */
                    continue;
                *bad = x * K + k;
                return SK_ERR_JOINT_INDEX;
            }
            const T *mj = m + 16 * (size_t)j;
            for (int e = 0; e < 12; e++)
                a[e] += w[k] * mj[e];
        }
        T *o = op + x * sp;
        for (int r = 0; r < 3; r++)
            o[r] = a[4 * r] * p[0] + a[4 * r + 1] * p[1] + a[4 * r + 2] * p[2] + a[4 * r + 3];
        if (on)
            FN(skin_normal)(a, nv + x * sn, on + x * so);
    }
    return SK_OK;
}

int FN(sk_linear_blend_skinning)(size_t n, size_t K, size_t J, const T *verts, ptrdiff_t sv,
                                 const void *joints, ptrdiff_t sj, int itype, const T *weights,
                                 ptrdiff_t sw, const T *mats, ptrdiff_t sm, const T *normals,
                                 ptrdiff_t sn, T *restrict out_pos, ptrdiff_t sp,
                                 T *restrict out_nrm, ptrdiff_t so, size_t *bad)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    /* the SIMD variants take packed vertices of one pose */
    int level = sk_simd();
    if (level && J <= SK_AVX2_MAX_JOINTS && sv == 3 && sp == 3 && sm == 0 &&
        sj == (ptrdiff_t)K && sw == (ptrdiff_t)K && (!normals || (sn == 3 && so == 3))) {
#if defined(SK_HAVE_AVX512)
        if (level >= SK_SIMD_AVX512)
            return sk_lbs_pose_avx512(n, K, J, verts, joints, itype, weights, mats, normals,
                                      out_pos, out_nrm, bad);
#endif
        return sk_lbs_pose_avx2(n, K, J, verts, joints, itype, weights, mats, normals, out_pos,
                                out_nrm, bad);
    }
#endif
    return FN(lbs_items)(n, K, J, verts, sv, joints, sj, itype, weights, sw, mats, sm, normals,
                         sn, out_pos, sp, out_nrm, so, bad);
}
