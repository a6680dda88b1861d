/* sample_keys.h -- internal: the key intervals of sample times, shared by the sampler's scalar
 * loop (sample.c) and its AVX2 slerp (sample_avx2.c).  Included after real.h. */

#define SK_TIME_BLOCK 256 /* sample times taken together (sample.c) */
#define SK_ROW_GROUPS 8   /* lane groups sampled row by row together at most (sample.c) */

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

/* The key intervals of the times [b, e) (e - b <= SK_TIME_BLOCK) in one key-time array kt of K
 * keys: for time b + j, key[j] (the interval kt[key] <= t < kt[key + 1], or the key held before
 * the first key or from the last one on) and u[j] (the parameter in the interval, 0 when
 * held), held[j].  The channels that share a key-time array (skinkit.clip.ClipTable packs each
 * distinct one once) share them: the search and the division are made once per time. */
typedef struct FN(sk_block_keys) {
    const T *kt;
    size_t K, b, e, k; /* k: the last interval, where the next block's search starts */
    size_t key[SK_TIME_BLOCK];
    T u[SK_TIME_BLOCK];
    unsigned char held[SK_TIME_BLOCK];
} FN(sk_block_keys);

static inline void FN(block_keys)(FN(sk_block_keys) *bk, const T *kt, size_t K, size_t k,
                                  const T *times, size_t b, size_t e)
{
    bk->kt = kt, bk->K = K, bk->b = b, bk->e = e;
    for (size_t j = 0; j < e - b; j++) {
        T t = times[b + j];
        int hold = !(t > kt[0] && t < kt[K - 1]); /* NaN: held at the first key */
        size_t key = hold ? (t > kt[0] ? K - 1 : 0) : (k = FN(key_interval)(kt, K, t, k));
        T t0 = kt[key];
        bk->key[j] = key;
        bk->u[j] = hold ? 0 : (t - t0) / (kt[key + 1] - t0);
        bk->held[j] = (unsigned char)hold;
    }
    bk->k = k;
}
