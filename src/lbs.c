/* lbs.c -- linear blend skinning: v' = sum_k w_k M_{j_k} v, normals by the cofactor matrix.
 * float32 poses run the AVX-512 (lbs_avx512.c) or AVX2/FMA (lbs_avx2.c) variant when the CPU
 * has it (cpu.c). */
#include "simd.h"
#include "real.h"
#include "lbs_joints.h"
#include "lbs_normal.h"

/* portable C, any strides */
static int FN(lbs_items)(size_t n, size_t K, size_t J, const T *v, ptrdiff_t sv,
                         const void *joints, ptrdiff_t sj, int itype, const T *weights,
                         ptrdiff_t sw, const T *mats, ptrdiff_t sm, const T *nv, ptrdiff_t sn,
                         T *restrict op, ptrdiff_t sp, T *restrict on, ptrdiff_t so, size_t *bad)
{
    for (size_t x = 0; x < n; x++) {
        const T *m = mats + x * sm, *w = weights + x * sw, *p = v + x * sv;
        T a[12] = {0};
        for (size_t k = 0; k < K; k++) {
            int64_t j = FN(joint_at)(joints, itype, x * sj + k);
            if (j < 0 || (size_t)j >= J) {
                if (j == -1 || !bad) /* no influence, or checked by the caller already */
                    continue;
                *bad = x * K + k;
                return SK_ERR_JOINT_INDEX;
            }
            const T *mj = m + 16 * (size_t)j;
            for (int e = 0; e < 12; e++)
                a[e] += w[k] * mj[e];
        }
        T *o = op + x * sp;
        for (int r = 0; r < 3; r++)
            o[r] = a[4 * r] * p[0] + a[4 * r + 1] * p[1] + a[4 * r + 2] * p[2] + a[4 * r + 3];
        if (on)
            FN(skin_normal)(a, nv + x * sn, on + x * so);
    }
    return SK_OK;
}

int FN(sk_linear_blend_skinning)(const FN(sk_skin_job) *job)
{
    const FN(sk_skin_job) *j = job;
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    /* the SIMD variants take packed vertices of one pose */
    int level = sk_simd();
    if (level && j->J <= SK_AVX2_MAX_JOINTS && j->verts_stride == 3 && j->out_pos_stride == 3 &&
        j->transforms_stride == 0 && j->joints_stride == (ptrdiff_t)j->K &&
        j->weights_stride == (ptrdiff_t)j->K &&
        (!j->normals || (j->normals_stride == 3 && j->out_nrm_stride == 3))) {
#if defined(SK_HAVE_AVX512)
        if (level >= SK_SIMD_AVX512)
            return sk_lbs_pose_avx512(j);
#endif
        return sk_lbs_pose_avx2(j);
    }
#endif
    return FN(lbs_items)(j->n, j->K, j->J, j->verts, j->verts_stride, j->joints,
                         j->joints_stride, j->itype, j->weights, j->weights_stride,
                         j->transforms, j->transforms_stride, j->normals, j->normals_stride,
                         j->out_pos, j->out_pos_stride, j->out_nrm, j->out_nrm_stride, j->bad);
}
