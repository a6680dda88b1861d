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

/* a job's fields as the arguments of a loop body (restrict on parameters: GCC honours it there,
 * not on locals; on locals the AVX2 VJP was 1.6x slower), K given as a constant */
#define SK_VJP_ARGS(job, KK, JT)                                                             \
    (job)->n, KK, (job)->J, (job)->verts, (job)->verts_stride, (const JT *)(job)->joints,     \
        (job)->joints_stride, (job)->weights, (job)->weights_stride, (job)->mats,            \
        (job)->mats_stride, (job)->g, (job)->g_stride, (job)->g_verts, (job)->g_verts_stride, \
        (job)->g_mats, (job)->g_mats_stride, (job)->bad

#define SK_LBS_VJP(NAME, JT)                                                                  \
    static inline int FN(NAME##_body)(size_t n, size_t K, size_t J, const T *verts,          \
                                      ptrdiff_t sv, const JT *joints, ptrdiff_t sj,          \
                                      const T *weights, ptrdiff_t sw, const T *restrict mats,\
                                      ptrdiff_t sm, const T *g, ptrdiff_t sg,                \
                                      T *restrict g_verts, ptrdiff_t sov,                    \
                                      T *restrict g_mats, ptrdiff_t som, size_t *bad)        \
    {                                                                                        \
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
            return FN(NAME##_body)(SK_VJP_ARGS(job, 4, JT));                                 \
        if (job->K == 8)                                                                     \
            return FN(NAME##_body)(SK_VJP_ARGS(job, 8, JT));                                 \
        return FN(NAME##_body)(SK_VJP_ARGS(job, job->K, JT));                                \
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
