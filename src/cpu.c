/* cpu.c -- which SIMD variant the kernels use: AVX2/FMA where the build has it and the CPU
 * supports it, unless the host turned it off with sk_set_simd(0). */
#include "simd.h"

static int simd_state = -1; /* -1 undecided, 0 portable C, 1 AVX2/FMA */

/* GCC and Clang (also clang-cl) ask the CPU through their builtins; MSVC through CPUID: leaf 1
 * ECX bits 12 (FMA), 27 (OSXSAVE) and 28 (AVX), XCR0 bits 1-2 (the OS saves the YMM registers),
 * leaf 7 EBX bit 5 (AVX2) -- Intel SDM vol. 2A, CPUID.  Other compilers take the portable C. */
#if defined(SK_HAVE_AVX2) && !defined(__GNUC__) && !defined(__clang__) && defined(_MSC_VER)
#include <immintrin.h>
#include <intrin.h>
#endif

static int cpu_has_avx2_fma(void)
{
#if defined(SK_HAVE_AVX2) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#elif defined(SK_HAVE_AVX2) && defined(_MSC_VER)
    int r[4];
    __cpuid(r, 0);
    if (r[0] < 7)
        return 0;
    __cpuid(r, 1);
    const int fma = (r[2] >> 12) & 1, osxsave = (r[2] >> 27) & 1, avx = (r[2] >> 28) & 1;
    if (!(fma && osxsave && avx) || (_xgetbv(0) & 6) != 6)
        return 0;
    __cpuidex(r, 7, 0);
    return (r[1] >> 5) & 1;
#else
    return 0;
#endif
}

int sk_simd(void)
{
    if (simd_state < 0)
        simd_state = cpu_has_avx2_fma();
    return simd_state;
}

void sk_set_simd(int enable)
{
    simd_state = enable ? cpu_has_avx2_fma() : 0;
}
