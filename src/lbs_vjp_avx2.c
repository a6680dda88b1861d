/* lbs_vjp_avx2.c -- the float32 loops of the linear blend skinning VJP (lbs_vjp.h) compiled
 * with -mavx2 -mfma, called only when cpu.c finds both: 8-lane loads and FMAs for the 12
 * entries of each slot (64 SMPL-sized poses 5.3 -> 4.5 ms, SMPL-X 14.3 -> 11.9 ms on one
 * core, standalone). */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lbs_vjp.h"

int sk_lbs_vjp_avx2(size_t n, size_t K, size_t J, const float *verts, ptrdiff_t sv,
                    const void *joints, ptrdiff_t sj, int itype, const float *weights,
                    ptrdiff_t sw, const float *mats, ptrdiff_t sm, const float *g, ptrdiff_t sg,
                    float *g_verts, ptrdiff_t sov, float *g_mats, ptrdiff_t som, size_t *bad)
{
    return FN(lbs_vjp_items)(n, K, J, verts, sv, joints, sj, itype, weights, sw, mats, sm, g,
                             sg, g_verts, sov, g_mats, som, bad);
}
