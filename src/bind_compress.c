/* bind_compress.c -- sampling a compressed clip (sk_cclip in skinkit_jobs.h): a CompressedDecoder
 * holds a table checked once (the Python objects each an array of the right type, then
 * sk_check_cclip) with copies of the fields that say where it reads, and checks only the outputs
 * of each call (sk_check_cclip_output); the tracks are shared out among the threads (each output
 * value is written by one thread, with the same operations whatever their number).  A
 * CompressedPlayer decodes a decoder's table one time a call into outputs bound to it once. */
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
    if (dc->dbl)
        sk_decode_cclip_d(&dc->d, p->t0, p->t1, 0, dc->ntimes, dc->times, NULL, dc->out_stride,
                          (double *const *)dc->out);
    else
        sk_decode_cclip_f(&dc->f, p->t0, p->t1, 0, dc->ntimes, dc->times, NULL, dc->out_stride,
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

static int cclip_error(int st, size_t bad)
{
    PyErr_Format(PyExc_ValueError, "compressed clip track %zu %s", bad, cclip_problem(st));
    return -1;
}

/* checks a table (o: tracks, key_times, ranges, bytes, widths, seg_bits) and fills dc's: 0, or
 * -1 with an exception */
static int read_table(PyObject *const *o, decode_call_t *dc)
{
    PyObject *tracks = o[0], *kt = o[1], *ranges = o[2], *bytes = o[3], *widths = o[4];
    PyObject *segs = o[5];
    memset(dc, 0, sizeof *dc);
    int type = PyArray_Check(kt) ? PyArray_TYPE((PyArrayObject *)kt) : NPY_DOUBLE;
    if (type != NPY_FLOAT)
        type = NPY_DOUBLE;
    dc->dbl = type == NPY_DOUBLE;
    if (check_array(tracks, "", "tracks", NPY_INT64, 0) < 0 ||
        check_array(kt, "", "key_times", type, 0) < 0 ||
        check_array(ranges, "", "ranges", NPY_FLOAT, 0) < 0 ||
        check_array(bytes, "", "bytes", NPY_UINT8, 0) < 0 ||
        check_array(widths, "", "widths", NPY_UINT8, 0) < 0 ||
        check_array(segs, "", "seg_bits", NPY_INT64, 0) < 0)
        return -1;
    npy_intp ntr = PyArray_SIZE((PyArrayObject *)tracks);
    if (ntr % SK_CTRACK_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "tracks must hold 15 int64 fields a track");
        return -1;
    }
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
    FILL(dc->f, float), FILL(dc->d, double);
#undef FILL
    size_t bad = 0;
    int st = dc->dbl ? sk_check_cclip_d(&dc->d, NULL, NULL, 0, &bad)
                     : sk_check_cclip_f(&dc->f, NULL, NULL, 0, &bad);
    return st == SK_OK ? 0 : cclip_error(st, bad);
}

/* checks the outputs of a call of dc's checked table (out_stride, times, out: 4 arrays) and
 * fills dc's: 0, or -1 with an exception */
static int read_outputs(PyObject *stride, PyObject *times, PyObject *out, decode_call_t *dc)
{
    int type = dc->dbl ? NPY_DOUBLE : NPY_FLOAT;
    if (check_array(stride, "", "out_stride", NPY_INT64, 0) < 0 ||
        check_array(times, "", "times", type, 0) < 0)
        return -1;
    if (PyArray_SIZE((PyArrayObject *)stride) != NOUT) {
        PyErr_SetString(PyExc_ValueError, "out_stride must hold 4 strides");
        return -1;
    }
    if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != NOUT) {
        PyErr_Format(PyExc_TypeError, "out must be a tuple of 4 arrays, got %R", out);
        return -1;
    }
    size_t nout[NOUT];
    for (int i = 0; i < NOUT; i++) {
        static const char *const names[NOUT] = {"out[0]", "out[1]", "out[2]", "out[3]"};
        PyObject *a = PyTuple_GET_ITEM(out, i);
        if (check_array(a, "", names[i], type, 1) < 0)
            return -1;
        dc->out[i] = PyArray_DATA((PyArrayObject *)a);
        nout[i] = (size_t)PyArray_SIZE((PyArrayObject *)a);
    }
    dc->ntimes = (size_t)PyArray_SIZE((PyArrayObject *)times);
    dc->times = PyArray_DATA((PyArrayObject *)times);
    dc->out_stride = PyArray_DATA((PyArrayObject *)stride);
    size_t bad = 0;
    int st = dc->dbl ? sk_check_cclip_output_d(&dc->d, dc->out_stride, nout, dc->ntimes, &bad)
                     : sk_check_cclip_output_f(&dc->f, dc->out_stride, nout, dc->ntimes, &bad);
    return st == SK_OK ? 0 : cclip_error(st, bad);
}

/* a copy of n bytes of src at *at, which moves past it (8-byte aligned) */
static void *copy_to(const void *src, size_t n, char **at)
{
    void *dst = *at;
    memcpy(dst, src, n);
    *at += (n + 7) / 8 * 8;
    return dst;
}

/* dc's tracks (those of keyed only: the ones above the constant levels), widths and seg_bits
 * copied into one buffer (*own, PyMem_Malloc'd, with extra bytes after them) and dc made to read
 * the copies: 0, or -1 with MemoryError */
static int own_table(decode_call_t *dc, int keyed, size_t extra, void **own, char **end)
{
    size_t nt = dc->d.ntracks, nw = dc->d.nwidths, ns = dc->d.nseg_bits;
    size_t bytes = (nt * sizeof(sk_ctrack) + 7) / 8 * 8 + (nw + 7) / 8 * 8 + 8 * ns + extra;
    char *at = *own = PyMem_Malloc(bytes ? bytes : 1);
    if (!at) {
        PyErr_NoMemory();
        return -1;
    }
    sk_ctrack *tracks = copy_to(dc->d.tracks, nt * sizeof(sk_ctrack), &at);
    size_t n = nt;
    if (keyed) {
        n = 0;
        for (size_t i = 0; i < nt; i++)
            if (tracks[i].level > SK_CLEVEL_CONST24)
                tracks[n++] = tracks[i];
    }
    dc->f.ntracks = dc->d.ntracks = n;
    dc->f.tracks = dc->d.tracks = tracks;
    dc->f.prepared = NULL, dc->d.prepared = NULL;
    dc->f.widths = dc->d.widths = copy_to(dc->d.widths, nw, &at);
    dc->f.seg_bits = dc->d.seg_bits = copy_to(dc->d.seg_bits, 8 * ns, &at);
    *end = at;
    return 0;
}

/* A CompressedDecoder: a compressed clip's table, checked once, the fields that say where it
 * reads (tracks, widths, seg_bits) copied so that nothing done to the arrays afterwards moves
 * an access outside them (key_times, ranges and bytes are read in place, held), its constant
 * tracks' values decoded once (sk_cclip_prepare: each call copies them). */
typedef struct {
    PyObject_HEAD
    decode_call_t dc;       /* the table */
    PyObject *hold;         /* the arguments */
    void *own;              /* the copies */
} cdecoder_t;

static void cdecoder_dealloc(PyObject *obj)
{
    cdecoder_t *p = (cdecoder_t *)obj;
    Py_XDECREF(p->hold);
    PyMem_Free(p->own);
    Py_TYPE(obj)->tp_free(obj);
}

/* CompressedDecoder(tracks, key_times, ranges, bytes, widths, seg_bits) */
static PyObject *cdecoder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *o[6];
    char *end;
    if (kwds && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "CompressedDecoder takes positional arguments only");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "CompressedDecoder", 6, 6, &o[0], &o[1], &o[2], &o[3], &o[4],
                           &o[5]))
        return NULL;
    cdecoder_t *p = (cdecoder_t *)type->tp_alloc(type, 0); /* zeroed */
    if (!p)
        return NULL;
    Py_INCREF(args);
    p->hold = args;
    if (read_table(o, &p->dc) < 0 ||
        own_table(&p->dc, 0, 4 * p->dc.d.ntracks * sizeof(double), &p->own, &end) < 0) {
        Py_DECREF(p);
        return NULL;
    }
    /* the constants' values, decoded once (sk_cclip_prepare), 8-byte aligned after the copies */
    if (p->dc.dbl) {
        sk_cclip_prepare_d(&p->dc.d, (double *)(void *)end);
        p->dc.d.prepared = (const double *)(void *)end;
    } else {
        sk_cclip_prepare_f(&p->dc.f, (float *)(void *)end);
        p->dc.f.prepared = (const float *)(void *)end;
    }
    return (PyObject *)p;
}

/* a decode's fill: nruns runs (path, offset, len) of values rest[path] + offset copied to
 * out[path] + i out_stride[path] + offset at each time i */
typedef struct {
    const npy_int64 *runs;
    size_t nruns;
    const char *rest[3];
} fill_t;

/* reads decode's fill argument (None, or (runs, rest0, rest1, rest2): runs an int64 array of
 * (path, offset, len) triples, rest the clip's float type) into f, each run checked against
 * rest[path] and out: 0, or -1 with an exception */
static int read_fill(PyObject *fill, PyObject *out, const decode_call_t *dc, fill_t *f)
{
    memset(f, 0, sizeof *f);
    if (fill == Py_None)
        return 0;
    int type = dc->dbl ? NPY_DOUBLE : NPY_FLOAT;
    if (!PyTuple_Check(fill) || PyTuple_GET_SIZE(fill) != 4) {
        PyErr_Format(PyExc_TypeError, "fill must be None or (runs, rest0, rest1, rest2), got %R",
                     fill);
        return -1;
    }
    static const char *const names[3] = {"fill[1]", "fill[2]", "fill[3]"};
    PyObject *runs = PyTuple_GET_ITEM(fill, 0);
    if (check_array(runs, "", "fill[0]", NPY_INT64, 0) < 0)
        return -1;
    npy_intp rest_n[3];
    for (int i = 0; i < 3; i++) {
        PyObject *r = PyTuple_GET_ITEM(fill, i + 1);
        if (check_array(r, "", names[i], type, 0) < 0)
            return -1;
        f->rest[i] = PyArray_DATA((PyArrayObject *)r);
        rest_n[i] = PyArray_SIZE((PyArrayObject *)r);
    }
    npy_intp n = PyArray_SIZE((PyArrayObject *)runs);
    if (n % 3) {
        PyErr_SetString(PyExc_ValueError, "fill's runs must hold (path, offset, len) triples");
        return -1;
    }
    f->runs = PyArray_DATA((PyArrayObject *)runs);
    f->nruns = (size_t)n / 3;
    for (size_t k = 0; k < f->nruns; k++) {
        npy_int64 path = f->runs[3 * k], off = f->runs[3 * k + 1], len = f->runs[3 * k + 2];
        int ok = path >= 0 && path < 3 && off >= 0 && len >= 0 && len <= rest_n[path] &&
                 off <= rest_n[path] - len;
        if (ok && dc->ntimes) {
            npy_int64 os = dc->out_stride[path];
            npy_int64 end = (npy_int64)PyArray_SIZE((PyArrayObject *)PyTuple_GET_ITEM(out, path));
            ok = os >= 0 && len <= end && off <= end - len &&
                 !(os > 0 && (npy_int64)dc->ntimes - 1 > (end - len - off) / os);
        }
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "fill's run %zu (path %lld, offset %lld, length %lld) "
                         "lies outside its rest array or out", k, (long long)path,
                         (long long)off, (long long)len);
            return -1;
        }
    }
    return 0;
}

/* the fill f's runs at every time of dc */
static void fill_runs(const decode_call_t *dc, const fill_t *f)
{
    size_t item = dc->dbl ? sizeof(double) : sizeof(float);
    for (size_t i = 0; i < dc->ntimes; i++)
        for (size_t k = 0; k < f->nruns; k++) {
            npy_int64 path = f->runs[3 * k], off = f->runs[3 * k + 1], len = f->runs[3 * k + 2];
            size_t at = (size_t)(off + (npy_int64)i * dc->out_stride[path]);
            memmove((char *)dc->out[path] + item * at, f->rest[path] + item * (size_t)off,
                    item * (size_t)len);
        }
}

/* CompressedDecoder.decode(out_stride, times, out, threads=None, fill=None) */
static PyObject *cdecoder_decode(PyObject *obj, PyObject *args)
{
    cdecoder_t *p = (cdecoder_t *)obj;
    PyObject *stride, *times, *out, *threads = Py_None, *fill = Py_None;
    int nthreads;
    fill_t f;
    if (!p->hold) {
        PyErr_SetString(PyExc_RuntimeError, "CompressedDecoder.decode: the decoder is not made");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "decode", 3, 5, &stride, &times, &out, &threads, &fill) ||
        parse_threads(threads, &nthreads) < 0)
        return NULL;
    decode_call_t dc = p->dc;
    if (read_outputs(stride, times, out, &dc) < 0 || read_fill(fill, out, &dc, &f) < 0)
        return NULL;
    size_t nt = dc.d.ntracks;
    decode_part_t part[MAX_THREADS];
    int parts = thread_count(nthreads, (npy_intp)(nt * dc.ntimes), GRAIN_DECODE);
    if (parts > (int)nt)
        parts = nt ? (int)nt : 1;
    for (int t = 0; t < parts; t++) {
        decode_part_t q = {&dc, nt * (size_t)t / (size_t)parts, nt * (size_t)(t + 1) / (size_t)parts};
        part[t] = q;
    }
    if (parts == 1 && nt * dc.ntimes < GIL_DECODE) {
        fill_runs(&dc, &f);
        decode_part(part);
    } else {
        Py_BEGIN_ALLOW_THREADS
        fill_runs(&dc, &f);
        parallel(parts, decode_part, (char *)part, sizeof part[0]);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

static PyMethodDef cdecoder_methods[] = {
    {"decode", cdecoder_decode, METH_VARARGS,
     "decode($self, out_stride, times, out, threads=None, fill=None, /)\n--\n\n"
     "Every track at times into out (translations, rotations, scales, weights: 4 arrays of\n"
     "the table's float type; time i of a track at out[path] + i * out_stride[path] + its\n"
     "offset), straight from the codes (sk_decode_cclip); fill (runs, rest0, rest1, rest2):\n"
     "before them, for each (path, offset, len) triple of the int64 array runs, rest[path]'s\n"
     "len values from offset (arrays of the table's float type) copied at each time to\n"
     "out[path] + i * out_stride[path] + offset.  Only the outputs are checked: ValueError if\n"
     "a track's results or a run do not fit.  Returns None."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject cdecoder_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skinkit._core.CompressedDecoder",
    .tp_basicsize = sizeof(cdecoder_t),
    .tp_dealloc = cdecoder_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CompressedDecoder(tracks, key_times, ranges, bytes, widths, seg_bits)\n\n"
              "A compressed clip's table (skinkit.model.compressed_clip), checked once "
              "(ValueError naming the first bad track, TypeError for an array of the wrong "
              "type), for decode calls that check only their outputs.",
    .tp_methods = cdecoder_methods,
    .tp_new = cdecoder_new,
};

/* A CompressedPlayer samples a decoder's table at one time a call into outputs bound to it
 * once, on one thread, with a playback state (sk_play_cclip: each track keeps its key
 * interval, each lane group its decoded keys and segments, between calls).  The outputs are
 * checked when it is made, and the decoder's copies are copied again with out_stride, so that
 * nothing done to the arrays afterwards moves an access outside them.  Only the keyed tracks are
 * copied: a constant track's values, which the caller's outputs hold already
 * (CompressedPlayback samples them once), do not change.  A batch player decodes batch times a
 * call (sk_decode_cclip, without a playback state: its times need not follow each other). */
typedef struct {
    PyObject_HEAD
    decode_call_t dc;       /* checked for one time, or for batch times */
    PyObject *hold;         /* the arguments, whose arrays are read in place */
    PyObject *pose;         /* what sample returns */
    void *own;              /* the copies */
    void *wrapped;          /* a batch player's times wrapped into [0, duration) */
    void *state;            /* one time a call: the playback state (sk_cclip_state_init) */
    double duration;        /* > 0: times wrapped into [0, duration) */
    Py_ssize_t batch;       /* 0: one time a call; else the times of each call */
} cplayer_t;

static void cplayer_dealloc(PyObject *obj)
{
    cplayer_t *p = (cplayer_t *)obj;
    Py_XDECREF(p->hold);
    Py_XDECREF(p->pose);
    PyMem_Free(p->own);
    PyMem_Free(p->state);
    Py_TYPE(obj)->tp_free(obj);
}

/* a batch player's call: times (batch of them, the clip's type, or what NumPy converts to it)
 * wrapped when the player loops, into the outputs */
static PyObject *cplayer_sample_batch(cplayer_t *p, PyObject *times)
{
    const decode_call_t *dc = &p->dc;
    int type = dc->dbl ? NPY_DOUBLE : NPY_FLOAT;
    PyArrayObject *a = (PyArrayObject *)times;
    int exact = PyArray_CheckExact(times) && PyArray_TYPE(a) == type && PyArray_NDIM(a) == 1 &&
                PyArray_ISCARRAY_RO(a) && PyArray_ISNOTSWAPPED(a);
    if (exact)
        Py_INCREF(times);
    else if (!(a = (PyArrayObject *)PyArray_FROMANY(times, type, 0, 0,
                                                     NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST)))
        return NULL;
    if (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != p->batch) {
        PyErr_Format(PyExc_ValueError, "times must be an array of shape (%zd,) (the player's "
                     "batch), got %d dimensions of %zd times", p->batch, PyArray_NDIM(a),
                     (Py_ssize_t)PyArray_SIZE(a));
        Py_DECREF(a);
        return NULL;
    }
    size_t n = (size_t)p->batch, nt = dc->d.ntracks;
    const void *t = PyArray_DATA(a);
    size_t bad = n;
    if (dc->dbl) {
        const double *x = t;
        double *w = p->wrapped;
        for (size_t i = 0; i < n && bad == n; i++)
            if (!isfinite(x[i]))
                bad = i;
            else if (p->duration > 0)
                w[i] = wrap_d(x[i], p->duration);
        if (p->duration > 0)
            t = w;
    } else {
        const float *x = t;
        float *w = p->wrapped, d = (float)p->duration;
        for (size_t i = 0; i < n && bad == n; i++)
            if (!isfinite(x[i]))
                bad = i;
            else if (p->duration > 0)
                w[i] = wrap_f(x[i], d);
        if (p->duration > 0)
            t = w;
    }
    if (bad < n) {
        PyErr_Format(PyExc_ValueError, "times must be finite, got a time at index %zu that "
                     "is not", bad);
        Py_DECREF(a);
        return NULL;
    }
    decode_call_t call = *dc;
    call.times = t;
    call.ntimes = n;
    decode_part_t part = {&call, 0, nt};
    if (nt * n < GIL_DECODE) {
        decode_part(&part);
    } else {
        Py_BEGIN_ALLOW_THREADS
        decode_part(&part);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(a);
    Py_INCREF(p->pose);
    return p->pose;
}

/* CompressedPlayer.sample(time or times): the pose at time (seconds), or at batch times */
static PyObject *cplayer_sample(PyObject *obj, PyObject *time)
{
    cplayer_t *p = (cplayer_t *)obj;
    if (!p->pose) {
        PyErr_SetString(PyExc_RuntimeError, "CompressedPlayer.sample: the player is not made");
        return NULL;
    }
    if (p->batch)
        return cplayer_sample_batch(p, time);
    double x = PyFloat_CheckExact(time) ? PyFloat_AS_DOUBLE(time) : PyFloat_AsDouble(time);
    if (x == -1.0 && PyErr_Occurred())
        return NULL;
    const decode_call_t *dc = &p->dc;
    /* wrapped in the clip's type as sample's np.mod does */
    if (dc->dbl) {
        if (p->duration > 0)
            x = wrap_d(x, p->duration);
        if (!isfinite(x))
            goto nonfinite;
        sk_play_cclip_d(&dc->d, p->state, x, dc->out_stride, (double *const *)dc->out);
    } else {
        float xf = (float)x;
        if (p->duration > 0)
            xf = wrap_f(xf, (float)p->duration);
        if (!isfinite(xf))
            goto nonfinite;
        sk_play_cclip_f(&dc->f, p->state, xf, dc->out_stride, (float *const *)dc->out);
    }
    Py_INCREF(p->pose);
    return p->pose;
nonfinite:
    PyErr_Format(PyExc_ValueError, "time must be finite, got %R", time);
    return NULL;
}

/* CompressedPlayer(decoder, out_stride, out, duration, pose, batch): then sample(time) decodes
 * the decoder's keyed tracks at time into out (as decoder.decode(out_stride, [time], out)) and
 * returns pose; with batch > 0, sample(times) at batch times */
static PyObject *cplayer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *decoder, *stride, *out, *pose;
    double duration;
    Py_ssize_t batch;
    char *at;
    if (kwds && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "CompressedPlayer takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!OOdOn:CompressedPlayer", &cdecoder_type, &decoder, &stride,
                          &out, &duration, &pose, &batch))
        return NULL;
    if (batch < 0) {
        PyErr_Format(PyExc_ValueError, "batch must be >= 0, got %zd", batch);
        return NULL;
    }
    const cdecoder_t *dec = (const cdecoder_t *)decoder;
    if (!dec->hold) {
        PyErr_SetString(PyExc_RuntimeError, "CompressedPlayer: the decoder is not made");
        return NULL;
    }
    cplayer_t *p = (cplayer_t *)type->tp_alloc(type, 0); /* zeroed */
    if (!p)
        return NULL;
    Py_INCREF(args);
    p->hold = args;
    Py_INCREF(pose);
    p->pose = pose;
    p->duration = duration;
    p->batch = batch;
    p->dc = dec->dc;
    npy_intp n = batch ? batch : 1;
    PyObject *time = PyArray_ZEROS(1, &n, p->dc.dbl ? NPY_DOUBLE : NPY_FLOAT, 0);
    int bad = !time || read_outputs(stride, time, out, &p->dc) < 0;  /* checked at n times */
    Py_XDECREF(time);
    if (bad || own_table(&p->dc, 1, 8 * NOUT + 8 * (size_t)batch, &p->own, &at) < 0) {
        Py_DECREF(p);
        return NULL;
    }
    decode_call_t *dc = &p->dc;
    dc->out_stride = copy_to(dc->out_stride, 8 * NOUT, &at);
    dc->times = NULL;
    p->wrapped = at;
    if (batch)
        return (PyObject *)p;
    size_t state = dc->dbl ? sk_cclip_state_size_d(&dc->d) : sk_cclip_state_size_f(&dc->f);
    if (!(p->state = PyMem_Malloc(state))) {
        Py_DECREF(p);
        return PyErr_NoMemory();
    }
    if (dc->dbl)
        sk_cclip_state_init_d(&dc->d, p->state);
    else
        sk_cclip_state_init_f(&dc->f, p->state);
    return (PyObject *)p;
}

static PyMethodDef cplayer_methods[] = {
    {"sample", cplayer_sample, METH_O,
     "sample($self, time, /)\n--\n\n"
     "The compressed clip at ``time`` (seconds; wrapped into [0, duration) when duration > 0)\n"
     "decoded into the bound outputs: the bits of decode at that time; a batch player takes\n"
     "batch times (a 1-D array of the clip's float type, or what NumPy converts to one).\n"
     "Returns pose.  ValueError if a time is not finite or the times not batch of them."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject cplayer_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skinkit._core.CompressedPlayer",
    .tp_basicsize = sizeof(cplayer_t),
    .tp_dealloc = cplayer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, /* CompressedPlayback's base */
    .tp_doc = "CompressedPlayer(decoder, out_stride, out, duration, pose, batch)\n\n"
              "A CompressedDecoder's table bound to outputs for one time a call (batch 0) "
              "or batch times a call: sample(time) decodes at time (the keyed tracks: the "
              "constants out holds already stay), one time a call with each track keeping "
              "its key interval and decoded keys between calls, and returns pose "
              "(skinkit.model.compressed_clip.CompressedPlayback).",
    .tp_methods = cplayer_methods,
    .tp_new = cplayer_new,
};

/* adds the types CompressedDecoder and CompressedPlayer to the module: 0, or -1 with an
 * exception */
int add_compressed_types(PyObject *m)
{
    if (PyType_Ready(&cdecoder_type) < 0 || PyType_Ready(&cplayer_type) < 0 ||
        PyModule_AddObjectRef(m, "CompressedDecoder", (PyObject *)&cdecoder_type) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "CompressedPlayer", (PyObject *)&cplayer_type);
}
