/* cpu.c -- which SIMD variant the kernels use: the best one the build has and the CPU supports
 * (AVX-512 F/VL/DQ/BW, else AVX2/FMA, else portable C), unless the host capped it with
 * sk_set_simd. */
#include "simd.h"

static int simd_state = -1; /* -1 undecided, else an enum sk_simd_level */

static int cpu_best(void)
{
#if defined(SK_HAVE_AVX2)
    __builtin_cpu_init();
#if defined(SK_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
        return SK_SIMD_AVX512;
#endif
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return SK_SIMD_AVX2;
#endif
    return SK_SIMD_BASELINE;
}

int sk_simd(void)
{
    if (simd_state < 0)
        simd_state = cpu_best();
    return simd_state;
}

int sk_set_simd(int max_level)
{
    int best = cpu_best();
    simd_state = max_level < best ? (max_level < 0 ? SK_SIMD_BASELINE : max_level) : best;
    return simd_state;
}
