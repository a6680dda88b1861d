/* skinkit_jobs.h -- the job structs of skinkit's wide kernels (skinning, pose blending, the
 * VJPs of skinning and FK), for one precision: skinkit.h includes it twice, with SK_REAL float
 * and SK_TYPE(name) name##_f, then double and _d (as PyWavelets' templates), so sk_skin_job_f
 * and sk_skin_job_d are one text.  Include skinkit.h, never this file.
 *
 * A job names its operands (as ozz-animation's jobs do) instead of 15 to 25 positional
 * arguments; fill it by field name (designated initializers: a field left out is 0 or NULL).
 * Shapes as in libigl's comments: "n by 3" is n items of 3 reals, item i at ptr + i * stride
 * (stride in elements of the pointed-to type; 0 gives every item the same data). */

/* Skinning of n vertices (an item = one vertex: its position, K joints and weights, its
 * pose's transforms, its normal and its outputs), by sk_linear_blend_skinning and
 * sk_dual_quaternion_skinning. */
typedef struct {
    size_t n;                      /* vertices (items) */
    size_t K;                      /* influences per vertex */
    size_t J;                      /* joints per pose */
    const SK_REAL *verts;          /* n by 3: rest positions */
    ptrdiff_t verts_stride;
    const void *joints;            /* n by K of itype: joint indices, -1 no influence (SK_I32) */
    ptrdiff_t joints_stride;
    int itype;                     /* enum sk_index_type */
    const SK_REAL *weights;        /* n by K */
    ptrdiff_t weights_stride;
    const SK_REAL *transforms;     /* n by J by 4 by 4 skinning matrices (LBS), or n by J by
                                      SK_DQ_RECORD joint records (DQS: sk_skinning_dual_
                                      quaternions); stride 0 within one pose */
    ptrdiff_t transforms_stride;
    const SK_REAL *normals;        /* n by 3 rest normals, or NULL */
    ptrdiff_t normals_stride;
    SK_REAL *SK_RESTRICT out_pos;  /* n by 3: skinned positions */
    ptrdiff_t out_pos_stride;
    SK_REAL *SK_RESTRICT out_nrm;  /* n by 3: skinned unit normals; NULL when normals is */
    ptrdiff_t out_nrm_stride;
    /* Given: the joint indices are checked as they are read, SK_ERR_JOINT_INDEX with *bad =
       i * K + k for vertex i, slot k, the first outside -1..J-1.  NULL: indices checked on an
       earlier pose of the same call; such an index is skipped, never read through. */
    size_t *bad;
} SK_TYPE(sk_skin_job);

/* The vector-Jacobian product of linear blend skinning or dual quaternion skinning
 * (positions), n vertices as above, for the cotangents g of the skinned positions. */
typedef struct {
    size_t n, K, J;                /* vertices, influences per vertex, joints per pose */
    const SK_REAL *verts;          /* n by 3 */
    ptrdiff_t verts_stride;
    const void *joints;            /* n by K of itype */
    ptrdiff_t joints_stride;
    int itype;                     /* enum sk_index_type */
    const SK_REAL *weights;        /* n by K */
    ptrdiff_t weights_stride;
    const SK_REAL *mats;           /* n by J by 4 by 4 skinning matrices (LBS), or n by J by
                                      SK_DQ_RECORD joint records (DQS) */
    ptrdiff_t mats_stride;
    const SK_REAL *g;              /* n by 3: cotangents of the skinned positions */
    ptrdiff_t g_stride;
    SK_REAL *SK_RESTRICT g_verts;  /* n by 3: cotangents of verts */
    ptrdiff_t g_verts_stride;
    SK_REAL *SK_RESTRICT g_mats;   /* n by J by 4 by 4 (LBS; row 3 stays as it was), or n by J
                                      by SK_DQ_RECORD (DQS; S stays as it was): added to, never
                                      cleared (stride 0: the vertices of a pose sum into it) */
    ptrdiff_t g_mats_stride;
    SK_REAL *SK_RESTRICT g_weights;/* n by K: cotangents of the weights (DQS; for LBS the
                                      only output of sk_linear_blend_skinning_weights_vjp,
                                      which reads verts, joints, mats and g alone) */
    ptrdiff_t g_weights_stride;
    size_t *bad;                   /* SK_ERR_JOINT_INDEX: *bad = i * K + k */
} SK_TYPE(sk_skin_vjp_job);

/* The VJP of forward kinematics with scale (sk_forward_kinematics_vjp): n poses (items) of J
 * joints, for the cotangent g of their world matrices. */
typedef struct {
    size_t n, J;                   /* poses, joints per pose */
    const int32_t *parents;        /* J: parent joint, -1 for a root */
    const int32_t *order;          /* J: every joint after its parent (sk_topological_order) */
    const SK_REAL *rot;            /* n by J by 4: local rotations (x, y, z, w) */
    ptrdiff_t rot_stride;
    const SK_REAL *trans;          /* n by J by 3: local translations */
    ptrdiff_t trans_stride;
    const SK_REAL *scale;          /* n by J by 3: local scales, or NULL (1) */
    ptrdiff_t scale_stride;
    const SK_REAL *world;          /* n by J by 4 by 4: sk_forward_kinematics's result */
    ptrdiff_t world_stride;
    const SK_REAL *g;              /* n by J by 4 by 4: cotangents of world */
    ptrdiff_t g_stride;
    SK_REAL *SK_RESTRICT g_rot;    /* n by J by 4 */
    ptrdiff_t g_rot_stride;
    SK_REAL *SK_RESTRICT g_trans;  /* n by J by 3 */
    ptrdiff_t g_trans_stride;
    SK_REAL *SK_RESTRICT g_scale;  /* n by J by 3, or NULL (not computed) */
    ptrdiff_t g_scale_stride;
    SK_REAL *SK_RESTRICT work;     /* J by 24 reals of workspace */
} SK_TYPE(sk_fk_vjp_job);

/* The VJP of libigl's rigid forward kinematics (sk_rigid_forward_kinematics_vjp): n poses
 * (items) of J joints, for the cotangents of their world rotations and translations. */
typedef struct {
    size_t n, J;                   /* poses, joints per pose */
    const int32_t *parents;        /* J: parent joint, -1 for a root */
    const int32_t *order;          /* J: every joint after its parent (sk_topological_order) */
    const SK_REAL *rest;           /* n by J by 3: rest positions of the joints */
    ptrdiff_t rest_stride;
    const SK_REAL *rot;            /* n by J by 4: local rotations */
    ptrdiff_t rot_stride;
    const SK_REAL *g_world_rot;    /* n by J by 4: cotangents of the world rotations */
    ptrdiff_t g_world_rot_stride;
    const SK_REAL *g_world_trans;  /* n by J by 3: cotangents of the world translations */
    ptrdiff_t g_world_trans_stride;
    SK_REAL *SK_RESTRICT g_rest;   /* n by J by 3 */
    ptrdiff_t g_rest_stride;
    SK_REAL *SK_RESTRICT g_rot;    /* n by J by 4 */
    ptrdiff_t g_rot_stride;
} SK_TYPE(sk_rigid_fk_vjp_job);

/* A pose's local transforms, as the pose kernels read them (blend.c): rotations (x, y, z, w),
 * translations and scales, each array with its item stride; the job says the shapes. */
typedef struct {
    const SK_REAL *rot;            /* 4 reals a joint */
    ptrdiff_t rot_stride;
    const SK_REAL *trans;          /* 3 reals a joint */
    ptrdiff_t trans_stride;
    const SK_REAL *scale;          /* 3 reals a joint */
    ptrdiff_t scale_stride;
} SK_TYPE(sk_pose);

/* ... and as they write them */
typedef struct {
    SK_REAL *SK_RESTRICT rot;
    ptrdiff_t rot_stride;
    SK_REAL *SK_RESTRICT trans;
    ptrdiff_t trans_stride;
    SK_REAL *SK_RESTRICT scale;
    ptrdiff_t scale_stride;
} SK_TYPE(sk_pose_out);

/* Pose blending (sk_blend_poses, as ozz-animation's BlendingJob): n poses (items) of L layers
 * of J joints blended into one pose of J joints each. */
typedef struct {
    size_t n, L, J;                /* poses, layers per pose, joints per layer */
    SK_TYPE(sk_pose) layers;       /* n by L by J joints */
    const SK_REAL *weights;        /* n by L by J: weight of each layer's joint (<= 0 skips) */
    ptrdiff_t weights_stride;
    const SK_REAL *threshold;      /* n by 1: the total weight that the rest pose fills up to */
    ptrdiff_t threshold_stride;
    SK_TYPE(sk_pose) rest;         /* n by J joints: the rest pose, or rest.rot NULL for none */
    SK_TYPE(sk_pose_out) out;      /* n by J joints: the blended pose */
} SK_TYPE(sk_blend_job);

/* The difference of two poses (sk_pose_delta), n joints (items). */
typedef struct {
    size_t n;                      /* joints */
    SK_TYPE(sk_pose) ref;          /* n by 1 joint: the reference (its rotations normalized) */
    SK_TYPE(sk_pose) pose;         /* n by 1 joint */
    SK_TYPE(sk_pose_out) out;      /* n by 1 joint: the delta */
} SK_TYPE(sk_pose_delta_job);

/* An additive layer (sk_additive_pose), n joints (items): a base pose, a delta (sk_pose_delta)
 * and its weight. */
typedef struct {
    size_t n;                      /* joints */
    SK_TYPE(sk_pose) base;         /* n by 1 joint */
    SK_TYPE(sk_pose) delta;        /* n by 1 joint: unit rotations */
    const SK_REAL *weight;         /* n by 1 */
    ptrdiff_t weight_stride;
    SK_TYPE(sk_pose_out) out;      /* n by 1 joint */
} SK_TYPE(sk_additive_job);

/* A clip's keyframe channels packed in one table (skinkit.Clip builds it once).  Channel c has
 * nkeys[c] >= 1 key times at key_times + key_offset[c] (sorted times are expected; unsorted
 * ones are sampled without reading outside) and nkeys[c] keys of ncomp[c] values at values +
 * value_offset[c] (3 per key for CUBICSPLINE: in-tangent, value, out-tangent); ncomp[c] >= 1
 * (a morph weights channel has one per target), and 4 when rotation[c] != 0 (quaternions,
 * slerped; STEP and LINEAR rotation keys unit); interp[c] is an sk_interpolation.
 * sk_check_clip checks all of this before sampling. */
typedef struct {
    size_t nchannels;
    const SK_REAL *key_times;      /* nkey_times key times of all channels */
    size_t nkey_times;
    const SK_REAL *values;         /* nvalues key values of all channels */
    size_t nvalues;
    const int64_t *key_offset, *nkeys, *value_offset; /* nchannels each */
    const int32_t *ncomp, *interp, *rotation;          /* nchannels each */
    /* NULL, or the sk_prepared_size entries from sk_prepare_clip: each LINEAR rotation key's
       slerp constants, so that a sample needs one sine/cosine pair, and the keys of the lane
       groups (sample.c) side by side */
    const SK_REAL *prepared;
} SK_TYPE(sk_clip);

/* A compressed clip (skinkit.model.compress, its container: io/skc.py): track
 * t (tracks + t, sk_ctrack in skinkit.h) has nkeys key times at key_times + key_offset and its
 * payload at bytes + data: a constant's nstored float32 values, a quantized track's codes
 * segment after segment (nstored per row, each its width of bits, least significant bit
 * first; a segment's ranges, widths and first bit: sk_ctrack), or a raw track's rows of ncomp
 * SK_REALs.
 * bytes holds 8 readable bytes past every payload.  sk_check_cclip checks all of this. */
typedef struct {
    size_t ntracks;
    const sk_ctrack *tracks;
    const SK_REAL *key_times;
    size_t nkey_times;
    const float *ranges;
    size_t nranges;
    const unsigned char *bytes;
    size_t nbytes;
    const unsigned char *widths;
    size_t nwidths;
    const int64_t *seg_bits;
    size_t nseg_bits;
    /* NULL, or the 4 ntracks values sk_cclip_prepare wrote for this clip: its constants'
       values, then read instead of decoded at each call */
    const SK_REAL *prepared;
} SK_TYPE(sk_cclip);

/* Forward kinematics of the joints of a mask and their shell error against reference world
 * matrices (sk_shell_error_fk, shell_error.c): n poses (items) of J joints. */
typedef struct {
    size_t n, J;                   /* poses, joints visited (order) */
    const int32_t *parents;        /* a pose's joints: parent joint, -1 for a root */
    const int32_t *order;          /* J joints of a pose, every one after its parent where
                                      both are here (sk_topological_order; sk_shell_check: a
                                      subtree in depth-first preorder) */
    const SK_REAL *mask;           /* a pose's joints, or NULL (all): != 0 for the joints of
                                      order computed; the
                                      others' world matrices are read (as parents), never
                                      written */
    const SK_REAL *rot;            /* n by J by 4: local rotations (x, y, z, w), unit */
    ptrdiff_t rot_stride;
    const SK_REAL *trans;          /* n by J by 3: local translations */
    ptrdiff_t trans_stride;
    const SK_REAL *scale;          /* n by J by 3: local scales, or NULL (1) */
    ptrdiff_t scale_stride;
    const SK_REAL *reference;      /* n by J by 4 by 4: the world matrices to compare with */
    ptrdiff_t reference_stride;
    const SK_REAL *shell;          /* n by 1: the vertices' distance from their joint */
    ptrdiff_t shell_stride;
    SK_REAL *SK_RESTRICT world;    /* n by J by 4 by 4: the parent's world . T R S (masked
                                      joints) */
    ptrdiff_t world_stride;
    SK_REAL *SK_RESTRICT error;    /* n by J: each masked joint's largest vertex distance, 0
                                      for the others */
    ptrdiff_t error_stride;
    const int64_t *poses;          /* NULL (all n in turn), or n pose indices, the order in
                                      which they are computed (sk_shell_check) */
    SK_REAL limit;                 /* > 0: stop after the first group of poses (one, or four
                                      with AVX2) with a joint's error above it or NaN */
} SK_TYPE(sk_shell_fk_job);
