/* real.h -- precision template: the build compiles each kernel source twice, with SK_DOUBLE
 * defined 0 and 1 (CMakeLists.txt).  Defines T (the real type), FN(name) (name_f or name_d)
 * and the math functions of T, so that one source gives the float and the double kernels (as
 * PyWavelets' templates). */
#ifndef SK_DOUBLE
#error "compile the kernels with SK_DOUBLE defined to 0 (float) or 1 (double)"
#endif
#include <math.h>
#include <float.h>
#include "skinkit.h"

#undef T
#undef FN
#undef SQRT
#undef SIN
#undef COS
#undef ATAN2
#undef FABS
#undef ACOS
#undef ASIN
#undef EPS
#if SK_DOUBLE
#define T double
#define FN(name) name##_d
#define SQRT sqrt
#define SIN sin
#define COS cos
#define ATAN2 atan2
#define FABS fabs
#define ACOS acos
#define ASIN asin
#define EPS DBL_EPSILON
#else
#define T float
#define FN(name) name##_f
#define SQRT sqrtf
#define SIN sinf
#define COS cosf
#define ATAN2 atan2f
#define FABS fabsf
#define ACOS acosf
#define ASIN asinf
#define EPS FLT_EPSILON
#endif

/* the kernel NAME over n items: ITEM(a + i * sa, [b + i * sb,] out + i * so) for every item i
   (quat.c, quat_vjp.c) */
#ifndef SK_MAP1
#define SK_MAP1(NAME, ITEM)                                                               \
    void FN(NAME)(size_t n, const T *a, ptrdiff_t sa, T *restrict out, ptrdiff_t so)      \
    {                                                                                     \
        for (size_t i = 0; i < n; i++)                                                    \
            ITEM(a + i * sa, out + i * so);                                               \
    }
#define SK_MAP2(NAME, ITEM)                                                               \
    void FN(NAME)(size_t n, const T *a, ptrdiff_t sa, const T *b, ptrdiff_t sb,           \
                  T *restrict out, ptrdiff_t so)                                          \
    {                                                                                     \
        for (size_t i = 0; i < n; i++)                                                    \
            ITEM(a + i * sa, b + i * sb, out + i * so);                                   \
    }
#endif
