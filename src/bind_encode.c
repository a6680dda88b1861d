/* bind_encode.c -- compression's encoder (compress_encode.c) for skinkit.model.compress. */
#include "binding.h"

/* 0 when obj is an ndim-dimensional, native, aligned, C-contiguous array of type, else a
   TypeError naming it (and the function, fn) */
static int check_encode_array(PyObject *obj, const char *fn, const char *name, int type, int ndim)
{
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_Check(obj) && PyArray_TYPE(a) == type && PyArray_NDIM(a) == ndim &&
        PyArray_CHKFLAGS(a, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED) &&
        PyArray_ISNOTSWAPPED(a))
        return 0;
    PyArray_Descr *want = PyArray_DescrFromType(type);
    PyErr_Format(PyExc_TypeError, "%s: %s must be a %d-dimensional, native, aligned, "
                 "C-contiguous %S array, got %R", fn, name, ndim, (PyObject *)want, obj);
    Py_DECREF(want);
    return -1;
}

PyObject *py_quantize_codes(PyObject *self, PyObject *args)
{
    PyObject *unit, *widths;
    Py_ssize_t per;
    if (!PyArg_ParseTuple(args, "OOn:quantize_codes", &unit, &widths, &per) ||
        check_encode_array(unit, "quantize_codes", "unit", NPY_DOUBLE, 2) < 0 ||
        check_encode_array(widths, "quantize_codes", "widths", NPY_UINT8, 2) < 0)
        return NULL;
    const npy_intp *ud = PyArray_DIMS((PyArrayObject *)unit);
    const npy_intp *wd = PyArray_DIMS((PyArrayObject *)widths);
    if (per < 1) {
        PyErr_Format(PyExc_ValueError, "quantize_codes: per must be >= 1, got %zd", per);
        return NULL;
    }
    size_t rows = (size_t)ud[0], ncomp = (size_t)ud[1], segs = (rows + (size_t)per - 1) / per;
    if ((size_t)wd[0] != segs || (size_t)wd[1] != ncomp) {
        PyErr_Format(PyExc_ValueError, "quantize_codes: widths must be (%zu, %zu) (a row per "
                     "segment of %zd rows, a column per component), got (%zd, %zd)", segs,
                     ncomp, per, (Py_ssize_t)wd[0], (Py_ssize_t)wd[1]);
        return NULL;
    }
    const uint8_t *w = PyArray_DATA((PyArrayObject *)widths);
    for (size_t k = 0; k < segs * ncomp; k++)
        if (w[k] > 32) {
            PyErr_Format(PyExc_ValueError, "quantize_codes: widths must be <= 32, got %d",
                         (int)w[k]);
            return NULL;
        }
    size_t n = sk_code_bytes(rows, ncomp, w, (size_t)per);
    PyObject *res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (res)
        sk_quantize_codes(rows, ncomp, PyArray_DATA((PyArrayObject *)unit), w, (size_t)per,
                          (uint8_t *)PyBytes_AS_STRING(res));
    return res;
}

PyObject *py_track_bounds(PyObject *self, PyObject *args)
{
    PyObject *src, *lossy, *lever;
    int rotation;
    if (!PyArg_ParseTuple(args, "OOOp:track_bounds", &src, &lossy, &lever, &rotation) ||
        check_encode_array(src, "track_bounds", "src", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(lossy, "track_bounds", "lossy", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(lever, "track_bounds", "lever", NPY_DOUBLE, 2) < 0)
        return NULL;
    const npy_intp *sd = PyArray_DIMS((PyArrayObject *)src);
    const npy_intp *ld = PyArray_DIMS((PyArrayObject *)lossy);
    const npy_intp *vd = PyArray_DIMS((PyArrayObject *)lever);
    if (ld[0] != sd[0] || ld[1] != sd[1] || ld[2] != sd[2] || vd[0] != sd[0] || vd[1] != sd[1]) {
        PyErr_Format(PyExc_ValueError, "track_bounds: lossy must be src's shape (%zd, %zd, %zd) "
                     "and lever (%zd, %zd), got lossy (%zd, %zd, %zd), lever (%zd, %zd)",
                     (Py_ssize_t)sd[0], (Py_ssize_t)sd[1], (Py_ssize_t)sd[2], (Py_ssize_t)sd[0],
                     (Py_ssize_t)sd[1], (Py_ssize_t)ld[0], (Py_ssize_t)ld[1], (Py_ssize_t)ld[2],
                     (Py_ssize_t)vd[0], (Py_ssize_t)vd[1]);
        return NULL;
    }
    npy_intp m = sd[1];
    PyObject *res = PyArray_SimpleNew(1, &m, NPY_DOUBLE);
    if (res)
        sk_track_bounds((size_t)sd[0], (size_t)sd[1], (size_t)sd[2], rotation,
                        PyArray_DATA((PyArrayObject *)src), PyArray_DATA((PyArrayObject *)lossy),
                        PyArray_DATA((PyArrayObject *)lever),
                        PyArray_DATA((PyArrayObject *)res));
    return res;
}

PyObject *py_rate_bounds(PyObject *self, PyObject *args)
{
    PyObject *unit, *widths, *ranges, *src, *lever;
    Py_ssize_t per, row0, step;
    int dropped, rotation;
    if (!PyArg_ParseTuple(args, "OOOnnnOOip:rate_bounds", &unit, &widths, &ranges, &per, &row0,
                          &step, &src, &lever, &dropped, &rotation) ||
        check_encode_array(unit, "rate_bounds", "unit", NPY_DOUBLE, 2) < 0 ||
        check_encode_array(widths, "rate_bounds", "widths", NPY_UINT8, 3) < 0 ||
        check_encode_array(ranges, "rate_bounds", "ranges", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(src, "rate_bounds", "src", NPY_DOUBLE, 2) < 0 ||
        check_encode_array(lever, "rate_bounds", "lever", NPY_DOUBLE, 1) < 0)
        return NULL;
    const npy_intp *ud = PyArray_DIMS((PyArrayObject *)unit);
    const npy_intp *wd = PyArray_DIMS((PyArrayObject *)widths);
    const npy_intp *rd = PyArray_DIMS((PyArrayObject *)ranges);
    const npy_intp *sd = PyArray_DIMS((PyArrayObject *)src);
    const npy_intp *ld = PyArray_DIMS((PyArrayObject *)lever);
    if (per < 1 || step < 1 || row0 < 0 || ud[1] < 1 || ud[1] > 4 || dropped < -1 ||
        dropped > ud[1]) {
        PyErr_Format(PyExc_ValueError, "rate_bounds: per and step must be >= 1, row0 >= 0, "
                     "unit 1 to 4 components and dropped -1 to their count, got per %zd, step "
                     "%zd, row0 %zd, %zd components, dropped %d", per, step, row0,
                     (Py_ssize_t)ud[1], dropped);
        return NULL;
    }
    size_t rows = (size_t)ud[0], c = (size_t)ud[1], segs = (rows + (size_t)per - 1) / per;
    size_t keys = rows > (size_t)row0 ? (rows - (size_t)row0 + (size_t)step - 1) / step : 0;
    size_t full = c + (dropped >= 0);
    if ((size_t)wd[1] != segs || (size_t)wd[2] != c || (size_t)rd[0] != segs || rd[1] != 2 ||
        (size_t)rd[2] != c || (size_t)sd[0] != keys || (size_t)sd[1] != full ||
        (size_t)ld[0] != keys) {
        PyErr_Format(PyExc_ValueError, "rate_bounds: want widths (rates, %zu, %zu), ranges "
                     "(%zu, 2, %zu), src (%zu, %zu), lever (%zu,)", segs, c, segs, c, keys, full,
                     keys);
        return NULL;
    }
    const uint8_t *w = PyArray_DATA((PyArrayObject *)widths);
    for (npy_intp k = 0; k < wd[0] * wd[1] * wd[2]; k++)
        if (w[k] > 32) {
            PyErr_Format(PyExc_ValueError, "rate_bounds: widths must be <= 32, got %d",
                         (int)w[k]);
            return NULL;
        }
    npy_intp n = wd[0];
    PyObject *res = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (!res)
        return NULL;
    sk_rate_bounds_job job = {(size_t)n, segs, c, (size_t)per, keys, (size_t)row0, (size_t)step,
                              dropped, rotation, PyArray_DATA((PyArrayObject *)unit),
                              PyArray_DATA((PyArrayObject *)ranges),
                              PyArray_DATA((PyArrayObject *)src),
                              PyArray_DATA((PyArrayObject *)lever), w,
                              PyArray_DATA((PyArrayObject *)res)};
    sk_rate_bounds(&job);
    return res;
}
