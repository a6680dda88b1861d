/* lbs_vjp.c -- vector-Jacobian product of linear blend skinning (positions):
 * v'_i = A_i [v_i; 1] with A_i = sum_k w_ik M_{j_ik} (rows 0..2), so for cotangents g_i:
 *   g_v_i = A_i[:, :3]^T g_i,    g_M_j += sum_{i,k: j_ik = j} w_ik g_i [v_i; 1]^T.
 * Items are vertices, as in lbs.c; g_mats is accumulated into (+=: the caller zeroes it), so
 * with stride som = 0 the vertices of one pose sum into that pose's matrices.  The loop is
 * written once per joint index type and specialised for K = 4 and 8, so that the compiler sees a
 * fixed type and trip count (3.5x faster than reading indices through a switch).  The loops
 * live in lbs_vjp.h; float32 runs them compiled with AVX2/FMA (lbs_vjp_avx2.c) when the CPU
 * has it (cpu.c). */
#include "simd.h"
#include "real.h"
#include "lbs_vjp.h"

int FN(sk_linear_blend_skinning_vjp)(const FN(sk_skin_vjp_job) *job)
{
#if !SK_DOUBLE && defined(SK_HAVE_AVX2)
    if (sk_simd() >= SK_SIMD_AVX2)
        return sk_lbs_vjp_avx2(job);
#endif
    return FN(lbs_vjp_items)(job);
}
