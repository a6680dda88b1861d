/* compress_avx512.c -- a compressed clip's float32 lane groups with AVX-512 (cclip_lanes.h):
 * 16 lanes a register. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lanes8.h"

#define UNIT_NAME sk_cclip_unit_avx512
#define KEYS_NAME sk_cclip_keys_avx512
#define SLERP_NAME sk_cclip_slerp_avx512
#define VL 16
#define LV __m512
#define LM __mmask16
#define LV_C(c) _mm512_set1_ps(c)
#define LV_ADD _mm512_add_ps
#define LV_SUB _mm512_sub_ps
#define LV_MUL _mm512_mul_ps
#define LV_DIV _mm512_div_ps
#define LV_SQRT _mm512_sqrt_ps
#define LV_LT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define LV_GT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define LV_GE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define LV_SEL(m, f, t) _mm512_mask_blend_ps(m, f, t)
#define LV_AND(m, n) ((__mmask16)((m) & (n)))
#define LV_OR(m, n) ((__mmask16)((m) | (n)))
#define LV_ANDNOT(m, n) ((__mmask16)(~(m) & (n)))
#define LV_ALL(m) ((m) == 0xffff)
#define LV_LOAD _mm512_loadu_ps
#define LV_STORE _mm512_storeu_ps
#define LV_DROP(d, i) _mm512_cmpeq_epi32_mask(_mm512_loadu_si512(d), _mm512_set1_epi32(i))
#define STORE_AOS(r, o) store_aos16(r, o)

SK_TRANSPOSE4_IN_LANES(transpose4_lanes16, __m512, _mm512)

/* r[4] [component] (16 lanes) to o [lane][component]: the 4 x 4 transposes inside the 128-bit
 * chunks (chunk k of u[m]: lane 4 k + m), then the 4 x 4 transpose of the chunks */
static inline void store_aos16(const __m512 r[4], float *o)
{
    __m512 u[4];
    transpose4_lanes16(r, 4, u);
    __m512 t0 = _mm512_shuffle_f32x4(u[0], u[1], _MM_SHUFFLE(1, 0, 1, 0));
    __m512 t1 = _mm512_shuffle_f32x4(u[2], u[3], _MM_SHUFFLE(1, 0, 1, 0));
    __m512 t2 = _mm512_shuffle_f32x4(u[0], u[1], _MM_SHUFFLE(3, 2, 3, 2));
    __m512 t3 = _mm512_shuffle_f32x4(u[2], u[3], _MM_SHUFFLE(3, 2, 3, 2));
    _mm512_storeu_ps(o, _mm512_shuffle_f32x4(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_ps(o + 16, _mm512_shuffle_f32x4(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm512_storeu_ps(o + 32, _mm512_shuffle_f32x4(t2, t3, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_ps(o + 48, _mm512_shuffle_f32x4(t2, t3, _MM_SHUFFLE(3, 1, 3, 1)));
}

#include "cclip_lanes.h"
