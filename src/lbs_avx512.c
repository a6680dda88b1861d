/* lbs_avx512.c -- one float32 pose of linear blend skinning with AVX-512 (F, VL, DQ, BW;
 * compiled with those flags, called only when cpu.c finds them, for up to SK_AVX2_MAX_JOINTS
 * joints).  A vertex's blended matrix, its four columns of 4, is one 16-lane register: one FMA per
 * influence on the transposed joint matrices (lbs_simd.h).  Vertices go in groups of 4: their
 * positions are one masked load, each vertex's (x x x x y y y y z z z z 1 1 1 1) one permute,
 * the column sums of the 4 vertices one shuffle-add tree, and their 12 output floats one
 * permute and one masked store.  A group at the end of the range is padded with zeros (masked
 * loads and stores, no access past the range), and every vertex goes through the same
 * instructions wherever its group starts, so the result does not depend on how a call is split.
 * Normals as in lbs_avx2.c: 8 vertices at a time, one vertex per lane. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lbs_simd.h"

/* the column sums of r[0..3] (lanes c0 x | c1 y | c2 z | c3) as 4 vertices' (x, y, z, .) */
static inline __m512 sum_columns4(const __m512 r[4])
{
    __m512 s01 = _mm512_add_ps(_mm512_shuffle_f32x4(r[0], r[1], _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm512_shuffle_f32x4(r[0], r[1], _MM_SHUFFLE(3, 1, 3, 1)));
    __m512 s23 = _mm512_add_ps(_mm512_shuffle_f32x4(r[2], r[3], _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm512_shuffle_f32x4(r[2], r[3], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(s01, s23, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(s01, s23, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* whether the n joint indices at j are all below J (as unsigned: -1 is not), a register of
 * LANES at a time (the last one masked) */
#define SK_IN_RANGE(NAME, JT, LANES, MASK, LOADZ, CMPGE, SET1)                                 \
    static inline int NAME(const JT *j, size_t n, size_t J)                                   \
    {                                                                                         \
        if (J > (JT)-1)                                                                       \
            return 1;                                                                         \
        const __m512i lim = SET1((JT)J);                                                      \
        MASK any = 0, all = (MASK)~(MASK)0;                                                   \
        size_t i = 0;                                                                         \
        for (; i + LANES <= n; i += LANES)                                                    \
            any |= CMPGE(all, _mm512_loadu_si512(j + i), lim);                                \
        if (i < n) {                                                                          \
            MASK m = (MASK)((((MASK)1) << (n - i)) - 1);                                      \
            any |= CMPGE(m, LOADZ(m, j + i), lim);                                            \
        }                                                                                     \
        return !any;                                                                          \
    }
SK_IN_RANGE(in_range_u8, uint8_t, 64, __mmask64, _mm512_maskz_loadu_epi8,
            _mm512_mask_cmpge_epu8_mask, _mm512_set1_epi8)
SK_IN_RANGE(in_range_u16, uint16_t, 32, __mmask32, _mm512_maskz_loadu_epi16,
            _mm512_mask_cmpge_epu16_mask, _mm512_set1_epi16)
SK_IN_RANGE(in_range_i32, int32_t, 16, __mmask16, _mm512_maskz_loadu_epi32,
            _mm512_mask_cmpge_epu32_mask, _mm512_set1_epi32)

#define SK_LBS_AVX512(NAME, JT, IN_RANGE)                                                              \
    /* the blended matrix of vertex x; `checked` when some index of its group may lie outside \
       0..J-1 (-1: no influence; sk_check_joints refuses the others before a call) */        \
    static inline __attribute__((always_inline)) __m512 NAME##_blend(                         \
        size_t x, size_t K, size_t J, const JT *joints, const float *restrict w,              \
        const float *restrict mt, int checked)                                                \
    {                                                                                         \
        __m512 acc = _mm512_setzero_ps();                                                     \
        for (size_t k = 0; k < K; k++) {                                                      \
            size_t j = (size_t)joints[x * K + k];                                             \
            if (checked && j >= J)                                                            \
                continue;                                                                     \
            acc = _mm512_fmadd_ps(_mm512_set1_ps(w[x * K + k]), _mm512_loadu_ps(mt + 16 * j), \
                                  acc);                                                       \
        }                                                                                     \
        return acc;                                                                           \
    }                                                                                         \
    /* the vertices x0 .. x0+cnt-1 (cnt <= 4), padded with zeros to a group of 4 */          \
    static inline __attribute__((always_inline)) void NAME##_group(                           \
        size_t x0, size_t cnt, size_t V, size_t K, size_t J, const float *restrict v,         \
        const JT *joints, const float *restrict w, const float *restrict mt,                  \
        const float *restrict nv, float *restrict op, float *restrict on, __m256 *st)         \
    {                                                                                         \
        __mmask16 m3 = (__mmask16)((1u << (3 * cnt)) - 1);                                    \
        __m512 P = _mm512_mask_blend_ps(0xF000, _mm512_maskz_loadu_ps(m3, v + 3 * x0),        \
                                        _mm512_set1_ps(1.f)), r[4];                           \
        int checked = !IN_RANGE(joints + x0 * K, cnt * K, J);                          \
        _Pragma("GCC unroll 4") for (size_t l = 0; l < 4; l++)                                \
        {                                                                                     \
            size_t x = x0 + l;                                                                \
            __m512 acc;                                                                       \
            r[l] = _mm512_setzero_ps();                                                       \
            if (l >= cnt)                                                                     \
                continue;                                                                     \
            acc = checked ? NAME##_blend(x, K, J, joints, w, mt, 1)                           \
                          : NAME##_blend(x, K, J, joints, w, mt, 0);                          \
            __m512i spread = _mm512_setr_epi32(3 * l, 3 * l, 3 * l, 3 * l, 3 * l + 1,         \
                                               3 * l + 1, 3 * l + 1, 3 * l + 1, 3 * l + 2,    \
                                               3 * l + 2, 3 * l + 2, 3 * l + 2, 12, 12, 12, 12); \
            r[l] = _mm512_mul_ps(acc, _mm512_permutexvar_ps(spread, P));                      \
            if (on) {                                                                         \
                const float *n = nv + 3 * x;                                                  \
                size_t l8 = x % 8;                                                            \
                st[l8] = _mm512_castps512_ps256(acc);                                         \
                st[8 + l8] = _mm256_insertf128_ps(_mm512_extractf32x8_ps(acc, 1),             \
                                                  _mm_set_ps(0.f, n[2], n[1], n[0]), 1);      \
                if (l8 == 7 || x + 1 == V)                                                    \
                    flush_normals(st, l8 + 1, on + 3 * (x - l8));                             \
            }                                                                                 \
        }                                                                                     \
        const __m512i pick = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0,  \
                                               0, 0);                                         \
        _mm512_mask_storeu_ps(op + 3 * x0, m3, _mm512_permutexvar_ps(pick, sum_columns4(r))); \
    }                                                                                         \
    static inline __attribute__((always_inline)) void NAME##_body(                            \
        size_t V, size_t K, size_t J, const float *restrict v, const JT *joints,              \
        const float *restrict w, const float *restrict mt, const float *restrict nv,          \
        float *restrict op, float *restrict on)                                               \
    {                                                                                         \
        __m256 st[16];                                                                        \
        size_t x0 = 0;                                                                        \
        for (; x0 + 4 <= V; x0 += 4)                                                          \
            NAME##_group(x0, 4, V, K, J, v, joints, w, mt, nv, op, on, st);                   \
        if (x0 < V)                                                                           \
            NAME##_group(x0, V - x0, V, K, J, v, joints, w, mt, nv, op, on, st);              \
    }                                                                                         \
    SK_LBS_K4(NAME, JT)
SK_LBS_AVX512(lbs_u8, uint8_t, in_range_u8)
SK_LBS_AVX512(lbs_u16, uint16_t, in_range_u16)
SK_LBS_AVX512(lbs_i32, int32_t, in_range_i32)

SK_LBS_POSE(sk_lbs_pose_avx512)

int sk_joints_in_range_avx512(size_t n, const void *joints, int itype, size_t J)
{
    return itype == SK_U8    ? in_range_u8(joints, n, J)
           : itype == SK_U16 ? in_range_u16(joints, n, J)
                             : in_range_i32(joints, n, J);
}
