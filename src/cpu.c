/* cpu.c -- which SIMD variant the kernels use: the best one the build has and the CPU supports
 * (AVX-512 F/VL/DQ/BW, else AVX2/FMA, else portable C), unless the host capped it with
 * sk_set_simd. */
#include "simd.h"

static int simd_state = -1; /* -1 undecided, else an enum sk_simd_level */

/* GCC and Clang (also clang-cl) ask the CPU through their builtins; MSVC through CPUID: leaf 1
 * ECX bits 12 (FMA), 27 (OSXSAVE) and 28 (AVX), XCR0 bits 1-2 (the OS saves the YMM registers),
 * leaf 7 EBX bit 5 (AVX2) -- Intel SDM vol. 2A, CPUID.  MSVC builds have no AVX-512 variant.
 * Other compilers take the portable C. */
#if defined(SK_HAVE_AVX2) && !defined(__GNUC__) && !defined(__clang__) && defined(_MSC_VER)
#include <immintrin.h>
#include <intrin.h>
#endif

static int cpu_best(void)
{
#if defined(SK_HAVE_AVX2) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
#if defined(SK_HAVE_AVX512)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
        return SK_SIMD_AVX512;
#endif
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return SK_SIMD_AVX2;
#elif defined(SK_HAVE_AVX2) && defined(_MSC_VER)
    int r[4];
    __cpuid(r, 0);
    if (r[0] < 7)
        return SK_SIMD_BASELINE;
    __cpuid(r, 1);
    const int fma = (r[2] >> 12) & 1, osxsave = (r[2] >> 27) & 1, avx = (r[2] >> 28) & 1;
    if (!(fma && osxsave && avx) || (_xgetbv(0) & 6) != 6)
        return SK_SIMD_BASELINE;
    __cpuidex(r, 7, 0);
    if ((r[1] >> 5) & 1)
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
