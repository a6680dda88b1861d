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

/* the arrays of an exact check (shell_check, shell_refine), checked */
typedef struct {
    npy_intp T, J;
    const int32_t *parents, *order;
    double *rot, *trans, *scale, *world, *errors;
    const double *reference, *shells;
    int64_t *poses;                   /* T: the rows in the order they are checked */
} check_ctx;

/* 0 and c filled from the arrays (their shapes, dtypes, layouts, the parents and the order
   checked; c->poses allocated: free it), or -1 with an exception */
static int check_arrays(PyObject *const a[9], check_ctx *c)
{
    npy_intp any[1] = {-1};
    if (check_nd(a[2], "rot", NPY_DOUBLE, 3, (npy_intp[]){-1, -1, 4}, 1) < 0)
        return -1;
    npy_intp T = PyArray_DIM((PyArrayObject *)a[2], 0), J = PyArray_DIM((PyArrayObject *)a[2], 1);
    if (check_nd(a[0], "parents", NPY_INT32, 1, (npy_intp[]){J}, 0) < 0 ||
        check_nd(a[1], "order", NPY_INT32, 1, any, 0) < 0 ||
        check_nd(a[3], "trans", NPY_DOUBLE, 3, (npy_intp[]){T, J, 3}, 1) < 0 ||
        check_nd(a[4], "scale", NPY_DOUBLE, 3, (npy_intp[]){T, J, 3}, 1) < 0 ||
        check_nd(a[5], "reference", NPY_DOUBLE, 4, (npy_intp[]){T, J, 4, 4}, 0) < 0 ||
        check_nd(a[6], "shells", NPY_DOUBLE, 1, (npy_intp[]){T}, 0) < 0 ||
        check_nd(a[7], "world", NPY_DOUBLE, 4, (npy_intp[]){T, J, 4, 4}, 1) < 0 ||
        check_nd(a[8], "errors", NPY_DOUBLE, 2, (npy_intp[]){T, J}, 1) < 0)
        return -1;
    const int32_t *par = PyArray_DATA((PyArrayObject *)a[0]);
    const int32_t *ord = PyArray_DATA((PyArrayObject *)a[1]);
    npy_intp nj = PyArray_DIM((PyArrayObject *)a[1], 0);
    for (npy_intp j = 0; j < J; j++)
        if (par[j] < -1 || par[j] >= J) {
            PyErr_Format(PyExc_ValueError, "shell_check: parents[%zd] is %d, want -1 to %zd",
                         (Py_ssize_t)j, (int)par[j], (Py_ssize_t)(J - 1));
            return -1;
        }
    for (npy_intp k = 0; k < nj; k++)
        if (ord[k] < 0 || ord[k] >= J) {
            PyErr_Format(PyExc_ValueError, "shell_check: order[%zd] is %d, want 0 to %zd",
                         (Py_ssize_t)k, (int)ord[k], (Py_ssize_t)(J - 1));
            return -1;
        }
    *c = (check_ctx){T, J, par, ord, PyArray_DATA((PyArrayObject *)a[2]),
                     PyArray_DATA((PyArrayObject *)a[3]), PyArray_DATA((PyArrayObject *)a[4]),
                     PyArray_DATA((PyArrayObject *)a[7]), PyArray_DATA((PyArrayObject *)a[8]),
                     PyArray_DATA((PyArrayObject *)a[5]), PyArray_DATA((PyArrayObject *)a[6]),
                     PyMem_Malloc((size_t)(T > 0 ? T : 1) * sizeof(int64_t))};
    if (!c->poses) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* the check of joints order[first .. end - 1] at count rows from start (-1: the row where they
   erred most when last checked), round; the start, the rows done, whether one was above */
static size_t run_check(const check_ctx *c, npy_intp first, npy_intp end, npy_intp *start,
                        npy_intp count, double limit, int *above)
{
    const int32_t *ord = c->order + first;
    npy_intp nj = end - first, J = c->J;
    if (*start < 0) {
        double top = -1;
        *start = 0;
        for (npy_intp i = 0; i < c->T; i++)
            for (npy_intp k = 0; k < nj; k++)
                if (c->errors[i * J + ord[k]] > top) {
                    top = c->errors[i * J + ord[k]];
                    *start = i;
                }
    }
    for (npy_intp i = 0; i < count; i++)
        c->poses[i] = (*start + i) % c->T;
    sk_shell_fk_job_d job = {
        .n = (size_t)count, .J = (size_t)nj, .parents = c->parents, .order = ord,
        .rot = c->rot, .rot_stride = 4 * J, .trans = c->trans, .trans_stride = 3 * J,
        .scale = c->scale, .scale_stride = 3 * J, .reference = c->reference,
        .reference_stride = 16 * J, .shell = c->shells, .shell_stride = 1, .world = c->world,
        .world_stride = 16 * J, .error = c->errors, .error_stride = J, .poses = c->poses,
        .limit = limit};
    return sk_shell_check_d(&job, above);
}

PyObject *py_shell_check(PyObject *self, PyObject *args)
{
    PyObject *a[9];
    Py_ssize_t start, count;
    double limit;
    check_ctx c;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOnnd:shell_check", &a[0], &a[1], &a[2], &a[3], &a[4],
                          &a[5], &a[6], &a[7], &a[8], &start, &count, &limit) ||
        check_arrays(a, &c) < 0)
        return NULL;
    if (start < -1 || start >= (c.T > 0 ? c.T : 1) || count < 0 || count > c.T) {
        PyErr_Format(PyExc_ValueError, "shell_check: want start -1 to %zd and count 0 to %zd, "
                     "got %zd and %zd", (Py_ssize_t)(c.T > 0 ? c.T - 1 : 0), (Py_ssize_t)c.T,
                     start, count);
        PyMem_Free(c.poses);
        return NULL;
    }
    npy_intp first = 0, end = PyArray_DIM((PyArrayObject *)a[1], 0), at = start;
    int above;
    size_t done = run_check(&c, first, end, &at, count, limit, &above);
    PyMem_Free(c.poses);
    return Py_BuildValue("(nnO)", (Py_ssize_t)at, (Py_ssize_t)done, above ? Py_True : Py_False);
}

/* the local values (T rows of n values, J n apart) of joint a: those of v, (T, n) or (n,) */
static void put_column(double *local, npy_intp T, npy_intp J, npy_intp n, npy_intp a,
                       const double *v, int rows)
{
    for (npy_intp i = 0; i < T; i++)
        for (npy_intp k = 0; k < n; k++)
            local[(i * J + a) * n + k] = v[(rows ? i * n : 0) + k];
}

PyObject *py_shell_refine(PyObject *self, PyObject *args)
{
    PyObject *a[9], *tries;
    double limit;
    check_ctx c;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOdO:shell_refine", &a[0], &a[1], &a[2], &a[3], &a[4],
                          &a[5], &a[6], &a[7], &a[8], &limit, &tries) ||
        check_arrays(a, &c) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(tries, "shell_refine: tries must be a sequence");
    if (!seq) {
        PyMem_Free(c.poses);
        return NULL;
    }
    npy_intp n = PySequence_Fast_GET_SIZE(seq), nj = PyArray_DIM((PyArrayObject *)a[1], 0);
    npy_intp t = 0;
    int passed = 0;
    for (; t < n; t++) {
        int k, last;
        Py_ssize_t first, end;
        PyObject *now, *kept;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, t), "innOOp:shell_refine's try",
                              &k, &first, &end, &now, &kept, &last))
            break;
        npy_intp width = k == 1 ? 4 : 3;
        int shaped = k >= 0 && k <= 2 && first >= 0 && first < end && end <= nj;
        PyObject *both[2] = {now, kept};
        int rows[2] = {0, 0};
        for (int m = 0; shaped && m < 2; m++) {
            PyArrayObject *v = (PyArrayObject *)both[m];
            shaped = PyArray_Check(both[m]) && PyArray_TYPE(v) == NPY_DOUBLE &&
                     PyArray_CHKFLAGS(v, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED) &&
                     PyArray_ISNOTSWAPPED(v) &&
                     ((PyArray_NDIM(v) == 1 && PyArray_DIM(v, 0) == width) ||
                      (PyArray_NDIM(v) == 2 && PyArray_DIM(v, 0) == c.T &&
                       PyArray_DIM(v, 1) == width));
            rows[m] = shaped && PyArray_NDIM(v) == 2;
        }
        if (!shaped) {
            PyErr_Format(PyExc_ValueError, "shell_refine: try %zd must be (path 0 to 2, first, "
                         "end of joints 0 to %zd, values and kept values: float64 (%zd, %zd) "
                         "or (%zd,), last)", (Py_ssize_t)t, (Py_ssize_t)nj, (Py_ssize_t)c.T,
                         (Py_ssize_t)width, (Py_ssize_t)width);
            break;
        }
        double *local = k == 0 ? c.trans : k == 1 ? c.rot : c.scale;
        npy_intp start = -1;
        int above;
        put_column(local, c.T, c.J, width, c.order[first], PyArray_DATA((PyArrayObject *)now),
                   rows[0]);
        size_t done = run_check(&c, first, end, &start, c.T, limit, &above);
        if (above) {    /* the kept values back, and the rows it reached computed again */
            put_column(local, c.T, c.J, width, c.order[first],
                       PyArray_DATA((PyArrayObject *)kept), rows[1]);
            run_check(&c, first, end, &start, (npy_intp)done, 0.0, &above);
            above = 1;
        }
        if (!above || last) {
            passed = !above;
            break;
        }
    }
    Py_DECREF(seq);
    PyMem_Free(c.poses);
    if (PyErr_Occurred())
        return NULL;
    return Py_BuildValue("(nO)", (Py_ssize_t)t, passed ? Py_True : Py_False);
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
