/* ik.c -- two-bone and aim inverse kinematics, batched over poses, as ozz-animation defines
 * them (ozz/animation/runtime/ik_two_bone_job.cc and ik_aim_job.cc, read for the semantics;
 * the estimates ozz uses for reciprocals and square roots are exact here).  Each returns
 * local-space rotation corrections: the joint's new local rotation is local * correction. */
#include "real.h"
#include "qmath.h"
#include "vmath.h"

static inline T FN(clamp1)(T c)
{
    return c < -1 ? -1 : c > 1 ? 1 : c;
}

/* correction = nlerp(identity, q, weight) with q in the w >= 0 hemisphere (ozz WeightOutput) */
static inline void FN(weigh)(const T *q, T weight, int fix_sign, T *o)
{
    T sg = fix_sign && q[3] < 0 ? (T)-1 : (T)1;
    if (weight >= 1) {
        for (int e = 0; e < 4; e++)
            o[e] = sg * q[e];
        return;
    }
    T w = weight > 0 ? weight : 0;
    if (!fix_sign) /* ozz's aim job lerps the unfixed quaternion */
        sg = 1;
    for (int e = 0; e < 4; e++)
        o[e] = w * sg * q[e] + (1 - w) * (e == 3);
    FN(qnormalize)(o);
}

/* ozz SoftenTarget: the target in start space, pulled in beyond soften * chain length along
 * 1 - 3^4 / (alpha + 3)^4; returns whether it is reachable (closer than the softened length and
 * farther than |a - b|) */
static int FN(soften_target)(const T *target_ss, T a2, T b2, T soften, T *t, T *t2)
{
    T tl2 = FN(dot3)(target_ss, target_ss);
    T a = SQRT(a2), b = SQRT(b2), tl = SQRT(tl2);
    T chain = a + b, da = chain * (soften < 0 ? 0 : soften > 1 ? 1 : soften), ds = chain - da;
    int beyond = tl > da, reachable = !beyond && tl > FABS(a - b);
    for (int e = 0; e < 3; e++)
        t[e] = target_ss[e];
    *t2 = tl2;
    if (beyond && tl > 0 && ds > 0) {
        T alpha = (tl - da) / ds, op = alpha + 3, op2 = op * op;
        T ratio = 81 / (op2 * op2);
        T len = da + ds - ds * ratio;
        for (int e = 0; e < 3; e++)
            t[e] *= len / tl;
        *t2 = len * len;
    }
    return reachable;
}

static void FN(two_bone)(const T *ms, const T *mm, const T *me, const T *target, const T *pole,
                         const T *mid_axis, T weight, T soften, T twist, T *qs, T *qm,
                         T *reached)
{
    if (!(weight > 0)) {
        FN(qset)(qs, 0, 0, 0, 1);
        FN(qset)(qm, 0, 0, 0, 1);
        *reached = 0;
        return;
    }
    T is[16], im[16], axis[3] = {mid_axis[0], mid_axis[1], mid_axis[2]};
    T an = SQRT(FN(dot3)(axis, axis));
    for (int e = 0; e < 3; e++)
        axis[e] = an > 0 ? axis[e] / an : 0;
    FN(invert_or_zero)(ms, is);
    FN(invert_or_zero)(mm, im);
    T ps[3] = {ms[3], ms[7], ms[11]}, pm[3] = {mm[3], mm[7], mm[11]}, pe[3] = {me[3], me[7], me[11]};
    T start_ms[3], end_ms[3], mid_ss[3], end_ss[3], mid_end_ss[3], sm_ms[3];
    FN(xform_point)(im, ps, start_ms);
    FN(xform_point)(im, pe, end_ms);
    FN(xform_point)(is, pm, mid_ss);
    FN(xform_point)(is, pe, end_ss);
    for (int e = 0; e < 3; e++) {
        sm_ms[e] = -start_ms[e];
        mid_end_ss[e] = end_ss[e] - mid_ss[e];
    }
    T a2 = FN(dot3)(mid_ss, mid_ss), b2 = FN(dot3)(mid_end_ss, mid_end_ss);
    T se2 = FN(dot3)(end_ss, end_ss);

    T target_ss[3], t[3], t2;
    FN(xform_point)(is, target, target_ss);
    int lreached = FN(soften_target)(target_ss, a2, b2, soften, t, &t2);
    *reached = (T)(lreached && weight >= 1);

    /* mid joint: the law of cosines, corrected minus initial angle about mid_axis; the initial
       angle is negative when the chain bends against mid_axis */
    T hr = (T)0.5 / SQRT(a2 * b2), ref[3];
    T corrected = ACOS(FN(clamp1)((a2 + b2 - t2) * hr));
    T initial = ACOS(FN(clamp1)((a2 + b2 - se2) * hr));
    FN(cross3)(sm_ms, axis, ref);
    if (FN(dot3)(ref, end_ms) < 0)
        initial = -initial;
    FN(qaxis_angle)(axis, corrected - initial, qm);

    /* start joint: the effector onto the target, then the chain plane onto the pole plane */
    T pole_ss[3], v[3], w[3], se_final[3], e2t[4];
    FN(xform_vector)(is, pole, pole_ss);
    FN(qrot)(qm, end_ms, v);
    FN(xform_vector)(mm, v, w);
    FN(xform_vector)(is, w, v);
    for (int e = 0; e < 3; e++)
        se_final[e] = mid_ss[e] + v[e];
    FN(qfrom_vectors)(se_final, t, e2t);
    for (int e = 0; e < 4; e++)
        qs[e] = e2t[e];
    if (t2 > 0) {
        T ref_n[3], axis_ss[3], joint_n[3], rp_axis[3], rp[4], tmp[4];
        FN(cross3)(t, pole_ss, ref_n);
        FN(xform_vector)(mm, axis, w);
        FN(xform_vector)(is, w, axis_ss);
        FN(qrot)(e2t, axis_ss, joint_n);
        T rn = SQRT(FN(dot3)(ref_n, ref_n)), jn = SQRT(FN(dot3)(joint_n, joint_n));
        T tl = SQRT(t2);
        T c = FN(clamp1)(FN(dot3)(ref_n, joint_n) / (rn * jn));
        T flip = FN(dot3)(joint_n, pole_ss) < 0 ? (T)-1 : (T)1;
        for (int e = 0; e < 3; e++)
            rp_axis[e] = flip * t[e] / tl;
        FN(qaxis_cos)(rp_axis, c, rp);
        FN(qmul)(rp, e2t, qs);
        if (twist != 0) {
            T tw[4];
            for (int e = 0; e < 3; e++)
                rp_axis[e] = t[e] / tl;
            FN(qaxis_angle)(rp_axis, twist, tw);
            FN(qmul)(tw, qs, tmp);
            for (int e = 0; e < 4; e++)
                qs[e] = tmp[e];
        }
    }
    FN(weigh)(qs, weight, 1, qs);
    FN(weigh)(qm, weight, 1, qm);
}

void FN(sk_ik_two_bone)(size_t n, const T *start, ptrdiff_t s0, const T *mid, ptrdiff_t s1,
                        const T *end, ptrdiff_t s2, const T *target, ptrdiff_t s3,
                        const T *pole, ptrdiff_t s4, const T *mid_axis, ptrdiff_t s5,
                        const T *weight, ptrdiff_t s6, const T *soften, ptrdiff_t s7,
                        const T *twist, ptrdiff_t s8, T *restrict out_start, ptrdiff_t s9,
                        T *restrict out_mid, ptrdiff_t s10, T *restrict reached, ptrdiff_t s11)
{
    for (size_t i = 0; i < n; i++)
        FN(two_bone)(start + i * s0, mid + i * s1, end + i * s2, target + i * s3, pole + i * s4,
                     mid_axis + i * s5, weight[i * s6], soften[i * s7], twist[i * s8],
                     out_start + i * s9, out_mid + i * s10, reached + i * s11);
}

/* ozz ComputeOffsettedForward: the point of the ray offset + s forward on the sphere of radius
   |target|; 0 when the offset lies outside it */
static int FN(offset_forward)(const T *fwd, const T *off, const T *target, T *o)
{
    T aol = FN(dot3)(fwd, off), acl2 = FN(dot3)(off, off) - aol * aol;
    T r2 = FN(dot3)(target, target);
    if (acl2 > r2)
        return 0;
    T ail = SQRT(r2 - acl2);
    for (int e = 0; e < 3; e++)
        o[e] = off[e] + fwd[e] * (ail - aol);
    return 1;
}

static void FN(aim)(const T *joint, const T *target, const T *forward, const T *up,
                    const T *offset, const T *pole, T twist, T weight, T *q, T *reached)
{
    T inv[16], jt[3], fwd[3], of[3];
    T fn = SQRT(FN(dot3)(forward, forward));
    for (int e = 0; e < 3; e++)
        fwd[e] = fn > 0 ? forward[e] / fn : 0;
    FN(invert_or_zero)(joint, inv);
    FN(xform_point)(inv, target, jt);
    T jt2 = FN(dot3)(jt, jt);
    int lreached = FN(offset_forward)(fwd, offset, jt, of);
    *reached = (T)lreached;
    if (!lreached || jt2 == 0) {
        FN(qset)(q, 0, 0, 0, 1);
        return;
    }
    T j2t[4], cup[3], pole_js[3], ref_n[3], jn[3], axis[3], rp[4], tw[4], tmp[4];
    FN(qfrom_vectors)(of, jt, j2t);
    FN(qrot)(j2t, up, cup);
    FN(xform_vector)(inv, pole, pole_js);
    FN(cross3)(pole_js, jt, ref_n);
    FN(cross3)(cup, jt, jn);
    T rn2 = FN(dot3)(ref_n, ref_n), jn2 = FN(dot3)(jn, jn), jl = SQRT(jt2);
    for (int e = 0; e < 3; e++)
        axis[e] = jt[e] / jl;
    FN(qset)(rp, 0, 0, 0, 1);
    if (rn2 != 0 && jn2 != 0) {
        T c = FN(clamp1)(FN(dot3)(jn, ref_n) / SQRT(jn2 * rn2));
        T flip = FN(dot3)(ref_n, cup) < 0 ? (T)-1 : (T)1, fa[3];
        for (int e = 0; e < 3; e++)
            fa[e] = flip * axis[e];
        FN(qaxis_cos)(fa, c, rp);
    }
    FN(qmul)(rp, j2t, q);
    if (twist != 0) {
        FN(qaxis_angle)(axis, twist, tw);
        FN(qmul)(tw, q, tmp);
        for (int e = 0; e < 4; e++)
            q[e] = tmp[e];
    }
    FN(weigh)(q, weight, weight >= 1, q);
}

void FN(sk_ik_aim)(size_t n, const T *joint, ptrdiff_t s0, const T *target, ptrdiff_t s1,
                   const T *forward, ptrdiff_t s2, const T *up, ptrdiff_t s3, const T *offset,
                   ptrdiff_t s4, const T *pole, ptrdiff_t s5, const T *twist, ptrdiff_t s6,
                   const T *weight, ptrdiff_t s7, T *restrict out, ptrdiff_t s8,
                   T *restrict reached, ptrdiff_t s9)
{
    for (size_t i = 0; i < n; i++)
        FN(aim)(joint + i * s0, target + i * s1, forward + i * s2, up + i * s3, offset + i * s4,
                pole + i * s5, twist[i * s6], weight[i * s7], out + i * s8, reached + i * s9);
}
