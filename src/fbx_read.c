/* fbx_read.c -- FBX scenes through ufbx as flat arrays (see fbx_read.h). */
#include "fbx_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ufbx.h"

struct sk_fbx {
    ufbx_scene *scene;
    size_t nprims;
    ufbx_node **prims;  /* the nodes with a mesh, in node order */
};

enum { TRACK_T, TRACK_R, TRACK_S, TRACK_WEIGHT };

typedef struct anim_track {
    int kind;
    uint32_t id;                    /* node typed id, or blend channel typed id */
    const ufbx_baked_vec3_list *v;  /* translation, scale or weight keys */
    const ufbx_baked_quat_list *q;  /* rotation keys */
} anim_track;

struct sk_fbx_anim {
    ufbx_baked_anim *baked;
    size_t ntracks;
    anim_track *tracks;
};

uint32_t sk_fbx_ufbx_version(void)
{
    return ufbx_source_version;
}

/* ufbx's error type, what it means for a truncated file, and ufbx's failed check (the innermost
 * frame of its error stack: function and condition) */
static void set_error(char *err, size_t errlen, const ufbx_error *e)
{
    const ufbx_error_frame *f = e->stack_size > 0 ? &e->stack[0] : NULL;
    int eof = f && strstr(f->description.data, "eof") != NULL;
    snprintf(err, errlen, "%s%s%s%s%s%s%s%s", e->description.data,
             eof ? " (the file ends before its data does: truncated?)" : "",
             e->info_length > 0 ? ": " : "", e->info_length > 0 ? e->info : "",
             f ? " [ufbx check " : "", f ? f->function.data : "", f ? ": " : "",
             f ? f->description.data : "");
    if (f)
        strncat(err, "]", errlen - strlen(err) - 1);
}

static void limit_allocator(ufbx_allocator_opts *a, size_t max_memory)
{
    a->memory_limit = max_memory;
    a->allocation_limit = max_memory / 16 + 1024;  /* at least 16 bytes an allocation */
}

/* skinkit's index of a ufbx node: its typed id without the synthetic root */
static int32_t node_index(const ufbx_scene *scene, const ufbx_node *node)
{
    if (!node || node->is_root)
        return -1;
    uint32_t root = scene->root_node->typed_id;
    return (int32_t)(node->typed_id - (node->typed_id > root));
}

static const ufbx_node *scene_node(const ufbx_scene *scene, size_t i)
{
    size_t root = scene->root_node->typed_id;
    return scene->nodes.data[i + (i >= root)];
}

int sk_fbx_open(const char *path, int file_axes, size_t max_memory, sk_fbx **out, char *err,
                size_t errlen)
{
    ufbx_load_opts opts;
    memset(&opts, 0, sizeof opts);
    limit_allocator(&opts.temp_allocator, max_memory);
    limit_allocator(&opts.result_allocator, max_memory);
    /* a bad index refuses the file rather than being clamped into a silently wrong mesh */
    opts.index_error_handling = UFBX_INDEX_ERROR_HANDLING_ABORT_LOADING;
    opts.node_depth_limit = 4096;
    opts.geometry_transform_handling = UFBX_GEOMETRY_TRANSFORM_HANDLING_MODIFY_GEOMETRY;
    opts.inherit_mode_handling = UFBX_INHERIT_MODE_HANDLING_COMPENSATE;
    opts.clean_skin_weights = true;
    opts.force_single_thread_ascii_parsing = true;
    opts.strict = true;   /* a partly broken file is refused, not half read */
    if (!file_axes) {
        opts.target_axes = ufbx_axes_right_handed_y_up;
        opts.target_unit_meters = 1.0;
        opts.space_conversion = UFBX_SPACE_CONVERSION_MODIFY_GEOMETRY;
    }
    ufbx_error error;
    ufbx_scene *scene = ufbx_load_file(path, &opts, &error);
    if (!scene) {
        set_error(err, errlen, &error);
        return -1;
    }
    sk_fbx *fbx = calloc(1, sizeof *fbx);
    size_t n = 0;
    for (size_t i = 0; i < scene->nodes.count; i++)
        n += scene->nodes.data[i]->mesh != NULL && !scene->nodes.data[i]->is_root;
    ufbx_node **prims = n ? malloc(n * sizeof *prims) : NULL;
    if (!fbx || (n && !prims)) {
        free(fbx);
        free(prims);
        ufbx_free_scene(scene);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    n = 0;
    for (size_t i = 0; i < scene->nodes.count; i++)
        if (scene->nodes.data[i]->mesh && !scene->nodes.data[i]->is_root)
            prims[n++] = scene->nodes.data[i];
    fbx->scene = scene;
    fbx->nprims = n;
    fbx->prims = prims;
    *out = fbx;
    return 0;
}

void sk_fbx_close(sk_fbx *fbx)
{
    if (!fbx)
        return;
    ufbx_free_scene(fbx->scene);
    free(fbx->prims);
    free(fbx);
}

void sk_fbx_get_info(const sk_fbx *fbx, sk_fbx_info *info)
{
    const ufbx_scene *s = fbx->scene;
    info->nodes = s->nodes.count - 1;
    info->skins = s->skin_deformers.count;
    info->primitives = fbx->nprims;
    info->stacks = s->anim_stacks.count;
    info->fps = s->settings.frames_per_second;
    info->unit_meters = s->settings.original_unit_meters;
    info->version = s->metadata.version;
    info->ascii = s->metadata.ascii;
}

const char *sk_fbx_creator(const sk_fbx *fbx, size_t *len)
{
    *len = fbx->scene->metadata.creator.length;
    return fbx->scene->metadata.creator.data;
}

const char *sk_fbx_node_name(const sk_fbx *fbx, size_t node, size_t *len)
{
    const ufbx_node *n = scene_node(fbx->scene, node);
    *len = n->name.length;
    return n->name.data;
}

void sk_fbx_nodes(const sk_fbx *fbx, int32_t *parents, double *trs)
{
    const ufbx_scene *s = fbx->scene;
    for (size_t i = 0; i + 1 < s->nodes.count; i++) {
        const ufbx_node *n = scene_node(s, i);
        const ufbx_transform *t = &n->local_transform;
        parents[i] = node_index(s, n->parent);
        double *o = trs + 10 * i;
        o[0] = t->translation.x, o[1] = t->translation.y, o[2] = t->translation.z;
        o[3] = t->rotation.x, o[4] = t->rotation.y, o[5] = t->rotation.z, o[6] = t->rotation.w;
        o[7] = t->scale.x, o[8] = t->scale.y, o[9] = t->scale.z;
    }
}

size_t sk_fbx_skin_joints(const sk_fbx *fbx, size_t skin)
{
    return fbx->scene->skin_deformers.data[skin]->clusters.count;
}

const char *sk_fbx_skin_name(const sk_fbx *fbx, size_t skin, size_t *len)
{
    const ufbx_skin_deformer *d = fbx->scene->skin_deformers.data[skin];
    *len = d->name.length;
    return d->name.data;
}

static void put_matrix(double *o, const ufbx_matrix *m)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            o[4 * r + c] = m->cols[c].v[r];
    o[12] = o[13] = o[14] = 0.0;
    o[15] = 1.0;
}

void sk_fbx_skin(const sk_fbx *fbx, size_t skin, int32_t *joints, double *ibm)
{
    const ufbx_skin_deformer *d = fbx->scene->skin_deformers.data[skin];
    for (size_t j = 0; j < d->clusters.count; j++) {
        const ufbx_skin_cluster *c = d->clusters.data[j];
        joints[j] = node_index(fbx->scene, c->bone_node);
        put_matrix(ibm + 16 * j, &c->geometry_to_bone);
    }
}

static const ufbx_skin_deformer *mesh_skin(const ufbx_mesh *mesh)
{
    if (mesh->skin_deformers.count == 0 || mesh->skin_deformers.data[0]->clusters.count == 0)
        return NULL;
    return mesh->skin_deformers.data[0];
}

int sk_fbx_prim_info_get(const sk_fbx *fbx, size_t prim, sk_fbx_prim_info *info, char *err,
                         size_t errlen)
{
    const ufbx_node *node = fbx->prims[prim];
    const ufbx_mesh *mesh = node->mesh;
    const ufbx_skin_deformer *skin = mesh_skin(mesh);
    memset(info, 0, sizeof *info);
    info->node = node_index(fbx->scene, node);
    info->mesh = (int32_t)mesh->typed_id;
    info->skin = skin ? (int32_t)skin->typed_id : -1;
    info->vertices = mesh->num_vertices;
    info->triangles = mesh->num_triangles;
    info->scratch = 3 * mesh->max_face_triangles;
    info->normals = mesh->vertex_normal.exists;
    info->uvs = mesh->vertex_uv.exists && mesh->vertex_uv.unique_per_vertex;
    if (skin) {
        if (skin->vertices.count != mesh->num_vertices) {
            snprintf(err, errlen, "mesh '%s': its skin has %zu vertices, the mesh %zu",
                     mesh->name.data, skin->vertices.count, mesh->num_vertices);
            return -1;
        }
        info->influences = skin->max_weights_per_vertex;
        size_t kept = 0;
        for (size_t v = 0; v < skin->vertices.count; v++) {
            const ufbx_skin_vertex *sv = &skin->vertices.data[v];
            double total = 0.0;
            for (size_t i = 0; i < sv->num_weights; i++)
                total += skin->weights.data[sv->weight_begin + i].weight;
            kept += sv->num_weights;
            if (!(total <= SK_FBX_MAX_WEIGHT_SUM)) {
                snprintf(err, errlen, "mesh '%s': the skin weights of control point %zu sum to "
                         "%g, more than %g (skinkit.limits.MAX_FILE_VALUE)", mesh->name.data, v,
                         total, SK_FBX_MAX_WEIGHT_SUM);
                return -1;
            }
            info->renormalized += total > 0.0 && fabs(total - 1.0) > SK_FBX_WEIGHT_SUM_TOL;
        }
        /* ufbx sizes skin->weights for every cluster weight, then keeps the positive ones */
        info->dropped = skin->weights.count - kept;
        for (size_t c = 0; c < skin->clusters.count; c++) { /* ufbx skips such indices */
            const ufbx_skin_cluster *cl = skin->clusters.data[c];
            for (size_t i = 0; i < cl->vertices.count; i++)
                if (cl->vertices.data[i] >= mesh->num_vertices) {
                    snprintf(err, errlen, "mesh '%s': skin cluster '%s' names vertex %u, the "
                             "mesh has %zu", mesh->name.data, cl->name.data,
                             (unsigned)cl->vertices.data[i], mesh->num_vertices);
                    return -1;
                }
        }
    }
    for (size_t b = 0; b < mesh->blend_deformers.count; b++) {
        const ufbx_blend_deformer *d = mesh->blend_deformers.data[b];
        info->channels += d->channels.count;
        for (size_t c = 0; c < d->channels.count; c++) {
            const ufbx_blend_channel *ch = d->channels.data[c];
            info->targets += ch->keyframes.count;
            for (size_t k = 0; k < ch->keyframes.count; k++) {
                const ufbx_blend_shape *shape = ch->keyframes.data[k].shape;
                for (size_t i = 0; shape && i < shape->offset_vertices.count; i++)
                    if (shape->offset_vertices.data[i] >= mesh->num_vertices) {
                        /* ufbx skips it; the file's Indexes are int32 (-1 reads as 2^32 - 1) */
                        snprintf(err, errlen, "mesh '%s': blend shape '%s': Indexes holds %ld, "
                                 "not one of the mesh's %zu control points", mesh->name.data,
                                 shape->name.data, (long)(int32_t)shape->offset_vertices.data[i],
                                 mesh->num_vertices);
                        return -1;
                    }
            }
        }
    }
    return 0;
}

/* the mesh's blend keyframes in order: channel by channel, in-between shapes included */
#define FOR_EACH_KEYFRAME(mesh, ch, kf, body)                                                \
    for (size_t b_ = 0; b_ < (mesh)->blend_deformers.count; b_++) {                          \
        const ufbx_blend_deformer *d_ = (mesh)->blend_deformers.data[b_];                    \
        for (size_t c_ = 0; c_ < d_->channels.count; c_++) {                                 \
            const ufbx_blend_channel *ch = d_->channels.data[c_];                            \
            for (size_t k_ = 0; k_ < ch->keyframes.count; k_++) {                            \
                const ufbx_blend_keyframe *kf = &ch->keyframes.data[k_];                     \
                body                                                                          \
            }                                                                                 \
        }                                                                                     \
    }

int sk_fbx_prim_fill(const sk_fbx *fbx, size_t prim, double *positions, double *normals,
                     double *uvs, int32_t *faces, int32_t *joints, double *weights, double *morph,
                     int32_t *target_channel, double *target_weight, int32_t *channel_id,
                     double *channel_weight, uint32_t *scratch, char *err, size_t errlen)
{
    const ufbx_mesh *mesh = fbx->prims[prim]->mesh;
    size_t nv = mesh->num_vertices;
    for (size_t v = 0; v < nv; v++) {
        const ufbx_vec3 *p = &mesh->vertices.data[v];
        positions[3 * v] = p->x, positions[3 * v + 1] = p->y, positions[3 * v + 2] = p->z;
    }
    size_t nt = 0;
    for (size_t f = 0; f < mesh->faces.count; f++) {
        uint32_t n = ufbx_triangulate_face(scratch, 3 * mesh->max_face_triangles, mesh,
                                           mesh->faces.data[f]);
        if (nt + n > mesh->num_triangles) {
            snprintf(err, errlen, "mesh '%s': more triangles than the %zu counted",
                     mesh->name.data, mesh->num_triangles);
            return -1;
        }
        for (uint32_t i = 0; i < 3 * n; i++)
            faces[3 * nt + i] = (int32_t)mesh->vertex_indices.data[scratch[i]];
        nt += n;
    }
    for (size_t i = 3 * nt; i < 3 * mesh->num_triangles; i++) /* faces of < 3 corners */
        faces[i] = -1;
    if (normals) { /* per control point: the mean of its corners' normals, normalized */
        memset(normals, 0, 3 * nv * sizeof *normals);
        for (size_t i = 0; i < mesh->num_indices; i++) {
            ufbx_vec3 n = ufbx_get_vertex_vec3(&mesh->vertex_normal, i);
            double *o = normals + 3 * mesh->vertex_indices.data[i];
            o[0] += n.x, o[1] += n.y, o[2] += n.z;
        }
        for (size_t v = 0; v < nv; v++) {
            double *o = normals + 3 * v;
            double len = o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
            if (len > 0) {
                double inv = 1.0 / sqrt(len);
                o[0] *= inv, o[1] *= inv, o[2] *= inv;
            }
        }
    }
    if (uvs) {
        for (size_t v = 0; v < nv; v++) {
            uint32_t first = mesh->vertex_first_index.data[v];
            ufbx_vec2 uv = first != UFBX_NO_INDEX ? ufbx_get_vertex_vec2(&mesh->vertex_uv, first)
                                                  : ufbx_zero_vec2;
            uvs[2 * v] = uv.x, uvs[2 * v + 1] = uv.y;
        }
    }
    const ufbx_skin_deformer *skin = mesh_skin(mesh);
    if (skin && joints) {
        size_t k = skin->max_weights_per_vertex;
        for (size_t v = 0; v < nv; v++) { /* normalized by their sum, as ufbx and Blender */
            const ufbx_skin_vertex *sv = &skin->vertices.data[v];
            double total = 0.0;
            for (size_t i = 0; i < sv->num_weights; i++)
                total += skin->weights.data[sv->weight_begin + i].weight;
            for (size_t i = 0; i < k; i++) {
                const ufbx_skin_weight *w = i < sv->num_weights
                    ? &skin->weights.data[sv->weight_begin + i] : NULL;
                joints[k * v + i] = w ? (int32_t)w->cluster_index : 0;
                weights[k * v + i] = w && total > 0.0 ? w->weight / total : 0.0;
            }
        }
    }
    size_t m = 0, c = 0;
    const ufbx_blend_channel *last = NULL;
    FOR_EACH_KEYFRAME(mesh, ch, kf, {
        if (ch != last) {
            channel_id[c] = (int32_t)ch->typed_id;
            channel_weight[c++] = ch->weight;
            last = ch;
        }
        double *o = morph + 3 * nv * m;
        memset(o, 0, 3 * nv * sizeof *o);
        if (kf->shape)
            ufbx_add_blend_shape_vertex_offsets(kf->shape, (ufbx_vec3 *)o, nv, 1.0);
        target_channel[m] = (int32_t)(c - 1);
        target_weight[m++] = kf->target_weight;
    })
    return 0;
}

const char *sk_fbx_target_name(const sk_fbx *fbx, size_t prim, size_t target, size_t *len)
{
    const ufbx_mesh *mesh = fbx->prims[prim]->mesh;
    size_t m = 0;
    FOR_EACH_KEYFRAME(mesh, ch, kf, {
        if (m++ == target) {
            /* the channel's name for its full shape, the shape's own for an in-between */
            const ufbx_string *s = kf->target_weight == 1.0 || !kf->shape ? &ch->name
                                                                          : &kf->shape->name;
            *len = s->length;
            return s->data;
        }
    })
    *len = 0;
    return "";
}

const char *sk_fbx_stack_name(const sk_fbx *fbx, size_t stack, size_t *len)
{
    const ufbx_anim_stack *s = fbx->scene->anim_stacks.data[stack];
    *len = s->name.length;
    return s->name.data;
}

static const ufbx_baked_prop *deform_percent(const ufbx_scene *scene,
                                             const ufbx_baked_element *e)
{
    if (e->element_id >= scene->elements.count ||
        scene->elements.data[e->element_id]->type != UFBX_ELEMENT_BLEND_CHANNEL)
        return NULL;
    for (size_t p = 0; p < e->props.count; p++)
        if (!strcmp(e->props.data[p].name.data, UFBX_DeformPercent))
            return &e->props.data[p];
    return NULL;
}

int sk_fbx_bake(const sk_fbx *fbx, size_t stack, size_t max_memory, sk_fbx_anim **out,
                char *err, size_t errlen)
{
    const ufbx_scene *scene = fbx->scene;
    ufbx_bake_opts opts;
    memset(&opts, 0, sizeof opts);
    limit_allocator(&opts.temp_allocator, max_memory);
    limit_allocator(&opts.result_allocator, max_memory);
    opts.resample_rate = scene->settings.frames_per_second > 0
        ? scene->settings.frames_per_second : 30.0;
    opts.minimum_sample_rate = opts.resample_rate;
    ufbx_error error;
    ufbx_baked_anim *baked = ufbx_bake_anim(scene, scene->anim_stacks.data[stack]->anim, &opts,
                                            &error);
    if (!baked) {
        set_error(err, errlen, &error);
        return -1;
    }
    size_t n = 3 * baked->nodes.count + baked->elements.count;
    sk_fbx_anim *anim = calloc(1, sizeof *anim);
    anim_track *tracks = n ? malloc(n * sizeof *tracks) : NULL;
    if (!anim || (n && !tracks)) {
        free(anim);
        free(tracks);
        ufbx_free_baked_anim(baked);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t t = 0;
    for (size_t i = 0; i < baked->nodes.count; i++) {
        const ufbx_baked_node *bn = &baked->nodes.data[i];
        if (bn->typed_id == scene->root_node->typed_id)
            continue;
        tracks[t++] = (anim_track){TRACK_T, bn->typed_id, &bn->translation_keys, NULL};
        tracks[t++] = (anim_track){TRACK_R, bn->typed_id, NULL, &bn->rotation_keys};
        tracks[t++] = (anim_track){TRACK_S, bn->typed_id, &bn->scale_keys, NULL};
    }
    for (size_t i = 0; i < baked->elements.count; i++) {
        const ufbx_baked_prop *p = deform_percent(scene, &baked->elements.data[i]);
        if (p)
            tracks[t++] = (anim_track){TRACK_WEIGHT,
                scene->elements.data[baked->elements.data[i].element_id]->typed_id,
                &p->keys, NULL};
    }
    anim->baked = baked;
    anim->ntracks = t;
    anim->tracks = tracks;
    *out = anim;
    return 0;
}

void sk_fbx_anim_free(sk_fbx_anim *anim)
{
    if (!anim)
        return;
    ufbx_free_baked_anim(anim->baked);
    free(anim->tracks);
    free(anim);
}

size_t sk_fbx_anim_tracks(const sk_fbx_anim *anim)
{
    return anim->ntracks;
}

void sk_fbx_anim_track(const sk_fbx *fbx, const sk_fbx_anim *anim, size_t i, sk_fbx_track *t)
{
    const anim_track *a = &anim->tracks[i];
    t->kind = a->kind;
    t->keys = a->q ? a->q->count : a->v->count;
    t->target = a->kind == TRACK_WEIGHT
        ? (int32_t)a->id : node_index(fbx->scene, fbx->scene->nodes.data[a->id]);
}

void sk_fbx_anim_fill(const sk_fbx_anim *anim, size_t i, double *times, double *values)
{
    const anim_track *a = &anim->tracks[i];
    if (a->q) {
        for (size_t k = 0; k < a->q->count; k++) {
            const ufbx_baked_quat *q = &a->q->data[k];
            times[k] = q->time;
            double *o = values + 4 * k;
            o[0] = q->value.x, o[1] = q->value.y, o[2] = q->value.z, o[3] = q->value.w;
        }
        return;
    }
    int weight = a->kind == TRACK_WEIGHT;
    for (size_t k = 0; k < a->v->count; k++) {
        const ufbx_baked_vec3 *v = &a->v->data[k];
        times[k] = v->time;
        if (weight) {
            values[k] = v->value.x / 100.0;
        } else {
            double *o = values + 3 * k;
            o[0] = v->value.x, o[1] = v->value.y, o[2] = v->value.z;
        }
    }
}
