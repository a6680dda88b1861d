/* lbs.c -- linear blend skinning: v' = sum_k w_k M_{j_k} v, normals by the cofactor matrix.
 * float32 poses run the AVX-512 (lbs_avx512.c) or AVX2/FMA (lbs_avx2.c) variant when the CPU
 * has it (cpu.c). */
#include "simd.h"
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

#if !SK_DOUBLE /* once, in the float compile */
/* Scans blocks of 1024 indices with a branch-free test the compiler vectorizes in the index's
 * own width, and looks for the first bad index only in a block that has one: a call's check
 * costs little next to its skinning.  BAD(j) is the test of one index j. */
#define SK_SCAN_JOINTS(JT, BAD)                                                                \
    {                                                                                         \
        const JT *p = joints;                                                                 \
        for (size_t b = 0; b < n; b += 1024) {                                                \
            size_t e = n - b < 1024 ? n : b + 1024;                                           \
            int any = 0;                                                                      \
            for (size_t i = b; i < e; i++)                                                    \
                any |= BAD(p[i]);                                                             \
            for (size_t i = b; any && i < e; i++)                                             \
                if (BAD(p[i])) {                                                              \
                    *bad = i;                                                                 \
                    return SK_ERR_JOINT_INDEX;                                                \
                }                                                                             \
        }                                                                                     \
        return SK_OK;                                                                         \
    }

/* valid: 0..J-1, and -1 (int32: no influence) */
int sk_check_joints(size_t n, const void *joints, int itype, size_t J, size_t *bad)
{
#if defined(SK_HAVE_AVX512)
    if (sk_simd() >= SK_SIMD_AVX512 && sk_joints_in_range_avx512(n, joints, itype, J))
        return SK_OK; /* all in 0..J-1; else (a -1, or a bad index) the scan below decides */
#endif
    uint32_t J32 = J < ((size_t)1 << 31) ? (uint32_t)J : (uint32_t)1 << 31;
#define BAD_U8(j) ((j) >= (uint8_t)J)
#define BAD_U16(j) ((j) >= (uint16_t)J)
#define BAD_I32(j) ((uint32_t)(j) + 1u > J32) /* -1 -> 0 */
    if (itype == SK_U8 && J <= UINT8_MAX)
        SK_SCAN_JOINTS(uint8_t, BAD_U8)
    if (itype == SK_U16 && J <= UINT16_MAX)
        SK_SCAN_JOINTS(uint16_t, BAD_U16)
    if (itype == SK_I32)
        SK_SCAN_JOINTS(int32_t, BAD_I32)
#undef BAD_U8
#undef BAD_U16
#undef BAD_I32
    return SK_OK; /* J above every value of the index type */
}
#undef SK_SCAN_JOINTS
#endif

/* portable C, any strides */
static void FN(lbs_items)(size_t n, size_t K, size_t J, const T *v, ptrdiff_t sv,
                          const void *joints, ptrdiff_t sj, int itype, const T *weights,
                          ptrdiff_t sw, const T *mats, ptrdiff_t sm, const T *nv, ptrdiff_t sn,
                          T *restrict op, ptrdiff_t sp, T *restrict on, ptrdiff_t so)
{
    for (size_t x = 0; x < n; x++) {
        const T *m = mats + x * sm, *w = weights + x * sw, *p = v + x * sv;
        T a[12] = {0};
        for (size_t k = 0; k < K; k++) {
            int64_t j = FN(joint_at)(joints, itype, x * sj + k);
            if (j < 0 || (size_t)j >= J) /* -1: no influence */
                continue;
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
}

void FN(sk_linear_blend_skinning)(size_t n, size_t K, size_t J, const T *verts, ptrdiff_t sv,
                                  const void *joints, ptrdiff_t sj, int itype, const T *weights,
                                  ptrdiff_t sw, const T *mats, ptrdiff_t sm, const T *normals,
                                  ptrdiff_t sn, T *restrict out_pos, ptrdiff_t sp,
                                  T *restrict out_nrm, ptrdiff_t so)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    /* the SIMD variants take packed vertices of one pose */
    int level = sk_simd();
    if (level && J <= SK_AVX2_MAX_JOINTS && sv == 3 && sp == 3 && sm == 0 &&
        sj == (ptrdiff_t)K && sw == (ptrdiff_t)K && (!normals || (sn == 3 && so == 3))) {
#if defined(SK_HAVE_AVX512)
        if (level >= SK_SIMD_AVX512)
            sk_lbs_pose_avx512(n, K, J, verts, joints, itype, weights, mats, normals, out_pos,
                               out_nrm);
        else
#endif
            sk_lbs_pose_avx2(n, K, J, verts, joints, itype, weights, mats, normals, out_pos,
                             out_nrm);
        return;
    }
#endif
    FN(lbs_items)(n, K, J, verts, sv, joints, sj, itype, weights, sw, mats, sm, normals, sn,
                  out_pos, sp, out_nrm, so);
}
