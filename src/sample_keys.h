/* sample_keys.h -- internal: the key interval of a sample time, shared by the sampler's scalar
 * loop (sample.c) and its AVX2 slerp (sample_avx2.c).  Included after real.h. */

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

/* the interval k with kt[k] <= t < kt[k + 1] for kt[0] < t < kt[K - 1], from the previous
 * sample's k: amortised O(1) for sorted times, a binary search otherwise */
static inline size_t FN(key_interval)(const T *kt, size_t K, T t, size_t k)
{
    if (kt[k] <= t && t < kt[k + 1])
        return k;
    if (k + 2 < K && kt[k + 1] <= t && t < kt[k + 2])
        return k + 1;
    return FN(upper_key)(kt, K, t) - 1;
}
