/* compress_encode.c -- the encoder's inner loops (skinkit.model.compress): the fractions and
 * widths of a range layout at every bit rate (_Quantizer), a rotation track's unit keys and
 * the component it leaves out (_group_levels), a track's keys, each
 * component a fraction of its segment's range, rounded to its bits and packed as the decoder
 * reads them (compress_decode.c; _Quantizer.track), and the bound of the object-space error
 * tracks cause alone at a level (_track_errors), a track's bit rates straight from its
 * fractions (_Levels.bounds).  Plain C99, doubles: the fractions are NumPy's
 * float64, and the codes are those of np.clip(np.rint(unit * (2^w - 1)), 0, 2^w - 1). */
#include <math.h>
#include <string.h>

#include "skinkit.h"
#include "simd.h"

size_t sk_code_bytes(size_t rows, size_t ncomp, const uint8_t *widths, size_t per)
{
    size_t bits = 0;
    for (size_t r = 0; r < rows; r += per) {
        size_t n = rows - r < per ? rows - r : per, w = 0;
        for (size_t c = 0; c < ncomp; c++)
            w += widths[r / per * ncomp + c];
        bits += n * w;
    }
    return (bits + 7) / 8;
}

void sk_quantize_codes(size_t rows, size_t ncomp, const double *unit, const uint8_t *widths,
                       size_t per, uint8_t *SK_RESTRICT out)
{
    uint64_t acc = 0;      /* bits not yet written, the first in bit 0 */
    unsigned held = 0;
    memset(out, 0, sk_code_bytes(rows, ncomp, widths, per));
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *w = widths + r / per * ncomp;
        for (size_t c = 0; c < ncomp; c++) {
            if (w[c] == 0)
                continue;
            double scale = (double)((UINT64_C(1) << w[c]) - 1);
            double x = rint(unit[r * ncomp + c] * scale);
            x = x > scale ? scale : x;
            acc |= (uint64_t)(x > 0 ? x : 0) << held;
            for (held += w[c]; held >= 8; held -= 8, acc >>= 8)
                *out++ = (uint8_t)acc;
        }
    }
    if (held)
        *out = (uint8_t)acc;
}

void sk_unit_rotations(size_t tracks, size_t keys, const double *values,
                       double *SK_RESTRICT src, double *SK_RESTRICT stored,
                       int64_t *SK_RESTRICT dropped)
{
    for (size_t m = 0; m < tracks; m++) {
        const double *v = values + m * keys * 4;
        double *u = src + m * keys * 4, least[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
        for (size_t i = 0; i < keys; i++) {
            const double *q = v + 4 * i;
            double n = sqrt(((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]) + q[3] * q[3]);
            n = n >= 1e-300 || n != n ? n : 1e-300;                     /* as np.maximum */
            for (int c = 0; c < 4; c++) {
                double a = q[c] / n;
                u[4 * i + c] = a;
                a = fabs(a);
                least[c] = a < least[c] || a != a ? a : least[c];       /* as np.minimum */
            }
        }
        int d = 0;                              /* as np.argmax: the first largest, or NaN */
        for (int c = 1; c < 4 && least[d] == least[d]; c++)
            d = least[c] > least[d] || least[c] != least[c] ? c : d;
        dropped[m] = d;
        for (size_t i = 0; i < keys; i++) {
            double *q = u + 4 * i, *out = stored + (m * keys + i) * 3;
            if (q[d] < 0)
                for (int c = 0; c < 4; c++)
                    q[c] = -q[c];
            q[d] = fabs(q[d]);
            for (int c = 0, k = 0; c < 4; c++)
                if (c != d)
                    out[k++] = q[c];
        }
    }
}

void sk_rate_layout(const sk_rate_layout_job *job)
{
    size_t R = job->rates, S = job->segments, C = job->ncomp, N = job->rows;
    for (size_t m = 0; m < job->tracks; m++) {
        const double *v = job->values + m * N * C, *rg = job->ranges + m * S * 2 * C;
        const double *ext = job->extent + m * C;
        double *u = job->unit + m * N * C;
        uint8_t *w = job->widths + m * R * S * C;
        int64_t *bits = job->bits + m * R * (S + 1);
        double widest = 0;
        for (size_t c = 0; c < C; c++)
            widest = ext[c] > widest ? ext[c] : widest;
        for (size_t k = 0; k < R; k++)
            bits[k * (S + 1)] = 0;
        for (size_t s = 0; s < S; s++) {
            const double *lo = rg + s * 2 * C, *se = lo + C;
            size_t r0 = s * job->per, r1 = r0 + job->per < N ? r0 + job->per : N;
            for (size_t r = r0; r < r1; r++)
                for (size_t c = 0; c < C; c++)
                    u[r * C + c] = (v[r * C + c] - lo[c]) / (se[c] > 0 ? se[c] : 1.0);
            for (size_t k = 0; k < R; k++) {
                int64_t seg = 0;
                for (size_t c = 0; c < C; c++) {
                    int width = 0;
                    if (se[c] > 0 && ext[c] > 0) {
                        /* floor(log2(ratio)): frexp's exponent less one (exact) */
                        double ratio = widest / se[c];
                        int e = 0, level = job->rate[k];
                        if (isfinite(ratio))
                            frexp(ratio, &e);
                        width = isfinite(ratio) ? level - (e - 1) : 1;
                        width = width < 1 ? 1 : width > level ? level : width;
                    }
                    w[(k * S + s) * C + c] = (uint8_t)width;
                    seg += width;
                }
                bits[k * (S + 1) + s + 1] = bits[k * (S + 1) + s] + seg * (int64_t)(r1 - r0);
            }
        }
    }
}

/* the error of a against b (n components each): the chord to the nearer of b and -b
   (rotation), else the largest component difference */
static double key_error(const double *a, const double *b, size_t n, int rotation)
{
    double e = 0;
    if (rotation) {
        double dot = 0, sq = 0;
        for (size_t c = 0; c < n; c++)
            dot += a[c] * b[c];
        double sign = dot >= 0 ? 1 : -1;
        for (size_t c = 0; c < n; c++) {
            double d = a[c] - sign * b[c];
            sq += d * d;
        }
        return sqrt(sq);
    }
    for (size_t c = 0; c < n; c++) {
        double d = fabs(a[c] - b[c]);
        e = d > e ? d : e;
    }
    return e;
}

double sk_round24(double x)
{
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = (u + 0x80u) & 0xFFFFFF00u;           /* a carry out of the top bit wraps, as NumPy's */
    memcpy(&f, &u, sizeof f);
    return f;
}

/* v (full components): stored (ncomp) with component dropped restored, >= 0, where dropped >=
   0 (sqrt(max(1 - the others' squares, 0)), as np.maximum) */
static void restored(const double *stored, size_t ncomp, int dropped, double *v)
{
    if (dropped < 0) {
        for (size_t j = 0; j < ncomp; j++)
            v[j] = stored[j];
        return;
    }
    double sq = stored[0] * stored[0], w;
    for (size_t j = 1; j < ncomp; j++)
        sq += stored[j] * stored[j];
    w = 1 - sq;
    w = w >= 0 || w != w ? w : 0;
    for (size_t j = 0, at = 0; j <= ncomp; j++)
        v[j] = j == (size_t)dropped ? sqrt(w) : stored[at++];
}

void sk_track_bounds(const sk_track_bounds_job *job)
{
    const size_t T = job->times, M = job->tracks, c = job->ncomp, L = SK_TRACK_LEVELS;
    const size_t full = job->dropped ? c + 1 : c;
    for (size_t k = 0; k < M * L; k++)
        job->bound[k] = 0;
    int four = 0;
#if defined(SK_HAVE_AVX2)
    four = sk_simd() >= SK_SIMD_AVX2;        /* the first four levels a level a lane */
    if (four)
        sk_track_bounds4_avx2(job);
#endif
    for (size_t t = 0; t < T; t++) {
        for (size_t m = 0; m < M; m++) {
            const double *a = job->src + (t * M + m) * full, *key = job->keys + (m * T + t) * c;
            const double *cst = job->constants + m * 2 * c;
            double lever = job->lever[t * M + m], *b = job->bound + m * L;
            for (size_t l = four ? 4 : 0; l < L; l++) {
                double s[4] = {0, 0, 0, 0}, v[5];
                if (l < 4) {             /* RAW, CONSTANT, CONSTANT24, KEYS24, restored */
                    for (size_t j = 0; j < c; j++)
                        s[j] = l == 0 ? key[j] : l == 1 ? cst[j] : l == 2 ? cst[c + j]
                                                                   : sk_round24(key[j]);
                    restored(s, c, job->dropped ? job->dropped[m] : -1, v);
                } else {                 /* DEFAULT: the rest pose as it is */
                    for (size_t j = 0; j < full; j++)
                        v[j] = job->rest[m * full + j];
                }
                double e = key_error(a, v, full, job->rotation) * lever;
                b[l] = e > b[l] || e != e ? e : b[l];          /* NaN kept, as np.max */
            }
        }
    }
}

/* the keys of one segment of one quantized track at one bit rate (sk_rate_bounds): key i's
   fractions are row row0 + i step of unit (ncomp a row), its value lo + min(max(rint(u scale),
   0) / scale, 1) ext per component (0 where scale is 0), with component dropped (>= 0)
   restored; src (keys x (ncomp + (dropped >= 0))), lever (keys) */
typedef struct {
    const double *unit, *lo, *ext, *scale, *src, *lever;
    size_t ncomp, row0, step;
    int dropped, rotation;
} sk_rate_keys;

/* key i of a segment: lever times its error (the portable code; compress_encode_avx2.c does
   four rates with the same operations in the same order) */
static double key_bound(const sk_rate_keys *r, size_t i)
{
    size_t c = r->ncomp;
    const double *u = r->unit + (r->row0 + i * r->step) * c;
    double v[5], sq = 0;
    for (size_t j = 0; j < c; j++) {
        /* rint(x) as (x + 2^52) - 2^52, inline (a call to rint otherwise): exact for 0 <= x <
           2^52 (q above 1 is clipped anyway); a fraction below 0 rounds to 0 either way */
        double x = u[j] * r->scale[j];
        x = x > 0 || x != x ? x : 0;     /* NaN kept */
        double q = r->scale[j] > 0 ? ((x + 0x1p52) - 0x1p52) / r->scale[j] : 0;
        q = q > 1 ? 1 : q;
        v[j] = r->lo[j] + q * r->ext[j];
        sq += v[j] * v[j];
    }
    if (r->dropped >= 0) {   /* the dropped component restored, >= 0 */
        for (size_t j = c; j > (size_t)r->dropped; j--)
            v[j] = v[j - 1];
        v[r->dropped] = sq < 1 ? sqrt(1 - sq) : 0;
    }
    size_t full = r->dropped >= 0 ? c + 1 : c;
    return key_error(r->src + i * full, v, full, r->rotation) * r->lever[i];
}

/* track m of the job at rate k */
static double rate_bound(const sk_rate_bounds_job *job, size_t m, size_t k)
{
    int dropped = job->dropped[m];
    size_t c = job->ncomp, full = dropped >= 0 ? c + 1 : c;
    const double *ranges = job->ranges + m * job->segments * 2 * c;
    const uint8_t *widths = job->widths + m * job->rates * job->segments * c;
    double scale[4], worst = 0;
    sk_rate_keys r = {job->unit + m * job->rows * c, NULL, NULL, scale,
                      job->src + m * job->keys * full, job->lever + m * job->keys, c,
                      job->row0, job->step, dropped, job->rotation};
    size_t i = 0;
    for (size_t seg = 0; seg < job->segments; seg++) {
        const uint8_t *w = widths + (k * job->segments + seg) * c;
        r.lo = ranges + seg * 2 * c;
        r.ext = r.lo + c;
        for (size_t j = 0; j < c; j++)
            scale[j] = (double)((UINT64_C(1) << w[j]) - 1);
        /* the keys of this segment: rows row0 + i step below (seg + 1) per */
        size_t end = sk_segment_keys(job, i, seg);
        for (; i < end; i++) {
            double e = key_bound(&r, i);
            worst = e > worst || e != e ? e : worst;    /* NaN kept, as np.max */
        }
    }
    return worst;
}

size_t sk_segment_keys(const sk_rate_bounds_job *job, size_t i, size_t seg)
{
    while (i < job->keys && job->row0 + i * job->step < (seg + 1) * job->per)
        i++;
    return i;
}

void sk_rate_bounds(const sk_rate_bounds_job *job)
{
    const size_t R = job->rates;
    for (size_t m = 0; m < job->tracks; m++) {
        const uint8_t *want = job->want ? job->want + m * R : NULL;
        double *bound = job->bound + m * R;
        size_t k = 0;
#if defined(SK_HAVE_AVX2)
        if (sk_simd() >= SK_SIMD_AVX2)     /* four rates a register */
            for (; k < R; k += 4) {
                size_t lanes = R - k < 4 ? R - k : 4;
                int any = !want;
                for (size_t l = 0; l < lanes; l++)
                    any |= want && want[k + l];
                double b[4] = {0, 0, 0, 0};
                if (any)
                    sk_rate_bounds4_avx2(job, m, k, lanes, b);
                for (size_t l = 0; l < lanes; l++)
                    bound[k + l] = !want || want[k + l] ? b[l] : 0;
            }
#endif
        for (; k < R; k++)
            bound[k] = !want || want[k] ? rate_bound(job, m, k) : 0;
    }
}
