/* simd.h -- internal: the SIMD variants and their run-time choice (cpu.c). */
#ifndef SK_SIMD_H
#define SK_SIMD_H
#include "skinkit.h"

#if defined(SK_HAVE_AVX2)
/* lbs_avx2.c / lbs_avx512.c: one float32 pose of linear blend skinning, J <= SK_AVX2_MAX_JOINTS
   (its transposed matrices live on the stack: 16 KiB) */
#define SK_AVX2_MAX_JOINTS 256
int sk_lbs_pose_avx2(size_t V, size_t K, size_t J, const float *v, const void *joints, int itype,
                     const float *weights, const float *m, const float *nv, float *op, float *on,
                     size_t *bad);
#endif
#if defined(SK_HAVE_AVX512)
int sk_lbs_pose_avx512(size_t V, size_t K, size_t J, const float *v, const void *joints,
                       int itype, const float *weights, const float *m, const float *nv,
                       float *op, float *on, size_t *bad);
#endif
#endif
