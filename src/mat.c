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

/* row[p] d[k0] - row[q] d[k1] + row[u] d[k2]: columns col = (p, q, u), minors k = (k0, k1, k2) */
static inline T FN(expand3)(const T *row, const int8_t *col, const T *d, const int8_t *k)
{
    return row[col[0]] * d[k[0]] - row[col[1]] * d[k[1]] + row[col[2]] * d[k[2]];
}

/* Inverse by cofactors (adjugate / determinant), computed from the 2x2 sub-determinants of
 * the column pairs (i, j) of rows 0-1 (s) and rows 2-3 (c): the Laplace expansion along those
 * row pairs.  Row r of the inverse takes the columns p < q < u other than r and the minors of
 * their pairs (q, u), (p, u), (p, q), signs alternating. */
int FN(sk_invert4)(size_t n, const T *m, ptrdiff_t sm, T *restrict out, ptrdiff_t so, size_t *bad)
{
    static const int8_t pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    static const int8_t cols[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    static const int8_t minors[4][3] = {{5, 4, 3}, {5, 2, 1}, {4, 2, 0}, {3, 1, 0}};
    for (size_t i = 0; i < n; i++) {
        const T *a = m + i * sm;
        T *o = out + i * so;
        T s[6], c[6];
        for (int k = 0; k < 6; k++) {
            int p = pair[k][0], q = pair[k][1];
            s[k] = a[p] * a[4 + q] - a[4 + p] * a[q];
            c[k] = a[8 + p] * a[12 + q] - a[12 + p] * a[8 + q];
        }
        T det = s[0] * c[5] - s[1] * c[4] + s[2] * c[3] + s[3] * c[2] - s[4] * c[1] + s[5] * c[0];
        if (det == 0) {
            if (bad)
                *bad = i;
            return SK_ERR_SINGULAR;
        }
        T rdet = 1 / det;
        for (int r = 0; r < 4; r++) {
            T sg = r & 1 ? -rdet : rdet;
            o[4 * r] = FN(expand3)(a + 4, cols[r], c, minors[r]) * sg;
            o[4 * r + 1] = -FN(expand3)(a, cols[r], c, minors[r]) * sg;
            o[4 * r + 2] = FN(expand3)(a + 12, cols[r], s, minors[r]) * sg;
            o[4 * r + 3] = -FN(expand3)(a + 8, cols[r], s, minors[r]) * sg;
        }
    }
    return SK_OK;
}
