// tests/test_ik_ozz.py's peer: ozz-animation's IKTwoBoneJob and IKAimJob on jobs read from stdin,
// built against ozz's sources ($SKINKIT_OZZ_SRC).  stdin: "two", three model-space matrices
// (16 floats each, column-major as ozz's Float4x4 cols), target, pole, mid_axis (3 each),
// weight, soften, twist; or "aim", a matrix, target, forward, up, offset, pole, twist, weight.
// stdout per job: the corrections (x y z w) and reached (0/1).
#include <cstdio>
#include <cstring>
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
using namespace ozz::math;
static Float4x4 mat() {
  float v[16];
  for (int i = 0; i < 16; i++) if (scanf("%f", &v[i]) != 1) v[i] = 0;
  Float4x4 m;
  for (int c = 0; c < 4; c++) m.cols[c] = simd_float4::Load(v[4 * c], v[4 * c + 1], v[4 * c + 2], v[4 * c + 3]);
  return m;
}
static SimdFloat4 vec(float w) {
  float v[3];
  for (int i = 0; i < 3; i++) if (scanf("%f", &v[i]) != 1) v[i] = 0;
  return simd_float4::Load(v[0], v[1], v[2], w);
}
static float num() { float f = 0; if (scanf("%f", &f) != 1) f = 0; return f; }
static void put(const SimdQuaternion& q) {
  float o[4]; StorePtrU(q.xyzw, o); printf("%.9g %.9g %.9g %.9g ", o[0], o[1], o[2], o[3]);
}
int main() {
  char kind[8];
  while (scanf("%7s", kind) == 1) {
    if (!strcmp(kind, "two")) {
      Float4x4 s = mat(), m = mat(), e = mat();
      ozz::animation::IKTwoBoneJob job;
      job.start_joint = &s; job.mid_joint = &m; job.end_joint = &e;
      job.target = vec(1); job.pole_vector = vec(0); job.mid_axis = vec(0);
      job.weight = num(); job.soften = num(); job.twist_angle = num();
      SimdQuaternion qs, qm; bool reached = false;
      job.start_joint_correction = &qs; job.mid_joint_correction = &qm; job.reached = &reached;
      if (!job.Run()) { printf("invalid\n"); continue; }
      put(qs); put(qm); printf("%d\n", reached ? 1 : 0);
    } else {
      Float4x4 j = mat();
      ozz::animation::IKAimJob job;
      job.joint = &j; job.target = vec(1); job.forward = vec(0); job.up = vec(0);
      job.offset = vec(0); job.pole_vector = vec(0); job.twist_angle = num(); job.weight = num();
      SimdQuaternion q; bool reached = false;
      job.joint_correction = &q; job.reached = &reached;
      if (!job.Run()) { printf("invalid\n"); continue; }
      put(q); printf("%d\n", reached ? 1 : 0);
    }
  }
  return 0;
}
