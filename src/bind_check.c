/* bind_check.c -- compression's exact check (sk_shell_check_d, shell_error.c) for
 * skinkit.model.compress: FK of a joint's subtree alone over the search's poses, in place, in
 * the order the caller gives, stopping at the first group above the precision. */
#include "binding.h"

/* 0 when obj is a native, aligned, C-contiguous array of type with ndim dimensions equal to
   want (-1: any), writeable if write; else a TypeError or a ValueError naming it */
static int check_nd(PyObject *obj, const char *name, int type, int ndim,
                    const npy_intp *want, int write)
{
    PyArrayObject *a = (PyArrayObject *)obj;
    int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (write ? NPY_ARRAY_WRITEABLE : 0);
    if (!PyArray_Check(obj) || PyArray_TYPE(a) != type || PyArray_NDIM(a) != ndim ||
        !PyArray_CHKFLAGS(a, flags) || !PyArray_ISNOTSWAPPED(a)) {
        PyArray_Descr *d = PyArray_DescrFromType(type);
        PyErr_Format(PyExc_TypeError, "shell_check: %s must be a %d-dimensional, native, "
                     "aligned, C-contiguous%s %S array, got %R", name, ndim,
                     write ? ", writeable" : "", (PyObject *)d, obj);
        Py_DECREF(d);
        return -1;
    }
    for (int k = 0; k < ndim; k++)
        if (want[k] >= 0 && PyArray_DIM(a, k) != want[k]) {
            PyErr_Format(PyExc_ValueError, "shell_check: %s has %zd in dimension %d, want %zd",
                         name, (Py_ssize_t)PyArray_DIM(a, k), k, (Py_ssize_t)want[k]);
            return -1;
        }
    return 0;
}

PyObject *py_shell_check(PyObject *self, PyObject *args)
{
    PyObject *parents, *order, *rot, *trans, *scale, *ref, *shells, *world, *errors;
    Py_ssize_t start, count;
    double limit;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOnnd:shell_check", &parents, &order, &rot, &trans,
                          &scale, &ref, &shells, &world, &errors, &start, &count, &limit))
        return NULL;
    npy_intp any[1] = {-1};
    if (check_nd(rot, "rot", NPY_DOUBLE, 3, (npy_intp[]){-1, -1, 4}, 0) < 0)
        return NULL;
    npy_intp T = PyArray_DIM((PyArrayObject *)rot, 0), J = PyArray_DIM((PyArrayObject *)rot, 1);
    if (check_nd(parents, "parents", NPY_INT32, 1, (npy_intp[]){J}, 0) < 0 ||
        check_nd(order, "order", NPY_INT32, 1, any, 0) < 0 ||
        check_nd(trans, "trans", NPY_DOUBLE, 3, (npy_intp[]){T, J, 3}, 0) < 0 ||
        check_nd(scale, "scale", NPY_DOUBLE, 3, (npy_intp[]){T, J, 3}, 0) < 0 ||
        check_nd(ref, "reference", NPY_DOUBLE, 4, (npy_intp[]){T, J, 4, 4}, 0) < 0 ||
        check_nd(shells, "shells", NPY_DOUBLE, 1, (npy_intp[]){T}, 0) < 0 ||
        check_nd(world, "world", NPY_DOUBLE, 4, (npy_intp[]){T, J, 4, 4}, 1) < 0 ||
        check_nd(errors, "errors", NPY_DOUBLE, 2, (npy_intp[]){T, J}, 1) < 0)
        return NULL;
    const int32_t *par = PyArray_DATA((PyArrayObject *)parents);
    const int32_t *ord = PyArray_DATA((PyArrayObject *)order);
    npy_intp nj = PyArray_DIM((PyArrayObject *)order, 0);
    for (npy_intp j = 0; j < J; j++)
        if (par[j] < -1 || par[j] >= J) {
            PyErr_Format(PyExc_ValueError, "shell_check: parents[%zd] is %d, want -1 to %zd",
                         (Py_ssize_t)j, (int)par[j], (Py_ssize_t)(J - 1));
            return NULL;
        }
    for (npy_intp k = 0; k < nj; k++)
        if (ord[k] < 0 || ord[k] >= J) {
            PyErr_Format(PyExc_ValueError, "shell_check: order[%zd] is %d, want 0 to %zd",
                         (Py_ssize_t)k, (int)ord[k], (Py_ssize_t)(J - 1));
            return NULL;
        }
    if (start < -1 || start >= (T > 0 ? T : 1) || count < 0 || count > T) {
        PyErr_Format(PyExc_ValueError, "shell_check: want start -1 to %zd and count 0 to %zd, "
                     "got %zd and %zd", (Py_ssize_t)(T > 0 ? T - 1 : 0), (Py_ssize_t)T, start,
                     count);
        return NULL;
    }
    const double *err = PyArray_DATA((PyArrayObject *)errors);
    if (start < 0) {    /* the row where the joints of order erred most when last checked */
        double top = -1;
        start = 0;
        for (npy_intp i = 0; i < T; i++)
            for (npy_intp k = 0; k < nj; k++)
                if (err[i * J + ord[k]] > top) {
                    top = err[i * J + ord[k]];
                    start = i;
                }
    }
    int64_t *at = PyMem_Malloc((size_t)(count > 0 ? count : 1) * sizeof(int64_t));
    if (!at)
        return PyErr_NoMemory();
    for (npy_intp i = 0; i < count; i++)
        at[i] = (start + i) % T;
    sk_shell_fk_job_d job = {
        .n = (size_t)count, .J = (size_t)nj, .parents = par, .order = ord,
        .rot = PyArray_DATA((PyArrayObject *)rot), .rot_stride = 4 * J,
        .trans = PyArray_DATA((PyArrayObject *)trans), .trans_stride = 3 * J,
        .scale = PyArray_DATA((PyArrayObject *)scale), .scale_stride = 3 * J,
        .reference = PyArray_DATA((PyArrayObject *)ref), .reference_stride = 16 * J,
        .shell = PyArray_DATA((PyArrayObject *)shells), .shell_stride = 1,
        .world = PyArray_DATA((PyArrayObject *)world), .world_stride = 16 * J,
        .error = PyArray_DATA((PyArrayObject *)errors), .error_stride = J,
        .poses = at, .limit = limit};
    int above;
    size_t done = sk_shell_check_d(&job, &above);
    PyMem_Free(at);
    return Py_BuildValue("(nnO)", start, (Py_ssize_t)done, above ? Py_True : Py_False);
}

PyObject *py_subtree_reach(PyObject *self, PyObject *args)
{
    PyObject *parents, *size, *world;
    double shell;
    if (!PyArg_ParseTuple(args, "OOOd:subtree_reach", &parents, &size, &world, &shell))
        return NULL;
    if (check_nd(world, "world", NPY_DOUBLE, 4, (npy_intp[]){-1, -1, 4, 4}, 0) < 0)
        return NULL;
    npy_intp T = PyArray_DIM((PyArrayObject *)world, 0);
    npy_intp J = PyArray_DIM((PyArrayObject *)world, 1);
    if (check_nd(parents, "parents", NPY_INT32, 1, (npy_intp[]){J}, 0) < 0 ||
        check_nd(size, "size", NPY_INT64, 1, (npy_intp[]){J}, 0) < 0)
        return NULL;
    const int32_t *par = PyArray_DATA((PyArrayObject *)parents);
    const int64_t *sz = PyArray_DATA((PyArrayObject *)size);
    for (npy_intp j = 0; j < J; j++)
        if (par[j] < -1 || par[j] >= j || sz[j] < 1 || sz[j] > J - j) {
            PyErr_Format(PyExc_ValueError, "subtree_reach: joint %zd has parent %d and subtree "
                         "size %lld, want a parent -1 to %zd (depth-first preorder) and a size "
                         "1 to %zd", (Py_ssize_t)j, (int)par[j], (long long)sz[j],
                         (Py_ssize_t)(j - 1), (Py_ssize_t)(J - j));
            return NULL;
        }
    npy_intp dims[2] = {T, J};
    PyObject *reach = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyObject *scale = reach ? PyArray_SimpleNew(2, dims, NPY_DOUBLE) : NULL;
    if (!scale) {
        Py_XDECREF(reach);
        return NULL;
    }
    sk_subtree_reach_d((size_t)T, (size_t)J, par, sz, PyArray_DATA((PyArrayObject *)world),
                       shell, PyArray_DATA((PyArrayObject *)reach),
                       PyArray_DATA((PyArrayObject *)scale));
    return Py_BuildValue("(NN)", reach, scale);
}
