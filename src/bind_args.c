/* bind_args.c -- what every reader of a call's arguments needs (bind_operands.c for the float
 * operands, bind_indices.c for the integer ones): an argument as an ndarray, and a descriptor's
 * input by name.  It calls no other binding file. */
#include "binding.h"

#include <string.h>

/* the index of the input called `name` in k's descriptor, or -1: code that needs one operand
 * of several kernels (the joint indices of every skinning kernel) finds it by name */
int input_named(const kernel_t *k, const char *name)
{
    for (int i = 0; i < k->nin; i++)
        if (!strcmp(k->op[i].name, name))
            return i;
    return -1;
}

PyObject *from_dlpack; /* numpy.from_dlpack, NULL on NumPy without it */

/* Any array-like as an ndarray without a copy where possible: ndarrays as they are, objects
 * with __dlpack__ (PyTorch, JAX, CuPy...) through numpy.from_dlpack, the rest (__array__,
 * the buffer protocol, sequences) through PyArray_FROM_O. */
PyArrayObject *as_array(PyObject *obj)
{
    if (!PyArray_Check(obj) && from_dlpack && PyObject_HasAttrString(obj, "__dlpack__")) {
        PyObject *a = PyObject_CallFunctionObjArgs(from_dlpack, obj, NULL);
        /* a BufferError says why the producer refuses (e.g. a tensor that requires grad); any
         * other failure (a dtype DLPack cannot carry to NumPy, such as bfloat16) falls back to
         * the generic conversion, whose result the caller checks like any other input */
        if (a || PyErr_ExceptionMatches(PyExc_BufferError))
            return (PyArrayObject *)a;
        PyErr_Clear();
    }
    return (PyArrayObject *)PyArray_FROM_O(obj);
}
