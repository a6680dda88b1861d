/* simd.h -- internal: the SIMD variants and their run-time choice (cpu.c). */
#ifndef SK_SIMD_H
#define SK_SIMD_H
#include "skinkit.h"

/* the lanes of a compressed clip's lane group (compress_decode.c, compress_avx2.c) */
#define SK_CLANES 32


#if defined(SK_HAVE_AVX2)
/* lbs_avx2.c / lbs_avx512.c: one float32 pose of linear blend skinning, J <= SK_AVX2_MAX_JOINTS
   (its transposed matrices live on the stack: 16 KiB); the job's vertices packed (strides 3, K
   and 0 for the transforms: lbs.c checks) */
#define SK_AVX2_MAX_JOINTS 256
int sk_lbs_pose_avx2(const sk_skin_job_f *job);
/* dqs_avx2.c: one float32 pose of dual quaternion skinning with AVX2/FMA, packed vertices,
   every joint record rigid (dqs.c checks); also the AVX-512 level's DQS (there is no AVX-512
   DQS) */
int sk_dqs_pose_avx2(const sk_skin_job_f *job);
/* fk_avx2.c: float32 forward kinematics, J <= SK_FK_SIMD_MAX_JOINTS (TRS: a pose's local
   matrices live on the stack, 6 KiB; rigid: the parents' results of 8 poses, 28 KiB) */
#define SK_FK_SIMD_MAX_JOINTS 128
void sk_forward_kinematics_avx2(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                                const float *rot, ptrdiff_t sr, const float *trans, ptrdiff_t st,
                                const float *scale, ptrdiff_t ss, float *world, ptrdiff_t sw);
void sk_rigid_forward_kinematics_avx2(size_t n, size_t J, const int32_t *parents,
                                      const int32_t *order, const float *rest, ptrdiff_t sx,
                                      const float *rot, ptrdiff_t sr, float *out_rot,
                                      ptrdiff_t sor, float *out_trans, ptrdiff_t sot);
/* lbs_vjp_avx2.c: the float32 linear blend skinning VJP compiled with AVX2/FMA */
int sk_lbs_vjp_avx2(const sk_skin_vjp_job_f *job);
/* sample_avx2.c: a block of times (intervals bk: sk_block_keys_f, sample_keys.h) of one
   float32 LINEAR rotation channel with slerp constants sl into o (sample i at o + i * os), 8
   times at once with AVX2/FMA */
struct sk_block_keys_f;
void sk_sample_slerp_avx2(const float *vals, const float *sl, const struct sk_block_keys_f *bk,
                          float *o, ptrdiff_t os);
/* sample_avx2.c: the times of a block bk of a lane group of 8 channels (sample.c), from its keys
   side by side (lanes, kind 8 components a key: rotations, 3: 3-vectors); lane l's sample i to
   o[l] + i * os[l], the lanes whose o[l] is NULL left out */
struct sk_block_keys_d;
void sk_sample_lanes_avx2_f(int kind, const float *lanes, const struct sk_block_keys_f *bk,
                            float *const o[8], const ptrdiff_t os[8]);
void sk_sample_lanes_avx2_d(int kind, const double *lanes, const struct sk_block_keys_d *bk,
                            double *const o[8], const ptrdiff_t os[8]);
/* sample_avx2.c: the lane group at the one time of bk, lane l's sample to out + off[l] (left out
   where off[l] < 0); packed: every lane in, off[l] = off[0] + l * (components) */
void sk_sample_lanes_once_avx2_f(int kind, int packed, const float *lanes,
                                 const struct sk_block_keys_f *bk, float *out,
                                 const int64_t off[8]);
void sk_sample_lanes_once_avx2_d(int kind, int packed, const double *lanes,
                                 const struct sk_block_keys_d *bk, double *out,
                                 const int64_t off[8]);
/* sample_avx2.c: the times of a block bk of n <= SK_ROW_GROUPS lane groups of one kind (keys
   lanes[g]) whose rows lie side by side, every lane in use (sample.c): group 0's row i at dst +
   i * os, each next group's after it; written with streaming stores */
void sk_sample_rows_avx2_f(int kind, size_t n, const float *const lanes[],
                           const struct sk_block_keys_f *bk, float *dst, ptrdiff_t os);
void sk_sample_rows_avx2_d(int kind, size_t n, const double *const lanes[],
                           const struct sk_block_keys_d *bk, double *dst, ptrdiff_t os);
/* compress_avx2.c: a compressed clip's float32 lane group of SK_CLANES, its n lanes in use: the
   keys made unit, the slerp constants of the keys, the slerp at one parameter (unit_lanes,
   key_lanes and slerp_lanes in compress_decode.c) */
void sk_cclip_unit_avx2(float *q, const int32_t *drop, int n);
void sk_cclip_keys_avx2(const float *a, const float *b, float *k, int n);
void sk_cclip_slerp_avx2(const float *a, const float *b, const float *k, float s, float *row,
                         const int64_t *offset, int n);
/* compress_avx2.c: row row of a float32 lane group whose lanes are all quantized or of 24-bit
   rows (lane_rows in compress_decode.c): lane l's stored component c (of 3) from bit base[l] +
   row bits[l] + off[c][l] (modulo 2^32) of bytes, mask[c][l] its code's bits, its value lo +
   ext (code inv) (lo where mask is 0), or where f24[l] (all bits set) the float32 of the code's
   24 bits as its top ones; the row, its components placed around each lane's dropped one
   (drop[l]), made unit (unit_lanes) into q as sk_cclip_unit_avx2 writes it */
typedef struct {
    const unsigned char *bytes;
    uint32_t row, base[SK_CLANES], bits[SK_CLANES], f24[SK_CLANES];
    uint32_t off[3][SK_CLANES], mask[3][SK_CLANES];
    float lo[3][SK_CLANES], ext[3][SK_CLANES], inv[3][SK_CLANES];
} sk_cclip_codes;
void sk_cclip_rows_avx2(const sk_cclip_codes *codes, const int32_t *drop, float *q, int n);
/* compress_encode.c: the end of segment seg's keys from key i (the keys of rows row0 + i step
   below (seg + 1) per) */
size_t sk_segment_keys(const sk_rate_bounds_job *job, size_t i, size_t seg);
/* compress_encode_avx2.c: the bounds of track m of the job at rates k0 .. k0 + lanes - 1
   (lanes <= 4), a rate in each lane, into out: the portable code's bits */
void sk_rate_bounds4_avx2(const sk_rate_bounds_job *job, size_t m, size_t k0, size_t lanes,
                          double out[4]);
/* compress_encode_avx2.c: sk_track_bounds of the first 4 levels, a level in each lane, the portable
   code's bits */
void sk_track_bounds4_avx2(const sk_track_bounds_job *job);
/* compress_encode.c: x as a float32 with its low 8 bits rounded away (the decoder's 24-bit
   float, compressed_clip.round24) */
double sk_round24(double x);
/* compress_avx2.c: a run of n constants v to rows rows of o, os apart (copy_run) */
void sk_cclip_fill_avx2(float *o, ptrdiff_t os, size_t rows, const float *v, int64_t n);
/* shell_error_avx2.c: the float64 sk_shell_check of the job's first n - n % 4 poses, four at
   a time, the portable code's bits: the poses done (*above set where a group was above the
   job's limit) */
size_t sk_shell_error_fk4_avx2(const sk_shell_fk_job_d *job, int *above);
/* sample_avx2.c: sk_fill_rows with streaming stores */
void sk_fill_rows_avx2_f(size_t nrows, const float *row, size_t len, float *out);
void sk_fill_rows_avx2_d(size_t nrows, const double *row, size_t len, double *out);
#endif
#if defined(SK_HAVE_AVX512)
/* fk_avx512.c: sk_forward_kinematics_avx2 with AVX-512, the same bits; fk.c calls it for the
   ranges whose matrices take less than SK_FK_AVX512_BELOW bytes */
void sk_forward_kinematics_avx512(size_t n, size_t J, const int32_t *parents,
                                  const int32_t *order, const float *rot, ptrdiff_t sr,
                                  const float *trans, ptrdiff_t st, const float *scale,
                                  ptrdiff_t ss, float *world, ptrdiff_t sw);
#define SK_FK_AVX512_BELOW ((size_t)8 << 20) /* the measurements: fk.c */
int sk_lbs_pose_avx512(const sk_skin_job_f *job);
/* sample_avx512.c: sk_sample_lanes_avx2_d with the 8 lanes in one register, the same bits */
void sk_sample_lanes_avx512_d(int kind, const double *lanes, const struct sk_block_keys_d *bk,
                              double *const o[8], const ptrdiff_t os[8]);
void sk_sample_lanes_once_avx512_d(int kind, int packed, const double *lanes,
                                   const struct sk_block_keys_d *bk, double *out,
                                   const int64_t off[8]);
void sk_sample_rows_avx512_d(int kind, size_t n, const double *const lanes[],
                             const struct sk_block_keys_d *bk, double *dst, ptrdiff_t os);
#endif
#endif
