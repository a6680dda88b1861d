/* cclip_slerp.h -- template of compress_avx2.c and compress_avx512.c (included once each): the
 * float32 slerp of a compressed clip's lane group of 8 LINEAR rotation tracks at one parameter,
 * the operations of qslerp_at (qmath.h) on each lane, in its order and without fused
 * multiply-adds, so that every lane gets the bits of the portable code (compress_decode.c).
 * The includer defines NAME (the function's name) and SINCOS8(x, &s, &c): sincos_slerp of 8
 * floats in [0, pi/2] (its Taylor polynomials in double, rounded to float). */
#include <immintrin.h>

/* The samples of 8 lanes at parameter s (0 < s < 1): a, b the keys and k the constants of
 * qslerp_key, each [component][lane] (4 x 8 floats), into o [component][lane].  Returns 0 when
 * a lane leaves the polynomials' range (then nothing is written: the caller takes the portable
 * code), else 1. */
int NAME(const float *a, const float *b, const float *k, float s, float *o)
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
