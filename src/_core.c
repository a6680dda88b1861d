/* _core.c -- the module skinkit._core: one Python function per kernel descriptor
 * (bind_table.c), clip sampling and the type ClipPlayer (bind_clip.c), and the build
 * information.  See binding.h for how the binding is laid out. */
#define SK_IMPORT_ARRAY
#include "binding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <unistd.h>
#endif

/* ---------------------------------------------------------------- docstrings */

typedef struct {
    char buf[1024];
    size_t len;
} text_t;

static void put(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (t->len < sizeof t->buf)
        t->len += (size_t)vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
}

/* "(..., J, 4)" for the descriptor shape "(...,J,4)", "(J,)" for "(J)" */
static void put_shape(text_t *t, const char *shape, const core_t *core)
{
    for (const char *s = shape; *s; s++)
        put(t, *s == ',' ? ", " : *s == ')' && core->nd == 1 && !core->batched ? ",)" : "%c", *s);
}

/* "name(a, b, out=None, threads=None)\n\nsummary\n\na (..., 4), b (..., 4) -> out (..., 4)" */
static const char *make_doc(const kernel_t *k)
{
    text_t *t = PyMem_RawCalloc(1, sizeof *t);
    if (!t)
        return NULL;
    put(t, "%s(", k->name);
    for (int i = 0; i < k->nin; i++)
        put(t, "%s%s, ", k->op[i].name, k->op[i].flags & OP_OPTIONAL ? "=None" : "");
    put(t, "out=None, threads=None)\n\n%s\n\n", k->summary);
    for (int i = 0; i < k->nin + k->nout; i++) {
        const op_spec *o = &k->op[i];
        put(t, "%s%s%s ", i == k->nin ? " -> " : i ? ", " : "",
            o->kind == OP_PARENTS ? "integer " : o->kind == OP_JOINTS ? "index " : "", o->name);
        put_shape(t, o->shape, &k->core[i]);
        if (o->flags & OP_OPTIONAL)
            put(t, " or None");
        if (o->if_given)
            put(t, " (with %s)", k->op[o->if_given - 1].name);
    }
    return t->buf;
}

/* ((name, "(..., J, 4)", "in" | "optional" | "out"), ...): the operands of a descriptor, as
 * _core._shapes[name] (tests/test_binding_table.py compares them with docstrings and stubs) */
static PyObject *shape_tuple(const kernel_t *k)
{
    PyObject *t = PyTuple_New(k->nin + k->nout);
    for (int i = 0; t && i < k->nin + k->nout; i++) {
        const op_spec *o = &k->op[i];
        text_t shape = {"", 0};
        put_shape(&shape, o->shape, &k->core[i]);
        PyObject *item = Py_BuildValue("(sss)", o->name, shape.buf,
                                       i >= k->nin                 ? "out"
                                       : o->flags & OP_OPTIONAL ? "optional"
                                                                : "in");
        if (!item)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, item);
    }
    return t;
}

/* ---------------------------------------------------------------- module */

static PyObject *py_kernel(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return call_kernel(PyCapsule_GetPointer(self, NULL), args, nargs);
}

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
    {"sample_channels", py_sample_channels, METH_VARARGS,
     "sample_channels(table, out_offset, out_stride, times, out, threads=None)\n\n"
     "Samples every channel of a clip table (skinkit.clip.ClipTable) at times into out (one "
     "array, or a tuple of one per path: translations, rotations, scales)."},
    {"prepare_clip", py_prepare_clip, METH_O,
     "prepare_clip(table) -> prepared\n\n"
     "A clip table's prepared buffer (its prepared field): the slerp constants of its LINEAR "
     "rotation keys and the keys of its lane groups side by side."},
    {"quantize_codes", py_quantize_codes, METH_VARARGS,
     "quantize_codes(unit, widths, per) -> bytes\n\nA track's codes (skinkit.model.compress): "
     "unit (rows, C) float64 fractions of their segment's range, each rounded to its segment's "
     "widths (segments, C) uint8 bits and packed least significant bit first."},
    {"rate_bounds", py_rate_bounds, METH_VARARGS,
     "rate_bounds(unit, widths, ranges, per, row0, step, src, lever, dropped, rotation, want) "
     "-> bound\n\nThe bounds of the error M quantized tracks of one layout cause alone at each "
     "bit rate (skinkit.model.compress): unit (M, rows, C) float64 fractions, widths (M, rates, "
     "segments, C) uint8, ranges (M, segments, 2, C) float64, the keys rows row0::step, src (M, "
     "keys, C or C + 1) float64, lever (M, keys) float64, dropped (M,) int32 (-1 for all, or "
     "each track's restored component), rotation, want (M, rates) uint8 (the rates computed) -> "
     "(M, rates) float64, 0 where not wanted."},
    {"unit_rotations", py_unit_rotations, METH_VARARGS,
     "unit_rotations(values) -> (src, stored, dropped)\n\nM STEP or LINEAR rotation tracks' "
     "keys as skinkit.model.compress stores them: values (M, keys, 4) float64 -> src (M, keys, "
     "4) float64 (unit, each key's sign making the dropped component >= 0), stored (M, keys, 3) "
     "(the other three components) and dropped (M,) int64 (the component whose smallest "
     "magnitude over the keys is largest, the first of equal)."},
    {"rate_layout", py_rate_layout, METH_VARARGS,
     "rate_layout(values, ranges, extent, per, rates) -> (unit, widths, bits)\n\nThe layout of "
     "M quantized tracks of one shape at bit rates (skinkit.model.compress): values (M, rows, "
     "C) float64 in segments of per rows, ranges (M, segments, 2, C) float64 (each segment's "
     "minima, extents), extent (M, C) float64 (the clip's), rates (R,) uint8 -> unit (M, "
     "rows, C) float64 fractions of the segments' ranges, widths (M, R, segments, C) uint8 "
     "(the rate less floor(log2(the widest clip extent / the segment's)), 1 to the rate, 0 "
     "for an extent of 0) and bits (M, R, segments + 1) int64 (each segment's first bit, and "
     "all the bits)."},
    {"track_bounds", py_track_bounds, METH_VARARGS,
     "track_bounds(src, keys, constants, rest, lever, dropped, rotation) -> bound\n\nThe "
     "bounds of the error M tracks cause alone at the levels RAW, CONSTANT, CONSTANT24, KEYS24 "
     "and DEFAULT (skinkit.model.compress): src (T, M, C), keys (M, T, C, or C - 1 with each "
     "track's component dropped (M,) int32 restored as sqrt(max(1 - the others' squares, 0))), "
     "constants (M, 2, as keys), rest (M, C), lever (T, M) float64 -> (M, 5) float64, the "
     "largest over T of lever times the chord to the nearer of the level's value and its "
     "negative (rotation: quaternions) or the largest component difference; KEYS24: the keys' "
     "float32s to their top 24 bits."},
    {"shell_check", py_shell_check, METH_VARARGS,
     "shell_check(parents, order, rot, trans, scale, reference, shells, world, errors, start, "
     "count, limit) -> (start, done, above)\n\nThe exact check of skinkit.model.compress: "
     "world matrices and shell errors (ACL's qvvf_transform_error_metric) of the joints order "
     "(int32, each after its parent where both are in it) in place in world (T, J, 4, 4) and "
     "errors (T, J) float64, from rot (T, J, 4), trans and scale (T, J, 3), reference (T, J, "
     "4, 4) and shells (T,) float64, the other joints' world matrices read; count rows from "
     "start (-1: the row where the joints' errors are largest), round to row 0 after the last, "
     "until the first group of rows with an error above limit (> 0; 0: none); the start, the "
     "rows done and whether one was above."},
    {"shell_refine", py_shell_refine, METH_VARARGS,
     "shell_refine(parents, order, rot, trans, scale, reference, shells, world, errors, limit, "
     "tries) -> (index, passed)\n\nshell_check's arrays, then tries in turn, each (path 0 to "
     "2: trans, rot, scale; first, end: joints order[first .. end - 1], a subtree in depth-first "
     "preorder, joint order[first] the track's; its values and its kept values, float64 (T, C) "
     "or (C,); last): the track's values written into its joint's column, the subtree checked "
     "(from the row where it erred most, stopping above limit); above it, the kept values "
     "written back and the rows reached computed again.  Stops at the first try that passes, "
     "or that fails with last set: its index and whether it passed ((len(tries), False) when "
     "every try failed)."},
    {"subtree_reach", py_subtree_reach, METH_VARARGS,
     "subtree_reach(parents, size, world, shell) -> (reach, parent_scale)\n\nThe lever arms "
     "of skinkit.model.compress's bounds: joints in depth-first preorder (parents int32 (J,), "
     "each < its joint; size int64 (J,), each joint's subtree), world (T, J, 4, 4) float64 -> "
     "reach (T, J), the largest distance from each joint to a vertex at shell of a joint of its "
     "subtree (its distance plus shell times that joint's largest world axis scale), and "
     "parent_scale (T, J), the parent's largest world axis scale (1 for a root)."},
    {"fill_rows", py_fill_rows, METH_VARARGS,
     "fill_rows(out, row, threads=None)\n\n"
     "Writes copies of row (1-d) side by side into out (1-d, the same float type; its length "
     "a multiple of row's), its rows shared out among up to `threads` threads: the rest pose "
     "under a clip's samples."},
    {"fbx_read", py_fbx_read, METH_VARARGS,
     "fbx_read(path, file_axes, max_memory, max_bytes, max_targets) -> dict\n\n"
     "An FBX scene read by ufbx as NumPy arrays (skinkit.io.fbx assembles the Model); ufbx may "
     "allocate max_memory bytes, the arrays max_bytes, a mesh have max_targets blend shapes.  "
     "Raises ValueError."},
    {"ufbx_version", ufbx_version, METH_NOARGS,
     "ufbx_version() -> str: the ufbx release compiled in (vendor/ufbx)"},
    {"default_threads", py_default_threads, METH_NOARGS,
     "default_threads() -> int: threads a kernel may use when threads=None "
     "(SKINKIT_NUM_THREADS at import, else the number of online CPUs)"},
    {"simd", py_simd, METH_NOARGS,
     "simd() -> 'avx512', 'avx2' or 'baseline': the code float32 skinning runs (the best the "
     "CPU has; SKINKIT_SIMD=avx2 or baseline at import caps it)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_core",
    "skinkit._core: NumPy bindings of the skinkit C kernels (use the skinkit package API).", -1,
    methods,
};

/* one function per descriptor, its descriptor as self */
static int add_kernels(PyObject *m)
{
    PyMethodDef *defs = PyMem_RawCalloc(n_kernels, sizeof *defs); /* lives as the module */
    PyObject *shapes = PyDict_New();
    if (!defs || !shapes || bind_init(kernels, n_kernels) < 0 ||
        PyModule_AddObject(m, "_shapes", shapes) < 0) {
        Py_XDECREF(shapes);
        return defs ? -1 : (PyErr_NoMemory(), -1);
    }
    for (size_t i = 0; i < n_kernels; i++) {
        PyObject *t = shape_tuple(&kernels[i]);
        if (!t || PyDict_SetItemString(shapes, kernels[i].name, t) < 0) {
            Py_XDECREF(t);
            return -1;
        }
        Py_DECREF(t);
        PyMethodDef *d = &defs[i];
        d->ml_name = kernels[i].name;
        d->ml_meth = (PyCFunction)(void (*)(void))py_kernel;
        d->ml_flags = METH_FASTCALL;
        if (!d->ml_doc && !(d->ml_doc = make_doc(&kernels[i]))) {
            PyErr_NoMemory();
            return -1;
        }
        PyObject *cap = PyCapsule_New(&kernels[i], NULL, NULL);
        PyObject *f = cap ? PyCFunction_NewEx(d, cap, NULL) : NULL;
        Py_XDECREF(cap);
        if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) {
            Py_XDECREF(f);
            return -1;
        }
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    /* a bad environment value is a RuntimeWarning and the default, not an import failure */
    const char *nt = getenv("SKINKIT_NUM_THREADS");
    char *end = NULL;
    long v = nt && *nt ? strtol(nt, &end, 10) : 0;
    if (nt && *nt && !*end && v >= 1) {
        default_threads = v > MAX_THREADS ? MAX_THREADS : (int)v;
    } else {
        if (nt && *nt && PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                                          "SKINKIT_NUM_THREADS must be an integer >= 1, got "
                                          "'%.40s': using the number of online CPUs", nt) < 0)
            return NULL;
#ifndef _WIN32
        v = sysconf(_SC_NPROCESSORS_ONLN);
        default_threads = v < 1 ? 1 : v > MAX_THREADS ? MAX_THREADS : (int)v;
#endif
    }
    const char *simd = getenv("SKINKIT_SIMD");
    if (simd && *simd) { /* a cap: the best variant at or below it that this CPU has */
        if (!strcmp(simd, "baseline") || !strcmp(simd, "0") || !strcmp(simd, "off"))
            sk_set_simd(SK_SIMD_BASELINE);
        else if (!strcmp(simd, "avx2"))
            sk_set_simd(SK_SIMD_AVX2);
        else if (strcmp(simd, "avx512") &&
                 PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                                  "SKINKIT_SIMD must be avx512, avx2 or baseline, got "
                                  "'%.40s': using the best this CPU has", simd) < 0)
            return NULL;
    }
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np)
        return NULL;
    from_dlpack = PyObject_GetAttrString(np, "from_dlpack");
    Py_DECREF(np);
    if (!from_dlpack)
        PyErr_Clear();
    PyObject *m = PyModule_Create(&moduledef);
    if (m && (PyModule_AddStringConstant(m, "__version__", SKINKIT_VERSION) < 0 ||
              add_kernels(m) < 0 || add_clip_player(m) < 0 || add_compressed_types(m) < 0))
        Py_CLEAR(m);
    return m;
}
