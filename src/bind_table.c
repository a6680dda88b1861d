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
 *    as a gradient w.r.t. the matrices of a pose; OP_READ for one the loop reads where out=
 *    gives it, zeroed otherwise).  "(...,J,4)" broadcasts leading batch
 *    dimensions; "(V,K)" without "..." is the same for the whole batch and is checked once per
 *    call.  Capital letters are sizes bound by the first operand that has them.  `inner` makes
 *    a symbol the innermost batch dimension (one item per vertex); `work` and `grain` say how
 *    much work an item is and how much a thread must get; `fail` words a kernel status;
 *    `scratch` gives each thread's loop a workspace of that many reals per unit of work.
 * 4. Its docstring's prose in tools/kernel_docs.py, then `python tools/generate_surface.py`:
 *    it writes the Python wrapper (python/skinkit/kernels/_generated*.py), the stub in
 *    _core.pyi, the torch operator of a kernel it names in TORCH_KERNELS (with its VJPs, fake,
 *    vmap rule and public function: python/skinkit/torch/_generated.py) and the operand enums
 *    of bind_loops.h; `--check` (tests/test_binding_table.py) fails when one is stale.
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
#define STR_(x) #x
#define STR(x) STR_(x) /* a size from skinkit.h in a shape string */
#define OUTPUT(name, shape) {name, shape, OP_REAL, OP_OUT, 0}
/* The grain: a call uses another thread only when each thread gets at least this much work,
 * sized so that a thread's share takes longer than waking a sleeping pool worker (~25 us on a
 * 2-vCPU VM; a spinning one takes the call at once: bind_run.c), so that two threads are not
 * slower than one even for a call made after the pool went to sleep.  Measured on one thread,
 * float32, AVX-512: 32768 quat_multiply ~110 us (the cheapest), 32768 vertices of
 * 4-influence LBS ~80 us, 8192 FK joints (24 or 64 a pose) ~40 us, 16384 inverses ~500 us;
 * GRAIN_SAMPLES channel samples of clip sampling (bind_clip.c) ~25 us (float32 LINEAR).
 * Docs and docstrings refer here instead of restating the figure. */
#define GRAIN_ELEMENTS 32768 /* quaternions per thread */
#define GRAIN_JOINTS 8192    /* joints (FK, matrices) per thread */
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

/* a CCD or FABRIK chain longer than the solvers' stack arrays */
static void fail_chain_length(const call_t *c, int status)
{
    (void)status;
    PyErr_Format(PyExc_ValueError, "an IK chain has at most %d joints, got %" NPY_INTP_FMT,
                 SK_IK_MAX_CHAIN, c->sym[SYM('L')]);
}

#define ELEMENTWISE(name, summary, ...) \
    {#name, summary, {__VA_ARGS__}, 0, 0, GRAIN_ELEMENTS, LOOPS(name), NULL}
#define ELEMENTWISE_AS(pyname, name, summary, ...) \
    {pyname, summary, {__VA_ARGS__}, 0, 0, GRAIN_ELEMENTS, LOOPS(name), NULL}

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
    /* vector-Jacobian products (body models): the cotangents of a forward kernel's inputs */
    ELEMENTWISE(quat_to_matrix_vjp, "Cotangent of q from the cotangent g of quat_to_matrix.",
                {"q", "(...,4)"}, {"g", "(...,3,3)"}, OUTPUT("out", "(...,4)")),
    ELEMENTWISE(quat_from_rotvec_vjp, "Cotangent of rotvec from the cotangent g of "
                "quat_from_rotvec.",
                {"rotvec", "(...,3)"}, {"g", "(...,4)"}, OUTPUT("out", "(...,3)")),
    {"rigid_forward_kinematics_vjp", "Cotangents of rest_positions and rotations from those "
     "of rigid_forward_kinematics's results.",
     {{"parents", "(J)", OP_PARENTS},
      {"rest_positions", "(...,J,3)"},
      {"rotations", "(...,J,4)"},
      {"g_rotations", "(...,J,4)"},
      {"g_translations", "(...,J,3)"},
      OUTPUT("g_rest_positions", "(...,J,3)"),
      OUTPUT("g_rotations", "(...,J,4)")},
     0, 'J', GRAIN_JOINTS, LOOPS(rigid_forward_kinematics_vjp), NULL},
    /* public as skinkit.gradients.forward_kinematics_vjp, whose scales come before world */
    {"_forward_kinematics_vjp", "Cotangents of rotations, translations and scales from the "
     "cotangent g of forward_kinematics's world.",
     {{"parents", "(J)", OP_PARENTS},
      {"rotations", "(...,J,4)"},
      {"translations", "(...,J,3)"},
      {"world", "(...,J,4,4)"},
      {"g", "(...,J,4,4)"},
      {"scales", "(...,J,3)", OP_REAL, OP_OPTIONAL},
      OUTPUT("g_rotations", "(...,J,4)"),
      OUTPUT("g_translations", "(...,J,3)"),
      {"g_scales", "(...,J,3)", OP_REAL, OP_OUT, 6}},
     0, 'J', GRAIN_JOINTS, LOOPS(forward_kinematics_vjp), NULL, 24},
    {"linear_blend_skinning_vjp", "Cotangents of vertices and skinning_matrices from the "
     "cotangent g of the skinned positions.",
     {{"vertices", "(...,V,3)"},
      {"joints", "(V,K)", OP_JOINTS},
      {"weights", "(V,K)"},
      {"skinning_matrices", "(...,J,4,4)"},
      {"g", "(...,V,3)"},
      OUTPUT("g_vertices", "(...,V,3)"),
      {"g_skinning_matrices", "(...,J,4,4)", OP_REAL, OP_OUT | OP_REDUCE, 0}},
     'V', 0, GRAIN_VERTICES, LOOPS(linear_blend_skinning_vjp), fail_joint_index},
    {"linear_blend_skinning_weights_vjp", "Cotangent of the weights from the cotangent g of the "
     "skinned positions, per pose.",
     {{"vertices", "(...,V,3)"},
      {"joints", "(V,K)", OP_JOINTS},
      {"weights", "(V,K)"},
      {"skinning_matrices", "(...,J,4,4)"},
      {"g", "(...,V,3)"},
      OUTPUT("g_weights", "(...,V,K)")},
     'V', 0, GRAIN_VERTICES, LOOPS(linear_blend_skinning_weights_vjp), fail_joint_index},
    /* internal steps (names with _): the Python functions take other arguments (tuples; the
     * skinning matrices, turned into records first) */
    ELEMENTWISE_AS("_skinning_dual_quaternions", skinning_dual_quaternions,
                   "Joint records of dual quaternion skinning (dqs.c).",
                   {"skinning_matrices", "(...,4,4)"},
                   OUTPUT("out", "(...," STR(SK_DQ_RECORD) ")")),
    {"_dual_quaternion_skinning", "Dual quaternion skinning of positions (and normals).",
     {{"vertices", "(...,V,3)"},
      {"joints", "(V,K)", OP_JOINTS},
      {"weights", "(V,K)"},
      {"dual_quaternions", "(...,J," STR(SK_DQ_RECORD) ")"},
      {"normals", "(...,V,3)", OP_REAL, OP_OPTIONAL},
      OUTPUT("positions", "(...,V,3)"),
      {"normals", "(...,V,3)", OP_REAL, OP_OUT, 5}},
     'V', 0, GRAIN_VERTICES, LOOPS(dual_quaternion_skinning), fail_joint_index},
    {"_dual_quaternion_skinning_vjp", "Cotangents of vertices, weights (per pose) and joint "
     "records from the cotangent g of the positions of dual quaternion skinning (dqs_vjp.c).",
     {{"vertices", "(...,V,3)"},
      {"joints", "(V,K)", OP_JOINTS},
      {"weights", "(V,K)"},
      {"dual_quaternions", "(...,J," STR(SK_DQ_RECORD) ")"},
      {"g", "(...,V,3)"},
      OUTPUT("g_vertices", "(...,V,3)"),
      OUTPUT("g_weights", "(...,V,K)"),
      {"g_dual_quaternions", "(...,J," STR(SK_DQ_RECORD) ")", OP_REAL, OP_OUT | OP_REDUCE, 0}},
     'V', 0, GRAIN_VERTICES, LOOPS(dual_quaternion_skinning_vjp), fail_joint_index},
    ELEMENTWISE_AS("_skinning_dual_quaternions_vjp", skinning_dual_quaternions_vjp,
                   "Cotangents of skinning matrices from those of their joint records "
                   "(dqs_vjp.c).",
                   {"skinning_matrices", "(...,4,4)"}, {"g", "(...," STR(SK_DQ_RECORD) ")"},
                   OUTPUT("out", "(...,4,4)")),
    {"_blend_poses", "Weighted blend of L layers of poses (ozz-animation BlendingJob).",
     {{"rotations", "(...,L,J,4)"},
      {"translations", "(...,L,J,3)"},
      {"scales", "(...,L,J,3)"},
      {"weights", "(...,L,J)"},
      {"threshold", "(...)"},
      {"rest_rotations", "(...,J,4)", OP_REAL, OP_OPTIONAL},
      {"rest_translations", "(...,J,3)", OP_REAL, OP_OPTIONAL},
      {"rest_scales", "(...,J,3)", OP_REAL, OP_OPTIONAL},
      OUTPUT("rotations", "(...,J,4)"),
      OUTPUT("translations", "(...,J,3)"),
      OUTPUT("scales", "(...,J,3)")},
     0, 'J', GRAIN_JOINTS, LOOPS(blend_poses), NULL},
    ELEMENTWISE_AS("_pose_delta", pose_delta,
                   "Difference of two poses: r_ref^-1 r, t - t_ref, s / s_ref.",
                   {"reference_rotations", "(...,4)"}, {"reference_translations", "(...,3)"},
                   {"reference_scales", "(...,3)"}, {"rotations", "(...,4)"},
                   {"translations", "(...,3)"}, {"scales", "(...,3)"},
                   OUTPUT("rotations", "(...,4)"), OUTPUT("translations", "(...,3)"),
                   OUTPUT("scales", "(...,3)")),
    ELEMENTWISE_AS("_additive_pose", additive_pose,
                   "Additive layer: r slerp(1, dr, w), t + w dt, s (1 + w (ds - 1)).",
                   {"rotations", "(...,4)"}, {"translations", "(...,3)"}, {"scales", "(...,3)"},
                   {"delta_rotations", "(...,4)"}, {"delta_translations", "(...,3)"},
                   {"delta_scales", "(...,3)"}, {"weight", "(...)"},
                   OUTPUT("rotations", "(...,4)"), OUTPUT("translations", "(...,3)"),
                   OUTPUT("scales", "(...,3)")),
    /* inverse kinematics and retargeting (ik.c, ik_chain.c, retarget.c; python/skinkit/ik.py,
     * retarget.py give the defaults) */
    {"_ik_two_bone", "Two-bone IK corrections (ozz-animation IKTwoBoneJob).",
     {{"start", "(...,4,4)"}, {"mid", "(...,4,4)"}, {"end", "(...,4,4)"}, {"target", "(...,3)"},
      {"pole_vector", "(...,3)"}, {"mid_axis", "(...,3)"}, {"weight", "(...)"},
      {"soften", "(...)"}, {"twist_angle", "(...)"},
      OUTPUT("start_correction", "(...,4)"), OUTPUT("mid_correction", "(...,4)"),
      OUTPUT("reached", "(...)")},
     0, 0, GRAIN_MATRICES, LOOPS(ik_two_bone), NULL},
    {"_ik_aim", "Aim IK correction (ozz-animation IKAimJob).",
     {{"joint", "(...,4,4)"}, {"target", "(...,3)"}, {"forward", "(...,3)"}, {"up", "(...,3)"},
      {"offset", "(...,3)"}, {"pole_vector", "(...,3)"}, {"twist_angle", "(...)"},
      {"weight", "(...)"}, OUTPUT("correction", "(...,4)"), OUTPUT("reached", "(...)")},
     0, 0, GRAIN_MATRICES, LOOPS(ik_aim), NULL},
    {"_ik_ccd", "CCD chain IK (three.js CCDIKSolver).",
     {{"base", "(...,4,4)"}, {"translations", "(...,L,3)"}, {"rotations", "(...,L,4)"},
      {"target", "(...,3)"}, {"rotation_min", "(...,L,3)"}, {"rotation_max", "(...,L,3)"},
      {"iterations", "(...)"}, {"tolerance", "(...)"}, OUTPUT("rotations", "(...,L,4)")},
     0, 'L', GRAIN_MATRICES, LOOPS(ik_ccd), fail_chain_length},
    {"_ik_fabrik", "FABRIK chain IK (Aristidou and Lasenby 2011).",
     {{"base", "(...,4,4)"}, {"translations", "(...,L,3)"}, {"rotations", "(...,L,4)"},
      {"target", "(...,3)"}, {"max_angle", "(...,L)"}, {"iterations", "(...)"},
      {"tolerance", "(...)"}, OUTPUT("rotations", "(...,L,4)")},
     0, 'L', GRAIN_MATRICES, LOOPS(ik_fabrik), fail_chain_length},
    {"_retarget_rotations", "Target local and world rotations from gathered source world "
     "rotations (retarget.c).",
     {{"parents", "(J)", OP_PARENTS}, {"source_world", "(...,J,4)"}, {"offsets", "(J,4)"},
      {"mapped", "(J)"}, {"rest_rotations", "(J,4)"},
      OUTPUT("rotations", "(...,J,4)"), OUTPUT("world_rotations", "(...,J,4)")},
     0, 'J', GRAIN_JOINTS, LOOPS(retarget_rotations), NULL},
    /* compression (shell_error.c; python/skinkit/model/compress.py) */
    {"_shell_error_fk", "World matrices of the joints of a mask (the others read from out=, "
     "zero without it) and each one's shell error against reference (ACL's object-space "
     "metric).",
     {{"parents", "(J)", OP_PARENTS},
      {"rotations", "(...,J,4)"},
      {"translations", "(...,J,3)"},
      {"scales", "(...,J,3)"},
      {"reference", "(...,J,4,4)"},
      {"shell", "(...)"},
      {"mask", "(J)"},
      {"world", "(...,J,4,4)", OP_REAL, OP_OUT | OP_READ, 0},
      OUTPUT("error", "(...,J)")},
     0, 'J', GRAIN_JOINTS, LOOPS(shell_error_fk), NULL},
};
const size_t n_kernels = sizeof kernels / sizeof kernels[0];
