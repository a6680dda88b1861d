/* lanes8.h -- AVX2 pieces shared by the 8-lane kernels: the store of the skinning kernels
 * (lbs_simd.h, dqs_avx2.c), 8 vertices' x, y, z, one register each, back to cnt <= 8
 * interleaved xyz triples; the 4 x 4 transposes inside 128-bit lanes (lbs_simd.h, fk_avx2.c;
 * the macro also gives lbs_avx512.c its 512-bit one). */
#ifndef SK_LANES8_H
#define SK_LANES8_H
#include <immintrin.h>
#include <stddef.h>

/* NAME(r, n, u), for the registers r[i..i+3] of each i = 0, 4, .., n - 4 (VT, intrinsics of
 * prefix P): the 4 x 4 transpose inside every 128-bit lane, u[i + m] lane k element e =
 * r[i + e] lane k element m.  u may be r. */
#define SK_TRANSPOSE4_IN_LANES(NAME, VT, P)                                                    \
    static inline void NAME(const VT *r, int n, VT *u)                                        \
    {                                                                                         \
        for (int i = 0; i < n; i += 4) {                                                      \
            VT t0 = P##_unpacklo_ps(r[i], r[i + 1]), t1 = P##_unpackhi_ps(r[i], r[i + 1]);    \
            VT t2 = P##_unpacklo_ps(r[i + 2], r[i + 3]);                                      \
            VT t3 = P##_unpackhi_ps(r[i + 2], r[i + 3]);                                      \
            u[i] = P##_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));                           \
            u[i + 1] = P##_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));                       \
            u[i + 2] = P##_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));                       \
            u[i + 3] = P##_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));                       \
        }                                                                                     \
    }
SK_TRANSPOSE4_IN_LANES(transpose4_lanes8, __m256, _mm256)

static inline void store_xyz8(const __m256 o[3], size_t cnt, float *dst)
{
    float out[3][8];
    for (int c = 0; c < 3; c++)
        _mm256_storeu_ps(out[c], o[c]);
    for (size_t l = 0; l < cnt; l++)
        for (int c = 0; c < 3; c++)
            dst[3 * l + c] = out[c][l];
}
#endif
