/* lbs_vjp.h -- internal: the loops of the linear blend skinning VJP (see lbs_vjp.c), compiled
 * by lbs_vjp.c for both precisions and again by lbs_vjp_avx2.c with AVX2/FMA for float32.
 * Included after real.h; every function is static. */

/* row o of a slot: b (the blended matrix A_i) += w M_j and g_M_j += w X, spelled out four
 * at a time so that the compiler emits vector operations (GCC left loops over the 12 entries
 * scalar).  With this, restrict on mats and ga[] read in place (copies of g_i in locals made
 * GCC's code slower again): 64 SMPL-sized poses 9.4 -> 5.5 ms, SMPL-X 26 -> 14.5 ms. */
#define SK_VJP_ROW(o)                                                                        \
    b[o] += wk * mj[o], b[o + 1] += wk * mj[o + 1], b[o + 2] += wk * mj[o + 2],              \
        b[o + 3] += wk * mj[o + 3];                                                          \
    gj[o] += wk * X[o], gj[o + 1] += wk * X[o + 1], gj[o + 2] += wk * X[o + 2],              \
        gj[o + 3] += wk * X[o + 3];

#define SK_LBS_VJP(NAME, JT)                                                                  \
    static inline int FN(NAME##_body)(const FN(sk_skin_vjp_job) *job, size_t K)             \
    {                                                                                        \
        size_t n = job->n, J = job->J, *bad = job->bad;                                      \
        const T *verts = job->verts, *weights = job->weights, *g = job->g;                   \
        const T *restrict mats = job->mats;                                                  \
        const JT *joints = job->joints;                                                      \
        T *restrict g_verts = job->g_verts, *restrict g_mats = job->g_mats;                  \
        ptrdiff_t sv = job->verts_stride, sj = job->joints_stride, sw = job->weights_stride;  \
        ptrdiff_t sm = job->mats_stride, sg = job->g_stride, sov = job->g_verts_stride;      \
        ptrdiff_t som = job->g_mats_stride;                                                  \
        for (size_t x = 0; x < n; x++) {                                                     \
            const T *p = verts + x * sv, *ga = g + x * sg, *w = weights + x * sw;            \
            const T *m = mats + x * sm;                                                      \
            const JT *jn = joints + x * sj;                                                  \
            T *gm = g_mats + x * som, b[12] = {0};                                           \
            T X[12];                                                                         \
            for (int r = 0; r < 3; r++) /* g_i [v_i; 1]^T, shared by the vertex's slots */   \
                X[4 * r] = ga[r] * p[0], X[4 * r + 1] = ga[r] * p[1],                       \
                X[4 * r + 2] = ga[r] * p[2], X[4 * r + 3] = ga[r];                          \
            for (size_t k = 0; k < K; k++) {                                                 \
                size_t j = (size_t)jn[k];                                                    \
                if (j >= J) {                                                                \
                    if ((JT)-1 < 0 && j == (size_t)-1)                                       \
                        continue;                                                            \
                    *bad = x * K + k;                                                        \
                    return SK_ERR_JOINT_INDEX;                                               \
                }                                                                            \
                const T *mj = m + 16 * j;                                                    \
                T *restrict gj = gm + 16 * j, wk = w[k];                                     \
                SK_VJP_ROW(0) SK_VJP_ROW(4) SK_VJP_ROW(8)                                    \
            }                                                                                \
            T *gv = g_verts + x * sov, o[3];                                                 \
            for (int c = 0; c < 3; c++) /* all of g_i read before g_v_i is written */        \
                o[c] = b[c] * ga[0] + b[4 + c] * ga[1] + b[8 + c] * ga[2];                   \
            gv[0] = o[0], gv[1] = o[1], gv[2] = o[2];                                        \
        }                                                                                    \
        return SK_OK;                                                                        \
    }                                                                                        \
    static int FN(NAME)(const FN(sk_skin_vjp_job) *job)                                    \
    {                                                                                        \
        if (job->K == 4)                                                                     \
            return FN(NAME##_body)(job, 4);                                                  \
        if (job->K == 8)                                                                     \
            return FN(NAME##_body)(job, 8);                                                  \
        return FN(NAME##_body)(job, job->K);                                                 \
    }
SK_LBS_VJP(lbs_vjp_u8, uint8_t)
SK_LBS_VJP(lbs_vjp_u16, uint16_t)
SK_LBS_VJP(lbs_vjp_i32, int32_t)

/* the loop for the job's joint index type */
static int FN(lbs_vjp_items)(const FN(sk_skin_vjp_job) *job)
{
    if (job->itype == SK_U8)
        return FN(lbs_vjp_u8)(job);
    if (job->itype == SK_U16)
        return FN(lbs_vjp_u16)(job);
    return FN(lbs_vjp_i32)(job);
}
