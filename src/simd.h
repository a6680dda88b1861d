/* simd.h -- internal: the SIMD variants and their run-time choice (cpu.c). */
#ifndef SK_SIMD_H
#define SK_SIMD_H
#include "skinkit.h"

#if defined(SK_HAVE_AVX2)
/* lbs_avx2.c: one float32 pose of linear blend skinning with AVX2/FMA, J <= SK_AVX2_MAX_JOINTS
   (its transposed matrices live on the stack: 16 KiB) */
#define SK_AVX2_MAX_JOINTS 256
int sk_lbs_pose_avx2(size_t V, size_t K, size_t J, const float *v, const void *joints, int itype,
                     const float *weights, const float *m, const float *nv, float *op, float *on,
                     size_t *bad);
/* dqs_avx2.c: one float32 pose of dual quaternion skinning with AVX2/FMA, packed vertices,
   every joint record rigid (dqs.c checks) */
int sk_dqs_pose_avx2(size_t V, size_t K, size_t J, const float *v, const void *joints, int itype,
                     const float *weights, const float *rec, const float *nv, float *op,
                     float *on, size_t *bad);
/* lbs_vjp_avx2.c: the float32 linear blend skinning VJP (sk_linear_blend_skinning_vjp_f's
   arguments) compiled with AVX2/FMA */
int sk_lbs_vjp_avx2(size_t n, size_t K, size_t J, const float *verts, ptrdiff_t sv,
                    const void *joints, ptrdiff_t sj, int itype, const float *weights,
                    ptrdiff_t sw, const float *mats, ptrdiff_t sm, const float *g, ptrdiff_t sg,
                    float *g_verts, ptrdiff_t sov, float *g_mats, ptrdiff_t som, size_t *bad);
#endif
#endif
