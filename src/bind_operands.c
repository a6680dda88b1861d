/* bind_operands.c -- one call of a kernel descriptor (binding.h): parse the positional
 * arguments, read every operand as the descriptor says (float arrays in the compute dtype,
 * parents, joint indices), check the core shapes and bind the symbolic sizes, broadcast the
 * batch shapes, allocate the outputs or check the arrays given as out=, run, return.
 *
 * Integer operands (parents, joint indices) are read by bind_indices.c; both take their
 * operands through bind_args.c.  Every float operand
 * is converted to a native, aligned, C-contiguous array of the compute
 * dtype: float32 when every float input is float32, else float64.  Shapes are checked on the
 * inputs as given, before any conversion: a bad zero-stride view of 2**31 items is refused
 * without first being copied. */
#include "binding.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ the table */

/* "(...,J,4,4)" -> core_t; -1 when malformed */
static int parse_core(const char *s, core_t *core)
{
    memset(core, 0, sizeof *core);
    if (*s++ != '(')
        return -1;
    if (!strncmp(s, "...", 3)) {
        core->batched = 1;
        s += 3;
        if (*s == ',')
            s++;
    }
    while (*s && *s != ')') {
        if (core->nd == MAXCORE)
            return -1;
        if (*s >= 'A' && *s <= 'Z')
            core->dim[core->nd++] = -(npy_intp)SYM(*s++) - 1;
        else if (*s >= '0' && *s <= '9')
            core->dim[core->nd++] = strtol(s, (char **)&s, 10);
        else
            return -1;
        if (*s == ',')
            s++;
    }
    return *s == ')' && !s[1] ? 0 : -1;
}

static int symbol_of_inputs(const kernel_t *k, npy_intp sym)
{
    for (int i = 0; i < k->nin; i++)
        for (int d = 0; d < k->core[i].nd; d++)
            if (k->core[i].dim[d] == sym)
                return 1;
    return 0;
}

/* Parses the shapes of the descriptors and checks what the calls rely on; a malformed
 * descriptor is an ImportError naming it. */
int bind_init(kernel_t *ks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        kernel_t *k = &ks[i];
        const char *why = NULL;
        int nop = 0;
        k->nin = k->nreq = k->nout = 0;
        for (; nop < MAXOP && k->op[nop].name; nop++) {
            const op_spec *o = &k->op[nop];
            if (parse_core(o->shape, &k->core[nop]) < 0)
                why = "a shape is malformed";
            else if (o->flags & OP_OUT)
                k->nout++;
            else if (k->nout)
                why = "an input follows an output";
            else if (o->flags & OP_OPTIONAL)
                k->nin++;
            else if (k->nin > k->nreq)
                why = "a required input follows an optional one";
            else
                k->nin++, k->nreq++;
        }
        for (int j = k->nin; j < nop && !why; j++)
            for (int d = 0; d < k->core[j].nd; d++)
                if (k->core[j].dim[d] < 0 && !symbol_of_inputs(k, k->core[j].dim[d]))
                    why = "an output's symbol is bound by no input";
        if (!why && (!k->nout || !k->loop[0] || !k->loop[1]))
            why = "it has no output or no loop";
        if (!why && k->scratch && !k->work)
            why = "its scratch is counted per unit of work, and it has no work symbol";
        int joints = input_named(k, "joints");
        if (!why && k->fail == fail_joint_index && (joints < 0 || k->op[joints].kind != OP_JOINTS))
            why = "its statuses name the joint indices, and it has no index input `joints`";
        if (why) {
            PyErr_Format(PyExc_ImportError, "skinkit._core: kernel %s: %s", k->name, why);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ messages */

void fmt_shape(char *buf, size_t cap, int nd, const npy_intp *d)
{
    size_t len = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < nd && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ", %" NPY_INTP_FMT : "%" NPY_INTP_FMT,
                                d[i]);
    if (len < cap)
        snprintf(buf + len, cap - len, nd == 1 ? ",)" : ")");
}

/* "(..., J=3, 4)": the core with the sizes bound so far */
static void fmt_core(char *buf, size_t cap, const core_t *o, const npy_intp *sym)
{
    size_t len = (size_t)snprintf(buf, cap, o->batched ? "(..." : "(");
    for (int i = 0; i < o->nd && len < cap; i++) {
        const char *sep = (i || o->batched) ? ", " : "";
        npy_intp c = o->dim[i];
        char letter = (char)('A' - c - 1);
        if (c >= 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%" NPY_INTP_FMT, sep, c);
        else if (sym[-c - 1] >= 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%c=%" NPY_INTP_FMT, sep, letter,
                                    sym[-c - 1]);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%c", sep, letter);
    }
    if (len < cap)
        snprintf(buf + len, cap - len, o->nd == 1 && !o->batched ? ",)" : ")");
}

static int shape_error(const call_t *c, int i, PyArrayObject *a)
{
    char want[128], got[256];
    fmt_core(want, sizeof want, c->core[i], c->sym);
    fmt_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
    PyErr_Format(PyExc_ValueError, "%s must have shape %s, got %s", c->name[i], want, got);
    return -1;
}

/* ------------------------------------------------------------------ reading operands */

/* Checks the core dimensions of operand i and binds its symbolic sizes (a NULL a: an error set
 * already). */
static int check_core(call_t *c, int i, PyArrayObject *a)
{
    const core_t *o = c->core[i];
    if (!a)
        return -1;
    int nd = PyArray_NDIM(a), cn = o->nd;
    if (nd < cn || (!o->batched && nd != cn))
        return shape_error(c, i, a);
    for (int d = 0; d < cn; d++) {
        npy_intp want = o->dim[d], got = PyArray_DIM(a, nd - cn + d);
        if (want < 0) {
            npy_intp *s = &c->sym[-want - 1];
            if (*s < 0)
                *s = got;
            want = *s;
        }
        if (got != want)
            return shape_error(c, i, a);
    }
    return 0;
}

/* Reads every float input and picks the compute dtype.  Python int/float scalars are weak
 * (they do not widen float32); integer arrays convert to float64; anything else is refused. */
static int resolve_type(call_t *c)
{
    int any64 = 0, any32 = 0;
    for (int i = 0; i < c->nin; i++) {
        PyObject *obj = c->obj[i];
        if (!obj || c->k->op[i].kind != OP_REAL)
            continue;
        if (PyFloat_Check(obj) || (PyLong_Check(obj) && !PyBool_Check(obj)))
            continue;
        c->arr[i] = as_array(obj);
        if (!c->arr[i]) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) { /* name the argument */
                PyObject *type, *value, *tb;
                PyErr_Fetch(&type, &value, &tb);
                PyErr_Format(PyExc_TypeError, "%s cannot be read as a float32 or float64 array: %S",
                             c->name[i], value ? value : Py_None);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
            }
            return -1;
        }
        PyArray_Descr *d = PyArray_DESCR(c->arr[i]);
        int kind = d->kind, size = (int)PyDataType_ELSIZE(d);
        if (kind == 'f' && size == 4)
            any32 = 1;
        else if ((kind == 'f' && size == 8) || kind == 'i' || kind == 'u')
            any64 = 1;
        else {
            PyErr_Format(PyExc_TypeError,
                         "%s must be a float32 or float64 array (integers convert to float64), "
                         "got dtype %S", c->name[i], (PyObject *)d);
            return -1;
        }
    }
    c->typenum = (any32 && !any64) ? NPY_FLOAT : NPY_DOUBLE;
    return 0;
}

/* Broadcasts the batch dimensions (all but the core) of every input into c->bshape. */
static int broadcast(call_t *c)
{
    c->bnd = 0;
    for (int i = 0; i < c->nin; i++) {
        PyArrayObject *a = c->arr[i];
        if (!a)
            continue;
        int bnd = PyArray_NDIM(a) - c->core[i]->nd;
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
                             "of the other arguments", s1, c->name[i], s2);
                return -1;
            }
            *have = got;
        }
    }
    return 0;
}

/* input i as the loop reads it: a float array in the compute dtype, or the values of an integer
 * operand checked once every size is known */
static int finish_input(call_t *c, int i)
{
    if (c->k->op[i].kind != OP_REAL)
        return c->k->op[i].kind == OP_PARENTS ? order_parents(c, i) : 0;
    Py_SETREF(c->arr[i], (PyArrayObject *)PyArray_FromAny(
                             (PyObject *)c->arr[i], PyArray_DescrFromType(c->typenum), 0, 0,
                             NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST,
                             NULL));
    return c->arr[i] ? 0 : -1;
}

/* input i as given, for its shape: integer operands as read, a Python scalar as a 0-d array */
static PyArrayObject *as_given(call_t *c, int i)
{
    if (!c->given[i] && !c->arr[i])
        c->arr[i] = (PyArrayObject *)PyArray_FROM_O(c->obj[i]);
    return c->given[i] ? c->given[i] : c->arr[i];
}

static int read_index_input(call_t *c, int i)
{
    return c->k->op[i].kind == OP_REAL ? 0 : read_indices(c, i);
}

static int check_input(call_t *c, int i)
{
    return check_core(c, i, as_given(c, i));
}

/* fn(c, i) for every input given; -1 at the first failure */
static int each_input(call_t *c, int (*fn)(call_t *, int))
{
    for (int i = 0; i < c->nin; i++)
        if (c->obj[i] && fn(c, i) < 0)
            return -1;
    return 0;
}

/* Reads the inputs: integer ones (bind_indices.c) and the dtype of the float ones first; then
 * checks the core shapes (in the API's order; a Python scalar as a 0-d array) and broadcasts the
 * batch shapes as given; then converts. */
static int prepare_inputs(call_t *c)
{
    if (each_input(c, read_index_input) < 0 || resolve_type(c) < 0)
        return -1;
    if (each_input(c, check_input) < 0 || broadcast(c) < 0)
        return -1;
    return each_input(c, finish_input);
}

/* ------------------------------------------------------------------ outputs */

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

/* Checks an array given as out= for output i against its shape dims[nd]. */
static int check_out(call_t *c, int i, PyArrayObject *a, int nd, const npy_intp *dims)
{
    char want[256], got[256];
    if (PyArray_TYPE(a) != c->typenum || !PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(PyExc_TypeError, "%s must have dtype %s, got %S", c->name[i],
                     c->typenum == NPY_FLOAT ? "float32" : "float64",
                     (PyObject *)PyArray_DESCR(a));
        return -1;
    }
    if (PyArray_NDIM(a) != nd || !PyArray_CompareLists(PyArray_DIMS(a), dims, nd)) {
        fmt_shape(want, sizeof want, nd, dims);
        fmt_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
        PyErr_Format(PyExc_ValueError, "%s must have shape %s, got %s", c->name[i], want, got);
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) || !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s must be a writeable, aligned, C-contiguous array",
                     c->name[i]);
        return -1;
    }
    for (int k = 0; k < i; k++) {
        int hit = c->arr[k] && overlaps(a, c->arr[k]);
        if (!hit && c->obj[k] && PyArray_Check(c->obj[k]))
            hit = overlaps(a, (PyArrayObject *)c->obj[k]);
        if (hit) {
            PyErr_Format(PyExc_ValueError, "%s overlaps the memory of %s", c->name[i],
                         c->name[k]);
            return -1;
        }
    }
    return 0;
}

/* Allocates the outputs, or checks the arrays given as out=. */
static int prepare_outputs(call_t *c)
{
    for (int i = c->nin; i < c->nin + c->nout; i++) {
        const core_t *o = c->core[i];
        npy_intp dims[NPY_MAXDIMS + MAXCORE];
        int nd = c->bnd + o->nd;
        if (nd > NPY_MAXDIMS) {
            PyErr_Format(PyExc_ValueError, "%s would have %d dimensions, more than NumPy's %d",
                         c->name[i], nd, NPY_MAXDIMS);
            return -1;
        }
        memcpy(dims, c->bshape, sizeof(npy_intp) * (size_t)c->bnd);
        for (int d = 0; d < o->nd; d++)
            dims[c->bnd + d] = o->dim[d] >= 0 ? o->dim[d] : c->sym[-o->dim[d] - 1];
        if (!c->obj[i]) {
            c->arr[i] = (PyArrayObject *)(c->k->op[o - c->k->core].flags & OP_READ
                                              ? PyArray_ZEROS(nd, dims, c->typenum, 0)
                                              : PyArray_SimpleNew(nd, dims, c->typenum));
            if (!c->arr[i])
                return -1;
            continue;
        }
        if (!PyArray_Check(c->obj[i])) {
            PyErr_Format(PyExc_TypeError, "%s must be a NumPy array, got %s", c->name[i],
                         Py_TYPE(c->obj[i])->tp_name);
            return -1;
        }
        if (check_out(c, i, (PyArrayObject *)c->obj[i], nd, dims) < 0)
            return -1;
        Py_INCREF(c->obj[i]);
        c->arr[i] = (PyArrayObject *)c->obj[i];
    }
    return 0;
}

/* ------------------------------------------------------------------ the call */

static const char *const out_names[MAXOP] = {"out[0]", "out[1]", "out[2]", "out[3]",
                                             "out[4]", "out[5]", "out[6]", "out[7]",
                                             "out[8]", "out[9]", "out[10]", "out[11]"};

/* the positional arguments: inputs, then out (None, an array, or a tuple of arrays when the
 * call has several outputs), then threads */
static int parse_args(call_t *c, PyObject *const *args, Py_ssize_t nargs)
{
    const kernel_t *k = c->k;
    if (nargs < k->nreq || nargs > k->nin + 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes from %d to %d positional arguments but %zd "
                     "were given", k->name, k->nreq, k->nin + 2, nargs);
        return -1;
    }
    c->nin = k->nin;
    for (int i = 0; i < k->nin; i++) {
        c->obj[i] = i < nargs && args[i] != Py_None ? args[i] : NULL;
        c->name[i] = k->op[i].name;
        c->core[i] = &k->core[i];
        if (!c->obj[i] && !(k->op[i].flags & OP_OPTIONAL)) {
            PyErr_Format(PyExc_TypeError, "%s must not be None", c->name[i]);
            return -1;
        }
    }
    for (int j = k->nin; j < k->nin + k->nout; j++) {
        int when = k->op[j].if_given;
        if (!when || c->obj[when - 1]) {
            c->core[c->nin + c->nout] = &k->core[j];
            c->nout++;
        }
    }
    PyObject *out = nargs > k->nin ? args[k->nin] : Py_None;
    for (int j = 0; j < c->nout; j++)
        c->name[c->nin + j] = c->nout == 1 ? "out" : out_names[j];
    if (out != Py_None && c->nout == 1) {
        c->obj[c->nin] = out;
    } else if (out != Py_None) {
        if (!(PyTuple_Check(out) || PyList_Check(out)) || PySequence_Fast_GET_SIZE(out) != c->nout) {
            PyErr_Format(PyExc_TypeError, "out must be None or a tuple of %d arrays, got %s%s",
                         c->nout, Py_TYPE(out)->tp_name,
                         PyTuple_Check(out) || PyList_Check(out) ? " of another length" : "");
            return -1;
        }
        for (int j = 0; j < c->nout; j++) {
            PyObject *o = PySequence_Fast_GET_ITEM(out, j);
            c->obj[c->nin + j] = o == Py_None ? NULL : o;
        }
    }
    return parse_threads(nargs > k->nin + 1 ? args[k->nin + 1] : Py_None, &c->threads);
}

static void call_free(call_t *c)
{
    for (int i = 0; i < c->nin + c->nout; i++) {
        Py_CLEAR(c->arr[i]);
        Py_CLEAR(c->given[i]);
    }
    PyMem_Free(c->order);
}

/* The whole call: arguments, operands, outputs, run; returns the output or a tuple. */
PyObject *call_kernel(const kernel_t *k, PyObject *const *args, Py_ssize_t nargs)
{
    call_t c;
    PyObject *res = NULL;
    memset(&c, 0, sizeof c);
    c.k = k;
    for (int s = 0; s < NSYM; s++)
        c.sym[s] = -1;
    c.ctx.sym = c.sym;
    if (parse_args(&c, args, nargs) < 0 || prepare_inputs(&c) < 0 || prepare_outputs(&c) < 0)
        goto done;
    int st = run_call(&c);
    if (st != SK_OK) {
        if (!PyErr_Occurred()) /* else no memory for the workspace */
            k->fail(&c, st);
        goto done;
    }
    if (c.nout == 1) {
        res = (PyObject *)c.arr[c.nin];
        Py_INCREF(res);
    } else if ((res = PyTuple_New(c.nout))) {
        for (int i = 0; i < c.nout; i++) {
            Py_INCREF(c.arr[c.nin + i]);
            PyTuple_SET_ITEM(res, i, (PyObject *)c.arr[c.nin + i]);
        }
    }
done:
    call_free(&c);
    return res;
}
