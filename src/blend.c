/* blend.c -- pose blending: weighted layers (ozz-animation's BlendingJob), the difference of two
 * poses and an additive layer (three.js's additive convention for rotation and translation,
 * ozz-animation's for scale).  A pose is local rotations (x, y, z, w), translations and scales
 * (sk_pose, skinkit_jobs.h).  The body is compiled twice, for float and double (see real.h). */
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

/* Each kernel runs an item function over the job's items, the item's outputs passed as restrict
 * parameters (GCC honours restrict there, not on a job's fields: without it blending was 8%
 * slower): SK_POSE_OUT, the arrays of item i of an sk_pose_out. */
#define SK_POSE_OUT(o, i)                                                                    \
    (o).rot + (i) * (o).rot_stride, (o).trans + (i) * (o).trans_stride,                      \
        (o).scale + (i) * (o).scale_stride

/* pose i of a blend job */
static inline void FN(blend_pose)(const FN(sk_blend_job) *b, size_t i, T *restrict o_r,
                                  T *restrict o_t, T *restrict o_s)
{
    size_t L = b->L, J = b->J;
    const FN(sk_pose) *y = &b->layers, *rest = &b->rest;
    const T *r = y->rot + i * y->rot_stride, *t = y->trans + i * y->trans_stride;
    const T *s = y->scale + i * y->scale_stride, *w = b->weights + i * b->weights_stride;
    T limit = b->threshold[i * b->threshold_stride];
    for (size_t j = 0; j < J; j++) {
        T ar[4] = {0, 0, 0, 0}, at[3] = {0, 0, 0}, as[3] = {0, 0, 0}, total = 0;
        const T *pivot = NULL;
        for (size_t l = 0; l < L; l++) {
            T wl = w[l * J + j];
            if (wl <= 0) /* as ozz: a layer of weight <= 0 is skipped (NaN is not) */
                continue;
            size_t at_lj = l * J + j;
            FN(accumulate)(wl, r + 4 * at_lj, t + 3 * at_lj, s + 3 * at_lj, &pivot, ar, at, as);
            total += wl;
        }
        if (rest->rot && total < limit) { /* the rest pose fills up to the threshold */
            FN(accumulate)(limit - total, rest->rot + i * rest->rot_stride + 4 * j,
                           rest->trans + i * rest->trans_stride + 3 * j,
                           rest->scale + i * rest->scale_stride + 3 * j, &pivot, ar, at, as);
            total = limit;
        }
        FN(unit_or_identity)(ar, o_r + 4 * j);
        for (int c = 0; c < 3; c++) {
            o_t[3 * j + c] = total == 0 ? 0 : at[c] / total;
            o_s[3 * j + c] = total == 0 ? 1 : as[c] / total;
        }
    }
}

void FN(sk_blend_poses)(const FN(sk_blend_job) *b)
{
    for (size_t i = 0; i < b->n; i++)
        FN(blend_pose)(b, i, SK_POSE_OUT(b->out, i));
}

/* joint i of a pose delta job */
static inline void FN(delta_joint)(const FN(sk_pose_delta_job) *d, size_t i, T *restrict o_r,
                                   T *restrict o_t, T *restrict o_s)
{
    const FN(sk_pose) *f = &d->ref, *p = &d->pose;
    const T *t0 = f->trans + i * f->trans_stride, *c0 = f->scale + i * f->scale_stride;
    const T *t1 = p->trans + i * p->trans_stride, *c1 = p->scale + i * p->scale_stride;
    T u[4], inv[4];
    FN(unit_or_identity)(f->rot + i * f->rot_stride, u);
    inv[0] = -u[0]; inv[1] = -u[1]; inv[2] = -u[2]; inv[3] = u[3];
    FN(qmul)(inv, p->rot + i * p->rot_stride, o_r);
    for (int c = 0; c < 3; c++) {
        o_t[c] = t1[c] - t0[c];
        o_s[c] = c1[c] / c0[c];
    }
}

void FN(sk_pose_delta)(const FN(sk_pose_delta_job) *d)
{
    for (size_t i = 0; i < d->n; i++)
        FN(delta_joint)(d, i, SK_POSE_OUT(d->out, i));
}

/* joint i of an additive job */
static inline void FN(additive_joint)(const FN(sk_additive_job) *a, size_t i, T *restrict o_r,
                                      T *restrict o_t, T *restrict o_s)
{
    static const T identity[4] = {0, 0, 0, 1};
    const FN(sk_pose) *b = &a->base, *d = &a->delta;
    const T *t = b->trans + i * b->trans_stride, *s = b->scale + i * b->scale_stride;
    const T *dt = d->trans + i * d->trans_stride, *ds = d->scale + i * d->scale_stride;
    T w = a->weight[i * a->weight_stride], part[4];
    FN(qslerp)(identity, d->rot + i * d->rot_stride, w, part);
    FN(qmul)(b->rot + i * b->rot_stride, part, o_r);
    for (int c = 0; c < 3; c++) {
        o_t[c] = t[c] + w * dt[c];
        o_s[c] = s[c] * (1 + w * (ds[c] - 1));
    }
}

void FN(sk_additive_pose)(const FN(sk_additive_job) *a)
{
    for (size_t i = 0; i < a->n; i++)
        FN(additive_joint)(a, i, SK_POSE_OUT(a->out, i));
}
