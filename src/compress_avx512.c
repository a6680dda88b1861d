/* compress_avx512.c -- a compressed clip's float32 lane groups with AVX-512
 * (cclip_lanes.h): the 8 lanes' sines and cosines in one register of 8 doubles. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"

#include <immintrin.h>

#include "qmath.h"

#define V(op) _mm512_##op##_pd
#define SLERP_NAME sk_cclip_slerp8_avx512
#define UNIT_NAME sk_cclip_unit8_avx512
#define KEYS_NAME sk_cclip_keys8_avx512
#define SK_ADD_MUL_PD(a, b, c) V(add)(c, V(mul)(a, b))
#define SK_SET1_PD(c) V(set1)(c)

/* sincos_slerp (qmath.h) of 8 floats in [0, pi/2], in doubles */
static inline void sincos8(__m256 xf, __m256 *s, __m256 *c)
{
    __m512d x = _mm512_cvtps_pd(xf);
    __mmask8 flip = _mm512_cmp_pd_mask(x, _mm512_set1_pd(SK_PIO4), _CMP_GT_OQ);
    __m512d y = _mm512_mask_blend_pd(flip, x, _mm512_add_pd(_mm512_sub_pd(
                                         _mm512_set1_pd(SK_PIO2_HI), x), _mm512_set1_pd(SK_PIO2_LO)));
    __m512d y2 = _mm512_mul_pd(y, y);
    __m512d sn = _mm512_add_pd(y, _mm512_mul_pd(_mm512_mul_pd(y, y2),
                                                SK_SIN_TAYLOR(y2, SK_ADD_MUL_PD, SK_SET1_PD)));
    __m512d cs = _mm512_add_pd(_mm512_set1_pd(1), _mm512_mul_pd(y2, SK_COS_TAYLOR(
                                   y2, SK_ADD_MUL_PD, SK_SET1_PD)));
    *s = _mm512_cvtpd_ps(_mm512_mask_blend_pd(flip, sn, cs));
    *c = _mm512_cvtpd_ps(_mm512_mask_blend_pd(flip, cs, sn));
}

/* atan2_lanes (compress_decode.c) of 8 pairs of floats >= 0, in doubles */
static inline __m256 atan8(__m256 yf, __m256 xf)
{
    __m512d y = _mm512_cvtps_pd(yf), x = _mm512_cvtps_pd(xf), one = _mm512_set1_pd(1);
    __mmask8 swap = _mm512_cmp_pd_mask(y, x, _CMP_GT_OQ);
    __m512d num = _mm512_mask_blend_pd(swap, y, x), den = _mm512_mask_blend_pd(swap, x, y);
    __m512d z = _mm512_maskz_div_pd(_mm512_cmp_pd_mask(den, _mm512_setzero_pd(), _CMP_GT_OQ),
                                    num, den);
    __mmask8 reduce = _mm512_cmp_pd_mask(z, _mm512_set1_pd(SK_TAN_PIO8), _CMP_GT_OQ);
    z = _mm512_mask_blend_pd(reduce, z, _mm512_div_pd(_mm512_sub_pd(z, one),
                                                      _mm512_add_pd(z, one)));
    __m512d z2 = _mm512_mul_pd(z, z);
    __m512d at = _mm512_add_pd(z, _mm512_mul_pd(_mm512_mul_pd(z, z2), SK_ATAN_TAYLOR(
                                   z2, SK_ADD_MUL_PD, SK_SET1_PD)));
    at = _mm512_mask_blend_pd(reduce, at, _mm512_add_pd(_mm512_set1_pd(SK_PIO4), at));
    at = _mm512_mask_blend_pd(swap, at, _mm512_sub_pd(_mm512_set1_pd(SK_PIO2_HI), at));
    return _mm512_cvtpd_ps(at);
}

#define SINCOS8(x, s, c) sincos8(x, s, c)
#define ATAN8(y, x) atan8(y, x)
#include "cclip_lanes.h"
