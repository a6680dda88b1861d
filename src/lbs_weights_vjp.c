/* lbs_weights_vjp.c -- vector-Jacobian product of linear blend skinning with respect to the
 * weights: v'_i = sum_k w_ik M_{j_ik} [v_i; 1], so for the cotangent g_i of v'_i
 *   g_w_ik = g_i . (M_{j_ik} [v_i; 1])   (rows 0..2; 0 for a slot with joint -1).
 * Items are vertices, as in lbs.c (an sk_skin_vjp_job, its g_weights the result: one per
 * item; the caller sums over the poses). */
#include "real.h"
#include "lbs_joints.h"

/* vertex x of a job into o (its g_weights): SK_OK, or SK_ERR_JOINT_INDEX with *job->bad set.  o
 * is a restrict parameter (GCC honours restrict there, not on a job's fields), and the offset
 * of the vertex's slots is computed once (x * joints_stride + k in the slot loop: 15% slower) */
static inline int FN(weights_vjp_vertex)(const FN(sk_skin_vjp_job) *job, size_t x,
                                         T *restrict o)
{
    size_t K = job->K, J = job->J, at = x * (size_t)job->joints_stride;
    const T *p = job->verts + x * job->verts_stride, *ga = job->g + x * job->g_stride;
    const T *m = job->mats + x * job->mats_stride;
    for (size_t k = 0; k < K; k++) {
        int64_t j = FN(joint_at)(job->joints, job->itype, at + k);
        if (j == -1) {
            o[k] = 0;
            continue;
        }
        if (j < -1 || j >= (int64_t)J) {
            *job->bad = x * K + k;
            return SK_ERR_JOINT_INDEX;
        }
        const T *mj = m + 16 * (size_t)j;
        T s = 0;
        for (int r = 0; r < 3; r++)
            s += ga[r] * (mj[4 * r] * p[0] + mj[4 * r + 1] * p[1] + mj[4 * r + 2] * p[2] +
                          mj[4 * r + 3]);
        o[k] = s;
    }
    return SK_OK;
}

int FN(sk_linear_blend_skinning_weights_vjp)(const FN(sk_skin_vjp_job) *job)
{
    for (size_t x = 0; x < job->n; x++) {
        int st = FN(weights_vjp_vertex)(job, x, job->g_weights + x * job->g_weights_stride);
        if (st != SK_OK)
            return st;
    }
    return SK_OK;
}
