/* lbs_avx512.c -- one float32 pose of linear blend skinning with AVX-512 (F, VL, DQ, BW;
 * compiled with those flags, called only when cpu.c finds them, for up to SK_AVX2_MAX_JOINTS
 * joints).  A vertex's blended matrix is one 16-lane register: one FMA per influence on the
 * pose's joint matrices, copied to the stack.  Positions only, the matrices are kept as rows
 * (lanes 4 r .. 4 r + 3: row r) and vertices go in groups of 4: each vertex's (x, y, z) is one
 * 16-byte load broadcast to every row and one multiply (masked: the 4th lane keeps the
 * translation), the row sums of the 4 vertices one in-lane shuffle-add tree, and their 12 output
 * floats one permute and one masked store.  Against the former layout (transposed matrices,
 * a permute per vertex to spread x, y, z over the columns, a cross-lane shuffle tree) the
 * 1M-vertex pose (J=64, K=4, uint16) took 5% less time, same bits.  The last vertex of a range
 * is read with a masked load and a group at the end of the range is padded with zeros (masked
 * stores, no access past the range), and every vertex goes through the same arithmetic wherever
 * its group starts, so the result does not depend on how a call is split.  With normals the
 * matrices are transposed (columns, contiguous: lbs_simd.h) and the vertices go in blocks of 16,
 * one vertex per lane: their blended matrices transposed, positions and normals deinterleaved
 * with two permutes per component, positions (rounded as the groups of 4 round them) and normals
 * computed, the results interleaved back (the cofactor arithmetic is lbs_avx2.c's, SK_NORMALS in
 * lbs_simd.h). */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lbs_simd.h"

/* the row sums of r[0..3] (128-bit lane e: row e's products c0 x, c1 y, c2 z, c3) as 4
 * vertices' rows: lane 4 e + l = (c0 x + c1 y) + (c2 z + c3) of row e of vertex l */
static inline __m512 sum_rows4(const __m512 r[4])
{
    __m512 s01 = _mm512_add_ps(_mm512_shuffle_ps(r[0], r[1], _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm512_shuffle_ps(r[0], r[1], _MM_SHUFFLE(3, 1, 3, 1)));
    __m512 s23 = _mm512_add_ps(_mm512_shuffle_ps(r[2], r[3], _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm512_shuffle_ps(r[2], r[3], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_ps(_mm512_shuffle_ps(s01, s23, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_ps(s01, s23, _MM_SHUFFLE(3, 1, 3, 1)));
}

SK_TRANSPOSE4_IN_LANES(transpose4_lanes16, __m512, _mm512)

/* r[e] lane l <- r[l] lane e for the rows e of the 3x4 block (lanes 0-2, 4-6, 8-10, 12-14);
 * the other rows are left undefined */
static inline void transpose16_3x4(__m512 r[16])
{
    __m512 u[16]; /* u[i + m]: element 4k + m of rows i..i+3 in lane k */
    transpose4_lanes16(r, 16, u);
    for (int m = 0; m < 3; m++) { /* the 4 x 4 transpose of 128-bit lanes of u[m], u[4+m], .. */
        __m512 p0 = _mm512_shuffle_f32x4(u[m], u[4 + m], _MM_SHUFFLE(2, 0, 2, 0));
        __m512 p1 = _mm512_shuffle_f32x4(u[m], u[4 + m], _MM_SHUFFLE(3, 1, 3, 1));
        __m512 p2 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], _MM_SHUFFLE(2, 0, 2, 0));
        __m512 p3 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], _MM_SHUFFLE(3, 1, 3, 1));
        r[m] = _mm512_shuffle_f32x4(p0, p2, _MM_SHUFFLE(2, 0, 2, 0));
        r[4 + m] = _mm512_shuffle_f32x4(p1, p3, _MM_SHUFFLE(2, 0, 2, 0));
        r[8 + m] = _mm512_shuffle_f32x4(p0, p2, _MM_SHUFFLE(3, 1, 3, 1));
        r[12 + m] = _mm512_shuffle_f32x4(p1, p3, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

SK_NORMALS(normals16, __m512, _mm512, SK_NONZERO512)

/* the mask of the first `left` of 16 lanes */
static inline __mmask16 first16(size_t left)
{
    return (__mmask16)(left >= 16 ? 0xFFFF : (1u << left) - 1);
}

/* The xyz triples of cnt <= 16 vertices at src deinterleaved into x[0..2], lane l = vertex l
 * (spare lanes zero; masked loads, nothing read past the triples): component c of lane l is
 * float 3 l + c of the three loads, from the first two (index < 32), then the third (index - 32)
 * for the lanes beyond. */
static inline __attribute__((always_inline)) void load_xyz16(const float *src, size_t cnt,
                                                             __m512 x[3])
{
    static const int32_t de[3][16] = {
        {0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33 - 32, 36 - 32, 39 - 32, 42 - 32, 45 - 32},
        {1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34 - 32, 37 - 32, 40 - 32, 43 - 32, 46 - 32},
        {2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32 - 32, 35 - 32, 38 - 32, 41 - 32, 44 - 32,
         47 - 32}};
    static const __mmask16 de_hi[3] = {0xF800, 0xF800, 0xFC00};
    __m512 n[3];
    for (int i = 0; i < 3; i++)
        n[i] = _mm512_maskz_loadu_ps(first16(3 * cnt > 16 * (size_t)i ? 3 * cnt - 16 * (size_t)i
                                                                     : 0),
                                     src + 16 * i);
    for (int c = 0; c < 3; c++) {
        __m512i d = _mm512_loadu_si512(de[c]);
        x[c] = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(n[0], d, n[1]), de_hi[c], d,
                                          n[2]);
    }
}

/* load_xyz16's inverse: output float 16 i + f is component (16 i + f) % 3 of lane (16 i + f) / 3:
 * x from x[0] (index lane), y from x[1] (index 16 + lane), z from x[2] where in_z; masked
 * stores past cnt */
static inline __attribute__((always_inline)) void store_xyz16(const __m512 x[3], size_t cnt,
                                                              float *dst)
{
    static const int32_t in[3][16] = {
        {0, 16, 0, 1, 17, 1, 2, 18, 2, 3, 19, 3, 4, 20, 4, 5},
        {21, 5, 6, 22, 6, 7, 23, 7, 8, 24, 8, 9, 25, 9, 10, 26},
        {10, 11, 27, 11, 12, 28, 12, 13, 29, 13, 14, 30, 14, 15, 31, 15}};
    static const __mmask16 in_z[3] = {0x4924, 0x2492, 0x9249};
    for (int i = 0; i < 3; i++) {
        __m512i d = _mm512_loadu_si512(in[i]);
        __m512 q = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(x[0], d, x[1]), in_z[i], d,
                                              x[2]);
        _mm512_mask_storeu_ps(dst + 16 * i,
                              first16(3 * cnt > 16 * (size_t)i ? 3 * cnt - 16 * (size_t)i : 0),
                              q);
    }
}

/* The positions of vertices x0 .. x0+cnt-1 (cnt <= 16) from their blended matrices st[0..cnt-1]
 * (columns in 128-bit lanes), and their unnormalized normals u (normals16_raw): the matrices
 * transposed to one vertex per lane (spare lanes zero), positions v and normals nv
 * deinterleaved, positions interleaved back to op.  A position is (c0 x + c1 y) + (c2 z + c3),
 * each product rounded, as sum_rows4 rounds it: a vertex gets the same bits with and without
 * normals (the file is compiled with -ffp-contract=off, so that no multiply-add here is fused). */
static inline __attribute__((always_inline)) void positions16(const __m512 *st, size_t cnt,
                                                              const float *v, const float *nv,
                                                              float *op, __m512 u[5])
{
    __m512 a[16], p[3], n[3], o[3];
    for (size_t l = 0; l < 16; l++)
        a[l] = l < cnt ? st[l] : _mm512_setzero_ps();
    transpose16_3x4(a);
    load_xyz16(v, cnt, p);
    load_xyz16(nv, cnt, n);
    for (int r = 0; r < 3; r++)
        o[r] = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(E(r, 0), p[0]),
                                           _mm512_mul_ps(E(r, 1), p[1])),
                             _mm512_add_ps(_mm512_mul_ps(E(r, 2), p[2]), E(r, 3)));
    store_xyz16(o, cnt, op);
    normals16_raw(a, n, u);
}

/* The unit normals of positions16's u, cnt <= 16 of them, interleaved to on */
static inline __attribute__((always_inline)) void normals16(const __m512 u[5], size_t cnt,
                                                            float *on)
{
    __m512 o[3];
    normals16_unit(u, o);
    store_xyz16(o, cnt, on);
}

/* whether the n joint indices at j are all below J (as unsigned: -1 is not), a register of
 * LANES at a time (the last one masked) */
#define SK_IN_RANGE(NAME, JT, LANES, MASK, LOADZ, CMPGE, SET1)                                 \
    static inline int NAME(const JT *j, size_t n, size_t J)                                   \
    {                                                                                         \
        if ((JT)-1 > 0 && J > (size_t)(JT)-1) /* every value of an unsigned JT is valid */     \
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

#if defined(__clang__)
#define SK_UNROLL4 _Pragma("unroll 4")
#define SK_UNROLL16 _Pragma("unroll 16")
#else
#define SK_UNROLL4 _Pragma("GCC unroll 4")
#define SK_UNROLL16 _Pragma("GCC unroll 16")
#endif

/* acc += *pw times the 16 floats at pm.  The matrix is loaded into a register on its own (the
 * empty asm keeps GCC from folding the load into the FMA), so that the weight's broadcast folds
 * into the FMA instead (vfmadd231ps {1to16}): a matrix load indexed by the joint is one fused uop
 * as a plain load, two as an FMA operand, and the positions loop is bound by issue slots: 6-10%
 * less time for the 1M-vertex pose (J=64, K=4, uint16), same instructions otherwise. */
#define SK_STEP_AVX512(pw, pm)                                                                 \
    do {                                                                                       \
        __m512 m_ = _mm512_loadu_ps(pm);                                                       \
        __asm__("" : "+v"(m_));                                                                \
        acc = _mm512_fmadd_ps(_mm512_set1_ps(*(pw)), m_, acc);                                 \
    } while (0)
#define SK_LBS_AVX512(NAME, JT, IN_RANGE)                                                  \
    /* the blended matrix of vertex x into *out; `checked` when some index of its group lies \
       outside 0..J-1: -1 (no influence) is skipped, and so is any other when bad is NULL   \
       (checked on an earlier pose), else it is the error */                                \
    static inline __attribute__((always_inline)) int NAME##_blend(                            \
        size_t x, size_t K, size_t J, const JT *joints, const float *restrict w,              \
        const float *restrict mt, int checked, __m512 *out, size_t *bad)                      \
    {                                                                                         \
        __m512 acc = _mm512_setzero_ps();                                                     \
        SK_INFLUENCES(JT, checked, SK_STEP_AVX512)                                            \
        *out = acc;                                                                           \
        return SK_OK;                                                                         \
    }                                                                                         \
    /* the streams' lines of the group of 4 vertices SK_PREFETCH_AHEAD after x0, if any (one  \
       line a stream with K = 4); nv and on NULL without normals */                           \
    static inline __attribute__((always_inline)) void NAME##_prefetch(                        \
        size_t x0, size_t V, size_t K, const float *v, const JT *joints, const float *w,      \
        const float *nv, const float *op, const float *on)                                    \
    {                                                                                         \
        if (x0 + SK_PREFETCH_AHEAD + 4 <= V)                                                  \
            prefetch_vertices(x0 + SK_PREFETCH_AHEAD, 4, K, v, joints, sizeof *joints, w, nv, \
                              op, on);                                                        \
    }                                                                                         \
    /* positions only: the vertices x0 .. x0+cnt-1 (cnt <= 4), padded with zeros to a group   \
       of 4, from the matrices mr as rows; `last` when the group ends the range: its last     \
       vertex's position is read with a masked load, not 16 bytes */                          \
    static inline __attribute__((always_inline)) int NAME##_group(                            \
        size_t x0, size_t cnt, int last, size_t V, size_t K, size_t J, const float *restrict v, \
        const JT *joints, const float *restrict w, const float *restrict mr,                  \
        float *restrict op, size_t *bad)                                                      \
    {                                                                                         \
        __m512 r[4];                                                                          \
        NAME##_prefetch(x0, V, K, v, joints, w, NULL, op, NULL);                              \
        int checked = !IN_RANGE(joints + x0 * K, cnt * K, J);                                 \
        SK_UNROLL4 for (size_t l = 0; l < 4; l++)                                             \
        {                                                                                     \
            size_t x = x0 + l;                                                                \
            __m512 acc;                                                                       \
            r[l] = _mm512_setzero_ps();                                                       \
            if (l >= cnt)                                                                     \
                continue;                                                                     \
            if (checked ? NAME##_blend(x, K, J, joints, w, mr, 1, &acc, bad)                  \
                        : NAME##_blend(x, K, J, joints, w, mr, 0, &acc, bad))                 \
                return SK_ERR_JOINT_INDEX;                                                    \
            /* (x, y, z, .) in every row; the 4th lane keeps c3 (c3 times 1) */                \
            __m512 p = last && l + 1 == cnt                                                   \
                           ? _mm512_broadcast_f32x4(_mm_maskz_loadu_ps(7, v + 3 * x))         \
                           : _mm512_broadcast_f32x4(_mm_loadu_ps(v + 3 * x));                 \
            r[l] = _mm512_mask_mul_ps(acc, 0x7777, acc, p);                                   \
        }                                                                                     \
        const __m512i pick = _mm512_setr_epi32(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 0, 0,   \
                                               0, 0);                                         \
        _mm512_mask_storeu_ps(op + 3 * x0, (__mmask16)((1u << (3 * cnt)) - 1),                \
                              _mm512_permutexvar_ps(pick, sum_rows4(r)));                     \
        return SK_OK;                                                                         \
    }                                                                                         \
    /* positions and normals: the blended matrices of vertices x0 .. x0+cnt-1 (cnt <= 16)     \
       into st[0..cnt-1]; op and on, the outputs, for the prefetches */                       \
    static inline __attribute__((always_inline)) int NAME##_block16(                          \
        size_t x0, size_t cnt, size_t V, size_t K, size_t J, const float *restrict v,         \
        const JT *joints, const float *restrict w, const float *restrict mt,                  \
        const float *restrict nv, const float *op, const float *on, __m512 st[16],            \
        size_t *bad)                                                                          \
    {                                                                                         \
        for (size_t g = 0; g < 16; g += 4)                                                    \
            NAME##_prefetch(x0 + g, V, K, v, joints, w, nv, op, on);                          \
        int checked = !IN_RANGE(joints + x0 * K, cnt * K, J);                                 \
        SK_UNROLL16 for (size_t l = 0; l < 16; l++)                                           \
        {                                                                                     \
            __m512 acc = _mm512_setzero_ps();                                                 \
            if (l < cnt && (checked ? NAME##_blend(x0 + l, K, J, joints, w, mt, 1, &acc, bad) \
                                    : NAME##_blend(x0 + l, K, J, joints, w, mt, 0, &acc, bad)))\
                return SK_ERR_JOINT_INDEX;                                                    \
            st[l] = acc;                                                                      \
        }                                                                                     \
        return SK_OK;                                                                         \
    }                                                                                         \
    SK_LBS_BODY(NAME, JT)                                                                     \
    {                                                                                         \
        size_t x0 = 0;                                                                        \
        if (on) {                                                                             \
            /* A block's normals are finished (square root, division: ~40 cycles of latency) \
               after the next block is blended, not before: they no longer hold the reorder   \
               buffer while the blend waits; the 1M-vertex pose took 7% less time (J=64, K=4, \
               uint16) */                                                                     \
            __m512 st[16], u[5];                                                              \
            for (; x0 + 16 <= V; x0 += 16) {                                                  \
                int err = NAME##_block16(x0, 16, V, K, J, v, joints, w, mt, nv, op, on, st,   \
                                         bad);                                                \
                if (x0)                                                                       \
                    normals16(u, 16, on + 3 * (x0 - 16));                                     \
                if (err)                                                                      \
                    return SK_ERR_JOINT_INDEX;                                                \
                positions16(st, 16, v + 3 * x0, nv + 3 * x0, op + 3 * x0, u);                 \
            }                                                                                 \
            if (x0)                                                                           \
                normals16(u, 16, on + 3 * (x0 - 16));                                         \
            if (x0 < V) {                                                                     \
                if (NAME##_block16(x0, V - x0, V, K, J, v, joints, w, mt, nv, op, on, st,     \
                                   bad))                                                      \
                    return SK_ERR_JOINT_INDEX;                                                \
                positions16(st, V - x0, v + 3 * x0, nv + 3 * x0, op + 3 * x0, u);             \
                normals16(u, V - x0, on + 3 * x0);                                            \
            }                                                                                 \
            return SK_OK;                                                                     \
        }                                                                                     \
        for (; x0 + 4 < V; x0 += 4)                                                           \
            if (NAME##_group(x0, 4, 0, V, K, J, v, joints, w, mt, op, bad))                   \
                return SK_ERR_JOINT_INDEX;                                                    \
        if (x0 < V)                                                                           \
            return NAME##_group(x0, V - x0, 1, V, K, J, v, joints, w, mt, op, bad);           \
        return SK_OK;                                                                         \
    }                                                                                         \
    SK_LBS_K4(NAME, JT)
SK_LBS_AVX512(lbs_u8, uint8_t, in_range_u8)
SK_LBS_AVX512(lbs_u16, uint16_t, in_range_u16)
SK_LBS_AVX512(lbs_i32, int32_t, in_range_i32)

/* The pose's entry: with normals the matrices transposed (columns, contiguous), else copied as
 * rows (the positions-only groups take rows), 64-byte aligned: a matrix is one cache line */
int sk_lbs_pose_avx512(const sk_skin_job_f *job)
{
    float mt[16 * SK_AVX2_MAX_JOINTS] __attribute__((aligned(64)));
    if (job->out_nrm)
        transpose_mats(job->J, job->transforms, mt);
    else
        memcpy(mt, job->transforms, 16 * job->J * sizeof *mt);
    if (job->itype == SK_U8)
        return lbs_u8(job, mt);
    if (job->itype == SK_U16)
        return lbs_u16(job, mt);
    return lbs_i32(job, mt);
}
