/* lbs_joints.h -- reading a joint index of type itype (enum sk_index_type), and what an index
 * outside 0..J-1 means, shared by the skinning kernels (lbs.c, lbs_vjp.c, the SIMD variants
 * through lbs_simd.h).  Included after real.h. */
static inline int64_t FN(joint_at)(const void *joints, int itype, size_t i)
{
    switch (itype) {
    case SK_U8: return ((const uint8_t *)joints)[i];
    case SK_U16: return ((const uint16_t *)joints)[i];
    default: return ((const int32_t *)joints)[i];
    }
}

#ifndef SK_SKIP_JOINT
#define SK_SKIP_JOINT
/* Influence i's joint index j (as size_t) lies outside 0..J-1: 1 if the kernel skips it (-1 of
 * a signed index type is no influence; with bad NULL the indices were checked on an earlier
 * pose of the call), else 0 with *bad = i, and the kernel returns SK_ERR_JOINT_INDEX. */
static inline int skip_joint(size_t j, int is_signed, size_t i, size_t *bad)
{
    if ((is_signed && j == (size_t)-1) || !bad)
        return 1;
    *bad = i;
    return 0;
}
#endif
