/* qmath.h -- static inline quaternion algebra shared by the kernels (quat.c, fk.c, the VJPs...).
 * Included after real.h, once per precision.  Quaternions are (x, y, z, w). */

/* o = a * b (Hamilton product); o may not alias a or b */
static inline void FN(qmul)(const T *a, const T *b, T *o)
{
    o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* o = q v q* for unit q: v + w t + u x t with t = 2 u x v, u = (x, y, z) */
static inline void FN(qrot)(const T *q, const T *v, T *o)
{
    T tx = 2 * (q[1] * v[2] - q[2] * v[1]);
    T ty = 2 * (q[2] * v[0] - q[0] * v[2]);
    T tz = 2 * (q[0] * v[1] - q[1] * v[0]);
    o[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    o[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    o[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

/* 3x3 rotation of q (used as given) into m, row-major with row length ld */
static inline void FN(qmat)(const T *q, T *m, int ld)
{
    T x2 = q[0] + q[0], y2 = q[1] + q[1], z2 = q[2] + q[2];
    T xx = q[0] * x2, xy = q[0] * y2, xz = q[0] * z2;
    T yy = q[1] * y2, yz = q[1] * z2, zz = q[2] * z2;
    T wx = q[3] * x2, wy = q[3] * y2, wz = q[3] * z2;
    m[0] = 1 - (yy + zz);      m[1] = xy - wz;            m[2] = xz + wy;
    m[ld] = xy + wz;           m[ld + 1] = 1 - (xx + zz); m[ld + 2] = yz - wx;
    m[2 * ld] = xz - wy;       m[2 * ld + 1] = yz + wx;   m[2 * ld + 2] = 1 - (xx + yy);
}

/* o = df/dq for f = <G, qmat(q)> (G 3x3 row-major; q used as given, not normalised):
 * qmat(q) = I + 2 w [u]x + 2 [u]x^2 (u = (x, y, z)), so
 *   df/dw = 2 a.u  with a = (G21 - G12, G02 - G20, G10 - G01),
 *   df/du = 2 w a + 2 (G + G^T) u - 4 tr(G) u. */
static inline void FN(qmat_vjp)(const T *p, const T *G, T *o)
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

/* sin(x) / x, exact at 0 */
static inline T FN(sinc)(T x)
{
    return x * x < EPS ? 1 - x * x / 6 : SIN(x) / x;
}

/* Shortest-path slerp (Shoemake 1985): o = w0 a + w1 b' with b' = sign(a.b) b,
 * w0 = sin((1-t) phi) / sin(phi), w1 = sin(t phi) / sin(phi).  The angle comes from the
 * half-angle chords, phi = 2 atan2(|a - b'|, |a + b'|), accurate at every angle (acos of the dot
 * is not near 0), and so do sin(phi) = 2 |a-b'| |a+b'| / r and cos(phi) = (|a+b'|^2 - |a-b'|^2) / r
 * (r = |a-b'|^2 + |a+b'|^2); then w0 = cos(t phi) - cos(phi) w1 needs one sine and one cosine.
 * Below phi^2 < EPS the weights are 1 - t and t to machine precision.
 * qslerp_key computes what depends on a and b only, k = (phi, sin(phi), cos(phi), sign(a.b));
 * qslerp_at then needs one sine/cosine pair per t (a clip keeps k per key: sample.c; a
 * compressed clip's float32 lanes compute the same in float32: cclip_lane_math.h). */
static inline void FN(qslerp_key)(const T *a, const T *b, T *k)
{
    T d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    T sg = d < 0 ? (T)-1 : (T)1;
    T dm = 0, dp = 0;
    for (int i = 0; i < 4; i++) {
        T m = a[i] - sg * b[i], p = a[i] + sg * b[i];
        dm += m * m;
        dp += p * p;
    }
    T nm = SQRT(dm), np = SQRT(dp), r = dm + dp;
    k[0] = 2 * ATAN2(nm, np);
    k[1] = 2 * nm * np / r;
    k[2] = (dp - dm) / r;
    k[3] = sg;
}

/* The Taylor polynomials of sincos_slerp in y2 = y^2, written with the operation MADD(a, b, c)
 * = c + a b and the constant C(c), so that the AVX2 lane groups (sample_avx2.c) evaluate them
 * with FMAs: sin y = y + y y2 SK_SIN_TAYLOR, cos y = 1 + y2 SK_COS_TAYLOR. */
#define SK_SIN_TAYLOR(y2, MADD, C)                                                             \
    MADD(y2, MADD(y2, MADD(y2, MADD(y2, MADD(y2, MADD(y2, C(-1.0 / 1307674368000),             \
        C(1.0 / 6227020800)), C(-1.0 / 39916800)), C(1.0 / 362880)), C(-1.0 / 5040)),          \
        C(1.0 / 120)), C(-1.0 / 6))
#define SK_COS_TAYLOR(y2, MADD, C)                                                             \
    MADD(y2, MADD(y2, MADD(y2, MADD(y2, MADD(y2, MADD(y2, MADD(y2, C(1.0 / 20922789888000),    \
        C(-1.0 / 87178291200)), C(1.0 / 479001600)), C(-1.0 / 3628800)), C(1.0 / 40320)),      \
        C(-1.0 / 720)), C(1.0 / 24)), C(-0.5))
#define SK_PIO2_HI 1.5707963267948966
#define SK_PIO2_LO 6.123233995736766e-17
#define SK_PIO4 0.78539816339744831
#define SK_SCALAR_MADD(a, b, c) ((c) + (a) * (b))
#define SK_SCALAR_C(c) (c)

/* sin x and cos x: for x in [0, pi/2] (slerp's t phi for t in [0, 1]) Taylor polynomials of
 * degree 15 and 16 in double on [0, pi/4], where they are exact to below half an ulp, and the
 * co-functions of pi/2 - x beyond; libm elsewhere.  A third of the cost of a libm sincos. */
static inline void FN(sincos_slerp)(T x, T *s, T *c)
{
    if (!(x >= 0 && (double)x <= SK_PIO2_HI)) {
        *s = SIN(x), *c = COS(x);
        return;
    }
    int flip = (double)x > SK_PIO4;
    double y = flip ? (SK_PIO2_HI - (double)x) + SK_PIO2_LO : (double)x, y2 = y * y;
    double sn = y + y * y2 * SK_SIN_TAYLOR(y2, SK_SCALAR_MADD, SK_SCALAR_C);
    double cs = 1 + y2 * SK_COS_TAYLOR(y2, SK_SCALAR_MADD, SK_SCALAR_C);
    *s = (T)(flip ? cs : sn);
    *c = (T)(flip ? sn : cs);
}

/* q / |q| in place (a zero q stays zero): a CUBICSPLINE rotation's value (glTF 2.0 Appendix C;
 * the STEP and LINEAR keys of a clip are unit already: skinkit.clip._sampler_values), a
 * compressed clip's decoded key (compress_decode.c) */
static inline void FN(qunit)(T *q)
{
    T len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (len2 > 0) {
        T r = 1 / SQRT(len2);
        for (int c = 0; c < 4; c++)
            q[c] *= r;
    }
}

static inline void FN(qslerp_at)(const T *a, const T *b, const T *k, T t, T *o)
{
    T phi = k[0], w0 = 1 - t, w1 = t;
    if (phi * phi >= EPS) {
        T st, ct;
        FN(sincos_slerp)(t * phi, &st, &ct);
        w1 = st / k[1];
        w0 = ct - k[2] * w1;
    }
    w1 *= k[3];
    for (int i = 0; i < 4; i++)
        o[i] = w0 * a[i] + w1 * b[i];
}

static inline void FN(qslerp)(const T *a, const T *b, T t, T *o)
{
    T k[4];
    FN(qslerp_key)(a, b, k);
    FN(qslerp_at)(a, b, k, t, o);
}

/* o (4x4, rows 0..2 computed, last row 0 0 0 1) = m . T(t) R(q) S(s) for m rows 0..2 of a
 * 4x4, or T(t) R(q) S(s) for m NULL: a joint's world matrix from its parent's (fk.c,
 * shell_error.c) */
static inline void FN(trs_world)(const T *m, const T *q, const T *t, const T *s, T *o)
{
    T l[12];
    FN(qmat)(q, l, 4);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            l[4 * r + c] *= s[c];
    l[3] = t[0]; l[7] = t[1]; l[11] = t[2];
    if (!m) {
        for (int e = 0; e < 12; e++)
            o[e] = l[e];
    } else {
        for (int r = 0; r < 3; r++) {
            const T *mr = m + 4 * r;
            for (int c = 0; c < 4; c++)
                o[4 * r + c] = mr[0] * l[c] + mr[1] * l[4 + c] + mr[2] * l[8 + c];
            o[4 * r + 3] += mr[3];
        }
    }
    o[12] = 0; o[13] = 0; o[14] = 0; o[15] = 1;
}
