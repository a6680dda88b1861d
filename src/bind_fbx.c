/* bind_fbx.c -- skinkit._core.fbx_read: an FBX scene (src/fbx_read.c) as NumPy arrays.
 *
 * Counts first: the bytes of every array the scene asks for are summed and checked against
 * max_bytes before any array is allocated; ufbx's own allocations (loading, baking) are capped
 * by max_memory.  Errors are ValueErrors; skinkit.io.fbx names the file. */
#include "binding.h"
#include "fbx_read.h"

#define ERRLEN 512

typedef struct reader {
    sk_fbx *fbx;
    char err[ERRLEN];
} reader;

static PyObject *fail(const char *what, const char *err)
{
    PyErr_Format(PyExc_ValueError, "%s: %s", what, err);
    return NULL;
}

static PyObject *new_array(int nd, npy_intp d0, npy_intp d1, npy_intp d2, int type)
{
    npy_intp dims[3] = {d0, d1, d2};
    return PyArray_ZEROS(nd, dims, type, 0);
}

#define DATA(a, T) ((T *)PyArray_DATA((PyArrayObject *)(a)))

static PyObject *text(const char *s, size_t len)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
}

/* a dict from alternating "key", PyObject* pairs (stolen references; NULL fails it) */
static PyObject *make_dict(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    PyObject *d = PyDict_New();
    for (int i = 0; i < n; i++) {
        const char *key = va_arg(ap, const char *);
        PyObject *v = va_arg(ap, PyObject *);
        if (d && (!v || PyDict_SetItemString(d, key, v) < 0))
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    va_end(ap);
    return d;
}

/* bytes of the arrays the scene's model needs (a double: no overflow); -1 with a ValueError
 * set for a primitive that cannot be read or has more than max_targets blend shapes */
static double scene_bytes(const reader *r, const sk_fbx_info *info, size_t max_targets)
{
    double total = (double)info->nodes * (4 + 80 + 64);
    for (size_t s = 0; s < info->skins; s++)
        total += (double)sk_fbx_skin_joints(r->fbx, s) * (4 + 128);
    for (size_t p = 0; p < info->primitives; p++) {
        sk_fbx_prim_info pi;
        char err[ERRLEN];
        if (sk_fbx_prim_info_get(r->fbx, p, &pi, err, sizeof err) < 0) {
            PyErr_Format(PyExc_ValueError, "primitive %zu: %s", p, err);
            return -1.0;
        }
        if (pi.targets > max_targets) {
            size_t len;
            const char *node = pi.node >= 0 ? sk_fbx_node_name(r->fbx, (size_t)pi.node, &len)
                                            : "";
            PyErr_Format(PyExc_ValueError, "mesh node '%.200s': %zu blend shapes (in-between "
                         "shapes included), more than the limit of %zu (skinkit.limits."
                         "MAX_MORPH_TARGETS)", node, pi.targets, max_targets);
            return -1.0;
        }
        double v = (double)pi.vertices;
        total += v * (24 + 24 * pi.normals + 16 * pi.uvs + 12.0 * pi.influences) +
                 12.0 * pi.triangles + 24.0 * v * pi.targets + 4.0 * pi.scratch +
                 64.0 * (pi.targets + pi.channels);
    }
    return total;
}

static PyObject *read_nodes(reader *r, size_t n)
{
    PyObject *names = PyList_New((Py_ssize_t)n);
    PyObject *parents = new_array(1, (npy_intp)n, 0, 0, NPY_INT32);
    PyObject *trs = new_array(2, (npy_intp)n, 10, 0, NPY_FLOAT64);
    if (names && parents && trs) {
        sk_fbx_nodes(r->fbx, DATA(parents, int32_t), DATA(trs, double));
        for (size_t i = 0; i < n; i++) {
            size_t len;
            const char *s = sk_fbx_node_name(r->fbx, i, &len);
            PyObject *name = text(s, len);
            if (!name) {
                Py_CLEAR(names);
                break;
            }
            PyList_SET_ITEM(names, (Py_ssize_t)i, name);
        }
    }
    return make_dict(3, "names", names, "parents", parents, "trs", trs);
}

static PyObject *read_skin(reader *r, size_t s)
{
    size_t j = sk_fbx_skin_joints(r->fbx, s), len;
    const char *name = sk_fbx_skin_name(r->fbx, s, &len);
    PyObject *joints = new_array(1, (npy_intp)j, 0, 0, NPY_INT32);
    PyObject *ibm = new_array(3, (npy_intp)j, 4, 4, NPY_FLOAT64);
    if (joints && ibm)
        sk_fbx_skin(r->fbx, s, DATA(joints, int32_t), DATA(ibm, double));
    return make_dict(3, "name", text(name, len), "joints", joints, "ibm", ibm);
}

static PyObject *read_prim(reader *r, size_t p)
{
    sk_fbx_prim_info pi;
    if (sk_fbx_prim_info_get(r->fbx, p, &pi, r->err, ERRLEN) < 0)
        return fail("primitive", r->err);
    npy_intp v = (npy_intp)pi.vertices, k = (npy_intp)pi.influences;
    npy_intp m = (npy_intp)pi.targets, c = (npy_intp)pi.channels;
    PyObject *pos = new_array(2, v, 3, 0, NPY_FLOAT64);
    PyObject *nrm = pi.normals ? new_array(2, v, 3, 0, NPY_FLOAT64) : Py_NewRef(Py_None);
    PyObject *uvs = pi.uvs ? new_array(2, v, 2, 0, NPY_FLOAT64) : Py_NewRef(Py_None);
    PyObject *faces = new_array(2, (npy_intp)pi.triangles, 3, 0, NPY_INT32);
    PyObject *joints = k ? new_array(2, v, k, 0, NPY_INT32) : Py_NewRef(Py_None);
    PyObject *weights = k ? new_array(2, v, k, 0, NPY_FLOAT64) : Py_NewRef(Py_None);
    PyObject *morph = new_array(3, m, v, 3, NPY_FLOAT64);
    PyObject *tch = new_array(1, m, 0, 0, NPY_INT32);
    PyObject *tw = new_array(1, m, 0, 0, NPY_FLOAT64);
    PyObject *cid = new_array(1, c, 0, 0, NPY_INT32);
    PyObject *cw = new_array(1, c, 0, 0, NPY_FLOAT64);
    PyObject *scratch = new_array(1, (npy_intp)pi.scratch, 0, 0, NPY_UINT32);
    PyObject *names = PyList_New(m);
    int ok = pos && nrm && uvs && faces && joints && weights && morph && tch && tw && cid &&
             cw && scratch && names;
#define OPT(a, T) ((a) == Py_None ? NULL : DATA(a, T))
    if (ok && sk_fbx_prim_fill(r->fbx, p, DATA(pos, double), OPT(nrm, double), OPT(uvs, double),
                               DATA(faces, int32_t), OPT(joints, int32_t),
                               OPT(weights, double), DATA(morph, double), DATA(tch, int32_t),
                               DATA(tw, double), DATA(cid, int32_t), DATA(cw, double),
                               DATA(scratch, uint32_t), r->err, ERRLEN) < 0) {
        PyErr_Format(PyExc_ValueError, "primitive: %s", r->err);
        ok = 0;
    }
#undef OPT
    Py_XDECREF(scratch);
    for (npy_intp i = 0; ok && i < m; i++) {
        size_t len;
        const char *s = sk_fbx_target_name(r->fbx, p, (size_t)i, &len);
        PyObject *name = text(s, len);
        ok = name != NULL;
        if (ok)
            PyList_SET_ITEM(names, i, name);
    }
    if (!ok)
        Py_CLEAR(names);
    return make_dict(18, "node", PyLong_FromLong(pi.node), "mesh", PyLong_FromLong(pi.mesh),
                     "skin", PyLong_FromLong(pi.skin), "positions", pos, "normals", nrm,
                     "uvs", uvs, "faces", faces, "joints", joints, "weights", weights,
                     "morph_positions", morph, "target_channel", tch, "target_weight", tw,
                     "channel_id", cid, "channel_weight", cw, "target_names", names,
                     "influences", PyLong_FromSize_t(pi.influences),
                     "renormalized", PyLong_FromSize_t(pi.renormalized),
                     "dropped", PyLong_FromSize_t(pi.dropped));
}

/* one animation stack: its name and its tracks (target, kind, times (K,), values (K, C)) */
static PyObject *read_clip(reader *r, size_t stack, size_t max_memory, double max_bytes)
{
    sk_fbx_anim *anim = NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = sk_fbx_bake(r->fbx, stack, max_memory, &anim, r->err, ERRLEN);
    Py_END_ALLOW_THREADS
    if (status < 0)
        return fail("animation stack", r->err);
    size_t n = sk_fbx_anim_tracks(anim);
    double bytes = 0;
    for (size_t i = 0; i < n; i++) {
        sk_fbx_track t;
        sk_fbx_anim_track(r->fbx, anim, i, &t);
        bytes += (double)t.keys * 40 + 64;
    }
    PyObject *tracks = NULL;
    if (bytes > max_bytes)
        PyErr_Format(PyExc_ValueError, "animation stack %zu: its baked keys need %.0f bytes, "
                     "more than the limit of %.0f", stack, bytes, max_bytes);
    else
        tracks = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; tracks && i < n; i++) {
        sk_fbx_track t;
        sk_fbx_anim_track(r->fbx, anim, i, &t);
        npy_intp width = t.kind == 1 ? 4 : t.kind == 3 ? 1 : 3;
        PyObject *times = new_array(1, (npy_intp)t.keys, 0, 0, NPY_FLOAT64);
        PyObject *values = new_array(2, (npy_intp)t.keys, width, 0, NPY_FLOAT64);
        if (times && values)
            sk_fbx_anim_fill(anim, i, DATA(times, double), DATA(values, double));
        PyObject *item = times && values
            ? Py_BuildValue("(iiOO)", (int)t.target, t.kind, times, values) : NULL;
        Py_XDECREF(times);
        Py_XDECREF(values);
        if (!item)
            Py_CLEAR(tracks);
        else
            PyList_SET_ITEM(tracks, (Py_ssize_t)i, item);
    }
    sk_fbx_anim_free(anim);
    size_t len;
    const char *name = sk_fbx_stack_name(r->fbx, stack, &len);
    return make_dict(2, "name", text(name, len), "tracks", tracks);
}

static PyObject *list_of(reader *r, size_t n, PyObject *(*item)(reader *, size_t))
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *x = item(r, i);
        if (!x)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
    return list;
}

static PyObject *read_scene(reader *r, size_t max_memory, double max_bytes, size_t max_targets)
{
    sk_fbx_info info;
    sk_fbx_get_info(r->fbx, &info);
    double bytes = scene_bytes(r, &info, max_targets);
    if (bytes < 0)
        return NULL;
    if (bytes > max_bytes) {
        PyErr_Format(PyExc_ValueError, "the scene's arrays need %.0f bytes, more than the "
                     "limit of %.0f", bytes, max_bytes);
        return NULL;
    }
    PyObject *clips = PyList_New((Py_ssize_t)info.stacks);
    for (size_t s = 0; clips && s < info.stacks; s++) {
        PyObject *c = read_clip(r, s, max_memory, max_bytes);
        if (!c)
            Py_CLEAR(clips);
        else
            PyList_SET_ITEM(clips, (Py_ssize_t)s, c);
    }
    size_t len;
    const char *creator = sk_fbx_creator(r->fbx, &len);
    return make_dict(10, "nodes", read_nodes(r, info.nodes),
                     "skins", list_of(r, info.skins, read_skin),
                     "primitives", list_of(r, info.primitives, read_prim), "clips", clips,
                     "fps", PyFloat_FromDouble(info.fps),
                     "unit_meters", PyFloat_FromDouble(info.unit_meters),
                     "version", PyLong_FromUnsignedLong(info.version),
                     "ascii", PyBool_FromLong(info.ascii), "creator", text(creator, len),
                     "ufbx", ufbx_version(NULL, NULL));
}

PyObject *ufbx_version(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    uint32_t v = sk_fbx_ufbx_version();
    return PyUnicode_FromFormat("%u.%u.%u", v / 1000000u % 1000u, v / 1000u % 1000u,
                                v % 1000u);
}

PyObject *py_fbx_read(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path;
    int file_axes;
    Py_ssize_t max_memory, max_targets;
    double max_bytes;
    if (!PyArg_ParseTuple(args, "O&pndn:fbx_read", PyUnicode_FSConverter, &path, &file_axes,
                          &max_memory, &max_bytes, &max_targets))
        return NULL;
    if (max_memory < 0 || max_targets < 0) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, "fbx_read: max_memory and max_targets must be >= 0");
        return NULL;
    }
    reader r = {NULL, {0}};
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = sk_fbx_open(PyBytes_AS_STRING(path), file_axes, (size_t)max_memory, &r.fbx, r.err,
                         ERRLEN);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (status < 0)
        return fail("ufbx", r.err);
    PyObject *scene = read_scene(&r, (size_t)max_memory, max_bytes, (size_t)max_targets);
    sk_fbx_close(r.fbx);
    return scene;
}
