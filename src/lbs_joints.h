/* lbs_joints.h -- reading a joint index of type itype (enum sk_index_type), shared by the
 * skinning kernels (lbs.c, lbs_vjp.c).  Included after real.h. */
static inline int64_t FN(joint_at)(const void *joints, int itype, size_t i)
{
    switch (itype) {
    case SK_U8: return ((const uint8_t *)joints)[i];
    case SK_U16: return ((const uint16_t *)joints)[i];
    default: return ((const int32_t *)joints)[i];
    }
}
