/* lbs_vjp_avx2.c -- the float32 loops of the linear blend skinning VJP (lbs_vjp.h) compiled
 * with -mavx2 -mfma, called only when cpu.c finds both: 8-lane loads and FMAs for the 12
 * entries of each slot (64 SMPL-sized poses 5.3 -> 4.5 ms, SMPL-X 14.3 -> 11.9 ms on one
 * core, standalone). */
#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lbs_vjp.h"

int sk_lbs_vjp_avx2(const sk_skin_vjp_job_f *job)
{
    return FN(lbs_vjp_items)(job);
}
