/* cclip_lane_math.h -- template of a compressed clip's lane math (compress_decode.c), one
 * text for the portable code (a lane a float or double) and the SIMD code (compress_avx2.c: a
 * lane of a register), so that every lane rounds as the portable code does (each operation
 * rounded once: the build passes -ffp-contract=off).  The includer defines LV (the lane type),
 * LM (a comparison's type), LV_FN(name), LV_C(c) (a constant), LV_ADD, LV_SUB, LV_MUL, LV_DIV,
 * LV_SQRT, LV_LT, LV_GT, LV_GE, LV_SEL(m, f, t) (t where m holds, else f), LV_AND, LV_OR,
 * LV_ANDNOT(m, n) (n and not m) and LV_ALL(m) (m holds in every lane); LV_FLOAT32 for the
 * float32 slerp.
 *
 * unit: a decoded key made a unit quaternion (rotation_row's operations); keys and weights:
 * Shoemake's shortest-path slerp as qslerp_key and qslerp_at (qmath.h) compute it, for float32
 * in float32: the angle phi = 2 atan(|a - b'| / |a + b'|) in [0, pi/2], the weights
 * w1 = sin(t phi) / sin(phi), w0 = cos(t phi) - sin(t phi) cos(phi) / sin(phi), with Cephes'
 * single-precision polynomials (S. L. Moshier, Cephes atanf.c and sinf.c: atan on |z| <=
 * tan(pi/8), sin and cos on [0, pi/4], a few float32 ulps; beyond them atan(z) = pi/4 +
 * atan((z - 1) / (z + 1)) and the co-functions of pi/2 - x). */

/* the keys c[4] made unit: a dropped component (where drop[i]) restored as sqrt(1 - the
 * others' squares) (0 from a sum of 1 on); then c / |c| where |c| > 0 unless c was so restored
 * from a sum below 1 (unit to rounding then) */
static inline void LV_FN(lane_unit)(LV c[4], const LM drop[4])
{
    LV sum = LV_C(0), one = LV_C(1);
    for (int i = 0; i < 4; i++) {
        c[i] = LV_SEL(drop[i], c[i], LV_C(0));
        sum = LV_ADD(sum, LV_MUL(c[i], c[i]));
    }
    LM below = LV_LT(sum, one);
    LV w = LV_SEL(below, LV_C(0), LV_SQRT(LV_SUB(one, sum)));
    for (int i = 0; i < 4; i++)
        c[i] = LV_SEL(drop[i], c[i], w);
    LM restored = LV_AND(below, LV_OR(LV_OR(drop[0], drop[1]), LV_OR(drop[2], drop[3])));
    if (LV_ALL(restored))
        return;
    LV len2 = LV_MUL(c[0], c[0]);
    for (int i = 1; i < 4; i++)
        len2 = LV_ADD(len2, LV_MUL(c[i], c[i]));
    LM scale = LV_ANDNOT(restored, LV_GT(len2, LV_C(0)));
    LV r = LV_DIV(one, LV_SQRT(len2));
    for (int i = 0; i < 4; i++)
        c[i] = LV_SEL(scale, c[i], LV_MUL(c[i], r));
}

#ifdef LV_FLOAT32
/* atan(y / x) of y, x >= 0 with y <= x (a little more: rounding; 0 for 0 / 0): beyond
 * tan(pi/8) pi/4 + atan((y - x) / (y + x)) */
static inline LV LV_FN(lane_atan)(LV y, LV x)
{
    LM reduce = LV_GT(y, LV_MUL(LV_C(0.414213562373095f), x));
    LV num = LV_SEL(reduce, y, LV_SUB(y, x)), den = LV_SEL(reduce, x, LV_ADD(y, x));
    LV z = LV_SEL(LV_GT(den, LV_C(0)), LV_C(0), LV_DIV(num, den)), z2 = LV_MUL(z, z);
    LV p = LV_ADD(LV_MUL(LV_C(8.05374449538e-2f), z2), LV_C(-1.38776856032e-1f));
    p = LV_ADD(LV_MUL(p, z2), LV_C(1.99777106478e-1f));
    p = LV_ADD(LV_MUL(p, z2), LV_C(-3.33329491539e-1f));
    p = LV_ADD(LV_MUL(LV_MUL(p, z2), z), z);
    return LV_SEL(reduce, p, LV_ADD(LV_C(0.785398163397448f), p));
}

/* the slerp constants of keys a, b (unit): k = (phi, sign(a.b) / sin(phi), cos(phi) / sin(phi))
 * (0, 0, 0 where a = b'), sin and cos from the half-angle chords as qslerp_key's: sin(phi) =
 * 2 |a - b'| |a + b'| / r, cos(phi) = (|a + b'|^2 - |a - b'|^2) / r */
static inline void LV_FN(lane_keys)(const LV a[4], const LV b[4], LV k[3])
{
    LV d = LV_MUL(a[0], b[0]), zero = LV_C(0), two = LV_C(2);
    for (int c = 1; c < 4; c++)
        d = LV_ADD(d, LV_MUL(a[c], b[c]));
    LV sg = LV_SEL(LV_LT(d, zero), LV_C(1), LV_C(-1));
    LV dm = zero, dp = zero;
    for (int c = 0; c < 4; c++) {
        LV sb = LV_MUL(sg, b[c]);
        LV m = LV_SUB(a[c], sb), p = LV_ADD(a[c], sb);
        dm = LV_ADD(dm, LV_MUL(m, m));
        dp = LV_ADD(dp, LV_MUL(p, p));
    }
    LV nm = LV_SQRT(dm), np = LV_SQRT(dp);   /* np >= nm: a.b' >= 0 */
    LM apart = LV_GT(nm, zero);
    LV q = LV_DIV(LV_C(1), LV_MUL(LV_MUL(two, nm), np));
    k[0] = LV_MUL(two, LV_FN(lane_atan)(nm, np));
    k[1] = LV_SEL(apart, zero, LV_MUL(LV_MUL(LV_ADD(dm, dp), q), sg));
    k[2] = LV_SEL(apart, zero, LV_MUL(LV_SUB(dp, dm), q));
}

/* the slerp's weights w0, w1 (w1 with the sign of a.b) at t in (0, 1) from k (lane_keys):
 * sin(t phi) k[1] and cos(t phi) - sin(t phi) k[2], (1, 0) where a = b'.  Accurate at small
 * angles too: phi and sin(phi) come from the same chord |a - b'|, whose rounding moves their
 * ratio by phi^2 of it */
static inline void LV_FN(lane_weights)(const LV k[3], LV t, LV *w0, LV *w1)
{
    LV x = LV_MUL(t, k[0]);
    LM flip = LV_GT(x, LV_C(0.785398163397448f));
    LV y = LV_SEL(flip, x, LV_ADD(LV_SUB(LV_C(1.57079637f), x), LV_C(-4.37113883e-8f)));
    LV y2 = LV_MUL(y, y);
    LV sn = LV_ADD(LV_MUL(LV_C(-1.9515295891e-4f), y2), LV_C(8.3321608736e-3f));
    sn = LV_ADD(LV_MUL(sn, y2), LV_C(-1.6666654611e-1f));
    sn = LV_ADD(LV_MUL(LV_MUL(sn, y2), y), y);
    LV cs = LV_ADD(LV_MUL(LV_C(2.443315711809948e-5f), y2), LV_C(-1.388731625493765e-3f));
    cs = LV_ADD(LV_MUL(cs, y2), LV_C(4.166664568298827e-2f));
    cs = LV_ADD(LV_SUB(LV_MUL(LV_MUL(cs, y2), y2), LV_MUL(LV_C(0.5f), y2)), LV_C(1));
    LV st = LV_SEL(flip, sn, cs), ct = LV_SEL(flip, cs, sn);
    *w0 = LV_SUB(ct, LV_MUL(st, k[2]));
    *w1 = LV_MUL(st, k[1]);
}
#endif
