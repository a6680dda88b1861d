/* dqs_influence.h -- one influence of a vertex in dual quaternion skinning, shared by dqs.c and
 * dqs_avx2.c.  Included after real.h, once per precision. */

/* Influence `at` (flat index in joints): 1 with *r its joint record and *ws its weight signed
 * for the hemisphere of *pivot (set by the first influence used), 0 to skip it (joint -1 or
 * weight 0, or an index outside 0..J-1 when not `check`ed: the caller checked the indices on
 * an earlier pose), SK_ERR_JOINT_INDEX for an index outside 0..J-1 when `check`. */
static inline int FN(dq_influence)(const void *joints, int itype, size_t at, size_t J, int check,
                                   const T *rec, T wk, const T **pivot, const T **r, T *ws)
{
    int64_t j = itype == SK_U8    ? ((const uint8_t *)joints)[at]
                : itype == SK_U16 ? ((const uint16_t *)joints)[at]
                                  : ((const int32_t *)joints)[at];
    if (j < 0 || (size_t)j >= J)
        return j == -1 || !check ? 0 : SK_ERR_JOINT_INDEX;
    if (wk == 0)
        return 0;
    const T *q = rec + SK_DQ_RECORD * (size_t)j, *p = *pivot ? *pivot : q;
    *pivot = p;
    *r = q;
    *ws = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0 ? -wk : wk;
    return 1;
}
