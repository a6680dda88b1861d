/* fk_trs.h -- internal: the float32 TRS forward kinematics over a range of poses (FK_TRS), one
 * pose at a time, included by fk_avx2.c and fk_avx512.c after their pose_locals (a pose's local
 * matrices into a scratch of 12 floats a joint, LOC(j, r) the first of row r of joint j) and
 * pose_compose (its world matrices, joint by joint in `order`).  A pose reads and writes only its
 * own rows, in order, so large batches stream through the cache; a large range (STREAM_BYTES)
 * composes each pose in a stack scratch and copies it out with streaming stores (when the
 * includer defines FK_STREAMS 1), prefetching the inputs of a pose ahead; a range of
 * PREFETCH_BYTES or more prefetches its inputs and output lines too. */

/* item i of an array of stride s (NULL stays NULL: an absent optional input) */
static inline const float *at(const float *p, ptrdiff_t s, size_t i)
{
    return p ? p + (ptrdiff_t)i * s : NULL;
}

static inline float *at_out(float *p, ptrdiff_t s, size_t i)
{
    return p + (ptrdiff_t)i * s;
}

/* A range whose matrices take at least this many bytes is written with streaming stores: they
 * write each line without reading it first (104 bytes a joint move instead of 168) but leave
 * nothing in the cache and go to memory even when the batch would fit.  Measured with one thread
 * on a 2-vCPU Sapphire Rapids VM, the same batch run again and again: ordinary stores were faster
 * up to 42 MB of matrices (J=24 B=28,672: 194 M joints/s against 180 streaming; J=64 B=10,240:
 * 175 against 166; at 16 MB 256 against 172), streaming stores from 48 MB on (J=24 B=32,768: 184
 * against 160; J=64 B=12,288: 166 against 121).  The threshold depends on the cache left to a
 * thread; it is compared with one thread's range. */
#define STREAM_BYTES ((size_t)48 << 20)
/* the pose whose inputs are prefetched (_MM_HINT_T0, a few lines every block) is this many after
 * the one computed.  Streaming: J=24 B=65,536 +13%, J=64 +9%; 1, 2 or 4 alike; a whole pose at
 * once helped J=24 only, _MM_HINT_NTA halved the rate.  Ordinary stores (PREFETCH_BYTES on): that
 * pose's output lines are prefetched too, a line a joint.  The two builds interleaved in one
 * process, four skeletons of 64 joints at B=1,024 and 4,096 (AVX2): 265-277 M joints/s with the
 * prefetches; without, 257-275 in some processes and 233-251 in others (where the pose's scratch
 * and its output fall in a process); J=24 B=4,096 +2-5%.  1 to 8 poses ahead alike, prefetchw no
 * better than _MM_HINT_T0 */
#define AHEAD 2
/* Ordinary stores prefetch only for a range whose matrices take at least this many bytes (this
 * machine's L2 cache): in the cache the prefetches cost J=24 and 64 B=256 2-8% */
#define PREFETCH_BYTES ((size_t)2 << 20)

void FK_TRS(size_t n, size_t J, const int32_t *parents, const int32_t *order, const float *rot,
            ptrdiff_t sr, const float *trans, ptrdiff_t st, const float *scale, ptrdiff_t ss,
            float *world, ptrdiff_t sw)
{
    float loc[12 * SK_FK_SIMD_MAX_JOINTS];
    float pw[16 + 16 * SK_FK_SIMD_MAX_JOINTS]; /* streaming: 16 floats, then the pose's worlds */
    int32_t plan[3 * SK_FK_SIMD_MAX_JOINTS];
    int stream = FK_STREAMS && sw == (ptrdiff_t)(16 * J) && (uintptr_t)world % 4 == 0 &&
                 n * J * 64 >= STREAM_BYTES;
    int prefetch = n * J * 64 >= PREFETCH_BYTES;
    size_t d = (size_t)((uintptr_t)world % 64 / 4); /* floats of a pose's first line before it */
    for (size_t k = 0; k < J; k++) {
        size_t j = (size_t)order[k];
        plan[3 * k] = (int32_t)LOC(j, 0);
        plan[3 * k + 1] = (int32_t)(16 * j);
        plan[3 * k + 2] = parents[j] < 0 ? -1 : 16 * parents[j];
    }
    for (size_t i = 0; i < n; i++) {
        size_t ia = i + AHEAD < n ? i + AHEAD : i;
        /* (the branch without prefetches written out: one branch passing NULLs took 1.5-4%
           more time in the cache) */
        if (!stream && !prefetch) {
            pose_locals(J, at(rot, sr, i), at(trans, st, i), at(scale, ss, i), loc, NULL, NULL,
                        NULL);
            pose_compose(J, plan, loc, at_out(world, sw, i), NULL);
            continue;
        }
        if (!stream) {
            pose_locals(J, at(rot, sr, i), at(trans, st, i), at(scale, ss, i), loc,
                        at(rot, sr, ia), at(trans, st, ia), at(scale, ss, ia));
            pose_compose(J, plan, loc, at_out(world, sw, i), at_out(world, sw, ia));
            continue;
        }
        /* the pose's worlds go to w; the output lines are written whole: a pose's last d floats
         * wait in w[-d .. 0) for the next pose's first 16 - d, and only the range's first and
         * last part lines (which a neighbouring range may share) take ordinary stores */
        float *o = at_out(world, sw, i), *w = pw + 16;
        ptrdiff_t b = -(ptrdiff_t)d, e = (ptrdiff_t)(16 * J - d);
        pose_locals(J, at(rot, sr, i), at(trans, st, i), at(scale, ss, i), loc, at(rot, sr, ia),
                    at(trans, st, ia), at(scale, ss, ia));
        pose_compose(J, plan, loc, w, NULL);
        if (i == 0) {
            b = (ptrdiff_t)((16 - d) % 16);
            memcpy(o, w, (size_t)b * sizeof *o);
        }
        for (; b < e; b += 16) {
            _mm256_stream_ps(o + b, _mm256_loadu_ps(w + b));
            _mm256_stream_ps(o + b + 8, _mm256_loadu_ps(w + b + 8));
        }
        memcpy(w - d, w + e, d * sizeof *w);
        if (i + 1 == n)
            memcpy(o + e, w - d, d * sizeof *o);
    }
    if (stream)
        _mm_sfence(); /* the streaming stores are seen before whatever follows the call */
}
