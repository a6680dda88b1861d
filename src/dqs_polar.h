/* dqs_polar.h -- the nearest rotation of a 3x3 matrix as an eigenproblem, shared by dqs.c (the
 * rotation itself) and dqs_vjp.c (its derivative).  Included after real.h, once per precision.
 *
 * The unit quaternion q of the rotation nearest to a 3x3 a (the orthogonal polar factor with
 * det +1) is the eigenvector of the largest eigenvalue of the symmetric 4x4 N(a) with
 * q^T N q = trace(R(q)^T a) (Horn 1987; Bar-Itzhack 2000); N is linear in a. */

/* (x, y) <- (c x - s y, s x + c y) */
static inline void FN(givens)(T *x, T *y, T c, T s)
{
    T a = *x, b = *y;
    *x = c * a - s * b;
    *y = s * a + c * b;
}

/* The eigenvalues lam and eigenvectors (the columns of v, unit to rounding) of N(a), a a 3x3 of
 * row length ld, by cyclic Jacobi rotations; returns the index of the largest eigenvalue. */
static inline int FN(polar_eigen)(const T *a, int ld, T *lam, T v[4][4])
{
#define A_(r, c) a[(r) * ld + (c)]
    /* order x, y, z, w */
    T n[4][4] = {
        {A_(0, 0) - A_(1, 1) - A_(2, 2), A_(0, 1) + A_(1, 0), A_(0, 2) + A_(2, 0),
         A_(2, 1) - A_(1, 2)},
        {0, A_(1, 1) - A_(0, 0) - A_(2, 2), A_(1, 2) + A_(2, 1), A_(0, 2) - A_(2, 0)},
        {0, 0, A_(2, 2) - A_(0, 0) - A_(1, 1), A_(1, 0) - A_(0, 1)},
        {0, 0, 0, A_(0, 0) + A_(1, 1) + A_(2, 2)}};
#undef A_
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            v[i][j] = i == j;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            n[i][j] = n[j][i];
    for (int sweep = 0; sweep < 32; sweep++) {
        T off = 0, diag = 0;
        for (int i = 0; i < 4; i++) {
            diag += n[i][i] * n[i][i];
            for (int j = i + 1; j < 4; j++)
                off += n[i][j] * n[i][j];
        }
        if (!(off > EPS * EPS * diag)) /* also stops on NaN */
            break;
        for (int p = 0; p < 3; p++)
            for (int r = p + 1; r < 4; r++) {
                if (n[p][r] == 0)
                    continue;
                T theta = (n[r][r] - n[p][p]) / (2 * n[p][r]);
                T t = (theta >= 0 ? 1 : -1) / (theta * (theta >= 0 ? 1 : -1) +
                                                SQRT(theta * theta + 1));
                T c = 1 / SQRT(t * t + 1), s = t * c;
                for (int k = 0; k < 4; k++) { /* N <- G^T N G, V <- V G */
                    FN(givens)(&n[k][p], &n[k][r], c, s);
                    FN(givens)(&v[k][p], &v[k][r], c, s);
                }
                for (int k = 0; k < 4; k++)
                    FN(givens)(&n[p][k], &n[r][k], c, s);
            }
    }
    int best = 0;
    for (int i = 0; i < 4; i++) {
        lam[i] = n[i][i];
        if (n[i][i] > n[best][best])
            best = i;
    }
    return best;
}
