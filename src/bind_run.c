/* bind_run.c -- the threaded batch runner: walks the broadcast batch of a prepared call in
 * runs of its innermost dimension and calls the kernel's loop on each run, with the GIL
 * released, split into contiguous ranges of items over up to threads= threads. */
#include "binding.h"

#ifndef _WIN32
#include <pthread.h>
#include <sched.h>
#endif
#include <stdint.h>
#include <string.h>
#include <time.h>

int default_threads = 1; /* SKINKIT_NUM_THREADS, else the number of online CPUs (_core.c) */

/* threads=None -> the default; else an int >= 1 */
int parse_threads(PyObject *obj, int *threads)
{
    if (obj == Py_None) {
        *threads = default_threads;
        return 0;
    }
    long n = PyLong_Check(obj) && !PyBool_Check(obj) ? PyLong_AsLong(obj) : -1;
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (n < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be None or an integer >= 1, got %R", obj);
        return -1;
    }
    *threads = n > MAX_THREADS ? MAX_THREADS : (int)n;
    return 0;
}

#ifndef _WIN32
/* A small persistent pool, its workers started on first use.  Between calls a worker spins for
 * SPIN_NS, then sleeps on a condition variable; the caller spins as long for its workers to
 * finish.  Waking a sleeping thread cost ~50 us a round trip on a 2-vCPU VM (the CPU's halt and
 * the hypervisor's wake-up), as much as a whole thread's share of a call at the grain
 * (bind_table.c); a spinning worker takes the next call in well under a microsecond, and
 * kernels called back to back (a body model's forward pass: 5 calls a few us apart) find it
 * awake.  The bound keeps an idle pool off a shared machine's CPUs.  One call uses the pool at a
 * time; a call that finds it busy (kernels called from several Python threads at once) starts
 * its own threads.  A child process after fork() has no workers: the pool there starts empty. */
#define SPIN_NS 200000

#if defined(__x86_64__) || defined(__i386__)
#define RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define RELAX() __asm__ __volatile__("yield")
#else
#define RELAX() ((void)0)
#endif

/* a busy wait's budget: true (after a pause, and every 64 a yield) until SPIN_NS have passed
 * since the first call */
typedef struct {
    long long start;
    unsigned n;
} spin_t;

static int spin_more(spin_t *s)
{
    if (s->n++ % 64 == 0) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long ns = (long long)t.tv_sec * 1000000000 + t.tv_nsec;
        if (s->n == 1)
            s->start = ns;
        else if (ns - s->start > SPIN_NS)
            return 0;
        else
            sched_yield(); /* a thread waiting for this CPU (a loaded machine) runs first */
    }
    RELAX();
    return 1;
}

static struct {
    pthread_mutex_t busy, mu;
    pthread_cond_t wake, done;
    int nworkers;                      /* workers 1..nworkers exist */
    unsigned long gen;                 /* one more per call */
    unsigned long start[MAX_THREADS];  /* gen when worker t was started */
    int parts, finished;               /* this call: workers 1..parts-1 run, how many did */
    void *(*fn)(void *);
    char *args;
    size_t size;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER};
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_prepare(void)
{
    pthread_mutex_lock(&pool.busy);
    pthread_mutex_lock(&pool.mu);
}

static void pool_parent(void)
{
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.busy);
}

static void pool_child(void)
{
    pthread_mutex_init(&pool.busy, NULL);
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.nworkers = 0;
}

static void pool_init(void)
{
    pthread_atfork(pool_prepare, pool_parent, pool_child);
}

static void *pool_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_mutex_lock(&pool.mu);
    unsigned long seen = pool.start[t];
    for (;;) {
        if (pool.gen == seen) {
            spin_t spin = {0, 0};
            pthread_mutex_unlock(&pool.mu);
            while (__atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE) == seen && spin_more(&spin))
                ;
            pthread_mutex_lock(&pool.mu);
            while (pool.gen == seen)
                pthread_cond_wait(&pool.wake, &pool.mu);
        }
        seen = pool.gen;
        if (t >= pool.parts)
            continue;
        void *(*fn)(void *) = pool.fn;
        char *a = pool.args + (size_t)t * pool.size;
        pthread_mutex_unlock(&pool.mu);
        fn(a);
        pthread_mutex_lock(&pool.mu);
        if (__atomic_add_fetch(&pool.finished, 1, __ATOMIC_RELEASE) == pool.parts - 1)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* runs the call on the pool; 0 when the pool was busy (nothing ran) */
static int pool_run(int parts, void *(*fn)(void *), char *args, size_t size)
{
    pthread_once(&pool_once, pool_init);
    if (pthread_mutex_trylock(&pool.busy) != 0)
        return 0;
    pthread_mutex_lock(&pool.mu);
    while (pool.nworkers < parts - 1) {
        pthread_attr_t attr;
        pthread_t tid;
        int t = pool.nworkers + 1, ok = pthread_attr_init(&attr) == 0;
        pool.start[t] = pool.gen;
        ok = ok && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
             pthread_create(&tid, &attr, pool_worker, (void *)(intptr_t)t) == 0;
        pthread_attr_destroy(&attr);
        if (!ok)
            break;
        pool.nworkers = t;
    }
    int helpers = pool.nworkers < parts - 1 ? pool.nworkers : parts - 1;
    pool.fn = fn, pool.args = args, pool.size = size;
    pool.parts = helpers + 1, pool.finished = 0;
    __atomic_add_fetch(&pool.gen, 1, __ATOMIC_RELEASE); /* read unlocked by spinning workers */
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    for (int t = 0; t < parts; t++) /* this thread: part 0 and any part without a worker */
        if (t == 0 || t > helpers)
            fn(args + (size_t)t * size);
    spin_t spin = {0, 0};
    while (__atomic_load_n(&pool.finished, __ATOMIC_ACQUIRE) < helpers && spin_more(&spin))
        ;
    pthread_mutex_lock(&pool.mu);
    while (pool.finished < helpers)
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.busy);
    return 1;
}
#endif

/* Calls fn(args + t * size) for t < parts, parts - 1 of them on other threads: the pool's
 * workers, or new threads when the pool is busy.  The caller has released the GIL. */
void parallel(int parts, void *(*fn)(void *), char *args, size_t size)
{
#ifndef _WIN32
    if (parts > 1 && pool_run(parts, fn, args, size))
        return;
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < parts; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, args + t * size) == 0;
    for (int t = 0; t < parts; t++)
        if (!started[t])
            fn(args + t * size);
    for (int t = 1; t < parts; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
#else
    for (int t = 0; t < parts; t++)
        fn(args + t * size);
#endif
}

/* how many threads for `work` units when each thread should get at least `grain` of them */
int thread_count(int threads, npy_intp work, npy_intp grain)
{
    npy_intp parts = grain > 0 ? work / grain : work;
    return parts < 1 ? 1 : parts < threads ? (int)parts : threads;
}

typedef struct {
    int nop, nd;
    const npy_intp *bshape;
    npy_intp bst[MAXOP][NPY_MAXDIMS + 1]; /* byte strides per batch dimension, 0 = broadcast */
    char *base[MAXOP];
    ptrdiff_t step[MAXOP];                /* item stride of the innermost dimension, elements */
    loop_fn fn;
} plan_t;

typedef struct {
    const plan_t *pl;
    loop_ctx ctx;
    npy_intp begin, end; /* flat batch items */
    int status;
} part_t;

/* calls fn on the runs of the innermost batch dimension that cover items [begin, end) */
static int run_range(const plan_t *pl, npy_intp begin, npy_intp end, loop_ctx *ctx)
{
    int nd = pl->nd;
    npy_intp inner = nd ? pl->bshape[nd - 1] : 1, idx[NPY_MAXDIMS + 1];
    npy_intp o = begin / inner, i = begin % inner;
    for (int d = nd - 2; d >= 0; d--) {
        idx[d] = o % pl->bshape[d];
        o /= pl->bshape[d];
    }
    while (begin < end) {
        npy_intp len = inner - i < end - begin ? inner - i : end - begin;
        char *p[MAXOP] = {NULL};
        for (int k = 0; k < pl->nop; k++) {
            if (!pl->base[k])
                continue;
            npy_intp off = nd ? i * pl->bst[k][nd - 1] : 0;
            for (int d = 0; d < nd - 1; d++)
                off += idx[d] * pl->bst[k][d];
            p[k] = pl->base[k] + off;
        }
        ctx->item = begin;
        int st = pl->fn((size_t)len, p, pl->step, ctx);
        if (st != 0)
            return st;
        begin += len;
        i = 0;
        for (int d = nd - 2; d >= 0; d--) {
            if (++idx[d] < pl->bshape[d])
                break;
            idx[d] = 0;
        }
    }
    return 0;
}

static void *run_part(void *arg)
{
    part_t *t = arg;
    t->status = run_range(t->pl, t->begin, t->end, &t->ctx);
    return NULL;
}

/* The strides of operand k over the batch dimensions of the plan: its own batch dimensions
 * right-aligned against the broadcast ones (0 where it broadcasts), then, for a kernel with an
 * inner symbol, the stride of that core dimension (0 for an operand without it). */
static void plan_operand(const call_t *c, plan_t *pl, int k)
{
    PyArrayObject *a = c->arr[k];
    const core_t *core = c->core[k];
    int and = PyArray_NDIM(a) - core->nd;
    for (int d = 0; d < c->bnd; d++) {
        int ad = d - (c->bnd - and);
        pl->bst[k][d] = (ad < 0 || PyArray_DIM(a, ad) == 1) ? 0 : PyArray_STRIDE(a, ad);
    }
    if (c->k->inner) {
        int has = core->nd && core->dim[0] == -(npy_intp)SYM(c->k->inner) - 1;
        pl->bst[k][c->bnd] = has && PyArray_DIM(a, and) != 1 ? PyArray_STRIDE(a, and) : 0;
    }
    pl->base[k] = PyArray_BYTES(a);
    pl->step[k] = pl->nd ? pl->bst[k][pl->nd - 1] / PyArray_ITEMSIZE(a) : 0;
}

/* Runs the kernel's loop over the broadcast batch of c with the GIL released.  Every item is
 * computed by the same code whatever the split, so results do not depend on the thread count;
 * on failure c->ctx.bad and c->ctx.item come from the first failing run.  -1 with MemoryError
 * set when the kernel's workspace (kernel_t.scratch) could not be allocated. */
int run_call(call_t *c)
{
    const kernel_t *k = c->k;
    plan_t pl = {c->nin + c->nout, c->bnd + (k->inner != 0), c->bshape, {{0}}, {NULL}, {0},
                 k->loop[c->typenum == NPY_DOUBLE]};
    int reduce = 0;
    npy_intp total = 1, row = 1;
    if (k->inner)
        c->bshape[c->bnd] = c->sym[SYM(k->inner)];
    for (int d = 0; d < pl.nd; d++)
        total *= c->bshape[d];
    for (int i = 0; i < pl.nop; i++) {
        if (!c->arr[i])
            continue;
        plan_operand(c, &pl, i);
        if (i >= c->nin && (k->op[c->core[i] - k->core].flags & OP_REDUCE)) {
            reduce = 1;
            memset(PyArray_DATA(c->arr[i]), 0, (size_t)PyArray_NBYTES(c->arr[i]));
        }
    }
    if (total == 0)
        return 0;
    if (reduce) /* threads take whole runs: a run sums into one output item */
        row = pl.nd ? c->bshape[pl.nd - 1] : 1;
    npy_intp w = k->work ? c->sym[SYM(k->work)] : 0;
    npy_intp grain = k->work ? k->grain / (w + 1) + 1 : k->grain;
    int parts = thread_count(c->threads, total / row, (grain + row - 1) / row), status = 0;
    size_t scratch = (size_t)k->scratch * (size_t)w * (c->typenum == NPY_DOUBLE ? 8 : 4);
    char *buf = scratch ? PyMem_Malloc(scratch * (size_t)parts) : NULL;
    if (scratch && !buf) {
        PyErr_NoMemory();
        return -1;
    }
    c->ctx.scratch = buf;
    Py_BEGIN_ALLOW_THREADS
    if (parts == 1) {
        status = run_range(&pl, 0, total, &c->ctx);
    } else {
        part_t part[MAX_THREADS];
        npy_intp rows = total / row;
        for (int t = 0; t < parts; t++) {
            part_t pt = {&pl, c->ctx, rows * t / parts * row, rows * (t + 1) / parts * row, 0};
            pt.ctx.scratch = buf ? buf + scratch * (size_t)t : NULL;
            part[t] = pt;
        }
        parallel(parts, run_part, (char *)part, sizeof part[0]);
        for (int t = 0; t < parts && !status; t++)
            if ((status = part[t].status) != 0)
                c->ctx = part[t].ctx;
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(buf);
    return status;
}
