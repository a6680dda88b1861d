/* sample_lanes.h -- template of sample_avx2.c and sample_avx512.c (included once per precision and
 * width, after real.h and sample_keys.h): the samples of a lane group (sample.c), SK_LANES
 * channels side by side, one a lane, at the times of a block.  The group's channels share the key
 * interval k and the parameter u of each time, so a time loads key k and k + 1 of every lane as
 * rows of each component ([key][component][lane], sk_prepare_clip), computes the samples with u
 * broadcast, VW lanes a register (NV = SK_LANES / VW registers a component), and transposes them
 * back into each channel's row.  The operations per lane are those of the one-channel paths, in
 * the same order: the float lanes give the bits of the AVX2 per-time slerp (sk_sample_slerp_avx2)
 * and both precisions those of sample.c's lerp; the double slerp is sample.c's with FMAs (within
 * an ulp of it), the same bits with 4 or 8 lanes a register.  The includer defines SK_LANES, NAME,
 * ONCE_NAME and ROWS_NAME (the functions' names), VW, VT (the register), MT (a comparison's
 * result), V(op) (the intrinsic of op), MADD(a, b, c) and NMADD(a, b, c) (c + a b and c - a b),
 * CMPLT(a, b), BLEND(a, b, m) (b where m, else a), SINCOS(x, &s, &c) and STORE_ROWS(r, nc, p,
 * row, packed) (lane l's nc components of the 4 registers r to p[l], or with packed to row + l
 * nc: the lanes side by side in one row, where a 3-vector lane but the last may store 4 values,
 * the next lane overwriting the 4th). */
#define NV (SK_LANES / VW)

/* the samples of the lanes h VW .. h VW + VW - 1 at parameter t of keys ka, kb into r[0 .. nc) */
static inline __attribute__((always_inline)) void FN(lanes_at)(int kind, const T *ka,
                                                             const T *kb, VT t, int held, int h,
                                                             VT r[4])
{
    int nc = kind == 8 ? 4 : 3;
    VT a[4];
    r[3] = a[3] = V(setzero)();
    for (int d = 0; d < nc; d++)
        r[d] = a[d] = V(loadu)(ka + d * SK_LANES + h * VW);
    if (held) {
        /* the key itself */
    } else if (kind == 3) { /* (1 - u) a + u b */
        VT s = V(sub)(V(set1)(1), t);
        for (int d = 0; d < 3; d++)
            r[d] = V(add)(V(mul)(s, a[d]), V(mul)(t, V(loadu)(kb + d * SK_LANES + h * VW)));
    } else { /* slerp with the key's constants c = (phi, sin phi, cos phi, sign): qslerp_at */
        VT c[4], st, ct;
        for (int d = 0; d < 4; d++)
            c[d] = V(loadu)(ka + (4 + d) * SK_LANES + h * VW);
        SINCOS(V(mul)(t, c[0]), &st, &ct);
        VT w1 = V(div)(st, c[1]), w0 = NMADD(c[2], w1, ct);
        MT small = CMPLT(V(mul)(c[0], c[0]), V(set1)(EPS));
        w0 = BLEND(w0, V(sub)(V(set1)(1), t), small);
        w1 = V(mul)(BLEND(w1, t, small), c[3]);
        for (int d = 0; d < 4; d++)
            r[d] = MADD(w1, V(loadu)(kb + d * SK_LANES + h * VW), V(mul)(w0, a[d]));
    }
}

/* kind and packed: constants in each call (a copy of the loop for each) */
static inline __attribute__((always_inline)) void FN(lanes_run)(int kind, int packed,
                                                              const T *lanes,
                                                              const FN(sk_block_keys) *bk,
                                                              T *p[SK_LANES],
                                                              const ptrdiff_t os[SK_LANES])
{
    int nc = kind == 8 ? 4 : 3;
    for (size_t j = 0; j < bk->e - bk->b; j++) {
        const T *ka = lanes + bk->key[j] * (size_t)kind * SK_LANES, *kb = ka + kind * SK_LANES;
        VT t = V(set1)(bk->u[j]), r[4];
        for (int h = 0; h < NV; h++) {
            FN(lanes_at)(kind, ka, kb, t, bk->held[j], h, r);
            STORE_ROWS(r, nc, p + h * VW, p[0] + h * VW * nc, packed);
        }
        for (int l = 0; l < (packed ? 1 : SK_LANES); l++)
            p[l] += os[l];
    }
}

/* lanes_run with kind and packed made constants */
static inline __attribute__((always_inline)) void FN(lanes_runs)(int kind, int packed,
                                                               const T *lanes,
                                                               const FN(sk_block_keys) *bk,
                                                               T *p[SK_LANES],
                                                               const ptrdiff_t os[SK_LANES])
{
    if (kind == 8 && packed)
        FN(lanes_run)(8, 1, lanes, bk, p, os);
    else if (kind == 8)
        FN(lanes_run)(8, 0, lanes, bk, p, os);
    else if (packed)
        FN(lanes_run)(3, 1, lanes, bk, p, os);
    else
        FN(lanes_run)(3, 0, lanes, bk, p, os);
}

void NAME(int kind, const T *lanes, const FN(sk_block_keys) *bk, T *const o[SK_LANES],
          const ptrdiff_t os[SK_LANES])
{
    T sink[4], *p[SK_LANES]; /* the lanes left out write into sink */
    ptrdiff_t step[SK_LANES], nc = kind == 8 ? 4 : 3;
    int packed = 1;
    for (int l = 0; l < SK_LANES; l++) {
        p[l] = o[l] ? o[l] + (ptrdiff_t)bk->b * os[l] : sink;
        step[l] = o[l] ? os[l] : 0;
        packed = packed && o[l] && o[l] - o[0] == l * nc && os[l] == os[0];
    }
    FN(lanes_runs)(kind, packed, lanes, bk, p, step);
}

/* NAME at the one time of bk (a playback plan's item, sample.c), lane l's sample to out +
 * off[l] (left out where off[l] < 0), packed as NAME finds it: the plan works out once what
 * NAME works out each call */
void ONCE_NAME(int kind, int packed, const T *lanes, const FN(sk_block_keys) *bk, T *out,
               const int64_t off[SK_LANES])
{
    static const ptrdiff_t none[SK_LANES];
    T sink[4], *p[SK_LANES];
    for (int l = 0; l < SK_LANES; l++)
        p[l] = off[l] >= 0 ? out + off[l] : sink;
    FN(lanes_runs)(kind, packed, lanes, bk, p, none);
}

/* src[0 .. n) to dst: the whole 64-byte lines with streaming stores, which write a line without
 * reading it first, the other values (or all, dst not aligned to a T) with ordinary stores
 * (through a volatile pointer, which keeps GCC from making the loop a memcpy call: the call
 * cost more than the few values) */
static inline void FN(stream_row)(const T *src, T *dst, size_t n)
{
    const size_t line = 64 / sizeof(T);
    uintptr_t a = (uintptr_t)dst;
    size_t i = 0, head = a % sizeof(T) ? n : (64 - a % 64) % 64 / sizeof(T);
    volatile T *vd = dst;
    for (; i < head && i < n; i++)
        vd[i] = src[i];
    for (; i + line <= n; i += line)
        for (size_t k = 0; k < line; k += VW)
            V(stream)(dst + i + k, V(loadu)(src + i + k));
    for (; i < n; i++)
        vd[i] = src[i];
}

/* n <= SK_ROW_GROUPS lane groups (keys lanes[g]) of one kind whose packed rows lie side by side
 * in the output, row i of group 0 at dst + i os: each time's row of the n groups computed into
 * a buffer, then copied out (stream_row) */
static inline __attribute__((always_inline)) void FN(rows_run)(int kind, size_t n,
                                                             const T *const lanes[],
                                                             const FN(sk_block_keys) *bk,
                                                             T *dst, ptrdiff_t os)
{
    int nc = kind == 8 ? 4 : 3;
    T row[SK_ROW_GROUPS * SK_LANES * 4];
    for (size_t j = 0; j < bk->e - bk->b; j++) {
        VT t = V(set1)(bk->u[j]), r[4];
        size_t key = bk->key[j] * (size_t)kind * SK_LANES;
        for (size_t g = 0; g < n; g++)
            for (int h = 0; h < NV; h++) {
                FN(lanes_at)(kind, lanes[g] + key, lanes[g] + key + kind * SK_LANES, t,
                             bk->held[j], h, r);
                STORE_ROWS(r, nc, NULL, row + (g * SK_LANES + (size_t)h * VW) * nc, 1);
            }
        FN(stream_row)(row, dst + (ptrdiff_t)(bk->b + j) * os, n * SK_LANES * (size_t)nc);
    }
}

void ROWS_NAME(int kind, size_t n, const T *const lanes[], const FN(sk_block_keys) *bk,
               T *dst, ptrdiff_t os)
{
    if (kind == 8)
        FN(rows_run)(8, n, lanes, bk, dst, os);
    else
        FN(rows_run)(3, n, lanes, bk, dst, os);
    _mm_sfence(); /* the streaming stores before anything after the call */
}
#undef NV
