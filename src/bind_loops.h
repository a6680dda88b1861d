/* bind_loops.h -- the loops of the kernel descriptors (bind_table.c), written once for float
 * and double: bind_table.c includes this file twice, with SK_DOUBLE 0 and 1 (see real.h).
 * A loop gets one run of n items: p[k] is operand k of the descriptor (inputs in the API's
 * order, then outputs; NULL when absent), s[k] its item stride in elements. */
#include "real.h"

#ifndef SK_BIND_OPERANDS
#define SK_BIND_OPERANDS
/* the operands of the job kernels, in their descriptors' order (bind_table.c) */
enum { SKIN_VERTS, SKIN_JOINTS, SKIN_WEIGHTS, SKIN_TRANSFORMS, SKIN_NORMALS, SKIN_POS, SKIN_NRM };
enum { VJP_VERTS, VJP_JOINTS, VJP_WEIGHTS, VJP_MATS, VJP_G, VJP_G_VERTS, VJP_G_MATS };
enum { DQS_VJP_G_WEIGHTS = VJP_G_VERTS + 1, DQS_VJP_G_RECORDS }; /* DQS: g_weights, then g_mats */
enum { WEIGHTS_VJP_G_WEIGHTS = VJP_G + 1 }; /* linear_blend_skinning_weights_vjp's output */
enum { FK_VJP_PARENTS, FK_VJP_ROT, FK_VJP_TRANS, FK_VJP_WORLD, FK_VJP_G, FK_VJP_SCALE,
       FK_VJP_G_ROT, FK_VJP_G_TRANS, FK_VJP_G_SCALE };
enum { RIGID_VJP_PARENTS, RIGID_VJP_REST, RIGID_VJP_ROT, RIGID_VJP_G_WORLD_ROT,
       RIGID_VJP_G_WORLD_TRANS, RIGID_VJP_G_REST, RIGID_VJP_G_ROT };
/* pose operands: rotations, translations, scales from the first (POSE below) */
enum { BLEND_LAYERS, BLEND_WEIGHTS = BLEND_LAYERS + 3, BLEND_THRESHOLD, BLEND_REST,
       BLEND_OUT = BLEND_REST + 3 };
enum { DELTA_REF, DELTA_POSE = DELTA_REF + 3, DELTA_OUT = DELTA_POSE + 3 };
enum { ADD_BASE, ADD_DELTA = ADD_BASE + 3, ADD_WEIGHT = ADD_DELTA + 3, ADD_OUT };
/* a job's array field and its stride from operand k of the run */
#define OPERAND(field, k) .field = (void *)p[k], .field##_stride = s[k]
/* an sk_pose (or sk_pose_out) from operands R, R + 1, R + 2: rotations, translations, scales */
#define POSE(R) {OPERAND(rot, R), OPERAND(trans, (R) + 1), OPERAND(scale, (R) + 2)}
#endif

#define IN(k) ((const T *)p[k])
#define OUT(k) ((T *)p[k])
#define SIZE(c, letter) ((size_t)(c)->sym[SYM(letter)])

/* elementwise: one item is one quaternion, vector or matrix */
#define ELEMENTWISE1(NAME)                                                              \
    static int FN(loop_##NAME)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)   \
    {                                                                                   \
        (void)c;                                                                        \
        FN(sk_##NAME)(n, IN(0), s[0], OUT(1), s[1]);                                    \
        return SK_OK;                                                                   \
    }
#define ELEMENTWISE2(NAME)                                                              \
    static int FN(loop_##NAME)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)   \
    {                                                                                   \
        (void)c;                                                                        \
        FN(sk_##NAME)(n, IN(0), s[0], IN(1), s[1], OUT(2), s[2]);                       \
        return SK_OK;                                                                   \
    }
ELEMENTWISE2(quat_multiply)
ELEMENTWISE1(quat_conjugate)
ELEMENTWISE1(quat_inverse)
ELEMENTWISE1(quat_normalize)
ELEMENTWISE2(quat_rotate)
ELEMENTWISE1(quat_to_matrix)
ELEMENTWISE1(quat_from_matrix)
ELEMENTWISE1(quat_from_rotvec)
ELEMENTWISE1(skinning_dual_quaternions)
ELEMENTWISE2(skinning_dual_quaternions_vjp)

static int FN(loop_slerp)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    (void)c;
    FN(sk_slerp)(n, IN(0), s[0], IN(1), s[1], IN(2), s[2], OUT(3), s[3]);
    return SK_OK;
}

/* one item is one pose of J joints; p[0] (parents) is read from c->parents, c->order */
static int FN(loop_forward_kinematics)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_forward_kinematics)(n, SIZE(c, 'J'), c->parents, c->order, IN(1), s[1], IN(2), s[2],
                              IN(3), s[3], OUT(4), s[4]);
    return SK_OK;
}

static int FN(loop_rigid_forward_kinematics)(size_t n, char **p, const ptrdiff_t *s,
                                             loop_ctx *c)
{
    FN(sk_rigid_forward_kinematics)(n, SIZE(c, 'J'), c->parents, c->order, IN(1), s[1], IN(2),
                                    s[2], OUT(3), s[3], OUT(4), s[4]);
    return SK_OK;
}

static int FN(loop_skinning_matrices)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_matmul4)(n, SIZE(c, 'J'), IN(0), s[0], IN(1), s[1], OUT(2), s[2]);
    return SK_OK;
}

/* one item is one 4x4 matrix; c->bad = the first singular one */
static int FN(loop_matrix_inverse)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    return FN(sk_invert4)(n, IN(0), s[0], OUT(1), s[1], &c->bad);
}

/* one item is one vertex (inner symbol V): its position, joints, weights, normal, the
 * skinning matrices (or joint records) of its pose (stride 0 within the pose) and its outputs.
 * The joint indices are the same for every pose: the kernel checks them on the first pose only
 * (item < V). */
static FN(sk_skin_job) FN(skin_job)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_skin_job) job = {n, SIZE(c, 'K'), SIZE(c, 'J'), OPERAND(verts, SKIN_VERTS),
                           OPERAND(joints, SKIN_JOINTS), .itype = c->itype,
                           OPERAND(weights, SKIN_WEIGHTS), OPERAND(transforms, SKIN_TRANSFORMS),
                           OPERAND(normals, SKIN_NORMALS), OPERAND(out_pos, SKIN_POS),
                           OPERAND(out_nrm, SKIN_NRM),
                           .bad = (size_t)c->item < SIZE(c, 'V') ? &c->bad : NULL};
    return job;
}

static int FN(loop_linear_blend_skinning)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_skin_job) job = FN(skin_job)(n, p, s, c);
    return FN(sk_linear_blend_skinning)(&job);
}

/* ------------------------------------------------------------ VJPs (body models, issue 11) */
ELEMENTWISE2(quat_to_matrix_vjp)
ELEMENTWISE2(quat_from_rotvec_vjp)

/* one item is one pose of J joints; the parents are read from c->parents, c->order */
static int FN(loop_rigid_forward_kinematics_vjp)(size_t n, char **p, const ptrdiff_t *s,
                                                 loop_ctx *c)
{
    FN(sk_rigid_fk_vjp_job) job = {.n = n, .J = SIZE(c, 'J'), .parents = c->parents,
                                   .order = c->order, OPERAND(rest, RIGID_VJP_REST),
                                   OPERAND(rot, RIGID_VJP_ROT),
                                   OPERAND(g_world_rot, RIGID_VJP_G_WORLD_ROT),
                                   OPERAND(g_world_trans, RIGID_VJP_G_WORLD_TRANS),
                                   OPERAND(g_rest, RIGID_VJP_G_REST),
                                   OPERAND(g_rot, RIGID_VJP_G_ROT)};
    FN(sk_rigid_forward_kinematics_vjp)(&job);
    return SK_OK;
}

/* as rigid_forward_kinematics_vjp; c->scratch: J x 24 reals (the descriptor's scratch) */
static int FN(loop_forward_kinematics_vjp)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_fk_vjp_job) job = {.n = n, .J = SIZE(c, 'J'), .parents = c->parents,
                             .order = c->order, OPERAND(rot, FK_VJP_ROT),
                             OPERAND(trans, FK_VJP_TRANS), OPERAND(scale, FK_VJP_SCALE),
                             OPERAND(world, FK_VJP_WORLD), OPERAND(g, FK_VJP_G),
                             OPERAND(g_rot, FK_VJP_G_ROT), OPERAND(g_trans, FK_VJP_G_TRANS),
                             OPERAND(g_scale, FK_VJP_G_SCALE), .work = c->scratch};
    FN(sk_forward_kinematics_vjp)(&job);
    return SK_OK;
}

/* one item is one vertex (inner symbol V); g_matrices (OP_REDUCE) sums over a pose's vertices */
static int FN(loop_linear_blend_skinning_vjp)(size_t n, char **p, const ptrdiff_t *s,
                                              loop_ctx *c)
{
    FN(sk_skin_vjp_job) job = {n, SIZE(c, 'K'), SIZE(c, 'J'), OPERAND(verts, VJP_VERTS),
                               OPERAND(joints, VJP_JOINTS), .itype = c->itype,
                               OPERAND(weights, VJP_WEIGHTS), OPERAND(mats, VJP_MATS),
                               OPERAND(g, VJP_G), OPERAND(g_verts, VJP_G_VERTS),
                               OPERAND(g_mats, VJP_G_MATS), .bad = &c->bad};
    return FN(sk_linear_blend_skinning_vjp)(&job);
}

/* one item is one vertex; the weights are not read */
static int FN(loop_linear_blend_skinning_weights_vjp)(size_t n, char **p, const ptrdiff_t *s,
                                                      loop_ctx *c)
{
    FN(sk_skin_vjp_job) job = {.n = n, .K = SIZE(c, 'K'), .J = SIZE(c, 'J'),
                               OPERAND(verts, VJP_VERTS), OPERAND(joints, VJP_JOINTS),
                               .itype = c->itype, OPERAND(mats, VJP_MATS), OPERAND(g, VJP_G),
                               OPERAND(g_weights, WEIGHTS_VJP_G_WEIGHTS), .bad = &c->bad};
    return FN(sk_linear_blend_skinning_weights_vjp)(&job);
}

/* as linear_blend_skinning, with the joint records of dual quaternion skinning */
static int FN(loop_dual_quaternion_skinning)(size_t n, char **p, const ptrdiff_t *s,
                                             loop_ctx *c)
{
    FN(sk_skin_job) job = FN(skin_job)(n, p, s, c);
    return FN(sk_dual_quaternion_skinning)(&job);
}

/* as linear_blend_skinning_vjp, with joint records and their cotangents (OP_REDUCE) */
static int FN(loop_dual_quaternion_skinning_vjp)(size_t n, char **p, const ptrdiff_t *s,
                                                 loop_ctx *c)
{
    FN(sk_skin_vjp_job) job = {n, SIZE(c, 'K'), SIZE(c, 'J'), OPERAND(verts, VJP_VERTS),
                               OPERAND(joints, VJP_JOINTS), .itype = c->itype,
                               OPERAND(weights, VJP_WEIGHTS), OPERAND(mats, VJP_MATS),
                               OPERAND(g, VJP_G), OPERAND(g_verts, VJP_G_VERTS),
                               OPERAND(g_weights, DQS_VJP_G_WEIGHTS),
                               OPERAND(g_mats, DQS_VJP_G_RECORDS), .bad = &c->bad};
    return FN(sk_dual_quaternion_skinning_vjp)(&job);
}

/* one item is one pose of L layers x J joints */
static int FN(loop_blend_poses)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_blend_job) job = {.n = n, .L = SIZE(c, 'L'), .J = SIZE(c, 'J'),
                            .layers = POSE(BLEND_LAYERS), OPERAND(weights, BLEND_WEIGHTS),
                            OPERAND(threshold, BLEND_THRESHOLD), .rest = POSE(BLEND_REST),
                            .out = POSE(BLEND_OUT)};
    FN(sk_blend_poses)(&job);
    return SK_OK;
}

/* elementwise over joints */
static int FN(loop_pose_delta)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_pose_delta_job) job = {.n = n, .ref = POSE(DELTA_REF), .pose = POSE(DELTA_POSE),
                                 .out = POSE(DELTA_OUT)};
    (void)c;
    FN(sk_pose_delta)(&job);
    return SK_OK;
}

static int FN(loop_additive_pose)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_additive_job) job = {.n = n, .base = POSE(ADD_BASE), .delta = POSE(ADD_DELTA),
                               OPERAND(weight, ADD_WEIGHT), .out = POSE(ADD_OUT)};
    (void)c;
    FN(sk_additive_pose)(&job);
    return SK_OK;
}

/* ------------------------------------------------------------ IK and retargeting (issue 22) */
/* one item is one pose */
static int FN(loop_ik_two_bone)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    (void)c;
    FN(sk_ik_two_bone)(n, IN(0), s[0], IN(1), s[1], IN(2), s[2], IN(3), s[3], IN(4), s[4],
                       IN(5), s[5], IN(6), s[6], IN(7), s[7], IN(8), s[8], OUT(9), s[9],
                       OUT(10), s[10], OUT(11), s[11]);
    return SK_OK;
}

static int FN(loop_ik_aim)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    (void)c;
    FN(sk_ik_aim)(n, IN(0), s[0], IN(1), s[1], IN(2), s[2], IN(3), s[3], IN(4), s[4], IN(5),
                  s[5], IN(6), s[6], IN(7), s[7], OUT(8), s[8], OUT(9), s[9]);
    return SK_OK;
}

static int FN(loop_ik_ccd)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    return FN(sk_ik_ccd)(n, SIZE(c, 'L'), IN(0), s[0], IN(1), s[1], IN(2), s[2], IN(3), s[3],
                         IN(4), s[4], IN(5), s[5], IN(6), s[6], IN(7), s[7], OUT(8), s[8]);
}

static int FN(loop_ik_fabrik)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    return FN(sk_ik_fabrik)(n, SIZE(c, 'L'), IN(0), s[0], IN(1), s[1], IN(2), s[2], IN(3), s[3],
                            IN(4), s[4], IN(5), s[5], IN(6), s[6], OUT(7), s[7]);
}

/* operands: parents, source_world, offsets, mapped, rest; local, world */
static int FN(loop_retarget_rotations)(size_t n, char **p, const ptrdiff_t *s, loop_ctx *c)
{
    FN(sk_retarget_rotations)(n, SIZE(c, 'J'), c->parents, c->order, IN(1), s[1], IN(2), s[2],
                              IN(3), s[3], IN(4), s[4], OUT(5), s[5], OUT(6), s[6]);
    return SK_OK;
}
