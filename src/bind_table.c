/* bind_table.c -- every kernel of skinkit._core as one descriptor (binding.h).
 *
 * How to add a kernel
 * -------------------
 * 1. The C kernel: src/<concept>.c, Python-free, declared in skinkit.h, float and double from
 *    one source (real.h); inputs first, outputs last, an item stride per array.
 * 2. Its loop: a few lines in bind_loops.h (one line for an elementwise kernel) that pass the
 *    run's pointers and strides (operands numbered as in the descriptor) to the kernel.
 * 3. Its descriptor below: the operands in the API's order with gufunc-style shapes -- inputs
 *    (required, then OP_OPTIONAL), then outputs (OP_OUT; `if_given` for an output that exists
 *    only with an optional input; OP_REDUCE for an output summed over the inner symbol, such
 *    as a gradient w.r.t. the matrices of a pose).  "(...,J,4)" broadcasts leading batch
 *    dimensions; "(V,K)" without "..." is the same for the whole batch and is checked once per
 *    call.  Capital letters are sizes bound by the first operand that has them.  `inner` makes
 *    a symbol the innermost batch dimension (one item per vertex); `work` and `grain` say how
 *    much work an item is and how much a thread must get; `fail` words a kernel status.
 * 4. The Python function in python/skinkit/kernels.py (docstring with the same shapes: tests/
 *    test_binding_table.py compares them) and its line in python/skinkit/_core.pyi.
 * The binding then does the rest: argument parsing, dtype resolution, broadcasting, out= (an
 * array, or a tuple for several outputs), threads=, the GIL, messages naming the argument. */
#include "binding.h"

#include <stdio.h>

#define SK_DOUBLE 0
#include "bind_loops.h"
#undef SK_DOUBLE
#define SK_DOUBLE 1
#include "bind_loops.h"

#define LOOPS(name) {loop_##name##_f, loop_##name##_d}
#define OUTPUT(name, shape) {name, shape, OP_REAL, OP_OUT, 0}
#define GRAIN_ELEMENTS 32768 /* quaternions per thread (each thread: ~100 us of work or more) */
#define GRAIN_JOINTS 16384   /* joints (FK, matrices) per thread */
#define GRAIN_MATRICES 16384 /* 4x4 inverses per thread */
#define GRAIN_VERTICES 32768 /* skinned vertices per thread */

/* "matrices[2, 1] is singular": the batch index of the first singular matrix */
static void fail_singular(const call_t *c, int status)
{
    npy_intp flat = c->ctx.item + (npy_intp)c->ctx.bad, idx[NPY_MAXDIMS];
    char where[256] = "";
    size_t len = 0;
    (void)status;
    for (int d = c->bnd - 1; d >= 0; d--) {
        idx[d] = flat % c->bshape[d];
        flat /= c->bshape[d];
    }
    for (int d = 0; d < c->bnd && len < sizeof where; d++)
        len += (size_t)snprintf(where + len, sizeof where - len, "%s%" NPY_INTP_FMT "%s",
                                d ? ", " : "[", idx[d], d == c->bnd - 1 ? "]" : "");
    PyErr_Format(PyExc_ValueError, "%s%s is singular", c->name[0], where);
}

#define ELEMENTWISE(name, summary, ...) \
    {#name, summary, {__VA_ARGS__}, 0, 0, GRAIN_ELEMENTS, LOOPS(name), NULL}

kernel_t kernels[] = {
    ELEMENTWISE(quat_multiply, "Hamilton product a * b of quaternions (x, y, z, w).",
                {"a", "(...,4)"}, {"b", "(...,4)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(quat_conjugate, "Conjugate (-x, -y, -z, w).",
                {"q", "(...,4)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(quat_inverse, "Inverse conj(q) / |q|^2.",
                {"q", "(...,4)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(quat_normalize, "Unit quaternion q / |q| (identity for zero).",
                {"q", "(...,4)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(quat_rotate, "Rotated vectors q v q* for unit q.",
                {"q", "(...,4)"}, {"v", "(...,3)"}, OUTPUT("out", "(...,3)")),
    ELEMENTWISE(quat_to_matrix, "3x3 rotation matrix of a quaternion.",
                {"q", "(...,4)"}, OUTPUT("out", "(...,3,3)")),
    ELEMENTWISE(quat_from_matrix, "Unit quaternion (w >= 0) of a rotation matrix.",
                {"m", "(...,3,3)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(quat_from_rotvec, "Unit quaternion of a rotation vector (axis * angle).",
                {"rotvec", "(...,3)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(slerp, "Shortest-path spherical linear interpolation at t.",
                {"q0", "(...,4)"}, {"q1", "(...,4)"}, {"t", "(...)"}, OUTPUT("out", "(...,4)")),
    {"forward_kinematics", "World matrices parent . T(t) . R(q) . S(s) of every joint.",
     {{"parents", "(J)", OP_PARENTS},
      {"rotations", "(...,J,4)"},
      {"translations", "(...,J,3)"},
      {"scales", "(...,J,3)", OP_REAL, OP_OPTIONAL},
      OUTPUT("world", "(...,J,4,4)")},
     0, 'J', GRAIN_JOINTS, LOOPS(forward_kinematics), NULL},
    {"rigid_forward_kinematics", "Joint-centred rigid FK (libigl): rotations and translations.",
     {{"parents", "(J)", OP_PARENTS},
      {"rest_positions", "(...,J,3)"},
      {"rotations", "(...,J,4)"},
      OUTPUT("rotations", "(...,J,4)"),
      OUTPUT("translations", "(...,J,3)")},
     0, 'J', GRAIN_JOINTS, LOOPS(rigid_forward_kinematics), NULL},
    {"skinning_matrices", "Skinning matrices world_j . inverse_bind_j.",
     {{"world", "(...,J,4,4)"}, {"inverse_bind", "(...,J,4,4)"}, OUTPUT("out", "(...,J,4,4)")},
     0, 'J', GRAIN_JOINTS, LOOPS(skinning_matrices), NULL},
    {"matrix_inverse", "General inverse of 4x4 matrices.",
     {{"matrices", "(...,4,4)"}, OUTPUT("out", "(...,4,4)")},
     0, 0, GRAIN_MATRICES, LOOPS(matrix_inverse), fail_singular},
    {"linear_blend_skinning", "Linear blend skinning of positions (and normals).",
     {{"vertices", "(...,V,3)"},
      {"joints", "(V,K)", OP_JOINTS},
      {"weights", "(V,K)"},
      {"skinning_matrices", "(...,J,4,4)"},
      {"normals", "(...,V,3)", OP_REAL, OP_OPTIONAL},
      OUTPUT("positions", "(...,V,3)"),
      {"normals", "(...,V,3)", OP_REAL, OP_OUT, 5}},
     'V', 0, GRAIN_VERTICES, LOOPS(linear_blend_skinning), fail_joint_index},
};
const size_t n_kernels = sizeof kernels / sizeof kernels[0];
