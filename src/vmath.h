/* vmath.h -- static inline 3-vector and rigid-frame helpers shared by the IK kernels (ik.c,
 * ik_chain.c) and retargeting (retarget.c).  Included after real.h and qmath.h, once per
 * precision.  Matrices are 4x4 row-major acting on column vectors. */

static inline T FN(dot3)(const T *a, const T *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void FN(cross3)(const T *a, const T *b, T *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* o = M p (a point: the translation column added) or M v (a vector) */
static inline void FN(xform_point)(const T *m, const T *p, T *o)
{
    for (int r = 0; r < 3; r++)
        o[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

static inline void FN(xform_vector)(const T *m, const T *v, T *o)
{
    for (int r = 0; r < 3; r++)
        o[r] = m[4 * r] * v[0] + m[4 * r + 1] * v[1] + m[4 * r + 2] * v[2];
}

/* inverse of a 4x4 matrix; all zeros when singular (as ozz's Invert, which makes the IK
   corrections the identity) */
static inline void FN(invert_or_zero)(const T *m, T *o)
{
    size_t bad;
    if (FN(sk_invert4)(1, m, 0, o, 0, &bad) != SK_OK)
        for (int e = 0; e < 16; e++)
            o[e] = 0;
}

static inline void FN(qnormalize)(T *q)
{
    T n = SQRT(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0)
        for (int e = 0; e < 4; e++)
            q[e] /= n;
}

static inline void FN(qset)(T *q, T x, T y, T z, T w)
{
    q[0] = x; q[1] = y; q[2] = z; q[3] = w;
}

/* conjugate (the inverse of a unit quaternion) */
static inline void FN(qconj)(const T *q, T *o)
{
    FN(qset)(o, -q[0], -q[1], -q[2], q[3]);
}

/* rotation of angle about the unit axis */
static inline void FN(qaxis_angle)(const T *axis, T angle, T *q)
{
    T s = SIN(angle / 2);
    FN(qset)(q, axis[0] * s, axis[1] * s, axis[2] * s, COS(angle / 2));
}

/* rotation about the unit axis whose angle has cosine c (ozz FromAxisCosAngle) */
static inline void FN(qaxis_cos)(const T *axis, T c, T *q)
{
    T hc2 = (1 + c) / 2, hs = SQRT(1 - hc2 < 0 ? 0 : 1 - hc2);
    FN(qset)(q, axis[0] * hs, axis[1] * hs, axis[2] * hs, SQRT(hc2));
}

/* the shortest rotation taking the direction of a onto that of b (ozz FromVectors): the
   identity when either is zero, a half turn about an axis normal to a when they are opposite */
static inline void FN(qfrom_vectors)(const T *a, const T *b, T *q)
{
    T nn = SQRT(FN(dot3)(a, a) * FN(dot3)(b, b));
    if (!(nn > 0)) {
        FN(qset)(q, 0, 0, 0, 1);
        return;
    }
    T re = nn + FN(dot3)(a, b);
    if (re <= (T)1e-6 * nn) {
        if (FABS(a[0]) > FABS(a[2]))
            FN(qset)(q, -a[1], a[0], 0, 0);
        else
            FN(qset)(q, 0, -a[2], a[1], 0);
    } else {
        T c[3];
        FN(cross3)(a, b, c);
        FN(qset)(q, c[0], c[1], c[2], re);
    }
    FN(qnormalize)(q);
}

/* unit quaternion of the rotation part of a rigid (or uniformly scaled) 4x4 matrix */
static inline void FN(qfrom_frame)(const T *m, T *q)
{
    T r[9];
    T s = SQRT(m[0] * m[0] + m[4] * m[4] + m[8] * m[8]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = s > 0 ? m[4 * i + j] / s : (T)(i == j);
    FN(sk_quat_from_matrix)(1, r, 0, q, 0);
}
