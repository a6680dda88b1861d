/* compress_encode_avx2.c -- sk_rate_bounds (compress_encode.c's key_bound) with AVX2, at the
 * AVX2 and AVX-512 levels: four bit rates of a track at once, one in each lane of a register
 * (a key's fractions, ranges and source values broadcast: the same for every rate), each lane
 * taking the portable code's operations in its order (explicit operations, no FMAs: the file
 * is compiled with -ffp-contract=off; division and square root correctly rounded in both), so
 * every level gives the same bounds. */
#include <immintrin.h>
#include <math.h>

#include "simd.h"

/* a > b ? a : b per lane (b where either is NaN: the portable ternary's rule) */
static inline __m256d pick_gt(__m256d a, __m256d b)
{
    return _mm256_blendv_pd(b, a, _mm256_cmp_pd(a, b, _CMP_GT_OQ));
}

/* the error of a (full components, the same in every lane) against v per lane, key_error's
   operations: the chord to the nearer of v and -v (rotation), else the largest component
   difference */
static inline __m256d lane_error(const double *a, const __m256d *v, size_t full, int rotation)
{
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
    if (rotation) {
        __m256d dot = zero, d2 = zero;
        for (size_t j = 0; j < full; j++)
            dot = _mm256_add_pd(dot, _mm256_mul_pd(_mm256_set1_pd(a[j]), v[j]));
        __m256d sg = _mm256_blendv_pd(_mm256_set1_pd(-1), one,
                                      _mm256_cmp_pd(dot, zero, _CMP_GE_OQ));
        for (size_t j = 0; j < full; j++) {
            __m256d d = _mm256_sub_pd(_mm256_set1_pd(a[j]), _mm256_mul_pd(sg, v[j]));
            d2 = _mm256_add_pd(d2, _mm256_mul_pd(d, d));
        }
        return _mm256_sqrt_pd(d2);
    }
    __m256d e = zero;
    for (size_t j = 0; j < full; j++)
        e = pick_gt(_mm256_andnot_pd(_mm256_set1_pd(-0.0),
                                     _mm256_sub_pd(_mm256_set1_pd(a[j]), v[j])), e);
    return e;
}

void sk_rate_bounds4_avx2(const sk_rate_bounds_job *job, size_t m, size_t k0, size_t lanes,
                          double out[4])
{
    const size_t c = job->ncomp, S = job->segments, R = job->rates;
    const int dropped = job->dropped[m];
    const size_t full = dropped >= 0 ? c + 1 : c;
    const double *unit = job->unit + m * job->rows * c;
    const double *ranges = job->ranges + m * S * 2 * c;
    const uint8_t *widths = job->widths + m * R * S * c;
    const double *src = job->src + m * job->keys * full, *lever = job->lever + m * job->keys;
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
    const __m256d big = _mm256_set1_pd(0x1p52);
    __m256d top = zero, nan = zero;          /* the lanes' largest; their NaNs */
    size_t i = 0;
    for (size_t seg = 0; seg < S; seg++) {
        __m256d scale[4], stored[4], lo[4], ext[4];
        for (size_t j = 0; j < c; j++) {
            double s[4] = {0, 0, 0, 0};      /* a lane past the rates: 0, not stored */
            for (size_t l = 0; l < lanes; l++)
                s[l] = (double)((UINT64_C(1) << widths[((k0 + l) * S + seg) * c + j]) - 1);
            scale[j] = _mm256_loadu_pd(s);
            stored[j] = _mm256_cmp_pd(scale[j], zero, _CMP_GT_OQ);
            lo[j] = _mm256_set1_pd(ranges[seg * 2 * c + j]);
            ext[j] = _mm256_set1_pd(ranges[(seg * 2 + 1) * c + j]);
        }
        for (size_t end = sk_segment_keys(job, i, seg); i < end; i++) {
            const double *u = unit + (job->row0 + i * job->step) * c, *a = src + i * full;
            __m256d v[5], sq = zero;
            for (size_t j = 0; j < c; j++) {
                __m256d x = _mm256_mul_pd(_mm256_set1_pd(u[j]), scale[j]);
                __m256d keep = _mm256_or_pd(_mm256_cmp_pd(x, zero, _CMP_GT_OQ),
                                            _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
                x = _mm256_and_pd(x, keep);                          /* x > 0 || NaN: x, else 0 */
                __m256d q = _mm256_div_pd(_mm256_sub_pd(_mm256_add_pd(x, big), big), scale[j]);
                q = _mm256_blendv_pd(q, one, _mm256_cmp_pd(q, one, _CMP_GT_OQ));
                q = _mm256_and_pd(q, stored[j]);                     /* scale 0: 0 */
                v[j] = _mm256_add_pd(lo[j], _mm256_mul_pd(q, ext[j]));
                sq = _mm256_add_pd(sq, _mm256_mul_pd(v[j], v[j]));
            }
            if (dropped >= 0) {
                for (size_t j = c; j > (size_t)dropped; j--)
                    v[j] = v[j - 1];
                __m256d w = _mm256_sqrt_pd(_mm256_sub_pd(one, sq));
                v[dropped] = _mm256_and_pd(w, _mm256_cmp_pd(sq, one, _CMP_LT_OQ));
            }
            __m256d e = _mm256_mul_pd(lane_error(a, v, full, job->rotation),
                                      _mm256_set1_pd(lever[i]));
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(e, e, _CMP_UNORD_Q));
            top = pick_gt(e, top);
        }
    }
    double t[4];
    _mm256_storeu_pd(t, top);
    int nans = _mm256_movemask_pd(nan);
    for (size_t l = 0; l < lanes; l++)
        out[l] = nans >> l & 1 ? (double)NAN : t[l];    /* NaN kept, as np.max */
}

void sk_track_bounds4_avx2(const sk_track_bounds_job *job)
{
    const size_t T = job->times, M = job->tracks, ncomp = job->ncomp, L = SK_TRACK_LEVELS;
    const size_t full = job->dropped ? ncomp + 1 : ncomp;
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1);
    for (size_t t = 0; t < T; t++) {
        for (size_t m = 0; m < M; m++) {
            const double *a = job->src + (t * M + m) * full;
            const double *key = job->keys + (m * T + t) * ncomp;
            const double *cst = job->constants + m * 2 * ncomp;
            __m256d v[5], sv[4];                /* lanes: the keys, the constants, 24-bit keys */
            for (size_t j = 0; j < ncomp; j++)
                sv[j] = _mm256_setr_pd(key[j], cst[j], cst[ncomp + j], sk_round24(key[j]));
            if (job->dropped) {   /* restored: sqrt(max(1 - the others' squares, 0)) */
                __m256d sq = zero;
                for (size_t j = 0; j < ncomp; j++) {
                    __m256d p = _mm256_mul_pd(sv[j], sv[j]);
                    sq = j == 0 ? p : _mm256_add_pd(sq, p);
                }
                __m256d w = _mm256_sub_pd(one, sq);
                __m256d keep = _mm256_or_pd(_mm256_cmp_pd(w, zero, _CMP_GE_OQ),
                                            _mm256_cmp_pd(w, w, _CMP_UNORD_Q));
                w = _mm256_sqrt_pd(_mm256_and_pd(w, keep));
                for (size_t j = 0, at = 0; j < full; j++)
                    v[j] = j == (size_t)job->dropped[m] ? w : sv[at++];
            } else {
                for (size_t j = 0; j < full; j++)
                    v[j] = sv[j];
            }
            __m256d e = _mm256_mul_pd(lane_error(a, v, full, job->rotation),
                                      _mm256_set1_pd(job->lever[t * M + m]));
            double *bound = job->bound + m * L;
            __m256d b = _mm256_loadu_pd(bound);
            __m256d up = _mm256_or_pd(_mm256_cmp_pd(e, b, _CMP_GT_OQ),
                                      _mm256_cmp_pd(e, e, _CMP_UNORD_Q));
            _mm256_storeu_pd(bound, _mm256_blendv_pd(b, e, up));  /* NaN kept */
        }
    }
}
