/* fk.c -- forward kinematics over a joint forest given in any order.  float32 batches run the
 * AVX2/FMA or AVX-512 kernels (fk_avx2.c, fk_avx512.c) when the CPU has them (cpu.c). */
#include "simd.h"
#include "real.h"
#include "qmath.h"

#if !SK_DOUBLE /* once, in the float compile */
/* Emits each joint after its parent in O(J): walk up from every unvisited joint, marking the
 * chain "open" (1), until a finished joint (2) or a root; then emit the chain root-first.
 * Meeting an open joint means a cycle.  scratch holds J states. */
int sk_topological_order(size_t J, const int32_t *parents, int32_t *restrict order,
                         int32_t *restrict scratch, size_t *bad)
{
    for (size_t i = 0; i < J; i++) {
        int32_t p = parents[i];
        if (p < -1 || (p >= 0 && (size_t)p >= J)) {
            *bad = i;
            return SK_ERR_PARENT_RANGE;
        }
        if (p >= 0 && (size_t)p == i) {
            *bad = i;
            return SK_ERR_PARENT_SELF;
        }
        scratch[i] = 0;
    }
    size_t pos = 0;
    for (size_t i = 0; i < J; i++) {
        size_t len = 0;
        int32_t j = (int32_t)i;
        while (j >= 0 && scratch[j] == 0) {
            scratch[j] = 1;
            j = parents[j];
            len++;
        }
        if (j >= 0 && scratch[j] == 1) {
            *bad = (size_t)j;
            return SK_ERR_PARENT_CYCLE;
        }
        j = (int32_t)i;
        for (size_t k = len; k-- > 0;) {
            order[pos + k] = j;
            scratch[j] = 2;
            j = parents[j];
        }
        pos += len;
    }
    return SK_OK;
}
#endif

/* world (rows 0..2 of a 4x4, last row 0 0 0 1) = parent * (T R S) */
void FN(sk_forward_kinematics)(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                               const T *rot, ptrdiff_t sr, const T *trans, ptrdiff_t st,
                               const T *scale, ptrdiff_t ss, T *restrict world, ptrdiff_t sw)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    int level = sk_simd();
    if (level && J <= SK_FK_SIMD_MAX_JOINTS) {
#if defined(SK_HAVE_AVX512)
        /* the AVX-512 kernel for a range of less than 8 MB of matrices (fk_avx512.c): both
           kernels prefetch from 2 MB on (fk_trs.h).  One thread, the two builds interleaved in
           one process: J=24 (SMPL) B=4,096 (6.3 MB) 267-269 M joints/s against 249-258
           (+4-7% in 8 processes, +6% in the last 2), B=256 and 1,024 +7-10%, J=64 B=256
           +20-30%, J=64 B=1,024 (4.2 MB) 0-2% slower.  J=64 B=4,096 (16.8 MB) ran 1-4%
           slower with it, and at 48 MB and more (streaming, J=64 B=65,536) it was 16% faster
           in 4 processes of 6 and 6% slower in the others: the AVX2 kernel there. */
        if (level >= SK_SIMD_AVX512 && n * J * 64 < SK_FK_AVX512_BELOW) {
            sk_forward_kinematics_avx512(n, J, parents, order, rot, sr, trans, st, scale, ss,
                                         world, sw);
            return;
        }
#endif
        sk_forward_kinematics_avx2(n, J, parents, order, rot, sr, trans, st, scale, ss, world, sw);
        return;
    }
#endif
    static const T one[3] = {1, 1, 1};
    for (size_t i = 0; i < n; i++) {
        const T *q = rot + i * sr, *t = trans + i * st, *s = scale ? scale + i * ss : NULL;
        T *w = world + i * sw;
        for (size_t k = 0; k < J; k++) {
            size_t j = (size_t)order[k];
            int32_t p = parents[j];
            FN(trs_world)(p < 0 ? NULL : w + 16 * (size_t)p, q + 4 * j, t + 3 * j,
                          s ? s + 3 * j : one, w + 16 * j);
        }
    }
}

/* libigl forward_kinematics: Q_i = Q_p q_i, t_i = t_p + Q_p x_i - Q_i x_i */
void FN(sk_rigid_forward_kinematics)(size_t n, size_t J, const int32_t *parents,
                                     const int32_t *order, const T *rest, ptrdiff_t sx,
                                     const T *rot, ptrdiff_t sr, T *restrict out_rot,
                                     ptrdiff_t sor, T *restrict out_trans, ptrdiff_t sot)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (sk_simd() && J <= SK_FK_SIMD_MAX_JOINTS) {
        sk_rigid_forward_kinematics_avx2(n, J, parents, order, rest, sx, rot, sr, out_rot, sor,
                                         out_trans, sot);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) {
        const T *x = rest + i * sx, *q = rot + i * sr;
        T *Q = out_rot + i * sor, *t = out_trans + i * sot;
        for (size_t k = 0; k < J; k++) {
            size_t j = (size_t)order[k];
            int32_t p = parents[j];
            T a[3], b[3];
            if (p < 0) {
                for (int e = 0; e < 4; e++)
                    Q[4 * j + e] = q[4 * j + e];
                FN(qrot)(Q + 4 * j, x + 3 * j, b);
                for (int e = 0; e < 3; e++)
                    t[3 * j + e] = x[3 * j + e] - b[e];
            } else {
                const T *Qp = Q + 4 * (size_t)p;
                FN(qmul)(Qp, q + 4 * j, Q + 4 * j);
                FN(qrot)(Qp, x + 3 * j, a);
                FN(qrot)(Q + 4 * j, x + 3 * j, b);
                for (int e = 0; e < 3; e++)
                    t[3 * j + e] = t[3 * (size_t)p + e] + a[e] - b[e];
            }
        }
    }
}
