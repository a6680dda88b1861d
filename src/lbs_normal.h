/* lbs_normal.h -- the skinned normal of one vertex, shared by lbs.c and dqs.c, and the cofactor
 * formula that the SIMD variants' normals (SK_NORMALS, lbs_simd.h) use too.  Included after
 * real.h, once per precision. */

#ifndef SK_COFACTORS3
/* C[i][j] = the (i, j) cofactor of the 3x3 E(row, column), with DIFF(p, q, r, s) = p q - r s:
 * E(i1, j1) E(i2, j2) - E(i1, j2) E(i2, j1) for i1, i2 = i + 1, i + 2 and j1, j2 = j + 1, j + 2
 * (mod 3), which carries the sign.  Constant trip counts: the compiler unrolls the loops. */
#define SK_COFACTORS3(C, E, DIFF)                                                              \
    for (int i_ = 0; i_ < 3; i_++)                                                             \
        for (int j_ = 0; j_ < 3; j_++) {                                                       \
            int i1_ = (i_ + 1) % 3, i2_ = (i_ + 2) % 3, j1_ = (j_ + 1) % 3, j2_ = (j_ + 2) % 3; \
            C[i_][j_] = DIFF(E(i1_, j1_), E(i2_, j2_), E(i1_, j2_), E(i2_, j1_));              \
        }
#endif

/* n' = cofactor(A) n, with A the blended 3x3 (rows a[0..2], a[4..6], a[8..10]): the inverse
 * transpose times det(A); multiplied by sign(det) and renormalized.  A zero result stays zero. */
static inline void FN(skin_normal)(const T *a, const T *nv, T *o)
{
    T c[3][3], v[3];
#define SK_ROW_MAJOR(r, k) a[4 * (r) + (k)]
#define SK_DIFF(p, q, r, s) ((p) * (q) - (r) * (s))
    SK_COFACTORS3(c, SK_ROW_MAJOR, SK_DIFF)
#undef SK_ROW_MAJOR
#undef SK_DIFF
    T det = a[0] * c[0][0] + a[1] * c[0][1] + a[2] * c[0][2];
    for (int r = 0; r < 3; r++)
        v[r] = c[r][0] * nv[0] + c[r][1] * nv[1] + c[r][2] * nv[2];
    T len = SQRT(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    T r = len > 0 ? (det < 0 ? -1 / len : 1 / len) : len == 0 ? 0 : len;
    o[0] = v[0] * r; o[1] = v[1] * r; o[2] = v[2] * r;
}
