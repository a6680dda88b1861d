/* compress_avx2.c -- a compressed clip's float32 lane groups with AVX2
 * (cclip_lanes.h): the 8 lanes' sines and cosines in two registers of 4 doubles. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"

#define V(op) _mm256_##op##_pd
#define SLERP_NAME sk_cclip_slerp8_avx2
#define UNIT_NAME sk_cclip_unit8_avx2
#define KEYS_NAME sk_cclip_keys8_avx2
#define SINCOS8(x, s, c) sincos8(x, s, c)
#define ATAN8(y, x) atan8(y, x)

#include <immintrin.h>

#include "qmath.h"

#define SK_ADD_MUL_PD(a, b, c) V(add)(c, V(mul)(a, b))
#define SK_SET1_PD(c) V(set1)(c)

/* sincos_slerp (qmath.h) of 4 doubles in [0, pi/2] */
static inline void sincos4(__m256d x, __m256d *s, __m256d *c)
{
    __m256d flip = _mm256_cmp_pd(x, _mm256_set1_pd(SK_PIO4), _CMP_GT_OQ);
    __m256d y = _mm256_blendv_pd(x, _mm256_add_pd(_mm256_sub_pd(_mm256_set1_pd(SK_PIO2_HI), x),
                                                  _mm256_set1_pd(SK_PIO2_LO)), flip);
    __m256d y2 = _mm256_mul_pd(y, y);
    __m256d sn = _mm256_add_pd(y, _mm256_mul_pd(_mm256_mul_pd(y, y2),
                                                SK_SIN_TAYLOR(y2, SK_ADD_MUL_PD, SK_SET1_PD)));
    __m256d cs = _mm256_add_pd(_mm256_set1_pd(1), _mm256_mul_pd(y2, SK_COS_TAYLOR(
                                   y2, SK_ADD_MUL_PD, SK_SET1_PD)));
    *s = _mm256_blendv_pd(sn, cs, flip);
    *c = _mm256_blendv_pd(cs, sn, flip);
}

/* sincos_slerp of 8 floats, in two halves */
static inline void sincos8(__m256 x, __m256 *s, __m256 *c)
{
    __m256d s0, c0, s1, c1;
    sincos4(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), &s0, &c0);
    sincos4(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), &s1, &c1);
    *s = _mm256_set_m128(_mm256_cvtpd_ps(s1), _mm256_cvtpd_ps(s0));
    *c = _mm256_set_m128(_mm256_cvtpd_ps(c1), _mm256_cvtpd_ps(c0));
}

/* atan2_lanes (compress_decode.c) of 4 pairs of doubles >= 0 */
static inline __m256d atan4(__m256d y, __m256d x)
{
    __m256d one = _mm256_set1_pd(1), swap = _mm256_cmp_pd(y, x, _CMP_GT_OQ);
    __m256d num = _mm256_blendv_pd(y, x, swap), den = _mm256_blendv_pd(x, y, swap);
    __m256d z = _mm256_and_pd(_mm256_div_pd(num, den),
                              _mm256_cmp_pd(den, _mm256_setzero_pd(), _CMP_GT_OQ));
    __m256d reduce = _mm256_cmp_pd(z, _mm256_set1_pd(SK_TAN_PIO8), _CMP_GT_OQ);
    z = _mm256_blendv_pd(z, _mm256_div_pd(_mm256_sub_pd(z, one), _mm256_add_pd(z, one)), reduce);
    __m256d z2 = _mm256_mul_pd(z, z);
    __m256d at = _mm256_add_pd(z, _mm256_mul_pd(_mm256_mul_pd(z, z2), SK_ATAN_TAYLOR(
                                   z2, SK_ADD_MUL_PD, SK_SET1_PD)));
    at = _mm256_blendv_pd(at, _mm256_add_pd(_mm256_set1_pd(SK_PIO4), at), reduce);
    return _mm256_blendv_pd(at, _mm256_sub_pd(_mm256_set1_pd(SK_PIO2_HI), at), swap);
}

/* atan2_lanes of 8 pairs of floats, in two halves */
static inline __m256 atan8(__m256 y, __m256 x)
{
    __m256d lo = atan4(_mm256_cvtps_pd(_mm256_castps256_ps128(y)),
                       _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    __m256d hi = atan4(_mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)),
                       _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
    return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
}

#include "cclip_lanes.h"
