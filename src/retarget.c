/* retarget.c -- rotations moved from a source skeleton to a target one, in world space relative
 * to each skeleton's rest pose: a mapped target joint j turns from its rest world rotation by
 * what its source joint turned from its own,
 *     W_t[j] = W_s[m(j)] R_s[m(j)]^-1 R_t[j] = W_s[m(j)] C[j],
 * (C[j] = R_s[m(j)]^-1 R_t[j] is the same for every frame: the caller computes it once); an
 * unmapped one keeps its rest local rotation.  Locals follow from the target's hierarchy,
 * L[j] = W_t[parent(j)]^-1 W_t[j]. */
#include "real.h"
#include "qmath.h"
#include "vmath.h"

void FN(sk_retarget_rotations)(size_t n, size_t J, const int32_t *parents, const int32_t *order,
                               const T *source_world, ptrdiff_t s0, const T *offset,
                               ptrdiff_t s1, const T *mapped, ptrdiff_t s2, const T *rest,
                               ptrdiff_t s3, T *restrict local, ptrdiff_t s4,
                               T *restrict world, ptrdiff_t s5)
{
    for (size_t i = 0; i < n; i++) {
        const T *g = source_world + i * s0, *c = offset + i * s1, *m = mapped + i * s2;
        const T *r = rest + i * s3;
        T *l = local + i * s4, *w = world + i * s5;
        for (size_t k = 0; k < J; k++) {
            size_t j = (size_t)order[k];
            int32_t p = parents[j];
            if (m[j] != 0) {
                FN(qmul)(g + 4 * j, c + 4 * j, w + 4 * j);
                FN(qnormalize)(w + 4 * j);
            } else if (p < 0) {
                for (int e = 0; e < 4; e++)
                    w[4 * j + e] = r[4 * j + e];
            } else {
                FN(qmul)(w + 4 * (size_t)p, r + 4 * j, w + 4 * j);
            }
            if (p < 0) {
                for (int e = 0; e < 4; e++)
                    l[4 * j + e] = w[4 * j + e];
            } else {
                T inv[4];
                FN(qconj)(w + 4 * (size_t)p, inv);
                FN(qmul)(inv, w + 4 * j, l + 4 * j);
            }
        }
    }
}
