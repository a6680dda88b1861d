/* lbs_simd.h -- internal: pieces shared by the AVX2 (lbs_avx2.c) and AVX-512 (lbs_avx512.c)
 * float32 skinning: the transposed pose matrices and the skinned normals of 8 vertices at once.
 * Included once per file, compiled with that file's target flags (AVX2/FMA at least). */
#include <immintrin.h>
#include <string.h>
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

/* Both kernels prefetch their streams this many vertices ahead (3 KiB of positions, 4 KiB of
 * float32 weights).  The AVX-512 kernel, measured in interleaved runs: with the 1M-vertex
 * working set contended in L3 by other processes, the median call was 10-55% faster with the
 * inputs prefetched, and no slower in L2.  Prefetching the outputs' lines too, so that their
 * stores find them in the cache, took 2-8% less time for the 1M-vertex pose's positions (J=64,
 * K=4, uint16), 7-9% less with normals (16-17% at 131K-262K vertices), 3-5% less at 42M vertices
 * (out of cache).  512 vertices ahead was 3-7% slower. */
#define SK_PREFETCH_AHEAD 256

/* the cache lines of the `bytes` bytes at p, one prefetch a line */
static inline __attribute__((always_inline)) void prefetch_lines(const void *p, size_t bytes)
{
    for (size_t b = 0; b < bytes; b += 64)
        _mm_prefetch((const char *)p + b, _MM_HINT_T0);
}

/* The lines of the vertices xa .. xa+cnt-1 in every stream of a pose: positions v, K joint
 * indices of jsize bytes and K weights w a vertex, the positions out op, and with normals (nv
 * and on non-NULL) the normals in and out: the outputs' lines too, so that their stores find
 * them in the cache */
static inline __attribute__((always_inline)) void prefetch_vertices(
    size_t xa, size_t cnt, size_t K, const float *v, const void *joints, size_t jsize,
    const float *w, const float *nv, const float *op, const float *on)
{
    prefetch_lines(v + 3 * xa, 3 * cnt * sizeof *v);
    prefetch_lines(w + K * xa, K * cnt * sizeof *w);
    prefetch_lines((const char *)joints + K * xa * jsize, K * cnt * jsize);
    prefetch_lines(op + 3 * xa, 3 * cnt * sizeof *op);
    if (nv) {
        prefetch_lines(nv + 3 * xa, 3 * cnt * sizeof *nv);
        prefetch_lines(on + 3 * xa, 3 * cnt * sizeof *on);
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

/* The skinned normals of a register's lanes at once (as skin_normal, lanes = vertices), in the
 * vector type VT with the intrinsics of prefix P (_mm256, _mm512), in two steps:
 * NAME##_raw(a, n, u): a[0..11] the columns of the blended 3x4 (a[4c + r] = element (r, c);
 * a[3], a[7], a[11] unused), n[0..2] the normals' x, y, z; u[0..2] = cofactor(A) n, u[3] =
 * det(A), u[4] = |u[0..2]|^2.  NAME##_unit(u, o): o[0..2] = u[0..2] sign(det) / sqrt(u[4]), or 0
 * where u[4] is 0.  NONZERO(r, len2) is r where len2 != 0, else 0; SK_DIFF##P(p, q, r, s) is
 * p q - r s (the cofactors: SK_COFACTORS3, lbs_normal.h). */
#define SK_NORMALS(NAME, VT, P, NONZERO)                                                       \
    static inline void NAME##_raw(const VT *a, const VT *n, VT *u)                            \
    {                                                                                         \
        VT c[3][3];                                                                           \
        SK_COFACTORS3(c, E, SK_DIFF##P)                                                       \
        u[3] = P##_fmadd_ps(E(0, 0), c[0][0], P##_fmadd_ps(E(0, 1), c[0][1],                 \
                                                            P##_mul_ps(E(0, 2), c[0][2])));  \
        for (int r_ = 0; r_ < 3; r_++)                                                        \
            u[r_] = P##_fmadd_ps(c[r_][0], n[0], P##_fmadd_ps(c[r_][1], n[1],                 \
                                                              P##_mul_ps(c[r_][2], n[2])));   \
        u[4] = P##_fmadd_ps(u[0], u[0], P##_fmadd_ps(u[1], u[1], P##_mul_ps(u[2], u[2])));    \
    }                                                                                         \
    static inline void NAME##_unit(const VT *u, VT *o)                                        \
    {                                                                                         \
        VT r = NONZERO(P##_div_ps(P##_set1_ps(1.f), P##_sqrt_ps(u[4])), u[4]);                \
        r = P##_xor_ps(r, P##_and_ps(u[3], P##_set1_ps(-0.f))); /* times sign(det) */         \
        for (int r_ = 0; r_ < 3; r_++)                                                        \
            o[r_] = P##_mul_ps(u[r_], r);                                                     \
    }
#define E(r, c) a[4 * (c) + (r)]
SK_NORMALS(normals8, __m256, _mm256, SK_NONZERO256)

/* The xyz triples of 8 vertices at src deinterleaved: x[0..2] = the x, y, z registers, lane l
 * = vertex l.  Each 128-bit lane deinterleaves 4 vertices, its 12 floats gathered by two blends
 * and a lane swap. */
static inline __attribute__((always_inline)) void load_xyz8(const float *src, __m256 x[3])
{
    __m256 l0 = _mm256_loadu_ps(src), l1 = _mm256_loadu_ps(src + 8);
    __m256 l2 = _mm256_loadu_ps(src + 16);
    /* per lane (vertices 0-3 | 4-7): a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3 */
    __m256 a = _mm256_blend_ps(l0, l1, 0xF0), b = _mm256_permute2f128_ps(l0, l2, 0x21);
    __m256 c = _mm256_blend_ps(l1, l2, 0xF0);
    __m256 xy = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
    __m256 yz = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
    x[0] = _mm256_shuffle_ps(a, xy, _MM_SHUFFLE(2, 0, 3, 0));
    x[1] = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    x[2] = _mm256_shuffle_ps(yz, c, _MM_SHUFFLE(3, 0, 3, 1));
}

/* load_xyz8's inverse: x[0..2] back to cnt <= 8 interleaved triples at dst */
static inline __attribute__((always_inline)) void store_xyz8_soa(const __m256 x[3],
                                                                 size_t cnt, float *dst)
{
    __m256 lo = _mm256_unpacklo_ps(x[0], x[1]), hi = _mm256_unpackhi_ps(x[0], x[1]);
    __m256 zx = _mm256_shuffle_ps(x[2], x[0], _MM_SHUFFLE(1, 1, 0, 0)); /* z0 z0 x1 x1 */
    __m256 yz = _mm256_shuffle_ps(x[1], x[2], _MM_SHUFFLE(1, 1, 1, 1)); /* y1 y1 z1 z1 */
    __m256 zh = _mm256_shuffle_ps(x[2], hi, _MM_SHUFFLE(3, 2, 3, 2));   /* z2 z3 x3 y3 */
    __m256 a = _mm256_shuffle_ps(lo, zx, _MM_SHUFFLE(2, 0, 1, 0));      /* x0 y0 z0 x1 */
    __m256 b = _mm256_shuffle_ps(yz, hi, _MM_SHUFFLE(1, 0, 2, 0));      /* y1 z1 x2 y2 */
    __m256 c = _mm256_shuffle_ps(zh, zh, _MM_SHUFFLE(1, 3, 2, 0));      /* z2 x3 y3 z3 */
    __m256 l0 = _mm256_permute2f128_ps(a, b, 0x20), l1 = _mm256_blend_ps(c, a, 0xF0);
    __m256 l2 = _mm256_permute2f128_ps(b, c, 0x31);
    if (cnt == 8) {
        _mm256_storeu_ps(dst, l0);
        _mm256_storeu_ps(dst + 8, l1);
        _mm256_storeu_ps(dst + 16, l2);
        return;
    }
    float pad[24];
    _mm256_storeu_ps(pad, l0);
    _mm256_storeu_ps(pad + 8, l1);
    _mm256_storeu_ps(pad + 16, l2);
    memcpy(dst, pad, 3 * cnt * sizeof *dst);
}

/* The positions and normals of vertices x0 .. x0+cnt-1 (cnt <= 8) from their blended columns,
 * st[l] = (c0 | c1) and st[8 + l] = (c2 | c3) of vertex x0 + l: transposed to one vertex per
 * lane (spare lanes zero), positions v and normals nv deinterleaved, results interleaved back
 * to op and on.  A position is (c0 x + c2 z) + (c1 y + c3) rounded as the positions-only loop
 * of lbs_avx2.c rounds it, so a vertex gets the same bits with and without normals.  Always
 * inlined into the kernels, as flush_normals16: GCC would otherwise keep one out-of-line copy
 * (it weighs the cofactor loops before it unrolls them), a call per 8 vertices. */
static inline __attribute__((always_inline)) void flush_normals(__m256 *st, size_t cnt,
                                                                const float *v,
                                                                const float *nv, float *op,
                                                                float *on)
{
    __m256 a[16], p[3], n[3], o[3];
    if (cnt < 8) { /* a partial block: spare lanes zero, the inputs padded with zeros */
        float pad[2][24] = {{0}};
        memcpy(pad[0], v, 3 * cnt * sizeof *v);
        memcpy(pad[1], nv, 3 * cnt * sizeof *nv);
        for (size_t l = cnt; l < 8; l++)
            st[l] = st[8 + l] = _mm256_setzero_ps();
        load_xyz8(pad[0], p);
        load_xyz8(pad[1], n);
    } else {
        load_xyz8(v, p);
        load_xyz8(nv, n);
    }
    for (size_t l = 0; l < 8; l++) { /* a local copy: the transposed rows stay in registers */
        a[l] = st[l];
        a[8 + l] = st[8 + l];
    }
    transpose8(a);
    transpose8(a + 8);
    for (int r = 0; r < 3; r++)
        o[r] = _mm256_add_ps(_mm256_fmadd_ps(E(r, 0), p[0], _mm256_mul_ps(E(r, 2), p[2])),
                             _mm256_fmadd_ps(E(r, 1), p[1], E(r, 3)));
    store_xyz8_soa(o, cnt, op);
    __m256 u[5];
    normals8_raw(a, n, u);
    normals8_unit(u, o);
    store_xyz8_soa(o, cnt, on);
}

/* The influence loop of vertex x in a kernel body (its names: K, J, joints, w, mt, bad): STEP(pw,
 * pm) adds weight *pw times the joint's matrix pm (16 floats, as the variant lays them out)
 * to the variant's accumulators, for every influence whose joint index is in range; when CHECK,
 * an index outside 0..J-1 is skipped (-1 of a signed JT: no influence; any, with bad NULL:
 * checked on an earlier pose) or is the error, *bad = x * K + k.  (The test written out here,
 * not in a function: the AVX2 kernel was 5% slower with it in one.) */
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
 * packed vertices v of one pose, their K joints and weights w, the matrices mt (transposed;
 * rows for lbs_avx512.c's positions without normals), normals nv (or NULL), outputs op and on
 * (or NULL), *bad as in sk_linear_blend_skinning. */
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
