/* _core.c -- the only file that includes Python.h / NumPy: parse and validate arguments,
 * broadcast leading batch dimensions, release the GIL, call the C kernels, map status codes
 * to exceptions.  Every operand is converted to a native, aligned, C-contiguous array of the
 * compute dtype (float32 when every float input is float32, else float64); a kernel then sees
 * one pointer and one item stride (0 when broadcast) per operand and per run of batch items. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <pthread.h>
#include <unistd.h>
#endif

#include "skinkit.h"

#define MAXOP 8
#define MAX_THREADS 64
#define GRAIN_ELEMENTS 32768 /* quaternions per thread (each thread: ~100 us of work or more) */
#define GRAIN_JOINTS 16384   /* joints (FK, matrices) per thread */
#define GRAIN_VERTICES 32768 /* skinned vertices per thread */
#define GRAIN_SAMPLES 16384  /* channel samples per thread */
#define SYM_J (-1) /* symbolic core sizes, bound by the first operand that has them */
#define SYM_V (-2)
#define SYM_K (-3)
static const char *const sym_names[] = {"J", "V", "K"};

typedef struct {
    const char *name;   /* argument name, for messages */
    PyObject *obj;      /* as passed (borrowed), NULL/None when absent */
    PyArrayObject *arr; /* converted operand (owned) */
    int core_nd;
    npy_intp core[3];
    int batched;        /* may carry leading batch dimensions */
    int optional;       /* None allowed (absent operand) */
    int raw;            /* arr preset by the caller, not a float operand */
} operand;

typedef struct {
    int nin, nout;
    operand op[MAXOP];   /* inputs, then outputs */
    npy_intp sym[3];     /* values of J, V, K (-1 unbound) */
    int typenum;         /* NPY_FLOAT or NPY_DOUBLE */
    int bnd;             /* broadcast batch shape */
    npy_intp bshape[NPY_MAXDIMS];
} call_t;

/* per-call data the kernels need beyond their batched operands */
typedef struct {
    int dbl;
    int threads;       /* at most this many threads */
    size_t J, K;
    const int32_t *parents, *order;
    int itype;         /* joint index type, = its size in bytes */
    const char *first; /* first byte of an input, to report a flat index */
    size_t bad;
} ctx_t;

typedef int (*loop_fn)(size_t n, char **p, const ptrdiff_t *s, ctx_t *c);

/* ---------------------------------------------------------------- messages */

static void fmt_shape(char *buf, size_t cap, int nd, const npy_intp *d)
{
    size_t len = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < nd && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ", %" NPY_INTP_FMT : "%" NPY_INTP_FMT,
                                d[i]);
    if (len < cap)
        snprintf(buf + len, cap - len, nd == 1 ? ",)" : ")");
}

static void fmt_core(char *buf, size_t cap, const operand *o, const npy_intp *sym)
{
    size_t len = (size_t)snprintf(buf, cap, o->batched ? "(..." : "(");
    for (int i = 0; i < o->core_nd && len < cap; i++) {
        const char *sep = (i || o->batched) ? ", " : "";
        npy_intp c = o->core[i];
        if (c >= 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%" NPY_INTP_FMT, sep, c);
        else if (sym[-c - 1] >= 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s=%" NPY_INTP_FMT, sep,
                                    sym_names[-c - 1], sym[-c - 1]);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep, sym_names[-c - 1]);
    }
    if (len < cap)
        snprintf(buf + len, cap - len, ")");
}

static int shape_error(const operand *o, const npy_intp *sym, PyArrayObject *a)
{
    char want[128], got[256];
    fmt_core(want, sizeof want, o, sym);
    fmt_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
    PyErr_Format(PyExc_ValueError, "%s must have shape %s, got %s", o->name, want, got);
    return -1;
}

/* ---------------------------------------------------------------- operands */

static PyObject *from_dlpack; /* numpy.from_dlpack, NULL on NumPy without it */

/* Any array-like as an ndarray without a copy where possible: ndarrays as they are, objects
 * with __dlpack__ (PyTorch, JAX, CuPy...) through numpy.from_dlpack, the rest (__array__,
 * the buffer protocol, sequences) through PyArray_FROM_O. */
static PyArrayObject *as_array(PyObject *obj)
{
    if (!PyArray_Check(obj) && from_dlpack && PyObject_HasAttrString(obj, "__dlpack__")) {
        PyObject *a = PyObject_CallFunctionObjArgs(from_dlpack, obj, NULL);
        /* a BufferError says why the producer refuses (e.g. a tensor that requires grad); any
         * other failure (a dtype DLPack cannot carry to NumPy, such as bfloat16) falls back to
         * the generic conversion, whose result the caller checks like any other input */
        if (a || PyErr_ExceptionMatches(PyExc_BufferError))
            return (PyArrayObject *)a;
        PyErr_Clear();
    }
    return (PyArrayObject *)PyArray_FROM_O(obj);
}

static void call_init(call_t *c)
{
    memset(c, 0, sizeof *c);
    c->sym[0] = c->sym[1] = c->sym[2] = -1;
}

static void call_free(call_t *c)
{
    for (int i = 0; i < c->nin + c->nout; i++)
        Py_CLEAR(c->op[i].arr);
}

static operand *add_op(call_t *c, const char *name, PyObject *obj, int batched, int core_nd,
                       npy_intp c0, npy_intp c1, npy_intp c2)
{
    operand *o = &c->op[c->nin + c->nout];
    o->name = name;
    o->obj = (obj == Py_None) ? NULL : obj;
    o->batched = batched;
    o->core_nd = core_nd;
    o->core[0] = c0; o->core[1] = c1; o->core[2] = c2;
    return o;
}

#define add_input(c, ...) (add_op((c), __VA_ARGS__), (c)->nin++)
#define add_optional(c, ...) (add_op((c), __VA_ARGS__)->optional = 1, (c)->nin++)
#define add_output(c, ...) (add_op((c), __VA_ARGS__), (c)->nout++)

/* an operand whose array the caller converted (joint indices) */
static void add_raw(call_t *c, const char *name, PyObject *obj, PyArrayObject *arr, int core_nd,
                    npy_intp c0, npy_intp c1, npy_intp c2)
{
    operand *o = add_op(c, name, obj, 0, core_nd, c0, c1, c2);
    o->raw = 1;
    Py_INCREF(arr);
    o->arr = arr;
    c->nin++;
}

/* Reads every input's dtype and picks the compute dtype.  Python int/float scalars are weak
 * (they do not widen float32); integer arrays convert to float64; anything else is refused. */
static int resolve_type(call_t *c)
{
    int any64 = 0, any32 = 0;
    for (int i = 0; i < c->nin; i++) {
        operand *o = &c->op[i];
        if (!o->obj && !o->optional) {
            PyErr_Format(PyExc_TypeError, "%s must not be None", o->name);
            return -1;
        }
        if (!o->obj || o->raw)
            continue;
        if (PyFloat_Check(o->obj) || (PyLong_Check(o->obj) && !PyBool_Check(o->obj)))
            continue;
        o->arr = as_array(o->obj);
        if (!o->arr) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) { /* name the argument */
                PyObject *type, *value, *tb;
                PyErr_Fetch(&type, &value, &tb);
                PyErr_Format(PyExc_TypeError, "%s cannot be read as a float32 or float64 array: %S",
                             o->name, value ? value : Py_None);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
            }
            return -1;
        }
        PyArray_Descr *d = PyArray_DESCR(o->arr);
        int kind = d->kind, size = (int)PyDataType_ELSIZE(d);
        if (kind == 'f' && size == 4)
            any32 = 1;
        else if ((kind == 'f' && size == 8) || kind == 'i' || kind == 'u')
            any64 = 1;
        else {
            PyErr_Format(PyExc_TypeError,
                         "%s must be a float32 or float64 array (integers convert to float64), "
                         "got dtype %S", o->name, (PyObject *)d);
            return -1;
        }
    }
    c->typenum = (any32 && !any64) ? NPY_FLOAT : NPY_DOUBLE;
    return 0;
}

/* Checks the core dimensions of one array and binds symbolic sizes. */
static int check_core(call_t *c, const operand *o, PyArrayObject *a)
{
    int nd = PyArray_NDIM(a), cn = o->core_nd;
    if (nd < cn || (!o->batched && nd != cn))
        return shape_error(o, c->sym, a);
    for (int i = 0; i < cn; i++) {
        npy_intp want = o->core[i], got = PyArray_DIM(a, nd - cn + i);
        if (want < 0) {
            npy_intp *s = &c->sym[-want - 1];
            if (*s < 0)
                *s = got;
            want = *s;
        }
        if (got != want)
            return shape_error(o, c->sym, a);
    }
    return 0;
}

/* Broadcasts the batch dimensions (all but the core) of every input into c->bshape. */
static int broadcast(call_t *c)
{
    c->bnd = 0;
    for (int i = 0; i < c->nin; i++) {
        operand *o = &c->op[i];
        PyArrayObject *a = o->arr;
        if (!a)
            continue;
        int bnd = PyArray_NDIM(a) - o->core_nd;
        if (bnd > c->bnd) {
            memmove(c->bshape + (bnd - c->bnd), c->bshape, sizeof(npy_intp) * (size_t)c->bnd);
            for (int d = 0; d < bnd - c->bnd; d++)
                c->bshape[d] = 1;
            c->bnd = bnd;
        }
        for (int d = 0; d < bnd; d++) {
            npy_intp got = PyArray_DIM(a, d), *have = &c->bshape[c->bnd - bnd + d];
            if (got == *have || got == 1)
                continue;
            if (*have != 1) {
                char s1[256], s2[256];
                fmt_shape(s1, sizeof s1, bnd, PyArray_DIMS(a));
                fmt_shape(s2, sizeof s2, c->bnd, c->bshape);
                PyErr_Format(PyExc_ValueError,
                             "batch shape %s of %s does not broadcast with the batch shape %s "
                             "of the other arguments", s1, o->name, s2);
                return -1;
            }
            *have = got;
        }
    }
    return 0;
}

/* Checks the core shapes and broadcasts the batch shapes of the inputs as given, then converts
 * them: bad shapes are refused before any copy is made (a zero-stride view of 2**31 items is
 * not first materialized as a 16 GiB contiguous array). */
static int prepare_inputs(call_t *c)
{
    if (resolve_type(c) < 0)
        return -1;
    for (int i = 0; i < c->nin; i++) {
        operand *o = &c->op[i];
        if (!o->obj)
            continue;
        if (!o->arr && !(o->arr = (PyArrayObject *)PyArray_FROM_O(o->obj))) /* a scalar */
            return -1;
        if (check_core(c, o, o->arr) < 0)
            return -1;
    }
    if (broadcast(c) < 0)
        return -1;
    for (int i = 0; i < c->nin; i++) {
        operand *o = &c->op[i];
        if (!o->obj || o->raw)
            continue;
        Py_SETREF(o->arr, (PyArrayObject *)PyArray_FromAny(
                              (PyObject *)o->arr, PyArray_DescrFromType(c->typenum), 0, 0,
                              NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST,
                              NULL));
        if (!o->arr)
            return -1;
    }
    return 0;
}

static void mem_bounds(PyArrayObject *a, char **lo, char **hi)
{
    char *l = PyArray_BYTES(a), *h = l;
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp ext = (PyArray_DIM(a, d) - 1) * PyArray_STRIDE(a, d);
        if (PyArray_DIM(a, d) == 0)
            ext = 0, h = l - PyArray_ITEMSIZE(a);
        if (ext < 0)
            l += ext;
        else
            h += ext;
    }
    *lo = l;
    *hi = h + PyArray_ITEMSIZE(a);
}

static int overlaps(PyArrayObject *a, PyArrayObject *b)
{
    char *alo, *ahi, *blo, *bhi;
    mem_bounds(a, &alo, &ahi);
    mem_bounds(b, &blo, &bhi);
    return alo < bhi && blo < ahi && alo < ahi && blo < bhi;
}

/* Allocates the outputs, or validates the arrays given as out=. */
static int prepare_outputs(call_t *c)
{
    for (int i = c->nin; i < c->nin + c->nout; i++) {
        operand *o = &c->op[i];
        npy_intp dims[NPY_MAXDIMS + 3];
        int nd = c->bnd + o->core_nd;
        if (nd > NPY_MAXDIMS) {
            PyErr_Format(PyExc_ValueError, "%s would have %d dimensions, more than NumPy's %d",
                         o->name, nd, NPY_MAXDIMS);
            return -1;
        }
        memcpy(dims, c->bshape, sizeof(npy_intp) * (size_t)c->bnd);
        for (int d = 0; d < o->core_nd; d++)
            dims[c->bnd + d] = o->core[d] >= 0 ? o->core[d] : c->sym[-o->core[d] - 1];
        if (!o->obj) {
            o->arr = (PyArrayObject *)PyArray_SimpleNew(nd, dims, c->typenum);
            if (!o->arr)
                return -1;
            continue;
        }
        if (!PyArray_Check(o->obj)) {
            PyErr_Format(PyExc_TypeError, "%s must be a NumPy array, got %s", o->name,
                         Py_TYPE(o->obj)->tp_name);
            return -1;
        }
        PyArrayObject *a = (PyArrayObject *)o->obj;
        char want[256], got[256];
        fmt_shape(want, sizeof want, nd, dims);
        fmt_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
        if (PyArray_TYPE(a) != c->typenum || !PyArray_ISNOTSWAPPED(a)) {
            PyErr_Format(PyExc_TypeError, "%s must have dtype %s, got %S", o->name,
                         c->typenum == NPY_FLOAT ? "float32" : "float64",
                         (PyObject *)PyArray_DESCR(a));
            return -1;
        }
        if (PyArray_NDIM(a) != nd || !PyArray_CompareLists(PyArray_DIMS(a), dims, nd)) {
            PyErr_Format(PyExc_ValueError, "%s must have shape %s, got %s", o->name, want, got);
            return -1;
        }
        if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) || !PyArray_ISWRITEABLE(a)) {
            PyErr_Format(PyExc_ValueError, "%s must be a writeable, aligned, C-contiguous array",
                         o->name);
            return -1;
        }
        for (int k = 0; k < i; k++) {
            operand *p = &c->op[k];
            int hit = p->arr && overlaps(a, p->arr);
            if (!hit && p->obj && PyArray_Check(p->obj))
                hit = overlaps(a, (PyArrayObject *)p->obj);
            if (hit) {
                PyErr_Format(PyExc_ValueError, "%s overlaps the memory of %s", o->name, p->name);
                return -1;
            }
        }
        Py_INCREF(a);
        o->arr = a;
    }
    return 0;
}

/* ---------------------------------------------------------------- threads */

static int default_threads = 1; /* SKINKIT_NUM_THREADS, else the number of online CPUs */

/* threads=None -> the default; else an int >= 1 */
static int parse_threads(PyObject *obj, int *threads)
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

/* Calls fn(args + t * size) for t < parts, parts - 1 of them on new threads (no pool: nothing
 * survives the call, so a fork() later is safe).  The caller has released the GIL. */
static void parallel(int parts, void *(*fn)(void *), char *args, size_t size)
{
#ifndef _WIN32
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
static int thread_count(int threads, npy_intp work, npy_intp grain)
{
    npy_intp parts = grain > 0 ? work / grain : work;
    return parts < 1 ? 1 : parts < threads ? (int)parts : threads;
}

/* ---------------------------------------------------------------- the batch loop */

typedef struct {
    int nop, nd;
    const npy_intp *bshape;
    npy_intp bst[MAXOP][NPY_MAXDIMS]; /* byte strides per batch dimension, 0 = broadcast */
    char *base[MAXOP];
    ptrdiff_t step[MAXOP];            /* item stride of the innermost dimension, elements */
    loop_fn fn;
} plan_t;

typedef struct {
    const plan_t *pl;
    ctx_t ctx;
    npy_intp begin, end; /* flat batch items */
    int status;
} part_t;

/* calls fn on the runs of the innermost batch dimension that cover items [begin, end) */
static int run_range(const plan_t *pl, npy_intp begin, npy_intp end, ctx_t *ctx)
{
    int nd = pl->nd;
    npy_intp inner = nd ? pl->bshape[nd - 1] : 1, idx[NPY_MAXDIMS];
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

/* Runs fn over the broadcast batch with the GIL released, split into contiguous ranges of
 * batch items over up to ctx->threads threads when there are at least `grain` items per
 * thread.  Every item is computed by the same code whatever the split, so results do not
 * depend on the thread count; on failure ctx->bad comes from the first failing item. */
static int run(call_t *c, loop_fn fn, ctx_t *ctx, npy_intp grain)
{
    plan_t pl = {c->nin + c->nout, c->bnd, c->bshape, {{0}}, {NULL}, {0}, fn};
    npy_intp total = 1;
    ctx->dbl = c->typenum == NPY_DOUBLE;
    for (int d = 0; d < pl.nd; d++)
        total *= c->bshape[d];
    for (int k = 0; k < pl.nop; k++) {
        PyArrayObject *a = c->op[k].arr;
        if (!a)
            continue;
        int and = PyArray_NDIM(a) - c->op[k].core_nd;
        for (int d = 0; d < pl.nd; d++) {
            int ad = d - (pl.nd - and);
            pl.bst[k][d] = (ad < 0 || PyArray_DIM(a, ad) == 1) ? 0 : PyArray_STRIDE(a, ad);
        }
        pl.base[k] = PyArray_BYTES(a);
        pl.step[k] = pl.nd ? pl.bst[k][pl.nd - 1] / PyArray_ITEMSIZE(a) : 0;
    }
    if (total == 0)
        return 0;
    int parts = thread_count(ctx->threads, total, grain), status = 0;
    Py_BEGIN_ALLOW_THREADS
    if (parts == 1) {
        status = run_range(&pl, 0, total, ctx);
    } else {
        part_t part[MAX_THREADS];
        for (int t = 0; t < parts; t++) {
            part_t pt = {&pl, *ctx, total * t / parts, total * (t + 1) / parts, 0};
            part[t] = pt;
        }
        parallel(parts, run_part, (char *)part, sizeof part[0]);
        for (int t = 0; t < parts && !status; t++)
            if ((status = part[t].status) != 0)
                ctx->bad = part[t].ctx.bad;
    }
    Py_END_ALLOW_THREADS
    return status;
}

/* Returns the outputs (one, or a tuple) and releases everything else. */
static PyObject *finish(call_t *c)
{
    PyObject *res;
    if (c->nout == 1) {
        res = (PyObject *)c->op[c->nin].arr;
        Py_INCREF(res);
    } else {
        res = PyTuple_New(c->nout);
        for (int i = 0; res && i < c->nout; i++) {
            Py_INCREF(c->op[c->nin + i].arr);
            PyTuple_SET_ITEM(res, i, (PyObject *)c->op[c->nin + i].arr);
        }
    }
    call_free(c);
    return res;
}

/* ---------------------------------------------------------------- elementwise quaternion ops */

#define F(p) ((const float *)(p))
#define D(p) ((const double *)(p))

#define LOOP1(NAME)                                                                     \
    static int loop_##NAME(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)           \
    {                                                                                   \
        if (c->dbl)                                                                     \
            sk_##NAME##_d(n, D(p[0]), s[0], (double *)p[1], s[1]);                      \
        else                                                                            \
            sk_##NAME##_f(n, F(p[0]), s[0], (float *)p[1], s[1]);                       \
        return 0;                                                                       \
    }
#define LOOP2(NAME)                                                                     \
    static int loop_##NAME(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)           \
    {                                                                                   \
        if (c->dbl)                                                                     \
            sk_##NAME##_d(n, D(p[0]), s[0], D(p[1]), s[1], (double *)p[2], s[2]);       \
        else                                                                            \
            sk_##NAME##_f(n, F(p[0]), s[0], F(p[1]), s[1], (float *)p[2], s[2]);        \
        return 0;                                                                       \
    }
LOOP2(quat_multiply)
LOOP1(quat_conjugate)
LOOP1(quat_inverse)
LOOP1(quat_normalize)
LOOP2(quat_rotate)
LOOP1(quat_to_matrix)
LOOP1(quat_from_matrix)
LOOP1(quat_from_rotvec)

static int loop_slerp(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)
{
    if (c->dbl)
        sk_slerp_d(n, D(p[0]), s[0], D(p[1]), s[1], D(p[2]), s[2], (double *)p[3], s[3]);
    else
        sk_slerp_f(n, F(p[0]), s[0], F(p[1]), s[1], F(p[2]), s[2], (float *)p[3], s[3]);
    return 0;
}

typedef struct {
    const char *name;
    loop_fn fn;
    int nin;
    const char *argnames[3];
    int core_nd[4];         /* inputs, then the output */
    npy_intp core[4][2];
    const char *doc;
} elementwise_t;

static const elementwise_t elementwise[] = {
    {"quat_multiply", loop_quat_multiply, 2, {"a", "b"}, {1, 1, 1}, {{4}, {4}, {4}},
     "quat_multiply(a, b, out, threads=None): Hamilton product of (..., 4) quaternions."},
    {"quat_conjugate", loop_quat_conjugate, 1, {"q"}, {1, 1}, {{4}, {4}},
     "quat_conjugate(q, out, threads=None)"},
    {"quat_inverse", loop_quat_inverse, 1, {"q"}, {1, 1}, {{4}, {4}},
     "quat_inverse(q, out, threads=None)"},
    {"quat_normalize", loop_quat_normalize, 1, {"q"}, {1, 1}, {{4}, {4}},
     "quat_normalize(q, out, threads=None)"},
    {"quat_rotate", loop_quat_rotate, 2, {"q", "v"}, {1, 1, 1}, {{4}, {3}, {3}},
     "quat_rotate(q, v, out, threads=None)"},
    {"quat_to_matrix", loop_quat_to_matrix, 1, {"q"}, {1, 2}, {{4}, {3, 3}},
     "quat_to_matrix(q, out, threads=None)"},
    {"quat_from_matrix", loop_quat_from_matrix, 1, {"m"}, {2, 1}, {{3, 3}, {4}},
     "quat_from_matrix(m, out, threads=None)"},
    {"quat_from_axis_angle", loop_quat_from_rotvec, 1, {"rotvec"}, {1, 1}, {{3}, {4}},
     "quat_from_axis_angle(rotvec, out, threads=None)"},
    {"slerp", loop_slerp, 3, {"q0", "q1", "t"}, {1, 1, 0, 1}, {{4}, {4}, {0}, {4}},
     "slerp(q0, q1, t, out, threads=None)"},
};
#define N_ELEMENTWISE (sizeof elementwise / sizeof elementwise[0])

static PyObject *call_elementwise(PyObject *self, PyObject *args)
{
    const elementwise_t *e = (const elementwise_t *)PyCapsule_GetPointer(self, NULL);
    PyObject *a[5] = {NULL, NULL, NULL, NULL, NULL};
    call_t c;
    ctx_t ctx = {0};
    if (!e || !PyArg_UnpackTuple(args, e->name, e->nin + 1, e->nin + 2, &a[0], &a[1], &a[2], &a[3],
                                 &a[4]) ||
        parse_threads(a[e->nin + 1] ? a[e->nin + 1] : Py_None, &ctx.threads) < 0)
        return NULL;
    call_init(&c);
    for (int i = 0; i < e->nin; i++)
        add_input(&c, e->argnames[i], a[i], 1, e->core_nd[i], e->core[i][0], e->core[i][1], 0);
    add_output(&c, "out", a[e->nin], 1, e->core_nd[e->nin], e->core[e->nin][0],
               e->core[e->nin][1], 0);
    if (prepare_inputs(&c) < 0 || prepare_outputs(&c) < 0) {
        call_free(&c);
        return NULL;
    }
    run(&c, e->fn, &ctx, GRAIN_ELEMENTS);
    return finish(&c);
}

/* ---------------------------------------------------------------- parents */

/* parents -> int32 copy (J,) and a topological order; ValueError names the joint. */
static int convert_parents(PyObject *obj, int32_t **buf, npy_intp *J)
{
    PyArrayObject *a = as_array(obj);
    if (!a)
        return -1;
    char kind = PyArray_DESCR(a)->kind;
    if (kind != 'i' && kind != 'u') {
        PyErr_Format(PyExc_TypeError, "parents must be an integer array, got dtype %S",
                     (PyObject *)PyArray_DESCR(a));
        Py_DECREF(a);
        return -1;
    }
    if (PyArray_NDIM(a) != 1) {
        char got[256];
        fmt_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
        PyErr_Format(PyExc_ValueError, "parents must have shape (J,), got %s", got);
        Py_DECREF(a);
        return -1;
    }
    /* unsigned parents are read as uint64: as int64, 2**64 - 1 would wrap to -1 (a root) */
    int is_unsigned = kind == 'u';
    PyArrayObject *p64 = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)a, PyArray_DescrFromType(is_unsigned ? NPY_UINT64 : NPY_INT64), 1, 1,
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
    Py_DECREF(a);
    if (!p64)
        return -1;
    npy_intp n = PyArray_DIM(p64, 0);
    const npy_int64 *src = (const npy_int64 *)PyArray_DATA(p64);
    const npy_uint64 *usrc = (const npy_uint64 *)PyArray_DATA(p64);
    int32_t *out = PyMem_Malloc(sizeof(int32_t) * (size_t)(2 * n + 1));
    if (!out) {
        Py_DECREF(p64);
        PyErr_NoMemory();
        return -1;
    }
    for (npy_intp i = 0; i < n; i++) {
        if (is_unsigned ? usrc[i] >= (npy_uint64)n : (src[i] < -1 || src[i] >= n)) {
            char value[32];
            if (is_unsigned)
                snprintf(value, sizeof value, "%llu", (unsigned long long)usrc[i]);
            else
                snprintf(value, sizeof value, "%lld", (long long)src[i]);
            PyErr_Format(PyExc_ValueError,
                         "parents[%" NPY_INTP_FMT "] = %s is out of range for %" NPY_INTP_FMT
                         " joints (expected -1 for a root or 0..%" NPY_INTP_FMT ")",
                         i, value, n, n - 1);
            PyMem_Free(out);
            Py_DECREF(p64);
            return -1;
        }
        out[i] = (int32_t)src[i];
    }
    Py_DECREF(p64);
    *buf = out;
    *J = n;
    return 0;
}

/* fills order = buf + J; returns -1 with ValueError naming the joint */
static int order_joints(int32_t *buf, npy_intp J)
{
    size_t bad = 0;
    int32_t *scratch = PyMem_Malloc(sizeof(int32_t) * (size_t)(J + 1));
    if (!scratch) {
        PyErr_NoMemory();
        return -1;
    }
    int st = sk_topological_order((size_t)J, buf, buf + J, scratch, &bad);
    PyMem_Free(scratch);
    if (st == SK_ERR_PARENT_SELF)
        PyErr_Format(PyExc_ValueError, "parents[%zu] = %zu: joint %zu is its own parent", bad, bad,
                     bad);
    else if (st == SK_ERR_PARENT_CYCLE)
        PyErr_Format(PyExc_ValueError, "parents: joint %zu is on a cycle (parents[%zu] = %d)",
                     bad, bad, (int)buf[bad]);
    else if (st != SK_OK)
        PyErr_Format(PyExc_ValueError, "parents[%zu] is out of range", bad);
    return st == SK_OK ? 0 : -1;
}

/* ---------------------------------------------------------------- forward kinematics */

static int loop_fk(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)
{
    if (c->dbl)
        sk_forward_kinematics_d(n, c->J, c->parents, c->order, D(p[0]), s[0], D(p[1]), s[1],
                                D(p[2]), s[2], (double *)p[3], s[3]);
    else
        sk_forward_kinematics_f(n, c->J, c->parents, c->order, F(p[0]), s[0], F(p[1]), s[1],
                                F(p[2]), s[2], (float *)p[3], s[3]);
    return 0;
}

static int loop_rigid(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)
{
    if (c->dbl)
        sk_rigid_forward_kinematics_d(n, c->J, c->parents, c->order, D(p[0]), s[0], D(p[1]),
                                      s[1], (double *)p[2], s[2], (double *)p[3], s[3]);
    else
        sk_rigid_forward_kinematics_f(n, c->J, c->parents, c->order, F(p[0]), s[0], F(p[1]),
                                      s[1], (float *)p[2], s[2], (float *)p[3], s[3]);
    return 0;
}

/* shared by both FK entry points: parents, then the batched operands already added to c */
static PyObject *call_fk(call_t *c, PyObject *parents, PyObject *threads, loop_fn fn)
{
    ctx_t ctx = {0};
    int32_t *buf = NULL;
    npy_intp J = 0;
    PyObject *res = NULL;
    if (parse_threads(threads, &ctx.threads) < 0 || convert_parents(parents, &buf, &J) < 0 ||
        order_joints(buf, J) < 0)
        goto done;
    c->sym[0] = J;
    if (prepare_inputs(c) < 0 || prepare_outputs(c) < 0)
        goto done;
    ctx.J = (size_t)J;
    ctx.parents = buf;
    ctx.order = buf + J;
    run(c, fn, &ctx, GRAIN_JOINTS / (J + 1) + 1);
    res = finish(c);
done:
    if (!res)
        call_free(c);
    PyMem_Free(buf);
    return res;
}

static PyObject *py_forward_kinematics(PyObject *self, PyObject *args)
{
    PyObject *parents, *rot, *trans, *scale = Py_None, *out = Py_None, *threads = Py_None;
    if (!PyArg_ParseTuple(args, "OOO|OOO:forward_kinematics", &parents, &rot, &trans, &scale,
                          &out, &threads))
        return NULL;
    call_t c;
    call_init(&c);
    add_input(&c, "rotations", rot, 1, 2, SYM_J, 4, 0);
    add_input(&c, "translations", trans, 1, 2, SYM_J, 3, 0);
    add_optional(&c, "scales", scale, 1, 2, SYM_J, 3, 0);
    add_output(&c, "out", out, 1, 3, SYM_J, 4, 4);
    return call_fk(&c, parents, threads, loop_fk);
}

static PyObject *py_rigid_forward_kinematics(PyObject *self, PyObject *args)
{
    PyObject *parents, *rest, *rot, *out_rot = Py_None, *out_trans = Py_None, *threads = Py_None;
    if (!PyArg_ParseTuple(args, "OOO|OOO:rigid_forward_kinematics", &parents, &rest, &rot,
                          &out_rot, &out_trans, &threads))
        return NULL;
    call_t c;
    call_init(&c);
    add_input(&c, "rest_positions", rest, 1, 2, SYM_J, 3, 0);
    add_input(&c, "rotations", rot, 1, 2, SYM_J, 4, 0);
    add_output(&c, "out[0]", out_rot, 1, 2, SYM_J, 4, 0);
    add_output(&c, "out[1]", out_trans, 1, 2, SYM_J, 3, 0);
    return call_fk(&c, parents, threads, loop_rigid);
}

/* ---------------------------------------------------------------- 4x4 matrices */

static int loop_matmul(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)
{
    if (c->dbl)
        sk_matmul4_d(n, c->J, D(p[0]), s[0], D(p[1]), s[1], (double *)p[2], s[2]);
    else
        sk_matmul4_f(n, c->J, F(p[0]), s[0], F(p[1]), s[1], (float *)p[2], s[2]);
    return 0;
}

static int loop_invert(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)
{
    /* items of J matrices each: invert them as n*J matrices when contiguous, else per item */
    for (size_t i = 0; i < n; i++) {
        size_t bad = 0;
        int st = c->dbl ? sk_invert4_d(c->J, D(p[0]) + i * s[0], 16, (double *)p[1] + i * s[1],
                                       16, &bad)
                        : sk_invert4_f(c->J, F(p[0]) + i * s[0], 16, (float *)p[1] + i * s[1],
                                       16, &bad);
        if (st != SK_OK) {
            size_t item = (size_t)(p[0] - c->first) / (size_t)(c->dbl ? 8 : 4) + i * (size_t)s[0];
            c->bad = item / 16 + bad;
            return st;
        }
    }
    return 0;
}

static PyObject *py_skinning_matrices(PyObject *self, PyObject *args)
{
    PyObject *world, *ibm, *out = Py_None, *threads = Py_None;
    call_t c;
    ctx_t ctx = {0};
    if (!PyArg_ParseTuple(args, "OO|OO:skinning_matrices", &world, &ibm, &out, &threads) ||
        parse_threads(threads, &ctx.threads) < 0)
        return NULL;
    call_init(&c);
    add_input(&c, "world", world, 1, 3, SYM_J, 4, 4);
    add_input(&c, "inverse_bind", ibm, 1, 3, SYM_J, 4, 4);
    add_output(&c, "out", out, 1, 3, SYM_J, 4, 4);
    if (prepare_inputs(&c) < 0 || prepare_outputs(&c) < 0) {
        call_free(&c);
        return NULL;
    }
    ctx.J = (size_t)c.sym[0];
    run(&c, loop_matmul, &ctx, GRAIN_JOINTS / (c.sym[0] + 1) + 1);
    return finish(&c);
}

static PyObject *py_inverse_bind_matrices(PyObject *self, PyObject *args)
{
    PyObject *world, *out = Py_None, *threads = Py_None;
    call_t c;
    ctx_t ctx = {0};
    if (!PyArg_ParseTuple(args, "O|OO:inverse_bind_matrices", &world, &out, &threads) ||
        parse_threads(threads, &ctx.threads) < 0)
        return NULL;
    call_init(&c);
    add_input(&c, "world", world, 1, 3, SYM_J, 4, 4);
    add_output(&c, "out", out, 1, 3, SYM_J, 4, 4);
    if (prepare_inputs(&c) < 0 || prepare_outputs(&c) < 0) {
        call_free(&c);
        return NULL;
    }
    ctx.J = (size_t)c.sym[0];
    ctx.first = PyArray_BYTES(c.op[0].arr);
    if (run(&c, loop_invert, &ctx, GRAIN_JOINTS / (c.sym[0] + 1) + 1) != SK_OK) {
        PyErr_Format(PyExc_ValueError,
                     "world: matrix %zu (joint %zu, counting matrices in C order over the batch) "
                     "is singular", ctx.bad, ctx.J ? ctx.bad % ctx.J : 0);
        call_free(&c);
        return NULL;
    }
    return finish(&c);
}

/* ---------------------------------------------------------------- linear blend skinning */

/* operands: 0 vertices, 1 skinning matrices, 2 normals, 3 weights, 4 joints, 5 and 6 outputs;
 * one item is one vertex */
static int loop_lbs(size_t n, char **p, const ptrdiff_t *s, ctx_t *c)
{
    size_t bad = 0;
    int st = c->dbl ? sk_linear_blend_skinning_d(n, c->K, c->J, D(p[0]), s[0], p[4], s[4],
                                                 c->itype, D(p[3]), s[3], D(p[1]), s[1], D(p[2]),
                                                 s[2], (double *)p[5], s[5], (double *)p[6], s[6],
                                                 &bad)
                    : sk_linear_blend_skinning_f(n, c->K, c->J, F(p[0]), s[0], p[4], s[4],
                                                 c->itype, F(p[3]), s[3], F(p[1]), s[1], F(p[2]),
                                                 s[2], (float *)p[5], s[5], (float *)p[6], s[6],
                                                 &bad);
    if (st != SK_OK) /* the flat index of the influence in joints */
        c->bad = (size_t)(p[4] - c->first) / (size_t)c->itype + bad;
    return st;
}

/* joints: uint8, uint16 or int32 in their own type, native, aligned and C-contiguous */
static PyArrayObject *convert_joints(PyObject *joints, int *itype)
{
    PyArrayObject *j = as_array(joints);
    if (!j)
        return NULL;
    int t = PyArray_TYPE(j);
    *itype = t == NPY_UINT8 ? SK_U8 : t == NPY_UINT16 ? SK_U16 : t == NPY_INT32 ? SK_I32 : 0;
    if (!*itype) {
        PyErr_Format(PyExc_TypeError, "joints must be a uint8, uint16 or int32 array, got dtype %S",
                     (PyObject *)PyArray_DESCR(j));
        Py_DECREF(j);
        return NULL;
    }
    Py_SETREF(j, (PyArrayObject *)PyArray_FromAny((PyObject *)j, PyArray_DescrFromType(t), 0, 0,
                                                  NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED,
                                                  NULL));
    return j;
}

/* (..., J, 4, 4) -> (..., 1, J, 4, 4): the matrices broadcast over the vertex dimension */
static int insert_vertex_dim(operand *o)
{
    PyArrayObject *a = o->arr;
    int nd = PyArray_NDIM(a);
    npy_intp dims[NPY_MAXDIMS];
    if (nd + 1 > NPY_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "%s has too many dimensions", o->name);
        return -1;
    }
    for (int d = 0; d < nd; d++)
        dims[d + (d >= nd - 3)] = PyArray_DIM(a, d);
    dims[nd - 3] = 1;
    PyArray_Dims shape = {dims, nd + 1};
    PyObject *v = PyArray_Newshape(a, &shape, NPY_CORDER);
    if (!v)
        return -1;
    Py_SETREF(o->arr, (PyArrayObject *)v);
    return 0;
}

static PyObject *py_linear_blend_skinning(PyObject *self, PyObject *args)
{
    PyObject *verts, *joints, *weights, *mats, *normals = Py_None;
    PyObject *out_pos = Py_None, *out_nrm = Py_None, *threads = Py_None;
    call_t c;
    ctx_t ctx = {0};
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "OOOO|OOOO:linear_blend_skinning", &verts, &joints, &weights,
                          &mats, &normals, &out_pos, &out_nrm, &threads) ||
        parse_threads(threads, &ctx.threads) < 0)
        return NULL;
    int has_n = normals != Py_None;
    PyArrayObject *j = convert_joints(joints, &ctx.itype);
    if (!j)
        return NULL;
    call_init(&c);
    add_input(&c, "vertices", verts, 1, 2, SYM_V, 3, 0);
    add_input(&c, "skinning_matrices", mats, 1, 3, SYM_J, 4, 4);
    add_optional(&c, "normals", normals, 1, 2, SYM_V, 3, 0);
    add_input(&c, "weights", weights, 0, 2, SYM_V, SYM_K, 0);
    add_raw(&c, "joints", joints, j, 2, SYM_V, SYM_K, 0);
    Py_DECREF(j);
    add_output(&c, has_n ? "out[0]" : "out", out_pos, 1, 1, 3, 0, 0);
    if (has_n)
        add_output(&c, "out[1]", out_nrm, 1, 1, 3, 0, 0);
    if (prepare_inputs(&c) < 0)
        goto done;
    /* the vertex becomes the innermost batch dimension: one item per vertex */
    for (int i = 0; i < 5; i++)
        if (i != 1) {
            c.op[i].core_nd = 1;
            c.op[i].batched = 1;
        }
    if (insert_vertex_dim(&c.op[1]) < 0 || broadcast(&c) < 0 || prepare_outputs(&c) < 0)
        goto done;
    ctx.K = (size_t)c.sym[2];
    ctx.J = (size_t)c.sym[0];
    ctx.first = PyArray_BYTES(c.op[4].arr);
    if (run(&c, loop_lbs, &ctx, GRAIN_VERTICES) != SK_OK) {
        const char *jd = ctx.first;
        size_t b = ctx.bad;
        long long value = ctx.itype == SK_U8    ? ((const uint8_t *)jd)[b]
                          : ctx.itype == SK_U16 ? ((const uint16_t *)jd)[b]
                                                : ((const int32_t *)jd)[b];
        PyErr_Format(PyExc_ValueError,
                     "joints[%zu, %zu] = %lld is out of range for %zu joints (expected -1 for no "
                     "influence or 0..%lld)", b / ctx.K, b % ctx.K, value, ctx.J,
                     (long long)ctx.J - 1);
        goto done;
    }
    res = finish(&c);
done:
    if (!res)
        call_free(&c);
    return res;
}

/* ---------------------------------------------------------------- clip sampling */

/* one thread's share of the channels */
typedef struct {
    int dbl;
    size_t c0, c1, ntimes, bad;
    const void *key_times, *values, *times;
    const npy_int64 *ko, *nk, *vo, *oo, *os;
    const npy_int32 *ncomp, *interp, *rot;
    void *out;
    int status;
} sample_part_t;

static void *sample_part(void *arg)
{
    sample_part_t *t = arg;
    size_t c = t->c0, n = t->c1 - t->c0;
    if (t->dbl)
        t->status = sk_sample_channels_d(n, t->key_times, t->ko + c, t->nk + c, t->values,
                                         t->vo + c, t->ncomp + c, t->interp + c, t->rot + c,
                                         t->oo + c, t->os + c, t->ntimes, t->times, t->out,
                                         &t->bad);
    else
        t->status = sk_sample_channels_f(n, t->key_times, t->ko + c, t->nk + c, t->values,
                                         t->vo + c, t->ncomp + c, t->interp + c, t->rot + c,
                                         t->oo + c, t->os + c, t->ntimes, t->times, t->out,
                                         &t->bad);
    t->bad += c;
    return NULL;
}

/* sample_channels(key_times, key_offset, nkeys, values, value_offset, ncomp, interp, rotation,
 *                 out_offset, out_stride, times, out, threads): the packed form of skinkit.Clip;
 * the channels are shared out among the threads.
 * Every offset is checked against its array so that no channel can read or write outside. */
static PyObject *py_sample_channels(PyObject *self, PyObject *args)
{
    static const char *names[] = {"key_times", "key_offset", "nkeys", "values", "value_offset",
                                  "ncomp", "interp", "rotation", "out_offset", "out_stride",
                                  "times", "out"};
    PyObject *o[13];
    PyArrayObject *a[12] = {NULL};
    PyObject *res = NULL;
    int threads;
    if (!PyArg_UnpackTuple(args, "sample_channels", 13, 13, &o[0], &o[1], &o[2], &o[3], &o[4],
                           &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12]) ||
        parse_threads(o[12], &threads) < 0)
        return NULL;
    if (!PyArray_Check(o[11]) || (PyArray_TYPE((PyArrayObject *)o[11]) != NPY_FLOAT &&
                                  PyArray_TYPE((PyArrayObject *)o[11]) != NPY_DOUBLE)) {
        PyErr_SetString(PyExc_TypeError, "out must be a float32 or float64 array");
        return NULL;
    }
    int ft = PyArray_TYPE((PyArrayObject *)o[11]);
    const int types[12] = {ft, NPY_INT64, NPY_INT64, ft, NPY_INT64, NPY_INT32, NPY_INT32,
                           NPY_INT32, NPY_INT64, NPY_INT64, ft, ft};
    for (int i = 0; i < 12; i++) {
        int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (i == 11 ? NPY_ARRAY_WRITEABLE : 0);
        if (!PyArray_Check(o[i]) || PyArray_TYPE((PyArrayObject *)o[i]) != types[i] ||
            PyArray_NDIM((PyArrayObject *)o[i]) != 1 ||
            !PyArray_CHKFLAGS((PyArrayObject *)o[i], flags) ||
            !PyArray_ISNOTSWAPPED((PyArrayObject *)o[i])) {
            PyErr_Format(PyExc_TypeError, "sample_channels: %s must be a 1-d C-contiguous native "
                         "array of type %d", names[i], types[i]);
            return NULL;
        }
        a[i] = (PyArrayObject *)o[i];
    }
    npy_intp nc = PyArray_DIM(a[1], 0), nkt = PyArray_DIM(a[0], 0), nv = PyArray_DIM(a[3], 0);
    npy_intp nt = PyArray_DIM(a[10], 0), nout = PyArray_DIM(a[11], 0);
    for (int i = 2; i < 10; i++)
        if (i != 3 && PyArray_DIM(a[i], 0) != nc) {
            PyErr_Format(PyExc_ValueError, "sample_channels: %s must have %" NPY_INTP_FMT
                         " entries", names[i], nc);
            return NULL;
        }
    const npy_int64 *ko = PyArray_DATA(a[1]), *nk = PyArray_DATA(a[2]), *vo = PyArray_DATA(a[4]);
    const npy_int64 *oo = PyArray_DATA(a[8]), *os = PyArray_DATA(a[9]);
    const npy_int32 *ncomp = PyArray_DATA(a[5]), *interp = PyArray_DATA(a[6]);
    const npy_int32 *rot = PyArray_DATA(a[7]);
    for (npy_intp c = 0; c < nc; c++) {
        npy_int64 per = interp[c] == SK_CUBICSPLINE ? 3 : 1;
        const char *why = NULL;
        if (nk[c] < 1 || ko[c] < 0 || ko[c] > nkt || nk[c] > nkt - ko[c])
            why = "key range outside key_times";
        else if (ncomp[c] < 1 || ncomp[c] > 4 || (rot[c] && ncomp[c] != 4))
            why = "ncomp must be 1..4 (4 for rotations)";
        else if (interp[c] < SK_STEP || interp[c] > SK_CUBICSPLINE)
            why = "unknown interpolation";
        else if (vo[c] < 0 || vo[c] > nv || nk[c] > (nv - vo[c]) / (per * ncomp[c]))
            why = "value range outside values";
        else if (nt > 0 && (oo[c] < 0 || os[c] < 0 || oo[c] > nout - ncomp[c] ||
                            (os[c] > 0 && nt - 1 > (nout - ncomp[c] - oo[c]) / os[c])))
            why = "output range outside out";
        if (why) {
            PyErr_Format(PyExc_ValueError, "sample_channels: channel %" NPY_INTP_FMT ": %s", c,
                         why);
            return NULL;
        }
    }
    sample_part_t part[MAX_THREADS];
    int parts = thread_count(threads < nc ? threads : (int)nc, nc * nt, GRAIN_SAMPLES), st = 0;
    size_t bad = 0;
    for (int t = 0; t < parts; t++) {
        sample_part_t pt = {ft == NPY_DOUBLE, (size_t)(nc * t / parts),
                            (size_t)(nc * (t + 1) / parts), (size_t)nt, 0,
                            PyArray_DATA(a[0]), PyArray_DATA(a[3]), PyArray_DATA(a[10]),
                            ko, nk, vo, oo, os, ncomp, interp, rot, PyArray_DATA(a[11]), 0};
        part[t] = pt;
    }
    Py_BEGIN_ALLOW_THREADS
    parallel(parts, sample_part, (char *)part, sizeof part[0]);
    Py_END_ALLOW_THREADS
    for (int t = 0; t < parts && !st; t++)
        if ((st = part[t].status) != SK_OK)
            bad = part[t].bad;
    if (st != SK_OK)
        PyErr_Format(PyExc_ValueError, "sample_channels: channel %zu has no keys", bad);
    else
        res = Py_None, Py_INCREF(res);
    return res;
}

/* ---------------------------------------------------------------- module */

static PyObject *py_simd(PyObject *self, PyObject *unused)
{
    static const char *const names[] = {"baseline", "avx2", "avx512"};
    return PyUnicode_FromString(names[sk_simd()]);
}

static PyObject *py_default_threads(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(default_threads);
}

static PyMethodDef methods[] = {
    {"forward_kinematics", py_forward_kinematics, METH_VARARGS,
     "forward_kinematics(parents, rotations, translations, scales=None, out=None, threads=None)"},
    {"rigid_forward_kinematics", py_rigid_forward_kinematics, METH_VARARGS,
     "rigid_forward_kinematics(parents, rest_positions, rotations, out_rot=None, out_trans=None, "
     "threads=None)"},
    {"skinning_matrices", py_skinning_matrices, METH_VARARGS,
     "skinning_matrices(world, inverse_bind, out=None, threads=None)"},
    {"inverse_bind_matrices", py_inverse_bind_matrices, METH_VARARGS,
     "inverse_bind_matrices(world, out=None, threads=None)"},
    {"linear_blend_skinning", py_linear_blend_skinning, METH_VARARGS,
     "linear_blend_skinning(vertices, joints, weights, skinning_matrices, normals=None, "
     "out_positions=None, out_normals=None, threads=None)"},
    {"sample_channels", py_sample_channels, METH_VARARGS,
     "sample_channels(key_times, key_offset, nkeys, values, value_offset, ncomp, interp, "
     "rotation, out_offset, out_stride, times, out, threads)"},
    {"default_threads", py_default_threads, METH_NOARGS,
     "default_threads() -> int: threads a kernel may use when threads=None "
     "(SKINKIT_NUM_THREADS at import, else the number of online CPUs)"},
    {"simd", py_simd, METH_NOARGS,
     "simd() -> 'avx512', 'avx2' or 'baseline': the code float32 skinning runs (the best the "
     "CPU has; SKINKIT_SIMD=avx2 or baseline at import caps it)"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef elementwise_defs[N_ELEMENTWISE];

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_core",
    "skinkit._core: NumPy bindings of the skinkit C kernels (use the skinkit package API).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    const char *nt = getenv("SKINKIT_NUM_THREADS");
    if (nt && *nt) {
        char *end;
        long v = strtol(nt, &end, 10);
        if (*end || v < 1) {
            PyErr_Format(PyExc_ImportError,
                         "SKINKIT_NUM_THREADS must be an integer >= 1, got '%s'", nt);
            return NULL;
        }
        default_threads = v > MAX_THREADS ? MAX_THREADS : (int)v;
    } else {
#ifndef _WIN32
        long v = sysconf(_SC_NPROCESSORS_ONLN);
        default_threads = v < 1 ? 1 : v > MAX_THREADS ? MAX_THREADS : (int)v;
#endif
    }
    const char *simd = getenv("SKINKIT_SIMD");
    if (simd && *simd) { /* a cap: the best variant at or below it that this CPU has */
        if (!strcmp(simd, "baseline") || !strcmp(simd, "0") || !strcmp(simd, "off"))
            sk_set_simd(SK_SIMD_BASELINE);
        else if (!strcmp(simd, "avx2"))
            sk_set_simd(SK_SIMD_AVX2);
        else if (strcmp(simd, "avx512")) {
            PyErr_Format(PyExc_ImportError,
                         "SKINKIT_SIMD must be avx512, avx2 or baseline, got '%s'", simd);
            return NULL;
        }
    }
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np)
        return NULL;
    from_dlpack = PyObject_GetAttrString(np, "from_dlpack");
    Py_DECREF(np);
    if (!from_dlpack)
        PyErr_Clear();
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    for (size_t i = 0; i < N_ELEMENTWISE; i++) {
        PyMethodDef *d = &elementwise_defs[i];
        d->ml_name = elementwise[i].name;
        d->ml_meth = call_elementwise;
        d->ml_flags = METH_VARARGS;
        d->ml_doc = elementwise[i].doc;
        PyObject *cap = PyCapsule_New((void *)&elementwise[i], NULL, NULL);
        PyObject *f = cap ? PyCFunction_NewEx(d, cap, NULL) : NULL;
        Py_XDECREF(cap);
        if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
