/* sample_lanes.h -- template of sample_avx2.c (included once per precision, after real.h and
 * sample_keys.h): the samples of a lane group (sample.c), W channels side by side, one a lane,
 * at the times of a block.  The group's channels share the key interval k and the parameter u
 * of each time, so a time loads key k and k + 1 of every lane as W-wide rows of each component
 * ([key][component][lane], sk_prepare_clip), computes the W samples with u broadcast, and
 * transposes them back into each channel's row.  The operations per lane are those of the
 * one-channel paths, in the same order: the float lanes give the bits of the AVX2 per-time slerp
 * (sk_sample_slerp_avx2) and both precisions those of sample.c's lerp; the double slerp is
 * sample.c's with FMAs (within an ulp of it).  The includer defines W, VT, V(op) (the intrinsic
 * _mm256_op_ps or _pd), MADD(a, b, c) and NMADD(a, b, c) (c + a b and c - a b), SINCOS(x, &s, &c)
 * and STORE_ROWS(r, nc, p, packed) (lane l's nc components of the 4 registers r to p[l], or
 * with packed to p[0] + l nc: the lanes side by side in one row, where a 3-vector lane but the
 * last stores 4 values, the next lane overwriting the 4th). */

/* kind and packed: constants in each call (a copy of the loop for each) */
static inline __attribute__((always_inline)) void FN(lanes_run)(int kind, int packed,
                                                              const T *lanes,
                                                              const FN(sk_block_keys) *bk,
                                                              T *p[W], const ptrdiff_t os[W])
{
    int nc = kind == 8 ? 4 : 3;
    for (size_t j = 0; j < bk->e - bk->b; j++) {
        const T *ka = lanes + bk->key[j] * (size_t)kind * W, *kb = ka + kind * W;
        VT a[4], r[4], t = V(set1)(bk->u[j]);
        r[3] = a[3] = V(setzero)();
        for (int d = 0; d < nc; d++)
            r[d] = a[d] = V(loadu)(ka + d * W);
        if (bk->held[j]) {
            /* the key itself */
        } else if (kind == 3) { /* (1 - u) a + u b */
            VT s = V(sub)(V(set1)(1), t);
            for (int d = 0; d < 3; d++)
                r[d] = V(add)(V(mul)(s, a[d]), V(mul)(t, V(loadu)(kb + d * W)));
        } else { /* slerp with the key's constants c = (phi, sin phi, cos phi, sign): qslerp_at */
            VT c[4], st, ct;
            for (int d = 0; d < 4; d++)
                c[d] = V(loadu)(ka + (4 + d) * W);
            SINCOS(V(mul)(t, c[0]), &st, &ct);
            VT w1 = V(div)(st, c[1]), w0 = NMADD(c[2], w1, ct);
            VT small = V(cmp)(V(mul)(c[0], c[0]), V(set1)(EPS), _CMP_LT_OQ);
            w0 = V(blendv)(w0, V(sub)(V(set1)(1), t), small);
            w1 = V(mul)(V(blendv)(w1, t, small), c[3]);
            for (int d = 0; d < 4; d++)
                r[d] = MADD(w1, V(loadu)(kb + d * W), V(mul)(w0, a[d]));
        }
        STORE_ROWS(r, nc, p, packed);
        for (int l = 0; l < (packed ? 1 : W); l++)
            p[l] += os[l];
    }
}

void FN(sk_sample_lanes_avx2)(int kind, const T *lanes, const FN(sk_block_keys) *bk,
                              T *const o[W], const ptrdiff_t os[W])
{
    T sink[4], *p[W]; /* the lanes left out write into sink */
    ptrdiff_t step[W], nc = kind == 8 ? 4 : 3;
    int packed = 1;
    for (int l = 0; l < W; l++) {
        p[l] = o[l] ? o[l] + (ptrdiff_t)bk->b * os[l] : sink;
        step[l] = o[l] ? os[l] : 0;
        packed = packed && o[l] && o[l] - o[0] == l * nc && os[l] == os[0];
    }
    if (kind == 8 && packed)
        FN(lanes_run)(8, 1, lanes, bk, p, step);
    else if (kind == 8)
        FN(lanes_run)(8, 0, lanes, bk, p, step);
    else if (packed)
        FN(lanes_run)(3, 1, lanes, bk, p, step);
    else
        FN(lanes_run)(3, 0, lanes, bk, p, step);
}
