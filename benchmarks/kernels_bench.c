/* kernels_bench.c -- the wide kernels called from C through their job structs
 * (skinkit_jobs.h), without Python, float32: linear blend skinning (positions; positions +
 * normals), dual quaternion skinning (rigid joints: the SIMD path; scaled joints: the portable
 * one), the LBS vector-Jacobian products (positions, weights), the FK ones (with scale; rigid),
 * pose blending, pose delta and the additive layer.  Built by CMake with -DSKINKIT_BENCHMARKS=ON:
 *
 *     cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSKINKIT_BENCHMARKS=ON
 *     cmake --build build-bench --target kernels_bench && build-bench/kernels_bench [V] [rounds]
 *
 * Each round runs every kernel once, in the same order; printed per kernel: the median over
 * rounds of nanoseconds per item (a vertex, or a joint of a pose; CPU time of the
 * process, so that other work on a shared machine counts less), the quartiles around it, and
 * an FNV-1a hash of the output's bytes after the last round (the same bits give the same
 * hash: compare two builds).  SKINKIT_SIMD=avx2 or baseline caps the SIMD level, as it does
 * for the module.
 *
 *     build-bench/kernels_bench cclip FILE [rounds]
 *
 * decodes a compressed clip (a table benchmarks/compress_acl.py --dump wrote: the arrays of
 * sk_cclip_f, the clip's frame times and 64 times) as a C host would: one pose a call at the
 * frames in turn with a playback state (sk_play_cclip_f), and 64 poses a call (sk_decode_cclip_f),
 * both of the keyed tracks only (a playback context's way, CompressedPlayback's one time or
 * batch times a call: the constants, written once, stay in the output); printed: ns per
 * pose, the median and quartiles of the rounds, and the hash of the 64 poses. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skinkit.h"

#define NJ 64 /* joints */
#define NK 4  /* influences per vertex */
#define NL 3  /* layers of a blend */
#define MAX_ROUNDS 101

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned seed = 1;

static float frand(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (float)(seed >> 8) / 16777216.f * 2.f - 1.f;
}

/* count reals, uniform in [lo, lo + 2) */
static float *reals(size_t count, float lo)
{
    float *a = malloc(count * sizeof *a);
    for (size_t i = 0; a && i < count; i++)
        a[i] = frand() + 1.f + lo;
    return a;
}

/* count random unit quaternions */
static float *quats(size_t count)
{
    float *q = reals(4 * count, -1.f);
    for (size_t i = 0; q && i < count; i++) {
        float *u = q + 4 * i, len = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
        for (int c = 0; c < 4; c++)
            u[c] = len > 0 ? u[c] / len : c == 3;
    }
    return q;
}

static unsigned long long fnv1a(const void *p, size_t bytes)
{
    unsigned long long h = 14695981039346656037ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

/* the operands, shared by the kernels: V vertices, P = V / NJ poses of NJ joints (PJ joints) */
static size_t V, P, PJ;
static float *v, *n, *w, *g, *op, *on, *gw, *m, *dq, *dq_scaled, *gm, *grec;
static uint16_t *jn;
static float *rot, *trans, *scale, *layer_w, *threshold, *world, *gworld, *ref_rot, *ref_trans,
    *ref_scale, *weight, *o_rot, *o_trans, *o_scale, *work;
static int32_t parents[NJ], order[NJ];
static size_t bad;

static sk_skin_job_f skin_job(const float *transforms, int normals)
{
    sk_skin_job_f job = {.n = V, .K = NK, .J = NJ, .verts = v, .verts_stride = 3, .joints = jn,
                         .joints_stride = NK, .itype = SK_U16, .weights = w, .weights_stride = NK,
                         .transforms = transforms, .transforms_stride = 0, .out_pos = op,
                         .out_pos_stride = 3, .bad = &bad};
    if (normals)
        job.normals = n, job.normals_stride = 3, job.out_nrm = on, job.out_nrm_stride = 3;
    return job;
}

static sk_skin_vjp_job_f vjp_job(void)
{
    sk_skin_vjp_job_f job = {.n = V, .K = NK, .J = NJ, .verts = v, .verts_stride = 3,
                             .joints = jn, .joints_stride = NK, .itype = SK_U16, .weights = w,
                             .weights_stride = NK, .mats = m, .mats_stride = 0, .g = g,
                             .g_stride = 3, .g_verts = on, .g_verts_stride = 3, .g_mats = gm,
                             .g_mats_stride = 0, .g_weights = gw, .g_weights_stride = NK,
                             .bad = &bad};
    return job;
}

static int lbs(void)
{
    sk_skin_job_f job = skin_job(m, 0);
    return sk_linear_blend_skinning_f(&job);
}

static int lbs_normals(void)
{
    sk_skin_job_f job = skin_job(m, 1);
    return sk_linear_blend_skinning_f(&job);
}

static int dqs(void)
{
    sk_skin_job_f job = skin_job(dq, 0);
    return sk_dual_quaternion_skinning_f(&job);
}

static int dqs_scaled(void)
{
    sk_skin_job_f job = skin_job(dq_scaled, 1);
    return sk_dual_quaternion_skinning_f(&job);
}

static int lbs_vjp(void)
{
    sk_skin_vjp_job_f job = vjp_job();
    return sk_linear_blend_skinning_vjp_f(&job);
}

static int lbs_weights_vjp(void)
{
    sk_skin_vjp_job_f job = vjp_job();
    return sk_linear_blend_skinning_weights_vjp_f(&job);
}

static int dqs_vjp(void)
{
    sk_skin_vjp_job_f job = vjp_job();
    job.mats = dq_scaled, job.g_mats = grec;
    return sk_dual_quaternion_skinning_vjp_f(&job);
}

static int fk_vjp(void)
{
    sk_fk_vjp_job_f job = {.n = P, .J = NJ, .parents = parents, .order = order, .rot = rot,
                           .rot_stride = 4 * NJ, .trans = trans, .trans_stride = 3 * NJ,
                           .scale = scale, .scale_stride = 3 * NJ, .world = world,
                           .world_stride = 16 * NJ, .g = gworld, .g_stride = 16 * NJ,
                           .g_rot = o_rot, .g_rot_stride = 4 * NJ, .g_trans = o_trans,
                           .g_trans_stride = 3 * NJ, .g_scale = o_scale,
                           .g_scale_stride = 3 * NJ, .work = work};
    sk_forward_kinematics_vjp_f(&job);
    return SK_OK;
}

static int rigid_fk_vjp(void)
{
    sk_rigid_fk_vjp_job_f job = {.n = P, .J = NJ, .parents = parents, .order = order,
                                 .rest = trans, .rest_stride = 3 * NJ, .rot = rot,
                                 .rot_stride = 4 * NJ, .g_world_rot = ref_rot,
                                 .g_world_rot_stride = 4 * NJ, .g_world_trans = ref_trans,
                                 .g_world_trans_stride = 3 * NJ, .g_rest = o_trans,
                                 .g_rest_stride = 3 * NJ, .g_rot = o_rot, .g_rot_stride = 4 * NJ};
    sk_rigid_forward_kinematics_vjp_f(&job);
    return SK_OK;
}

static int blend(void) /* P / NL poses of NL layers: PJ joints */
{
    sk_blend_job_f job = {.n = P / NL, .L = NL, .J = NJ,
                          .layers = {rot, NL * NJ * 4, trans, NL * NJ * 3, scale, NL * NJ * 3},
                          .weights = layer_w, .weights_stride = NL * NJ,
                          .threshold = threshold, .threshold_stride = 1,
                          .rest = {ref_rot, NJ * 4, ref_trans, NJ * 3, ref_scale, NJ * 3},
                          .out = {o_rot, NJ * 4, o_trans, NJ * 3, o_scale, NJ * 3}};
    sk_blend_poses_f(&job);
    return SK_OK;
}

static int pose_delta(void)
{
    sk_pose_delta_job_f job = {.n = PJ, .ref = {ref_rot, 4, ref_trans, 3, ref_scale, 3},
                               .pose = {rot, 4, trans, 3, scale, 3},
                               .out = {o_rot, 4, o_trans, 3, o_scale, 3}};
    sk_pose_delta_f(&job);
    return SK_OK;
}

static int additive(void)
{
    sk_additive_job_f job = {.n = PJ, .base = {ref_rot, 4, ref_trans, 3, ref_scale, 3},
                             .delta = {rot, 4, trans, 3, scale, 3}, .weight = weight,
                             .weight_stride = 1, .out = {o_rot, 4, o_trans, 3, o_scale, 3}};
    sk_additive_pose_f(&job);
    return SK_OK;
}

typedef struct {
    const char *name;
    int (*run)(void);
    const float *out; /* the output hashed */
    size_t *len;      /* its reals: a multiple of V (or of P) */
    size_t per;
} bench_case;

/* the next n elements of size bytes from f into a new array (NULL at the end of the file) */
static void *read_array(FILE *f, size_t n, size_t size)
{
    void *a = malloc(n * size + 8);
    if (a && fread(a, size, n, f) != n) {
        free(a);
        return NULL;
    }
    return a;
}

/* kernels_bench cclip FILE [rounds] (see the top of the file) */
static int cclip_main(const char *path, int rounds)
{
    FILE *f = fopen(path, "rb");
    int64_t h[8];
    if (!f || fread(h, 8, 8, f) != 8 || h[0] < 1 || h[6] < 1 || h[7] < 1)
        return fprintf(stderr, "%s: not a table of compress_acl.py --dump\n", path), 2;
    sk_cclip_f clip = {(size_t)h[0], NULL, NULL, (size_t)h[1], NULL, (size_t)h[2], NULL,
                       (size_t)h[3], NULL, (size_t)h[4], NULL, (size_t)h[5], NULL};
    sk_ctrack *tracks = read_array(f, clip.ntracks, sizeof(sk_ctrack));
    clip.tracks = tracks;
    clip.key_times = read_array(f, clip.nkey_times, 4);
    clip.ranges = read_array(f, clip.nranges, 4);
    clip.bytes = read_array(f, clip.nbytes, 1);
    clip.widths = read_array(f, clip.nwidths, 1);
    clip.seg_bits = read_array(f, clip.nseg_bits, 8);
    size_t nodes = (size_t)h[6], frames = (size_t)h[7], bad = 0;
    float *ft = read_array(f, frames, 4), *t64 = read_array(f, 64, 4);
    fclose(f);
    int64_t stride[4] = {3 * (int64_t)nodes, 4 * (int64_t)nodes, 3 * (int64_t)nodes, 0};
    size_t nout[4] = {64 * 3 * nodes, 64 * 4 * nodes, 64 * 3 * nodes, 0};
    float *out[4] = {calloc(nout[0], 4), calloc(nout[1], 4), calloc(nout[2], 4), NULL};
    if (!tracks || !clip.key_times || !clip.ranges || !clip.bytes || !clip.widths ||
        !clip.seg_bits || !ft || !t64 || !out[0] || !out[1] || !out[2])
        return fprintf(stderr, "%s: short file or out of memory\n", path), 2;
    int st = sk_check_cclip_f(&clip, stride, nout, 64, &bad);
    if (st != SK_OK)
        return fprintf(stderr, "%s: track %zu refused (status %d)\n", path, bad, st), 2;
    /* every track once: the constants' values stay in out (as CompressedPlayback's first sample) */
    sk_decode_cclip_f(&clip, 0, clip.ntracks, 0, 64, t64, NULL, stride, out);
    sk_cclip_f keyed = clip; /* the playback context's tracks */
    sk_ctrack *kt = malloc(clip.ntracks * sizeof *kt);
    if (!kt)
        return fprintf(stderr, "out of memory\n"), 2;
    keyed.ntracks = 0;
    for (size_t i = 0; i < clip.ntracks; i++)
        if (tracks[i].level > SK_CLEVEL_CONST24)
            kt[keyed.ntracks++] = tracks[i];
    keyed.tracks = kt;
    void *state = malloc(sk_cclip_state_size_f(&keyed));
    if (!state)
        return fprintf(stderr, "out of memory\n"), 2;
    sk_cclip_state_init_f(&keyed, state);
    static double t1[MAX_ROUNDS], t2[MAX_ROUNDS];
    size_t reps = 1 + 20000 / frames;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (size_t k = 0; k < reps; k++)
            for (size_t i = 0; i < frames; i++)
                sk_play_cclip_f(&keyed, state, ft[i], stride, out);
        t1[r] = (now() - t0) / (double)(reps * frames);
        t0 = now();
        for (int k = 0; k < 300; k++)
            sk_decode_cclip_f(&keyed, 0, keyed.ntracks, 0, 64, t64, NULL, stride, out);
        t2[r] = (now() - t0) / (300.0 * 64);
    }
    qsort(t1, (size_t)rounds, sizeof t1[0], cmp);
    qsort(t2, (size_t)rounds, sizeof t2[0], cmp);
    printf("cclip %s: %zu nodes, %zu tracks (%zu keyed), SIMD level %d; ns per pose, median "
           "[quartiles] of %d rounds (CPU time)\n", path, nodes, clip.ntracks, keyed.ntracks,
           sk_simd(), rounds);
    printf("  one_per_call %8.1f  [%7.1f %7.1f]\n", 1e9 * t1[rounds / 2], 1e9 * t1[rounds / 4],
           1e9 * t1[(3 * rounds) / 4]);
    printf("  64_per_call  %8.1f  [%7.1f %7.1f]  %016llx\n", 1e9 * t2[rounds / 2],
           1e9 * t2[rounds / 4], 1e9 * t2[(3 * rounds) / 4], fnv1a(out[1], nout[1] * 4));
    return 0;
}

int main(int argc, char **argv)
{
    const char *simd = getenv("SKINKIT_SIMD");
    if (simd && !strcmp(simd, "avx2"))
        sk_set_simd(SK_SIMD_AVX2);
    else if (simd && !strcmp(simd, "baseline"))
        sk_set_simd(SK_SIMD_BASELINE);
    if (argc > 2 && !strcmp(argv[1], "cclip")) {
        int rounds = argc > 3 ? atoi(argv[3]) : 21;
        if (rounds < 1 || rounds > MAX_ROUNDS)
            return fprintf(stderr, "usage: kernels_bench cclip FILE [rounds 1..%d]\n",
                           MAX_ROUNDS), 2;
        return cclip_main(argv[2], rounds);
    }
    V = argc > 1 ? (size_t)atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 21;
    if (rounds < 1 || rounds > MAX_ROUNDS || V < NJ * NL)
        return fprintf(stderr, "usage: kernels_bench [V >= %d] [rounds 1..%d]\n", NJ * NL,
                       MAX_ROUNDS), 2;
    P = V / NJ;
    PJ = P * NJ;
    v = reals(3 * V, -1.f), n = reals(3 * V, -1.f), g = reals(3 * V, -1.f);
    w = malloc(V * NK * sizeof *w), jn = malloc(V * NK * sizeof *jn);
    op = malloc(V * 3 * sizeof *op), on = malloc(V * 3 * sizeof *on);
    gw = malloc(V * NK * sizeof *gw);
    m = malloc(NJ * 16 * sizeof *m), dq = malloc(NJ * SK_DQ_RECORD * sizeof *dq);
    dq_scaled = malloc(NJ * SK_DQ_RECORD * sizeof *dq), gm = calloc(NJ * 16, sizeof *gm);
    grec = calloc(NJ * SK_DQ_RECORD, sizeof *grec);
    rot = quats(PJ), trans = reals(3 * PJ, -1.f), scale = reals(3 * PJ, 0.f);
    ref_rot = quats(PJ), ref_trans = reals(3 * PJ, -1.f), ref_scale = reals(3 * PJ, 0.f);
    layer_w = reals(PJ, -0.5f), threshold = reals(P, -0.9f), weight = reals(PJ, -1.f);
    world = reals(16 * PJ, -1.f), gworld = reals(16 * PJ, -1.f);
    o_rot = malloc(4 * PJ * sizeof *o_rot), o_trans = malloc(3 * PJ * sizeof *o_trans);
    o_scale = malloc(3 * PJ * sizeof *o_scale), work = malloc(24 * NJ * sizeof *work);
    if (!v || !n || !g || !w || !jn || !op || !on || !gw || !m || !dq || !dq_scaled || !gm ||
        !grec || !rot || !trans || !scale || !ref_rot || !ref_trans || !ref_scale || !layer_w ||
        !threshold || !weight || !world || !gworld || !o_rot || !o_trans || !o_scale || !work)
        return fprintf(stderr, "out of memory\n"), 1;
    for (size_t i = 0; i < V; i++) {
        float sum = 0;
        for (int k = 0; k < NK; k++)
            jn[NK * i + k] = (uint16_t)((frand() + 1.f) * 0.5f * (NJ - 1)),
                      sum += w[NK * i + k] = frand() + 1.01f;
        for (int k = 0; k < NK; k++)
            w[NK * i + k] /= sum;
    }
    for (int j = 0; j < NJ; j++) { /* rotations about z by j/10 rad with a translation */
        float c = cosf(0.1f * j), s = sinf(0.1f * j), *mj = m + 16 * j;
        float r[16] = {c, -s, 0, frand(), s, c, 0, frand(), 0, 0, 1, frand(), 0, 0, 0, 1};
        memcpy(mj, r, sizeof r);
        parents[j] = j ? (j - 1) / 2 : -1, order[j] = j; /* a binary tree */
    }
    sk_skinning_dual_quaternions_f(NJ, m, 16, dq, SK_DQ_RECORD);
    float scaled[NJ * 16];
    for (int e = 0; e < NJ * 16; e++) /* column 0 scaled by 1.2: not rigid */
        scaled[e] = m[e] * (e % 4 == 0 ? 1.2f : 1.f);
    sk_skinning_dual_quaternions_f(NJ, scaled, 16, dq_scaled, SK_DQ_RECORD);
    size_t v3 = 3 * V, vk = NK * V, j4 = 4 * PJ, j3 = 3 * PJ, blended = 4 * (P / NL) * NJ;
    size_t recs = NJ * SK_DQ_RECORD;
    bench_case cases[] = {
        {"LBS positions", lbs, op, &v3, 0},
        {"LBS positions+normals", lbs_normals, on, &v3, 0},
        {"DQS positions", dqs, op, &v3, 0},
        {"DQS scaled +normals", dqs_scaled, on, &v3, 0},
        {"LBS VJP", lbs_vjp, on, &v3, 0},
        {"LBS weights VJP", lbs_weights_vjp, gw, &vk, 0},
        {"DQS VJP scaled", dqs_vjp, grec, &recs, 0},
        {"FK VJP (scale)", fk_vjp, o_rot, &j4, 1},
        {"rigid FK VJP", rigid_fk_vjp, o_rot, &j4, 1},
        {"blend poses (3 layers)", blend, o_rot, &blended, 1},
        {"pose delta", pose_delta, o_trans, &j3, 1},
        {"additive pose", additive, o_rot, &j4, 1},
    };
    enum { NCASES = sizeof cases / sizeof cases[0] };
    static double t[NCASES][MAX_ROUNDS];
    unsigned long long hash[NCASES];
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < NCASES; c++) {
            double t0 = now();
            int st = cases[c].run();
            t[c][r] = now() - t0;
            if (st != SK_OK)
                return fprintf(stderr, "%s: status %d\n", cases[c].name, st), 1;
            hash[c] = fnv1a(cases[c].out, *cases[c].len * sizeof(float));
        }
    printf("skinkit C kernels, float32, V=%zu J=%d K=%d uint16, SIMD level %d, median and "
           "quartiles of %d rounds (CPU time), ns per vertex or joint\n", V, NJ, NK, sk_simd(),
           rounds);
    for (int c = 0; c < NCASES; c++) {
        qsort(t[c], (size_t)rounds, sizeof t[c][0], cmp);
        double per = 1e9 / (double)(cases[c].per ? PJ : V);
        printf("  %-24s %8.3f  [%7.3f %7.3f]  %016llx\n", cases[c].name, t[c][rounds / 2] * per,
               t[c][rounds / 4] * per, t[c][(3 * rounds) / 4] * per, hash[c]);
    }
    return 0;
}
