/* fk_avx512.c -- float32 TRS forward kinematics with AVX-512 (compiled with -mavx512f -mavx512vl
 * -mfma -ffp-contract=off), called at the AVX-512 level for up to SK_FK_SIMD_MAX_JOINTS joints
 * and for ranges under SK_FK_AVX512_BELOW (8 MB) of matrices, where it is the faster (fk.c):
 * fk_avx2.c's kernel with the local matrices made 16 joints at once (the joints after the last
 * block of 16 in masked lanes, no one-joint code) and a joint's whole 4x4 in one register when
 * composing, with the same prefetching (fk_trs.h).  Every element takes fk_avx2.c's operations
 * in its order (fk_lanes.h), so the two levels give the same bits and fk.c may pick either for a
 * range.  About 32 instructions a joint against fk_avx2.c's 52 (22 in the compose loop against
 * 36, under 10 for the locals against 16); one thread, 2-vCPU Sapphire Rapids VM, against the
 * AVX2 kernel: J=24 B=256 +10%, B=1,024 +7-9%, B=4,096 +6%, J=64 B=256 +20-30%. */
#include <immintrin.h>
#include <string.h>

#include "simd.h"
#include "lanes8.h"

#define VEC __m512
#define LN(name) name##_16
#define MUL _mm512_mul_ps
#define ADD _mm512_add_ps
#define SUB _mm512_sub_ps
#define FMA _mm512_fmadd_ps
#define FMS _mm512_fmsub_ps
#define SET1 _mm512_set1_ps
#include "fk_lanes.h"

SK_TRANSPOSE4_IN_LANES(transpose4_lanes16, __m512, _mm512)

/* Local matrices 16 joints at a time: 4 registers of 4 quaternions, transposed inside their
 * 128-bit lanes, give lane 4g + m the joint 4m + g of the block; translations and scales are
 * deinterleaved into the same order and the 12 result registers transposed back, so that
 * register 4r + m of block b holds row r of joints 16b + 4m + g in its lanes g: */
#define LOC_ROW 64
#define LOC(j, r) (192 * ((j) / 16) + LOC_ROW * (r) + 16 * ((j) % 16 / 4) + 4 * ((j) % 4))

/* the bits of the floats start .. start + 15 of n valid ones (masked loads: the joints after
 * the last block of 16 are zeros in their lanes, and nothing past the pose is read) */
static inline __mmask16 valid(size_t n, size_t start)
{
    return n >= start + 16 ? 0xffff : n > start ? (__mmask16)((1u << (n - start)) - 1) : 0;
}

/* the x, y, z of the first cnt <= 16 triples p[0 ..] in the lanes' joint order: the first
 * permute takes float f of a and b (f mod 32), the second replaces the lanes with f >= 32 by
 * float f - 32 of c */
static inline void deinterleave3(const float *p, size_t cnt, __m512 o[3])
{
    const __m512i f0 = _mm512_setr_epi32(0, 12, 24, 36, 3, 15, 27, 39, 6, 18, 30, 42, 9, 21, 33,
                                         45); /* float of lane 4g + m's x: 3 (4m + g) */
    __m512 a = _mm512_maskz_loadu_ps(valid(3 * cnt, 0), p);
    __m512 b = _mm512_maskz_loadu_ps(valid(3 * cnt, 16), p + 16);
    __m512 c = _mm512_maskz_loadu_ps(valid(3 * cnt, 32), p + 32);
    for (int e = 0; e < 3; e++) {
        __m512i f = _mm512_add_epi32(f0, _mm512_set1_epi32(e));
        __mmask16 inc = _mm512_cmpge_epi32_mask(f, _mm512_set1_epi32(32));
        __m512i i2 = _mm512_mask_sub_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                             12, 13, 14, 15),
                                           inc, f, _mm512_set1_epi32(16));
        o[e] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, f, b), i2, c);
    }
}

/* loc = T R S of every joint of one pose, laid out as LOC; pq non-NULL: prefetch pq, pt, ps */
static void pose_locals(size_t J, const float *rot, const float *trans, const float *scale,
                        float *loc, const float *pq, const float *pt, const float *ps)
{
    for (size_t j = 0; j < J; j += 16) {
        size_t cnt = J - j < 16 ? J - j : 16;
        if (pq) /* the same joints of a pose ahead (pq, pt, ps), spread over the pose */
            for (int i = 0; i < 4; i++) {
                _mm_prefetch((const char *)(pq + 4 * j + 16 * i), _MM_HINT_T0);
                if (i < 3) {
                    _mm_prefetch((const char *)(pt + 3 * j + 16 * i), _MM_HINT_T0);
                    if (ps)
                        _mm_prefetch((const char *)(ps + 3 * j + 16 * i), _MM_HINT_T0);
                }
            }
        __m512 q[4], t[3], s[3], l[12];
        for (int i = 0; i < 4; i++)
            q[i] = _mm512_maskz_loadu_ps(valid(4 * cnt, 16 * (size_t)i), rot + 4 * j + 16 * i);
        transpose4_lanes16(q, 4, q);
        deinterleave3(trans + 3 * j, cnt, t);
        if (scale) { /* two calls: one local_trs_16(.., scale ? s : NULL, ..) spills s */
            deinterleave3(scale + 3 * j, cnt, s);
            local_trs_16(q, t, s, l);
        } else {
            local_trs_16(q, t, NULL, l);
        }
        transpose4_lanes16(l, 12, l);
        for (int e = 0; e < 12; e++)
            _mm512_storeu_ps(loc + 192 * (j / 16) + 16 * e, l[e]);
    }
}

/* world rows of one pose in `order`, fk_avx2.c's arithmetic with the parent's 4 rows in the 4
 * lanes of one register: row 3, zeroed by the first product, stays +0 through the FMAs (+0 + -0
 * is +0), and element 3 of each row adds the parent's, which its register holds in place, so that
 * row 3 becomes 0 0 0 1; plan[3k ..]: joint order[k]'s LOC(j, 0), 16 j and its parent's 16 p
 * (-1: a root); ahead non-NULL: the worlds of a pose ahead, whose lines are prefetched, one a
 * joint */
static void pose_compose(size_t J, const int32_t *plan, const float *loc, float *world,
                         const float *ahead)
{
    const __m512 last_row = _mm512_setr_ps(0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f,
                                           0.f, 0.f, 0.f, 0.f, 1.f);
    for (size_t k = 0; k < J; k++) {
        const float *lj = loc + plan[3 * k];
        float *o = world + plan[3 * k + 1];
        if (ahead)
            _mm_prefetch((const char *)(ahead + 16 * k), _MM_HINT_T0);
        __m512 l0 = _mm512_broadcast_f32x4(_mm_loadu_ps(lj));
        __m512 l1 = _mm512_broadcast_f32x4(_mm_loadu_ps(lj + LOC_ROW));
        __m512 l2 = _mm512_broadcast_f32x4(_mm_loadu_ps(lj + 2 * LOC_ROW));
        if (plan[3 * k + 2] < 0) {
            __m512 v = _mm512_mask_mov_ps(l0, 0x00f0, l1);
            v = _mm512_mask_mov_ps(v, 0x0f00, l2);
            _mm512_storeu_ps(o, _mm512_mask_mov_ps(v, 0xf000, last_row));
            continue;
        }
        __m512 m = _mm512_loadu_ps(world + plan[3 * k + 2]);
        __m512 v = _mm512_maskz_mul_ps(0x0fff, _mm512_permute_ps(m, 0x00), l0);
        v = _mm512_fmadd_ps(_mm512_permute_ps(m, 0x55), l1, v);
        v = _mm512_fmadd_ps(_mm512_permute_ps(m, 0xaa), l2, v);
        _mm512_storeu_ps(o, _mm512_mask_add_ps(v, 0x8888, v, m));
    }
}

#define FK_TRS sk_forward_kinematics_avx512
#define FK_STREAMS 0 /* its ranges, under 8 MB, never reach STREAM_BYTES */
#include "fk_trs.h"
