/* lbs_normal.h -- the skinned normal of one vertex, shared by lbs.c and lbs_avx2.c.
 * Included after real.h, once per precision. */

/* n' = cofactor(A) n, with A the blended 3x3 (rows a[0..2], a[4..6], a[8..10]): the inverse
 * transpose times det(A); multiplied by sign(det) and renormalized.  A zero result stays zero. */
static inline void FN(skin_normal)(const T *a, const T *nv, T *o)
{
    T c00 = a[5] * a[10] - a[6] * a[9], c01 = a[6] * a[8] - a[4] * a[10];
    T c02 = a[4] * a[9] - a[5] * a[8], c10 = a[2] * a[9] - a[1] * a[10];
    T c11 = a[0] * a[10] - a[2] * a[8], c12 = a[1] * a[8] - a[0] * a[9];
    T c20 = a[1] * a[6] - a[2] * a[5], c21 = a[2] * a[4] - a[0] * a[6];
    T c22 = a[0] * a[5] - a[1] * a[4];
    T det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    T x = c00 * nv[0] + c01 * nv[1] + c02 * nv[2];
    T y = c10 * nv[0] + c11 * nv[1] + c12 * nv[2];
    T z = c20 * nv[0] + c21 * nv[1] + c22 * nv[2];
    T len = SQRT(x * x + y * y + z * z);
    T r = len > 0 ? (det < 0 ? -1 / len : 1 / len) : len == 0 ? 0 : len;
    o[0] = x * r; o[1] = y * r; o[2] = z * r;
}
