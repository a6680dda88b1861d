/* sample_avx2.c -- clip sampling with AVX2/FMA (compiled with -mavx2 -mfma -ffp-contract=off,
 * called by sample.c only when cpu.c finds both): the lane groups of sample_lanes.h (float: one
 * register of 8 lanes, double: two of 4), the streaming fill of sk_fill_rows, and the float32
 * slerp of a LINEAR rotation channel that joins no group at 8 sample times at once.  Per 8 times:
 * the key interval of each (the scalar cursor, sample_keys.h), then the keys and slerp constants
 * (sk_prepare_clip) transposed into lanes; one sine/cosine pair of 8 lanes (polynomials of degree
 * 9 and 10 on [0, pi/4], the co-functions beyond: within an ulp or two of the correctly rounded
 * value); the quaternions transposed back into their rows.  A time before the first key or from
 * the last key on takes that key's value (a lane of its own, as every lane), and a partial group
 * pads its lanes with the first key: a sample gets the same bits in whatever group of 8 it falls,
 * so results do not depend on how a call is split. (3-vectors lerped the same way took more
 * instructions than sample.c's scalar loop: 85M against 56M for 64 channels at 10,000 times; the
 * per-lane interval search, not the arithmetic, is the cost.  Side by side in lane groups they
 * take the lanes.) */
#include <immintrin.h>

#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lanes8.h"
#include "sample_keys.h"

#define L 8

/* o[c] lane l = p[l][c], c < 4 */
static inline void load4(const float *const p[L], __m256 o[4])
{
    for (int i = 0; i < 4; i++)
        o[i] = _mm256_set_m128(_mm_loadu_ps(p[i + 4]), _mm_loadu_ps(p[i]));
    transpose4_lanes8(o, 4, o);
}

/* sin x and cos x of lanes x in [0, pi/2] */
static inline void sincos8(__m256 x, __m256 *s, __m256 *c)
{
    __m256 flip = _mm256_cmp_ps(x, _mm256_set1_ps(0.785398163f), _CMP_GT_OQ);
    __m256 co = _mm256_add_ps(_mm256_sub_ps(_mm256_set1_ps(1.57079637f), x),
                              _mm256_set1_ps(-4.37113883e-8f)); /* pi/2 - x */
    __m256 y = _mm256_blendv_ps(x, co, flip), y2 = _mm256_mul_ps(y, y);
#define P(a, b) _mm256_fmadd_ps(y2, a, _mm256_set1_ps(b))
    __m256 ps = P(P(P(_mm256_set1_ps(1.f / 362880), -1.f / 5040), 1.f / 120), -1.f / 6);
    __m256 pc = P(P(P(P(_mm256_set1_ps(-1.f / 3628800), 1.f / 40320), -1.f / 720), 1.f / 24),
                  -0.5f);
#undef P
    __m256 sn = _mm256_fmadd_ps(_mm256_mul_ps(y, y2), ps, y);
    __m256 cs = _mm256_fmadd_ps(y2, pc, _mm256_set1_ps(1.f));
    *s = _mm256_blendv_ps(sn, cs, flip);
    *c = _mm256_blendv_ps(cs, sn, flip);
}

/* the 8 lanes' quaternions v back into their samples' rows */
static inline void store_rows(__m256 v[4], size_t i, size_t e, float *o, ptrdiff_t os)
{
    transpose4_lanes8(v, 4, v);
    for (size_t l = 0; l < L && i + l < e; l++)
        _mm_storeu_ps(o + (ptrdiff_t)(i + l) * os, l < 4 ? _mm256_castps256_ps128(v[l])
                                                         : _mm256_extractf128_ps(v[l - 4], 1));
}

void sk_sample_slerp_avx2(const float *vals, const float *sl, const sk_block_keys_f *bk,
                          float *o, ptrdiff_t os)
{
    size_t n = bk->e - bk->b;
    for (size_t i = 0; i < n; i += L) {
        const float *pa[L], *pb[L], *pc[L]; /* per lane: key, next key, slerp constants */
        float u[L], held[L];
        for (size_t l = 0; l < L; l++) { /* past n: padding, the first key held */
            size_t key = i + l < n ? bk->key[i + l] : 0;
            int hold = i + l < n ? bk->held[i + l] : 1;
            pa[l] = vals + 4 * key;
            pb[l] = vals + 4 * (key + !hold);
            pc[l] = sl + 4 * key;
            u[l] = i + l < n ? bk->u[i + l] : 0.f;
            held[l] = hold ? -1.f : 0.f; /* sign bit set: the blend takes the key */
        }
        __m256 a[4], q[4], c[4];
        load4(pa, a);
        load4(pb, q);
        load4(pc, c); /* phi, sin phi, cos phi, sign */
        __m256 t = _mm256_loadu_ps(u), st, ct;
        sincos8(_mm256_mul_ps(t, c[0]), &st, &ct);
        __m256 w1 = _mm256_div_ps(st, c[1]);
        __m256 w0 = _mm256_fnmadd_ps(c[2], w1, ct);
        /* below phi^2 < EPS the weights are 1 - t and t (qslerp_at) */
        __m256 small = _mm256_cmp_ps(_mm256_mul_ps(c[0], c[0]), _mm256_set1_ps(FLT_EPSILON),
                                     _CMP_LT_OQ);
        w0 = _mm256_blendv_ps(w0, _mm256_sub_ps(_mm256_set1_ps(1.f), t), small);
        w1 = _mm256_mul_ps(_mm256_blendv_ps(w1, t, small), c[3]);
        __m256 hold = _mm256_loadu_ps(held), r[4];
        for (int d = 0; d < 4; d++)
            r[d] = _mm256_blendv_ps(_mm256_fmadd_ps(w1, q[d], _mm256_mul_ps(w0, a[d])), a[d],
                                    hold);
        store_rows(r, bk->b + i, bk->e, o, os);
    }
}

/* --- the float lane groups: 8 lanes, one register --- */
#define SK_LANES 8
#define NAME sk_sample_lanes_avx2_f
#define ONCE_NAME sk_sample_lanes_once_avx2_f
#define ROWS_NAME sk_sample_rows_avx2_f
#define VW 8
#define VT __m256
#define MT __m256
#define V(op) _mm256_##op##_ps
#define MADD(a, b, c) _mm256_fmadd_ps(a, b, c) /* as sk_sample_slerp_avx2 */
#define NMADD(a, b, c) _mm256_fnmadd_ps(a, b, c)
#define CMPLT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define BLEND(a, b, m) _mm256_blendv_ps(a, b, m)
#define SINCOS sincos8
#define STORE_ROWS store_lanes8

/* STORE_ROWS of sample_lanes.h */
static inline void store_lanes8(__m256 r[4], int nc, float *const p[8], float *row, int packed)
{
    transpose4_lanes8(r, 4, r);
    for (int l = 0; l < 8; l++) {
        __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        float *d = packed ? row + l * nc : p[l];
        if (nc == 4 || (packed && l < 7)) {
            _mm_storeu_ps(d, q);
        } else {
            _mm_storel_pi((__m64 *)d, q);
            _mm_store_ss(d + 2, _mm_movehl_ps(q, q));
        }
    }
}
#include "sample_lanes.h"

void sk_fill_rows_avx2_f(size_t nrows, const float *row, size_t len, float *out)
{
    for (size_t i = 0; i < nrows; i++)
        stream_row_f(row, out + i * len, len);
    _mm_sfence();
}
#undef SK_LANES
#undef NAME
#undef ONCE_NAME
#undef ROWS_NAME
#undef VW
#undef VT
#undef MT
#undef V
#undef MADD
#undef NMADD
#undef CMPLT
#undef BLEND
#undef SINCOS
#undef STORE_ROWS

/* --- the double lane groups: 8 lanes, two registers of 4 --- */
#undef SK_DOUBLE
#define SK_DOUBLE 1
#include "real.h"
#include "qmath.h"
#include "sample_keys.h"
#define SK_LANES 8
#define NAME sk_sample_lanes_avx2_d
#define ONCE_NAME sk_sample_lanes_once_avx2_d
#define ROWS_NAME sk_sample_rows_avx2_d
#define VW 4
#define VT __m256d
#define MT __m256d
#define V(op) _mm256_##op##_pd
#define MADD(a, b, c) _mm256_fmadd_pd(a, b, c)
#define NMADD(a, b, c) _mm256_fnmadd_pd(a, b, c)
#define CMPLT(a, b) _mm256_cmp_pd(a, b, _CMP_LT_OQ)
#define BLEND(a, b, m) _mm256_blendv_pd(a, b, m)
#define SINCOS sincos4
#define STORE_ROWS store_lanes4

/* sincos_slerp (qmath.h) of 4 lanes x in [0, pi/2], its polynomials with FMAs */
static inline void sincos4(__m256d x, __m256d *s, __m256d *c)
{
    __m256d flip = _mm256_cmp_pd(x, _mm256_set1_pd(SK_PIO4), _CMP_GT_OQ);
    __m256d co = _mm256_add_pd(_mm256_sub_pd(_mm256_set1_pd(SK_PIO2_HI), x),
                               _mm256_set1_pd(SK_PIO2_LO));
    __m256d y = _mm256_blendv_pd(x, co, flip), y2 = _mm256_mul_pd(y, y);
    __m256d sn = _mm256_fmadd_pd(_mm256_mul_pd(y, y2),
                                 SK_SIN_TAYLOR(y2, _mm256_fmadd_pd, _mm256_set1_pd), y);
    __m256d cs = _mm256_fmadd_pd(y2, SK_COS_TAYLOR(y2, _mm256_fmadd_pd, _mm256_set1_pd),
                                 _mm256_set1_pd(1));
    *s = _mm256_blendv_pd(sn, cs, flip);
    *c = _mm256_blendv_pd(cs, sn, flip);
}

/* STORE_ROWS of sample_lanes.h */
static inline void store_lanes4(__m256d r[4], int nc, double *const p[4], double *row,
                                int packed)
{
    __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    __m256d q[4] = {_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                    _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31)};
    for (int l = 0; l < 4; l++) {
        double *d = packed ? row + l * nc : p[l];
        if (nc == 4 || (packed && l < 3)) {
            _mm256_storeu_pd(d, q[l]);
        } else {
            _mm_storeu_pd(d, _mm256_castpd256_pd128(q[l]));
            _mm_store_sd(d + 2, _mm256_extractf128_pd(q[l], 1));
        }
    }
}
#include "sample_lanes.h"

void sk_fill_rows_avx2_d(size_t nrows, const double *row, size_t len, double *out)
{
    for (size_t i = 0; i < nrows; i++)
        stream_row_d(row, out + i * len, len);
    _mm_sfence();
}
