/* fk_avx2.c -- float32 forward kinematics (TRS and rigid) with AVX2/FMA (compiled with -mavx2
 * -mfma -ffp-contract=off, called only when cpu.c finds AVX2 and FMA, for up to
 * SK_FK_SIMD_MAX_JOINTS joints).
 * TRS: one pose at a time.  Its local matrices are made 8 joints at once (joint k of the block in
 * lane k: the inputs are contiguous, so a few shuffles transpose them), then each joint's world
 * is its parent's world times its local, one joint at a time, two rows a register.  A pose reads
 * and writes only its own rows, in order, so large batches stream through the cache (the former
 * 8-poses-side-by-side kernel kept 32 strided streams in flight and fell to a third of its speed
 * once the batch left the L2 cache).  The joints after the last block of 8 take the same
 * arithmetic on single floats (fk_lanes.h), so every joint of every pose gets the same bits
 * whatever the batch, range or thread (fk_avx512.c's 16-joint blocks give them too).  The loop
 * over the poses, and the streaming stores of large ranges, are fk_trs.h's.
 * Rigid: 8 poses side by side, one per lane: a joint's inputs of 8 poses are gathered and
 * transposed into structure-of-arrays form, one instruction advances the same joint of all 8,
 * and the results are transposed back; the parents' results stay in an SoA scratch on the
 * stack; the poses after the groups of 8 take the one-pose copy of the same arithmetic. */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "lanes8.h"

#define VEC float
#define LN(name) name##_1
#define MUL(a, b) ((a) * (b))
#define ADD(a, b) ((a) + (b))
#define SUB(a, b) ((a) - (b))
#define FMA(a, b, c) fmaf(a, b, c)
#define FMS(a, b, c) fmaf(a, b, -(c))
#define SET1(x) (x)
#include "fk_lanes.h"
#undef VEC
#undef LN
#undef MUL
#undef ADD
#undef SUB
#undef FMA
#undef FMS
#undef SET1
#define VEC __m256
#define LN(name) name##_8
#define MUL _mm256_mul_ps
#define ADD _mm256_add_ps
#define SUB _mm256_sub_ps
#define FMA _mm256_fmadd_ps
#define FMS _mm256_fmsub_ps
#define SET1 _mm256_set1_ps
#include "fk_lanes.h"

#define L 8 /* lanes: poses per group */

/* o[c] lane l = base[l * stride + off + c], c < 4 (n == 4) or c < 3 (n == 3: 4 floats loaded,
 * the 4th of the item's next 3-vector; masked loads, no read past the item, for its last one,
 * n == -3: masked loads cost 15% of the FK of 65,536 poses, where 3-vectors of the inputs came
 * from memory) */
static inline void gather(const float *base, ptrdiff_t stride, size_t off, int n, __m256 o[4])
{
    const __m128i m3 = _mm_setr_epi32(-1, -1, -1, 0);
    for (int i = 0; i < 4; i++) {
        const float *lo = base + (ptrdiff_t)i * stride + off, *hi = lo + 4 * stride;
        o[i] = n > 0 ? _mm256_set_m128(_mm_loadu_ps(hi), _mm_loadu_ps(lo))
                     : _mm256_set_m128(_mm_maskload_ps(hi, m3), _mm_maskload_ps(lo, m3));
    }
    transpose4_lanes8(o, 4, o); /* o[i] half h <-> column i of rows 4h..4h+3 */
}

/* base[l * stride + off + c] = v[c] lane l, c < 4 (n == 4) or c < 3 (n == 3: masked stores) */
static inline void scatter(const __m256 v[4], int n, float *base, ptrdiff_t stride, size_t off)
{
    const __m128i m3 = _mm_setr_epi32(-1, -1, -1, 0);
    __m256 r[4];
    transpose4_lanes8(v, 4, r);
    for (int l = 0; l < L; l++) {
        __m128 x = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        float *p = base + (ptrdiff_t)l * stride + off;
        if (n == 4)
            _mm_storeu_ps(p, x);
        else
            _mm_maskstore_ps(p, m3, x);
    }
}

/* Per pose: the local matrices of 8 joints at a time (storage order) as lanes, then each joint's
 * world = parent's world * local one joint at a time in `order`, the 4 floats of a row in one
 * register.  Its loc scratch keeps local rows in the lanes' layout, LOC(j, r): row r of joint j
 * (joint 8b + 4h + m is lane 4h .. 4h + 3 of register 4r + m of block b, 96 floats a block). */
#define LOC_ROW 32
#define LOC(j, r) (96 * ((j) / 8) + LOC_ROW * (r) + 8 * ((j) % 4) + 4 * ((j) % 8 / 4))

/* the x, y, z of 8 interleaved triples p[0 .. 23] as 3 registers */
static inline void deinterleave3(const float *p, __m256 o[3])
{
    __m256 a = _mm256_set_m128(_mm_loadu_ps(p + 12), _mm_loadu_ps(p));      /* x0y0z0x1 x4.. */
    __m256 b = _mm256_set_m128(_mm_loadu_ps(p + 16), _mm_loadu_ps(p + 4));  /* y1z1x2y2 */
    __m256 c = _mm256_set_m128(_mm_loadu_ps(p + 20), _mm_loadu_ps(p + 8));  /* z2x3y3z3 */
    __m256 xy = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2));
    __m256 yz = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1));
    o[0] = _mm256_shuffle_ps(a, xy, _MM_SHUFFLE(2, 0, 3, 0));
    o[1] = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    o[2] = _mm256_shuffle_ps(yz, c, _MM_SHUFFLE(3, 0, 3, 1));
}

/* loc = T R S of every joint of one pose, laid out as LOC; pq non-NULL: prefetch pq, pt, ps */
static void pose_locals(size_t J, const float *rot, const float *trans, const float *scale,
                        float *loc, const float *pq, const float *pt, const float *ps)
{
    size_t j = 0;
    for (; j + 8 <= J; j += 8) {
        if (pq) { /* the same joints of a pose ahead (pq, pt, ps), spread over the pose */
            _mm_prefetch((const char *)(pq + 4 * j), _MM_HINT_T0);
            _mm_prefetch((const char *)(pq + 4 * j + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(pt + 3 * j), _MM_HINT_T0);
            _mm_prefetch((const char *)(pt + 3 * j + 12), _MM_HINT_T0);
            if (ps) {
                _mm_prefetch((const char *)(ps + 3 * j), _MM_HINT_T0);
                _mm_prefetch((const char *)(ps + 3 * j + 12), _MM_HINT_T0);
            }
        }
        __m256 q[4], t[3], s[3], l[12];
        for (int m = 0; m < 4; m++)
            q[m] = _mm256_set_m128(_mm_loadu_ps(rot + 4 * (j + 4 + m)),
                                   _mm_loadu_ps(rot + 4 * (j + m)));
        transpose4_lanes8(q, 4, q);
        deinterleave3(trans + 3 * j, t);
        if (scale) { /* two calls: one local_trs_8(.., scale ? s : NULL, ..) spills s */
            deinterleave3(scale + 3 * j, s);
            local_trs_8(q, t, s, l);
        } else {
            local_trs_8(q, t, NULL, l);
        }
        transpose4_lanes8(l, 12, l);
        for (int e = 0; e < 12; e++)
            _mm256_storeu_ps(loc + 96 * (j / 8) + 8 * e, l[e]);
    }
    for (; j < J; j++) {
        float l[12];
        local_trs_1(rot + 4 * j, trans + 3 * j, scale ? scale + 3 * j : NULL, l);
        for (int r = 0; r < 3; r++)
            _mm_storeu_ps(loc + LOC(j, r), _mm_loadu_ps(l + 4 * r));
    }
}

/* world rows of one pose in `order`: o = m l row by row as fk.c, rows 0 and 1 in one register and
 * row 2 in another (its upper half, from the parent's last row, gives way to 0 0 0 1);
 * plan[3k ..]: joint order[k]'s LOC(j, 0), 16 j and its parent's 16 p (-1: a root); ahead
 * non-NULL: the worlds of a pose ahead, whose lines are prefetched, one a joint */
static void pose_compose(size_t J, const int32_t *plan, const float *loc, float *world,
                         const float *ahead)
{
    const __m256 last_row = _mm256_setr_ps(0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 1.f);
    for (size_t k = 0; k < J; k++) {
        const float *lj = loc + plan[3 * k];
        float *o = world + plan[3 * k + 1];
        if (ahead)
            _mm_prefetch((const char *)(ahead + 16 * k), _MM_HINT_T0);
        __m256 l0 = _mm256_broadcast_ps((const __m128 *)lj);
        __m256 l1 = _mm256_broadcast_ps((const __m128 *)(lj + LOC_ROW));
        __m256 l2 = _mm256_broadcast_ps((const __m128 *)(lj + 2 * LOC_ROW));
        if (plan[3 * k + 2] < 0) {
            _mm256_storeu_ps(o, _mm256_blend_ps(l0, l1, 0xf0));
            _mm256_storeu_ps(o + 8, _mm256_blend_ps(l2, last_row, 0xf0));
            continue;
        }
        const float *m = world + plan[3 * k + 2];
        for (int h = 0; h < 2; h++) {
            __m256 mm = _mm256_loadu_ps(m + 8 * h);
            __m256 v = _mm256_mul_ps(_mm256_permute_ps(mm, 0x00), l0);
            v = _mm256_fmadd_ps(_mm256_permute_ps(mm, 0x55), l1, v);
            v = _mm256_fmadd_ps(_mm256_permute_ps(mm, 0xaa), l2, v);
            v = _mm256_blend_ps(v, _mm256_add_ps(v, _mm256_permute_ps(mm, 0xff)), 0x88);
            _mm256_storeu_ps(o + 8 * h, h ? _mm256_blend_ps(v, last_row, 0xf0) : v);
        }
    }
}

#define FK_TRS sk_forward_kinematics_avx2
#define FK_STREAMS 1
#include "fk_trs.h"

/* libigl's recursion for joints in `order`; w is the SoA scratch (Q then t: 7 rows per joint) */
static void rigid_group(size_t J, const int32_t *parents, const int32_t *order, const float *rest,
                        ptrdiff_t sx, const float *rot, ptrdiff_t sr, float *out_rot,
                        ptrdiff_t sor, float *out_trans, ptrdiff_t sot, __m256 *w)
{
    for (size_t k = 0; k < J; k++) {
        size_t j = (size_t)order[k];
        __m256 q[4], x[4];
        gather(rot, sr, 4 * j, 4, q);
        gather(rest, sx, 3 * j, j + 1 < J ? 3 : -3, x);
        __m256 *Q = w + 7 * j, *t = Q + 4;
        int32_t par = parents[j];
        const __m256 *P = par < 0 ? NULL : w + 7 * (size_t)par;
        rigid_step_8(P, P ? P + 4 : NULL, q, x, Q, t);
        scatter(Q, 4, out_rot, sor, 4 * j);
        __m256 t4[4] = {t[0], t[1], t[2], t[2]};
        scatter(t4, 3, out_trans, sot, 3 * j);
    }
}

static void rigid_pose(size_t J, const int32_t *parents, const int32_t *order, const float *rest,
                       const float *rot, float *out_rot, float *out_trans)
{
    for (size_t k = 0; k < J; k++) {
        size_t j = (size_t)order[k];
        int32_t par = parents[j];
        rigid_step_1(par < 0 ? NULL : out_rot + 4 * (size_t)par,
                     par < 0 ? NULL : out_trans + 3 * (size_t)par, rot + 4 * j, rest + 3 * j,
                     out_rot + 4 * j, out_trans + 3 * j);
    }
}

void sk_rigid_forward_kinematics_avx2(size_t n, size_t J, const int32_t *parents,
                                      const int32_t *order, const float *rest, ptrdiff_t sx,
                                      const float *rot, ptrdiff_t sr, float *out_rot,
                                      ptrdiff_t sor, float *out_trans, ptrdiff_t sot)
{
    __m256 w[7 * SK_FK_SIMD_MAX_JOINTS];
    size_t i = 0;
    for (; i + L <= n; i += L)
        rigid_group(J, parents, order, at(rest, sx, i), sx, at(rot, sr, i), sr,
                    at_out(out_rot, sor, i), sor, at_out(out_trans, sot, i), sot, w);
    for (; i < n; i++)
        rigid_pose(J, parents, order, at(rest, sx, i), at(rot, sr, i), at_out(out_rot, sor, i),
                   at_out(out_trans, sot, i));
}
