/* kernels_bench.c -- the skinning kernels called from C through their job structs
 * (skinkit_jobs.h), without Python: linear blend skinning (positions; positions + normals),
 * dual quaternion skinning and the LBS vector-Jacobian product of one float32 pose.  Built by
 * CMake with -DSKINKIT_BENCHMARKS=ON:
 *
 *     cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSKINKIT_BENCHMARKS=ON
 *     cmake --build build-bench --target kernels_bench && build-bench/kernels_bench [V] [rounds]
 *
 * Each round runs every kernel once, in the same order; printed: the median over rounds of
 * nanoseconds per vertex (CPU time of the process, so that other work on a shared machine
 * counts less), and a checksum of the outputs. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skinkit.h"

#define NJ 64 /* joints */
#define NK 4  /* influences per vertex */
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

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.f * 2.f - 1.f;
}

int main(int argc, char **argv)
{
    size_t V = argc > 1 ? (size_t)atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 21;
    if (rounds < 1 || rounds > MAX_ROUNDS || V < 1)
        return fprintf(stderr, "usage: kernels_bench [V >= 1] [rounds 1..%d]\n", MAX_ROUNDS), 2;
    unsigned seed = 1;
    float *v = malloc(V * 3 * sizeof *v), *n = malloc(V * 3 * sizeof *n);
    float *w = malloc(V * NK * sizeof *w), *g = malloc(V * 3 * sizeof *g);
    float *op = malloc(V * 3 * sizeof *op), *on = malloc(V * 3 * sizeof *on);
    uint16_t *jn = malloc(V * NK * sizeof *jn);
    static float m[NJ * 16], dq[NJ * SK_DQ_RECORD], gm[NJ * 16];
    if (!v || !n || !w || !g || !op || !on || !jn)
        return fprintf(stderr, "out of memory\n"), 1;
    for (size_t i = 0; i < 3 * V; i++)
        v[i] = frand(&seed), n[i] = frand(&seed), g[i] = frand(&seed);
    for (size_t i = 0; i < V; i++) {
        float sum = 0;
        for (int k = 0; k < NK; k++)
            jn[NK * i + k] = (uint16_t)((frand(&seed) + 1.f) * 0.5f * (NJ - 1)),
                      sum += w[NK * i + k] = frand(&seed) + 1.01f;
        for (int k = 0; k < NK; k++)
            w[NK * i + k] /= sum;
    }
    for (int j = 0; j < NJ; j++) { /* rotations about z by j/10 rad with a translation */
        float c = cosf(0.1f * j), s = sinf(0.1f * j), *mj = m + 16 * j;
        float r[16] = {c, -s, 0, frand(&seed), s, c, 0, frand(&seed), 0, 0, 1, frand(&seed),
                       0, 0, 0, 1};
        memcpy(mj, r, sizeof r);
    }
    sk_skinning_dual_quaternions_f(NJ, m, 16, dq, SK_DQ_RECORD);
    size_t bad = 0;
    sk_skin_job_f lbs = {.n = V, .K = NK, .J = NJ, .verts = v, .verts_stride = 3, .joints = jn,
                         .joints_stride = NK, .itype = SK_U16, .weights = w, .weights_stride = NK,
                         .transforms = m, .transforms_stride = 0, .out_pos = op,
                         .out_pos_stride = 3, .bad = &bad};
    sk_skin_job_f lbs_n = lbs, dqs = lbs;
    lbs_n.normals = n, lbs_n.normals_stride = 3, lbs_n.out_nrm = on, lbs_n.out_nrm_stride = 3;
    dqs.transforms = dq;
    sk_skin_vjp_job_f vjp = {.n = V, .K = NK, .J = NJ, .verts = v, .verts_stride = 3, .joints = jn,
                             .joints_stride = NK, .itype = SK_U16, .weights = w,
                             .weights_stride = NK, .mats = m, .mats_stride = 0, .g = g,
                             .g_stride = 3, .g_verts = on, .g_verts_stride = 3, .g_mats = gm,
                             .g_mats_stride = 0, .bad = &bad};
    const char *names[] = {"LBS positions", "LBS positions+normals", "DQS positions",
                           "LBS VJP"};
    double t[4][MAX_ROUNDS], check = 0;
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < 4; c++) {
            double t0 = now();
            int st = c == 0 ? sk_linear_blend_skinning_f(&lbs)
                   : c == 1 ? sk_linear_blend_skinning_f(&lbs_n)
                   : c == 2 ? sk_dual_quaternion_skinning_f(&dqs)
                            : sk_linear_blend_skinning_vjp_f(&vjp);
            t[c][r] = now() - t0;
            if (st != SK_OK)
                return fprintf(stderr, "%s: status %d\n", names[c], st), 1;
            check += op[V / 2] + on[V / 3];
        }
    printf("skinkit C kernels, float32, V=%zu J=%d K=%d uint16, SIMD level %d, median of %d "
           "rounds (CPU time)\n", V, NJ, NK, sk_simd(), rounds);
    for (int c = 0; c < 4; c++) {
        qsort(t[c], (size_t)rounds, sizeof t[c][0], cmp);
        printf("  %-24s %8.3f ns/vertex\n", names[c], t[c][rounds / 2] / (double)V * 1e9);
    }
    printf("  checksum %.6g\n", check);
    free(v), free(n), free(w), free(g), free(op), free(on), free(jn);
    return 0;
}
