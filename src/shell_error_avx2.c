/* shell_error_avx2.c -- float64 sk_shell_error_fk (shell_error.c) with AVX2, at the AVX2 and
 * AVX-512 levels: four poses at once, a joint of each in the four lanes of a register (the
 * chain of a joint's ancestors, whose matrices follow one another, shared by four poses), the
 * poses' rows transposed into lanes on loading and back on storing.  Every element takes the
 * portable code's operations in its order (explicit operations, no FMAs; the file is compiled
 * with -ffp-contract=off), so every level gives the same bits.  One thread, 2-vCPU Sapphire
 * Rapids VM, against the portable code: a chain of 31 joints, 300 poses, 150 -> 117 us (all
 * joints), 31 -> 20 us (5 of them); 1,500 poses 773 -> 636 us, 357 -> 237 us; in compress on
 * CMU 27_06, 32 -> 25 ms a clip.  (Eight poses in AVX-512 registers, the same loads and stores
 * as two halves, were no faster.) */
#define SK_DOUBLE 1
#include "real.h"
#include "simd.h"

#include <immintrin.h>

/* o[e] = element e of a[0..3]: lanes are the four poses */
static inline void transpose4(const __m256d a[4], __m256d o[4])
{
    __m256d t0 = _mm256_unpacklo_pd(a[0], a[1]), t1 = _mm256_unpackhi_pd(a[0], a[1]);
    __m256d t2 = _mm256_unpacklo_pd(a[2], a[3]), t3 = _mm256_unpackhi_pd(a[2], a[3]);
    o[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    o[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    o[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    o[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* 4 doubles of each pose (p[g] + off), element e of them in o[e] */
static inline void load_row(const double *const p[4], size_t off, __m256d o[4])
{
    __m256d a[4];
    for (int g = 0; g < 4; g++)
        a[g] = _mm256_loadu_pd(p[g] + off);
    transpose4(a, o);
}

/* a 3-vector of each pose (v[g] + off), its components in lanes */
static inline void load3(const double *const v[4], size_t off, __m256d o[3])
{
    for (int c = 0; c < 3; c++)
        o[c] = _mm256_setr_pd(v[0][off + c], v[1][off + c], v[2][off + c], v[3][off + c]);
}

size_t sk_shell_error_fk4_avx2(const sk_shell_fk_job_d *job, int *above)
{
    static const double one[3] = {1, 1, 1};
    size_t n4 = job->n / 4 * 4;
    for (size_t i = 0; i < n4; i += 4) {
        const double *q[4], *t[4], *s[4], *ref[4];
        double *w[4], *err[4], shells[4];
        for (int g = 0; g < 4; g++) {
            size_t at = job->poses ? (size_t)job->poses[i + g] : i + g;
            q[g] = job->rot + at * job->rot_stride;
            t[g] = job->trans + at * job->trans_stride;
            s[g] = job->scale ? job->scale + at * job->scale_stride : NULL;
            ref[g] = job->reference + at * job->reference_stride;
            w[g] = job->world + at * job->world_stride;
            err[g] = job->error + at * job->error_stride;
            shells[g] = job->shell[at * job->shell_stride];
        }
        __m256d sh = _mm256_loadu_pd(shells), over = _mm256_setzero_pd();
        const __m256d limit = _mm256_set1_pd(job->limit);
        for (size_t k = 0; k < job->J; k++) {
            size_t j = (size_t)job->order[k];
            int32_t p = job->parents[j];
            if (job->mask && job->mask[j] == 0) {
                for (int g = 0; g < 4; g++)
                    err[g][j] = 0;
                continue;
            }
            /* the local matrix l = T R S: qmath.h's qmat and trs_world */
            __m256d qv[4], tv[3], sv[3], l[12];
            load_row(q, 4 * j, qv);
            load3(t, 3 * j, tv);
            if (job->scale) {
                load3(s, 3 * j, sv);
            } else {
                const double *ones[4] = {one, one, one, one};
                load3(ones, 0, sv);
            }
            __m256d x2 = _mm256_add_pd(qv[0], qv[0]), y2 = _mm256_add_pd(qv[1], qv[1]);
            __m256d z2 = _mm256_add_pd(qv[2], qv[2]);
            __m256d xx = _mm256_mul_pd(qv[0], x2), xy = _mm256_mul_pd(qv[0], y2);
            __m256d xz = _mm256_mul_pd(qv[0], z2), yy = _mm256_mul_pd(qv[1], y2);
            __m256d yz = _mm256_mul_pd(qv[1], z2), zz = _mm256_mul_pd(qv[2], z2);
            __m256d wx = _mm256_mul_pd(qv[3], x2), wy = _mm256_mul_pd(qv[3], y2);
            __m256d wz = _mm256_mul_pd(qv[3], z2), o1 = _mm256_set1_pd(1);
            l[0] = _mm256_sub_pd(o1, _mm256_add_pd(yy, zz));
            l[1] = _mm256_sub_pd(xy, wz);
            l[2] = _mm256_add_pd(xz, wy);
            l[4] = _mm256_add_pd(xy, wz);
            l[5] = _mm256_sub_pd(o1, _mm256_add_pd(xx, zz));
            l[6] = _mm256_sub_pd(yz, wx);
            l[8] = _mm256_sub_pd(xz, wy);
            l[9] = _mm256_add_pd(yz, wx);
            l[10] = _mm256_sub_pd(o1, _mm256_add_pd(xx, yy));
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++)
                    l[4 * r + c] = _mm256_mul_pd(l[4 * r + c], sv[c]);
                l[4 * r + 3] = tv[r];
            }
            /* world = parent's world . l, row r: (m_r0 l_0c + m_r1 l_1c) + m_r2 l_2c, plus m_r3
             * in column 3 */
            __m256d wv[12];
            if (p < 0) {
                for (int e = 0; e < 12; e++)
                    wv[e] = l[e];
            } else {
                const double *pw[4];
                for (int g = 0; g < 4; g++)
                    pw[g] = w[g] + 16 * (size_t)p;
                for (int r = 0; r < 3; r++) {
                    __m256d m[4];
                    load_row(pw, 4 * (size_t)r, m);
                    for (int c = 0; c < 4; c++)
                        wv[4 * r + c] = _mm256_add_pd(
                            _mm256_add_pd(_mm256_mul_pd(m[0], l[c]), _mm256_mul_pd(m[1], l[4 + c])),
                            _mm256_mul_pd(m[2], l[8 + c]));
                    wv[4 * r + 3] = _mm256_add_pd(wv[4 * r + 3], m[3]);
                }
            }
            /* stored back a pose a register; the error: vertex_error of shell_error.c */
            const __m256d last = _mm256_setr_pd(0, 0, 0, 1);
            __m256d d[12];
            for (int r = 0; r < 3; r++) {
                __m256d rows[4], b[4];
                transpose4(wv + 4 * r, rows);
                for (int g = 0; g < 4; g++)
                    _mm256_storeu_pd(w[g] + 16 * j + 4 * r, rows[g]);
                load_row(ref, 16 * j + 4 * (size_t)r, b);
                for (int c = 0; c < 4; c++)
                    d[4 * r + c] = _mm256_sub_pd(wv[4 * r + c], b[c]);
            }
            for (int g = 0; g < 4; g++)
                _mm256_storeu_pd(w[g] + 16 * j + 12, last);
            __m256d worst = _mm256_setzero_pd();
            for (int c = 0; c < 3; c++) {
                __m256d x = _mm256_add_pd(_mm256_mul_pd(sh, d[c]), d[3]);
                __m256d y = _mm256_add_pd(_mm256_mul_pd(sh, d[4 + c]), d[7]);
                __m256d z = _mm256_add_pd(_mm256_mul_pd(sh, d[8 + c]), d[11]);
                __m256d len = _mm256_sqrt_pd(_mm256_add_pd(
                    _mm256_add_pd(_mm256_mul_pd(x, x), _mm256_mul_pd(y, y)), _mm256_mul_pd(z, z)));
                __m256d take = _mm256_or_pd(_mm256_cmp_pd(len, worst, _CMP_GT_OQ),
                                            _mm256_cmp_pd(len, len, _CMP_UNORD_Q));
                worst = _mm256_blendv_pd(worst, len, take); /* len > worst || len != len */
            }
            double e4[4];
            _mm256_storeu_pd(e4, worst);
            for (int g = 0; g < 4; g++)
                err[g][j] = e4[g];
            over = _mm256_or_pd(over, _mm256_cmp_pd(worst, limit, _CMP_NLE_UQ)); /* !(<=) */
        }
        if (job->limit > 0 && _mm256_movemask_pd(over)) {
            *above = 1;
            return i + 4;
        }
    }
    return n4;
}
