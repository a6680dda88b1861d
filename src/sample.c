/* sample.c -- glTF 2.0 animation sampling (section 3.11 and Appendix C "Interpolation"). */
#include <string.h>

#include "real.h"
#include "qmath.h"
#include "simd.h"
#include "sample_keys.h"

/* the key value of key k (the middle of in-tangent, value, out-tangent for CUBICSPLINE) */
static inline const T *FN(key_value)(const T *vals, int interp, int nc, size_t k)
{
    return vals + (interp == SK_CUBICSPLINE ? 3 * k + 1 : k) * (size_t)nc;
}

#ifndef SK_SPECIALIZE
/* inlined into each call with constant arguments, so that the compiler writes one copy of the
 * loop per kind of channel (GCC, Clang; elsewhere the compiler decides) */
#if defined(__GNUC__)
#define SK_SPECIALIZE static inline __attribute__((always_inline))
#else
#define SK_SPECIALIZE static inline
#endif
#endif

/* the value at parameter s of interval k; sl: the channel's slerp constants (sk_prepare_clip)
 * or NULL */
SK_SPECIALIZE void FN(interpolate)(const T *kt, const T *vals, const T *sl, int interp, int nc,
                                   int rot, size_t k, T s, T *o)
{
    const T *v0 = FN(key_value)(vals, interp, nc, k), *v1 = FN(key_value)(vals, interp, nc, k + 1);
    if (interp == SK_STEP) {
        for (int c = 0; c < nc; c++)
            o[c] = v0[c];
    } else if (interp == SK_LINEAR) {
        if (rot && sl)
            FN(qslerp_at)(v0, v1, sl + 4 * k, s, o);
        else if (rot)
            FN(qslerp)(v0, v1, s, o);
        else
            for (int c = 0; c < nc; c++)
                o[c] = (1 - s) * v0[c] + s * v1[c];
    } else {
        /* p = h00 v_k + h10 td b_k + h01 v_k+1 + h11 td a_k+1 (b: out-tangent, a: in-tangent) */
        const T *b0 = v0 + nc, *a1 = v1 - nc;
        T td = kt[k + 1] - kt[k], s2 = s * s, s3 = s2 * s;
        T h00 = 2 * s3 - 3 * s2 + 1, h10 = (s3 - 2 * s2 + s) * td;
        T h01 = -2 * s3 + 3 * s2, h11 = (s3 - s2) * td;
        for (int c = 0; c < nc; c++)
            o[c] = h00 * v0[c] + h10 * b0[c] + h01 * v1[c] + h11 * a1[c];
        if (rot)
            FN(qunit)(o);
    }
}

/* Channels are taken in groups and times in blocks (SK_TIME_BLOCK, sample_keys.h), so that one
 * block of output rows stays in cache while every channel of the group writes into it; each
 * channel keeps its key interval from one time to the next (amortised O(1) for sorted times,
 * binary search otherwise), and channels with the same key times share the block's intervals. */
#define SK_CHANNEL_GROUP 64

/* the clip table's own rules (skinkit.h): every range inside its array */
int FN(sk_check_clip)(const FN(sk_clip) *clip, size_t *bad)
{
    int64_t nkt = (int64_t)clip->nkey_times, nv = (int64_t)clip->nvalues;
    for (size_t c = 0; c < clip->nchannels; c++) {
        int64_t ko = clip->key_offset[c], nk = clip->nkeys[c], vo = clip->value_offset[c];
        int64_t nc = clip->ncomp[c];
        int32_t mode = clip->interp[c];
        int st = SK_OK;
        if (nk < 1 || ko < 0 || ko > nkt || nk > nkt - ko)
            st = SK_ERR_CLIP_KEYS;
        else if (nc < 1 || (clip->rotation[c] && nc != 4))
            st = SK_ERR_CLIP_NCOMP;
        else if (mode < SK_STEP || mode > SK_CUBICSPLINE)
            st = SK_ERR_CLIP_INTERP;
        else if (vo < 0 || vo > nv || nk > (nv - vo) / ((mode == SK_CUBICSPLINE ? 3 : 1) * nc))
            st = SK_ERR_CLIP_VALUES;
        if (st != SK_OK) {
            *bad = c;
            return st;
        }
    }
    return SK_OK;
}

int FN(sk_check_clip_output)(const FN(sk_clip) *clip, const int64_t *out_offset,
                             const int64_t *out_stride, size_t ntimes, size_t nout, size_t *bad)
{
    int64_t nt = (int64_t)ntimes, no = (int64_t)nout;
    for (size_t c = 0; c < clip->nchannels && nt > 0; c++) {
        int64_t oo = out_offset[c], os = out_stride[c], end = no - clip->ncomp[c];
        if (oo < 0 || os < 0 || oo > end || (os > 0 && nt - 1 > (end - oo) / os)) {
            *bad = c;
            return SK_ERR_CLIP_OUTPUT;
        }
    }
    return SK_OK;
}

/* Lane groups: SK_LANES (8: an AVX2 register of floats, two of doubles, an AVX-512 one) LINEAR
 * channels of one kind (rotations, or 3-vectors) that follow one another in the table and share
 * one key-time array.  At a time they share the key interval and its parameter (sk_block_keys),
 * so their samples are computed side by side, one channel per lane, from keys that
 * sk_prepare_clip lays out [key][component][lane] after the slerp constants: a rotation key's 4
 * values and its 4 slerp constants (zero for the last key), a 3-vector key's 3 values.  A run of
 * such channels is cut into groups from its start, the last one padded with copies of its last
 * channel; a lone channel (a run of one, or one left over) is no group.  The layout is the same
 * at every SIMD level (the level may be capped after a clip is prepared). */
#define SK_LANES 8

/* the components of channel c's keys in a lane group: 8 for a LINEAR rotation, 3 for a LINEAR
 * 3-vector, 0 for the channels that join none */
static int FN(lane_kind)(const FN(sk_clip) *clip, size_t c)
{
    if (clip->interp[c] != SK_LINEAR || clip->nkeys[c] < 2)
        return 0;
    return clip->rotation[c] ? 8 : clip->ncomp[c] == 3 ? 3 : 0;
}

/* a lane group: channels [first, first + n), their keys at prepared + at */
typedef struct {
    size_t first, n, at;
} FN(sk_lanes);

/* the lane group after g (the first one after {0, 0, nvalues}); n = 0 when none is left */
static void FN(next_lanes)(const FN(sk_clip) *clip, FN(sk_lanes) *g)
{
    const int64_t *ko = clip->key_offset, *nk = clip->nkeys;
    size_t nch = clip->nchannels;
    if (g->n)
        g->at += (size_t)nk[g->first] * (size_t)FN(lane_kind)(clip, g->first) * SK_LANES;
    for (g->first += g->n; g->first < nch; g->first++) {
        size_t c = g->first, n = 1;
        int kind = FN(lane_kind)(clip, c);
        while (kind && n < SK_LANES && c + n < nch && ko[c + n] == ko[c] && nk[c + n] == nk[c] &&
               FN(lane_kind)(clip, c + n) == kind)
            n++;
        if (n > 1) {
            g->n = n;
            return;
        }
    }
    g->n = 0;
}

size_t FN(sk_prepared_size)(const FN(sk_clip) *clip)
{
    FN(sk_lanes) g = {0, 0, clip->nvalues};
    do
        FN(next_lanes)(clip, &g);
    while (g.n);
    return g.at;
}

void FN(sk_prepare_clip)(const FN(sk_clip) *clip, T *restrict prepared)
{
    for (size_t c = 0; c < clip->nchannels; c++) {
        if (!clip->rotation[c] || clip->interp[c] != SK_LINEAR)
            continue;
        const T *v = clip->values + clip->value_offset[c];
        T *sl = prepared + clip->value_offset[c];
        for (size_t k = 0; k + 1 < (size_t)clip->nkeys[c]; k++)
            FN(qslerp_key)(v + 4 * k, v + 4 * k + 4, sl + 4 * k);
    }
    FN(sk_lanes) g = {0, 0, clip->nvalues};
    for (FN(next_lanes)(clip, &g); g.n; FN(next_lanes)(clip, &g)) {
        size_t K = (size_t)clip->nkeys[g.first];
        int kind = FN(lane_kind)(clip, g.first), nc = kind == 8 ? 4 : 3;
        for (size_t l = 0; l < SK_LANES; l++) {
            size_t c = g.first + (l < g.n ? l : g.n - 1);
            const T *v = clip->values + clip->value_offset[c];
            const T *sl = prepared + clip->value_offset[c];
            for (size_t k = 0; k < K; k++)
                for (int d = 0; d < kind; d++)
                    prepared[g.at + (k * (size_t)kind + (size_t)d) * SK_LANES + l] =
                        d < nc ? v[(size_t)nc * k + (size_t)d]
                               : k + 1 < K ? sl[4 * k + (size_t)d - 4] : 0;
        }
    }
}

/* the times of a block (their intervals bk) of one channel (its key times kt, values, slerp
 * constants sl, its kind) into o (sample i at o + i * os) */
SK_SPECIALIZE void FN(sample_run)(const T *kt, const T *vals, const T *sl, int mode, int nc,
                                  int rot, const FN(sk_block_keys) *bk, T *o, ptrdiff_t os)
{
    for (size_t j = 0; j < bk->e - bk->b; j++) {
        T *oi = o + (ptrdiff_t)(bk->b + j) * os;
        if (bk->held[j]) {
            const T *hold = FN(key_value)(vals, mode, nc, bk->key[j]);
            for (int c = 0; c < nc; c++)
                oi[c] = hold[c];
            if (rot && mode == SK_CUBICSPLINE)
                FN(qunit)(oi);
        } else {
            FN(interpolate)(kt, vals, sl, mode, nc, rot, bk->key[j], bk->u[j], oi);
        }
    }
}

#if defined(SK_HAVE_AVX2)
/* the lane group g's channels in [c0, c1) at the times of block bk (sample_avx2.c) */
static void FN(sample_lanes)(const FN(sk_clip) *clip, const FN(sk_lanes) *g, size_t c0,
                             size_t c1, const int64_t *out_offset, const int64_t *out_stride,
                             const FN(sk_block_keys) *bk, T *out)
{
    T *o[SK_LANES];
    ptrdiff_t os[SK_LANES];
    for (size_t l = 0; l < SK_LANES; l++) {
        size_t c = g->first + l;
        int mine = l < g->n && c >= c0 && c < c1;
        o[l] = mine ? out + out_offset[c] : NULL;
        os[l] = mine ? (ptrdiff_t)out_stride[c] : 0;
    }
    int kind = FN(lane_kind)(clip, g->first);
#if SK_DOUBLE && defined(SK_HAVE_AVX512)
    if (sk_simd() >= SK_SIMD_AVX512) {
        sk_sample_lanes_avx512_d(kind, clip->prepared + g->at, bk, o, os);
        return;
    }
#endif
    FN(sk_sample_lanes_avx2)(kind, clip->prepared + g->at, bk, o, os);
}

/* A call that writes at least SK_STREAM_BYTES samples the lane groups whose rows lie side by
 * side in the output (a group's 8 channels in [c0, c1), each writing after the one before, and
 * each next group after it) row by row, and writes the rows with streaming stores.  An ordinary
 * store reads its line from memory first when the output does not stay in the caches: 10,000
 * times of 64 joints are 51 MB of float64 TRS a call, which ordinary stores wrote in 5.2 ms on
 * a Sapphire Rapids VM and streaming ones in about 2.5 ms.  Smaller outputs are left to
 * ordinary stores, which keep them in the caches for what reads them next.  The values are
 * those of sample_lanes.  (SK_STREAM_BYTES: skinkit.h.) */

/* the lane groups waiting to be sampled row by row: n of one kind, their keys, the output of
 * the first one's first channel and the stride */
typedef struct {
    int kind;
    size_t n;
    const T *lanes[SK_ROW_GROUPS];
    T *dst;
    ptrdiff_t os;
} FN(sk_rows);

static void FN(flush_rows)(FN(sk_rows) *w, const FN(sk_block_keys) *bk)
{
    if (!w->n)
        return;
#if SK_DOUBLE && defined(SK_HAVE_AVX512)
    if (sk_simd() >= SK_SIMD_AVX512)
        sk_sample_rows_avx512_d(w->kind, w->n, w->lanes, bk, w->dst, w->os);
    else
#endif
        FN(sk_sample_rows_avx2)(w->kind, w->n, w->lanes, bk, w->dst, w->os);
    w->n = 0;
}

/* 1 if the lane group g joins w (sampled row by row), 0 if not; w is flushed first when g does
 * not continue it */
static int FN(add_rows)(const FN(sk_clip) *clip, const FN(sk_lanes) *g, size_t c0, size_t c1,
                        const int64_t *out_offset, const int64_t *out_stride,
                        const FN(sk_block_keys) *bk, T *out, FN(sk_rows) *w)
{
    size_t f = g->first;
    int kind = FN(lane_kind)(clip, f), nc = kind == 8 ? 4 : 3, rows = g->n == SK_LANES;
    rows = rows && f >= c0 && f + SK_LANES <= c1;
    for (size_t l = 1; rows && l < SK_LANES; l++)
        rows = out_offset[f + l] == out_offset[f] + (int64_t)l * nc &&
               out_stride[f + l] == out_stride[f];
    T *dst = out + out_offset[f];
    ptrdiff_t os = rows ? (ptrdiff_t)out_stride[f] : 0;
    if (w->n && (!rows || w->n == SK_ROW_GROUPS || kind != w->kind || os != w->os ||
                 dst != w->dst + w->n * SK_LANES * (size_t)nc))
        FN(flush_rows)(w, bk);
    /* rows that overlap the next time's row go the usual way */
    if (!rows || os < (ptrdiff_t)((w->n + 1) * SK_LANES * (size_t)nc)) {
        FN(flush_rows)(w, bk);
        return 0;
    }
    if (!w->n)
        w->kind = kind, w->dst = dst, w->os = os;
    w->lanes[w->n++] = clip->prepared + g->at;
    return 1;
}
#endif

/* channel c alone at the times of block bk (its key times') */
static void FN(sample_channel)(const FN(sk_clip) *clip, size_t c, const FN(sk_block_keys) *bk,
                               const int64_t *out_offset, const int64_t *out_stride, T *out)
{
    const T *kt = clip->key_times + clip->key_offset[c];
    const T *vals = clip->values + clip->value_offset[c];
    const T *sl = clip->prepared ? clip->prepared + clip->value_offset[c] : NULL;
    int nc = clip->ncomp[c], mode = clip->interp[c], rot = clip->rotation[c];
    T *o = out + out_offset[c];
    ptrdiff_t os = (ptrdiff_t)out_stride[c];
    /* the usual kinds get their own copies: slerped rotations, lerped 3-vectors */
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (mode == SK_LINEAR && rot && sl && sk_simd() >= SK_SIMD_AVX2)
        sk_sample_slerp_avx2(vals, sl, bk, o, os);
    else
#endif
    if (mode == SK_LINEAR && rot && sl)
        FN(sample_run)(kt, vals, sl, SK_LINEAR, 4, 1, bk, o, os);
    else if (mode == SK_LINEAR && nc == 3 && !rot)
        FN(sample_run)(kt, vals, NULL, SK_LINEAR, 3, 0, bk, o, os);
    else
        FN(sample_run)(kt, vals, sl, mode, nc, rot, bk, o, os);
}

/* the lane groups' own loop where the build and the CPU have AVX2 */
static int FN(use_lanes)(const FN(sk_clip) *clip)
{
#if defined(SK_HAVE_AVX2)
    return clip->prepared && sk_simd() >= SK_SIMD_AVX2;
#else
    (void)clip;
    return 0;
#endif
}

void FN(sk_sample_clip)(const FN(sk_clip) *clip, size_t c0, size_t c1,
                        const int64_t *out_offset, const int64_t *out_stride, size_t i0,
                        size_t i1, const T *times, T *restrict out)
{
    const T *key_times = clip->key_times;
    FN(sk_block_keys) bk;
    bk.K = bk.b = bk.e = bk.k = 0;
    int lanes = FN(use_lanes)(clip);
    FN(sk_lanes) lg0 = {0, 0, clip->nvalues};
    if (lanes)
        FN(next_lanes)(clip, &lg0);
#if defined(SK_HAVE_AVX2)
    /* (a call of fewer than SK_TIME_BLOCK times, such as a playback's one time a frame, is
       left to ordinary stores without counting its bytes) */
    size_t bytes = 0;
    for (size_t c = c0; lanes && i1 - i0 >= SK_TIME_BLOCK && c < c1; c++)
        bytes += (size_t)clip->ncomp[c] * sizeof(T);
    int stream = (i1 - i0) * bytes >= SK_STREAM_BYTES;
    FN(sk_rows) w;
    w.n = 0;
#endif
    for (size_t g = c0; g < c1; g += SK_CHANNEL_GROUP) {
        size_t gend = g + SK_CHANNEL_GROUP < c1 ? g + SK_CHANNEL_GROUP : c1;
        size_t cursor[SK_CHANNEL_GROUP] = {0};
        bk.kt = NULL;
        while (lg0.n && lg0.first + lg0.n <= g) /* the first lane group that ends after g */
            FN(next_lanes)(clip, &lg0);
        for (size_t b = i0; b < i1; b += SK_TIME_BLOCK) {
            size_t bend = b + SK_TIME_BLOCK < i1 ? b + SK_TIME_BLOCK : i1;
            FN(sk_lanes) lg = lg0;
            for (size_t c = g; c < gend; c++) {
                size_t K = (size_t)clip->nkeys[c];
                const T *kt = key_times + clip->key_offset[c];
                while (lg.n && lg.first + lg.n <= c)
                    FN(next_lanes)(clip, &lg);
                int grouped = lg.n && lg.first <= c;
                /* a lane group is sampled whole at its first channel in [c0, c1) */
                if (grouped && c != (lg.first > c0 ? lg.first : c0))
                    continue; /* a group begun in the channel group before */
                if (bk.kt != kt || bk.K != K || bk.b != b) {
#if defined(SK_HAVE_AVX2)
                    FN(flush_rows)(&w, &bk);
#endif
                    FN(block_keys)(&bk, kt, K, cursor[c - g], times, b, bend);
                }
                cursor[c - g] = bk.k;
#if defined(SK_HAVE_AVX2)
                if (grouped) {
                    if (!stream ||
                        !FN(add_rows)(clip, &lg, c0, c1, out_offset, out_stride, &bk, out, &w))
                        FN(sample_lanes)(clip, &lg, c0, c1, out_offset, out_stride, &bk, out);
                    c = lg.first + lg.n - 1; /* the group's other channels are done */
                    continue;
                }
                FN(flush_rows)(&w, &bk);
#endif
                FN(sample_channel)(clip, c, &bk, out_offset, out_stride, out);
            }
#if defined(SK_HAVE_AVX2)
            FN(flush_rows)(&w, &bk);
#endif
        }
    }
}

/* (sk_play_item's lane_offset holds one lane group: a compile error if SK_LANES outgrows it) */
typedef char FN(sk_play_lanes)[sizeof(((sk_play_item *)0)->lane_offset) ==
                               SK_LANES * sizeof(int64_t) ? 1 : -1];

size_t FN(sk_play_plan)(const FN(sk_clip) *clip, size_t c0, size_t c1,
                        const int64_t *out_offset, sk_play_item *items)
{
    size_t n = 0;
    FN(sk_lanes) g = {0, 0, clip->nvalues};
    if (clip->prepared)
        FN(next_lanes)(clip, &g);
    for (size_t c = c0; c < c1; c++, n++) {
        while (g.n && g.first + g.n <= c)
            FN(next_lanes)(clip, &g);
        sk_play_item it;
        memset(&it, 0, sizeof it);
        it.first = it.lo = c, it.n = 1, it.hi = c + 1;
        if (g.n && g.first <= c) { /* a lane group, from c on */
            it.first = g.first, it.n = g.n, it.at = g.at;
            it.hi = g.first + g.n < c1 ? g.first + g.n : c1;
            int nc = FN(lane_kind)(clip, g.first) == 8 ? 4 : 3;
            it.packed = 1;
            for (size_t l = 0; l < SK_LANES; l++) {
                size_t cl = g.first + l;
                it.lane_offset[l] = cl >= c && cl < it.hi ? out_offset[cl] : -1;
                it.packed = it.packed && cl >= c && cl < it.hi &&
                            out_offset[cl] == out_offset[g.first] + (int64_t)l * nc;
            }
            c = it.hi - 1;
        }
        if (items)
            items[n] = it;
    }
    return n;
}

void FN(sk_play_sample)(const FN(sk_clip) *clip, sk_play_item *items, size_t nitems,
                        const int64_t *out_offset, const int64_t *out_stride, T time,
                        T *restrict out)
{
    FN(sk_block_keys) bk;
    bk.kt = NULL, bk.K = 0;
#if defined(SK_HAVE_AVX2)
    int lanes = FN(use_lanes)(clip);
#endif
    for (size_t i = 0; i < nitems; i++) {
        sk_play_item *it = items + i;
        const T *kt = clip->key_times + clip->key_offset[it->first];
        size_t K = (size_t)clip->nkeys[it->first];
        if (bk.kt != kt || bk.K != K) /* the items that share key times share the search */
            FN(block_keys)(&bk, kt, K, it->key, &time, 0, 1);
        it->key = bk.k;
#if defined(SK_HAVE_AVX2)
        if (it->n > 1 && lanes) {
            int kind = FN(lane_kind)(clip, it->first);
            const T *keys = clip->prepared + it->at;
#if SK_DOUBLE && defined(SK_HAVE_AVX512)
            if (sk_simd() >= SK_SIMD_AVX512)
                sk_sample_lanes_once_avx512_d(kind, it->packed, keys, &bk, out, it->lane_offset);
            else
#endif
                FN(sk_sample_lanes_once_avx2)(kind, it->packed, keys, &bk, out, it->lane_offset);
            continue;
        }
#endif
        for (size_t c = it->lo; c < it->hi; c++)
            FN(sample_channel)(clip, c, &bk, out_offset, out_stride, out);
    }
}

void FN(sk_fill_rows)(size_t nrows, const T *row, size_t len, T *restrict out, int stream)
{
#if defined(SK_HAVE_AVX2)
    if (stream && sk_simd() >= SK_SIMD_AVX2) {
        FN(sk_fill_rows_avx2)(nrows, row, len, out);
        return;
    }
#endif
    for (size_t i = 0; i < nrows; i++)
        memcpy(out + i * len, row, len * sizeof(T));
}
