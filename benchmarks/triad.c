/* triad.c -- the STREAM triad a[i] = b[i] + s * c[i] in C, the memory-bandwidth yardstick of the
 * benchmark suite.  benchmarks/peers.py compiles it at run time with the compiler that builds
 * skinkit (-O3, pthreads) and calls it through ctypes (which releases the GIL).
 *
 * As STREAM (McCalpin): float64 arrays, each thread works on a contiguous part, and traffic is
 * counted as 3 x 8 B per element (read b, read c, write a; no write-allocate).  The arrays are
 * allocated and first touched by the same threads that later run the triad on them. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 64

typedef struct {
    double *a, *b, *c, s;
    size_t lo, hi;
    int init;
} part_t;

static double *A, *B, *C;
static size_t N;

static void *work(void *arg)
{
    part_t *p = arg;
    double *restrict a = p->a, *restrict b = p->b, *restrict c = p->c;
    double s = p->s;
    if (p->init) {
        for (size_t i = p->lo; i < p->hi; i++) {
            a[i] = 0.0;
            b[i] = 1.5;
            c[i] = 2.0;
        }
        return NULL;
    }
    for (size_t i = p->lo; i < p->hi; i++)
        a[i] = b[i] + s * c[i];
    return NULL;
}

static int run(int threads, int init, double s)
{
    pthread_t tid[MAX_THREADS];
    part_t part[MAX_THREADS];
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    for (int t = 0; t < threads; t++) {
        part_t p = {A, B, C, s, N * (size_t)t / (size_t)threads,
                    N * (size_t)(t + 1) / (size_t)threads, init};
        part[t] = p;
    }
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[t], NULL, work, &part[t]) != 0)
            return -1;
    work(&part[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    return 0;
}

/* allocates three arrays of n doubles (64-byte aligned), first touched by `threads` threads */
int triad_setup(size_t n, int threads)
{
    free(A), free(B), free(C);
    N = n;
    size_t bytes = (n * sizeof(double) + 63) / 64 * 64;
    A = aligned_alloc(64, bytes), B = aligned_alloc(64, bytes), C = aligned_alloc(64, bytes);
    if (!A || !B || !C)
        return -1;
    return run(threads, 1, 0.0);
}

/* one triad over the arrays with `threads` threads; returns its wall time in seconds */
double triad_run(int threads, double s)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (run(threads, 0, s) != 0)
        return -1.0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* max |a - (b + s c)| over the arrays, after a triad with the same s */
double triad_check(double s)
{
    double m = 0.0;
    for (size_t i = 0; i < N; i++) {
        double d = A[i] - (B[i] + s * C[i]);
        d = d < 0 ? -d : d;
        m = d > m ? d : m;
    }
    return m;
}
