/* quat_vjp.c -- vector-Jacobian products of the rotation conversions:
 *   quaternion -> matrix (qmat, a polynomial of q used as given) and
 *   rotation vector -> unit quaternion (the exponential map).
 * One item function each, mapped over the strided items by SK_MAP2 (real.h) as in quat.c;
 * compiled for float and double (see real.h). */
#include "real.h"
#include "qmath.h"

/* qmat(q) = I + 2 w [u]x + 2 [u]x^2 (u = (x, y, z)), so for f = <G, qmat(q)>:
 *   df/dw = 2 a.u  with a = (G21 - G12, G02 - G20, G10 - G01),
 *   df/du = 2 w a + 2 (G + G^T) u - 4 tr(G) u. */
static inline void FN(to_matrix_vjp)(const T *p, const T *G, T *o)
{
    T a[3] = {G[7] - G[5], G[2] - G[6], G[3] - G[1]};
    T tr = G[0] + G[4] + G[8];
    for (int r = 0; r < 3; r++) {
        T s = 0;
        for (int c = 0; c < 3; c++)
            s += (G[3 * r + c] + G[3 * c + r]) * p[c];
        o[r] = 2 * p[3] * a[r] + 2 * s - 4 * tr * p[r];
    }
    o[3] = 2 * (a[0] * p[0] + a[1] * p[1] + a[2] * p[2]);
}
SK_MAP2(sk_quat_to_matrix_vjp, FN(to_matrix_vjp))

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
