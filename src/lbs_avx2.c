/* lbs_avx2.c -- one float32 pose of linear blend skinning with AVX2/FMA (compiled with
 * -mavx2 -mfma, called only when cpu.c finds both, for up to SK_AVX2_MAX_JOINTS joints).  The
 * pose's matrices are transposed once into a stack buffer; per vertex the blended columns are
 * two 8-lane accumulators (one FMA pair per influence), applied to (x, y, z, 1) with two
 * permutes, one FMA and one add.  Every vertex but the last of the range loads and stores 4 floats
 * at 3x (the 4th lane belongs to the next vertex of the same range and is rewritten by it).  With
 * normals the vertices go in blocks of 8: their blended columns staged, then transposed to one
 * vertex per lane, and positions and normals both computed there (flush_normals, lbs_simd.h),
 * the block boundaries counted from the start of the range; a partial block pads its lanes with
 * zeros, so a vertex gets the same bits whichever block it falls in, and the same position bits
 * as without normals.  The joint indices of a block of 8 are checked at once (in_range_*); a
 * block with an index outside 0..J-1 takes the per-influence checks. */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lbs_simd.h"

/* The AVX2 kernel prefetches (SK_PREFETCH_AHEAD, lbs_simd.h) from this many vertices up, a
 * block of 8 at a time.  At 1M vertices (J=64, K=4, uint16) it took 5-8% less time for
 * positions and 6-19% less with normals, at 42M vertices (out of cache) 18-20% less, at 131K
 * 1-2% less; at 20K-65K vertices it took 4-5% more with normals, so it is left out there. */
#define SK_PREFETCH_MIN 131072

/* Per vertex: the blended matrix as columns, A = (c0 | c1) and B = (c2 | c3), one FMA pair per
 * influence on the transposed joint matrices mt; then v' = c0 x + c1 y + c2 z + c3 as
 * A (x.. | y..) + B (z.. | 1..), its two halves added. */
#define SK_STEP_AVX2(pw, pm)                                                                   \
    do {                                                                                       \
        __m256 wk = _mm256_broadcast_ss(pw);                                                   \
        A = _mm256_fmadd_ps(wk, _mm256_loadu_ps(pm), A);                                       \
        B = _mm256_fmadd_ps(wk, _mm256_loadu_ps((pm) + 8), B);                                 \
    } while (0)
/* whether the n joint indices at j are all below J (as unsigned: -1 is not), 32 bytes at a time\
   (x >= J where max(x, J) == x), the rest one by one */                                      \
#define SK_IN_RANGE8(NAME, JT, SET1, MAX, CMPEQ)                                              \
    static inline int NAME(const JT *j, size_t n, size_t J)                                   \
    {                                                                                         \
        if ((JT)-1 > 0 && J > (size_t)(JT)-1) /* every value of an unsigned JT is valid */    \
            return 1;                                                                         \
        const __m256i lim = SET1((JT)J);                                                      \
        __m256i any = _mm256_setzero_si256();                                                 \
        size_t i = 0;                                                                         \
        for (; i + 32 / sizeof(JT) <= n; i += 32 / sizeof(JT)) {                              \
            __m256i x = _mm256_loadu_si256((const __m256i *)(j + i));                         \
            any = _mm256_or_si256(any, CMPEQ(MAX(x, lim), x));                                \
        }                                                                                     \
        int ok = _mm256_testz_si256(any, any);                                                \
        for (; i < n; i++)                                                                    \
            ok &= (size_t)j[i] < J;                                                           \
        return ok;                                                                            \
    }
SK_IN_RANGE8(in_range_u8, uint8_t, _mm256_set1_epi8, _mm256_max_epu8, _mm256_cmpeq_epi8)
SK_IN_RANGE8(in_range_u16, uint16_t, _mm256_set1_epi16, _mm256_max_epu16, _mm256_cmpeq_epi16)
SK_IN_RANGE8(in_range_i32, int32_t, _mm256_set1_epi32, _mm256_max_epu32, _mm256_cmpeq_epi32)

/* The blended columns A, B of vertex x: its indices unchecked when its block of 8 is in range */\
#define SK_BLEND_AVX2(JT)                                                                     \
    __m256 A = _mm256_setzero_ps(), B = _mm256_setzero_ps();                                  \
    if (checked) {                                                                            \
        SK_INFLUENCES(JT, 1, SK_STEP_AVX2)                                                    \
    } else {                                                                                  \
        SK_INFLUENCES(JT, 0, SK_STEP_AVX2)                                                    \
    }
#define SK_LBS_AVX2(NAME, JT, IN_RANGE)                                                       \
    SK_LBS_BODY(NAME, JT)                                                                     \
    {                                                                                         \
        const __m256i xy = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);                         \
        const __m256i z1 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);                         \
        __m256 st[16];                                                                        \
        for (size_t x0 = 0; x0 < V; x0 += 8) { /* blocks of 8, their indices checked at once */\
            size_t cnt = V - x0 < 8 ? V - x0 : 8;                                             \
            int checked = !IN_RANGE(joints + x0 * K, cnt * K, J);                             \
            if (V >= SK_PREFETCH_MIN && x0 + SK_PREFETCH_AHEAD + 8 <= V)                      \
                prefetch_vertices(x0 + SK_PREFETCH_AHEAD, 8, K, v, joints, sizeof *joints, w, \
                                  on ? nv : NULL, op, on);                                    \
            if (on) { /* blended columns staged, then flush_normals */                        \
                for (size_t x = x0; x < x0 + cnt; x++) {                                      \
                    SK_BLEND_AVX2(JT)                                                         \
                    st[x - x0] = A;                                                           \
                    st[8 + x - x0] = B;                                                       \
                }                                                                             \
                flush_normals(st, cnt, v + 3 * x0, nv + 3 * x0, op + 3 * x0, on + 3 * x0);    \
                continue;                                                                     \
            }                                                                                 \
            for (size_t x = x0; x < x0 + cnt; x++) {                                          \
                SK_BLEND_AVX2(JT)                                                             \
                const float *p = v + 3 * x;                                                   \
                int last = x + 1 == V;                                                        \
                __m128 p4 = last ? _mm_set_ps(1.f, p[2], p[1], p[0])                          \
                                 : _mm_blend_ps(_mm_loadu_ps(p), _mm_set1_ps(1.f), 8);        \
                __m256 pp = _mm256_set_m128(p4, p4);                                          \
                __m256 r = _mm256_fmadd_ps(A, _mm256_permutevar8x32_ps(pp, xy),               \
                                           _mm256_mul_ps(B, _mm256_permutevar8x32_ps(pp, z1)));\
                __m128 s = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));\
                if (last) {                                                                   \
                    float q[4];                                                               \
                    _mm_storeu_ps(q, s);                                                      \
                    op[3 * x] = q[0]; op[3 * x + 1] = q[1]; op[3 * x + 2] = q[2];             \
                } else {                                                                      \
                    _mm_storeu_ps(op + 3 * x, s);                                             \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        return SK_OK;                                                                         \
    }                                                                                         \
    SK_LBS_K4(NAME, JT)
SK_LBS_AVX2(lbs_u8, uint8_t, in_range_u8)
SK_LBS_AVX2(lbs_u16, uint16_t, in_range_u16)
SK_LBS_AVX2(lbs_i32, int32_t, in_range_i32)

SK_LBS_POSE(sk_lbs_pose_avx2)
