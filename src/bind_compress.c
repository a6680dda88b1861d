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

/* checks the objects of a decode_compressed call (o: tracks, key_times, ranges, bytes, widths,
 * seg_bits, out_stride, times, out) and fills dc: 0, or -1 with an exception */
static int read_decode(PyObject *const *o, decode_call_t *dc)
{
    PyObject *tracks = o[0], *kt = o[1], *ranges = o[2], *bytes = o[3], *widths = o[4];
    PyObject *segs = o[5], *stride = o[6], *times = o[7], *out = o[8];
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
        check_array(segs, "", "seg_bits", NPY_INT64, 0) < 0 ||
        check_array(stride, "", "out_stride", NPY_INT64, 0) < 0 ||
        check_array(times, "", "times", type, 0) < 0)
        return -1;
    npy_intp ntr = PyArray_SIZE((PyArrayObject *)tracks);
    if (ntr % SK_CTRACK_FIELDS || PyArray_SIZE((PyArrayObject *)stride) != NOUT) {
        PyErr_SetString(PyExc_ValueError, "tracks must hold 15 int64 fields a track and "
                        "out_stride 4 strides");
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
    int st = dc->dbl ? sk_check_cclip_d(&dc->d, dc->out_stride, nout, dc->ntimes, &bad)
                     : sk_check_cclip_f(&dc->f, dc->out_stride, nout, dc->ntimes, &bad);
    if (st != SK_OK) {
        PyErr_Format(PyExc_ValueError, "compressed clip track %zu %s", bad, cclip_problem(st));
        return -1;
    }
    return 0;
}

/* decode_compressed(tracks, key_times, ranges, bytes, widths, seg_bits, out_stride, times, out,
 * threads=None): every track of a compressed clip at times into out (four arrays:
 * translations, rotations, scales, weights), see sk_decode_cclip.  Returns None. */
PyObject *py_decode_compressed(PyObject *self, PyObject *args)
{
    PyObject *o[10] = {NULL};
    decode_call_t dc;
    int nthreads;
    (void)self;
    o[9] = Py_None;
    if (!PyArg_UnpackTuple(args, "decode_compressed", 9, 10, &o[0], &o[1], &o[2], &o[3],
                           &o[4], &o[5], &o[6], &o[7], &o[8], &o[9]) ||
        parse_threads(o[9], &nthreads) < 0 || read_decode(o, &dc) < 0)
        return NULL;
    size_t nt = dc.d.ntracks;
    decode_part_t part[MAX_THREADS];
    int parts = thread_count(nthreads, (npy_intp)(nt * dc.ntimes), GRAIN_DECODE);
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

/* A CompressedPlayer samples a compressed clip at one time a call into outputs bound to it
 * once, on one thread, with a playback state (sk_play_cclip: each track keeps its key
 * interval, each lane group its decoded keys and segments, between calls).  The call is
 * checked when it is made and the fields that say where it reads and writes (tracks, widths,
 * seg_bits, out_stride) are copied, so that nothing done to the arrays afterwards moves an
 * access outside them.  Only the keyed tracks are copied: a constant track's values, which the
 * caller's outputs hold already (CompressedPlayback samples them once), do not change. */
typedef struct {
    PyObject_HEAD
    decode_call_t dc;       /* checked for one time */
    PyObject *hold;         /* the arguments, whose arrays are read in place */
    PyObject *pose;         /* what sample returns */
    void *own;              /* the copies */
    void *state;            /* the playback state (sk_cclip_state_init) */
    double duration;        /* > 0: times wrapped into [0, duration) */
    double t;
    float tf;
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

/* CompressedPlayer.sample(time): the pose at time (seconds) */
static PyObject *cplayer_sample(PyObject *obj, PyObject *time)
{
    cplayer_t *p = (cplayer_t *)obj;
    double x = PyFloat_CheckExact(time) ? PyFloat_AS_DOUBLE(time) : PyFloat_AsDouble(time);
    if (x == -1.0 && PyErr_Occurred())
        return NULL;
    if (!p->pose) {
        PyErr_SetString(PyExc_RuntimeError, "CompressedPlayer.sample: the player is not made");
        return NULL;
    }
    /* wrapped in the clip's type as sample's np.mod does (the result takes the sign of d) */
    if (p->dc.dbl && p->duration > 0) {
        double m = fmod(x, p->duration);
        x = m ? (m < 0 ? m + p->duration : m) : 0.0;
    } else if (p->duration > 0) {
        float d = (float)p->duration, m = fmodf((float)x, d);
        x = m ? (m < 0 ? m + d : m) : 0.0f;
    }
    p->t = x;
    p->tf = (float)x;
    if (!(p->dc.dbl ? isfinite(p->t) : isfinite(p->tf))) {
        PyErr_Format(PyExc_ValueError, "time must be finite, got %R", time);
        return NULL;
    }
    const decode_call_t *dc = &p->dc;
    if (dc->dbl)
        sk_play_cclip_d(&dc->d, p->state, p->t, dc->out_stride, (double *const *)dc->out);
    else
        sk_play_cclip_f(&dc->f, p->state, p->tf, dc->out_stride, (float *const *)dc->out);
    Py_INCREF(p->pose);
    return p->pose;
}

/* a copy of n bytes of src at *at, which moves past it (8-byte aligned) */
static void *copy_to(const void *src, size_t n, char **at)
{
    void *dst = *at;
    memcpy(dst, src, n);
    *at += (n + 7) / 8 * 8;
    return dst;
}

/* CompressedPlayer(call, duration, pose): call the arguments of decode_compressed from tracks
 * to out (9: times left out), then sample(time) decodes at time into out and returns pose */
static PyObject *cplayer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *call, *pose, *o[9];
    double duration;
    if (kwds && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "CompressedPlayer takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!dO:CompressedPlayer", &PyTuple_Type, &call, &duration, &pose))
        return NULL;
    if (PyTuple_GET_SIZE(call) != 8) {
        PyErr_SetString(PyExc_TypeError, "CompressedPlayer: call must hold the 8 arguments of "
                        "decode_compressed from tracks to out, times left out");
        return NULL;
    }
    cplayer_t *p = (cplayer_t *)type->tp_alloc(type, 0); /* zeroed */
    if (!p)
        return NULL;
    Py_INCREF(call);
    p->hold = call;
    Py_INCREF(pose);
    p->pose = pose;
    p->duration = duration;
    for (int i = 0; i < 7; i++)
        o[i] = PyTuple_GET_ITEM(call, i);
    o[8] = PyTuple_GET_ITEM(call, 7);
    int type_num = PyArray_Check(o[1]) && PyArray_TYPE((PyArrayObject *)o[1]) == NPY_FLOAT
                       ? NPY_FLOAT : NPY_DOUBLE;
    o[7] = PyArray_ZEROS(1, (npy_intp[]){1}, type_num, 0);  /* checked at time 0 */
    if (!o[7] || read_decode(o, &p->dc) < 0) {
        Py_XDECREF(o[7]);
        Py_DECREF(p);
        return NULL;
    }
    Py_DECREF(o[7]);
    decode_call_t *dc = &p->dc;
    size_t nt = dc->d.ntracks, nw = dc->d.nwidths, ns = dc->d.nseg_bits;
    size_t bytes = (nt * sizeof(sk_ctrack) + 7) / 8 * 8 + (nw + 7) / 8 * 8 + 8 * ns + 8 * NOUT;
    char *at = p->own = PyMem_Malloc(bytes);
    if (!at) {
        Py_DECREF(p);
        return PyErr_NoMemory();
    }
    sk_ctrack *tracks = copy_to(dc->d.tracks, nt * sizeof(sk_ctrack), &at);
    size_t keyed = 0;  /* the constants stay as the construction's sample wrote them */
    for (size_t i = 0; i < nt; i++)
        if (tracks[i].level > SK_CLEVEL_CONST24)
            tracks[keyed++] = tracks[i];
    dc->f.ntracks = dc->d.ntracks = keyed;
    const unsigned char *widths = copy_to(dc->d.widths, nw, &at);
    const int64_t *segs = copy_to(dc->d.seg_bits, 8 * ns, &at);
    dc->out_stride = copy_to(dc->out_stride, 8 * NOUT, &at);
    dc->f.tracks = dc->d.tracks = tracks;
    dc->f.widths = dc->d.widths = widths;
    dc->f.seg_bits = dc->d.seg_bits = segs;
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
     "decoded into the bound outputs: the bits of decode_compressed at that time.  Returns\n"
     "pose.  ValueError if time is not finite."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject cplayer_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skinkit._core.CompressedPlayer",
    .tp_basicsize = sizeof(cplayer_t),
    .tp_dealloc = cplayer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, /* CompressedPlayback's base */
    .tp_doc = "CompressedPlayer(call, duration, pose)\n\n"
              "A compressed clip bound to its outputs for one time a call: call holds the "
              "arguments of decode_compressed from tracks to out, times left out; its "
              "sample(time) decodes at time (the keyed tracks: the constants out holds "
              "already stay), each track keeping its key interval and decoded keys between "
              "calls, and returns pose (skinkit.model.compressed_clip.CompressedPlayback).",
    .tp_methods = cplayer_methods,
    .tp_new = cplayer_new,
};

/* adds the type CompressedPlayer to the module: 0, or -1 with an exception */
int add_compressed_player(PyObject *m)
{
    if (PyType_Ready(&cplayer_type) < 0)
        return -1;
    return PyModule_AddObjectRef(m, "CompressedPlayer", (PyObject *)&cplayer_type);
}
