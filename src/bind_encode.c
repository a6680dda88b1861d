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

PyObject *py_unit_rotations(PyObject *self, PyObject *args)
{
    PyObject *values;
    if (!PyArg_ParseTuple(args, "O:unit_rotations", &values) ||
        check_encode_array(values, "unit_rotations", "values", NPY_DOUBLE, 3) < 0)
        return NULL;
    const npy_intp *vd = PyArray_DIMS((PyArrayObject *)values);
    if (vd[2] != 4) {
        PyErr_Format(PyExc_ValueError, "unit_rotations: want values (M, keys, 4), got (%zd, "
                     "%zd, %zd)", (Py_ssize_t)vd[0], (Py_ssize_t)vd[1], (Py_ssize_t)vd[2]);
        return NULL;
    }
    npy_intp sdims[3] = {vd[0], vd[1], 3};
    PyObject *src = PyArray_SimpleNew(3, (npy_intp *)vd, NPY_DOUBLE);
    PyObject *stored = src ? PyArray_SimpleNew(3, sdims, NPY_DOUBLE) : NULL;
    PyObject *dropped = stored ? PyArray_SimpleNew(1, (npy_intp *)vd, NPY_INT64) : NULL;
    if (!dropped) {
        Py_XDECREF(src);
        Py_XDECREF(stored);
        return NULL;
    }
    sk_unit_rotations((size_t)vd[0], (size_t)vd[1], PyArray_DATA((PyArrayObject *)values),
                      PyArray_DATA((PyArrayObject *)src), PyArray_DATA((PyArrayObject *)stored),
                      PyArray_DATA((PyArrayObject *)dropped));
    return Py_BuildValue("(NNN)", src, stored, dropped);
}

PyObject *py_rate_layout(PyObject *self, PyObject *args)
{
    PyObject *values, *ranges, *extent, *rates;
    Py_ssize_t per;
    if (!PyArg_ParseTuple(args, "OOOnO:rate_layout", &values, &ranges, &extent, &per, &rates) ||
        check_encode_array(values, "rate_layout", "values", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(ranges, "rate_layout", "ranges", NPY_DOUBLE, 4) < 0 ||
        check_encode_array(extent, "rate_layout", "extent", NPY_DOUBLE, 2) < 0 ||
        check_encode_array(rates, "rate_layout", "rates", NPY_UINT8, 1) < 0)
        return NULL;
    const npy_intp *vd = PyArray_DIMS((PyArrayObject *)values);
    const npy_intp *rd = PyArray_DIMS((PyArrayObject *)ranges);
    const npy_intp *ed = PyArray_DIMS((PyArrayObject *)extent);
    npy_intp R = PyArray_DIM((PyArrayObject *)rates, 0);
    const uint8_t *rate = PyArray_DATA((PyArrayObject *)rates);
    int ok = per >= 1 && vd[1] >= 1 && rd[0] == vd[0] && rd[1] == (vd[1] + per - 1) / per &&
             rd[2] == 2 && rd[3] == vd[2] && ed[0] == vd[0] && ed[1] == vd[2];
    for (npy_intp k = 0; ok && k < R; k++)
        ok = rate[k] >= 1 && rate[k] <= 32;
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "rate_layout: want values (M, rows >= 1, C), ranges (M, "
                     "ceil(rows / per), 2, C), extent (M, C), per >= 1 and rates 1 to 32; got "
                     "values (%zd, %zd, %zd), ranges (%zd, %zd, %zd, %zd), extent (%zd, %zd), "
                     "per %zd", (Py_ssize_t)vd[0], (Py_ssize_t)vd[1], (Py_ssize_t)vd[2],
                     (Py_ssize_t)rd[0], (Py_ssize_t)rd[1], (Py_ssize_t)rd[2], (Py_ssize_t)rd[3],
                     (Py_ssize_t)ed[0], (Py_ssize_t)ed[1], per);
        return NULL;
    }
    npy_intp S = rd[1];
    npy_intp wdims[4] = {vd[0], R, S, vd[2]}, bdims[3] = {vd[0], R, S + 1};
    PyObject *unit = PyArray_SimpleNew(3, (npy_intp *)vd, NPY_DOUBLE);
    PyObject *widths = unit ? PyArray_SimpleNew(4, wdims, NPY_UINT8) : NULL;
    PyObject *bits = widths ? PyArray_SimpleNew(3, bdims, NPY_INT64) : NULL;
    if (!bits) {
        Py_XDECREF(unit);
        Py_XDECREF(widths);
        return NULL;
    }
    sk_rate_layout_job job = {
        .tracks = (size_t)vd[0], .rates = (size_t)R, .rows = (size_t)vd[1],
        .segments = (size_t)S, .ncomp = (size_t)vd[2], .per = (size_t)per, .rate = rate,
        .values = PyArray_DATA((PyArrayObject *)values),
        .ranges = PyArray_DATA((PyArrayObject *)ranges),
        .extent = PyArray_DATA((PyArrayObject *)extent),
        .unit = PyArray_DATA((PyArrayObject *)unit),
        .widths = PyArray_DATA((PyArrayObject *)widths),
        .bits = PyArray_DATA((PyArrayObject *)bits)};
    sk_rate_layout(&job);
    return Py_BuildValue("(NNN)", unit, widths, bits);
}

PyObject *py_track_bounds(PyObject *self, PyObject *args)
{
    PyObject *src, *keys, *constants, *rest, *lever, *dropped;
    int rotation;
    if (!PyArg_ParseTuple(args, "OOOOOOp:track_bounds", &src, &keys, &constants, &rest, &lever,
                          &dropped, &rotation) ||
        check_encode_array(src, "track_bounds", "src", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(keys, "track_bounds", "keys", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(constants, "track_bounds", "constants", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(rest, "track_bounds", "rest", NPY_DOUBLE, 2) < 0 ||
        check_encode_array(lever, "track_bounds", "lever", NPY_DOUBLE, 2) < 0 ||
        (dropped != Py_None &&
         check_encode_array(dropped, "track_bounds", "dropped", NPY_INT32, 1) < 0))
        return NULL;
    const npy_intp *sd = PyArray_DIMS((PyArrayObject *)src);
    const npy_intp *kd = PyArray_DIMS((PyArrayObject *)keys);
    const npy_intp *cd = PyArray_DIMS((PyArrayObject *)constants);
    const npy_intp *rd = PyArray_DIMS((PyArrayObject *)rest);
    const npy_intp *ld = PyArray_DIMS((PyArrayObject *)lever);
    const int32_t *drop = dropped == Py_None ? NULL : PyArray_DATA((PyArrayObject *)dropped);
    npy_intp T = sd[0], M = sd[1], c = kd[2], full = c + (drop != NULL);
    int ok = kd[0] == M && kd[1] == T && c >= 1 && sd[2] == full && full <= 4 &&
             cd[0] == M && cd[1] == 2 && cd[2] == c && rd[0] == M && rd[1] == full &&
             ld[0] == T && ld[1] == M &&
             (!drop || PyArray_DIM((PyArrayObject *)dropped, 0) == M);
    for (npy_intp m = 0; ok && drop && m < M; m++)
        ok = drop[m] >= 0 && drop[m] < full;
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "track_bounds: want src (T, M, C), keys (M, T, C or C - "
                     "1 with dropped), constants (M, 2, as keys), rest (M, C), lever (T, M) and "
                     "dropped None or (M,), each 0 to C - 1, C <= 4; got src (%zd, %zd, %zd), "
                     "keys (%zd, %zd, %zd), constants (%zd, %zd, %zd), rest (%zd, %zd), lever "
                     "(%zd, %zd)", (Py_ssize_t)T, (Py_ssize_t)M, (Py_ssize_t)sd[2],
                     (Py_ssize_t)kd[0], (Py_ssize_t)kd[1], (Py_ssize_t)kd[2], (Py_ssize_t)cd[0],
                     (Py_ssize_t)cd[1], (Py_ssize_t)cd[2], (Py_ssize_t)rd[0], (Py_ssize_t)rd[1],
                     (Py_ssize_t)ld[0], (Py_ssize_t)ld[1]);
        return NULL;
    }
    npy_intp dims[2] = {M, SK_TRACK_LEVELS};
    PyObject *res = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (res) {
        sk_track_bounds_job job = {
            .times = (size_t)T, .tracks = (size_t)M, .ncomp = (size_t)c, .dropped = drop,
            .rotation = rotation, .src = PyArray_DATA((PyArrayObject *)src),
            .keys = PyArray_DATA((PyArrayObject *)keys),
            .constants = PyArray_DATA((PyArrayObject *)constants),
            .rest = PyArray_DATA((PyArrayObject *)rest),
            .lever = PyArray_DATA((PyArrayObject *)lever),
            .bound = PyArray_DATA((PyArrayObject *)res)};
        sk_track_bounds(&job);
    }
    return res;
}

PyObject *py_rate_bounds(PyObject *self, PyObject *args)
{
    PyObject *unit, *widths, *ranges, *src, *lever, *dropped, *want;
    Py_ssize_t per, row0, step;
    int rotation;
    if (!PyArg_ParseTuple(args, "OOOnnnOOOpO:rate_bounds", &unit, &widths, &ranges, &per, &row0,
                          &step, &src, &lever, &dropped, &rotation, &want) ||
        check_encode_array(unit, "rate_bounds", "unit", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(widths, "rate_bounds", "widths", NPY_UINT8, 4) < 0 ||
        check_encode_array(ranges, "rate_bounds", "ranges", NPY_DOUBLE, 4) < 0 ||
        check_encode_array(src, "rate_bounds", "src", NPY_DOUBLE, 3) < 0 ||
        check_encode_array(lever, "rate_bounds", "lever", NPY_DOUBLE, 2) < 0 ||
        check_encode_array(dropped, "rate_bounds", "dropped", NPY_INT32, 1) < 0 ||
        check_encode_array(want, "rate_bounds", "want", NPY_UINT8, 2) < 0)
        return NULL;
    const npy_intp *ud = PyArray_DIMS((PyArrayObject *)unit);
    const npy_intp *wd = PyArray_DIMS((PyArrayObject *)widths);
    const npy_intp *rd = PyArray_DIMS((PyArrayObject *)ranges);
    const npy_intp *sd = PyArray_DIMS((PyArrayObject *)src);
    const npy_intp *ld = PyArray_DIMS((PyArrayObject *)lever);
    const npy_intp *kd = PyArray_DIMS((PyArrayObject *)want);
    const int32_t *drop = PyArray_DATA((PyArrayObject *)dropped);
    npy_intp M = ud[0];
    int same = PyArray_DIM((PyArrayObject *)dropped, 0) == M, d0 = same && M > 0 ? drop[0] : -1;
    for (npy_intp m = 0; same && m < M; m++)
        same = (drop[m] >= 0) == (d0 >= 0) && drop[m] >= -1 && drop[m] <= ud[2];
    if (per < 1 || step < 1 || row0 < 0 || ud[2] < 1 || ud[2] > 4 || !same) {
        PyErr_Format(PyExc_ValueError, "rate_bounds: per and step must be >= 1, row0 >= 0, "
                     "unit 1 to 4 components, dropped (tracks,) -1 for every track or 0 to "
                     "the components for every track; got per %zd, step %zd, row0 %zd, %zd "
                     "components", per, step, row0, (Py_ssize_t)ud[2]);
        return NULL;
    }
    size_t rows = (size_t)ud[1], c = (size_t)ud[2], segs = (rows + (size_t)per - 1) / per;
    size_t keys = rows > (size_t)row0 ? (rows - (size_t)row0 + (size_t)step - 1) / step : 0;
    size_t full = c + (d0 >= 0);
    npy_intp R = wd[1];
    if (wd[0] != M || (size_t)wd[2] != segs || (size_t)wd[3] != c || rd[0] != M ||
        (size_t)rd[1] != segs || rd[2] != 2 || (size_t)rd[3] != c || sd[0] != M ||
        (size_t)sd[1] != keys || (size_t)sd[2] != full || ld[0] != M || (size_t)ld[1] != keys ||
        kd[0] != M || kd[1] != R) {
        PyErr_Format(PyExc_ValueError, "rate_bounds: want widths (%zd, rates, %zu, %zu), "
                     "ranges (%zd, %zu, 2, %zu), src (%zd, %zu, %zu), lever (%zd, %zu), want "
                     "(%zd, rates)", (Py_ssize_t)M, segs, c, (Py_ssize_t)M, segs, c,
                     (Py_ssize_t)M, keys, full, (Py_ssize_t)M, keys, (Py_ssize_t)M);
        return NULL;
    }
    const uint8_t *w = PyArray_DATA((PyArrayObject *)widths);
    for (npy_intp k = 0; k < wd[0] * wd[1] * wd[2] * wd[3]; k++)
        if (w[k] > 32) {
            PyErr_Format(PyExc_ValueError, "rate_bounds: widths must be <= 32, got %d",
                         (int)w[k]);
            return NULL;
        }
    npy_intp dims[2] = {M, R};
    PyObject *res = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!res)
        return NULL;
    sk_rate_bounds_job job = {(size_t)M, (size_t)R, rows, segs, c, (size_t)per, keys,
                              (size_t)row0, (size_t)step, rotation, drop,
                              PyArray_DATA((PyArrayObject *)unit),
                              PyArray_DATA((PyArrayObject *)ranges),
                              PyArray_DATA((PyArrayObject *)src),
                              PyArray_DATA((PyArrayObject *)lever), w,
                              PyArray_DATA((PyArrayObject *)want),
                              PyArray_DATA((PyArrayObject *)res)};
    sk_rate_bounds(&job);
    return res;
}
