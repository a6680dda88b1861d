/* qmath.h -- static inline quaternion algebra shared by quat.c, fk.c and sample.c.
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
 * Below phi^2 < EPS the weights are 1 - t and t to machine precision. */
static inline void FN(qslerp)(const T *a, const T *b, T t, T *o)
{
    T d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    T sg = d < 0 ? (T)-1 : (T)1;
    T dm = 0, dp = 0;
    for (int i = 0; i < 4; i++) {
        T m = a[i] - sg * b[i], p = a[i] + sg * b[i];
        dm += m * m;
        dp += p * p;
    }
    T nm = SQRT(dm), np = SQRT(dp);
    T phi = 2 * ATAN2(nm, np);
    T w0 = 1 - t, w1 = t;
    if (phi * phi >= EPS) {
        T r = dm + dp, sphi = 2 * nm * np / r, cphi = (dp - dm) / r;
        T st = SIN(t * phi), ct = COS(t * phi);
        w1 = st / sphi;
        w0 = ct - cphi * w1;
    }
    w1 *= sg;
    for (int i = 0; i < 4; i++)
        o[i] = w0 * a[i] + w1 * b[i];
}
