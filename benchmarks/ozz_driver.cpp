// ozz_driver.cpp -- ozz-animation's runtime jobs, driven for skinkit's benchmark suite
// (benchmarks/ozz.py compiles it against an ozz source tree and build the user points to, and
// calls it through ctypes, which releases the GIL).  Each function runs the jobs the way an ozz
// user writes them: the skeleton and the animation built once by ozz's offline builders,
// SamplingJob with one Context per playback, LocalToModelJob per pose, SkinningJob per mesh.
// Inputs arrive as skinkit's arrays (array of structures, row-major matrices acting on column
// vectors); what ozz keeps in its own layout (SoA local transforms, column-major matrices) is
// converted once, outside the timed calls.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace oa = ozz::animation;
namespace om = ozz::math;

namespace {

std::string joint_name(int i) { return "j" + std::to_string(i); }

// joint i of a forest given by parents (parents before children) and its subtree
void add_children(oa::offline::RawSkeleton::Joint* joint, int i, const int* parents, int J) {
  joint->name = joint_name(i).c_str();
  joint->transform = om::Transform::identity();
  for (int c = 0; c < J; c++)
    if (parents[c] == i) {
      joint->children.resize(joint->children.size() + 1);
      add_children(&joint->children.back(), c, parents, J);
    }
}

// AoS local transforms (t 3, q 4, s 3 per joint, skinkit's joint order) of one pose into ozz's
// SoA transforms (ozz's joint order: ozz_joint[k] is skinkit's joint of ozz joint k)
void to_soa(int J, const int* ozz_joint, const float* t, const float* q, const float* s,
            om::SoaTransform* out) {
  for (int g = 0; g < (J + 3) / 4; g++) {
    float v[10][4];
    for (int l = 0; l < 4; l++) {
      int k = 4 * g + l, j = k < J ? ozz_joint[k] : -1;
      const float id[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
      for (int c = 0; c < 10; c++)
        v[c][l] = j < 0   ? id[c]
                  : c < 3 ? t[3 * j + c]
                  : c < 7 ? q[4 * j + c - 3]
                          : s[3 * j + c - 7];
    }
    om::SimdFloat4 r[10];
    for (int c = 0; c < 10; c++) r[c] = om::simd_float4::LoadPtrU(v[c]);
    out[g].translation = om::SoaFloat3::Load(r[0], r[1], r[2]);
    out[g].rotation = om::SoaQuaternion::Load(r[3], r[4], r[5], r[6]);
    out[g].scale = om::SoaFloat3::Load(r[7], r[8], r[9]);
  }
}

}  // namespace

struct OzzSkeleton {
  ozz::unique_ptr<oa::Skeleton> skeleton;
  std::vector<int> ozz_joint;  // skinkit's joint index of each ozz joint
};

struct OzzFk {
  OzzSkeleton* skel;
  int poses;
  std::vector<om::SoaTransform> locals;  // poses x num_soa_joints
};

struct OzzClip {
  ozz::unique_ptr<oa::Animation> animation;
  oa::SamplingJob::Context context;
  std::vector<om::SoaTransform> out;  // times x num_soa_tracks, grown as needed
};

extern "C" {

// A skeleton of J joints (parents[j] < j, -1 for roots); ozz orders joints its own way.
OzzSkeleton* ozz_skeleton_new(int J, const int* parents) {
  oa::offline::RawSkeleton raw;
  for (int j = 0; j < J; j++)
    if (parents[j] < 0) {
      raw.roots.resize(raw.roots.size() + 1);
      add_children(&raw.roots.back(), j, parents, J);
    }
  OzzSkeleton* s = new OzzSkeleton;
  s->skeleton = oa::offline::SkeletonBuilder()(raw);
  if (!s->skeleton) {
    delete s;
    return nullptr;
  }
  for (const char* name : s->skeleton->joint_names()) s->ozz_joint.push_back(std::atoi(name + 1));
  return s;
}

void ozz_skeleton_free(OzzSkeleton* s) { delete s; }

// skinkit's joint index of each ozz joint (J entries)
void ozz_skeleton_order(const OzzSkeleton* s, int* out) {
  std::memcpy(out, s->ozz_joint.data(), s->ozz_joint.size() * sizeof(int));
}

// FK input: poses x J local transforms (t, q, s AoS in skinkit's joint order), kept as SoA
OzzFk* ozz_fk_new(OzzSkeleton* s, int poses, const float* t, const float* q, const float* sc) {
  int J = s->skeleton->num_joints(), soa = s->skeleton->num_soa_joints();
  OzzFk* f = new OzzFk{s, poses, std::vector<om::SoaTransform>(size_t(poses) * soa)};
  for (int p = 0; p < poses; p++)
    to_soa(J, s->ozz_joint.data(), t + size_t(p) * J * 3, q + size_t(p) * J * 4,
           sc + size_t(p) * J * 3, &f->locals[size_t(p) * soa]);
  return f;
}

void ozz_fk_free(OzzFk* f) { delete f; }

// LocalToModelJob of every pose into out (poses x J column-major 4x4, ozz's joint order;
// 16-byte aligned); returns 0, or -1 if a job fails
int ozz_fk_run(const OzzFk* f, float* out) {
  const oa::Skeleton& sk = *f->skel->skeleton;
  int J = sk.num_joints(), soa = sk.num_soa_joints();
  om::Float4x4* models = reinterpret_cast<om::Float4x4*>(out);
  for (int p = 0; p < f->poses; p++) {
    oa::LocalToModelJob job;
    job.skeleton = &sk;
    job.input = ozz::span<const om::SoaTransform>(&f->locals[size_t(p) * soa], size_t(soa));
    job.output = ozz::span<om::Float4x4>(models + size_t(p) * J, size_t(J));
    if (!job.Run()) return -1;
  }
  return 0;
}

// A clip of J tracks of K LINEAR keys at key_times (seconds, from 0): translations (J, K, 3),
// rotations (J, K, 4), scales (J, K, 3) or NULL; iframe_interval as AnimationBuilder's (0: none)
OzzClip* ozz_clip_new(int J, int K, const float* key_times, const float* t, const float* q,
                      const float* s, float iframe_interval) {
  oa::offline::RawAnimation raw;
  raw.duration = key_times[K - 1];
  raw.tracks.resize(size_t(J));
  for (int j = 0; j < J; j++) {
    oa::offline::RawAnimation::JointTrack& tr = raw.tracks[size_t(j)];
    for (int k = 0; k < K; k++) {
      size_t i = size_t(j) * K + k;
      tr.translations.push_back({key_times[k], om::Float3(t[3 * i], t[3 * i + 1], t[3 * i + 2])});
      tr.rotations.push_back(
          {key_times[k], om::Quaternion(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3])});
      tr.scales.push_back({key_times[k], s ? om::Float3(s[3 * i], s[3 * i + 1], s[3 * i + 2])
                                           : om::Float3::one()});
    }
  }
  oa::offline::AnimationBuilder builder;
  builder.iframe_interval = iframe_interval;
  OzzClip* c = new OzzClip;
  c->animation = builder(raw);
  if (!c->animation) {
    delete c;
    return nullptr;
  }
  c->context.Resize(J);
  return c;
}

void ozz_clip_free(OzzClip* c) { delete c; }

float ozz_clip_duration(const OzzClip* c) { return c->animation->duration(); }

// One SamplingJob per time (times in seconds, as a playback loop calls it), each into its own
// SoA pose of the clip's buffer; the context keeps its cursors from one call to the next.
int ozz_clip_sample(OzzClip* c, int ntimes, const float* times) {
  size_t soa = size_t(c->animation->num_soa_tracks());
  if (c->out.size() < soa * ntimes) c->out.resize(soa * ntimes);
  float inv = 1.f / c->animation->duration();
  for (int i = 0; i < ntimes; i++) {
    oa::SamplingJob job;
    job.animation = c->animation.get();
    job.context = &c->context;
    job.ratio = times[i] * inv;
    job.output = ozz::span<om::SoaTransform>(&c->out[soa * i], soa);
    if (!job.Run()) return -1;
  }
  return 0;
}

// The last ozz_clip_sample's first ntimes poses as AoS t (ntimes, J, 3), q (.., 4), s (.., 3)
void ozz_clip_read(const OzzClip* c, int ntimes, float* t, float* q, float* s) {
  int J = c->animation->num_tracks(), soa = c->animation->num_soa_tracks();
  for (int i = 0; i < ntimes; i++)
    for (int g = 0; g < soa; g++) {
      const om::SoaTransform& x = c->out[size_t(i) * soa + g];
      float v[10][4];
      const om::SimdFloat4 r[10] = {x.translation.x, x.translation.y, x.translation.z,
                                    x.rotation.x,    x.rotation.y,    x.rotation.z,
                                    x.rotation.w,    x.scale.x,       x.scale.y,
                                    x.scale.z};
      for (int e = 0; e < 10; e++) om::StorePtrU(r[e], v[e]);
      for (int l = 0; l < 4 && 4 * g + l < J; l++) {
        size_t j = size_t(i) * J + 4 * g + l;
        for (int e = 0; e < 3; e++) t[3 * j + e] = v[e][l], s[3 * j + e] = v[7 + e][l];
        for (int e = 0; e < 4; e++) q[4 * j + e] = v[3 + e][l];
      }
    }
}

// SkinningJob of V vertices with 4 uint16 joints and 3 weights each (ozz rebuilds the 4th as 1
// minus their sum), J column-major skinning matrices (16-byte aligned), normals optional
int ozz_skin(int V, int J, const uint16_t* joints, const float* weights3, const float* mats,
             const float* pos, const float* nrm, float* out_pos, float* out_nrm) {
  ozz::geometry::SkinningJob job;
  job.vertex_count = V;
  job.influences_count = 4;
  job.joint_matrices =
      ozz::span<const om::Float4x4>(reinterpret_cast<const om::Float4x4*>(mats), size_t(J));
  job.joint_indices = ozz::span<const uint16_t>(joints, size_t(V) * 4);
  job.joint_indices_stride = 4 * sizeof(uint16_t);
  job.joint_weights = ozz::span<const float>(weights3, size_t(V) * 3);
  job.joint_weights_stride = 3 * sizeof(float);
  job.in_positions = ozz::span<const float>(pos, size_t(V) * 3);
  job.in_positions_stride = 3 * sizeof(float);
  job.out_positions = ozz::span<float>(out_pos, size_t(V) * 3);
  job.out_positions_stride = 3 * sizeof(float);
  if (nrm) {
    job.in_normals = ozz::span<const float>(nrm, size_t(V) * 3);
    job.in_normals_stride = 3 * sizeof(float);
    job.out_normals = ozz::span<float>(out_nrm, size_t(V) * 3);
    job.out_normals_stride = 3 * sizeof(float);
  }
  return job.Run() ? 0 : -1;
}

}  // extern "C"
