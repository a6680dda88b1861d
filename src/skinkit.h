/*
 * skinkit.h -- the public header of the skinkit C kernel library (with skinkit_jobs.h,
 * the job structs it includes).
 *
 * C99, no Python.  Every kernel exists in a float (suffix _f) and a double
 * (suffix _d) version compiled from one source.  Conventions:
 *   - quaternions are (x, y, z, w), Hamilton product;
 *   - 4x4 and 3x3 matrices are row-major and act on column vectors (v' = M v);
 *   - a kernel processes n "items" (a pose, a quaternion, ...); every array
 *     argument is followed by its item stride in elements (0 broadcasts one
 *     item to all n), the data inside one item is contiguous; the wide kernels
 *     take one job struct (skinkit_jobs.h) whose fields say the same;
 *   - kernels never allocate and never abort: they return SK_OK (0) or a
 *     negative status; *bad (when given) receives the offending index.
 */
#ifndef SKINKIT_H
#define SKINKIT_H

/* The release, the one place it is written: the Python package (skinkit.__version__, read from
   the extension) and its wheel's metadata (pyproject.toml's version regex) take it from here. */
#define SKINKIT_VERSION "0.1.0"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define SK_RESTRICT
#else
#define SK_RESTRICT restrict
#endif

enum sk_status {
    SK_OK = 0,
    SK_ERR_PARENT_RANGE = -1,  /* parents[bad] is < -1 or >= J             */
    SK_ERR_PARENT_SELF = -2,   /* parents[bad] == bad                        */
    SK_ERR_PARENT_CYCLE = -3,  /* joint bad lies on a cycle                  */
    SK_ERR_JOINT_INDEX = -4,   /* influence bad (flat v*K+k) is < -1 or >= J */
    SK_ERR_SINGULAR = -5,      /* matrix of item bad is singular             */
    /* sk_check_clip: channel bad of an sk_clip table has ... */
    SK_ERR_CLIP_KEYS = -6,     /* no keys, or keys outside key_times         */
    SK_ERR_CLIP_NCOMP = -7,    /* ncomp < 1, or not 4 for a rotation         */
    SK_ERR_CLIP_INTERP = -8,   /* an interp that is no sk_interpolation      */
    SK_ERR_CLIP_VALUES = -9,   /* values outside the values array            */
    SK_ERR_CLIP_OUTPUT = -10,  /* an output range outside the output array   */
    SK_ERR_CHAIN_LENGTH = -11  /* an IK chain longer than SK_IK_MAX_CHAIN    */
};

/* joint index types accepted by linear blend skinning */
enum sk_index_type { SK_U8 = 1, SK_U16 = 2, SK_I32 = 4 };

/* reals per joint record of dual quaternion skinning (sk_skinning_dual_quaternions) */
#define SK_DQ_RECORD 32

/* joints of one CCD or FABRIK chain at most, and iterations (ik_chain.c) */
#define SK_IK_MAX_CHAIN 64
#define SK_IK_MAX_ITERATIONS 1000000

/* glTF 2.0 animation sampler interpolations */
enum sk_interpolation { SK_STEP = 0, SK_LINEAR = 1, SK_CUBICSPLINE = 2 };

/* One track of a compressed clip (sk_cclip, skinkit_jobs.h), fifteen int64 fields: its
   components go to output out (0 translations, 1 rotations, 2 scales, 3 morph weights) at
   out_offset of a time's row; level 0 constant (float32), 1 constant and 2 every row (each
   component the top 24 bits of a float32), 3..23 quantized (at most that many bits a
   component), 255 raw; nstored components a row (3 for a constant or quantized STEP or LINEAR
   rotation, whose component dropped is implied, >= 0; ncomp otherwise); rows are nkeys
   (3 nkeys for CUBICSPLINE); a quantized track's rows come in segments of seg_rows (the last
   one shorter), segment s with its own ranges (ranges[range + 2 nstored s ...]: nstored
   minima, then nstored extents), widths (component c widths[width + nstored s + c] bits, 0:
   its minimum) and first bit (seg_bits[segment + s], from data). */
typedef struct {
    int64_t out, out_offset, interp, level, dropped, ncomp, nstored, rotation;
    int64_t key_offset, nkeys, data, range, width, seg_rows, segment;
} sk_ctrack;
#define SK_CTRACK_FIELDS 15
#define SK_CLEVEL_RAW 255
#define SK_CLEVEL_CONST24 1 /* a constant, each component the top 24 bits of a float32 */
#define SK_CLEVEL_KEYS24 2  /* every row so */

/* The job structs of the wide kernels (skinning, pose blending, the VJPs of skinning and FK)
   and the clip table, for float (sk_skin_job_f, ...) and double (sk_skin_job_d, ...): one
   template, included twice. */
#define SK_REAL float
#define SK_TYPE(name) name##_f
#include "skinkit_jobs.h"
#undef SK_REAL
#undef SK_TYPE
#define SK_REAL double
#define SK_TYPE(name) name##_d
#include "skinkit_jobs.h"
#undef SK_REAL
#undef SK_TYPE

/* --- quaternions (quat.c): out may not alias inputs --- */
void sk_quat_multiply_f(size_t n, const float *a, ptrdiff_t sa, const float *b, ptrdiff_t sb,
                        float *SK_RESTRICT out, ptrdiff_t so);
void sk_quat_multiply_d(size_t n, const double *a, ptrdiff_t sa, const double *b, ptrdiff_t sb,
                        double *SK_RESTRICT out, ptrdiff_t so);
void sk_quat_conjugate_f(size_t n, const float *q, ptrdiff_t sq, float *SK_RESTRICT out,
                         ptrdiff_t so);
void sk_quat_conjugate_d(size_t n, const double *q, ptrdiff_t sq, double *SK_RESTRICT out,
                         ptrdiff_t so);
/* q* / |q|^2; a zero quaternion gives non-finite values */
void sk_quat_inverse_f(size_t n, const float *q, ptrdiff_t sq, float *SK_RESTRICT out,
                       ptrdiff_t so);
void sk_quat_inverse_d(size_t n, const double *q, ptrdiff_t sq, double *SK_RESTRICT out,
                       ptrdiff_t so);
/* q / |q|; a zero quaternion gives the identity (0, 0, 0, 1) */
void sk_quat_normalize_f(size_t n, const float *q, ptrdiff_t sq, float *SK_RESTRICT out,
                         ptrdiff_t so);
void sk_quat_normalize_d(size_t n, const double *q, ptrdiff_t sq, double *SK_RESTRICT out,
                         ptrdiff_t so);
/* v' = q v q* for a unit q (3-vectors) */
void sk_quat_rotate_f(size_t n, const float *q, ptrdiff_t sq, const float *v, ptrdiff_t sv,
                      float *SK_RESTRICT out, ptrdiff_t so);
void sk_quat_rotate_d(size_t n, const double *q, ptrdiff_t sq, const double *v, ptrdiff_t sv,
                      double *SK_RESTRICT out, ptrdiff_t so);
/* unit q -> 3x3 rotation matrix (row-major) */
void sk_quat_to_matrix_f(size_t n, const float *q, ptrdiff_t sq, float *SK_RESTRICT out,
                         ptrdiff_t so);
void sk_quat_to_matrix_d(size_t n, const double *q, ptrdiff_t sq, double *SK_RESTRICT out,
                         ptrdiff_t so);
/* 3x3 rotation matrix -> unit q with w >= 0 (Shepperd's method) */
void sk_quat_from_matrix_f(size_t n, const float *m, ptrdiff_t sm, float *SK_RESTRICT out,
                           ptrdiff_t so);
void sk_quat_from_matrix_d(size_t n, const double *m, ptrdiff_t sm, double *SK_RESTRICT out,
                           ptrdiff_t so);
/* rotation vector (axis * angle in radians) -> unit q */
void sk_quat_from_rotvec_f(size_t n, const float *r, ptrdiff_t sr, float *SK_RESTRICT out,
                           ptrdiff_t so);
void sk_quat_from_rotvec_d(size_t n, const double *r, ptrdiff_t sr, double *SK_RESTRICT out,
                           ptrdiff_t so);
/* shortest-path slerp of unit q0, q1 at parameter t (scalar per item) */
void sk_slerp_f(size_t n, const float *q0, ptrdiff_t s0, const float *q1, ptrdiff_t s1,
                const float *t, ptrdiff_t st, float *SK_RESTRICT out, ptrdiff_t so);
void sk_slerp_d(size_t n, const double *q0, ptrdiff_t s0, const double *q1, ptrdiff_t s1,
                const double *t, ptrdiff_t st, double *SK_RESTRICT out, ptrdiff_t so);

/* --- matrices (mat.c) --- */
/* out_j = a_j b_j for J 4x4 matrices per item */
void sk_matmul4_f(size_t n, size_t J, const float *a, ptrdiff_t sa, const float *b,
                  ptrdiff_t sb, float *SK_RESTRICT out, ptrdiff_t so);
void sk_matmul4_d(size_t n, size_t J, const double *a, ptrdiff_t sa, const double *b,
                  ptrdiff_t sb, double *SK_RESTRICT out, ptrdiff_t so);
/* general 4x4 inverse of n matrices; SK_ERR_SINGULAR with *bad = item */
int sk_invert4_f(size_t n, const float *m, ptrdiff_t sm, float *SK_RESTRICT out, ptrdiff_t so,
                 size_t *bad);
int sk_invert4_d(size_t n, const double *m, ptrdiff_t sm, double *SK_RESTRICT out,
                 ptrdiff_t so, size_t *bad);

/* --- forward kinematics (fk.c); order from sk_topological_order --- */
/* world_i = world_parent(i) . T(t_i) . R(q_i) . S(s_i); scale may be NULL */
void sk_forward_kinematics_f(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                             const float *rot, ptrdiff_t sr, const float *trans, ptrdiff_t st,
                             const float *scale, ptrdiff_t ss, float *SK_RESTRICT world,
                             ptrdiff_t sw);
void sk_forward_kinematics_d(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                             const double *rot, ptrdiff_t sr, const double *trans, ptrdiff_t st,
                             const double *scale, ptrdiff_t ss, double *SK_RESTRICT world,
                             ptrdiff_t sw);
/* libigl forward_kinematics: Q_i = Q_p q_i, t_i = t_p + Q_p x_i - Q_i x_i */
void sk_rigid_forward_kinematics_f(size_t n, size_t J, const int32_t *parents,
                                   const int32_t *order, const float *rest, ptrdiff_t sx,
                                   const float *rot, ptrdiff_t sr, float *SK_RESTRICT out_rot,
                                   ptrdiff_t sor, float *SK_RESTRICT out_trans, ptrdiff_t sot);
void sk_rigid_forward_kinematics_d(size_t n, size_t J, const int32_t *parents,
                                   const int32_t *order, const double *rest, ptrdiff_t sx,
                                   const double *rot, ptrdiff_t sr, double *SK_RESTRICT out_rot,
                                   ptrdiff_t sor, double *SK_RESTRICT out_trans, ptrdiff_t sot);

/* --- skinning (lbs.c, dqs.c): a job each (skinkit_jobs.h) --- */
/* Linear blend skinning, v' = sum_k w_k M_{j_k} v; normals by the cofactor matrix,
   renormalized.  SK_OK or SK_ERR_JOINT_INDEX (see sk_skin_job's bad). */
int sk_linear_blend_skinning_f(const sk_skin_job_f *job);
int sk_linear_blend_skinning_d(const sk_skin_job_d *job);
/* n 4x4 skinning matrices -> n records of SK_DQ_RECORD reals: the rotation's unit quaternion,
   its dual part and the scale/shear terms (layout in dqs.c) */
void sk_skinning_dual_quaternions_f(size_t n, const float *m, ptrdiff_t sm,
                                    float *SK_RESTRICT out, ptrdiff_t so);
void sk_skinning_dual_quaternions_d(size_t n, const double *m, ptrdiff_t sm,
                                    double *SK_RESTRICT out, ptrdiff_t so);
/* Dual quaternion skinning: as sk_linear_blend_skinning, job->transforms holding the J records
   of each vertex's pose (sk_skinning_dual_quaternions) in place of its J matrices. */
int sk_dual_quaternion_skinning_f(const sk_skin_job_f *job);
int sk_dual_quaternion_skinning_d(const sk_skin_job_d *job);

/* --- vector-Jacobian products (quat_vjp.c, fk_vjp.c, lbs_vjp.c, dqs_vjp.c) ---
   Each takes the forward kernel's inputs and the cotangent g of its result and returns the
   cotangents of the inputs (quaternions as free 4-vectors, differentiating the polynomial the
   forward kernel evaluates). */
/* g (3x3 per item) of sk_quat_to_matrix -> out (4) */
void sk_quat_to_matrix_vjp_f(size_t n, const float *q, ptrdiff_t sq, const float *g,
                             ptrdiff_t sg, float *SK_RESTRICT out, ptrdiff_t so);
void sk_quat_to_matrix_vjp_d(size_t n, const double *q, ptrdiff_t sq, const double *g,
                             ptrdiff_t sg, double *SK_RESTRICT out, ptrdiff_t so);
/* g (4 per item) of sk_quat_from_rotvec -> out (3) */
void sk_quat_from_rotvec_vjp_f(size_t n, const float *r, ptrdiff_t sr, const float *g,
                               ptrdiff_t sg, float *SK_RESTRICT out, ptrdiff_t so);
void sk_quat_from_rotvec_vjp_d(size_t n, const double *r, ptrdiff_t sr, const double *g,
                               ptrdiff_t sg, double *SK_RESTRICT out, ptrdiff_t so);
/* rigid FK (sk_rigid_fk_vjp_job): the cotangents of the world rotations and translations ->
   those of the rest positions and local rotations (the world rotations are rebuilt from the
   chain: O(J depth) products) */
void sk_rigid_forward_kinematics_vjp_f(const sk_rigid_fk_vjp_job_f *job);
void sk_rigid_forward_kinematics_vjp_d(const sk_rigid_fk_vjp_job_d *job);
/* FK with scale (sk_fk_vjp_job): world and its cotangent g of sk_forward_kinematics -> the
   cotangents of the rotations, translations and (unless NULL) scales */
void sk_forward_kinematics_vjp_f(const sk_fk_vjp_job_f *job);
void sk_forward_kinematics_vjp_d(const sk_fk_vjp_job_d *job);
/* LBS positions (sk_skin_vjp_job): SK_OK or SK_ERR_JOINT_INDEX with *bad = i * K + k for
   vertex i, slot k */
int sk_linear_blend_skinning_vjp_f(const sk_skin_vjp_job_f *job);
int sk_linear_blend_skinning_vjp_d(const sk_skin_vjp_job_d *job);
/* DQS positions (dqs_vjp.c; sk_skin_vjp_job with joint records, their cotangents summed into
   g_mats, and g_weights): SK_OK or SK_ERR_JOINT_INDEX as sk_linear_blend_skinning_vjp */
int sk_dual_quaternion_skinning_vjp_f(const sk_skin_vjp_job_f *job);
int sk_dual_quaternion_skinning_vjp_d(const sk_skin_vjp_job_d *job);
/* DQS joint records (dqs_vjp.c): n 4x4 skinning matrices m and the cotangents g (SK_DQ_RECORD
   per item) of their records -> out (4x4 per item) */
void sk_skinning_dual_quaternions_vjp_f(size_t n, const float *m, ptrdiff_t sm, const float *g,
                                        ptrdiff_t sg, float *SK_RESTRICT out, ptrdiff_t so);
void sk_skinning_dual_quaternions_vjp_d(size_t n, const double *m, ptrdiff_t sm,
                                        const double *g, ptrdiff_t sg,
                                        double *SK_RESTRICT out, ptrdiff_t so);
/* LBS weights (lbs_weights_vjp.c; sk_skin_vjp_job, its weights, g_verts and g_mats not
   used): g -> g_weights, the cotangent of each slot's weight, g . M_j [v; 1] (0 for joint
   -1); per pose, the caller sums.  SK_ERR_JOINT_INDEX as sk_linear_blend_skinning_vjp. */
int sk_linear_blend_skinning_weights_vjp_f(const sk_skin_vjp_job_f *job);
int sk_linear_blend_skinning_weights_vjp_d(const sk_skin_vjp_job_d *job);

/* --- pose blending (blend.c): a job each (skinkit_jobs.h) --- */
/* n poses of L layers x J joints (sk_blend_job) -> J blended joints: weighted means of
   translations and scales, normalized weighted sum of rotations, each in the hemisphere of the
   joint's first contributing layer; layers of weight <= 0 are skipped; where the total is below
   threshold the rest pose (rest_rot NULL for none) adds weight threshold - total
   (ozz-animation BlendingJob).  A joint with total 0 (and no rest) gets the identity
   transform. */
void sk_blend_poses_f(const sk_blend_job_f *job);
void sk_blend_poses_d(const sk_blend_job_d *job);

/* --- the object-space error of compression (shell_error.c) --- */
/* n poses (sk_shell_fk_job): for each joint of the mask, world = its parent's world (read
   from world where the parent is not in the mask) . T R S, and its error: the largest distance
   between the images of its vertices at shell on its x, y and z axes under world and under
   reference (ACL's qvvf_transform_error_metric) */
void sk_shell_error_fk_f(const sk_shell_fk_job_f *job);
void sk_shell_error_fk_d(const sk_shell_fk_job_d *job);
/* sk_shell_error_fk of the job's poses in the order of its poses index, stopping after the
   first group with an error above its limit (*above set then; the exact check of compress,
   which fails at the first pose above the precision): the poses computed, poses[0..done-1] */
size_t sk_shell_check_f(const sk_shell_fk_job_f *job, int *above);
size_t sk_shell_check_d(const sk_shell_fk_job_d *job, int *above);
/* n poses of J joints in depth-first preorder (parents[j] < j; size[j]: joint j's subtree,
   joints j .. j + size[j] - 1), world n by J by 4 by 4: reach (n by J), the largest over the
   joints i of j's subtree of |position_i - position_j| + shell * (i's largest world axis
   scale), and parent_scale (n by J), the parent's largest world axis scale (1 for a root): the
   lever arms of compress's bounds */
void sk_subtree_reach_f(size_t n, size_t J, const int32_t *parents, const int64_t *size,
                        const float *world, float shell, float *SK_RESTRICT reach,
                        float *SK_RESTRICT parent_scale);
void sk_subtree_reach_d(size_t n, size_t J, const int32_t *parents, const int64_t *size,
                        const double *world, double shell, double *SK_RESTRICT reach,
                        double *SK_RESTRICT parent_scale);
/* n joints (sk_pose_delta_job): (|r_ref|^-1 r_ref)^-1 r, t - t_ref, s / s_ref */
void sk_pose_delta_f(const sk_pose_delta_job_f *job);
void sk_pose_delta_d(const sk_pose_delta_job_d *job);
/* n joints (sk_additive_job): r slerp(identity, dr, w), t + w dt, s (1 + w (ds - 1)) */
void sk_additive_pose_f(const sk_additive_job_f *job);
void sk_additive_pose_d(const sk_additive_job_d *job);

/* --- inverse kinematics (ik.c, ik_chain.c), as ozz-animation's IKTwoBoneJob and IKAimJob:
   model-space 4x4 joint matrices in, local-space corrections out (the joint's new local
   rotation is local * correction) --- */
/* per item: start, mid, end (16 each), target, pole, mid_axis (3; mid_axis in the mid joint's
   frame, normalized here), weight, soften, twist (1) -> start and mid corrections (4) and
   reached (1: 1 or 0) */
void sk_ik_two_bone_f(size_t n, const float *start, ptrdiff_t s0, const float *mid,
                      ptrdiff_t s1, const float *end, ptrdiff_t s2, const float *target,
                      ptrdiff_t s3, const float *pole, ptrdiff_t s4, const float *mid_axis,
                      ptrdiff_t s5, const float *weight, ptrdiff_t s6, const float *soften,
                      ptrdiff_t s7, const float *twist, ptrdiff_t s8,
                      float *SK_RESTRICT out_start, ptrdiff_t s9, float *SK_RESTRICT out_mid,
                      ptrdiff_t s10, float *SK_RESTRICT reached, ptrdiff_t s11);
void sk_ik_two_bone_d(size_t n, const double *start, ptrdiff_t s0, const double *mid,
                      ptrdiff_t s1, const double *end, ptrdiff_t s2, const double *target,
                      ptrdiff_t s3, const double *pole, ptrdiff_t s4, const double *mid_axis,
                      ptrdiff_t s5, const double *weight, ptrdiff_t s6, const double *soften,
                      ptrdiff_t s7, const double *twist, ptrdiff_t s8,
                      double *SK_RESTRICT out_start, ptrdiff_t s9, double *SK_RESTRICT out_mid,
                      ptrdiff_t s10, double *SK_RESTRICT reached, ptrdiff_t s11);
/* per item: joint (16), target, forward, up, offset (joint frame), pole (3), twist, weight (1)
   -> correction (4), reached (1) */
void sk_ik_aim_f(size_t n, const float *joint, ptrdiff_t s0, const float *target, ptrdiff_t s1,
                 const float *forward, ptrdiff_t s2, const float *up, ptrdiff_t s3,
                 const float *offset, ptrdiff_t s4, const float *pole, ptrdiff_t s5,
                 const float *twist, ptrdiff_t s6, const float *weight, ptrdiff_t s7,
                 float *SK_RESTRICT out, ptrdiff_t s8, float *SK_RESTRICT reached, ptrdiff_t s9);
void sk_ik_aim_d(size_t n, const double *joint, ptrdiff_t s0, const double *target,
                 ptrdiff_t s1, const double *forward, ptrdiff_t s2, const double *up,
                 ptrdiff_t s3, const double *offset, ptrdiff_t s4, const double *pole,
                 ptrdiff_t s5, const double *twist, ptrdiff_t s6, const double *weight,
                 ptrdiff_t s7, double *SK_RESTRICT out, ptrdiff_t s8,
                 double *SK_RESTRICT reached, ptrdiff_t s9);
/* chains of L <= SK_IK_MAX_CHAIN joints (else SK_ERR_CHAIN_LENGTH), per item: base (16: world
   matrix of the first joint's parent), local translations (L*3), rotations (L*4), target (3),
   limits, iterations, tolerance (1, world units) -> local rotations (L*4).  CCD (three.js
   CCDIKSolver): XYZ Euler limits rot_min, rot_max (L*3, +-inf for none); FABRIK: max_angle (L)
   between a bone and the previous one (the first: its given direction) */
int sk_ik_ccd_f(size_t n, size_t L, const float *base, ptrdiff_t s0, const float *trans,
                ptrdiff_t s1, const float *rot, ptrdiff_t s2, const float *target, ptrdiff_t s3,
                const float *rot_min, ptrdiff_t s4, const float *rot_max, ptrdiff_t s5,
                const float *iterations, ptrdiff_t s6, const float *tolerance, ptrdiff_t s7,
                float *SK_RESTRICT out, ptrdiff_t s8);
int sk_ik_ccd_d(size_t n, size_t L, const double *base, ptrdiff_t s0, const double *trans,
                ptrdiff_t s1, const double *rot, ptrdiff_t s2, const double *target,
                ptrdiff_t s3, const double *rot_min, ptrdiff_t s4, const double *rot_max,
                ptrdiff_t s5, const double *iterations, ptrdiff_t s6, const double *tolerance,
                ptrdiff_t s7, double *SK_RESTRICT out, ptrdiff_t s8);
int sk_ik_fabrik_f(size_t n, size_t L, const float *base, ptrdiff_t s0, const float *trans,
                   ptrdiff_t s1, const float *rot, ptrdiff_t s2, const float *target,
                   ptrdiff_t s3, const float *max_angle, ptrdiff_t s4, const float *iterations,
                   ptrdiff_t s5, const float *tolerance, ptrdiff_t s6, float *SK_RESTRICT out,
                   ptrdiff_t s7);
int sk_ik_fabrik_d(size_t n, size_t L, const double *base, ptrdiff_t s0, const double *trans,
                   ptrdiff_t s1, const double *rot, ptrdiff_t s2, const double *target,
                   ptrdiff_t s3, const double *max_angle, ptrdiff_t s4,
                   const double *iterations, ptrdiff_t s5, const double *tolerance,
                   ptrdiff_t s6, double *SK_RESTRICT out, ptrdiff_t s7);

/* --- retargeting (retarget.c): per item (a frame), J target joints: the source joints' world
   rotations gathered per target joint (J*4), the offsets C_j = R_s^-1 R_t (J*4), mapped (J: 0 =
   unmapped), rest local rotations (J*4) -> local and world rotations of the target (J*4
   each) */
void sk_retarget_rotations_f(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                             const float *source_world, ptrdiff_t s0, const float *offset,
                             ptrdiff_t s1, const float *mapped, ptrdiff_t s2, const float *rest,
                             ptrdiff_t s3, float *SK_RESTRICT local, ptrdiff_t s4,
                             float *SK_RESTRICT world, ptrdiff_t s5);
void sk_retarget_rotations_d(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                             const double *source_world, ptrdiff_t s0, const double *offset,
                             ptrdiff_t s1, const double *mapped, ptrdiff_t s2,
                             const double *rest, ptrdiff_t s3, double *SK_RESTRICT local,
                             ptrdiff_t s4, double *SK_RESTRICT world, ptrdiff_t s5);

/* --- clip sampling (sample.c): the table is sk_clip (skinkit_jobs.h) --- */
/* SK_OK, or SK_ERR_CLIP_* with *bad = the first bad channel */
int sk_check_clip_f(const sk_clip_f *clip, size_t *bad);
int sk_check_clip_d(const sk_clip_d *clip, size_t *bad);
/* SK_OK, or SK_ERR_CLIP_OUTPUT with *bad = the first channel whose ntimes results (below) do not
   fit in an output array of nout values */
int sk_check_clip_output_f(const sk_clip_f *clip, const int64_t *out_offset,
                           const int64_t *out_stride, size_t ntimes, size_t nout, size_t *bad);
int sk_check_clip_output_d(const sk_clip_d *clip, const int64_t *out_offset,
                           const int64_t *out_stride, size_t ntimes, size_t nout, size_t *bad);
/* The entries of a checked clip's prepared buffer (at least nvalues), which sk_prepare_clip
   fills: prepared[value_offset[c] + 4 k ..] the slerp constants of every key k but the last of
   every LINEAR rotation channel c (the others are left as they are), then the keys of the
   clip's lane groups side by side (sample.c); set clip->prepared to it before sampling. */
size_t sk_prepared_size_f(const sk_clip_f *clip);
size_t sk_prepared_size_d(const sk_clip_d *clip);
void sk_prepare_clip_f(const sk_clip_f *clip, float *SK_RESTRICT prepared);
void sk_prepare_clip_d(const sk_clip_d *clip, double *SK_RESTRICT prepared);
/* Samples channels c0 <= c < c1 of a checked clip at times i0 <= i < i1: the ncomp[c] values
   of channel c at time i go to out[out_offset[c] + i * out_stride[c]].  Key search is amortised
   O(1) for sorted times, binary otherwise.  A sample's bits do not depend on the ranges. */
void sk_sample_clip_f(const sk_clip_f *clip, size_t c0, size_t c1, const int64_t *out_offset,
                      const int64_t *out_stride, size_t i0, size_t i1, const float *times,
                      float *SK_RESTRICT out);
void sk_sample_clip_d(const sk_clip_d *clip, size_t c0, size_t c1, const int64_t *out_offset,
                      const int64_t *out_stride, size_t i0, size_t i1, const double *times,
                      double *SK_RESTRICT out);
/* One time a call (a playback loop, ozz-animation's SamplingJob with its Context): channels
   c0 <= c < c1 of a checked, prepared clip planned once, for their outputs at out_offset, into
   items, each a lane group or one channel, which keep their key interval from one call to the
   next.  sk_play_plan writes the items (none with items NULL) and returns their number, at most
   c1 - c0; sk_play_sample samples them at one time, the bits of sk_sample_clip at that time, and
   updates their intervals (the items of a plan are sampled by one thread at a time). */
typedef struct {
    size_t first, n, at; /* a lane group: channels [first, first + n), keys at prepared + at;
                            or channel first alone (n = 1) */
    size_t lo, hi;       /* the channels sampled: [lo, hi) */
    size_t key;          /* the key interval of the last time, where the next search starts */
    int64_t lane_offset[8]; /* a lane group's lane l: out_offset of its channel, -1 if not
                               sampled */
    int packed;          /* a lane group's 8 lanes all sampled, their outputs side by side */
} sk_play_item;
size_t sk_play_plan_f(const sk_clip_f *clip, size_t c0, size_t c1, const int64_t *out_offset,
                      sk_play_item *items);
size_t sk_play_plan_d(const sk_clip_d *clip, size_t c0, size_t c1, const int64_t *out_offset,
                      sk_play_item *items);
void sk_play_sample_f(const sk_clip_f *clip, sk_play_item *items, size_t nitems,
                      const int64_t *out_offset, const int64_t *out_stride, float time,
                      float *SK_RESTRICT out);
void sk_play_sample_d(const sk_clip_d *clip, sk_play_item *items, size_t nitems,
                      const int64_t *out_offset, const int64_t *out_stride, double time,
                      double *SK_RESTRICT out);
/* --- compressed clips (compress_decode.c): the table is sk_cclip (skinkit_jobs.h) --- */
/* SK_OK, or SK_ERR_CLIP_* with *bad = the first bad track: KEYS (no keys, or outside
   key_times), NCOMP (ncomp or nstored wrong for its path, dropped > 3), INTERP (interp or level
   unknown), VALUES (payload or range outside bytes or ranges), OUTPUT (its ntimes results do not
   fit in outputs of nout[out] values, a time's row out_stride[out] long) */
int sk_check_cclip_f(const sk_cclip_f *clip, const int64_t *out_stride, const size_t *nout,
                     size_t ntimes, size_t *bad);
int sk_check_cclip_d(const sk_cclip_d *clip, const int64_t *out_stride, const size_t *nout,
                     size_t ntimes, size_t *bad);
/* The OUTPUT part of sk_check_cclip alone (SK_OK or SK_ERR_CLIP_OUTPUT), for a clip whose table
   sk_check_cclip has passed with ntimes 0: a call per output, a loop over the tracks only */
int sk_check_cclip_output_f(const sk_cclip_f *clip, const int64_t *out_stride,
                            const size_t *nout, size_t ntimes, size_t *bad);
int sk_check_cclip_output_d(const sk_cclip_d *clip, const int64_t *out_stride,
                            const size_t *nout, size_t ntimes, size_t *bad);
/* Decodes tracks t0 <= t < t1 of a checked compressed clip at times i0 <= i < i1, straight from
   the codes, and interpolates them as the source clip did (glTF 2.0 Appendix C: STEP, LINEAR
   with a shortest-path slerp, CUBICSPLINE normalized for rotations): track t's components at
   time i go to out[tracks[t].out] + i * out_stride[out] + out_offset.  cursor (t1 - t0 key
   indices, or NULL) holds each track's key interval from the last time to the next one (a
   playback context); a sample's bits depend neither on it nor on the ranges.  Tracks whose
   values overlap in an output (which CompressedClip refuses) leave one of them there, not
   necessarily the last one's. */
void sk_decode_cclip_f(const sk_cclip_f *clip, size_t t0, size_t t1, size_t i0, size_t i1,
                       const float *times, int64_t *cursor, const int64_t *out_stride,
                       float *const *out);
void sk_decode_cclip_d(const sk_cclip_d *clip, size_t t0, size_t t1, size_t i0, size_t i1,
                       const double *times, int64_t *cursor, const int64_t *out_stride,
                       double *const *out);
/* The values of a checked compressed clip's constant tracks of at most 4 components (track t's
   at out + 4 t, as sk_decode_cclip decodes them; 0 for the other tracks) into out (4 ntracks
   values), for sk_cclip.prepared: done once, it spares each decode call their decoding */
void sk_cclip_prepare_f(const sk_cclip_f *clip, float *out);
void sk_cclip_prepare_d(const sk_cclip_d *clip, double *out);
/* A playback state of a checked compressed clip (every track): sk_cclip_state_size bytes (8-byte
   aligned), made by sk_cclip_state_init; sk_play_cclip decodes every track at one time as
   sk_decode_cclip does (the same bits), each lane group keeping its keys, their slerp constants
   and its segments from call to call.  The clip's arrays must not change while a state of it is
   in use. */
size_t sk_cclip_state_size_f(const sk_cclip_f *clip);
size_t sk_cclip_state_size_d(const sk_cclip_d *clip);
void sk_cclip_state_init_f(const sk_cclip_f *clip, void *state);
void sk_cclip_state_init_d(const sk_cclip_d *clip, void *state);
void sk_play_cclip_f(const sk_cclip_f *clip, void *state, float time, const int64_t *out_stride,
                     float *const *out);
void sk_play_cclip_d(const sk_cclip_d *clip, void *state, double time,
                     const int64_t *out_stride, double *const *out);

/* --- compression's encoder (compress_encode.c) --- */
/* Bytes of the packed codes of rows x ncomp values in segments of per rows, component c of
   segment s widths[s * ncomp + c] (<= 32) bits long. */
size_t sk_code_bytes(size_t rows, size_t ncomp, const uint8_t *widths, size_t per);
/* Quantizes unit (rows x ncomp fractions of their segment's range, row-major) to
   min(max(rint(u (2^w - 1)), 0), 2^w - 1) at each component's width w (0: not stored) and packs
   the codes segment after segment, row after row, least significant bit first, with no padding
   between segments, into out (sk_code_bytes bytes). */
void sk_quantize_codes(size_t rows, size_t ncomp, const double *unit, const uint8_t *widths,
                       size_t per, uint8_t *SK_RESTRICT out);

/* The keys of `tracks` STEP or LINEAR rotation tracks (values: keys x 4 each) as the encoder
   stores them (skinkit.model.compress): each key made unit (over max(|q|, 1e-300), |q| summed
   in component order), the component the track leaves out (dropped: the one whose smallest
   magnitude over its keys is largest, the first of equal; restoring it is well conditioned),
   each key's sign chosen to make that component >= 0 (q and -q are one rotation), src (keys x
   4, that component's magnitude) and stored (keys x 3, the other three).  A NaN propagates as
   NumPy's minimum and argmax propagate it. */
void sk_unit_rotations(size_t tracks, size_t keys, const double *values,
                       double *SK_RESTRICT src, double *SK_RESTRICT stored,
                       int64_t *SK_RESTRICT dropped);

/* The layout of `tracks` quantized tracks of one shape at `rates` bit rates (skinkit.model.
   compress, _Quantizer): each track's rows x ncomp values, in segments of per rows (the last:
   what is left), with each segment's range (ranges: segments x 2 x ncomp, minima then extents)
   and the track's extent over the clip (extent: ncomp); unit (rows x ncomp): each value's
   fraction of its segment's range, (v - minimum) / extent (an extent of 0: v - minimum);
   widths (rates x segments x ncomp): the bits of each component in each segment at rate k,
   rate[k] less floor(log2(widest / the segment's extent)) (widest: the track's largest
   extent), at least 1 and at most rate[k], 0 where the segment's or the clip's extent is 0;
   bits (rates x (segments + 1)): the first bit of each segment's codes, and the bits of all.
   Each track's arrays follow one another. */
typedef struct {
    size_t tracks, rates, rows, segments, ncomp, per;
    const uint8_t *rate;
    const double *values, *ranges, *extent;
    double *unit;
    uint8_t *widths;
    int64_t *bits;
} sk_rate_layout_job;
void sk_rate_layout(const sk_rate_layout_job *job);

/* The bounds of the error each of `tracks` tracks causes alone at each of the levels RAW,
   CONSTANT, CONSTANT24, KEYS24 and DEFAULT (skinkit.model.compress's LEVELS[:5]):
   bound[m * SK_TRACK_LEVELS + l], the largest over t < times of lever[t * tracks + m] times
   the error of src (times x tracks x full, full = ncomp + (dropped != NULL)) against the
   level's value: its keys (keys: tracks x times x ncomp), its two constants (constants:
   tracks x 2 x ncomp), its keys with each float32's top 24 bits (rounded to nearest: the
   decoder's 24-bit floats), each with component dropped[m] restored as sqrt(max(1 - the
   others' squares, 0)) where dropped is not NULL, and the rest pose (rest: tracks x full);
   the error with `rotation` the chord |a - b| to the nearer of b and -b (quaternions), else
   the largest |a_c - b_c|; a NaN error makes the bound NaN. */
#define SK_TRACK_LEVELS 5
typedef struct {
    size_t times, tracks, ncomp;
    const int32_t *dropped;
    int rotation;
    const double *src, *keys, *constants, *rest, *lever;
    double *bound;
} sk_track_bounds_job;
void sk_track_bounds(const sk_track_bounds_job *job);

/* The bounds of the error each of `tracks` quantized tracks of one layout causes alone at each
   of `rates` bit rates, its keys decoded from their fractions in float64 (skinkit.model.compress,
   _Quantizer.bounds): the keys are rows row0, row0 + step, ... (`keys` of them) of a track's
   unit (`rows` x ncomp fractions of their segment's range, segments of per rows); its rate k's
   widths widths[(k * segments + s) * ncomp + c]; its segment s's minima ranges[s * 2 ncomp + c]
   and extents ranges[(s * 2 + 1) ncomp + c]; a key's value lo + min(max(rint(u (2^w - 1)) /
   (2^w - 1), 0), 1) extent (w = 0: lo), with component dropped[track] (>= 0 for every track
   or for none) restored as sqrt(1 - the others' squares); bound[track * rates + k] the largest
   lever[track * keys + i] times the error of src row i of the track (keys x (ncomp + (dropped
   >= 0))) against key i (the chord to the nearer of it and its negative with `rotation`, else
   the largest component difference; NaN kept), for the rates want gives (NULL: all; 0 for the
   others).  Each track's arrays follow one another. */
typedef struct {
    size_t tracks, rates, rows, segments, ncomp, per, keys, row0, step;
    int rotation;
    const int32_t *dropped;
    const double *unit, *ranges, *src, *lever;
    const uint8_t *widths, *want;
    double *bound;
} sk_rate_bounds_job;
void sk_rate_bounds(const sk_rate_bounds_job *job);

/* An output of at least this many bytes is written with streaming stores (sk_sample_clip, and
   the callers of sk_fill_rows): stores that do not read a line first, for outputs too large
   to be read from the caches next (sample.c gives the measurement). */
#define SK_STREAM_BYTES ((size_t)4 << 20)

/* out[i * len + k] = row[k] for i < nrows, k < len (the rest pose under a clip's samples),
   with streaming stores if `stream` (a part of an output of SK_STREAM_BYTES or more, as the
   samples above it are written) */
void sk_fill_rows_f(size_t nrows, const float *row, size_t len, float *SK_RESTRICT out,
                    int stream);
void sk_fill_rows_d(size_t nrows, const double *row, size_t len, double *SK_RESTRICT out,
                    int stream);

/* SIMD: float32 skinning uses an AVX-512 or an AVX2/FMA variant on x86-64 CPUs that have it.
   sk_simd() tells which code runs (an sk_simd_level); sk_set_simd(level) caps it: the best
   variant not above `level` that the build and the CPU have (SK_SIMD_BASELINE forces the
   portable code, SK_SIMD_AVX512 restores the default), and returns the level now in use.  Call
   it before kernels run on other threads. */
enum sk_simd_level { SK_SIMD_BASELINE = 0, SK_SIMD_AVX2 = 1, SK_SIMD_AVX512 = 2 };
int sk_simd(void);
int sk_set_simd(int max_level);

/* Topological order of a joint forest: order[] lists every joint after its
   parent.  Returns SK_OK, or SK_ERR_PARENT_* with *bad = the joint. */
int sk_topological_order(size_t J, const int32_t *parents, int32_t *SK_RESTRICT order,
                         int32_t *SK_RESTRICT scratch, size_t *bad);

#ifdef __cplusplus
}
#endif
#endif /* SKINKIT_H */
