/* sample_avx512.c -- the double lane groups of clip sampling (sample.c, sample_lanes.h) with
 * AVX-512 (F, VL, DQ, BW; compiled with those flags and -ffp-contract=off, called only when
 * cpu.c finds them): a group's 8 lanes in one register.  The operations per lane are those of
 * sample_avx2.c's two 4-lane registers (sincos4 there), so both give the same bits. */
#include <immintrin.h>

#define SK_DOUBLE 1
#include "real.h"
#include "simd.h"
#include "qmath.h"
#include "sample_keys.h"

/* sincos4 (sample_avx2.c) of 8 lanes */
static inline void sincos8d(__m512d x, __m512d *s, __m512d *c)
{
    __mmask8 flip = _mm512_cmp_pd_mask(x, _mm512_set1_pd(SK_PIO4), _CMP_GT_OQ);
    __m512d co = _mm512_add_pd(_mm512_sub_pd(_mm512_set1_pd(SK_PIO2_HI), x),
                               _mm512_set1_pd(SK_PIO2_LO));
    __m512d y = _mm512_mask_blend_pd(flip, x, co), y2 = _mm512_mul_pd(y, y);
    __m512d sn = _mm512_fmadd_pd(_mm512_mul_pd(y, y2),
                                 SK_SIN_TAYLOR(y2, _mm512_fmadd_pd, _mm512_set1_pd), y);
    __m512d cs = _mm512_fmadd_pd(y2, SK_COS_TAYLOR(y2, _mm512_fmadd_pd, _mm512_set1_pd),
                                 _mm512_set1_pd(1));
    *s = _mm512_mask_blend_pd(flip, sn, cs);
    *c = _mm512_mask_blend_pd(flip, cs, sn);
}

/* packed rows of 8 lanes: element e of output register j is lane (n j + e) / n's component
 * (n j + e) % n (n = 4, 3), taken from r[0], r[1] (index + 8) by one permute and from r[2],
 * r[3] by another (3-vectors: a masked permute of r[2]) */
static const long long QI[4][8] = {{0, 8, 0, 8, 1, 9, 1, 9},
                                   {2, 10, 2, 10, 3, 11, 3, 11},
                                   {4, 12, 4, 12, 5, 13, 5, 13},
                                   {6, 14, 6, 14, 7, 15, 7, 15}};
static const long long XY3[3][8] = {{0, 8, 0, 1, 9, 0, 2, 10},
                                    {0, 3, 11, 0, 4, 12, 0, 5},
                                    {13, 0, 6, 14, 0, 7, 15, 0}};
static const long long Z3[3][8] = {{0, 0, 0, 0, 0, 1, 0, 0},
                                   {2, 0, 0, 3, 0, 0, 4, 0},
                                   {0, 5, 0, 0, 6, 0, 0, 7}};

/* STORE_ROWS of sample_lanes.h */
static inline void store_lanes8d(__m512d r[4], int nc, double *const p[8], double *row,
                                 int packed)
{
    if (packed && nc == 4) {
        for (int j = 0; j < 4; j++) {
            __m512i i = _mm512_loadu_si512(QI[j]);
            __m512d xy = _mm512_permutex2var_pd(r[0], i, r[1]);
            __m512d zw = _mm512_permutex2var_pd(r[2], i, r[3]);
            _mm512_storeu_pd(row + 8 * j, _mm512_mask_blend_pd(0xcc, xy, zw));
        }
    } else if (packed) {
        static const __mmask8 zm[3] = {0x24, 0x49, 0x92};
        for (int j = 0; j < 3; j++) {
            __m512d v = _mm512_permutex2var_pd(r[0], _mm512_loadu_si512(XY3[j]), r[1]);
            v = _mm512_mask_permutexvar_pd(v, zm[j], _mm512_loadu_si512(Z3[j]), r[2]);
            _mm512_storeu_pd(row + 8 * j, v);
        }
    } else {
        double b[4][8];
        for (int d = 0; d < nc; d++)
            _mm512_storeu_pd(b[d], r[d]);
        for (int l = 0; l < 8; l++)
            for (int d = 0; d < nc; d++)
                p[l][d] = b[d][l];
    }
}

#define SK_LANES 8
#define NAME sk_sample_lanes_avx512_d
#define ONCE_NAME sk_sample_lanes_once_avx512_d
#define ROWS_NAME sk_sample_rows_avx512_d
#define VW 8
#define VT __m512d
#define MT __mmask8
#define V(op) _mm512_##op##_pd
#define MADD(a, b, c) _mm512_fmadd_pd(a, b, c)
#define NMADD(a, b, c) _mm512_fnmadd_pd(a, b, c)
#define CMPLT(a, b) _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ)
#define BLEND(a, b, m) _mm512_mask_blend_pd(m, a, b)
#define SINCOS sincos8d
#define STORE_ROWS store_lanes8d
#include "sample_lanes.h"
