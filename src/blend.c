/* blend.c -- pose blending: weighted layers (ozz-animation's BlendingJob), the difference of two
 * poses and an additive layer (three.js's additive convention for rotation and translation,
 * ozz-animation's for scale).  A pose is local rotations (x, y, z, w), translations and scales.
 * The body is compiled twice, for float and double (see real.h). */
#include "real.h"
#include "qmath.h"

/* o = acc / |acc|, the identity for a zero sum (NaN propagates) */
static inline void FN(unit_or_identity)(const T *acc, T *o)
{
    T len = SQRT(acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2] + acc[3] * acc[3]);
    if (len == 0) {
        o[0] = o[1] = o[2] = 0;
        o[3] = 1;
        return;
    }
    for (int c = 0; c < 4; c++)
        o[c] = acc[c] / len;
}

/* adds w (r, t, s) to the sums, r put in the hemisphere of *pivot (set by the first call) */
static inline void FN(accumulate)(T w, const T *r, const T *t, const T *s, const T **pivot,
                                  T *ar, T *at, T *as)
{
    if (!*pivot)
        *pivot = r;
    const T *p = *pivot;
    T wr = p[0] * r[0] + p[1] * r[1] + p[2] * r[2] + p[3] * r[3] < 0 ? -w : w;
    for (int c = 0; c < 4; c++)
        ar[c] += wr * r[c];
    for (int c = 0; c < 3; c++) {
        at[c] += w * t[c];
        as[c] += w * s[c];
    }
}

void FN(sk_blend_poses)(size_t n, size_t L, size_t J, const T *rot, ptrdiff_t sr,
                        const T *trans, ptrdiff_t st, const T *scale, ptrdiff_t ss,
                        const T *weights, ptrdiff_t sw, const T *threshold, ptrdiff_t sth,
                        const T *rest_rot, ptrdiff_t srr, const T *rest_trans, ptrdiff_t srt,
                        const T *rest_scale, ptrdiff_t srs, T *restrict out_rot, ptrdiff_t sor,
                        T *restrict out_trans, ptrdiff_t sot, T *restrict out_scale,
                        ptrdiff_t sos)
{
    for (size_t i = 0; i < n; i++) {
        const T *r = rot + i * sr, *t = trans + i * st, *s = scale + i * ss, *w = weights + i * sw;
        T *o_r = out_rot + i * sor, *o_t = out_trans + i * sot, *o_s = out_scale + i * sos;
        T limit = threshold[i * sth];
        for (size_t j = 0; j < J; j++) {
            T ar[4] = {0, 0, 0, 0}, at[3] = {0, 0, 0}, as[3] = {0, 0, 0}, total = 0;
            const T *pivot = NULL;
            for (size_t l = 0; l < L; l++) {
                T wl = w[l * J + j];
                if (wl <= 0) /* as ozz: a layer of weight <= 0 is skipped (NaN is not) */
                    continue;
                size_t at_lj = l * J + j;
                FN(accumulate)(wl, r + 4 * at_lj, t + 3 * at_lj, s + 3 * at_lj, &pivot, ar, at,
                               as);
                total += wl;
            }
            if (rest_rot && total < limit) { /* the rest pose fills up to the threshold */
                FN(accumulate)(limit - total, rest_rot + i * srr + 4 * j,
                               rest_trans + i * srt + 3 * j, rest_scale + i * srs + 3 * j,
                               &pivot, ar, at, as);
                total = limit;
            }
            FN(unit_or_identity)(ar, o_r + 4 * j);
            for (int c = 0; c < 3; c++) {
                o_t[3 * j + c] = total == 0 ? 0 : at[c] / total;
                o_s[3 * j + c] = total == 0 ? 1 : as[c] / total;
            }
        }
    }
}

void FN(sk_pose_delta)(size_t n, const T *ref_rot, ptrdiff_t s0, const T *ref_trans,
                       ptrdiff_t s1, const T *ref_scale, ptrdiff_t s2, const T *rot, ptrdiff_t s3,
                       const T *trans, ptrdiff_t s4, const T *scale, ptrdiff_t s5,
                       T *restrict out_rot, ptrdiff_t s6, T *restrict out_trans, ptrdiff_t s7,
                       T *restrict out_scale, ptrdiff_t s8)
{
    for (size_t i = 0; i < n; i++) {
        const T *q = ref_rot + i * s0, *t0 = ref_trans + i * s1, *c0 = ref_scale + i * s2;
        const T *t1 = trans + i * s4, *c1 = scale + i * s5;
        T u[4], inv[4];
        FN(unit_or_identity)(q, u);
        inv[0] = -u[0]; inv[1] = -u[1]; inv[2] = -u[2]; inv[3] = u[3];
        FN(qmul)(inv, rot + i * s3, out_rot + i * s6);
        for (int c = 0; c < 3; c++) {
            out_trans[i * s7 + c] = t1[c] - t0[c];
            out_scale[i * s8 + c] = c1[c] / c0[c];
        }
    }
}

void FN(sk_additive_pose)(size_t n, const T *base_rot, ptrdiff_t s0, const T *base_trans,
                          ptrdiff_t s1, const T *base_scale, ptrdiff_t s2, const T *delta_rot,
                          ptrdiff_t s3, const T *delta_trans, ptrdiff_t s4,
                          const T *delta_scale, ptrdiff_t s5, const T *weight, ptrdiff_t sw,
                          T *restrict out_rot, ptrdiff_t s6, T *restrict out_trans, ptrdiff_t s7,
                          T *restrict out_scale, ptrdiff_t s8)
{
    static const T identity[4] = {0, 0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        const T *t = base_trans + i * s1, *s = base_scale + i * s2;
        const T *dt = delta_trans + i * s4, *ds = delta_scale + i * s5;
        T w = weight[i * sw], part[4];
        FN(qslerp)(identity, delta_rot + i * s3, w, part);
        FN(qmul)(base_rot + i * s0, part, out_rot + i * s6);
        for (int c = 0; c < 3; c++) {
            out_trans[i * s7 + c] = t[c] + w * dt[c];
            out_scale[i * s8 + c] = s[c] * (1 + w * (ds[c] - 1));
        }
    }
}
