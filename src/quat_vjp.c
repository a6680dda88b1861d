/* quat_vjp.c -- vector-Jacobian products of the rotation conversions:
 *   quaternion -> matrix (qmat, a polynomial of q used as given) and
 *   rotation vector -> unit quaternion (the exponential map).
 * One item function each (qmat_vjp in qmath.h, shared with fk_vjp.c), mapped over the
 * strided items by SK_MAP2 (real.h) as in quat.c; compiled for float and double (real.h). */
#include "real.h"
#include "qmath.h"

SK_MAP2(sk_quat_to_matrix_vjp, FN(qmat_vjp)) /* qmath.h */

/* q = (k(a) r, cos(a/2)) with a = |r|, k(a) = sin(a/2)/a, so for cotangent (gu, gw):
 *   g_r = k gu + (gu.r) (k'(a)/a) r - gw (k/2) r      (d cos(a/2)/dr = -(k/2) r).
 * k'(a)/a = (a cos(a/2)/2 - sin(a/2)) / a^3 cancels near 0: its series
 * -1/24 + a^2/960 - a^4/107520 + a^6/23224320 is used below a^2 < 0.09. */
static inline void FN(from_rotvec_vjp)(const T *v, const T *gq, T *o)
{
    T a2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2], a = SQRT(a2);
    T k = FN(sinc)(a / 2) / 2, c;
    if (a2 < (T)0.09)
        c = (T)(-1.0 / 24) + a2 * ((T)(1.0 / 960) +
                                  a2 * ((T)(-1.0 / 107520) + a2 * (T)(1.0 / 23224320)));
    else
        c = (a * COS(a / 2) / 2 - SIN(a / 2)) / (a2 * a);
    T gur = gq[0] * v[0] + gq[1] * v[1] + gq[2] * v[2];
    T s = gur * c - gq[3] * k / 2;
    for (int e = 0; e < 3; e++)
        o[e] = k * gq[e] + s * v[e];
}
SK_MAP2(sk_quat_from_rotvec_vjp, FN(from_rotvec_vjp))
