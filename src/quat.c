/* quat.c -- quaternion kernels over n items with item strides (elements): one item function
 * each (here or in qmath.h), mapped over the items by SK_MAP1 / SK_MAP2 (real.h) next to it.
 * Compiled twice, for float and double (see real.h). */
#include "real.h"
#include "qmath.h"

SK_MAP2(sk_quat_multiply, FN(qmul))
SK_MAP2(sk_quat_rotate, FN(qrot))

static inline void FN(conjugate)(const T *p, T *o)
{
    o[0] = -p[0]; o[1] = -p[1]; o[2] = -p[2]; o[3] = p[3];
}
SK_MAP1(sk_quat_conjugate, FN(conjugate))

static inline void FN(inverse)(const T *p, T *o)
{
    T r = 1 / (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
    o[0] = -p[0] * r; o[1] = -p[1] * r; o[2] = -p[2] * r; o[3] = p[3] * r;
}
SK_MAP1(sk_quat_inverse, FN(inverse))

static inline void FN(normalize)(const T *p, T *o)
{
    T len = SQRT(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
    if (len > 0) {
        o[0] = p[0] / len; o[1] = p[1] / len; o[2] = p[2] / len; o[3] = p[3] / len;
    } else if (len == 0) {
        o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 1;
    } else { /* NaN propagates */
        o[0] = o[1] = o[2] = o[3] = len;
    }
}
SK_MAP1(sk_quat_normalize, FN(normalize))

static inline void FN(to_matrix)(const T *q, T *o)
{
    FN(qmat)(q, o, 3);
}
SK_MAP1(sk_quat_to_matrix, FN(to_matrix))

/* Shepperd (1978): take the largest of 4w^2, 4x^2, 4y^2, 4z^2 from the trace and the
 * diagonal, the other components from the off-diagonal sums/differences. */
static inline void FN(from_matrix)(const T *a, T *o)
{
    T tr = a[0] + a[4] + a[8], x, y, z, w;
    if (tr >= a[0] && tr >= a[4] && tr >= a[8]) {
        w = (T)0.5 * SQRT(1 + tr); T f = (T)0.25 / w;
        x = (a[7] - a[5]) * f; y = (a[2] - a[6]) * f; z = (a[3] - a[1]) * f;
    } else if (a[0] >= a[4] && a[0] >= a[8]) {
        x = (T)0.5 * SQRT(1 + a[0] - a[4] - a[8]); T f = (T)0.25 / x;
        y = (a[1] + a[3]) * f; z = (a[2] + a[6]) * f; w = (a[7] - a[5]) * f;
    } else if (a[4] >= a[8]) {
        y = (T)0.5 * SQRT(1 - a[0] + a[4] - a[8]); T f = (T)0.25 / y;
        x = (a[1] + a[3]) * f; z = (a[5] + a[7]) * f; w = (a[2] - a[6]) * f;
    } else {
        z = (T)0.5 * SQRT(1 - a[0] - a[4] + a[8]); T f = (T)0.25 / z;
        x = (a[2] + a[6]) * f; y = (a[5] + a[7]) * f; w = (a[3] - a[1]) * f;
    }
    T len = SQRT(x * x + y * y + z * z + w * w);
    if (w < 0)
        len = -len;
    o[0] = x / len; o[1] = y / len; o[2] = z / len; o[3] = w / len;
}
SK_MAP1(sk_quat_from_matrix, FN(from_matrix))

static inline void FN(from_rotvec)(const T *v, T *o)
{
    T angle = SQRT(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    T s = (T)0.5 * FN(sinc)((T)0.5 * angle); /* sin(angle/2) / angle */
    o[0] = v[0] * s; o[1] = v[1] * s; o[2] = v[2] * s; o[3] = COS((T)0.5 * angle);
}
SK_MAP1(sk_quat_from_rotvec, FN(from_rotvec))

void FN(sk_slerp)(size_t n, const T *q0, ptrdiff_t s0, const T *q1, ptrdiff_t s1, const T *t,
                  ptrdiff_t st, T *restrict out, ptrdiff_t so)
{
    for (size_t i = 0; i < n; i++)
        FN(qslerp)(q0 + i * s0, q1 + i * s1, t[i * st], out + i * so);
}
