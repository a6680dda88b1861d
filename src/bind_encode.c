/* bind_encode.c -- compression's encoder (compress_encode.c) for skinkit.model.compress. */
#include "binding.h"

/* 0 when obj is a two-dimensional, native, aligned, C-contiguous array of type, else a
   TypeError naming it */
static int check_matrix(PyObject *obj, const char *name, int type)
{
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_Check(obj) && PyArray_TYPE(a) == type && PyArray_NDIM(a) == 2 &&
        PyArray_CHKFLAGS(a, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED) &&
        PyArray_ISNOTSWAPPED(a))
        return 0;
    PyArray_Descr *want = PyArray_DescrFromType(type);
    PyErr_Format(PyExc_TypeError, "quantize_codes: %s must be a two-dimensional, native, "
                 "aligned, C-contiguous %S array, got %R", name, (PyObject *)want, obj);
    Py_DECREF(want);
    return -1;
}

PyObject *py_quantize_codes(PyObject *self, PyObject *args)
{
    PyObject *unit, *widths;
    Py_ssize_t per;
    if (!PyArg_ParseTuple(args, "OOn:quantize_codes", &unit, &widths, &per) ||
        check_matrix(unit, "unit", NPY_DOUBLE) < 0 || check_matrix(widths, "widths", NPY_UINT8) < 0)
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
