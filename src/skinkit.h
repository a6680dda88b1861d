/*
 * skinkit.h -- the only public header of the skinkit C kernel library.
 *
 * C99, no Python.  Every kernel exists in a float (suffix _f) and a double
 * (suffix _d) version compiled from one source.  Conventions:
 *   - quaternions are (x, y, z, w), Hamilton product;
 *   - 4x4 and 3x3 matrices are row-major and act on column vectors (v' = M v);
 *   - a kernel processes n "items" (a pose, a quaternion, ...); every array
 *     argument is followed by its item stride in elements (0 broadcasts one
 *     item to all n), the data inside one item is contiguous;
 *   - kernels never allocate and never abort: they return SK_OK (0) or a
 *     negative status; *bad (when given) receives the offending index.
 */
#ifndef SKINKIT_H
#define SKINKIT_H

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
    SK_ERR_CLIP_NCOMP = -7,    /* ncomp not 1..4, or not 4 for a rotation    */
    SK_ERR_CLIP_INTERP = -8,   /* an interp that is no sk_interpolation      */
    SK_ERR_CLIP_VALUES = -9,   /* values outside the values array            */
    SK_ERR_CLIP_OUTPUT = -10   /* an output range outside the output array   */
};

/* joint index types accepted by linear blend skinning */
enum sk_index_type { SK_U8 = 1, SK_U16 = 2, SK_I32 = 4 };

/* reals per joint record of dual quaternion skinning (sk_skinning_dual_quaternions) */
#define SK_DQ_RECORD 32

/* glTF 2.0 animation sampler interpolations */
enum sk_interpolation { SK_STEP = 0, SK_LINEAR = 1, SK_CUBICSPLINE = 2 };

#define SK_DECLARE(T, S)                                                          \
/* --- quaternions (quat.c): out may not alias inputs --- */                      \
void sk_quat_multiply_##S(size_t n, const T *a, ptrdiff_t sa, const T *b,         \
                          ptrdiff_t sb, T *SK_RESTRICT out, ptrdiff_t so);        \
void sk_quat_conjugate_##S(size_t n, const T *q, ptrdiff_t sq,                    \
                           T *SK_RESTRICT out, ptrdiff_t so);                     \
/* q* / |q|^2; a zero quaternion gives non-finite values */                       \
void sk_quat_inverse_##S(size_t n, const T *q, ptrdiff_t sq,                      \
                         T *SK_RESTRICT out, ptrdiff_t so);                       \
/* q / |q|; a zero quaternion gives the identity (0, 0, 0, 1) */                  \
void sk_quat_normalize_##S(size_t n, const T *q, ptrdiff_t sq,                    \
                           T *SK_RESTRICT out, ptrdiff_t so);                     \
/* v' = q v q* for a unit q (3-vectors) */                                        \
void sk_quat_rotate_##S(size_t n, const T *q, ptrdiff_t sq, const T *v,           \
                        ptrdiff_t sv, T *SK_RESTRICT out, ptrdiff_t so);          \
/* unit q -> 3x3 rotation matrix (row-major) */                                   \
void sk_quat_to_matrix_##S(size_t n, const T *q, ptrdiff_t sq,                    \
                           T *SK_RESTRICT out, ptrdiff_t so);                     \
/* 3x3 rotation matrix -> unit q with w >= 0 (Shepperd's method) */               \
void sk_quat_from_matrix_##S(size_t n, const T *m, ptrdiff_t sm,                  \
                             T *SK_RESTRICT out, ptrdiff_t so);                   \
/* rotation vector (axis * angle in radians) -> unit q */                         \
void sk_quat_from_rotvec_##S(size_t n, const T *r, ptrdiff_t sr,                  \
                             T *SK_RESTRICT out, ptrdiff_t so);                   \
/* shortest-path slerp of unit q0, q1 at parameter t (scalar per item) */         \
void sk_slerp_##S(size_t n, const T *q0, ptrdiff_t s0, const T *q1, ptrdiff_t s1, \
                  const T *t, ptrdiff_t st, T *SK_RESTRICT out, ptrdiff_t so);    \
                                                                                  \
/* --- matrices (mat.c) --- */                                                    \
/* out_j = a_j b_j for J 4x4 matrices per item */                                 \
void sk_matmul4_##S(size_t n, size_t J, const T *a, ptrdiff_t sa, const T *b,     \
                    ptrdiff_t sb, T *SK_RESTRICT out, ptrdiff_t so);              \
/* general 4x4 inverse of n matrices; SK_ERR_SINGULAR with *bad = item */         \
int sk_invert4_##S(size_t n, const T *m, ptrdiff_t sm, T *SK_RESTRICT out,        \
                   ptrdiff_t so, size_t *bad);                                    \
                                                                                  \
/* --- forward kinematics (fk.c); order from sk_topological_order --- */          \
/* world_i = world_parent(i) . T(t_i) . R(q_i) . S(s_i); scale may be NULL */      \
void sk_forward_kinematics_##S(size_t n, size_t J, const int32_t *parents,        \
                               const int32_t *order, const T *rot, ptrdiff_t sr,  \
                               const T *trans, ptrdiff_t st, const T *scale,      \
                               ptrdiff_t ss, T *SK_RESTRICT world, ptrdiff_t sw); \
/* libigl forward_kinematics: Q_i = Q_p q_i, t_i = t_p + Q_p x_i - Q_i x_i */     \
void sk_rigid_forward_kinematics_##S(size_t n, size_t J, const int32_t *parents,  \
                                     const int32_t *order, const T *rest,         \
                                     ptrdiff_t sx, const T *rot, ptrdiff_t sr,    \
                                     T *SK_RESTRICT out_rot, ptrdiff_t sor,       \
                                     T *SK_RESTRICT out_trans, ptrdiff_t sot);    \
                                                                                  \
/* --- linear blend skinning (lbs.c) --- */                                       \
/* n vertices (an item = one vertex: position, K joints, K weights, the J x 4x4  \
   skinning matrices of its pose, its normal and outputs; sj and sw in elements  \
   of joints and weights).  joints are of type itype (enum sk_index_type); -1    \
   (I32 only) = no influence; normals and out_nrm may be NULL.  With bad given,  \
   the joint indices are checked as they are read: SK_ERR_JOINT_INDEX with      \
   *bad = i * K + k for vertex i, slot k, the first outside -1..J-1.  With bad   \
   NULL (indices checked on an earlier pose of the same call) such an index is  \
   skipped, never read through. */                                                \
int sk_linear_blend_skinning_##S(size_t n, size_t K, size_t J, const T *verts,     \
                                 ptrdiff_t sv, const void *joints, ptrdiff_t sj,  \
                                 int itype, const T *weights, ptrdiff_t sw,       \
                                 const T *mats, ptrdiff_t sm, const T *normals,   \
                                 ptrdiff_t sn, T *SK_RESTRICT out_pos,            \
                                 ptrdiff_t sp, T *SK_RESTRICT out_nrm,            \
                                 ptrdiff_t so, size_t *bad);                      \
                                                                                  \
/* --- vector-Jacobian products (quat_vjp.c, fk_vjp.c, lbs_vjp.c) ---             \
   Each takes the forward kernel's inputs and the cotangent g of its result and   \
   returns the cotangents of the inputs (quaternions as free 4-vectors, differen- \
   tiating the polynomial the forward kernel evaluates). */                       \
/* g (3x3 per item) of sk_quat_to_matrix -> out (4) */                            \
void sk_quat_to_matrix_vjp_##S(size_t n, const T *q, ptrdiff_t sq, const T *g,    \
                               ptrdiff_t sg, T *SK_RESTRICT out, ptrdiff_t so);   \
/* g (4 per item) of sk_quat_from_rotvec -> out (3) */                            \
void sk_quat_from_rotvec_vjp_##S(size_t n, const T *r, ptrdiff_t sr, const T *g,  \
                                 ptrdiff_t sg, T *SK_RESTRICT out, ptrdiff_t so); \
/* rigid FK: g_rot (J, 4), g_trans (J, 3) -> g_rest (J, 3), g_q (J, 4) per item   \
   (the world rotations are rebuilt from the chain: O(J depth) products) */        \
void sk_rigid_forward_kinematics_vjp_##S(size_t n, size_t J, const int32_t *parents, \
        const int32_t *order, const T *rest, ptrdiff_t sx, const T *rot,          \
        ptrdiff_t sr, const T *g_rot, ptrdiff_t sgr, const T *g_trans,            \
        ptrdiff_t sgt, T *SK_RESTRICT g_rest, ptrdiff_t sox, T *SK_RESTRICT g_q,  \
        ptrdiff_t soq);                                                           \
/* LBS positions: items and arguments as sk_linear_blend_skinning; g, g_verts    \
   (3 per item); g_mats (J x 4x4) is added to, never cleared (stride 0: the       \
   vertices of a pose sum into it; row 3 stays as it was).  SK_ERR_JOINT_INDEX    \
   with *bad = i * K + k for vertex i, slot k. */                                 \
int sk_linear_blend_skinning_vjp_##S(size_t n, size_t K, size_t J,                \
        const T *verts, ptrdiff_t sv, const void *joints, ptrdiff_t sj,           \
        int itype, const T *weights, ptrdiff_t sw, const T *mats, ptrdiff_t sm,   \
        const T *g, ptrdiff_t sg, T *SK_RESTRICT g_verts, ptrdiff_t sov,          \
        T *SK_RESTRICT g_mats, ptrdiff_t som, size_t *bad);                       \
/* LBS weights (lbs_weights_vjp.c): g (3 per item) -> out (K per item), the      \
   cotangent of each slot's weight, g . M_j [v; 1] (0 for joint -1); per pose,    \
   the caller sums.  SK_ERR_JOINT_INDEX as sk_linear_blend_skinning_vjp. */       \
int sk_linear_blend_skinning_weights_vjp_##S(size_t n, size_t K, size_t J,        \
        const T *verts, ptrdiff_t sv, const void *joints, ptrdiff_t sj,           \
        int itype, const T *mats, ptrdiff_t sm, const T *g, ptrdiff_t sg,         \
        T *SK_RESTRICT out, ptrdiff_t so, size_t *bad);                           \
                                                                                  \
/* --- dual quaternion skinning (dqs.c) --- */                                    \
/* n 4x4 skinning matrices -> n records of SK_DQ_RECORD reals: the rotation's     \
   unit quaternion, its dual part and the scale/shear terms (layout in dqs.c) */  \
void sk_skinning_dual_quaternions_##S(size_t n, const T *m, ptrdiff_t sm,         \
                                      T *SK_RESTRICT out, ptrdiff_t so);          \
/* As sk_linear_blend_skinning, with the J records of the vertex's pose (from     \
   sk_skinning_dual_quaternions, sd in elements) in place of its J matrices. */   \
int sk_dual_quaternion_skinning_##S(size_t n, size_t K, size_t J, const T *verts, \
                                    ptrdiff_t sv, const void *joints,             \
                                    ptrdiff_t sj, int itype, const T *weights,    \
                                    ptrdiff_t sw, const T *dqs, ptrdiff_t sd,     \
                                    const T *normals, ptrdiff_t sn,               \
                                    T *SK_RESTRICT out_pos, ptrdiff_t sp,         \
                                    T *SK_RESTRICT out_nrm, ptrdiff_t so,         \
                                    size_t *bad);                                 \
                                                                                  \
/* --- pose blending (blend.c) --- */                                             \
/* n poses of L layers x J joints (rot L*J*4, trans and scale L*J*3, weights L*J  \
   per item) -> J blended joints: weighted means of translations and scales,      \
   normalized weighted sum of rotations, each in the hemisphere of the joint's    \
   first contributing layer; layers of weight <= 0 are skipped; where the total  \
   is below threshold (one per item) the rest pose (J joints per item; rest_rot   \
   NULL for none)                                                                 \
   adds weight threshold - total (ozz-animation BlendingJob).  A joint with total \
   0 (and no rest) gets the identity transform. */                               \
void sk_blend_poses_##S(size_t n, size_t L, size_t J, const T *rot, ptrdiff_t sr, \
                        const T *trans, ptrdiff_t st, const T *scale,             \
                        ptrdiff_t ss, const T *weights, ptrdiff_t sw,             \
                        const T *threshold, ptrdiff_t sth, const T *rest_rot,     \
                        ptrdiff_t srr, const T *rest_trans, ptrdiff_t srt,        \
                        const T *rest_scale, ptrdiff_t srs,                       \
                        T *SK_RESTRICT out_rot, ptrdiff_t sor,                    \
                        T *SK_RESTRICT out_trans, ptrdiff_t sot,                  \
                        T *SK_RESTRICT out_scale, ptrdiff_t sos);                 \
/* n joints: (|r_ref|^-1 r_ref)^-1 r, t - t_ref, s / s_ref */                     \
void sk_pose_delta_##S(size_t n, const T *ref_rot, ptrdiff_t s0,                  \
                       const T *ref_trans, ptrdiff_t s1, const T *ref_scale,      \
                       ptrdiff_t s2, const T *rot, ptrdiff_t s3, const T *trans,  \
                       ptrdiff_t s4, const T *scale, ptrdiff_t s5,                \
                       T *SK_RESTRICT out_rot, ptrdiff_t s6,                      \
                       T *SK_RESTRICT out_trans, ptrdiff_t s7,                    \
                       T *SK_RESTRICT out_scale, ptrdiff_t s8);                   \
/* n joints: r slerp(identity, dr, w), t + w dt, s (1 + w (ds - 1)) */            \
void sk_additive_pose_##S(size_t n, const T *base_rot, ptrdiff_t s0,              \
                          const T *base_trans, ptrdiff_t s1,                      \
                          const T *base_scale, ptrdiff_t s2, const T *delta_rot,  \
                          ptrdiff_t s3, const T *delta_trans, ptrdiff_t s4,       \
                          const T *delta_scale, ptrdiff_t s5, const T *weight,    \
                          ptrdiff_t sw, T *SK_RESTRICT out_rot, ptrdiff_t s6,     \
                          T *SK_RESTRICT out_trans, ptrdiff_t s7,                 \
                          T *SK_RESTRICT out_scale, ptrdiff_t s8);                \
                                                                                  \
/* --- clip sampling (sample.c) --- */                                            \
/* A clip's keyframe channels packed in one table (skinkit.Clip builds it once).   \
   Channel c has nkeys[c] >= 1 key times at key_times + key_offset[c] (sorted times  \
   are expected; unsorted ones are sampled without reading outside) and nkeys[c] \
   keys of ncomp[c] values at values + value_offset[c] (3 per key for           \
   CUBICSPLINE: in-tangent, value, out-tangent); ncomp[c] is 1..4, and 4 when     \
   rotation[c] != 0 (quaternions, slerped); interp[c] is an sk_interpolation.     \
   sk_check_clip checks all of this before sampling. */                           \
typedef struct {                                                                  \
    size_t nchannels;                                                             \
    const T *key_times;    /* nkey_times key times of all channels */             \
    size_t nkey_times;                                                            \
    const T *values;       /* nvalues key values of all channels */               \
    size_t nvalues;                                                               \
    const int64_t *key_offset, *nkeys, *value_offset; /* per channel */           \
    const int32_t *ncomp, *interp, *rotation;          /* per channel */           \
    /* NULL, or nvalues entries from sk_prepare_clip: each LINEAR rotation key's  \
       slerp constants, so that a sample needs one sine/cosine pair */            \
    const T *slerp;                                                               \
} sk_clip_##S;                                                                    \
/* SK_OK, or SK_ERR_CLIP_* with *bad = the first bad channel */                   \
int sk_check_clip_##S(const sk_clip_##S *clip, size_t *bad);                      \
/* SK_OK, or SK_ERR_CLIP_OUTPUT with *bad = the first channel whose ntimes results \
   (below) do not fit in an output array of nout values */                       \
int sk_check_clip_output_##S(const sk_clip_##S *clip, const int64_t *out_offset,  \
                             const int64_t *out_stride, size_t ntimes,            \
                             size_t nout, size_t *bad);                           \
/* Fills slerp[value_offset[c] + 4 k ..] for every key k but the last of every    \
   LINEAR rotation channel c of a checked clip (slerp has nvalues entries; the    \
   others are left as they are); set clip->slerp to it before sampling. */        \
void sk_prepare_clip_##S(const sk_clip_##S *clip, T *SK_RESTRICT slerp);           \
/* Samples channels c0 <= c < c1 of a checked clip at ntimes times: the ncomp[c]  \
   values of channel c at time i go to out[out_offset[c] + i * out_stride[c]].    \
   Key search is amortised O(1) for sorted times, binary otherwise. */            \
void sk_sample_clip_##S(const sk_clip_##S *clip, size_t c0, size_t c1,            \
                        const int64_t *out_offset, const int64_t *out_stride,     \
                        size_t ntimes, const T *times, T *SK_RESTRICT out);

SK_DECLARE(float, f)
SK_DECLARE(double, d)
#undef SK_DECLARE

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
