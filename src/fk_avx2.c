/* fk_avx2.c -- float32 forward kinematics (TRS and rigid) with AVX2/FMA, 8 poses side by side
 * (compiled with -mavx2 -mfma -ffp-contract=off, called only when cpu.c finds AVX2 and FMA, for
 * up to SK_FK_SIMD_MAX_JOINTS joints).  Each lane is one pose: a joint's inputs of 8 poses are
 * loaded and transposed into structure-of-arrays form, one instruction then advances the same
 * joint of all 8, and the results are transposed back into each pose's rows.  The parents'
 * results stay in an SoA scratch on the stack.  The poses left over after the groups of 8 (and
 * a single pose) take a one-pose copy of the same arithmetic (fk_lanes.h), which gives the
 * same bits, so a pose's result does not depend on its group, range or thread. */
#include <immintrin.h>
#include <math.h>

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

/* item i of an array of stride s (NULL stays NULL: an absent optional input) */
static inline const float *at(const float *p, ptrdiff_t s, size_t i)
{
    return p ? p + (ptrdiff_t)i * s : NULL;
}

static inline float *at_out(float *p, ptrdiff_t s, size_t i)
{
    return p + (ptrdiff_t)i * s;
}

/* world = parent * (T R S) for joints in `order`; w is the SoA scratch (12 rows per joint) */
static void fk_group(size_t J, const int32_t *parents, const int32_t *order, const float *rot,
                     ptrdiff_t sr, const float *trans, ptrdiff_t st, const float *scale,
                     ptrdiff_t ss, float *world, ptrdiff_t sw, __m256 *w)
{
    const __m128 last_row = _mm_setr_ps(0.f, 0.f, 0.f, 1.f);
    for (size_t k = 0; k < J; k++) {
        size_t j = (size_t)order[k];
        __m256 q[4], t[4], s[4], l[12];
        int n3 = j + 1 < J ? 3 : -3; /* the item's last 3-vector: masked */
        gather(rot, sr, 4 * j, 4, q);
        gather(trans, st, 3 * j, n3, t);
        if (scale)
            gather(scale, ss, 3 * j, n3, s);
        local_trs_8(q, t, scale ? s : NULL, l);
        __m256 *o = w + 12 * j;
        int32_t par = parents[j];
        if (par < 0)
            for (int e = 0; e < 12; e++)
                o[e] = l[e];
        else
            compose_8(w + 12 * (size_t)par, l, o);
        for (int r = 0; r < 3; r++)
            scatter(o + 4 * r, 4, world, sw, 16 * j + 4 * r);
        for (int l2 = 0; l2 < L; l2++)
            _mm_storeu_ps(world + (ptrdiff_t)l2 * sw + 16 * j + 12, last_row);
    }
}

/* one pose, the same arithmetic on single floats */
static void fk_pose(size_t J, const int32_t *parents, const int32_t *order, const float *rot,
                    const float *trans, const float *scale, float *world)
{
    for (size_t k = 0; k < J; k++) {
        size_t j = (size_t)order[k];
        float l[12], *o = world + 16 * j;
        local_trs_1(rot + 4 * j, trans + 3 * j, scale ? scale + 3 * j : NULL, l);
        if (parents[j] < 0)
            for (int e = 0; e < 12; e++)
                o[e] = l[e];
        else
            compose_1(world + 16 * (size_t)parents[j], l, o);
        o[12] = 0.f, o[13] = 0.f, o[14] = 0.f, o[15] = 1.f;
    }
}

void sk_forward_kinematics_avx2(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                                const float *rot, ptrdiff_t sr, const float *trans, ptrdiff_t st,
                                const float *scale, ptrdiff_t ss, float *world, ptrdiff_t sw)
{
    __m256 w[12 * SK_FK_SIMD_MAX_JOINTS];
    size_t i = 0;
    for (; i + L <= n; i += L)
        fk_group(J, parents, order, at(rot, sr, i), sr, at(trans, st, i), st, at(scale, ss, i), ss,
                 at_out(world, sw, i), sw, w);
    for (; i < n; i++)
        fk_pose(J, parents, order, at(rot, sr, i), at(trans, st, i), at(scale, ss, i),
                at_out(world, sw, i));
}

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
