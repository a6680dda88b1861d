/* lbs_simd.h -- internal: pieces shared by the AVX2 (lbs_avx2.c) and AVX-512 (lbs_avx512.c)
 * float32 skinning: the transposed pose matrices and the skinned normals of 8 vertices at once.
 * Included once per file, compiled with that file's target flags (AVX2/FMA at least). */
#include <immintrin.h>
#include "lanes8.h"
#include "lbs_normal.h"

/* The pose's matrices transposed into columns, contiguous: mt[16 j + 4 c + r] = m_j[r][c] */
static inline void transpose_mats(size_t J, const float *m, float *mt)
{
    for (size_t j = 0; j < J; j++) {
        __m128 r0 = _mm_loadu_ps(m + 16 * j), r1 = _mm_loadu_ps(m + 16 * j + 4);
        __m128 r2 = _mm_loadu_ps(m + 16 * j + 8), r3 = _mm_loadu_ps(m + 16 * j + 12);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(mt + 16 * j, r0);
        _mm_storeu_ps(mt + 16 * j + 4, r1);
        _mm_storeu_ps(mt + 16 * j + 8, r2);
        _mm_storeu_ps(mt + 16 * j + 12, r3);
    }
}

/* r[e] lane l <- r[l] lane e */
static inline void transpose8(__m256 r[8])
{
    __m256 u[8];
    transpose4_lanes8(r, 8, u);
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
}

/* SK_NORMALS's pieces for registers of each width: p q - r s (the cofactors' step), and r
 * where len2 != 0, else 0 */
#define SK_DIFF_mm256(p, q, r, s) _mm256_fmsub_ps(p, q, _mm256_mul_ps(r, s))
#define SK_DIFF_mm512(p, q, r, s) _mm512_fmsub_ps(p, q, _mm512_mul_ps(r, s))
#define SK_NONZERO256(r, len2) \
    _mm256_andnot_ps(_mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_EQ_OQ), r)
#define SK_NONZERO512(r, len2) \
    _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(len2, _mm512_setzero_ps(), _CMP_NEQ_UQ), r)

/* NAME(a, o): the skinned normals of a register's lanes at once (as skin_normal, lanes =
 * vertices), in the vector type VT with the intrinsics of prefix P (_mm256, _mm512): a[0..11]
 * the columns of the blended 3x3 (a[4c + r] = element (r, c); a[3], a[7], a[11] unused),
 * a[12..14] the normals; result in o[0..2].  NONZERO(r, len2) is r where len2 != 0, else 0;
 * SK_DIFF##P(p, q, r, s) is p q - r s (the cofactors: SK_COFACTORS3, lbs_normal.h). */
#define SK_NORMALS(NAME, VT, P, NONZERO)                                                       \
    static inline void NAME(const VT *a, VT *o)                                               \
    {                                                                                         \
        VT c[3][3], v[3];                                                                     \
        SK_COFACTORS3(c, E, SK_DIFF##P)                                                       \
        VT det = P##_fmadd_ps(E(0, 0), c[0][0], P##_fmadd_ps(E(0, 1), c[0][1],                \
                                                             P##_mul_ps(E(0, 2), c[0][2]))); \
        for (int r_ = 0; r_ < 3; r_++)                                                        \
            v[r_] = P##_fmadd_ps(c[r_][0], a[12], P##_fmadd_ps(c[r_][1], a[13],               \
                                                               P##_mul_ps(c[r_][2], a[14]))); \
        VT len2 = P##_fmadd_ps(v[0], v[0], P##_fmadd_ps(v[1], v[1], P##_mul_ps(v[2], v[2]))); \
        VT r = NONZERO(P##_div_ps(P##_set1_ps(1.f), P##_sqrt_ps(len2)), len2);                \
        r = P##_xor_ps(r, P##_and_ps(det, P##_set1_ps(-0.f))); /* times sign(det) */          \
        for (int r_ = 0; r_ < 3; r_++)                                                        \
            o[r_] = P##_mul_ps(v[r_], r);                                                     \
    }
#define E(r, c) a[4 * (c) + (r)]
SK_NORMALS(normals8, __m256, _mm256, SK_NONZERO256)

/* the normals of vertices x0 .. x0+cnt-1 from their staged columns: st[l] = columns 0-1,
 * st[8 + l] = (column 2, normal) of vertex x0 + l.  Always inlined into the kernels, as
 * flush_normals16: GCC would otherwise keep one out-of-line copy (it weighs the cofactor loops
 * before it unrolls them), a call per 8 vertices. */
static inline __attribute__((always_inline)) void flush_normals(__m256 *st, size_t cnt,
                                                                float *on)
{
    __m256 o[3];
    for (size_t l = cnt; l < 8; l++)
        st[l] = st[8 + l] = _mm256_setzero_ps();
    transpose8(st);
    transpose8(st + 8);
    normals8(st, o);
    store_xyz8(o, cnt, on);
}

/* The influence loop of vertex x in a kernel body (its names: K, J, joints, w, mt, bad): STEP(pw,
 * pm) adds weight *pw times the transposed matrix pm (16 floats) to the variant's accumulators,
 * for every influence whose joint index is in range; when CHECK, an index outside 0..J-1 is
 * skipped (-1 of a signed JT: no influence; any, with bad NULL: checked on an earlier pose) or
 * is the error, *bad = x * K + k.  (The test written out here, not in a function: the AVX2
 * kernel was 5% slower with it in one.) */
#define SK_INFLUENCES(JT, CHECK, STEP)                                                         \
    for (size_t k = 0; k < K; k++) {                                                          \
        size_t j = (size_t)joints[x * K + k];                                                 \
        if ((CHECK) && j >= J) {                                                              \
            if (((JT)-1 < 0 && j == (size_t)-1) || !bad)                                      \
                continue;                                                                     \
            *bad = x * K + k;                                                                 \
            return SK_ERR_JOINT_INDEX;                                                        \
        }                                                                                     \
        STEP(w + x * K + k, mt + 16 * j);                                                     \
    }

/* The head of a variant's kernel body for index type JT, NAME##_body (SK_LBS_K4): the V
 * packed vertices v of one pose, their K joints and weights w, the transposed matrices mt,
 * normals nv (or NULL), outputs op and on (or NULL), *bad as in sk_linear_blend_skinning. */
#define SK_LBS_BODY(NAME, JT)                                                                  \
    static inline __attribute__((always_inline)) int NAME##_body(                             \
        size_t V, size_t K, size_t J, const float *restrict v, const JT *joints,              \
        const float *restrict w, const float *restrict mt, const float *restrict nv,          \
        float *restrict op, float *restrict on, size_t *bad)

/* The variant's entry for one pose (a job of packed vertices): transposes the matrices once,
 * then runs its kernel for the joint index type, lbs_u8 / lbs_u16 / lbs_i32 (SK_LBS_K4). */
#define SK_LBS_POSE(FNAME)                                                                     \
    int FNAME(const sk_skin_job_f *job)                                                         \
    {                                                                                           \
        float mt[16 * SK_AVX2_MAX_JOINTS]; /* the matrices transposed: columns, contiguous */   \
        transpose_mats(job->J, job->transforms, mt);                                            \
        if (job->itype == SK_U8)                                                                \
            return lbs_u8(job, mt);                                                             \
        if (job->itype == SK_U16)                                                               \
            return lbs_u16(job, mt);                                                            \
        return lbs_i32(job, mt);                                                                \
    }

/* A variant's kernel NAME for index type JT over its NAME##_body: K = 4 (glTF's JOINTS_0) gets
 * its own copies with the influence loop unrolled, with and without normals. */
#define SK_LBS_K4(NAME, JT)                                                                    \
    static int NAME(const sk_skin_job_f *j, const float *mt)                                    \
    {                                                                                           \
        const JT *jt = j->joints;                                                               \
        if (j->K != 4)                                                                          \
            return NAME##_body(j->n, j->K, j->J, j->verts, jt, j->weights, mt, j->normals,      \
                               j->out_pos, j->out_nrm, j->bad);                                 \
        return j->out_nrm ? NAME##_body(j->n, 4, j->J, j->verts, jt, j->weights, mt,            \
                                        j->normals, j->out_pos, j->out_nrm, j->bad)             \
                          : NAME##_body(j->n, 4, j->J, j->verts, jt, j->weights, mt, NULL,      \
                                        j->out_pos, NULL, j->bad);                              \
    }
