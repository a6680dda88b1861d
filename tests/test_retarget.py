"""Retargeting (skinkit.retarget, src/retarget.c): the invariants of issue 22, with world
positions from forward kinematics and rotations compared through SciPy."""
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.clip import Channel, Clip
from skinkit.humanoid import humanoid_model

DATA = Path(__file__).parent / "data"
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


def test_cmu_bvh_onto_a_mixamo_like_character():
    src = skinkit.load_bvh(DATA / "bvh" / "cmu_01_03_first300.bvh")
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
