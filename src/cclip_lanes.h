/* cclip_lanes.h -- template of compress_avx2.c and compress_avx512.c (included once each): a
 * compressed clip's float32 lane group of SK_CLANES LINEAR rotation tracks (compress_decode.c),
 * VL lanes a register, the math of cclip_lane_math.h (the portable code's, so every lane gets
 * its bits whatever the SIMD level).  The includer defines the names UNIT_NAME, KEYS_NAME and
 * SLERP_NAME, VL, cclip_lane_math.h's LV, LM and operations, LV_LOAD(p), LV_STORE(p, v),
 * LV_DROP(d, i) (the lanes whose int32 of d == i) and STORE_AOS(r, o) (the 4 registers r
 * [component] as VL quaternions at o, lane after lane).
 * Each function takes the n lanes in use (those from n on are computed to their register's
 * end, their results unused). */
#include <immintrin.h>

#define LV_FLOAT32 1
#define LV_FN(name) name
#include "cclip_lane_math.h"

/* The keys q [component][lane] (SK_CLANES lanes, the dropped component drop[l], -1 for none)
 * made unit quaternions, in place and at q + 4 SK_CLANES [lane][component] */
void UNIT_NAME(float *q, const int32_t *drop, int n)
{
    for (int h = 0; h < n; h += VL) {
        LV c[4];
        LM dm[4];
        for (int i = 0; i < 4; i++) {
            c[i] = LV_LOAD(q + SK_CLANES * i + h);
            dm[i] = LV_DROP(drop + h, i);
        }
        lane_unit(c, dm);
        for (int i = 0; i < 4; i++)
            LV_STORE(q + SK_CLANES * i + h, c[i]);
        STORE_AOS(c, q + 4 * SK_CLANES + 4 * h);
    }
}

/* The slerp constants (lane_keys) of the keys a, b [component][lane] into k [constant][lane] */
void KEYS_NAME(const float *a, const float *b, float *k, int n)
{
    for (int h = 0; h < n; h += VL) {
        LV qa[4], qb[4], kc[4];
        for (int c = 0; c < 4; c++)
            qa[c] = LV_LOAD(a + SK_CLANES * c + h), qb[c] = LV_LOAD(b + SK_CLANES * c + h);
        lane_keys(qa, qb, kc);
        for (int c = 0; c < 4; c++)
            LV_STORE(k + SK_CLANES * c + h, kc[c]);
    }
}

/* The slerp of the keys a, b [component][lane] (constants k) at s in (0, 1) into o
 * [lane][component] */
void SLERP_NAME(const float *a, const float *b, const float *k, float s, float *o, int n)
{
    for (int h = 0; h < n; h += VL) {
        LV kc[4], w0, w1, r[4];
        for (int c = 0; c < 4; c++)
            kc[c] = LV_LOAD(k + SK_CLANES * c + h);
        lane_weights(kc, LV_C(s), &w0, &w1);
        for (int c = 0; c < 4; c++)
            r[c] = LV_ADD(LV_MUL(w0, LV_LOAD(a + SK_CLANES * c + h)),
                          LV_MUL(w1, LV_LOAD(b + SK_CLANES * c + h)));
        STORE_AOS(r, o + 4 * h);
    }
}
