/* compress_encode_avx2.c -- the keys of sk_rate_bounds (compress_encode.c's key_bound) with
 * AVX2, at the AVX2 and AVX-512 levels: four keys of a segment at once, one in each lane of a
 * register, each lane taking the portable code's operations in its order (explicit operations,
 * no FMAs: the file is compiled with -ffp-contract=off; division and square root correctly
 * rounded in both), so every level gives the same bounds. */
#include <immintrin.h>
#include <math.h>

#include "simd.h"

/* a > b ? a : b per lane (b where either is NaN: the portable ternary's rule) */
static inline __m256d pick_gt(__m256d a, __m256d b)
{
    return _mm256_blendv_pd(b, a, _mm256_cmp_pd(a, b, _CMP_GT_OQ));
}

double sk_rate_keys_avx2(const sk_rate_keys *r, size_t i, size_t n4, double worst)
{
    const size_t c = r->ncomp, full = r->dropped >= 0 ? c + 1 : c;
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
    const __m256d big = _mm256_set1_pd(0x1p52), sign = _mm256_set1_pd(-0.0);
    __m256d top = zero, nan = zero;          /* the lanes' largest; their NaNs */
    for (size_t g = 0; g < n4; g++, i += 4) {
        const double *u[4], *a[4];
        for (int l = 0; l < 4; l++) {
            u[l] = r->unit + (r->row0 + (i + (size_t)l) * r->step) * c;
            a[l] = r->src + (i + (size_t)l) * full;
        }
        __m256d v[5], sq = zero;
        for (size_t j = 0; j < c; j++) {
            __m256d q = zero;
            if (r->scale[j] > 0) {
                __m256d s = _mm256_set1_pd(r->scale[j]);
                __m256d x = _mm256_mul_pd(_mm256_setr_pd(u[0][j], u[1][j], u[2][j], u[3][j]),
                                          s);
                __m256d keep = _mm256_or_pd(_mm256_cmp_pd(x, zero, _CMP_GT_OQ),
                                            _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
                x = _mm256_and_pd(x, keep);                          /* x > 0 || NaN: x, else 0 */
                q = _mm256_div_pd(_mm256_sub_pd(_mm256_add_pd(x, big), big), s);
                q = _mm256_blendv_pd(q, one, _mm256_cmp_pd(q, one, _CMP_GT_OQ));
            }
            v[j] = _mm256_add_pd(_mm256_set1_pd(r->lo[j]),
                                 _mm256_mul_pd(q, _mm256_set1_pd(r->ext[j])));
            sq = _mm256_add_pd(sq, _mm256_mul_pd(v[j], v[j]));
        }
        if (r->dropped >= 0) {
            for (size_t j = c; j > (size_t)r->dropped; j--)
                v[j] = v[j - 1];
            __m256d w = _mm256_sqrt_pd(_mm256_sub_pd(one, sq));
            v[r->dropped] = _mm256_and_pd(w, _mm256_cmp_pd(sq, one, _CMP_LT_OQ));
        }
        __m256d e;
        if (r->rotation) {       /* the chord to the nearer of v and -v */
            __m256d src[5], dot = zero, d2 = zero;
            for (size_t j = 0; j < full; j++) {
                src[j] = _mm256_setr_pd(a[0][j], a[1][j], a[2][j], a[3][j]);
                dot = _mm256_add_pd(dot, _mm256_mul_pd(src[j], v[j]));
            }
            __m256d sg = _mm256_blendv_pd(_mm256_set1_pd(-1), one,
                                          _mm256_cmp_pd(dot, zero, _CMP_GE_OQ));
            for (size_t j = 0; j < full; j++) {
                __m256d d = _mm256_sub_pd(src[j], _mm256_mul_pd(sg, v[j]));
                d2 = _mm256_add_pd(d2, _mm256_mul_pd(d, d));
            }
            e = _mm256_sqrt_pd(d2);
        } else {                 /* the largest component difference */
            e = zero;
            for (size_t j = 0; j < full; j++) {
                __m256d d = _mm256_sub_pd(_mm256_setr_pd(a[0][j], a[1][j], a[2][j], a[3][j]),
                                          v[j]);
                e = pick_gt(_mm256_andnot_pd(sign, d), e);
            }
        }
        e = _mm256_mul_pd(e, _mm256_loadu_pd(r->lever + i));
        nan = _mm256_or_pd(nan, _mm256_cmp_pd(e, e, _CMP_UNORD_Q));
        top = pick_gt(e, top);
    }
    double t[4];
    _mm256_storeu_pd(t, top);
    int nans = _mm256_movemask_pd(nan);
    for (int l = 0; l < 4; l++) {
        double e = nans >> l & 1 ? (double)NAN : t[l];
        worst = e > worst || e != e ? e : worst;        /* NaN kept, as np.max */
    }
    return worst;
}

void sk_track_bounds4_avx2(size_t times, size_t tracks, size_t ncomp, const int32_t *dropped,
                           int rotation, const double *src, const double *stored,
                           const double *lever, double *bound)
{
    const size_t full = dropped ? ncomp + 1 : ncomp;
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
    const __m256d sign = _mm256_set1_pd(-0.0);
    for (size_t t = 0; t < times; t++) {
        for (size_t m = 0; m < tracks; m++) {
            const double *a = src + (t * tracks + m) * full;
            const double *s = stored + (t * tracks + m) * 4 * ncomp;   /* level l: s + l c */
            __m256d v[5];
            if (dropped) {   /* restored: sqrt(max(1 - the others' squares, 0)) */
                __m256d sv[4], sq = zero;
                for (size_t j = 0; j < ncomp; j++) {
                    sv[j] = _mm256_setr_pd(s[j], s[ncomp + j], s[2 * ncomp + j],
                                           s[3 * ncomp + j]);
                    __m256d p = _mm256_mul_pd(sv[j], sv[j]);
                    sq = j == 0 ? p : _mm256_add_pd(sq, p);
                }
                __m256d w = _mm256_sub_pd(one, sq);
                __m256d keep = _mm256_or_pd(_mm256_cmp_pd(w, zero, _CMP_GE_OQ),
                                            _mm256_cmp_pd(w, w, _CMP_UNORD_Q));
                w = _mm256_sqrt_pd(_mm256_and_pd(w, keep));
                for (size_t j = 0, at = 0; j < full; j++)
                    v[j] = j == (size_t)dropped[m] ? w : sv[at++];
            } else {
                for (size_t j = 0; j < full; j++)
                    v[j] = _mm256_setr_pd(s[j], s[ncomp + j], s[2 * ncomp + j],
                                          s[3 * ncomp + j]);
            }
            __m256d e;
            if (rotation) {      /* the chord to the nearer of v and -v */
                __m256d dot = zero, d2 = zero;
                for (size_t j = 0; j < full; j++)
                    dot = _mm256_add_pd(dot, _mm256_mul_pd(_mm256_set1_pd(a[j]), v[j]));
                __m256d sg = _mm256_blendv_pd(_mm256_set1_pd(-1), one,
                                              _mm256_cmp_pd(dot, zero, _CMP_GE_OQ));
                for (size_t j = 0; j < full; j++) {
                    __m256d d = _mm256_sub_pd(_mm256_set1_pd(a[j]), _mm256_mul_pd(sg, v[j]));
                    d2 = _mm256_add_pd(d2, _mm256_mul_pd(d, d));
                }
                e = _mm256_sqrt_pd(d2);
            } else {             /* the largest component difference */
                e = zero;
                for (size_t j = 0; j < full; j++)
                    e = pick_gt(_mm256_andnot_pd(sign, _mm256_sub_pd(_mm256_set1_pd(a[j]), v[j])),
                                e);
            }
            e = _mm256_mul_pd(e, _mm256_set1_pd(lever[t * tracks + m]));
            __m256d b = _mm256_loadu_pd(bound + 4 * m);
            __m256d up = _mm256_or_pd(_mm256_cmp_pd(e, b, _CMP_GT_OQ),
                                      _mm256_cmp_pd(e, e, _CMP_UNORD_Q));
            _mm256_storeu_pd(bound + 4 * m, _mm256_blendv_pd(b, e, up));  /* NaN kept */
        }
    }
}
