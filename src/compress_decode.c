/* compress_decode.c -- sampling a compressed clip straight from its codes (sk_cclip,
 * skinkit_jobs.h; the format: python/skinkit/io/skc.py).  Each sample decodes
 * the one or two keys around its time (four rows for CUBICSPLINE) and interpolates them as the
 * source clip's sampler does (glTF 2.0 Appendix C; sample.c). */
#include <string.h>

#include "real.h"
#include "qmath.h"
#include "simd.h"

/* component counts of the outputs: translations, rotations, scales (weights: any) */
static const int64_t path_width[3] = {3, 4, 3};

int FN(sk_check_cclip_output)(const FN(sk_cclip) *clip, const int64_t *out_stride,
                              const size_t *nout, size_t ntimes, size_t *bad)
{
    for (size_t i = 0; i < clip->ntracks && ntimes > 0; i++) {
        const sk_ctrack *t = clip->tracks + i;
        int64_t os = out_stride[t->out], end = (int64_t)nout[t->out] - t->ncomp;
        if (t->out_offset < 0 || os < 0 || t->out_offset > end ||
            (os > 0 && (int64_t)ntimes - 1 > (end - t->out_offset) / os)) {
            *bad = i;
            return SK_ERR_CLIP_OUTPUT;
        }
    }
    return SK_OK;
}

int FN(sk_check_cclip)(const FN(sk_cclip) *clip, const int64_t *out_stride, const size_t *nout,
                       size_t ntimes, size_t *bad)
{
    for (size_t i = 0; i < clip->ntracks; i++) {
        const sk_ctrack *t = clip->tracks + i;
        int64_t nk = t->nkeys, rows = (t->interp == SK_CUBICSPLINE ? 3 : 1) * nk, need = 0;
        int64_t nst = t->nstored, nc = t->ncomp;
        int st = SK_OK;
        if (t->out < 0 || t->out > 3)
            st = SK_ERR_CLIP_OUTPUT;
        else if (nk < 1 || t->key_offset < 0 || t->key_offset > (int64_t)clip->nkey_times ||
                 nk > (int64_t)clip->nkey_times - t->key_offset || nk > ((int64_t)1 << 40))
            st = SK_ERR_CLIP_KEYS;
        else if (nc < 1 || nc > 65536 || (t->out < 3 && nc != path_width[t->out]) ||
                 t->rotation != (t->out == 1) || t->dropped < 0 || t->dropped > 3 ||
                 nst != (t->rotation && t->interp != SK_CUBICSPLINE && t->level != SK_CLEVEL_RAW ? 3 : nc))
            st = SK_ERR_CLIP_NCOMP;
        else if (t->interp < SK_STEP || t->interp > SK_CUBICSPLINE ||
                 !(t->level >= 0 && (t->level <= 23 || t->level == SK_CLEVEL_RAW)))
            st = SK_ERR_CLIP_INTERP;
        if (st == SK_OK) {
            if (t->level == 0)
                need = 4 * nst;
            else if (t->level == SK_CLEVEL_CONST24)
                need = 3 * nst;
            else if (t->level == SK_CLEVEL_KEYS24)
                need = 3 * rows * nst;
            else if (t->level == SK_CLEVEL_RAW)
                need = rows * nc * (int64_t)sizeof(T);
            if (t->level >= 3 && t->level < SK_CLEVEL_RAW) {
                int64_t sr = t->seg_rows, nseg = sr > 0 ? (rows + sr - 1) / sr : 0, bits = 0;
                if (sr < 1 || t->width < 0 || t->range < 0 || t->segment < 0 ||
                    nseg > ((int64_t)clip->nwidths - t->width) / nst ||
                    nseg > ((int64_t)clip->nranges - t->range) / (2 * nst) ||
                    nseg > (int64_t)clip->nseg_bits - t->segment)
                    st = SK_ERR_CLIP_VALUES;
                for (int64_t s = 0; st == SK_OK && s < nseg; s++) {
                    int64_t sum = 0, n = s + 1 < nseg ? sr : rows - s * sr;
                    for (int64_t c = 0; st == SK_OK && c < nst; c++) {
                        if (clip->widths[t->width + s * nst + c] > t->level)
                            st = SK_ERR_CLIP_VALUES;
                        sum += clip->widths[t->width + s * nst + c];
                    }
                    if (clip->seg_bits[t->segment + s] != bits)
                        st = SK_ERR_CLIP_VALUES;
                    bits += n * sum;
                }
                need = (bits + 7) / 8;
            }
            if (t->data < 0 || t->data > (int64_t)clip->nbytes ||
                need + 8 > (int64_t)clip->nbytes - t->data)
                st = SK_ERR_CLIP_VALUES;
        }
        if (st != SK_OK) {
            *bad = i;
            return st;
        }
    }
    return FN(sk_check_cclip_output)(clip, out_stride, nout, ntimes, bad);
}

/* the key interval of time x in kt[0..n): the largest k < n - 1 with kt[k] <= x, from the
 * previous one (hint) when it still holds or its neighbour does, else by bisection; *s the
 * parameter in [0, 1] (0 before the first key, 1 after the last) */
static inline int64_t FN(interval)(const T *kt, int64_t n, T x, int64_t hint, T *s)
{
    if (n < 2 || !(x > kt[0])) {
        *s = 0;
        return 0;
    }
    if (!(x < kt[n - 1])) {
        *s = 1;
        return n - 2;
    }
    int64_t k = hint;
    if (!(k >= 0 && k < n - 1 && kt[k] <= x && x < kt[k + 1])) {
        if (k >= 0 && k + 2 < n && kt[k + 1] <= x && x < kt[k + 2]) {
            k++;
        } else {
            int64_t lo = 0, hi = n - 1;     /* kt[lo] <= x < kt[hi] */
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                if (kt[mid] <= x)
                    lo = mid;
                else
                    hi = mid;
            }
            k = lo;
        }
    }
    *s = (x - kt[k]) / (kt[k + 1] - kt[k]);
    return k;
}

/* component c of row r of a track (a stored component: c < nstored) */
static inline T FN(value)(const FN(sk_cclip) *clip, const sk_ctrack *t, int64_t r, int64_t c)
{
    const unsigned char *p = clip->bytes + t->data;
    if (t->level == SK_CLEVEL_RAW) {
        T v;
        memcpy(&v, p + (size_t)(r * t->ncomp + c) * sizeof(T), sizeof(T));
        return v;
    }
    if (t->level == 0) {
        float f;
        memcpy(&f, p + 4 * (size_t)c, 4);
        return (T)f;
    }
    if (t->level < 3) {               /* the top 24 bits of a float32 */
        const unsigned char *b = p + 3 * (size_t)(r * t->nstored + c);
        uint32_t u = ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16) << 8;
        float f;
        memcpy(&f, &u, 4);
        return (T)f;
    }
    int64_t seg = r / t->seg_rows, nst = t->nstored;
    const float *lo = clip->ranges + t->range + 2 * nst * seg, *ext = lo + nst;
    const unsigned char *w = clip->widths + t->width + nst * seg;
    uint64_t row = 0, at = (uint64_t)clip->seg_bits[t->segment + seg], word = 0;
    for (int64_t k = 0; k < nst; k++)
        row += w[k];
    at += (uint64_t)(r - seg * t->seg_rows) * row;
    for (int64_t k = 0; k < c; k++)
        at += w[k];
    uint32_t bits = w[c], mask = (1u << bits) - 1;
    if (bits == 0)
        return (T)lo[c];
    for (int b = 0; b < 4; b++)       /* 4 bytes hold any 23 bits after a shift of at most 7 */
        word |= (uint64_t)p[at / 8 + (uint64_t)b] << (8 * b);
    uint32_t code = (uint32_t)(word >> (at % 8)) & mask;
    return (T)lo[c] + (T)ext[c] * ((T)code * ((T)1 / (T)mask));
}

/* 1 / (2^w - 1) for the widths w of quantized codes: value's factor, rounded once (a constant
 * expression, folded by the compiler as the division would round it) */
#define SK_INV(w) ((T)1 / (T)((1u << (w)) - 1))
static const T FN(inv_mask)[24] = {
    0, SK_INV(1), SK_INV(2), SK_INV(3), SK_INV(4), SK_INV(5), SK_INV(6), SK_INV(7),
    SK_INV(8), SK_INV(9), SK_INV(10), SK_INV(11), SK_INV(12), SK_INV(13), SK_INV(14),
    SK_INV(15), SK_INV(16), SK_INV(17), SK_INV(18), SK_INV(19), SK_INV(20), SK_INV(21),
    SK_INV(22), SK_INV(23)};
#undef SK_INV

/* the 4 bytes at p, little endian (a payload has 8 readable bytes past its last code) */
static inline uint64_t le32(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t u;
    memcpy(&u, p, 4);
    return u;
#else
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
#endif
}

/* the segment of row r, segments of sr rows (a 32-bit division where both fit: a third of the
 * latency of a 64-bit one on some x86-64 cores) */
static inline int64_t FN(segment_of)(int64_t r, int64_t sr)
{
    if (r <= UINT32_MAX && sr <= UINT32_MAX)
        return (int64_t)((uint32_t)r / (uint32_t)sr);
    return r / sr;
}

/* the nstored components of row r into v: value's, with the row's place found once */
static inline void FN(row)(const FN(sk_cclip) *clip, const sk_ctrack *t, int64_t r, T *v)
{
    int64_t nst = t->nstored;
    if (t->level < 3 || t->level == SK_CLEVEL_RAW) {
        for (int64_t c = 0; c < nst; c++)
            v[c] = FN(value)(clip, t, r, c);
        return;
    }
    const unsigned char *p = clip->bytes + t->data;
    int64_t seg = FN(segment_of)(r, t->seg_rows);
    const float *lo = clip->ranges + t->range + 2 * nst * seg, *ext = lo + nst;
    const unsigned char *w = clip->widths + t->width + nst * seg;
    uint64_t bits = 0, at = (uint64_t)clip->seg_bits[t->segment + seg];
    for (int64_t k = 0; k < nst; k++)
        bits += w[k];
    at += (uint64_t)(r - seg * t->seg_rows) * bits;
    for (int64_t c = 0; c < nst; at += w[c++]) {
        uint32_t mask = (1u << w[c]) - 1;
        if (w[c] == 0) {
            v[c] = (T)lo[c];
            continue;
        }
        uint32_t code = (uint32_t)(le32(p + at / 8) >> (at % 8)) & mask;
        v[c] = (T)lo[c] + (T)ext[c] * ((T)code * FN(inv_mask)[w[c]]);
    }
}

/* row r of a rotation track as a unit quaternion: a STEP or LINEAR one's dropped component
 * restored as sqrt(1 - the others' squares) (0 from a sum of 1 on: then q / |q|; a sum below 1
 * makes q unit to rounding), a raw one's or a CUBICSPLINE one's q / |q| (qunit) */
static inline void FN(rotation_row)(const FN(sk_cclip) *clip, const sk_ctrack *t, int64_t r,
                                    T *q)
{
    if (t->nstored == 4) {
        FN(row)(clip, t, r, q);
        FN(qunit)(q);
        return;
    }
    T kept[3], sum = 0;
    FN(row)(clip, t, r, kept);
    for (int c = 0; c < 3; c++)
        sum += kept[c] * kept[c];
    for (int c = 0, k = 0; c < 4; c++)
        q[c] = c == (int)t->dropped ? (sum < 1 ? SQRT(1 - sum) : 0) : kept[k++];
    if (!(sum < 1))
        FN(qunit)(q);
}

/* one track in interval k at parameter s (0 or 1: a key's own value), into o */
static void FN(sample_track)(const FN(sk_cclip) *clip, const sk_ctrack *t, const T *kt,
                             int64_t k, T s, T *restrict o)
{
    int64_t nc = t->ncomp, cubic = t->interp == SK_CUBICSPLINE;
    int64_t key = -1;                 /* >= 0: the value of that key alone */
    if (t->level <= SK_CLEVEL_CONST24)
        key = 0;
    else if (t->interp == SK_STEP || s <= 0)
        key = s >= 1 ? k + 1 : k;
    else if (s >= 1)
        key = k + 1;
    if (key >= 0) {
        int64_t r = t->level <= SK_CLEVEL_CONST24 ? 0 : cubic ? 3 * key + 1 : key;
        if (t->rotation) {
            FN(rotation_row)(clip, t, r, o);
        } else {
            FN(row)(clip, t, r, o);
        }
        return;
    }
    if (cubic) {
        /* p = h00 v_k + h10 td b_k + h01 v_k+1 + h11 td a_k+1 (b: out-tangent, a: in-tangent) */
        T td = kt[k + 1] - kt[k], s2 = s * s, s3 = s2 * s;
        T h00 = 2 * s3 - 3 * s2 + 1, h10 = (s3 - 2 * s2 + s) * td;
        T h01 = -2 * s3 + 3 * s2, h11 = (s3 - s2) * td;
        int64_t r = 3 * k + 1;
        for (int64_t c = 0; c < nc; c++)
            o[c] = h00 * FN(value)(clip, t, r, c) + h10 * FN(value)(clip, t, r + 1, c) +
                   h01 * FN(value)(clip, t, r + 3, c) + h11 * FN(value)(clip, t, r + 2, c);
        if (t->rotation)
            FN(qunit)(o);
        return;
    }
    if (t->rotation) {
        T a[4], b[4];
        FN(rotation_row)(clip, t, k, a);
        FN(rotation_row)(clip, t, k + 1, b);
        FN(qslerp)(a, b, s, o);
        return;
    }
    if (nc <= 4) {                    /* translations, scales, small weights tracks */
        T a[4], b[4];
        FN(row)(clip, t, k, a);
        FN(row)(clip, t, k + 1, b);
        for (int64_t c = 0; c < nc; c++)
            o[c] = (1 - s) * a[c] + s * b[c];
        return;
    }
    for (int64_t c = 0; c < nc; c++)
        o[c] = (1 - s) * FN(value)(clip, t, k, c) + s * FN(value)(clip, t, k + 1, c);
}

/* the keys k and k + 1 of a keyed STEP or LINEAR track of at most 4 components, as
 * sample_track uses them (rotations unit); have: the key pair held in a, b (-2: none), whose
 * key k is b when k follows it */
static void FN(key_pair)(const FN(sk_cclip) *clip, const sk_ctrack *t, int64_t k, int64_t have,
                         T *a, T *b)
{
    if (k == have + 1)
        memcpy(a, b, 4 * sizeof(T));
    if (t->rotation) {
        if (k != have + 1) {
            FN(rotation_row)(clip, t, k, a);
        }
        FN(rotation_row)(clip, t, k + 1, b);
    } else {
        if (k != have + 1)
            FN(row)(clip, t, k, a);
        FN(row)(clip, t, k + 1, b);
    }
}

/* A decode's items: a lane group (up to SK_CLANES keyed LINEAR rotation tracks of one key-time
 * array, sampled together: decode_lanes), a track alone (decode_track) or a run (constant
 * tracks of at most 4 components whose values lie side by side in one output: a copy of
 * their values a time).  Each keeps what it needs from one time to the next: its key interval
 * k; a track alone the keys of interval ra in v and v + 4 (key_pair); a run its len values in
 * v, at offset of output out; a lane group its state in a lane_group, the idx-th of the
 * decode's or the playback state's. */
enum { SK_ITEM_LANES, SK_ITEM_TRACK, SK_ITEM_RUN };
#define SK_CRUN 64 /* values of a run at most */
/* the slerp constants of a key interval: qslerp_key's 4 for float64, lane_keys' 3 for float32 */
#define SK_NKC (SK_DOUBLE ? 4 : 3)

typedef struct {
    int kind;
    size_t idx;
    int64_t k, ra, out, offset, len;
    T v[SK_CRUN];
} FN(decode_item);

/* a lane's quantized track (level 3 to 23) in segment seg, that of its last row: rows r0 <= r <
 * r1 (r1 <= r0: none yet), row r's codes from bit at0 + (r - r0) bits, the segment's ranges lo and
 * widths w: row's figures, found once a segment */
typedef struct {
    int64_t seg, r0, r1;
    uint64_t at0, bits;
    const float *lo;
    const unsigned char *w;
} FN(lane_seg);

/* A lane group's state: its n tracks idx[] (rotations: output 1; each's dropped component
 * drop[l], -1 for none, and its out_offset offset[l]), the keys of rows ra (a: rows[cur]) and rb
 * (b: the other) [component][lane] followed by [lane][component], the slerp
 * constants of interval rk (kc), each lane's segment (seg); float32 with AVX2: simd when every
 * lane is quantized or of 24-bit rows and its codes' bits are counted in int32 (rows by
 * sk_cclip_rows_avx2), the codes of the row being decoded, from segments that all hold rows
 * lo_row <= r < hi_row */
typedef struct {
    size_t idx[SK_CLANES];
    int n;
    int64_t ra, rb, rk, offset[SK_CLANES];
    int32_t drop[SK_CLANES];
    int cur;
    T rows[2][8 * SK_CLANES], kc[SK_NKC * SK_CLANES];
    FN(lane_seg) seg[SK_CLANES];
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    int simd;
    int64_t lo_row, hi_row;
    sk_cclip_codes codes;
#endif
} FN(lane_group);

/* one track alone (it: SK_ITEM_TRACK) at times i0 <= j < i1 */
static void FN(decode_track)(const FN(sk_cclip) *clip, FN(decode_item) *it, size_t i0,
                             size_t i1, const T *times, const int64_t *out_stride, T *const *out)
{
    const sk_ctrack *t = clip->tracks + it->idx;
    const T *kt = clip->key_times + t->key_offset;
    int64_t k = it->k, os = out_stride[t->out];
    T *o = out[t->out] + t->out_offset, *a = it->v, *b = it->v + 4;
    if (t->level <= SK_CLEVEL_CONST24) {
        /* a constant (of more than 4 components: a run's otherwise) */
        for (size_t j = i0; j < i1; j++)
            FN(sample_track)(clip, t, kt, 0, 0, o + (ptrdiff_t)j * os);
        return;
    }
    /* a keyed STEP or LINEAR track of at most 4 components keeps the two keys of its last
     * interval (sorted times meet each interval several times): the values sample_track would
     * decode again */
    int pairs = t->interp != SK_CUBICSPLINE && t->ncomp <= 4 && t->nkeys >= 2;
    for (size_t j = i0; j < i1; j++) {
        T s;
        k = FN(interval)(kt, t->nkeys, times[j], k, &s);
        T *oj = o + (ptrdiff_t)j * os;
        if (!pairs) {
            FN(sample_track)(clip, t, kt, k, s, oj);
            continue;
        }
        if (k != it->ra) {
            FN(key_pair)(clip, t, k, it->ra, a, b);
            it->ra = k;
        }
        const T *key = t->interp == SK_STEP || s <= 0 ? (s >= 1 ? b : a) : s >= 1 ? b : NULL;
        if (key)
            for (int64_t c = 0; c < t->ncomp; c++)
                oj[c] = key[c];
        else if (t->rotation)
            FN(qslerp)(a, b, s, oj);
        else
            for (int64_t c = 0; c < t->ncomp; c++)
                oj[c] = (1 - s) * a[c] + s * b[c];
    }
    it->k = k;
}

static int FN(lane_track)(const sk_ctrack *t)
{
    return t->rotation && t->interp == SK_LINEAR && t->level >= SK_CLEVEL_KEYS24 &&
           t->nkeys >= 2;
}

/* the lane math of cclip_lane_math.h on one lane (the SIMD code's on each of its lanes) */
#define LV T
#define LM int
#define LV_FN(name) FN(name)
#define LV_C(c) ((T)(c))
#define LV_ADD(a, b) ((a) + (b))
#define LV_SUB(a, b) ((a) - (b))
#define LV_MUL(a, b) ((a) * (b))
#define LV_DIV(a, b) ((a) / (b))
#define LV_SQRT SQRT
#define LV_LT(a, b) ((a) < (b))
#define LV_GT(a, b) ((a) > (b))
#define LV_GE(a, b) ((a) >= (b))
#define LV_SEL(m, f, t) ((m) ? (t) : (f))
#define LV_AND(m, n) ((m) && (n))
#define LV_OR(m, n) ((m) || (n))
#define LV_ANDNOT(m, n) (!(m) && (n))
#define LV_ALL(m) (m)
#if !SK_DOUBLE
#define LV_FLOAT32 1
#endif
#include "cclip_lane_math.h"

/* the lanes 0 <= l < m of n that the SIMD code takes (the others: the portable code's, the same
 * bits): all but the last n % 8 when they are 1 or 2 of more than 8 (a register for 1 or 2
 * took longer than they do one by one), else all; 0 without SIMD */
static int FN(simd_lanes)(int n)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (sk_simd() >= SK_SIMD_AVX2)
        return n > 8 && n % 8 <= 2 ? n - n % 8 : n;
#endif
    (void)n;
    return 0;
}

/* The n lanes of a group in use: the slerp constants k [constant][lane] of the keys a, b
 * [component][lane]; float32 by lane_keys (AVX2 where the CPU has it, the same bits; not
 * AVX-512: its 16 lanes a register took about 10% longer a pose, the CPU slower at AVX-512's
 * divisions and square roots or its clock lower after them), float64 by qslerp_key (libm's
 * atan2) */
static void FN(key_lanes)(const T *a, const T *b, T *k, int n)
{
    int m = FN(simd_lanes)(n);
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (m)
        sk_cclip_keys_avx2(a, b, k, m);
#endif
    for (int l = m; l < n; l++) {
        T qa[4], qb[4], qk[4];
        for (int c = 0; c < 4; c++)
            qa[c] = a[SK_CLANES * c + l], qb[c] = b[SK_CLANES * c + l];
#if SK_DOUBLE
        FN(qslerp_key)(qa, qb, qk);
#else
        FN(lane_keys)(qa, qb, qk);
#endif
        for (int c = 0; c < SK_NKC; c++)
            k[SK_CLANES * c + l] = qk[c];
    }
}

/* the slerp at s in (0, 1) of the n lanes in use (keys a, b and constants k as key_lanes'),
 * lane l's to row + offset[l]: float32 by lane_weights (SIMD as key_lanes), float64 by
 * qslerp_at */
static void FN(slerp_lanes)(const T *a, const T *b, const T *k, T s, T *row,
                            const int64_t *offset, int n)
{
    int m = FN(simd_lanes)(n);
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (m)
        sk_cclip_slerp_avx2(a, b, k, s, row, offset, m);
#endif
    for (int l = m; l < n; l++) {
        T qa[4], qb[4], qk[4], *o = row + offset[l];
        for (int c = 0; c < 4; c++)
            qa[c] = a[SK_CLANES * c + l], qb[c] = b[SK_CLANES * c + l],
            qk[c] = c < SK_NKC ? k[SK_CLANES * c + l] : 0;
#if SK_DOUBLE
        FN(qslerp_at)(qa, qb, qk, s, o);
#else
        T w0, w1;
        FN(lane_weights)(qk, s, &w0, &w1);
        for (int c = 0; c < 4; c++)
            o[c] = w0 * qa[c] + w1 * qb[c];
#endif
    }
}

/* the keys q [component][lane] of lanes l0 <= l < n made unit quaternions by lane_unit (SIMD
 * for float32 as key_lanes), in place and at q + 4 SK_CLANES [lane][component] */
static void FN(unit_lanes)(T *q, const int32_t *drop, int l0, int n)
{
    int m = FN(simd_lanes)(n);
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (m > l0)
        sk_cclip_unit_avx2(q, drop, m);
#endif
    for (int l = m > l0 ? m : l0; l < n; l++) {
        T v[4];
        int dm[4];
        for (int c = 0; c < 4; c++)
            v[c] = q[SK_CLANES * c + l], dm[c] = drop[l] == c;
        FN(lane_unit)(v, dm);
        for (int c = 0; c < 4; c++)
            q[SK_CLANES * c + l] = q[4 * SK_CLANES + 4 * l + c] = v[c];
    }
}

/* g made the segment of row r of t (the first one or the next one without a division when r is
 * in it) */
static void FN(lane_seg_at)(const FN(sk_cclip) *clip, const sk_ctrack *t, int64_t r,
                            FN(lane_seg) *g)
{
    int64_t nst = t->nstored, sr = t->seg_rows;
    int64_t seg = r < sr ? 0 : g->r1 > g->r0 && r >= g->r1 && r - g->r1 < sr
                                   ? g->seg + 1 : FN(segment_of)(r, sr);
    g->lo = clip->ranges + t->range + 2 * nst * seg;
    g->w = clip->widths + t->width + nst * seg;
    g->bits = 0;
    for (int64_t c = 0; c < nst; c++)
        g->bits += g->w[c];
    g->at0 = (uint64_t)clip->seg_bits[t->segment + seg];
    g->seg = seg;
    g->r0 = seg * sr;
    g->r1 = g->r0 + sr;
}

#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
/* the codes of row r of the lane group g (g->codes): each lane's segment made that of r where
 * r lies outside the rows [g->lo_row, g->hi_row) that every lane's holds */
static void FN(codes_at)(const FN(sk_cclip) *clip, FN(lane_group) *g, int64_t r)
{
    sk_cclip_codes *cd = &g->codes;
    cd->row = (uint32_t)r;
    if (r >= g->lo_row && r < g->hi_row)
        return;
    g->lo_row = 0, g->hi_row = INT64_MAX;
    for (int l = 0; l < g->n; l++) {
        const sk_ctrack *t = clip->tracks + g->idx[l];
        FN(lane_seg) *sg = g->seg + l;
        if (t->level < 3)             /* 24-bit rows: group_init's codes */
            continue;
        if (!(r >= sg->r0 && r < sg->r1)) {
            FN(lane_seg_at)(clip, t, r, sg);
            for (int c = 0, off = 0; c < 3; off += sg->w[c++]) {
                cd->off[c][l] = (uint32_t)off;
                cd->mask[c][l] = (1u << sg->w[c]) - 1;
                cd->lo[c][l] = sg->lo[c];
                cd->ext[c][l] = sg->lo[3 + c];
                cd->inv[c][l] = FN(inv_mask)[sg->w[c]];
            }
            /* bit 8 data + at0 + (r - r0) bits as base + r bits, modulo 2^32 */
            cd->base[l] = (uint32_t)(8 * (uint64_t)t->data + sg->at0 -
                                     (uint64_t)sg->r0 * sg->bits);
            cd->bits[l] = (uint32_t)sg->bits;
        }
        g->lo_row = sg->r0 > g->lo_row ? sg->r0 : g->lo_row;
        g->hi_row = sg->r1 < g->hi_row ? sg->r1 : g->hi_row;
    }
}
#endif

/* row r of the lane group g as unit quaternions into q (unit_lanes: the operations of
 * rotation_row), its lanes' segments kept from row to row; float32 with AVX2 by sk_cclip_rows_avx2
 * where g->simd (the same operations) */
static void FN(lane_rows)(const FN(sk_cclip) *clip, FN(lane_group) *g, int64_t r, T *q)
{
    int n = g->n, l0 = 0;
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (g->simd && sk_simd() >= SK_SIMD_AVX2) {
        FN(codes_at)(clip, g, r);
        l0 = FN(simd_lanes)(n);
        sk_cclip_rows_avx2(&g->codes, g->drop, q, l0);
    }
#endif
    for (int l = l0; l < n; l++) {
        const sk_ctrack *t = clip->tracks + g->idx[l];
        T kept[4];
        int64_t nst = t->nstored;
        FN(lane_seg) *sg = g->seg + l;
        if (t->level < 3 || t->level == SK_CLEVEL_RAW) {
            FN(row)(clip, t, r, kept);
        } else {
            if (!(r >= sg->r0 && r < sg->r1))
                FN(lane_seg_at)(clip, t, r, sg);
            const unsigned char *p = clip->bytes + t->data, *w = sg->w;
            const float *lo = sg->lo, *ext = lo + nst;
            uint64_t at = sg->at0 + (uint64_t)(r - sg->r0) * sg->bits;
            for (int64_t c = 0; c < nst; at += w[c++]) {
                uint32_t code = (uint32_t)(le32(p + at / 8) >> (at % 8)) & ((1u << w[c]) - 1);
                kept[c] = w[c] ? (T)lo[c] + (T)ext[c] * ((T)code * FN(inv_mask)[w[c]])
                               : (T)lo[c];
            }
        }
        for (int c = 0, i = 0; c < 4; c++)
            q[SK_CLANES * c + l] = c == g->drop[l] ? 0 : kept[i++];
    }
    FN(unit_lanes)(q, g->drop, l0, n);
}

/* g made the lane group of the n tracks idx[], nothing decoded yet; the lanes from n on
 * (computed by the SIMD code to their register's end) dropped component 3, the others 0: the
 * key (0, 0, 0, 1) */
static void FN(group_init)(const FN(sk_cclip) *clip, FN(lane_group) *g, const size_t *idx, int n)
{
    memcpy(g->idx, idx, (size_t)n * sizeof idx[0]);
    g->n = n;
    g->ra = g->rb = g->rk = -2;
    g->cur = 0;
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    g->simd = clip->nbytes < ((size_t)1 << 27);   /* bit counts below 2^31 */
    g->lo_row = g->hi_row = 0;
    g->codes.bytes = clip->bytes;
#endif
    for (int l = 0; l < SK_CLANES; l++) {
        const sk_ctrack *t = clip->tracks + idx[l < n ? l : 0];
        g->drop[l] = l >= n ? 3 : t->nstored == 4 ? -1 : (int32_t)t->dropped;
        g->offset[l] = t->out_offset;
        g->seg[l].r0 = g->seg[l].r1 = 0;
        for (int c = 0; l >= n && c < 4; c++)
            g->rows[0][SK_CLANES * c + l] = g->rows[1][SK_CLANES * c + l] = 0;
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
        /* a quantized lane's codes: codes_at's on its first row; a 24-bit one's: 3 bytes a
         * component (value's); the others' none */
        sk_cclip_codes *cd = &g->codes;
        int f24 = l < n && t->level == SK_CLEVEL_KEYS24;
        if (l < n && !(t->level >= SK_CLEVEL_KEYS24 && t->level < SK_CLEVEL_RAW))
            g->simd = 0;
        cd->base[l] = f24 ? (uint32_t)(8 * (uint64_t)t->data) : 0;
        cd->bits[l] = f24 ? 72 : 0;
        cd->f24[l] = f24 ? UINT32_MAX : 0;
        for (int c = 0; (l >= n || f24) && c < 3; c++) {
            cd->off[c][l] = f24 ? 24 * (uint32_t)c : 0;
            cd->mask[c][l] = f24 ? 0xffffff : 0;
            cd->lo[c][l] = cd->ext[c][l] = cd->inv[c][l] = 0;
        }
#endif
    }
}

/* the lane group g at times i0 <= j < i1 from key interval *k.  The rows of key k (a) and
 * k + 1 (b) are decoded when a time first needs them, the slerp constants when a time between
 * them does. */
static void FN(decode_lanes)(const FN(sk_cclip) *clip, FN(lane_group) *g, int64_t *k,
                             size_t i0, size_t i1, const T *times, const int64_t *out_stride,
                             T *const *out)
{
    int n = g->n;
    const sk_ctrack *first = clip->tracks + g->idx[0];
    const T *kt = clip->key_times + first->key_offset;
    int64_t ki = *k, os = out_stride[1];      /* rotations: output 1 */
    T *a = g->rows[g->cur], *b = g->rows[g->cur ^ 1];
    for (size_t j = i0; j < i1; j++) {
        T s, *row = out[1] + (ptrdiff_t)j * os;
        const T *key = NULL;
        ki = FN(interval)(kt, first->nkeys, times[j], ki, &s);
        if (!(s >= 1) && g->ra != ki) {
            if (g->rb == ki) {            /* the rows swapped: a the row of key ki */
                int64_t ra = g->ra;
                g->cur ^= 1;
                a = g->rows[g->cur], b = g->rows[g->cur ^ 1];
                g->rb = ra;
            } else {
                FN(lane_rows)(clip, g, ki, a);
            }
            g->ra = ki;
        }
        if (!(s <= 0) && g->rb != ki + 1) {
            FN(lane_rows)(clip, g, ki + 1, b);
            g->rb = ki + 1;
        }
        if (s <= 0) {
            key = a + 4 * SK_CLANES;
        } else if (s >= 1) {
            key = b + 4 * SK_CLANES;
        } else {
            if (g->rk != ki) {
                FN(key_lanes)(a, b, g->kc, n);
                g->rk = ki;
            }
            FN(slerp_lanes)(a, b, g->kc, s, row, g->offset, n);
        }
        for (int l = 0; key && l < n; l++)
            memcpy(row + g->offset[l], key + 4 * l, 4 * sizeof(T));
    }
    *k = ki;
}

/* the n values v to o + j os at times i0 <= j < i1: AVX2's stores where the CPU has it, else
 * copies of 4 values (the last one ending at n, over values already copied: the same again),
 * a column of copies after another (not calls of memcpy) */
static void FN(copy_run)(T *o, int64_t os, size_t i0, size_t i1, const T *restrict v, int64_t n)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (sk_simd() >= SK_SIMD_AVX2) {
        sk_cclip_fill_avx2(o + (ptrdiff_t)i0 * os, (ptrdiff_t)os, i1 - i0, v, n);
        return;
    }
#endif
    if (n >= 4) {
        for (int64_t c = 0; c < n; c += 4) {
            int64_t at = c + 4 <= n ? c : n - 4;
            T x[4];
            memcpy(x, v + at, sizeof x);
            for (size_t j = i0; j < i1; j++)
                memcpy(o + (ptrdiff_t)j * os + at, x, sizeof x);
        }
    } else {
        for (size_t j = i0; j < i1; j++)
            for (int64_t c = 0; c < n; c++)
                o[(ptrdiff_t)j * os + c] = v[c];
    }
}

/* the item it at times i0 <= j < i1 (group: the lane groups it indexes) */
static void FN(decode_item_at)(const FN(sk_cclip) *clip, FN(decode_item) *it,
                               FN(lane_group) *group, size_t i0, size_t i1, const T *times,
                               const int64_t *out_stride, T *const *out)
{
    if (it->kind == SK_ITEM_LANES)
        FN(decode_lanes)(clip, group + it->idx, &it->k, i0, i1, times, out_stride, out);
    else if (it->kind == SK_ITEM_TRACK)
        FN(decode_track)(clip, it, i0, i1, times, out_stride, out);
    else
        FN(copy_run)(out[it->out] + it->offset, out_stride[it->out], i0, i1, it->v, it->len);
}

/* a constant track's values (sample_track's) into o */
static void FN(constant)(const FN(sk_cclip) *clip, const sk_ctrack *t, T *o)
{
    FN(sample_track)(clip, t, clip->key_times + t->key_offset, 0, 0, o);
}

void FN(sk_cclip_prepare)(const FN(sk_cclip) *clip, T *out)
{
    memset(out, 0, 4 * clip->ntracks * sizeof(T));
    for (size_t i = 0; i < clip->ntracks; i++) {
        const sk_ctrack *t = clip->tracks + i;
        if (t->level <= SK_CLEVEL_CONST24 && t->ncomp <= 4)
            FN(constant)(clip, t, out + 4 * i);
    }
}

/* a run being gathered (items): len values at offset of output out */
typedef struct {
    int64_t out, offset, len;
    T v[SK_CRUN];
} FN(cclip_run);

/* visit(arg, idx, n, run) of each item of tracks t0 <= t < t1: the LINEAR rotation tracks of
 * one key-time array in lane groups of up to SK_CLANES (idx, n >= 1), each group ended by a
 * lane track of other keys or by the last track; the constants of at most 4 components in runs
 * (run, each ended by a constant of its output that does not follow it or by the last track;
 * tracks writing the same values of an output are not ordered; their values clip->prepared's
 * where it is given); the other tracks alone (idx, n == 0) */
static void FN(items)(const FN(sk_cclip) *clip, size_t t0, size_t t1,
                      void (*visit)(void *, const size_t *, int, const FN(cclip_run) *),
                      void *arg)
{
    size_t group[SK_CLANES] = {0};
    int n = 0;
    FN(cclip_run) run[4];
    for (int o = 0; o < 4; o++)
        run[o].len = 0;
    for (size_t i = t0; i < t1; i++) {
        const sk_ctrack *t = clip->tracks + i, *g = clip->tracks + group[0];
        if (FN(lane_track)(t)) {
            if (n && (g->key_offset != t->key_offset || g->nkeys != t->nkeys)) {
                visit(arg, group, n, NULL);
                n = 0;
            }
            group[n++] = i;
            if (n == SK_CLANES) {
                visit(arg, group, n, NULL);
                n = 0;
            }
        } else if (t->level <= SK_CLEVEL_CONST24 && t->ncomp <= 4) {
            FN(cclip_run) *r = run + t->out;
            if (r->len && (r->offset + r->len != t->out_offset || r->len + t->ncomp > SK_CRUN)) {
                visit(arg, NULL, 0, r);
                r->len = 0;
            }
            if (!r->len)
                r->out = t->out, r->offset = t->out_offset;
            if (clip->prepared)
                memcpy(r->v + r->len, clip->prepared + 4 * i, (size_t)t->ncomp * sizeof(T));
            else
                FN(constant)(clip, t, r->v + r->len);
            r->len += t->ncomp;
        } else {
            visit(arg, &i, 0, NULL);
        }
    }
    if (n)
        visit(arg, group, n, NULL);
    for (int o = 0; o < 4; o++)
        if (run[o].len)
            visit(arg, NULL, 0, run + o);
}

/* it made the item of what items visits (idx, n or run) at key interval k, a lane group's
 * state in group[ng] (ng then counted) */
static void FN(item_of)(const FN(sk_cclip) *clip, FN(decode_item) *it, FN(lane_group) *group,
                        size_t *ng, const size_t *idx, int n, const FN(cclip_run) *run, int64_t k)
{
    it->kind = run ? SK_ITEM_RUN : n ? SK_ITEM_LANES : SK_ITEM_TRACK;
    it->k = k;
    it->ra = -2;
    if (run) {
        it->out = run->out;
        it->offset = run->offset;
        it->len = run->len;
        memcpy(it->v, run->v, (size_t)run->len * sizeof(T));
    } else if (n) {
        it->idx = *ng;
        FN(group_init)(clip, group + (*ng)++, idx, n);
    } else {
        it->idx = idx[0];
    }
}

/* A decode (sk_decode_cclip) takes its items in batches of SK_CBATCH items and SK_CGROUPS lane
 * groups at most, each batch at blocks of SK_CBLOCK times in turn: a block's outputs stay in the
 * L1 cache while its items write them (5% faster than every time an item after another) */
#define SK_CBATCH 32
#define SK_CGROUPS 2
#define SK_CBLOCK 16
typedef struct {
    const FN(sk_cclip) *clip;
    size_t t0, i0, i1;
    const T *times;
    int64_t *cursor;
    const int64_t *out_stride;
    T *const *out;
    size_t count, ngroups;
    FN(decode_item) item[SK_CBATCH];
    FN(lane_group) group[SK_CGROUPS];
} FN(decode_call);

/* the items of dc in turn at its times, block after block, their key intervals back to its
 * cursor */
static void FN(decode_batch)(FN(decode_call) *dc)
{
    for (size_t j0 = dc->i0; j0 < dc->i1; j0 += SK_CBLOCK) {
        size_t j1 = dc->i1 - j0 > SK_CBLOCK ? j0 + SK_CBLOCK : dc->i1;
        for (size_t i = dc->count; i-- > 0;)  /* the runs (visited last) first: 4% faster */
            FN(decode_item_at)(dc->clip, dc->item + i, dc->group, j0, j1, dc->times,
                               dc->out_stride, dc->out);
    }
    for (size_t i = 0; dc->cursor && i < dc->count; i++) {
        const FN(decode_item) *it = dc->item + i;
        if (it->kind == SK_ITEM_TRACK)
            dc->cursor[it->idx - dc->t0] = it->k;
        for (int l = 0; it->kind == SK_ITEM_LANES && l < dc->group[it->idx].n; l++)
            dc->cursor[dc->group[it->idx].idx[l] - dc->t0] = it->k;
    }
    dc->count = dc->ngroups = 0;
}

static void FN(decode_visit)(void *arg, const size_t *idx, int n, const FN(cclip_run) *run)
{
    FN(decode_call) *dc = arg;
    if (dc->count == SK_CBATCH || (n && dc->ngroups == SK_CGROUPS))
        FN(decode_batch)(dc);
    int64_t k = dc->cursor && !run ? dc->cursor[idx[0] - dc->t0] : 0;
    FN(item_of)(dc->clip, dc->item + dc->count++, dc->group, &dc->ngroups, idx, n, run, k);
}

void FN(sk_decode_cclip)(const FN(sk_cclip) *clip, size_t t0, size_t t1, size_t i0, size_t i1,
                         const T *times, int64_t *cursor, const int64_t *out_stride,
                         T *const *out)
{
    FN(decode_call) dc;
    dc.clip = clip, dc.t0 = t0, dc.i0 = i0, dc.i1 = i1, dc.times = times, dc.cursor = cursor;
    dc.out_stride = out_stride, dc.out = out, dc.count = dc.ngroups = 0;
    FN(items)(clip, t0, t1, FN(decode_visit), &dc);
    FN(decode_batch)(&dc);
}

/* A playback state (sk_cclip_state_size bytes): its count items, each keeping its keys between
 * calls, then its ngroups lane groups */
typedef struct {
    size_t count, ngroups;
    FN(decode_item) item[];
} FN(cclip_state);

static FN(lane_group) *FN(state_groups)(FN(cclip_state) *st)
{
    return (FN(lane_group) *)(void *)(st->item + st->count);
}

/* a playback state counted (st->count, st->ngroups) or made (fill) */
typedef struct {
    const FN(sk_cclip) *clip;
    FN(cclip_state) *st;
    int fill;
    size_t count, ngroups;
} FN(state_make);

static void FN(state_visit)(void *arg, const size_t *idx, int n, const FN(cclip_run) *run)
{
    FN(state_make) *sm = arg;
    if (sm->fill)
        FN(item_of)(sm->clip, sm->st->item + sm->count, FN(state_groups)(sm->st), &sm->ngroups,
                    idx, n, run, 0);
    else
        sm->ngroups += !run && n;
    sm->count++;
}

static FN(state_make) FN(state_count)(const FN(sk_cclip) *clip)
{
    FN(state_make) sm = {clip, NULL, 0, 0, 0};
    FN(items)(clip, 0, clip->ntracks, FN(state_visit), &sm);
    return sm;
}

size_t FN(sk_cclip_state_size)(const FN(sk_cclip) *clip)
{
    FN(state_make) sm = FN(state_count)(clip);
    return sizeof(FN(cclip_state)) + sm.count * sizeof(FN(decode_item)) +
           sm.ngroups * sizeof(FN(lane_group));
}

void FN(sk_cclip_state_init)(const FN(sk_cclip) *clip, void *state)
{
    FN(state_make) sm = FN(state_count)(clip);
    sm.st = state;
    sm.st->count = sm.count;
    sm.st->ngroups = sm.ngroups;
    sm.fill = 1;
    sm.count = sm.ngroups = 0;
    FN(items)(clip, 0, clip->ntracks, FN(state_visit), &sm);
}

void FN(sk_play_cclip)(const FN(sk_cclip) *clip, void *state, T time, const int64_t *out_stride,
                       T *const *out)
{
    FN(cclip_state) *st = state;
    FN(lane_group) *group = FN(state_groups)(st);
    for (size_t i = 0; i < st->count; i++)
        FN(decode_item_at)(clip, st->item + i, group, 0, 1, &time, out_stride, out);
}
