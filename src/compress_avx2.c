/* compress_avx2.c -- a compressed clip's float32 lane groups with AVX2 (cclip_lanes.h): 8 lanes
 * a register. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lanes8.h"

#define UNIT_NAME sk_cclip_unit_avx2
#define KEYS_NAME sk_cclip_keys_avx2
#define SLERP_NAME sk_cclip_slerp_avx2
#define VL 8
#define LV __m256
#define LM __m256
#define LV_C(c) _mm256_set1_ps(c)
#define LV_ADD _mm256_add_ps
#define LV_SUB _mm256_sub_ps
#define LV_MUL _mm256_mul_ps
#define LV_DIV _mm256_div_ps
#define LV_SQRT _mm256_sqrt_ps
#define LV_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define LV_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define LV_GE(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OQ)
#define LV_SEL(m, f, t) _mm256_blendv_ps(f, t, m)
#define LV_AND _mm256_and_ps
#define LV_OR _mm256_or_ps
#define LV_ANDNOT _mm256_andnot_ps
#define LV_ALL(m) (_mm256_movemask_ps(m) == 0xff)
#define LV_LOAD _mm256_loadu_ps
#define LV_STORE _mm256_storeu_ps
#define LV_DROP(d, i) _mm256_castsi256_ps(_mm256_cmpeq_epi32(                                   \
    _mm256_loadu_si256((const __m256i *)(d)), _mm256_set1_epi32(i)))
#define STORE_AOS(r, o) store_aos8(r, o)

/* r[4] [component] (8 lanes) to o [lane][component]: the 4 x 4 transposes inside the 128-bit
 * halves (half k of u[m]: lane 4 k + m), then the halves in lane order */
static inline void store_aos8(const __m256 r[4], float *o)
{
    __m256 u[4];
    transpose4_lanes8(r, 4, u);
    _mm256_storeu_ps(o, _mm256_permute2f128_ps(u[0], u[1], 0x20));
    _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(u[2], u[3], 0x20));
    _mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(u[0], u[1], 0x31));
    _mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(u[2], u[3], 0x31));
}

#include "cclip_lanes.h"
