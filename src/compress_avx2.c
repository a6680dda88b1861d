/* compress_avx2.c -- a compressed clip's float32 lane group of SK_CLANES LINEAR rotation
 * tracks (compress_decode.c) with AVX2, 8 lanes a register: the math of cclip_lane_math.h, the
 * portable code's, so that every lane gets its bits whatever the SIMD level.  Each function
 * takes the n lanes in use (those from n on are computed to their register's end, their
 * results unused). */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lanes8.h"

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

/* the lanes of the 8 int32 at d equal to i */
static inline __m256 drop_mask(const int32_t *d, int i)
{
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)d),
                                                  _mm256_set1_epi32(i)));
}

#define LV_FLOAT32 1
#define LV_FN(name) name
#include "cclip_lane_math.h"

/* the 4 components c of 8 lanes (dropped ones where the int32 at drop equal their index) made
 * unit quaternions into q + h [component][lane] and at q + 4 SK_CLANES + 4 h [lane][component] */
static inline void unit8(__m256 c[4], const int32_t *drop, float *q, int h)
{
    LM dm[4];
    for (int i = 0; i < 4; i++)
        dm[i] = drop_mask(drop + h, i);
    lane_unit(c, dm);
    for (int i = 0; i < 4; i++)
        _mm256_storeu_ps(q + SK_CLANES * i + h, c[i]);
    store_aos8(c, q + 4 * SK_CLANES + 4 * h);
}

/* The keys q [component][lane] (SK_CLANES lanes, the dropped component drop[l], -1 for none)
 * made unit quaternions, in place and at q + 4 SK_CLANES [lane][component] */
void sk_cclip_unit_avx2(float *q, const int32_t *drop, int n)
{
    for (int h = 0; h < n; h += 8) {
        LV c[4];
        for (int i = 0; i < 4; i++)
            c[i] = _mm256_loadu_ps(q + SK_CLANES * i + h);
        unit8(c, drop, q, h);
    }
}

/* The row of codes (sk_cclip_codes, simd.h), the value of each code as lane_rows computes it
 * (row's and value's operations),
 * the stored components k placed around the dropped one: component i is k[i] below it, k[i - 1]
 * above it, 0 at it */
void sk_cclip_rows_avx2(const sk_cclip_codes *codes, const int32_t *drop, float *q, int n)
{
    for (int h = 0; h < n; h += 8) {
        __m256i pos = _mm256_add_epi32(
            _mm256_loadu_si256((const __m256i *)(codes->base + h)),
            _mm256_mullo_epi32(_mm256_set1_epi32((int)codes->row),
                               _mm256_loadu_si256((const __m256i *)(codes->bits + h))));
        __m256i d = _mm256_loadu_si256((const __m256i *)(drop + h));
        LV k[3], c[4], zero = LV_C(0);
        for (int i = 0; i < 3; i++) {
            __m256i at = _mm256_add_epi32(pos, _mm256_loadu_si256(
                                                   (const __m256i *)(codes->off[i] + h)));
            __m256i mask = _mm256_loadu_si256((const __m256i *)(codes->mask[i] + h));
            __m256i word = _mm256_i32gather_epi32((const int *)(const void *)codes->bytes,
                                                  _mm256_srli_epi32(at, 3), 1);
            __m256i code = _mm256_and_si256(_mm256_srlv_epi32(
                                                word, _mm256_and_si256(at, _mm256_set1_epi32(7))),
                                            mask);
            LV lo = _mm256_loadu_ps(codes->lo[i] + h);
            LV v = LV_ADD(lo, LV_MUL(_mm256_loadu_ps(codes->ext[i] + h),
                                     LV_MUL(_mm256_cvtepi32_ps(code),
                                            _mm256_loadu_ps(codes->inv[i] + h))));
            k[i] = LV_SEL(_mm256_castsi256_ps(_mm256_cmpeq_epi32(mask, _mm256_setzero_si256())),
                          v, lo);
            LM f24 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(codes->f24 + h)));
            k[i] = LV_SEL(f24, k[i], _mm256_castsi256_ps(_mm256_slli_epi32(code, 8)));
        }
        for (int i = 0; i < 4; i++) {
            __m256i ii = _mm256_set1_epi32(i);
            LM above = _mm256_castsi256_ps(_mm256_cmpgt_epi32(d, ii));
            LM at = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, ii));
            c[i] = i == 0 ? k[0] : i == 3 ? k[2] : LV_SEL(above, k[i - 1], k[i]);
            c[i] = LV_SEL(at, c[i], zero);
        }
        unit8(c, drop, q, h);
    }
}

/* The slerp constants (lane_keys) of the keys a, b [component][lane] into k [constant][lane] */
void sk_cclip_keys_avx2(const float *a, const float *b, float *k, int n)
{
    for (int h = 0; h < n; h += 8) {
        LV qa[4], qb[4], kc[3];
        for (int c = 0; c < 4; c++)
            qa[c] = _mm256_loadu_ps(a + SK_CLANES * c + h),
            qb[c] = _mm256_loadu_ps(b + SK_CLANES * c + h);
        lane_keys(qa, qb, kc);
        for (int c = 0; c < 3; c++)
            _mm256_storeu_ps(k + SK_CLANES * c + h, kc[c]);
    }
}

/* The slerp of the keys a, b [component][lane] (constants k) at s in (0, 1), lane l's to
 * row + offset[l] (4 floats) for l < n: the 4 x 4 transposes inside the 128-bit halves of the
 * components' registers give half k of u[m] lane 4 k + m */
void sk_cclip_slerp_avx2(const float *a, const float *b, const float *k, float s, float *row,
                         const int64_t *offset, int n)
{
    for (int h = 0; h < n; h += 8) {
        LV kc[3], w0, w1, r[4], u[4];
        for (int c = 0; c < 3; c++)
            kc[c] = _mm256_loadu_ps(k + SK_CLANES * c + h);
        lane_weights(kc, LV_C(s), &w0, &w1);
        for (int c = 0; c < 4; c++)
            r[c] = LV_ADD(LV_MUL(w0, _mm256_loadu_ps(a + SK_CLANES * c + h)),
                          LV_MUL(w1, _mm256_loadu_ps(b + SK_CLANES * c + h)));
        transpose4_lanes8(r, 4, u);
        for (int m = 0; m < 4 && h + m < n; m++)
            _mm_storeu_ps(row + offset[h + m], _mm256_castps256_ps128(u[m]));
        for (int m = 0; m < 4 && h + 4 + m < n; m++)
            _mm_storeu_ps(row + offset[h + 4 + m], _mm256_extractf128_ps(u[m], 1));
    }
}

/* The n values v to o + j os for j < rows (a run of constants, copy_run in compress_decode.c),
 * 8 values a store (the last one ending at n, over values already stored: the same again) */
void sk_cclip_fill_avx2(float *o, ptrdiff_t os, size_t rows, const float *v, int64_t n)
{
    if (n >= 8) {
        for (size_t j = 0; j < rows; j++) {
            float *oj = o + (ptrdiff_t)j * os;
            /* the first 8, then from the 32-byte boundary at most 8 on (for float-aligned
             * rows: then no store across a cache line, 4% faster), the last 8 */
            ptrdiff_t c = (ptrdiff_t)(8 - ((uintptr_t)oj / sizeof(float)) % 8);
            _mm256_storeu_ps(oj, _mm256_loadu_ps(v));
            for (; c + 8 < n; c += 8)
                _mm256_storeu_ps(oj + c, _mm256_loadu_ps(v + c));
            _mm256_storeu_ps(oj + n - 8, _mm256_loadu_ps(v + n - 8));
        }
    } else if (n >= 4) {
        __m128 x = _mm_loadu_ps(v), y = _mm_loadu_ps(v + n - 4);
        for (size_t j = 0; j < rows; j++) {
            _mm_storeu_ps(o + (ptrdiff_t)j * os, x);
            _mm_storeu_ps(o + (ptrdiff_t)j * os + n - 4, y);
        }
    } else {
        for (size_t j = 0; j < rows; j++)
            for (int64_t c = 0; c < n; c++)
                o[(ptrdiff_t)j * os + c] = v[c];
    }
}
