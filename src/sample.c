/* sample.c -- glTF 2.0 animation sampling (section 3.11 and Appendix C "Interpolation"). */
#ifndef SK_DOUBLE
#define SK_DOUBLE 0
#include "sample.c"
#undef SK_DOUBLE
#define SK_DOUBLE 1
#include "sample.c"
#else
#include "real.h"
#include "qmath.h"

/* the key value of key k (the middle of in-tangent, value, out-tangent for CUBICSPLINE) */
static inline const T *FN(key_value)(const T *vals, int interp, int nc, size_t k)
{
    return vals + (interp == SK_CUBICSPLINE ? 3 * k + 1 : k) * (size_t)nc;
}

/* first index in [1, K-1] whose key time exceeds t (K >= 2); stays in range for any input */
static inline size_t FN(upper_key)(const T *kt, size_t K, T t)
{
    size_t lo = 1, hi = K - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kt[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void FN(interpolate)(const T *kt, const T *vals, int interp, int nc, int rot, size_t k,
                            T t, T *o)
{
    T t0 = kt[k], td = kt[k + 1] - t0, s = (t - t0) / td;
    const T *v0 = FN(key_value)(vals, interp, nc, k), *v1 = FN(key_value)(vals, interp, nc, k + 1);
    if (interp == SK_STEP) {
        for (int c = 0; c < nc; c++)
            o[c] = v0[c];
    } else if (interp == SK_LINEAR) {
        if (rot)
            FN(qslerp)(v0, v1, s, o);
        else
            for (int c = 0; c < nc; c++)
                o[c] = (1 - s) * v0[c] + s * v1[c];
    } else {
        /* p = h00 v_k + h10 td b_k + h01 v_k+1 + h11 td a_k+1 (b: out-tangent, a: in-tangent) */
        const T *b0 = v0 + nc, *a1 = v1 - nc;
        T s2 = s * s, s3 = s2 * s;
        T h00 = 2 * s3 - 3 * s2 + 1, h10 = (s3 - 2 * s2 + s) * td;
        T h01 = -2 * s3 + 3 * s2, h11 = (s3 - s2) * td;
        T len2 = 0;
        for (int c = 0; c < nc; c++) {
            o[c] = h00 * v0[c] + h10 * b0[c] + h01 * v1[c] + h11 * a1[c];
            len2 += o[c] * o[c];
        }
        if (rot && len2 > 0) {
            T r = 1 / SQRT(len2);
            for (int c = 0; c < nc; c++)
                o[c] *= r;
        }
    }
}

/* Channels are taken in groups and times in blocks, so that one block of output rows stays in
 * cache while every channel of the group writes into it; each channel keeps its key interval
 * from one time to the next (amortised O(1) for sorted times, binary search otherwise). */
#define SK_CHANNEL_GROUP 64
#define SK_TIME_BLOCK 256

int FN(sk_sample_channels)(size_t nchannels, const T *key_times, const int64_t *key_offset,
                           const int64_t *nkeys, const T *values, const int64_t *value_offset,
                           const int32_t *ncomp, const int32_t *interp, const int32_t *rotation,
                           const int64_t *out_offset, const int64_t *out_stride, size_t ntimes,
                           const T *times, T *restrict out, size_t *bad)
{
    for (size_t c = 0; c < nchannels; c++)
        if (nkeys[c] < 1) {
            *bad = c;
            return SK_ERR_KEYS;
        }
    for (size_t g = 0; g < nchannels; g += SK_CHANNEL_GROUP) {
        size_t gend = g + SK_CHANNEL_GROUP < nchannels ? g + SK_CHANNEL_GROUP : nchannels;
        size_t cursor[SK_CHANNEL_GROUP] = {0};
        for (size_t b = 0; b < ntimes; b += SK_TIME_BLOCK) {
            size_t bend = b + SK_TIME_BLOCK < ntimes ? b + SK_TIME_BLOCK : ntimes;
            for (size_t c = g; c < gend; c++) {
                size_t K = (size_t)nkeys[c], k = cursor[c - g];
                const T *kt = key_times + key_offset[c], *vals = values + value_offset[c];
                int nc = ncomp[c], mode = interp[c], rot = rotation[c];
                for (size_t i = b; i < bend; i++) {
                    T t = times[i];
                    T *o = out + out_offset[c] + (ptrdiff_t)i * out_stride[c];
                    const T *hold = NULL;
                    if (!(t > kt[0]))        /* before the first key (or NaN) */
                        hold = FN(key_value)(vals, mode, nc, 0);
                    else if (t >= kt[K - 1]) /* at or after the last key */
                        hold = FN(key_value)(vals, mode, nc, K - 1);
                    if (hold) {
                        for (int e = 0; e < nc; e++)
                            o[e] = hold[e];
                        continue;
                    }
                    if (!(kt[k] <= t && t < kt[k + 1])) {
                        if (k + 2 < K && kt[k + 1] <= t && t < kt[k + 2])
                            k++;
                        else
                            k = FN(upper_key)(kt, K, t) - 1;
                    }
                    FN(interpolate)(kt, vals, mode, nc, rot, k, t, o);
                }
                cursor[c - g] = k;
            }
        }
    }
    return SK_OK;
}
#undef SK_CHANNEL_GROUP
#undef SK_TIME_BLOCK
#endif
