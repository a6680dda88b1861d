/* lbs_avx2.c -- one float32 pose of linear blend skinning with AVX2/FMA (compiled with
 * -mavx2 -mfma, called only when cpu.c finds both).  Per vertex: the blended 3x4 rows are one
 * 8-lane and one 4-lane accumulator (one FMA pair per influence), applied to (x, y, z, 1) with
 * horizontal adds.  Every vertex but the last of the range loads and stores 4 floats at 3x
 * (the 4th lane belongs to the next vertex of the same range and is rewritten by it). */
#include <immintrin.h>

#define SK_DOUBLE 0
#include "real.h"
#include "lbs_normal.h"
#include "simd.h"

#define SK_LBS_AVX2(NAME, JT)                                                                  \
    static int NAME(size_t V, size_t K, size_t J, const float *restrict v, const JT *joints,  \
                    const float *restrict w, const float *restrict m,                         \
                    const float *restrict nv, float *restrict op, float *restrict on,         \
                    size_t *bad)                                                              \
    {                                                                                         \
        for (size_t x = 0; x < V; x++) {                                                      \
            __m256 r01 = _mm256_setzero_ps();                                                 \
            __m128 r2 = _mm_setzero_ps();                                                     \
            for (size_t k = 0; k < K; k++) {                                                  \
                size_t j = (size_t)joints[x * K + k];                                         \
                if (j >= J) {                                                                 \
                    if ((JT)-1 < 0 && j == (size_t)-1)                                        \
                        continue;                                                             \
                    *bad = x * K + k;                                                         \
                    return SK_ERR_JOINT_INDEX;                                                \
                }                                                                             \
                __m256 wk = _mm256_broadcast_ss(w + x * K + k);                               \
                r01 = _mm256_fmadd_ps(wk, _mm256_loadu_ps(m + 16 * j), r01);                  \
                r2 = _mm_fmadd_ps(_mm256_castps256_ps128(wk), _mm_loadu_ps(m + 16 * j + 8), r2); \
            }                                                                                 \
            const float *p = v + 3 * x;                                                       \
            int last = x + 1 == V;                                                            \
            __m128 p4 = last ? _mm_set_ps(1.f, p[2], p[1], p[0])                              \
                             : _mm_blend_ps(_mm_loadu_ps(p), _mm_set1_ps(1.f), 8);            \
            __m256 t01 = _mm256_mul_ps(r01, _mm256_set_m128(p4, p4));                         \
            __m128 h01 = _mm_hadd_ps(_mm256_castps256_ps128(t01), _mm256_extractf128_ps(t01, 1)); \
            __m128 t2 = _mm_mul_ps(r2, p4);                                                   \
            __m128 s = _mm_hadd_ps(h01, _mm_hadd_ps(t2, t2));                                 \
            if (last) {                                                                       \
                float q[4];                                                                   \
                _mm_storeu_ps(q, s);                                                          \
                op[3 * x] = q[0]; op[3 * x + 1] = q[1]; op[3 * x + 2] = q[2];                 \
            } else {                                                                          \
                _mm_storeu_ps(op + 3 * x, s);                                                 \
            }                                                                                 \
            if (on) {                                                                         \
                float a[12];                                                                  \
                _mm256_storeu_ps(a, r01);                                                     \
                _mm_storeu_ps(a + 8, r2);                                                     \
                skin_normal_f(a, nv + 3 * x, on + 3 * x);                                     \
            }                                                                                 \
        }                                                                                     \
        return SK_OK;                                                                         \
    }
SK_LBS_AVX2(lbs_u8, uint8_t)
SK_LBS_AVX2(lbs_u16, uint16_t)
SK_LBS_AVX2(lbs_i32, int32_t)

int sk_lbs_pose_avx2(size_t V, size_t K, size_t J, const float *v, const void *joints, int itype,
                     const float *weights, const float *m, const float *nv, float *op, float *on,
                     size_t *bad)
{
    if (itype == SK_U8)
        return lbs_u8(V, K, J, v, joints, weights, m, nv, op, on, bad);
    if (itype == SK_U16)
        return lbs_u16(V, K, J, v, joints, weights, m, nv, op, on, bad);
    return lbs_i32(V, K, J, v, joints, weights, m, nv, op, on, bad);
}
