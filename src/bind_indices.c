/* bind_indices.c -- integer operands: joint parents (OP_PARENTS) and joint indices (OP_JOINTS).
 * The binding only reads them (any integer type, any layout) in the type the C kernels take;
 * the rules are the C library's: sk_topological_order for parents, and for joint indices the
 * skinning kernel itself, asked to check them on the first pose only; both run once per call,
 * whatever the batch.  Messages quote the value as given. */
#include "binding.h"

/* Reads integer operand i: c->given[i] as given (native, C-contiguous, its own type: the values
 * messages quote), c->arr[i] what the kernels read: the same array for joints of a type they
 * take (uint8, uint16, int32), else an int32 copy in which a value outside int32 becomes
 * INT32_MIN, which every index check refuses. */
int read_indices(call_t *c, int i)
{
    PyArrayObject *a = as_array(c->obj[i]);
    if (!a)
        return -1;
    int t = PyArray_TYPE(a), is_unsigned = PyArray_ISUNSIGNED(a);
    if (!PyArray_ISINTEGER(a) || PyArray_ISBOOL(a)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer array, got dtype %S", c->name[i],
                     (PyObject *)PyArray_DESCR(a));
        Py_DECREF(a);
        return -1;
    }
    c->given[i] = (PyArrayObject *)PyArray_FromAny((PyObject *)a, PyArray_DescrFromType(t), 0, 0,
                                                   NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED,
                                                   NULL);
    Py_DECREF(a);
    if (!c->given[i])
        return -1;
    if (c->k->op[i].kind == OP_JOINTS && (t == NPY_UINT8 || t == NPY_UINT16 || t == NPY_INT32)) {
        c->ctx.itype = t == NPY_UINT8 ? SK_U8 : t == NPY_UINT16 ? SK_U16 : SK_I32;
        Py_INCREF(c->given[i]);
        c->arr[i] = c->given[i];
        return 0;
    }
    c->ctx.itype = SK_I32;
    PyArrayObject *wide = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)c->given[i], PyArray_DescrFromType(is_unsigned ? NPY_UINT64 : NPY_INT64), 0,
        0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
    if (!wide)
        return -1;
    c->arr[i] = (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(wide), PyArray_DIMS(wide),
                                                   NPY_INT32);
    if (c->arr[i]) {
        npy_intp n = PyArray_SIZE(wide);
        const npy_int64 *s = PyArray_DATA(wide);
        const npy_uint64 *u = PyArray_DATA(wide);
        int32_t *d = PyArray_DATA(c->arr[i]);
        for (npy_intp e = 0; e < n; e++)
            d[e] = is_unsigned ? (u[e] > INT32_MAX ? INT32_MIN : (int32_t)u[e])
                   : (s[e] < INT32_MIN || s[e] > INT32_MAX) ? INT32_MIN : (int32_t)s[e];
    }
    Py_DECREF(wide);
    return c->arr[i] ? 0 : -1;
}

/* the value of operand i at a flat index, as given */
static PyObject *given_at(const call_t *c, int i, size_t flat)
{
    PyArrayObject *g = c->given[i];
    return PyArray_GETITEM(g, PyArray_BYTES(g) + (npy_intp)flat * PyArray_ITEMSIZE(g));
}

/* parents: a topological order into c->ctx.order, or ValueError naming the joint */
int order_parents(call_t *c, int i)
{
    size_t J = (size_t)PyArray_DIM(c->arr[i], 0), bad = 0;
    const int32_t *parents = PyArray_DATA(c->arr[i]);
    int32_t *buf = c->order = PyMem_Malloc(sizeof(int32_t) * (2 * J + 1));
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    int st = sk_topological_order(J, parents, buf, buf + J, &bad);
    if (st == SK_OK) {
        c->ctx.parents = parents;
        c->ctx.order = buf;
        return 0;
    }
    PyObject *value = given_at(c, i, bad);
    if (!value)
        return -1;
    if (st == SK_ERR_PARENT_SELF)
        PyErr_Format(PyExc_ValueError, "%s[%zu] = %zu: joint %zu is its own parent", c->name[i],
                     bad, bad, bad);
    else if (st == SK_ERR_PARENT_CYCLE)
        PyErr_Format(PyExc_ValueError, "%s: joint %zu is on a cycle (%s[%zu] = %S)", c->name[i],
                     bad, c->name[i], bad, value);
    else
        PyErr_Format(PyExc_ValueError, "%s[%zu] = %S is out of range for %zu joints (expected -1 "
                     "for a root or 0..%lld)", c->name[i], bad, value, J, (long long)J - 1);
    Py_DECREF(value);
    return -1;
}

/* the exception for a joint index outside -1..J-1, from the status of a skinning loop: checked
 * as the first pose is skinned (each vertex's indices once per call, whatever the batch) */
void fail_joint_index(const call_t *c, int status)
{
    size_t J = (size_t)c->sym[SYM('J')], K = (size_t)c->sym[SYM('K')];
    size_t flat = (size_t)c->ctx.item * K + c->ctx.bad; /* the first pose: item = vertex */
    int i = input_named(c->k, "joints"); /* an OP_JOINTS input: bind_init checked it */
    PyObject *value = given_at(c, i, flat);
    (void)status;
    if (value)
        PyErr_Format(PyExc_ValueError, "%s[%zu, %zu] = %S is out of range for %zu joints (expected "
                     "-1 for no influence or 0..%lld)", c->name[i], flat / K, flat % K, value, J,
                     (long long)J - 1);
    Py_XDECREF(value);
}
