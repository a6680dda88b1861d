/* bind_clip.c -- clip sampling: skinkit.Clip's packed channel table (sk_clip in skinkit.h; a
 * ragged table, not a kernel descriptor), sampled with its channels shared out among the
 * threads.  The binding checks what is about Python objects (each field an array of the right
 * type); sk_check_clip and sk_check_clip_output check the table itself. */
#include "binding.h"

#include <string.h>

#define GRAIN_SAMPLES 16384 /* channel samples per thread */

/* the fields of sk_clip, as attributes of the Python table (skinkit.clip.ClipTable) */
enum { KEY_TIMES, VALUES, KEY_OFFSET, NKEYS, VALUE_OFFSET, NCOMP, INTERP, ROTATION, NFIELDS };
static const struct {
    const char *name;
    int type; /* NPY_INT64, NPY_INT32, or 0 for the clip's float type */
} fields[NFIELDS] = {{"key_times", 0},       {"values", 0},        {"key_offset", NPY_INT64},
                     {"nkeys", NPY_INT64},   {"value_offset", NPY_INT64},
                     {"ncomp", NPY_INT32},   {"interp", NPY_INT32}, {"rotation", NPY_INT32}};

typedef struct {
    int dbl;
    sk_clip_f f;
    sk_clip_d d;
    const npy_int64 *out_offset, *out_stride;
    size_t ntimes, nout;
    const void *times;
    void *out;
} clip_call_t;

/* one thread's share of the channels */
typedef struct {
    const clip_call_t *cc;
    size_t c0, c1;
} clip_part_t;

static void *sample_part(void *arg)
{
    const clip_part_t *t = arg;
    const clip_call_t *cc = t->cc;
    if (cc->dbl)
        sk_sample_clip_d(&cc->d, t->c0, t->c1, cc->out_offset, cc->out_stride, cc->ntimes,
                         cc->times, cc->out);
    else
        sk_sample_clip_f(&cc->f, t->c0, t->c1, cc->out_offset, cc->out_stride, cc->ntimes,
                         cc->times, cc->out);
    return NULL;
}

/* a 1-d, native, aligned, C-contiguous array of the given type (writeable for out) */
static int check_array(PyObject *obj, const char *what, const char *name, int type, int write)
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
    case SK_ERR_CLIP_NCOMP: return "has ncomp outside 1..4 (or not 4 for a rotation)";
    case SK_ERR_CLIP_INTERP: return "has an unknown interpolation";
    case SK_ERR_CLIP_VALUES: return "has its values outside the values array";
    default: return "writes outside out";
    }
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
    if (st != SK_OK)
        PyErr_Format(PyExc_ValueError, "clip table: channel %zu %s", bad, clip_problem(st));
    return st == SK_OK ? 0 : -1;
}

/* sample_channels(table, out_offset, out_stride, times, out, threads=None): samples every
 * channel of a clip table into out (see sk_sample_clip); returns None. */
PyObject *py_sample_channels(PyObject *self, PyObject *args)
{
    PyObject *table, *oo, *os, *times, *out, *threads = Py_None, *hold[NFIELDS] = {NULL};
    PyObject *res = NULL;
    clip_call_t cc;
    int nthreads;
    memset(&cc, 0, sizeof cc);
    if (!PyArg_UnpackTuple(args, "sample_channels", 5, 6, &table, &oo, &os, &times, &out,
                           &threads) ||
        parse_threads(threads, &nthreads) < 0)
        return NULL;
    int type = PyArray_Check(out) ? PyArray_TYPE((PyArrayObject *)out) : NPY_DOUBLE;
    cc.dbl = type == NPY_DOUBLE;
    if (check_array(out, "", "out", type == NPY_FLOAT ? NPY_FLOAT : NPY_DOUBLE, 1) < 0 ||
        read_table(table, type, &cc, hold) < 0 || check_array(times, "", "times", type, 0) < 0 ||
        check_array(oo, "", "out_offset", NPY_INT64, 0) < 0 ||
        check_array(os, "", "out_stride", NPY_INT64, 0) < 0)
        goto done;
    size_t nc = cc.d.nchannels, bad = 0;
    if ((size_t)PyArray_DIM((PyArrayObject *)oo, 0) != nc ||
        (size_t)PyArray_DIM((PyArrayObject *)os, 0) != nc) {
        PyErr_Format(PyExc_ValueError, "out_offset and out_stride must have one entry per "
                     "channel (%zu)", nc);
        goto done;
    }
    cc.out_offset = PyArray_DATA((PyArrayObject *)oo);
    cc.out_stride = PyArray_DATA((PyArrayObject *)os);
    cc.ntimes = (size_t)PyArray_DIM((PyArrayObject *)times, 0);
    cc.nout = (size_t)PyArray_DIM((PyArrayObject *)out, 0);
    cc.times = PyArray_DATA((PyArrayObject *)times);
    cc.out = PyArray_DATA((PyArrayObject *)out);
    if ((cc.dbl ? sk_check_clip_output_d(&cc.d, cc.out_offset, cc.out_stride, cc.ntimes,
                                         cc.nout, &bad)
                : sk_check_clip_output_f(&cc.f, cc.out_offset, cc.out_stride, cc.ntimes,
                                         cc.nout, &bad)) != SK_OK) {
        PyErr_Format(PyExc_ValueError, "sample_channels: channel %zu %s", bad,
                     clip_problem(SK_ERR_CLIP_OUTPUT));
        goto done;
    }
    clip_part_t part[MAX_THREADS];
    int parts = thread_count(nthreads < (npy_intp)nc ? nthreads : (int)nc,
                             (npy_intp)(nc * cc.ntimes), GRAIN_SAMPLES);
    for (int t = 0; t < parts; t++) {
        clip_part_t pt = {&cc, nc * (size_t)t / (size_t)parts,
                          nc * (size_t)(t + 1) / (size_t)parts};
        part[t] = pt;
    }
    Py_BEGIN_ALLOW_THREADS
    parallel(parts, sample_part, (char *)part, sizeof part[0]);
    Py_END_ALLOW_THREADS
    res = Py_None;
    Py_INCREF(res);
done:
    for (int i = 0; i < NFIELDS; i++)
        Py_XDECREF(hold[i]);
    return res;
}
