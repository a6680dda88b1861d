/* cclip_lanes.h -- template of compress_avx2.c and compress_avx512.c (included once each): a
 * compressed clip's lane group of 8 float32 LINEAR rotation tracks (compress_decode.c), its
 * decoded keys made unit quaternions and their slerp at one parameter, the operations of the
 * portable code on each lane (rotation_row and qunit, qslerp_at: qmath.h), in its order and
 * without fused multiply-adds, so that every lane gets its bits.  The includer defines
 * SLERP_NAME, UNIT_NAME and KEYS_NAME (the functions' names), SINCOS8(x, &s, &c): sincos_slerp
 * of 8 floats in [0, pi/2] (its Taylor polynomials in double, rounded to float) and ATAN8(y, x):
 * atan2_lanes (compress_decode.c) of 8 pairs of floats >= 0. */
#include <immintrin.h>

/* The samples of 8 lanes at parameter s (0 < s < 1): a, b the keys and k the constants of
 * qslerp_key, each [component][lane] (4 x 8 floats), into o [component][lane].  Returns 0 when
 * a lane leaves the polynomials' range (then nothing is written: the caller takes the portable
 * code), else 1. */
int SLERP_NAME(const float *a, const float *b, const float *k, float s, float *o)
{
    __m256 t = _mm256_set1_ps(s), phi = _mm256_loadu_ps(k);
    __m256 big = _mm256_cmp_ps(_mm256_mul_ps(phi, phi), _mm256_set1_ps(FLT_EPSILON), _CMP_GE_OQ);
    __m256 x = _mm256_mul_ps(t, phi), st, ct;
    /* sincos_slerp's polynomials hold for 0 <= x <= pi/2 (as double): up to the float below
       pi/2 (0x1.921fb4p+0; the float nearest it lies above) */
    __m256 in = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ),
                              _mm256_cmp_ps(x, _mm256_set1_ps(0x1.921fb4p+0f), _CMP_LE_OQ));
    if (_mm256_movemask_ps(_mm256_andnot_ps(in, big)))
        return 0;
    SINCOS8(x, &st, &ct);
    __m256 w1 = _mm256_div_ps(st, _mm256_loadu_ps(k + 8));
    __m256 w0 = _mm256_sub_ps(ct, _mm256_mul_ps(_mm256_loadu_ps(k + 16), w1));
    w0 = _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(1), t), w0, big);
    w1 = _mm256_mul_ps(_mm256_blendv_ps(t, w1, big), _mm256_loadu_ps(k + 24));
    for (int c = 0; c < 4; c++)
        _mm256_storeu_ps(o + 8 * c, _mm256_add_ps(_mm256_mul_ps(w0, _mm256_loadu_ps(a + 8 * c)),
                                                  _mm256_mul_ps(w1, _mm256_loadu_ps(b + 8 * c))));
    return 1;
}

/* The keys of 8 lanes q [component][lane] made unit quaternions: lane l's component drop[l]
 * (0 in q; -1: none) restored as sqrt(1 - the sum of the others' squares) (0 from a sum of 1
 * on), then q / |q| where |q| > 0 */
void UNIT_NAME(float *q, const int32_t *drop)
{
    __m256 c[4], sum = _mm256_setzero_ps(), one = _mm256_set1_ps(1);
    __m256i d = _mm256_loadu_si256((const __m256i *)drop);
    for (int i = 0; i < 4; i++) {
        c[i] = _mm256_loadu_ps(q + 8 * i);
        sum = _mm256_add_ps(sum, _mm256_mul_ps(c[i], c[i]));
    }
    __m256 w = _mm256_and_ps(_mm256_sqrt_ps(_mm256_sub_ps(one, sum)),
                             _mm256_cmp_ps(sum, one, _CMP_LT_OQ));
    for (int i = 0; i < 4; i++)
        c[i] = _mm256_blendv_ps(c[i], w, _mm256_castsi256_ps(
                                    _mm256_cmpeq_epi32(d, _mm256_set1_epi32(i))));
    __m256 len2 = _mm256_mul_ps(c[0], c[0]);
    for (int i = 1; i < 4; i++)
        len2 = _mm256_add_ps(len2, _mm256_mul_ps(c[i], c[i]));
    __m256 pos = _mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_GT_OQ);
    __m256 r = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
    for (int i = 0; i < 4; i++)
        _mm256_storeu_ps(q + 8 * i, _mm256_blendv_ps(c[i], _mm256_mul_ps(c[i], r), pos));
}

/* The slerp constants of qslerp_key (qmath.h) of 8 lanes' keys a, b [component][lane] into k
 * [component][lane], its operations in its order, the arc tangent atan2_lanes' */
void KEYS_NAME(const float *a, const float *b, float *k)
{
    __m256 qa[4], qb[4], one = _mm256_set1_ps(1);
    for (int c = 0; c < 4; c++)
        qa[c] = _mm256_loadu_ps(a + 8 * c), qb[c] = _mm256_loadu_ps(b + 8 * c);
    __m256 d = _mm256_mul_ps(qa[0], qb[0]);
    for (int c = 1; c < 4; c++)
        d = _mm256_add_ps(d, _mm256_mul_ps(qa[c], qb[c]));
    __m256 sg = _mm256_blendv_ps(one, _mm256_set1_ps(-1), _mm256_cmp_ps(d, _mm256_setzero_ps(),
                                                                       _CMP_LT_OQ));
    __m256 dm = _mm256_setzero_ps(), dp = _mm256_setzero_ps();
    for (int c = 0; c < 4; c++) {
        __m256 sb = _mm256_mul_ps(sg, qb[c]);
        __m256 m = _mm256_sub_ps(qa[c], sb), p = _mm256_add_ps(qa[c], sb);
        dm = _mm256_add_ps(dm, _mm256_mul_ps(m, m));
        dp = _mm256_add_ps(dp, _mm256_mul_ps(p, p));
    }
    __m256 nm = _mm256_sqrt_ps(dm), np = _mm256_sqrt_ps(dp), r = _mm256_add_ps(dm, dp);
    __m256 two = _mm256_set1_ps(2);
    _mm256_storeu_ps(k, _mm256_mul_ps(two, ATAN8(nm, np)));
    _mm256_storeu_ps(k + 8, _mm256_div_ps(_mm256_mul_ps(_mm256_mul_ps(two, nm), np), r));
    _mm256_storeu_ps(k + 16, _mm256_div_ps(_mm256_sub_ps(dp, dm), r));
    _mm256_storeu_ps(k + 24, sg);
}
