/* cpu.c -- which SIMD variant the kernels use: AVX2/FMA where the build has it and the CPU
 * supports it, unless the host turned it off with sk_set_simd(0). */
#include "simd.h"

static int simd_state = -1; /* -1 undecided, 0 portable C, 1 AVX2/FMA */

static int cpu_has_avx2_fma(void)
{
#if defined(SK_HAVE_AVX2)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
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
