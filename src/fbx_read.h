/* fbx_read.h -- FBX scenes read through ufbx (vendor/ufbx) as flat arrays; plain C, no Python.
 *
 * Counts first, then fills: sk_fbx_open loads the scene (ufbx's allocations capped by
 * max_memory), the *_info functions give every count, and the fill functions write into
 * buffers the caller allocated from those counts, so the caller bounds every allocation
 * before it happens.  Node indices skip ufbx's synthetic root node: node i of skinkit is the
 * i-th node of the file.  Reals are doubles; matrices are 4x4 row-major, column vectors;
 * quaternions (x, y, z, w).  Functions returning int give 0 on success, -1 on error with a
 * message in err. */
#ifndef SK_FBX_READ_H
#define SK_FBX_READ_H

#include <stddef.h>
#include <stdint.h>

typedef struct sk_fbx sk_fbx;
typedef struct sk_fbx_anim sk_fbx_anim;

typedef struct sk_fbx_info {
    size_t nodes, skins, primitives, stacks;
    double fps;          /* the file's frame rate (frames per second) */
    double unit_meters;  /* the file's unit, in metres */
    uint32_t version;    /* FBX version, e.g. 7400 */
    int ascii;           /* 1 for an ASCII file */
} sk_fbx_info;

#define SK_FBX_WEIGHT_SUM_TOL 1e-5
/* the largest sum of a control point's skin weights (skinkit.limits.MAX_FILE_VALUE): past it
   the sum overflows (1e308 + 1e308) and every weight would become 0 */
#define SK_FBX_MAX_WEIGHT_SUM 1e30

/* One primitive per node that carries a mesh (in node order). */
typedef struct sk_fbx_prim_info {
    int32_t node, mesh, skin;  /* skin -1 for a rigid mesh */
    size_t vertices;           /* V: control points */
    size_t triangles;          /* F: after triangulating every face */
    size_t influences;         /* K: most influences on one control point (0 if rigid) */
    size_t renormalized;       /* control points whose weights sum to more than 0 but not to 1
                                  (off by over SK_FBX_WEIGHT_SUM_TOL): sk_fbx_prim_fill divides
                                  them by their sum */
    size_t dropped;            /* cluster weights left out: zero, negative or NaN (ufbx's
                                  clean_skin_weights) */
    size_t targets;            /* M: blend shapes (in-between shapes included) */
    size_t channels;           /* C: blend shape channels */
    size_t scratch;            /* uint32 slots sk_fbx_prim_fill needs to triangulate */
    int normals, uvs;          /* whether the mesh has them */
} sk_fbx_prim_info;

/* One baked track: keys of a node's translation (kind 0), rotation (1) or scale (2), or of a
 * blend shape channel's weight (3, target = the channel id sk_fbx_prim_fill reports). */
typedef struct sk_fbx_track {
    int32_t target;
    int kind;
    size_t keys;
} sk_fbx_track;

int sk_fbx_open(const char *path, int file_axes, size_t max_memory, sk_fbx **out, char *err,
                size_t errlen);
void sk_fbx_close(sk_fbx *fbx);
void sk_fbx_get_info(const sk_fbx *fbx, sk_fbx_info *info);
const char *sk_fbx_creator(const sk_fbx *fbx, size_t *len);

const char *sk_fbx_node_name(const sk_fbx *fbx, size_t node, size_t *len);
/* parents (N), trs (N, 10): translation, rotation (x, y, z, w), scale of the rest pose */
void sk_fbx_nodes(const sk_fbx *fbx, int32_t *parents, double *trs);

size_t sk_fbx_skin_joints(const sk_fbx *fbx, size_t skin);
const char *sk_fbx_skin_name(const sk_fbx *fbx, size_t skin, size_t *len);
/* joints (J) node indices, ibm (J, 4, 4): the clusters' geometry-to-bone matrices */
void sk_fbx_skin(const sk_fbx *fbx, size_t skin, int32_t *joints, double *ibm);

int sk_fbx_prim_info_get(const sk_fbx *fbx, size_t prim, sk_fbx_prim_info *info, char *err,
                         size_t errlen);
/* positions, normals, uvs (V, 3/3/2), faces (F, 3), joints and weights (V, K), morph (M, V, 3),
 * target_channel (M: index of its channel), target_weight (M: the channel weight at which the
 * shape is at full strength), channel_id (C), channel_weight (C: rest weight, 0..1);
 * normals, uvs, joints/weights and the blend arrays may be NULL when their count is 0. */
int sk_fbx_prim_fill(const sk_fbx *fbx, size_t prim, double *positions, double *normals,
                     double *uvs, int32_t *faces, int32_t *joints, double *weights, double *morph,
                     int32_t *target_channel, double *target_weight, int32_t *channel_id,
                     double *channel_weight, uint32_t *scratch, char *err, size_t errlen);
const char *sk_fbx_target_name(const sk_fbx *fbx, size_t prim, size_t target, size_t *len);

const char *sk_fbx_stack_name(const sk_fbx *fbx, size_t stack, size_t *len);
/* ufbx's baking of animation stack `stack` into linear keys at the file's frame rate */
int sk_fbx_bake(const sk_fbx *fbx, size_t stack, size_t max_memory, sk_fbx_anim **out,
                char *err, size_t errlen);
void sk_fbx_anim_free(sk_fbx_anim *anim);
size_t sk_fbx_anim_tracks(const sk_fbx_anim *anim);
void sk_fbx_anim_track(const sk_fbx *fbx, const sk_fbx_anim *anim, size_t i, sk_fbx_track *t);
/* times (keys) in seconds, values (keys, 3 or 4; 1 for a weight, 0..1) */
void sk_fbx_anim_fill(const sk_fbx_anim *anim, size_t i, double *times, double *values);

/* the ufbx release compiled in: major * 1000000 + minor * 1000 + patch */
uint32_t sk_fbx_ufbx_version(void);

#endif
