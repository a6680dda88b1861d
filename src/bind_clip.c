/* bind_clip.c -- clip sampling: the packed channel table of skinkit.Clip (ragged: not a kernel
 * descriptor), its channels shared out among the threads. */
#include "binding.h"

#define GRAIN_SAMPLES 16384  /* channel samples per thread */

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
PyObject *py_sample_channels(PyObject *self, PyObject *args)
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

