"""Retargeting (skinkit.retarget, src/retarget.c): the invariants of issue 22, with world
positions from forward kinematics and rotations compared through SciPy."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.model.clip import Channel, Clip
from skinkit.model.humanoid import humanoid_model
from skinkit import Model, Skeleton

from conftest import BVH, GLTF

T = np.linspace(0.0, 1.0, 11)


def random_clip(model, seed=0, amplitude=0.6):
    rng = np.random.default_rng(seed)
    J = model.skeleton.count
    rest = Rotation.from_quat(model.skeleton.rotations)
    ch = []
    for j in range(J):
        d = Rotation.from_rotvec(rng.normal(size=(T.size, 3)) * amplitude)
        ch.append(Channel(j, "rotation", T, (rest[j] * d).as_quat()))
    root = np.asarray(model.skeleton.translations[0]) + rng.normal(size=(T.size, 3)) * 0.2
    ch.append(Channel(0, "translation", T, root))
    return Clip("random", ch)


def with_clip(model, clip):
    model.clips = [clip]
    return model


def world(model, clip):
    return model.world_matrices(clip, T)


def same_rotation(a, b):
    """|q_a . q_b| = 1: the same rotation up to the quaternion's sign"""
    return np.abs(np.einsum("...i,...i", a, b))


def test_onto_the_same_skeleton_returns_the_clip():
    src = humanoid_model("smpl", "T")
    clip = random_clip(src)
    out = skinkit.retarget(with_clip(src, clip), src, clip)
    ref = src.local_pose(clip, T)
    got = src.local_pose(out, T)
    np.testing.assert_allclose(same_rotation(got[1], ref[1]), 1.0, atol=1e-12)
    np.testing.assert_allclose(got[0], ref[0], atol=1e-12)


def test_onto_a_copy_with_rotated_joint_frames_keeps_world_positions():
    src = humanoid_model("mixamo", "T")
    dst = humanoid_model("mixamo", "T", bone_frames=True)
    clip = random_clip(src, seed=1)
    out = skinkit.retarget(with_clip(src, clip), dst, clip)
    np.testing.assert_allclose(world(dst, out)[..., :3, 3], world(src, clip)[..., :3, 3],
                               atol=1e-12)


def test_a_to_b_to_a_returns_the_original():
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", "A", bone_frames=True, scale=1.3, leg_scale=0.9)
    clip = random_clip(a, seed=2)
    ab = skinkit.retarget(with_clip(a, clip), b, clip)
    aba = skinkit.retarget(with_clip(b, ab), a, ab)
    ref, got = a.local_pose(clip, T), a.local_pose(aba, T)
    np.testing.assert_allclose(same_rotation(got[1], ref[1]), 1.0, atol=1e-12)
    np.testing.assert_allclose(got[0], ref[0], atol=1e-12)


def bones(model, clip):
    """unit bone directions (T, J, 3) from each joint to its first child"""
    w = world(model, clip)[..., :3, 3]
    parents = np.asarray(model.skeleton.parents)
    kids = [np.flatnonzero(parents == j) for j in range(len(parents))]
    d = np.stack([w[:, k[0]] - w[:, j] for j, k in enumerate(kids) if k.size], axis=1)
    return d / np.linalg.norm(d, axis=-1, keepdims=True)


@pytest.mark.parametrize("pose", ["T", "A"])
def test_bone_directions_of_mapped_chains_are_parallel(pose):
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", pose, bone_frames=True, scale=0.8, leg_scale=1.2)
    clip = random_clip(a, seed=3)
    out = skinkit.retarget(with_clip(a, clip), b, clip)
    cos = np.einsum("tji,tji->tj", bones(a, clip), bones(b, out))
    # the joints with several children (hips, spine2) point at the spine; the others at their
    # only child: every bone of the humanoid is on a mapped chain
    np.testing.assert_allclose(cos, 1.0, atol=1e-12)


def test_root_scale_by_hips_legs_and_number():
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", "T", scale=0.5)
    clip = random_clip(a, seed=4)
    disp = world(a, clip)[:, 0, :3, 3] - a.world_matrices()[0, 0, :3, 3]
    for scale, factor in (("hips", 0.5), ("legs", 0.5), (2.0, 2.0)):
        out = skinkit.retarget(with_clip(a, clip), b, clip, root_scale=scale)
        got = world(b, out)[:, 0, :3, 3] - b.world_matrices()[0, 0, :3, 3]
        np.testing.assert_allclose(got, factor * disp, atol=1e-12)
    with pytest.raises(ValueError, match="root_scale must be"):
        skinkit.retarget(a, b, clip, root_scale="feet")


def test_unmapped_target_joints_keep_their_rest_pose():
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", "T")
    clip = random_clip(a, seed=5)
    mapping = {"mixamorig:Hips": "pelvis", "mixamorig:LeftUpLeg": "left_hip"}
    out = skinkit.retarget(with_clip(a, clip), b, clip, mapping=mapping)
    assert sorted({ch.node for ch in out.channels}) == [0, b.skeleton.names.index(
        "mixamorig:LeftUpLeg")]
    with pytest.raises(ValueError, match="source joint 'pelvisx'"):
        skinkit.retarget(a, b, clip, mapping={"mixamorig:Hips": "pelvisx"})


@pytest.mark.shared
def test_cmu_bvh_onto_a_mixamo_like_character():
    src = skinkit.load_bvh(BVH / "cmu_01_03_first300.bvh")
    dst = humanoid_model("mixamo", "A", bone_frames=True)
    out = skinkit.retarget(src, dst)
    m = skinkit.joint_mapping(src, dst)
    assert (m >= 0).sum() == 22           # every joint of the humanoid has a CMU joint
    # the mapped limb bones stay parallel to the source's at every frame
    ts = out.channels[0].times[:50]
    ws = src.world_matrices(src.clips[0], ts)[..., :3, 3]
    wt = dst.world_matrices(out, ts)[..., :3, 3]
    for s_name, t_name in (("LeftUpLeg", "mixamorig:LeftUpLeg"), ("LeftArm", "mixamorig:LeftArm")):
        si, ti = src.skeleton.names.index(s_name), dst.skeleton.names.index(t_name)
        sc = list(src.skeleton.parents).index(si)
        tc = list(dst.skeleton.parents).index(ti)
        ds, dt = ws[:, sc] - ws[:, si], wt[:, tc] - wt[:, ti]
        cos = np.einsum("ti,ti->t", ds, dt) / np.linalg.norm(ds, axis=1) / np.linalg.norm(dt, axis=1)
        np.testing.assert_allclose(cos, 1.0, atol=1e-9)


def test_float32_kernel_agrees_with_float64():
    parents = np.array([-1, 0, 1, 1])
    sw = Rotation.random(20, random_state=3).as_quat().reshape(5, 4, 4)
    off = Rotation.random(4, random_state=4).as_quat()
    rest = Rotation.random(4, random_state=5).as_quat()
    mapped = np.array([1, 1, 0, 1.0])
    l64, w64 = skinkit.retarget_rotations(parents, sw, off, mapped, rest)
    l32, w32 = skinkit.retarget_rotations(parents, sw.astype(np.float32), off, mapped, rest)
    assert l32.dtype == np.float32
    np.testing.assert_allclose(same_rotation(l32, l64), 1.0, atol=1e-5)
    # reference: world = source * offset where mapped, parent world * rest where not
    ref = Rotation.from_quat(sw[:, 0]) * Rotation.from_quat(off[0])
    np.testing.assert_allclose(same_rotation(w64[:, 0], ref.as_quat()), 1.0, atol=1e-12)
    ref2 = Rotation.from_quat(w64[:, 1]) * Rotation.from_quat(rest[2])
    np.testing.assert_allclose(same_rotation(w64[:, 2], ref2.as_quat()), 1.0, atol=1e-12)
    np.testing.assert_allclose(same_rotation(l64[:, 2], np.broadcast_to(rest[2], (5, 4))), 1.0,
                               atol=1e-12)


def test_retarget_pose_on_arrays_matches_the_clip_and_broadcasts():
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", "A", bone_frames=True, scale=1.2)
    clip = random_clip(a, seed=6)
    out = skinkit.retarget(with_clip(a, clip), b, clip)
    tr, ro, sc = a.local_pose(clip, T)
    rot, root, root_t = skinkit.retarget_pose(a, b, ro.reshape(11, 1, 22, 4),
                                              tr.reshape(11, 1, 22, 3))
    assert rot.shape == (11, 1, 22, 4) and root_t.shape == (11, 1, 3) and root == 0
    want = b.local_pose(out, T)
    np.testing.assert_allclose(same_rotation(rot[:, 0], want[1]), 1.0, atol=1e-12)
    np.testing.assert_allclose(root_t[:, 0], want[0][:, 0], atol=1e-12)


# --- hostile mappings and arguments -----------------------------------------------------------


def renamed(model, **names):
    """``model`` with joints renamed {index as "j<i>": new name}."""
    new = list(model.skeleton.names)
    for key, name in names.items():
        new[int(key[1:])] = name
    model.skeleton.names = new
    return model


def empty_model(clip):
    skeleton = Skeleton([], np.zeros(0, np.int32), np.zeros((0, 3)), np.zeros((0, 4)),
                        np.zeros((0, 3)))
    return Model(skeleton, [], [], [clip])


def two_joints(prefix, child_offset):
    """A root and one child at ``child_offset`` from it, named <prefix>0 and <prefix>1."""
    return Model(Skeleton([f"{prefix}0", f"{prefix}1"], np.array([-1, 0], np.int32),
                          np.array([[0.0, 0, 0], child_offset]), np.tile([0.0, 0, 0, 1], (2, 1)),
                          np.ones((2, 3))), [], [], [])


def other_clip(node):
    return Clip("other", [Channel(node, "rotation", T, np.tile([0.0, 0, 0, 1], (T.size, 1)))])


SMPL_CLIP = random_clip(humanoid_model("smpl", "T"), seed=7)
HIPS = "mixamorig:Hips"
# (case, source, target, retarget keywords, error, message): source and target are made per
# test (None: the SMPL and Mixamo humanoids)
HOSTILE = [
    ("a target name not in the target", None, None, dict(mapping={"mixamorig:Hipz": "pelvis"}),
     ValueError, "target joint 'mixamorig:Hipz', which the target skeleton does not have"),
    ("a source name not in the source", None, None, dict(mapping={HIPS: "pelvisx"}),
     ValueError, "source joint 'pelvisx', which the source skeleton does not have"),
    ("the mapping the wrong way round", None, None, dict(mapping={"pelvis": HIPS}),
     ValueError, "target joint 'pelvis', which the target skeleton does not have"),
    ("a name the target has twice", None, lambda: renamed(humanoid_model("mixamo", "T"),
                                                          j2="mixamorig:Spine"),
     dict(mapping={"mixamorig:Spine": "spine1"}), ValueError,
     r"target joint 'mixamorig:Spine', which the target skeleton has 2 times \(\[1, 2\]"),
    ("an int key", None, None, dict(mapping={0: "pelvis"}), TypeError,
     r"mapping: target joint names must be str, got 0 \(int\)"),
    ("a None value", None, None, dict(mapping={HIPS: None}), TypeError,
     r"mapping: source joint names must be str, got None \(NoneType\)"),
    ("a bytes key", None, None, dict(mapping={b"mixamorig:Hips": "pelvis"}), TypeError,
     r"target joint names must be str, got b'mixamorig:Hips' \(bytes\)"),
    ("an empty mapping", None, None, dict(mapping={}), ValueError,
     r"no target joint is mapped to a source joint \(mapping is empty\)"),
    ("a preset's name", None, None, dict(mapping="mixamo"), TypeError,
     r"mapping must be a dict .* \(presets, smpl, mixamo, motionbuilder, cmu, lafan1, are "
     r"detected\), got str 'mixamo'"),
    ("a preset that does not exist", None, None, dict(mapping="blender"), TypeError,
     "mapping must be a dict .* got str 'blender'"),
    ("a list of pairs", None, None, dict(mapping=[(HIPS, "pelvis")]), TypeError,
     "mapping must be a dict .* got list"),
    ("a target without joints", None, lambda: empty_model(SMPL_CLIP), {}, ValueError,
     r"the target skeleton: no joint-name preset matches the skeleton \(names such as \[\]\)"),
    ("a target without joints, mapped", None, lambda: empty_model(SMPL_CLIP),
     dict(mapping={HIPS: "pelvis"}), ValueError,
     "target joint 'mixamorig:Hips', which the target skeleton does not have"),
    ("a source without joints", lambda: empty_model(SMPL_CLIP), None, {}, ValueError,
     "clip 'random' animates node 21, but the rest pose has 0 nodes"),
    ("a target of no preset", None, lambda: renamed(humanoid_model("mixamo", "T"),
                                                    **{f"j{i}": f"bone{i}" for i in range(22)}),
     {}, ValueError, r"the target skeleton: no joint-name preset matches the skeleton \(names "
                     r"such as \['bone0'"),
    ("a clip of another skeleton", None, None, dict(clip=other_clip(40)), ValueError,
     "clip 'other' animates node 40, but the rest pose has 22 nodes"),
    ("a clip index out of range", None, None, dict(clip=5), ValueError,
     "clip index 5 is out of range"),
    ("a clip name the source has not", None, None, dict(clip="walk"), ValueError,
     "no clip named 'walk'"),
    ("root_scale NaN", None, None, dict(root_scale=float("nan")), ValueError,
     "root_scale must be a finite number, got nan"),
    ("root_scale infinite", None, None, dict(root_scale=float("inf")), ValueError,
     "root_scale must be a finite number, got inf"),
    ("root_scale legs, the knee unmapped", None, None,
     dict(root_scale="legs", mapping={HIPS: "pelvis", "mixamorig:LeftUpLeg": "left_hip",
                                      "mixamorig:LeftFoot": "left_ankle"}), ValueError,
     "root_scale='legs' needs the target's left_hip, left_knee, left_ankle .* mapped"),
    ("root_scale legs on a target of no preset", lambda: two_joints("s", [0, 1.0, 0]),
     lambda: two_joints("t", [0, 1.0, 0]), dict(root_scale="legs", mapping={"t0": "s0"}),
     ValueError, "root_scale='legs' needs the target's left_hip"),
    ("root_scale hips, the source root at its lowest joint", lambda: two_joints("s", [0, 1.0, 0]),
     lambda: two_joints("t", [0, 1.0, 0]), dict(mapping={"t0": "s0", "t1": "s1"}), ValueError,
     r"root_scale='hips': the source's root joint 0 is at the height of its lowest joint"),
]


@pytest.mark.parametrize("case,source,target,kw,error,message", HOSTILE,
                         ids=[c[0] for c in HOSTILE])
def test_a_hostile_mapping_or_argument_is_one_clear_error(case, source, target, kw, error,
                                                          message):
    src = source() if source else with_clip(humanoid_model("smpl", "T"), SMPL_CLIP)
    if not src.clips:
        src.clips = [Clip("two", [Channel(1, "rotation", T, np.tile([0.0, 0, 0, 1],
                                                                    (T.size, 1)))])]
    dst = target() if target else humanoid_model("mixamo", "T")
    with pytest.raises(error, match=message):
        skinkit.retarget(src, dst, **kw)


def test_a_mapped_child_of_an_unmapped_parent_follows_its_source_joint():
    """LeftLeg mapped, LeftUpLeg (its parent) not: LeftUpLeg keeps its rest local rotation and
    LeftLeg still turns in world space as the source's knee does."""
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", "T")
    clip = random_clip(a, seed=8)
    out = skinkit.retarget(with_clip(a, clip), b, clip,
                           mapping={HIPS: "pelvis", "mixamorig:LeftLeg": "left_knee"})
    up, leg = (b.skeleton.names.index(n) for n in ("mixamorig:LeftUpLeg", "mixamorig:LeftLeg"))
    assert up not in {ch.node for ch in out.channels}
    knee = a.skeleton.names.index("left_knee")
    turn_s = world(a, clip)[:, knee, :3, :3] @ np.linalg.inv(a.world_matrices()[0, knee, :3, :3])
    turn_t = world(b, out)[:, leg, :3, :3] @ np.linalg.inv(b.world_matrices()[0, leg, :3, :3])
    np.testing.assert_allclose(turn_t, turn_s, atol=1e-12)


def test_two_target_joints_on_one_source_joint_turn_as_one_piece():
    """Spine and Spine1 both follow the source's spine1: Spine1's local rotation stays what it
    is at the first frame (the two are rigid), while Spine turns."""
    a = humanoid_model("smpl", "T")
    b = humanoid_model("mixamo", "T")
    clip = random_clip(a, seed=9)
    out = skinkit.retarget(with_clip(a, clip), b, clip, mapping={
        HIPS: "pelvis", "mixamorig:Spine": "spine1", "mixamorig:Spine1": "spine1"})
    spine, spine1 = (b.skeleton.names.index(n) for n in ("mixamorig:Spine", "mixamorig:Spine1"))
    rot = b.local_pose(out, T)[1]
    np.testing.assert_allclose(same_rotation(rot[:, spine1], rot[:1, spine1]), 1.0, atol=1e-12)
    assert same_rotation(rot[:, spine], rot[:1, spine]).min() < 0.99


def _rotation_error(a, b):
    """The largest angle (radians) between the world rotations (T, J, 4, 4) of a and b."""
    r = np.einsum("...ji,...jk->...ik", a[..., :3, :3], b[..., :3, :3])
    return np.abs(Rotation.from_matrix(r.reshape(-1, 3, 3)).magnitude()).max()


def random_pair(seed):
    """Skeleton A (a random tree of mapped joints m0..m11, random rest TRS) and B: the same
    mapped names in the same tree, other rest offsets and rotations, and unmapped joints
    (u0, u1, ...) inserted between some joints and their parents and as extra leaves."""
    rng = np.random.default_rng(seed)
    n = 12
    parents_a = [-1] + [int(rng.integers(0, j)) for j in range(1, n)]
    names_b, parents_b, index = [], [], {}
    for j in range(n):
        p = -1 if parents_a[j] < 0 else index[parents_a[j]]
        for _ in range(int(rng.integers(0, 3)) if j else 0):   # unmapped joints in between
            names_b.append(f"u{len(names_b)}")
            parents_b.append(p)
            p = len(names_b) - 1
        index[j] = len(names_b)
        names_b.append(f"m{j}")
        parents_b.append(p)
        if rng.random() < 0.3:                                  # an unmapped leaf
            names_b.append(f"u{len(names_b)}")
            parents_b.append(index[j])

    def skeleton(names, parents):
        k = len(names)
        return Skeleton(names, np.array(parents), rng.normal(size=(k, 3)) * 0.3,
                        Rotation.random(k, random_state=rng).as_quat(), np.ones((k, 3)))

    a = Model(skeleton([f"m{j}" for j in range(n)], parents_a), [], [], [])
    b = Model(skeleton(names_b, parents_b), [], [], [])
    return a, b, {f"m{j}": f"m{j}" for j in range(n)}


def assert_round_trip(a, b, clip, mapping, mapped, tolerance):
    ab = skinkit.retarget(with_clip(a, clip), b, clip, mapping=mapping, root_scale=1.0)
    back = skinkit.retarget(with_clip(b, ab), a, ab, mapping={v: k for k, v in mapping.items()},
                            root_scale=1.0)
    times = np.unique(np.concatenate([c.times for c in clip.channels]))
    ref, got = a.world_matrices(clip, times)[:, mapped], a.world_matrices(back, times)[:, mapped]
    assert _rotation_error(ref, got) < tolerance


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("direction", ["A -> B -> A", "B -> A -> B"])
def test_a_round_trip_through_unmapped_joints_returns_every_mapped_world_rotation(seed,
                                                                                  direction):
    """Issue 31: the bone of a joint is aligned along its first mapped descendant, through the
    unmapped joints only one skeleton has, so that both directions pair the same bones."""
    a, b, mapping = random_pair(seed)
    if direction == "B -> A -> B":
        a, b = b, a
    mapped = [j for j, n in enumerate(a.skeleton.names) if n in mapping]
    assert_round_trip(a, b, random_clip(a, seed=seed), mapping, mapped, 1e-9)


@pytest.mark.shared
def test_cmu_bvh_to_cesium_man_and_back():
    """CMU's LowerBack (between Hips and Spine) and Neck1 (between Neck and Head) and CesiumMan's
    unmapped joints: every mapped joint returns (0.17 rad at Hips before issue 31)."""
    cmu = skinkit.load_bvh(BVH / "cmu_01_03_first300.bvh")
    man = skinkit.load_gltf(GLTF / "CesiumMan.glb")
    mapping = dict(zip(   # CMU joint -> CesiumMan joint (no preset names CesiumMan's)
        ["Hips", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase", "LeftUpLeg", "LeftLeg",
         "LeftFoot", "LeftToeBase", "Spine", "Spine1", "RightArm", "RightForeArm", "RightHand",
         "LeftArm", "LeftForeArm", "LeftHand", "Neck", "Head"],
        ["Skeleton_torso_joint_1", "leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3",
         "leg_joint_R_5", "leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3", "leg_joint_L_5",
         "Skeleton_torso_joint_2", "torso_joint_3", "Skeleton_arm_joint_R",
         "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_", "Skeleton_arm_joint_L__4_",
         "Skeleton_arm_joint_L__3_", "Skeleton_arm_joint_L__2_", "Skeleton_neck_joint_1",
         "Skeleton_neck_joint_2"]))
    assert {"LowerBack", "Neck1"} <= set(cmu.skeleton.names) - set(mapping)
    clip = cmu.clips[0]
    short = Clip("c", [Channel(c.node, c.path, c.times[:20], c.values[:20])
                       for c in clip.channels])
    mapped = [j for j, n in enumerate(cmu.skeleton.names) if n in mapping]
    inverse = {v: k for k, v in mapping.items()}
    # CesiumMan's rest scales and rotations are unit to float32 rounding (1.2e-7): its world
    # matrices are rotations to that, and so is the round trip; rounded to unit, within 1e-9
    assert_round_trip(cmu, man, short, inverse, mapped, 2e-7)
    man.skeleton.scales[:] = 1.0
    q = np.asarray(man.skeleton.rotations)
    man.skeleton.rotations[:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    assert_round_trip(cmu, man, short, inverse, mapped, 1e-9)
