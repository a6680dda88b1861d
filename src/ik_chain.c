/* ik_chain.c -- iterative IK on a joint chain, batched over poses: cyclic coordinate descent
 * (three.js CCDIKSolver, examples/jsm/animation/CCDIKSolver.js) and FABRIK (Aristidou and
 * Lasenby 2011, "FABRIK: a fast, iterative solver for the inverse kinematics problem").
 *
 * A chain is L joints, each the parent of the next; joint L-1 is the effector.  An item gives
 * the world matrix of the first joint's parent (base: rigid, or uniformly scaled), the chain's
 * local translations (L, 3) and rotations (L, 4) and the target (world); the result is the
 * chain's new local rotations (the effector's is returned as given).  The solve runs in the
 * base's frame; tolerance is in world units.  Chains are at most SK_IK_MAX_CHAIN joints (the
 * solvers' work arrays are on the stack). */
#include "real.h"
#include "qmath.h"
#include "vmath.h"

/* world rotations wq and positions wp (base frame) of the chain from its locals */
static void FN(chain_fk)(size_t L, const T *t, const T *q, T *wq, T *wp)
{
    for (size_t j = 0; j < L; j++) {
        if (j == 0) {
            for (int e = 0; e < 4; e++)
                wq[e] = q[e];
            for (int e = 0; e < 3; e++)
                wp[e] = t[e];
            continue;
        }
        T v[3];
        FN(qmul)(wq + 4 * (j - 1), q + 4 * j, wq + 4 * j);
        FN(qrot)(wq + 4 * (j - 1), t + 3 * j, v);
        for (int e = 0; e < 3; e++)
            wp[3 * j + e] = wp[3 * (j - 1) + e] + v[e];
    }
}

/* the target in the base frame, and the tolerance scaled to it (|det|^(1/3) of the base) */
static void FN(to_base)(const T *base, const T *target, T tolerance, T *tb, T *tol)
{
    T inv[16];
    FN(invert_or_zero)(base, inv);
    FN(xform_point)(inv, target, tb);
    T d = base[0] * (base[5] * base[10] - base[6] * base[9]) -
          base[1] * (base[4] * base[10] - base[6] * base[8]) +
          base[2] * (base[4] * base[9] - base[5] * base[8]);
    T s = (T)cbrt((double)FABS(d));
    *tol = s > 0 ? tolerance / s : tolerance;
}

static T FN(dist3)(const T *a, const T *b)
{
    T d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return SQRT(FN(dot3)(d, d));
}

/* three.js Euler XYZ of a unit quaternion (Euler.setFromRotationMatrix, order XYZ) */
static void FN(euler_xyz)(const T *q, T *a)
{
    T m[9];
    FN(qmat)(q, m, 3);
    T m13 = m[2] < -1 ? -1 : m[2] > 1 ? 1 : m[2];
    a[1] = ASIN(m13);
    if (FABS(m13) < (T)0.9999999) {
        a[0] = ATAN2(-m[5], m[8]);
        a[2] = ATAN2(-m[1], m[0]);
    } else {
        a[0] = ATAN2(m[7], m[4]);
        a[2] = 0;
    }
}

/* three.js Quaternion.setFromEuler, order XYZ */
static void FN(from_euler_xyz)(const T *a, T *q)
{
    T c1 = COS(a[0] / 2), c2 = COS(a[1] / 2), c3 = COS(a[2] / 2);
    T s1 = SIN(a[0] / 2), s2 = SIN(a[1] / 2), s3 = SIN(a[2] / 2);
    FN(qset)(q, s1 * c2 * c3 + c1 * s2 * s3, c1 * s2 * c3 - s1 * c2 * s3,
             c1 * c2 * s3 + s1 * s2 * c3, c1 * c2 * c3 - s1 * s2 * s3);
}

/* clamps the XYZ Euler angles of q to [lo, hi] (CCDIKSolver rotationMin / rotationMax); a joint
   whose six bounds are all infinite is left as it is */
static void FN(limit_euler)(T *q, const T *lo, const T *hi)
{
    int any = 0;
    for (int e = 0; e < 3; e++)
        any |= FABS(lo[e]) <= (T)1e30 || FABS(hi[e]) <= (T)1e30;
    if (!any)
        return;
    T a[3];
    FN(euler_xyz)(q, a);
    for (int e = 0; e < 3; e++)
        a[e] = a[e] < lo[e] ? lo[e] : a[e] > hi[e] ? hi[e] : a[e];
    FN(from_euler_xyz)(a, q);
}

/* three.js skips a joint whose turn is below 1e-5 rad, which stops a double precision solve
   ~1e-5 of the chain length short of the target: double uses 1e-10 */
#undef CCD_MIN_ANGLE
#define CCD_MIN_ANGLE ((T)(SK_DOUBLE ? 1e-10 : 1e-5))

/* the iteration count of an item: NaN and negatives give 0, at most SK_IK_MAX_ITERATIONS */
static int FN(iterations)(T it)
{
    return it > 0 ? (it < SK_IK_MAX_ITERATIONS ? (int)it : SK_IK_MAX_ITERATIONS) : 0;
}

static void FN(ccd)(size_t L, const T *base, const T *t, const T *q0, const T *target,
                    const T *lo, const T *hi, int iterations, T tolerance, T *q, T *wq, T *wp)
{
    T tb[3], tol;
    FN(to_base)(base, target, tolerance, tb, &tol);
    for (size_t e = 0; e < 4 * L; e++)
        q[e] = q0[e];
    for (int it = 0; it < iterations; it++) {
        int converged = 1;
        for (size_t j = L - 1; j-- > 0;) {
            FN(chain_fk)(L, t, q, wq, wp);
            if (FN(dist3)(wp + 3 * (L - 1), tb) <= tol)
                return;
            T inv[4], ev[3], tv[3], d[3], axis[3], dq[4], nq[4];
            FN(qconj)(wq + 4 * j, inv);
            for (int e = 0; e < 3; e++)
                d[e] = wp[3 * (L - 1) + e] - wp[3 * j + e];
            FN(qrot)(inv, d, ev);
            for (int e = 0; e < 3; e++)
                d[e] = tb[e] - wp[3 * j + e];
            FN(qrot)(inv, d, tv);
            T ne = SQRT(FN(dot3)(ev, ev)), nt = SQRT(FN(dot3)(tv, tv));
            if (!(ne > 0 && nt > 0))
                continue;
            T c = FN(dot3)(ev, tv) / (ne * nt);
            T angle = ACOS(c < -1 ? -1 : c > 1 ? 1 : c);
            if (angle < CCD_MIN_ANGLE)
                continue;
            FN(cross3)(ev, tv, axis);
            T na = SQRT(FN(dot3)(axis, axis));
            if (!(na > 0))
                continue;
            for (int e = 0; e < 3; e++)
                axis[e] /= na;
            FN(qaxis_angle)(axis, angle, dq);
            FN(qmul)(q + 4 * j, dq, nq);
            FN(qnormalize)(nq);
            FN(limit_euler)(nq, lo + 3 * j, hi + 3 * j);
            for (int e = 0; e < 4; e++)
                q[4 * j + e] = nq[e];
            converged = 0;
        }
        if (converged)
            break;
    }
}

int FN(sk_ik_ccd)(size_t n, size_t L, const T *base, ptrdiff_t s0, const T *trans,
                   ptrdiff_t s1, const T *rot, ptrdiff_t s2, const T *target, ptrdiff_t s3,
                   const T *rot_min, ptrdiff_t s4, const T *rot_max, ptrdiff_t s5,
                   const T *iterations, ptrdiff_t s6, const T *tolerance, ptrdiff_t s7,
                  T *restrict out, ptrdiff_t s8)
{
    T wq[4 * SK_IK_MAX_CHAIN], wp[3 * SK_IK_MAX_CHAIN];
    if (L > SK_IK_MAX_CHAIN)
        return SK_ERR_CHAIN_LENGTH;
    for (size_t i = 0; i < n; i++) {
        T it = iterations[i * s6];
        FN(ccd)(L, base + i * s0, trans + i * s1, rot + i * s2, target + i * s3,
                rot_min + i * s4, rot_max + i * s5, FN(iterations)(it),
                tolerance[i * s7], out + i * s8, wq, wp);
    }
    return SK_OK;
}

/* dir turned toward ref so that their angle is at most limit (a cone about ref) */
static void FN(cone)(T *dir, const T *ref, T limit)
{
    if (!(limit < (T)3.15))
        return;
    T c = FN(dot3)(dir, ref);
    if (c >= COS(limit))
        return;
    T perp[3];
    for (int e = 0; e < 3; e++)
        perp[e] = dir[e] - c * ref[e];
    T np = SQRT(FN(dot3)(perp, perp));
    if (!(np > 0)) { /* opposite: any normal of ref */
        T x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
        FN(cross3)(ref, FABS(ref[0]) < (T)0.9 ? x : y, perp);
        np = SQRT(FN(dot3)(perp, perp));
    }
    for (int e = 0; e < 3; e++)
        dir[e] = COS(limit) * ref[e] + SIN(limit) * perp[e] / np;
}

static void FN(unit)(const T *a, const T *b, T *o)
{
    for (int e = 0; e < 3; e++)
        o[e] = b[e] - a[e];
    T nn = SQRT(FN(dot3)(o, o));
    for (int e = 0; e < 3; e++)
        o[e] = nn > 0 ? o[e] / nn : 0;
}

/* the forward pass from the root: each bone's direction limited to max_angle[j] from the
   previous bone's (joint 0: from its direction in the given pose, ref0) */
static void FN(fabrik_forward)(size_t L, T *p, const T *len, const T *ref0, const T *max_angle)
{
    T prev[3] = {ref0[0], ref0[1], ref0[2]};
    for (size_t j = 0; j + 1 < L; j++) {
        T d[3];
        FN(unit)(p + 3 * j, p + 3 * (j + 1), d);
        FN(cone)(d, prev, max_angle[j]);
        for (int e = 0; e < 3; e++) {
            p[3 * (j + 1) + e] = p[3 * j + e] + len[j] * d[e];
            prev[e] = d[e];
        }
    }
}

static void FN(fabrik)(size_t L, const T *base, const T *t, const T *q0, const T *target,
                       const T *max_angle, int iterations, T tolerance, T *q, T *wq, T *wp,
                       T *p, T *len)
{
    T tb[3], tol, total = 0, ref0[3], root[3];
    FN(to_base)(base, target, tolerance, tb, &tol);
    for (size_t e = 0; e < 4 * L; e++)
        q[e] = q0[e];
    FN(chain_fk)(L, t, q, wq, wp);
    for (size_t e = 0; e < 3 * L; e++)
        p[e] = wp[e];
    for (size_t j = 0; j + 1 < L; j++) {
        len[j] = FN(dist3)(wp + 3 * j, wp + 3 * (j + 1));
        total += len[j];
    }
    for (int e = 0; e < 3; e++)
        root[e] = p[e];
    FN(unit)(p, p + 3, ref0);
    if (FN(dist3)(root, tb) >= total) { /* out of reach: the chain straight toward the target */
        T d[3];
        FN(unit)(root, tb, d);
        for (size_t j = 0; j + 1 < L; j++)
            for (int e = 0; e < 3; e++)
                p[3 * (j + 1) + e] = p[3 * j + e] + len[j] * d[e];
        FN(fabrik_forward)(L, p, len, ref0, max_angle);
    } else {
        for (int it = 0; it < iterations; it++) {
            if (FN(dist3)(p + 3 * (L - 1), tb) <= tol)
                break;
            for (int e = 0; e < 3; e++) /* backward pass from the effector */
                p[3 * (L - 1) + e] = tb[e];
            for (size_t j = L - 1; j-- > 0;) {
                T d[3];
                FN(unit)(p + 3 * (j + 1), p + 3 * j, d);
                for (int e = 0; e < 3; e++)
                    p[3 * j + e] = p[3 * (j + 1) + e] + len[j] * d[e];
            }
            for (int e = 0; e < 3; e++)
                p[e] = root[e];
            FN(fabrik_forward)(L, p, len, ref0, max_angle);
        }
    }
    /* rotations from positions: each joint turned (in world) by the shortest rotation from its
       bone's current direction to the solved one, root first */
    for (size_t j = 0; j + 1 < L; j++) {
        FN(chain_fk)(L, t, q, wq, wp);
        T cur[3], want[3], dq[4], nw[4], pinv[4];
        for (int e = 0; e < 3; e++) {
            cur[e] = wp[3 * (j + 1) + e] - wp[3 * j + e];
            want[e] = p[3 * (j + 1) + e] - p[3 * j + e];
        }
        FN(qfrom_vectors)(cur, want, dq);
        FN(qmul)(dq, wq + 4 * j, nw);
        if (j == 0) {
            for (int e = 0; e < 4; e++)
                q[e] = nw[e];
        } else {
            FN(qconj)(wq + 4 * (j - 1), pinv);
            FN(qmul)(pinv, nw, q + 4 * j);
        }
        FN(qnormalize)(q + 4 * j);
    }
}

int FN(sk_ik_fabrik)(size_t n, size_t L, const T *base, ptrdiff_t s0, const T *trans,
                      ptrdiff_t s1, const T *rot, ptrdiff_t s2, const T *target, ptrdiff_t s3,
                      const T *max_angle, ptrdiff_t s4, const T *iterations, ptrdiff_t s5,
                     const T *tolerance, ptrdiff_t s6, T *restrict out, ptrdiff_t s7)
{
    T wq[4 * SK_IK_MAX_CHAIN], wp[3 * SK_IK_MAX_CHAIN], p[3 * SK_IK_MAX_CHAIN];
    T len[SK_IK_MAX_CHAIN];
    if (L > SK_IK_MAX_CHAIN)
        return SK_ERR_CHAIN_LENGTH;
    for (size_t i = 0; i < n; i++) {
        T it = iterations[i * s5];
        FN(fabrik)(L, base + i * s0, trans + i * s1, rot + i * s2, target + i * s3,
                   max_angle + i * s4, FN(iterations)(it),
                   tolerance[i * s6], out + i * s7, wq, wp, p, len);
    }
    return SK_OK;
}
