/* dqs_avx2.c -- one float32 pose of dual quaternion skinning with AVX2/FMA, for poses whose
 * joint records are all rigid (compiled with -mavx2 -mfma, called by dqs.c when cpu.c finds
 * both).  Per vertex the blend of its influences is one 8-lane FMA each on the record's
 * (q, d) = (real, dual) parts; 8 vertices' blends are then staged component by component and
 * normalized and applied 8 lanes at a time (Kavan et al. 2008, Algorithm 1, as dqs.c).  A
 * partial group pads its lanes with the identity, so a vertex gets the same bits whichever
 * group it falls in. */
#include <immintrin.h>

#define SK_DOUBLE 0
#include "real.h"
#include "simd.h"
#include "dqs_influence.h"
#include "lanes8.h"

/* the staged blends of 8 vertices: st[8 * l + c] = component c (b0..b3, e0..e3) of vertex l
 * (gathered by component); positions p[c * 8 + l] and normals n[c * 8 + l] (c < 3) */
typedef struct {
    float st[64], p[24], n[24];
} stage8;

/* apply the staged blends of cnt vertices, writing positions (and normals) */
static void apply8(stage8 *s, size_t cnt, float *op, float *on)
{
    for (size_t l = cnt; l < 8; l++) { /* padding: identity, zero position and normal */
        for (int c = 0; c < 8; c++)
            s->st[8 * l + c] = c == 3 ? 1.f : 0.f;
        for (int c = 0; c < 3; c++)
            s->p[c * 8 + l] = s->n[c * 8 + l] = 0.f;
    }
#define L8(a, c) _mm256_loadu_ps((a) + 8 * (c))
#define MUL _mm256_mul_ps
#define FMA _mm256_fmadd_ps
#define FMS _mm256_fmsub_ps
#define G8(c) _mm256_i32gather_ps(s->st + (c), rows, 4)
    const __m256i rows = _mm256_setr_epi32(0, 8, 16, 24, 32, 40, 48, 56);
    __m256 b0 = G8(0), b1 = G8(1), b2 = G8(2), b3 = G8(3);
    __m256 e0 = G8(4), e1 = G8(5), e2 = G8(6), e3 = G8(7);
#undef G8
    __m256 v0 = L8(s->p, 0), v1 = L8(s->p, 1), v2 = L8(s->p, 2);
    __m256 len2 = FMA(b0, b0, FMA(b1, b1, FMA(b2, b2, MUL(b3, b3))));
    __m256 zero = _mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_EQ_OQ);
    __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.f), _mm256_sqrt_ps(len2));
    inv = _mm256_blendv_ps(inv, _mm256_setzero_ps(), zero);
    /* no influence: the identity (rest position) */
    b3 = _mm256_blendv_ps(MUL(b3, inv), _mm256_set1_ps(1.f), zero);
    b0 = MUL(b0, inv), b1 = MUL(b1, inv), b2 = MUL(b2, inv);
    e0 = MUL(e0, inv), e1 = MUL(e1, inv), e2 = MUL(e2, inv), e3 = MUL(e3, inv);
    /* u = d0 x v + a0 v; v' = v + 2 d0 x u + 2 (a0 de - ae d0 + d0 x de) */
    __m256 u0 = FMA(b3, v0, FMS(b1, v2, MUL(b2, v1)));
    __m256 u1 = FMA(b3, v1, FMS(b2, v0, MUL(b0, v2)));
    __m256 u2 = FMA(b3, v2, FMS(b0, v1, MUL(b1, v0)));
    __m256 t0 = FMA(b3, e0, FMS(b1, e2, FMA(e3, b0, MUL(b2, e1))));
    __m256 t1 = FMA(b3, e1, FMS(b2, e0, FMA(e3, b1, MUL(b0, e2))));
    __m256 t2 = FMA(b3, e2, FMS(b0, e1, FMA(e3, b2, MUL(b1, e0))));
    __m256 two = _mm256_set1_ps(2.f);
    __m256 o[3] = {FMA(two, _mm256_add_ps(FMS(b1, u2, MUL(b2, u1)), t0), v0),
                   FMA(two, _mm256_add_ps(FMS(b2, u0, MUL(b0, u2)), t1), v1),
                   FMA(two, _mm256_add_ps(FMS(b0, u1, MUL(b1, u0)), t2), v2)};
    store_xyz8(o, cnt, op);
    if (!on)
        return;
    /* n' = n + 2 w (d0 x n) + 2 d0 x (d0 x n), renormalized */
    __m256 n0 = L8(s->n, 0), n1 = L8(s->n, 1), n2 = L8(s->n, 2);
    __m256 c0 = MUL(two, FMS(b1, n2, MUL(b2, n1)));
    __m256 c1 = MUL(two, FMS(b2, n0, MUL(b0, n2)));
    __m256 c2 = MUL(two, FMS(b0, n1, MUL(b1, n0)));
    __m256 r0 = _mm256_add_ps(FMA(b3, c0, n0), FMS(b1, c2, MUL(b2, c1)));
    __m256 r1 = _mm256_add_ps(FMA(b3, c1, n1), FMS(b2, c0, MUL(b0, c2)));
    __m256 r2 = _mm256_add_ps(FMA(b3, c2, n2), FMS(b0, c1, MUL(b1, c0)));
    __m256 nl2 = FMA(r0, r0, FMA(r1, r1, MUL(r2, r2)));
    __m256 ninv = _mm256_div_ps(_mm256_set1_ps(1.f), _mm256_sqrt_ps(nl2));
    ninv = _mm256_blendv_ps(ninv, _mm256_setzero_ps(),
                            _mm256_cmp_ps(nl2, _mm256_setzero_ps(), _CMP_EQ_OQ));
    __m256 nrm[3] = {MUL(r0, ninv), MUL(r1, ninv), MUL(r2, ninv)};
    store_xyz8(nrm, cnt, on);
#undef L8
#undef MUL
#undef FMA
#undef FMS
}

static inline __attribute__((always_inline)) int dqs_body(
    size_t V, size_t K, size_t J, const float *v, const void *joints, int itype,
    const float *weights, const float *rec, const float *nv, float *op, float *on, size_t *bad)
{
    stage8 s;
    for (size_t x = 0; x < V; x++) {
        __m256 acc = _mm256_setzero_ps();
        const float *pivot = NULL, *w = weights + x * K;
        for (size_t k = 0; k < K; k++) {
            const float *r;
            float ws;
            int use = dq_influence_f(joints, itype, x * K + k, J, bad != NULL, rec, w[k], &pivot,
                                     &r, &ws);
            if (use < 0) {
                *bad = x * K + k;
                return use;
            }
            if (use)
                acc = _mm256_fmadd_ps(_mm256_set1_ps(ws), _mm256_loadu_ps(r), acc);
        }
        size_t l = x % 8;
        _mm256_storeu_ps(s.st + 8 * l, acc);
        for (int c = 0; c < 3; c++) {
            s.p[c * 8 + l] = v[3 * x + c];
            if (on)
                s.n[c * 8 + l] = nv[3 * x + c];
        }
        if (l == 7 || x + 1 == V)
            apply8(&s, l + 1, op + 3 * (x - l), on ? on + 3 * (x - l) : NULL);
    }
    return SK_OK;
}

/* K = 4 (glTF's JOINTS_0) and uint16 joints get their own copies with the influence loop
 * unrolled and the index type known */
int sk_dqs_pose_avx2(const sk_skin_job_f *j)
{
    size_t V = j->n, K = j->K, J = j->J;
    if (K == 4 && j->itype == SK_U16)
        return dqs_body(V, 4, J, j->verts, j->joints, SK_U16, j->weights, j->transforms,
                        j->normals, j->out_pos, j->out_nrm, j->bad);
    if (K == 4)
        return dqs_body(V, 4, J, j->verts, j->joints, j->itype, j->weights, j->transforms,
                        j->normals, j->out_pos, j->out_nrm, j->bad);
    return dqs_body(V, K, J, j->verts, j->joints, j->itype, j->weights, j->transforms,
                    j->normals, j->out_pos, j->out_nrm, j->bad);
}
