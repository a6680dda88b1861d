/* compress_avx2.c -- a compressed clip's float32 lane groups with AVX2
 * (cclip_lanes.h): the 8 lanes' sines and cosines in two registers of 4 doubles. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"

#define V(op) _mm256_##op##_pd
#define SLERP_NAME sk_cclip_slerp8_avx2
#define UNIT_NAME sk_cclip_unit8_avx2
#define SINCOS8(x, s, c) sincos8(x, s, c)

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

#include "cclip_lanes.h"
