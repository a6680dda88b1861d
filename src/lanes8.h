/* lanes8.h -- the AVX2 store shared by the 8-lane skinning kernels (lbs_simd.h, dqs_avx2.c):
 * 8 vertices' x, y, z, one register each, back to cnt <= 8 interleaved xyz triples. */
#ifndef SK_LANES8_H
#define SK_LANES8_H
#include <immintrin.h>
#include <stddef.h>

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
