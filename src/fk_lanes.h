/* fk_lanes.h -- internal: the arithmetic of one forward-kinematics step on "lanes" of type VEC,
 * included by fk_avx2.c twice: with VEC = __m256 (8 joints of a pose, or 8 poses) and with
 * VEC = float (one), so that both run the same operations in the same order (explicit FMAs
 * only; the file is compiled with -ffp-contract=off) and a joint gets the same bits from
 * either.  Before including, define
 * VEC, LN(name) (the name suffix) and the operations MUL ADD SUB FMA (a b + c), FMS (a b - c)
 * and SET1.  The formulas are qmath.h's. */

/* l = T R S as rows 0..2 of a 4x4 (rotation of q scaled by column, translation t); s may be
 * NULL */
static inline void LN(local_trs)(const VEC q[4], const VEC t[3], const VEC *s, VEC l[12])
{
    VEC one = SET1(1.f);
    VEC x2 = ADD(q[0], q[0]), y2 = ADD(q[1], q[1]), z2 = ADD(q[2], q[2]);
    VEC xx = MUL(q[0], x2), xy = MUL(q[0], y2), xz = MUL(q[0], z2);
    VEC yy = MUL(q[1], y2), yz = MUL(q[1], z2), zz = MUL(q[2], z2);
    VEC wx = MUL(q[3], x2), wy = MUL(q[3], y2), wz = MUL(q[3], z2);
    l[0] = SUB(one, ADD(yy, zz)), l[1] = SUB(xy, wz), l[2] = ADD(xz, wy);
    l[4] = ADD(xy, wz), l[5] = SUB(one, ADD(xx, zz)), l[6] = SUB(yz, wx);
    l[8] = SUB(xz, wy), l[9] = ADD(yz, wx), l[10] = SUB(one, ADD(xx, yy));
    if (s)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                l[4 * r + c] = MUL(l[4 * r + c], s[c]);
    l[3] = t[0], l[7] = t[1], l[11] = t[2];
}

/* o = q v q* for unit q */
static inline void LN(qrot)(const VEC q[4], const VEC v[3], VEC o[3])
{
    VEC two = SET1(2.f);
    VEC tx = MUL(two, FMS(q[1], v[2], MUL(q[2], v[1])));
    VEC ty = MUL(two, FMS(q[2], v[0], MUL(q[0], v[2])));
    VEC tz = MUL(two, FMS(q[0], v[1], MUL(q[1], v[0])));
    o[0] = ADD(FMA(q[3], tx, v[0]), FMS(q[1], tz, MUL(q[2], ty)));
    o[1] = ADD(FMA(q[3], ty, v[1]), FMS(q[2], tx, MUL(q[0], tz)));
    o[2] = ADD(FMA(q[3], tz, v[2]), FMS(q[0], ty, MUL(q[1], tx)));
}

/* libigl's step: Q = Qp q, t = tp + Qp x - Q x; a root (P == NULL) has Q = q, t = x - q x */
static inline void LN(rigid_step)(const VEC *P, const VEC *tp, const VEC q[4], const VEC x[3],
                                  VEC Q[4], VEC t[3])
{
    VEC a[3], b[3];
    if (!P) {
        for (int e = 0; e < 4; e++)
            Q[e] = q[e];
        LN(qrot)(Q, x, b);
        for (int e = 0; e < 3; e++)
            t[e] = SUB(x[e], b[e]);
        return;
    }
    Q[0] = FMA(P[3], q[0], FMA(P[0], q[3], FMS(P[1], q[2], MUL(P[2], q[1]))));
    Q[1] = ADD(FMS(P[3], q[1], MUL(P[0], q[2])), FMA(P[1], q[3], MUL(P[2], q[0])));
    Q[2] = ADD(FMA(P[3], q[2], MUL(P[0], q[1])), FMS(P[2], q[3], MUL(P[1], q[0])));
    Q[3] = SUB(FMS(P[3], q[3], MUL(P[0], q[0])), FMA(P[1], q[1], MUL(P[2], q[2])));
    LN(qrot)(P, x, a);
    LN(qrot)(Q, x, b);
    for (int e = 0; e < 3; e++)
        t[e] = SUB(ADD(tp[e], a[e]), b[e]);
}
