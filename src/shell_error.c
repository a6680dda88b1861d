/* shell_error.c -- forward kinematics of some joints (a mask) and the object-space error of the
 * result against reference world matrices, on virtual vertices at a shell distance (ACL's
 * qvvf_transform_error_metric; N. Frechette, "Animation Compression: Measuring Accuracy",
 * 2016): the check of a candidate pose that skinkit.model.compress runs on a joint's subtree
 * alone, in place, with the world matrices of the other joints kept.  Items are independent
 * (one pose each), so the bits do not depend on how a batch is split between threads. */
#include "real.h"
#include "qmath.h"
#include "simd.h"

/* the largest distance between the images of the vertices shell e_x, shell e_y, shell e_z of
 * a joint under the world matrices a and b (rows 0..2); NaN if one is (an overflowed decode
 * fails every check) */
static T FN(vertex_error)(const T *a, const T *b, T shell)
{
    T d[12], worst = 0;
    for (int e = 0; e < 12; e++)
        d[e] = a[e] - b[e];
    for (int c = 0; c < 3; c++) {
        T x = shell * d[c] + d[3], y = shell * d[4 + c] + d[7], z = shell * d[8 + c] + d[11];
        T len = SQRT(x * x + y * y + z * z);
        worst = len > worst || len != len ? len : worst;
    }
    return worst;
}

/* pose i of the job (its index in the arrays): FK of the masked joints and their errors; the
 * largest of them, NaN if one is */
static T FN(shell_pose)(const FN(sk_shell_fk_job) *job, size_t i)
{
    static const T one[3] = {1, 1, 1};
    const T *q = job->rot + i * job->rot_stride, *t = job->trans + i * job->trans_stride;
    const T *s = job->scale ? job->scale + i * job->scale_stride : NULL;
    const T *ref = job->reference + i * job->reference_stride;
    T shell = job->shell[i * job->shell_stride], worst = 0;
    T *w = job->world + i * job->world_stride, *err = job->error + i * job->error_stride;
    for (size_t k = 0; k < job->J; k++) {
        size_t j = (size_t)job->order[k];
        int32_t p = job->parents[j];
        if (job->mask && job->mask[j] == 0) {
            err[j] = 0;
            continue;
        }
        FN(trs_world)(p < 0 ? NULL : w + 16 * (size_t)p, q + 4 * j, t + 3 * j,
                      s ? s + 3 * j : one, w + 16 * j);
        err[j] = FN(vertex_error)(w + 16 * j, ref + 16 * j, shell);
        worst = err[j] > worst || err[j] != err[j] ? err[j] : worst;
    }
    return worst;
}

size_t FN(sk_shell_check)(const FN(sk_shell_fk_job) *job, int *above)
{
    size_t i = 0;
    *above = 0;
#if SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (sk_simd() >= SK_SIMD_AVX2) { /* four poses at a time, the same bits (shell_error_avx2.c) */
        i = sk_shell_error_fk4_avx2(job, above);
        if (*above)
            return i;
    }
#endif
    for (; i < job->n; i++) {
        T worst = FN(shell_pose)(job, job->poses ? (size_t)job->poses[i] : i);
        if (job->limit > 0 && !(worst <= job->limit)) {
            *above = 1;
            return i + 1;
        }
    }
    return job->n;
}

void FN(sk_shell_error_fk)(const FN(sk_shell_fk_job) *job)
{
    int above;
    FN(sk_shell_check)(job, &above);
}

void FN(sk_subtree_reach)(size_t n, size_t J, const int32_t *parents, const int64_t *size,
                          const T *world, T shell, T *SK_RESTRICT reach,
                          T *SK_RESTRICT parent_scale)
{
    for (size_t t = 0; t < n; t++) {
        const T *w = world + t * J * 16;
        T *r = reach + t * J, *ps = parent_scale + t * J;
        for (size_t j = 0; j < J; j++) {     /* each joint's largest axis scale, in ps first */
            const T *m = w + 16 * j;
            T top = 0;
            for (int c = 0; c < 3; c++) {
                T a = SQRT((m[c] * m[c] + m[4 + c] * m[4 + c]) + m[8 + c] * m[8 + c]);
                top = c == 0 || a > top || a != a ? a : top;          /* NaN kept, as np.max */
            }
            ps[j] = top;
        }
        for (size_t j = 0; j < J; j++) {     /* the subtree of j: joints j .. j + size - 1 */
            const T *o = w + 16 * j;
            T top = 0;
            for (size_t i = j; i < j + (size_t)size[j]; i++) {
                const T *p = w + 16 * i;
                T dx = p[3] - o[3], dy = p[7] - o[7], dz = p[11] - o[11];
                T v = SQRT((dx * dx + dy * dy) + dz * dz) + shell * ps[i];
                top = i == j || v > top || v != v ? v : top;
            }
            r[j] = top;
        }
        for (size_t j = J; j-- > 0;)         /* parents come first: theirs not yet replaced */
            ps[j] = parents[j] >= 0 ? ps[parents[j]] : 1;
    }
}
