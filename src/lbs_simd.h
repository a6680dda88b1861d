/* lbs_simd.h -- internal: pieces shared by the AVX2 (lbs_avx2.c) and AVX-512 (lbs_avx512.c)
 * float32 skinning: the transposed pose matrices and the skinned normals of 8 vertices at once.
 * Included once per file, compiled with that file's target flags (AVX2/FMA at least). */
#include <immintrin.h>
#include "lanes8.h"

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
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
}

/* NAME(a, o): the skinned normals of a register's lanes at once (as skin_normal, lanes =
 * vertices), in the vector type VT with the intrinsics of prefix P (_mm256, _mm512): a[0..11]
 * the columns of the blended 3x3 (a[4c + r] = element (r, c); a[3], a[7], a[11] unused),
 * a[12..14] the normals; result in o[0..2].  NONZERO(r, len2) is r where len2 != 0, else 0. */
#define SK_NORMALS(NAME, VT, P, NONZERO)                                                       \
    static inline void NAME(const VT *a, VT *o)                                               \
    {                                                                                         \
        VT c00 = P##_fmsub_ps(E(1, 1), E(2, 2), P##_mul_ps(E(1, 2), E(2, 1)));                \
        VT c01 = P##_fmsub_ps(E(1, 2), E(2, 0), P##_mul_ps(E(1, 0), E(2, 2)));                \
        VT c02 = P##_fmsub_ps(E(1, 0), E(2, 1), P##_mul_ps(E(1, 1), E(2, 0)));                \
        VT c10 = P##_fmsub_ps(E(0, 2), E(2, 1), P##_mul_ps(E(0, 1), E(2, 2)));                \
        VT c11 = P##_fmsub_ps(E(0, 0), E(2, 2), P##_mul_ps(E(0, 2), E(2, 0)));                \
        VT c12 = P##_fmsub_ps(E(0, 1), E(2, 0), P##_mul_ps(E(0, 0), E(2, 1)));                \
        VT c20 = P##_fmsub_ps(E(0, 1), E(1, 2), P##_mul_ps(E(0, 2), E(1, 1)));                \
        VT c21 = P##_fmsub_ps(E(0, 2), E(1, 0), P##_mul_ps(E(0, 0), E(1, 2)));                \
        VT c22 = P##_fmsub_ps(E(0, 0), E(1, 1), P##_mul_ps(E(0, 1), E(1, 0)));                \
        VT det = P##_fmadd_ps(E(0, 0), c00, P##_fmadd_ps(E(0, 1), c01,                        \
                                                         P##_mul_ps(E(0, 2), c02)));          \
        VT x = P##_fmadd_ps(c00, a[12], P##_fmadd_ps(c01, a[13], P##_mul_ps(c02, a[14])));    \
        VT y = P##_fmadd_ps(c10, a[12], P##_fmadd_ps(c11, a[13], P##_mul_ps(c12, a[14])));    \
        VT z = P##_fmadd_ps(c20, a[12], P##_fmadd_ps(c21, a[13], P##_mul_ps(c22, a[14])));    \
        VT len2 = P##_fmadd_ps(x, x, P##_fmadd_ps(y, y, P##_mul_ps(z, z)));                   \
        VT r = NONZERO(P##_div_ps(P##_set1_ps(1.f), P##_sqrt_ps(len2)), len2);                \
        r = P##_xor_ps(r, P##_and_ps(det, P##_set1_ps(-0.f))); /* times sign(det) */          \
        o[0] = P##_mul_ps(x, r);                                                              \
        o[1] = P##_mul_ps(y, r);                                                              \
        o[2] = P##_mul_ps(z, r);                                                              \
    }
#define E(r, c) a[4 * (c) + (r)]
#define SK_NONZERO256(r, len2) \
    _mm256_andnot_ps(_mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_EQ_OQ), r)
SK_NORMALS(normals8, __m256, _mm256, SK_NONZERO256)

/* the normals of vertices x0 .. x0+cnt-1 from their staged columns: st[l] = columns 0-1,
 * st[8 + l] = (column 2, normal) of vertex x0 + l */
static inline void flush_normals(__m256 *st, size_t cnt, float *on)
{
    __m256 o[3];
    for (size_t l = cnt; l < 8; l++)
        st[l] = st[8 + l] = _mm256_setzero_ps();
    transpose8(st);
    transpose8(st + 8);
    normals8(st, o);
    store_xyz8(o, cnt, on);
}

/* The variant's entry for one pose: transposes the matrices once, then runs its kernel for the
 * joint index type, lbs_u8 / lbs_u16 / lbs_i32 (defined by SK_LBS_K4). */
#define SK_LBS_POSE(FNAME)                                                                     \
    int FNAME(size_t V, size_t K, size_t J, const float *v, const void *joints, int itype,      \
              const float *weights, const float *m, const float *nv, float *op, float *on,      \
              size_t *bad)                                                                      \
    {                                                                                           \
        float mt[16 * SK_AVX2_MAX_JOINTS]; /* the matrices transposed: columns, contiguous */   \
        transpose_mats(J, m, mt);                                                               \
        if (itype == SK_U8)                                                                     \
            return lbs_u8(V, K, J, v, joints, weights, mt, nv, op, on, bad);                    \
        if (itype == SK_U16)                                                                    \
            return lbs_u16(V, K, J, v, joints, weights, mt, nv, op, on, bad);                   \
        return lbs_i32(V, K, J, v, joints, weights, mt, nv, op, on, bad);                       \
    }

/* A variant's kernel NAME for index type JT over its NAME##_body: K = 4 (glTF's JOINTS_0) gets
 * its own copies with the influence loop unrolled, with and without normals. */
#define SK_LBS_K4(NAME, JT)                                                                    \
    static int NAME(size_t V, size_t K, size_t J, const float *v, const JT *joints,             \
                    const float *w, const float *mt, const float *nv, float *op, float *on,     \
                    size_t *bad)                                                                \
    {                                                                                           \
        if (K != 4)                                                                             \
            return NAME##_body(V, K, J, v, joints, w, mt, nv, op, on, bad);                     \
        return on ? NAME##_body(V, 4, J, v, joints, w, mt, nv, op, on, bad)                     \
                  : NAME##_body(V, 4, J, v, joints, w, mt, NULL, op, NULL, bad);                \
    }
