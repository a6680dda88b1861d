/* bind_clip.c -- clip sampling: skinkit.Clip's packed channel table (sk_clip in skinkit.h; a
 * ragged table, not a kernel descriptor), sampled with its channels shared out among the
 * threads, into one output array or one per path (translation, rotation, scale: the table's
 * path field says which).  The binding checks what is about Python objects (each field an
 * array of the right type); sk_check_clip and sk_check_clip_output check the table itself. */
#include "binding.h"

#include <math.h>
#include <string.h>

#define GRAIN_SAMPLES 16384 /* channel samples per thread (the grain: see bind_table.c) */
#define TIME_SHARE 256      /* times per thread from which threads share out the times */
#define GRAIN_FILL 262144   /* rest-pose values per thread (fill_rows) */

/* the fields of sk_clip, as attributes of the Python table (skinkit.clip.ClipTable) */
enum { KEY_TIMES, VALUES, KEY_OFFSET, NKEYS, VALUE_OFFSET, NCOMP, INTERP, ROTATION, NFIELDS };
static const struct {
    const char *name;
    int type; /* NPY_INT64, NPY_INT32, or 0 for the clip's float type */
} fields[NFIELDS] = {{"key_times", 0},       {"values", 0},        {"key_offset", NPY_INT64},
                     {"nkeys", NPY_INT64},   {"value_offset", NPY_INT64},
                     {"ncomp", NPY_INT32},   {"interp", NPY_INT32}, {"rotation", NPY_INT32}};

#define NPATHS 3 /* skinkit.clip.PATHS */

typedef struct {
    int dbl;
    sk_clip_f f;
    sk_clip_d d;
    const npy_int64 *out_offset, *out_stride;
    size_t ntimes;
    const void *times;
    int nout;                   /* output arrays: 1, or NPATHS (then path picks one) */
    const npy_int64 *path;      /* per channel, when nout == NPATHS */
    void *out[NPATHS];
    size_t outlen[NPATHS];
} clip_call_t;

/* the end of the run of channels from c (< c1) that write into the same output array */
static size_t run_end(const clip_call_t *cc, size_t c, size_t c1)
{
    size_t e = c + 1;
    while (cc->nout > 1 && e < c1 && cc->path[e] == cc->path[c])
        e++;
    return e;
}

/* one thread's share: channels [c0, c1) at times [i0, i1) */
typedef struct {
    const clip_call_t *cc;
    size_t c0, c1, i0, i1;
} clip_part_t;

static void *sample_part(void *arg)
{
    const clip_part_t *t = arg;
    const clip_call_t *cc = t->cc;
    for (size_t c = t->c0, e; c < t->c1; c = e) {
        e = cc->nout > 1 ? run_end(cc, c, t->c1) : t->c1;
        void *out = cc->out[cc->nout > 1 ? cc->path[c] : 0];
        if (cc->dbl)
            sk_sample_clip_d(&cc->d, c, e, cc->out_offset, cc->out_stride, t->i0, t->i1,
                             cc->times, out);
        else
            sk_sample_clip_f(&cc->f, c, e, cc->out_offset, cc->out_stride, t->i0, t->i1,
                             cc->times, out);
    }
    return NULL;
}

/* SK_OK, or the status of the first run of channels [c, e) whose outputs do not fit in its
 * array (checked on a view of the table from channel c; *bad counts from channel 0) */
static int check_outputs(const clip_call_t *cc, size_t *bad)
{
    size_t nc = cc->d.nchannels;
    for (size_t c = 0, e; c < nc; c = e) {
        e = run_end(cc, c, nc);
        size_t len = cc->outlen[cc->nout > 1 ? cc->path[c] : 0];
#define VIEW(v) (v.nchannels = e - c, v.key_offset += c, v.nkeys += c, v.value_offset += c, \
                 v.ncomp += c, v.interp += c, v.rotation += c)
        sk_clip_f f = cc->f;
        sk_clip_d d = cc->d;
        VIEW(f), VIEW(d);
#undef VIEW
        int st = cc->dbl ? sk_check_clip_output_d(&d, cc->out_offset + c, cc->out_stride + c,
                                                  cc->ntimes, len, bad)
                         : sk_check_clip_output_f(&f, cc->out_offset + c, cc->out_stride + c,
                                                  cc->ntimes, len, bad);
        if (st != SK_OK) {
            *bad += c;
            return st;
        }
    }
    return SK_OK;
}

/* a 1-d, native, aligned, C-contiguous array of the given type (writeable for out); also
 * bind_compress.c's check */
int check_array(PyObject *obj, const char *what, const char *name, int type, int write)
{
    PyArrayObject *a = (PyArrayObject *)obj;
    int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (write ? NPY_ARRAY_WRITEABLE : 0);
    if (PyArray_Check(obj) && PyArray_TYPE(a) == type && PyArray_NDIM(a) == 1 &&
        PyArray_CHKFLAGS(a, flags) && PyArray_ISNOTSWAPPED(a))
        return 0;
    PyArray_Descr *want = PyArray_DescrFromType(type);
    PyErr_Format(PyExc_TypeError, "%s%s must be a one-dimensional, native, aligned, "
                 "C-contiguous%s %S array, got %R", what, name, write ? ", writeable" : "",
                 (PyObject *)want, obj);
    Py_DECREF(want);
    return -1;
}

/* words for the statuses of sk_check_clip and sk_check_clip_output */
static const char *clip_problem(int status)
{
    switch (status) {
    case SK_ERR_CLIP_KEYS: return "has no keys, or its keys lie outside key_times";
    case SK_ERR_CLIP_NCOMP: return "has ncomp < 1 (or not 4 for a rotation)";
    case SK_ERR_CLIP_INTERP: return "has an unknown interpolation";
    case SK_ERR_CLIP_VALUES: return "has its values outside the values array";
    default: return "writes outside out";
    }
}

/* Releases the n references in hold (NULL ones skipped) and returns res: a binding
 * function's common exit. */
static PyObject *release(PyObject **hold, int n, PyObject *res)
{
    for (int i = 0; i < n; i++)
        Py_XDECREF(hold[i]);
    return res;
}

/* Reads the table's fields into both typed sk_clip views, and checks the table. */
static int read_table(PyObject *table, int type, clip_call_t *cc, PyObject **hold)
{
    const void *data[NFIELDS];
    size_t len[NFIELDS];
    for (int i = 0; i < NFIELDS; i++) {
        hold[i] = PyObject_GetAttrString(table, fields[i].name);
        if (!hold[i] ||
            check_array(hold[i], "clip table ", fields[i].name, fields[i].type ? fields[i].type
                                                                               : type, 0) < 0)
            return -1;
        data[i] = PyArray_DATA((PyArrayObject *)hold[i]);
        len[i] = (size_t)PyArray_DIM((PyArrayObject *)hold[i], 0);
        if (i > KEY_OFFSET && len[i] != len[KEY_OFFSET]) {
            PyErr_Format(PyExc_ValueError, "clip table %s must have one entry per channel "
                         "(%zu, as key_offset), got %zu", fields[i].name, len[KEY_OFFSET], len[i]);
            return -1;
        }
    }
#define CLIP {len[KEY_OFFSET], data[KEY_TIMES], len[KEY_TIMES], data[VALUES], len[VALUES], \
                 data[KEY_OFFSET], data[NKEYS], data[VALUE_OFFSET], data[NCOMP], data[INTERP], \
                 data[ROTATION]}
    sk_clip_f f = CLIP;
    sk_clip_d d = CLIP;
#undef CLIP
    cc->f = f;
    cc->d = d;
    size_t bad = 0;
    int st = cc->dbl ? sk_check_clip_d(&cc->d, &bad) : sk_check_clip_f(&cc->f, &bad);
    if (st != SK_OK) {
        PyErr_Format(PyExc_ValueError, "clip table: channel %zu %s", bad, clip_problem(st));
        return -1;
    }
    /* optional: the prepared buffer of sk_prepare_clip */
    hold[NFIELDS] = PyObject_GetAttrString(table, "prepared");
    if (!hold[NFIELDS])
        PyErr_Clear();
    else if (hold[NFIELDS] != Py_None) {
        PyArrayObject *pr = (PyArrayObject *)hold[NFIELDS];
        size_t want = cc->dbl ? sk_prepared_size_d(&cc->d) : sk_prepared_size_f(&cc->f);
        if (check_array(hold[NFIELDS], "clip table ", "prepared", type, 0) < 0)
            return -1;
        if ((size_t)PyArray_DIM(pr, 0) != want) {
            PyErr_Format(PyExc_ValueError, "clip table prepared must have the %zu entries of "
                         "sk_prepared_size, got %zd", want, (Py_ssize_t)PyArray_DIM(pr, 0));
            return -1;
        }
        cc->f.prepared = PyArray_DATA(pr);
        cc->d.prepared = PyArray_DATA(pr);
    }
    return 0;
}

/* reads one output array (or its part of a tuple) into cc->out[i] */
static int read_out(PyObject *obj, int type, const char *name, clip_call_t *cc, int i)
{
    if (check_array(obj, "", name, type == NPY_FLOAT ? NPY_FLOAT : NPY_DOUBLE, 1) < 0)
        return -1;
    cc->out[i] = PyArray_DATA((PyArrayObject *)obj);
    cc->outlen[i] = (size_t)PyArray_DIM((PyArrayObject *)obj, 0);
    return 0;
}

/* out: one array, or a tuple of NPATHS arrays (one per path, channel c writing into
 * out[path[c]], path read from the table) */
static int read_outs(PyObject *out, PyObject *table, clip_call_t *cc, int *type, PyObject **hold)
{
    static const char *const names[NPATHS] = {"out[0]", "out[1]", "out[2]"};
    if (!PyTuple_Check(out)) {
        *type = PyArray_Check(out) ? PyArray_TYPE((PyArrayObject *)out) : NPY_DOUBLE;
        cc->nout = 1;
        return read_out(out, *type, "out", cc, 0);
    }
    if (PyTuple_GET_SIZE(out) != NPATHS) {
        PyErr_Format(PyExc_ValueError, "out must be one array or a tuple of %d (translations, "
                     "rotations, scales), got a tuple of %zd", NPATHS, PyTuple_GET_SIZE(out));
        return -1;
    }
    PyObject *o0 = PyTuple_GET_ITEM(out, 0);
    *type = PyArray_Check(o0) ? PyArray_TYPE((PyArrayObject *)o0) : NPY_DOUBLE;
    cc->nout = NPATHS;
    for (int i = 0; i < NPATHS; i++)
        if (read_out(PyTuple_GET_ITEM(out, i), *type, names[i], cc, i) < 0)
            return -1;
    *hold = PyObject_GetAttrString(table, "path");
    if (!*hold || check_array(*hold, "clip table ", "path", NPY_INT64, 0) < 0)
        return -1;
    cc->path = PyArray_DATA((PyArrayObject *)*hold);
    return 0;
}

/* Reads and checks one call: the table, the output offsets and strides, the times (NULL: one
 * time: the outputs are checked for one) and out.  hold gets the references (NFIELDS + 2). */
static int read_call(PyObject *table, PyObject *oo, PyObject *os, PyObject *times, PyObject *out,
                     clip_call_t *cc, PyObject **hold)
{
    int type;
    if (read_outs(out, table, cc, &type, &hold[NFIELDS + 1]) < 0)
        return -1;
    cc->dbl = type == NPY_DOUBLE;
    if (read_table(table, type, cc, hold) < 0 ||
        (times && check_array(times, "", "times", type, 0) < 0) ||
        check_array(oo, "", "out_offset", NPY_INT64, 0) < 0 ||
        check_array(os, "", "out_stride", NPY_INT64, 0) < 0)
        return -1;
    size_t nc = cc->d.nchannels, bad = 0;
    if ((size_t)PyArray_DIM((PyArrayObject *)oo, 0) != nc ||
        (size_t)PyArray_DIM((PyArrayObject *)os, 0) != nc ||
        (cc->nout > 1 && (size_t)PyArray_DIM((PyArrayObject *)hold[NFIELDS + 1], 0) != nc)) {
        PyErr_Format(PyExc_ValueError, "out_offset and out_stride (and the clip table's path "
                     "with one output per path) must have one entry per channel (%zu)", nc);
        return -1;
    }
    for (size_t c = 0; cc->nout > 1 && c < nc; c++)
        if (cc->path[c] < 0 || cc->path[c] >= NPATHS) {
            PyErr_Format(PyExc_ValueError, "clip table: channel %zu has path %lld, not 0..%d",
                         c, (long long)cc->path[c], NPATHS - 1);
            return -1;
        }
    cc->out_offset = PyArray_DATA((PyArrayObject *)oo);
    cc->out_stride = PyArray_DATA((PyArrayObject *)os);
    cc->ntimes = times ? (size_t)PyArray_DIM((PyArrayObject *)times, 0) : 1;
    if (times)
        cc->times = PyArray_DATA((PyArrayObject *)times);
    if (check_outputs(cc, &bad) != SK_OK) {
        PyErr_Format(PyExc_ValueError, "sample_channels: channel %zu %s", bad,
                     clip_problem(SK_ERR_CLIP_OUTPUT));
        return -1;
    }
    return 0;
}

/* Samples a checked call on up to nthreads threads, without the GIL from GIL_SAMPLES channel
 * samples on.  A smaller call (a few microseconds) keeps it: releasing and taking it back cost
 * 0.05 us of the 0.75 us of a playback call of 64 joints (one time, 128 channels). */
#define GIL_SAMPLES 1024
static void run_sampling(const clip_call_t *cc, int nthreads)
{
    /* many times: each thread samples every channel at its share of the times (channels cost
       unlike amounts: a clip's translations, then its rotations, would fall to different
       threads); few: each takes a share of the channels */
    clip_part_t part[MAX_THREADS];
    size_t nc = cc->d.nchannels, nt = cc->ntimes, many = nt >= TIME_SHARE * (size_t)nthreads;
    int parts = thread_count(many || nthreads < (npy_intp)nc ? nthreads : (int)nc,
                             (npy_intp)(nc * nt), GRAIN_SAMPLES);
    for (int t = 0; t < parts; t++) {
        size_t a = (size_t)t, b = (size_t)t + 1, p = (size_t)parts;
        clip_part_t pt = {cc, many ? 0 : nc * a / p, many ? nc : nc * b / p,
                          many ? nt * a / p : 0, many ? nt * b / p : nt};
        part[t] = pt;
    }
    if (parts == 1 && nc * nt < GIL_SAMPLES) {
        sample_part(part);
        return;
    }
    Py_BEGIN_ALLOW_THREADS
    parallel(parts, sample_part, (char *)part, sizeof part[0]);
    Py_END_ALLOW_THREADS
}

/* sample_channels(table, out_offset, out_stride, times, out, threads=None): samples every
 * channel of a clip table into out (see sk_sample_clip), one array or one per path; returns
 * None. */
PyObject *py_sample_channels(PyObject *self, PyObject *args)
{
    PyObject *table, *oo, *os, *times, *out, *threads = Py_None, *hold[NFIELDS + 2] = {NULL};
    clip_call_t cc;
    int nthreads;
    memset(&cc, 0, sizeof cc);
    if (!PyArg_UnpackTuple(args, "sample_channels", 5, 6, &table, &oo, &os, &times, &out,
                           &threads) ||
        parse_threads(threads, &nthreads) < 0)
        return NULL;
    if (read_call(table, oo, os, times, out, &cc, hold) < 0)
        return release(hold, NFIELDS + 2, NULL);
    run_sampling(&cc, nthreads);
    Py_INCREF(Py_None);
    return release(hold, NFIELDS + 2, Py_None);
}

/* A ClipPlayer samples a clip at one time a call into outputs bound to it once, from a plan of
 * its channels (sk_play_plan: the lane groups found once, each keeping its key interval between
 * calls), and returns the pose it was made with; skinkit.clip.Playback is its subclass.  The
 * table and the outputs are checked when it is made, and the integer fields that say where
 * samples are written are copied, so that nothing done to the arrays afterwards moves a write
 * outside its output. */
typedef struct {
    PyObject_HEAD
    clip_call_t cc;                  /* ntimes 1 */
    PyObject *hold[NFIELDS + 2];     /* the table's arrays, its path */
    PyObject *out;                   /* the output arrays */
    PyObject *pose;                  /* what sample returns; NULL until the player is made */
    PyObject *convert;               /* converts a time of another type than FAST_TIME's */
    void *fields;                    /* the copied integer fields */
    sk_play_item *items;             /* the plan of each run of channels, one after the other */
    size_t *run_end;                 /* run r: items [run_end[r - 1] or 0, run_end[r]) */
    int *run_out;                    /* and its output array */
    size_t nruns, nitems;
    int nthreads;
    double duration;                 /* > 0: times wrapped into [0, duration) */
} player_t;

static void player_dealloc(PyObject *obj)
{
    player_t *p = (player_t *)obj;
    PyObject_GC_UnTrack(obj);
    release(p->hold, NFIELDS + 2, NULL);
    Py_XDECREF(p->out);
    Py_XDECREF(p->pose);
    Py_XDECREF(p->convert);
    PyMem_Free(p->fields);
    PyMem_Free(p->items);
    PyMem_Free(p->run_end);
    PyMem_Free(p->run_out);
    Py_TYPE(obj)->tp_free(obj);
}

/* the objects a caller gave that may refer back to the player (a cycle through convert) */
static int player_traverse(PyObject *obj, visitproc visit, void *arg)
{
    player_t *p = (player_t *)obj;
    Py_VISIT(p->out);
    Py_VISIT(p->pose);
    Py_VISIT(p->convert);
    return 0;
}

/* one thread's share of a player's call: items [i0, i1) at time t */
typedef struct {
    const player_t *p;
    size_t i0, i1;
    double t;
} play_part_t;

static void *play_part(void *arg)
{
    const play_part_t *pt = arg;
    const player_t *p = pt->p;
    const clip_call_t *cc = &p->cc;
    for (size_t r = 0, b = 0; r < p->nruns; b = p->run_end[r++]) {
        size_t i0 = b > pt->i0 ? b : pt->i0, i1 = p->run_end[r] < pt->i1 ? p->run_end[r] : pt->i1;
        if (i0 >= i1)
            continue;
        void *out = cc->out[p->run_out[r]];
        if (cc->dbl)
            sk_play_sample_d(&cc->d, p->items + i0, i1 - i0, cc->out_offset, cc->out_stride,
                             pt->t, out);
        else
            sk_play_sample_f(&cc->f, p->items + i0, i1 - i0, cc->out_offset, cc->out_stride,
                             (float)pt->t, out);
    }
    return NULL;
}

/* the times sample reads as they are: a Python float and NumPy's float64, float32 and float16
 * convert to a double exactly, which the sampler rounds to the clip's type as as_times would */
#define FAST_TIME(type) ((type) == &PyFloat_Type || (type) == &PyDoubleArrType_Type || \
                         (type) == &PyFloatArrType_Type || (type) == &PyHalfArrType_Type)

/* ClipPlayer.sample(time), time positional or by name as a Python method's: samples the clip
 * at time into the bound outputs; returns the pose */
static PyObject *player_sample(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *names)
{
    player_t *p = (player_t *)obj;
    PyObject *time, *converted = NULL;
    Py_ssize_t nnames = names ? PyTuple_GET_SIZE(names) : 0;
    if (nargs + nnames != 1 ||
        (nnames && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(names, 0), "time"))) {
        PyErr_SetString(PyExc_TypeError, "sample() takes one argument: time");
        return NULL;
    }
    time = args[0]; /* the one positional argument, or the value of the one named */
    if (!p->pose) {
        PyErr_SetString(PyExc_RuntimeError, "ClipPlayer.sample: the player is not made (its "
                        "ClipPlayer.__new__ has not returned it)");
        return NULL;
    }
    if (!FAST_TIME(Py_TYPE(time)) && !(time = converted = PyObject_CallOneArg(p->convert, time)))
        return NULL;
    double x = PyFloat_AsDouble(time), t = 0;
    int ok = !(x == -1.0 && PyErr_Occurred());
    if (ok && p->cc.dbl) {
        t = p->duration > 0 ? wrap_d(x, p->duration) : x;
    } else if (ok) {
        float xf = (float)x;
        x = xf;
        t = p->duration > 0 ? wrap_f(xf, (float)p->duration) : xf;
    }
    if (ok && !(ok = isfinite(x)))
        PyErr_Format(PyExc_ValueError, "times must be finite (in the clip's dtype), got %R",
                     time);
    Py_XDECREF(converted);
    if (!ok)
        return NULL;
    /* the items shared out among the threads, each thread's share whole lane groups */
    play_part_t part[MAX_THREADS];
    size_t nc = p->cc.d.nchannels, n = p->nitems;
    int parts = thread_count(p->nthreads, (npy_intp)nc, GRAIN_SAMPLES);
    for (int i = 0; i < parts; i++) {
        play_part_t pt = {p, n * (size_t)i / (size_t)parts, n * (size_t)(i + 1) / (size_t)parts,
                          t};
        part[i] = pt;
    }
    if (parts == 1 && nc < GIL_SAMPLES) {
        play_part(part);
    } else {
        Py_BEGIN_ALLOW_THREADS
        parallel(parts, play_part, (char *)part, sizeof part[0]);
        Py_END_ALLOW_THREADS
    }
    Py_INCREF(p->pose);
    return p->pose;
}

/* a copy of bytes from src at *at, which moves past it */
static void *own(const void *src, size_t bytes, char **at)
{
    void *copy = memcpy(*at, src, bytes);
    *at += bytes;
    return copy;
}

/* the copies of a checked call's integer fields, and its plan: 0, or -1 with an exception */
static int plan(player_t *p)
{
    clip_call_t *cc = &p->cc;
    size_t nc = cc->d.nchannels, i64 = sizeof(int64_t), i32 = sizeof(int32_t);
    char *at = p->fields = PyMem_Malloc(nc * (6 * i64 + 3 * i32) + 1);
    p->items = PyMem_Malloc(nc * sizeof(sk_play_item) + 1);
    p->run_end = PyMem_Malloc(nc * sizeof(size_t) + 1);
    p->run_out = PyMem_Malloc(nc * sizeof(int) + 1);
    if (!at || !p->items || !p->run_end || !p->run_out) {
        PyErr_NoMemory();
        return -1;
    }
    cc->out_offset = own(cc->out_offset, nc * i64, &at);
    cc->out_stride = own(cc->out_stride, nc * i64, &at);
    if (cc->nout > 1)
        cc->path = own(cc->path, nc * i64, &at);
    cc->f.key_offset = cc->d.key_offset = own(cc->d.key_offset, nc * i64, &at);
    cc->f.nkeys = cc->d.nkeys = own(cc->d.nkeys, nc * i64, &at);
    cc->f.value_offset = cc->d.value_offset = own(cc->d.value_offset, nc * i64, &at);
    cc->f.ncomp = cc->d.ncomp = own(cc->d.ncomp, nc * i32, &at);
    cc->f.interp = cc->d.interp = own(cc->d.interp, nc * i32, &at);
    cc->f.rotation = cc->d.rotation = own(cc->d.rotation, nc * i32, &at);
    for (size_t c = 0, e; c < nc; c = e) {
        e = cc->nout > 1 ? run_end(cc, c, nc) : nc;
        sk_play_item *items = p->items + p->nitems;
        p->nitems += cc->dbl ? sk_play_plan_d(&cc->d, c, e, cc->out_offset, items)
                             : sk_play_plan_f(&cc->f, c, e, cc->out_offset, items);
        p->run_out[p->nruns] = cc->nout > 1 ? (int)cc->path[c] : 0;
        p->run_end[p->nruns++] = p->nitems;
    }
    return 0;
}

/* ClipPlayer(table, out_offset, out_stride, out, threads, duration, pose, convert), also a
 * subclass's: every argument positional.  pose and convert are set last: reading the table's
 * attributes runs Python code, which could find the player (gc.get_objects) and call sample. */
static PyObject *player_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"", "", "", "", "", "", "", "", NULL};
    PyObject *table, *oo, *os, *out, *threads, *pose, *convert;
    double duration;
    int nthreads;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOdOO:ClipPlayer", names, &table, &oo, &os,
                                     &out, &threads, &duration, &pose, &convert) ||
        parse_threads(threads, &nthreads) < 0)
        return NULL;
    if (!PyCallable_Check(convert)) {
        PyErr_Format(PyExc_TypeError, "ClipPlayer: convert must be callable, got %.100s",
                     Py_TYPE(convert)->tp_name);
        return NULL;
    }
    player_t *p = (player_t *)type->tp_alloc(type, 0); /* zeroed */
    if (!p)
        return NULL;
    p->nthreads = nthreads;
    p->duration = duration;
    p->out = out;
    Py_INCREF(out);
    if (read_call(table, oo, os, NULL, out, &p->cc, p->hold) < 0 || plan(p) < 0) {
        Py_DECREF(p);
        return NULL;
    }
    Py_INCREF(convert);
    p->convert = convert;
    Py_INCREF(pose);
    p->pose = pose;
    return (PyObject *)p;
}

/* a player is bound to outputs and key intervals of its own: no pickle, no copy */
static PyObject *player_reduce(PyObject *obj, PyObject *unused)
{
    PyErr_Format(PyExc_TypeError, "cannot pickle or copy a %.100s (its outputs and key "
                 "intervals are its own): make another", Py_TYPE(obj)->tp_name);
    return NULL;
}

static PyMethodDef player_methods[] = {
    {"__reduce__", player_reduce, METH_NOARGS, NULL},
    {"sample", (PyCFunction)(void (*)(void))player_sample, METH_FASTCALL | METH_KEYWORDS,
     "sample($self, /, time)\n--\n\n"
     "The clip at ``time``, the very bits of ``Clip.sample(time, rest, loop)``.\n\n"
     "Parameters\n"
     "----------\n"
     "time : float\n"
     "    Seconds: one real number (a float or a NumPy float goes straight to the C sampler;\n"
     "    an integer, a 0-d or one-element array... is converted as ``Clip.sample`` does).\n\n"
     "Returns\n"
     "-------\n"
     "TRS\n"
     "    Read-only translations (N, 3), rotations (N, 4), scales (N, 3) in the clip's dtype:\n"
     "    the same arrays on every call, which the next call overwrites (copy to keep one).\n\n"
     "Raises\n"
     "------\n"
     "TypeError\n"
     "    If time is not a real number.\n"
     "ValueError\n"
     "    If time is not one finite number."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject player_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skinkit._core.ClipPlayer",
    .tp_basicsize = sizeof(player_t),
    .tp_dealloc = player_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "ClipPlayer(table, out_offset, out_stride, out, threads, duration, pose, convert)"
              "\n\n"
              "A clip table bound to out (a tuple of one array per path) for one time a call: "
              "its sample(time) is sample_channels at that time (wrapped into [0, duration) "
              "when duration > 0), and returns pose.  A time that is not a float, or a NumPy "
              "float64, float32 or float16, is convert(time) first.  skinkit.clip.Playback is "
              "its subclass.",
    .tp_traverse = player_traverse,
    .tp_methods = player_methods,
    .tp_new = player_new,
    .tp_free = PyObject_GC_Del,
};

/* adds the type ClipPlayer to the module: 0, or -1 with an exception */
int add_clip_player(PyObject *m)
{
    if (PyType_Ready(&player_type) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "ClipPlayer", (PyObject *)&player_type);
}

/* prepare_clip(table) -> prepared: the table's prepared buffer (sk_prepare_clip), an array of
 * the type of its values with sk_prepared_size entries, zero where no key needs one */
PyObject *py_prepare_clip(PyObject *self, PyObject *table)
{
    PyObject *hold[NFIELDS + 1] = {NULL}, *values = PyObject_GetAttrString(table, "values");
    PyObject *res = NULL;
    clip_call_t cc;
    memset(&cc, 0, sizeof cc);
    if (!values)
        return NULL;
    int type = PyArray_Check(values) ? PyArray_TYPE((PyArrayObject *)values) : NPY_DOUBLE;
    Py_DECREF(values);
    cc.dbl = type == NPY_DOUBLE;
    if (read_table(table, type == NPY_FLOAT ? NPY_FLOAT : NPY_DOUBLE, &cc, hold) < 0)
        goto done;
    npy_intp n = (npy_intp)(cc.dbl ? sk_prepared_size_d(&cc.d) : sk_prepared_size_f(&cc.f));
    res = PyArray_ZEROS(1, &n, cc.dbl ? NPY_DOUBLE : NPY_FLOAT, 0);
    if (!res)
        goto done;
    if (cc.dbl)
        sk_prepare_clip_d(&cc.d, PyArray_DATA((PyArrayObject *)res));
    else
        sk_prepare_clip_f(&cc.f, PyArray_DATA((PyArrayObject *)res));
done:
    return release(hold, NFIELDS + 1, res);
}

/* one thread's share of a fill: rows [r0, r1) of out */
typedef struct {
    int dbl, stream;
    size_t r0, r1, len;
    const void *row;
    void *out;
} fill_part_t;

static void *fill_part(void *arg)
{
    const fill_part_t *p = arg;
    if (p->dbl)
        sk_fill_rows_d(p->r1 - p->r0, p->row, p->len, (double *)p->out + p->r0 * p->len,
                       p->stream);
    else
        sk_fill_rows_f(p->r1 - p->r0, p->row, p->len, (float *)p->out + p->r0 * p->len,
                       p->stream);
    return NULL;
}

/* fill_rows(out, row, threads=None): out (1-d) as copies of row side by side, its rows shared
 * out among the threads (GRAIN_FILL values each), with streaming stores when the whole out
 * has SK_STREAM_BYTES or more; returns None */
PyObject *py_fill_rows(PyObject *self, PyObject *args)
{
    PyObject *out, *row, *threads = Py_None;
    int nthreads;
    if (!PyArg_UnpackTuple(args, "fill_rows", 2, 3, &out, &row, &threads) ||
        parse_threads(threads, &nthreads) < 0)
        return NULL;
    int type = PyArray_Check(out) && PyArray_TYPE((PyArrayObject *)out) == NPY_FLOAT
                   ? NPY_FLOAT : NPY_DOUBLE;
    if (check_array(out, "", "out", type, 1) < 0 || check_array(row, "", "row", type, 0) < 0)
        return NULL;
    size_t n = (size_t)PyArray_DIM((PyArrayObject *)out, 0);
    size_t len = (size_t)PyArray_DIM((PyArrayObject *)row, 0);
    if (len ? n % len : n) {
        PyErr_Format(PyExc_ValueError, "fill_rows: out has %zu values, not a multiple of the "
                     "row's %zu", n, len);
        return NULL;
    }
    void *o = PyArray_DATA((PyArrayObject *)out);
    const void *r = PyArray_DATA((PyArrayObject *)row);
    if (len) {
        fill_part_t part[MAX_THREADS];
        size_t nrows = n / len, p = (size_t)thread_count(nthreads, (npy_intp)n, GRAIN_FILL);
        int stream = n * (size_t)PyArray_ITEMSIZE((PyArrayObject *)out) >= SK_STREAM_BYTES;
        for (size_t t = 0; t < p; t++) {
            fill_part_t pt = {type == NPY_DOUBLE, stream, nrows * t / p, nrows * (t + 1) / p,
                              len, r, o};
            part[t] = pt;
        }
        Py_BEGIN_ALLOW_THREADS
        parallel((int)p, fill_part, (char *)part, sizeof part[0]);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}
