/* mat.c -- batched 4x4 matrix products and inverses (skinning and inverse bind matrices). */
#include "real.h"

void FN(sk_matmul4)(size_t n, size_t J, const T *a, ptrdiff_t sa, const T *b, ptrdiff_t sb,
                    T *restrict out, ptrdiff_t so)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < J; j++) {
            const T *x = a + i * sa + 16 * j, *y = b + i * sb + 16 * j;
            T *o = out + i * so + 16 * j;
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    o[4 * r + c] = x[4 * r] * y[c] + x[4 * r + 1] * y[4 + c] +
                                   x[4 * r + 2] * y[8 + c] + x[4 * r + 3] * y[12 + c];
        }
    }
}

/* Inverse by cofactors (adjugate / determinant), computed from 2x2 sub-determinants. */
int FN(sk_invert4)(size_t n, const T *m, ptrdiff_t sm, T *restrict out, ptrdiff_t so, size_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        const T *a = m + i * sm;
        T *o = out + i * so;
        T s0 = a[0] * a[5] - a[4] * a[1], s1 = a[0] * a[6] - a[4] * a[2];
        T s2 = a[0] * a[7] - a[4] * a[3], s3 = a[1] * a[6] - a[5] * a[2];
        T s4 = a[1] * a[7] - a[5] * a[3], s5 = a[2] * a[7] - a[6] * a[3];
        T c5 = a[10] * a[15] - a[14] * a[11], c4 = a[9] * a[15] - a[13] * a[11];
        T c3 = a[9] * a[14] - a[13] * a[10], c2 = a[8] * a[15] - a[12] * a[11];
        T c1 = a[8] * a[14] - a[12] * a[10], c0 = a[8] * a[13] - a[12] * a[9];
        T det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
        if (det == 0) {
            if (bad)
                *bad = i;
            return SK_ERR_SINGULAR;
        }
        T r = 1 / det;
        o[0] = (a[5] * c5 - a[6] * c4 + a[7] * c3) * r;
        o[1] = (-a[1] * c5 + a[2] * c4 - a[3] * c3) * r;
        o[2] = (a[13] * s5 - a[14] * s4 + a[15] * s3) * r;
        o[3] = (-a[9] * s5 + a[10] * s4 - a[11] * s3) * r;
        o[4] = (-a[4] * c5 + a[6] * c2 - a[7] * c1) * r;
        o[5] = (a[0] * c5 - a[2] * c2 + a[3] * c1) * r;
        o[6] = (-a[12] * s5 + a[14] * s2 - a[15] * s1) * r;
        o[7] = (a[8] * s5 - a[10] * s2 + a[11] * s1) * r;
        o[8] = (a[4] * c4 - a[5] * c2 + a[7] * c0) * r;
        o[9] = (-a[0] * c4 + a[1] * c2 - a[3] * c0) * r;
        o[10] = (a[12] * s4 - a[13] * s2 + a[15] * s0) * r;
        o[11] = (-a[8] * s4 + a[9] * s2 - a[11] * s0) * r;
        o[12] = (-a[4] * c3 + a[5] * c1 - a[6] * c0) * r;
        o[13] = (a[0] * c3 - a[1] * c1 + a[2] * c0) * r;
        o[14] = (-a[12] * s3 + a[13] * s1 - a[14] * s0) * r;
        o[15] = (a[8] * s3 - a[9] * s1 + a[10] * s0) * r;
    }
    return SK_OK;
}
