/* bind_compress.c -- sampling a compressed clip (sk_cclip in skinkit_jobs.h): the binding checks
 * the Python objects (each an array of the right type), sk_check_cclip the table itself; the
 * tracks are shared out among the threads (each output value is written by one thread, with the
 * same operations whatever their number). */
#include "binding.h"

#include <string.h>

#define GRAIN_DECODE 8192 /* track samples per thread */
#define GIL_DECODE 2048   /* track samples from which the GIL is released */
#define NOUT 4            /* translations, rotations, scales, morph weights */

typedef struct {
    int dbl;
    sk_cclip_f f;
    sk_cclip_d d;
    const void *times;
    size_t ntimes;
    npy_int64 *cursor;
    const npy_int64 *out_stride;
    void *out[NOUT];
} decode_call_t;

typedef struct {
    const decode_call_t *dc;
    size_t t0, t1;
} decode_part_t;

static void *decode_part(void *arg)
{
    const decode_part_t *p = arg;
    const decode_call_t *dc = p->dc;
    npy_int64 *cursor = dc->cursor ? dc->cursor + p->t0 : NULL;
    if (dc->dbl)
        sk_decode_cclip_d(&dc->d, p->t0, p->t1, 0, dc->ntimes, dc->times, cursor, dc->out_stride,
                          (double *const *)dc->out);
    else
        sk_decode_cclip_f(&dc->f, p->t0, p->t1, 0, dc->ntimes, dc->times, cursor, dc->out_stride,
                          (float *const *)dc->out);
    return NULL;
}

static const char *cclip_problem(int status)
{
    switch (status) {
    case SK_ERR_CLIP_KEYS: return "has no keys, or its keys lie outside key_times";
    case SK_ERR_CLIP_NCOMP: return "has a component count that does not fit its path";
    case SK_ERR_CLIP_INTERP: return "has an unknown interpolation or level";
    case SK_ERR_CLIP_VALUES: return "has its payload or range outside bytes or ranges";
    default: return "writes outside out";
    }
}

/* decode_compressed(tracks, key_times, ranges, bytes, widths, seg_bits, out_stride, times, out,
 * cursor,
 * threads=None): every track of a compressed clip at times into out (four arrays:
 * translations, rotations, scales, weights), see sk_decode_cclip; cursor None, or an int64
 * array of one key interval per track kept between calls (then one thread).  Returns None. */
PyObject *py_decode_compressed(PyObject *self, PyObject *args)
{
    PyObject *tracks, *kt, *ranges, *bytes, *widths, *segs, *stride, *times, *out, *cursor;
    PyObject *threads = Py_None;
    decode_call_t dc;
    int nthreads;
    (void)self;
    memset(&dc, 0, sizeof dc);
    if (!PyArg_UnpackTuple(args, "decode_compressed", 10, 11, &tracks, &kt, &ranges, &bytes,
                           &widths, &segs, &stride, &times, &out, &cursor, &threads) ||
        parse_threads(threads, &nthreads) < 0)
        return NULL;
    int type = PyArray_Check(kt) ? PyArray_TYPE((PyArrayObject *)kt) : NPY_DOUBLE;
    if (type != NPY_FLOAT)
        type = NPY_DOUBLE;
    dc.dbl = type == NPY_DOUBLE;
    if (check_array(tracks, "", "tracks", NPY_INT64, 0) < 0 ||
        check_array(kt, "", "key_times", type, 0) < 0 ||
        check_array(ranges, "", "ranges", NPY_FLOAT, 0) < 0 ||
        check_array(bytes, "", "bytes", NPY_UINT8, 0) < 0 ||
        check_array(widths, "", "widths", NPY_UINT8, 0) < 0 ||
        check_array(segs, "", "seg_bits", NPY_INT64, 0) < 0 ||
        check_array(stride, "", "out_stride", NPY_INT64, 0) < 0 ||
        check_array(times, "", "times", type, 0) < 0 ||
        (cursor != Py_None && check_array(cursor, "", "cursor", NPY_INT64, 1) < 0))
        return NULL;
    npy_intp ntr = PyArray_SIZE((PyArrayObject *)tracks);
    if (ntr % SK_CTRACK_FIELDS || PyArray_SIZE((PyArrayObject *)stride) != NOUT ||
        (cursor != Py_None &&
         PyArray_SIZE((PyArrayObject *)cursor) != ntr / SK_CTRACK_FIELDS)) {
        PyErr_SetString(PyExc_ValueError, "tracks must hold 15 int64 fields a track, out_stride "
                        "4 strides, and cursor one int64 a track");
        return NULL;
    }
    if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != NOUT) {
        PyErr_Format(PyExc_TypeError, "out must be a tuple of 4 arrays, got %R", out);
        return NULL;
    }
    size_t nout[NOUT];
    for (int i = 0; i < NOUT; i++) {
        static const char *const names[NOUT] = {"out[0]", "out[1]", "out[2]", "out[3]"};
        PyObject *o = PyTuple_GET_ITEM(out, i);
        if (check_array(o, "", names[i], type, 1) < 0)
            return NULL;
        dc.out[i] = PyArray_DATA((PyArrayObject *)o);
        nout[i] = (size_t)PyArray_SIZE((PyArrayObject *)o);
    }
    dc.ntimes = (size_t)PyArray_SIZE((PyArrayObject *)times);
    dc.times = PyArray_DATA((PyArrayObject *)times);
    dc.out_stride = PyArray_DATA((PyArrayObject *)stride);
    dc.cursor = cursor == Py_None ? NULL : PyArray_DATA((PyArrayObject *)cursor);
#define FILL(v, R)                                                                        \
    (v.ntracks = (size_t)ntr / SK_CTRACK_FIELDS,                                          \
     v.tracks = (const sk_ctrack *)PyArray_DATA((PyArrayObject *)tracks),                 \
     v.key_times = (const R *)PyArray_DATA((PyArrayObject *)kt),                          \
     v.nkey_times = (size_t)PyArray_SIZE((PyArrayObject *)kt),                            \
     v.ranges = (const float *)PyArray_DATA((PyArrayObject *)ranges),                     \
     v.nranges = (size_t)PyArray_SIZE((PyArrayObject *)ranges),                           \
     v.bytes = (const unsigned char *)PyArray_DATA((PyArrayObject *)bytes),               \
     v.nbytes = (size_t)PyArray_SIZE((PyArrayObject *)bytes),                             \
     v.widths = (const unsigned char *)PyArray_DATA((PyArrayObject *)widths),             \
     v.nwidths = (size_t)PyArray_SIZE((PyArrayObject *)widths),                           \
     v.seg_bits = (const int64_t *)PyArray_DATA((PyArrayObject *)segs),                   \
     v.nseg_bits = (size_t)PyArray_SIZE((PyArrayObject *)segs))
    FILL(dc.f, float), FILL(dc.d, double);
#undef FILL
    size_t bad = 0;
    int st = dc.dbl ? sk_check_cclip_d(&dc.d, dc.out_stride, nout, dc.ntimes, &bad)
                    : sk_check_cclip_f(&dc.f, dc.out_stride, nout, dc.ntimes, &bad);
    if (st != SK_OK) {
        PyErr_Format(PyExc_ValueError, "compressed clip track %zu %s", bad, cclip_problem(st));
        return NULL;
    }
    size_t nt = dc.d.ntracks;
    decode_part_t part[MAX_THREADS];
    int parts = dc.cursor ? 1 : thread_count(nthreads, (npy_intp)(nt * dc.ntimes), GRAIN_DECODE);
    if (parts > (int)nt)
        parts = nt ? (int)nt : 1;
    for (int t = 0; t < parts; t++) {
        decode_part_t p = {&dc, nt * (size_t)t / (size_t)parts, nt * (size_t)(t + 1) / (size_t)parts};
        part[t] = p;
    }
    if (parts == 1 && nt * dc.ntimes < GIL_DECODE) {
        decode_part(part);
    } else {
        Py_BEGIN_ALLOW_THREADS
        parallel(parts, decode_part, (char *)part, sizeof part[0]);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}
