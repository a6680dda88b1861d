"""write_bvh (skinkit/io/bvh_write.py): load_bvh of the written file gives the same world
positions (1e-9 of the skeleton's size, float64) for BVH files other programs wrote, a glTF
skeleton and a retargeted humanoid; gimbal-safe rotation orders per joint."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.model.humanoid import humanoid_model

from conftest import BVH, GLTF, shared_files



def assert_same_world(model, clip, path, frame_time, tolerance=1e-9):
    back = skinkit.load_bvh(path)
    names = [n if n else f"joint{j}" for j, n in enumerate(model.skeleton.names)]
    idx = [back.skeleton.names.index(n) for n in names]
    t = np.arange(back.frame_count) * frame_time
    a = model.world_matrices(clip, t)[..., :3, 3]
    b = back.world_matrices(0, t)[:, idx][..., :3, 3]
    size = np.ptp(a.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(b, a, atol=tolerance * size, rtol=0)
    return back


@pytest.mark.shared
@pytest.mark.parametrize("name", [p.name for p in shared_files(BVH, "*.bvh")])
def test_bvh_files_round_trip(name, tmp_path):
    model = skinkit.load_bvh(BVH / name)
    skinkit.write_bvh(model, 0, tmp_path / "out.bvh")
    back = assert_same_world(model, 0, tmp_path / "out.bvh", model.frame_time)
    assert back.frame_count == model.frame_count
    assert back.skeleton.count == model.skeleton.count     # End Sites written back as such


@pytest.mark.shared
def test_gltf_skeleton_round_trips(tmp_path):
    model = skinkit.load_gltf(GLTF / "CesiumMan.glb")
    # its scale keys are 1 to float32 rounding: BVH has no scale, so the clip without them, and
    # its rotation keys unit to float32 rounding (FK uses them as given): normalized
    unit = lambda c: c.values / np.linalg.norm(c.values, axis=1, keepdims=True) \
        if c.path == "rotation" else c.values
    clip = skinkit.Clip("walk", [skinkit.Channel(c.node, c.path, c.times, unit(c), c.interpolation)
                                 for c in model.clips[0].channels if c.path != "scale"])
    model.skeleton.scales[:] = 1.0
    skinkit.write_bvh(model, clip, tmp_path / "cesium.bvh", frame_time=1 / 24)
    assert_same_world(model, clip, tmp_path / "cesium.bvh", 1 / 24)


def test_orders_avoid_gimbal_lock(tmp_path):
    model = humanoid_model("mixamo", "T", bone_frames=True)
    t = np.arange(10) / 30
    # the left arm turns 90 degrees about Y at the middle of the clip: ZXY's gimbal lock if it
    # were X; the chosen order keeps its middle angle away from 90
    angle = np.linspace(-1.5, 1.5, 10)
    q = Rotation.from_euler("ZXY", np.stack([0 * angle, angle, 0 * angle], 1)).as_quat()
    arm = model.skeleton.names.index("mixamorig:LeftArm")
    clip = skinkit.Clip("turn", [skinkit.Channel(arm, "rotation", t, q)])
    skinkit.write_bvh(model, clip, tmp_path / "t.bvh")
    text = (tmp_path / "t.bvh").read_text()
    block = text[text.index("JOINT mixamorig:LeftArm"):]
    channels = block.splitlines()[3].split()[2:]
    assert channels[1] != "Xrotation"
    assert_same_world(model, clip, tmp_path / "t.bvh", 1 / 30)


def test_a_uniform_scale_is_folded_and_a_non_uniform_one_refused(tmp_path):
    model = humanoid_model()
    t = np.arange(3) / 30
    clip = skinkit.Clip("c", [skinkit.Channel(0, "translation", t, np.zeros((3, 3)))])
    model.skeleton.scales[3] = 2.0
    skinkit.write_bvh(model, clip, tmp_path / "u.bvh")
    assert_same_world(model, clip, tmp_path / "u.bvh", 1 / 30)
    model.skeleton.scales[3] = [2.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=r"joint 'mixamorig:Spine2' has the rest scale "
                                         r"\[2.0, 1.0, 1.0\]; BVH joints have no scale"):
        skinkit.write_bvh(model, clip, tmp_path / "s.bvh")
    assert not (tmp_path / "s.bvh").exists()


def test_a_blender_fbx_character_with_its_mesh_at_scale_100_is_written(tmp_path,
                                                                       blender_conversions):
    """Blender's FBX export puts the mesh and helper nodes at scale 100 (centimetres): FBX ->
    BVH keeps every node's world position (the scale folded into the offsets below it)."""
    model = skinkit.load_fbx(blender_conversions / "RiggedSimple.fbx")
    assert np.allclose(model.skeleton.scales[0], 100.0, rtol=1e-6)
    clip = model.clips[0]
    skinkit.write_bvh(model, clip, tmp_path / "b.bvh", frame_time=1 / 24)
    # the file's scales are float32 (100.00002, 100.00001, 100.00001): uniform to 1e-7
    assert_same_world(model, clip, tmp_path / "b.bvh", 1 / 24, tolerance=1e-6)


def renamed(*names):
    """A humanoid whose first joints have ``names``, and a clip of 3 frames."""
    model = humanoid_model()
    for j, n in enumerate(names):
        model.skeleton.names[j + 1] = n
    t = np.arange(3) / 30
    return model, skinkit.Clip("c", [skinkit.Channel(0, "translation", t, np.zeros((3, 3)))])


@pytest.mark.parametrize("names", [("Hand L", "Hand_L"), ("Épaule", "肩", "Hand  L")],
                         ids=["collapsing", "non-ASCII"])
def test_names_read_back_as_written(tmp_path, names):
    model, clip = renamed(*names)
    skinkit.write_bvh(model, clip, tmp_path / "n.bvh")
    back = assert_same_world(model, clip, tmp_path / "n.bvh", 1 / 30)
    assert back.skeleton.names[:len(names) + 1] == model.skeleton.names[:len(names) + 1]


BAD_NAMES = {"braces": ("a{b}", r"holds '\{'"), "only white space": ("   ", "only white space"),
             "a vertical tab": ("a\vb", r"holds '\\x0b'"),
             "U+2028": ("a\u2028b", r"holds '\\u2028'"),
             "a tab": ("a\tb", r"holds '\\t'"),
             "white space at an end": ("Hand ", "white space at an end"),
             "a lone surrogate": ("a\udc80", r"is not UTF-8 \(a lone surrogate\)")}


@pytest.mark.parametrize("case", BAD_NAMES)
def test_a_name_that_would_not_read_back_is_refused_naming_the_joint(tmp_path, case):
    name, why = BAD_NAMES[case]
    model, clip = renamed(name)
    with pytest.raises(ValueError, match=rf"write_bvh: joint 1's name .* {why}.*would not read "
                                         "back as written"):
        skinkit.write_bvh(model, clip, tmp_path / "n.bvh")
    assert not (tmp_path / "n.bvh").exists()


def test_values_load_bvh_refuses_are_refused(tmp_path):
    model, clip = renamed()
    model.skeleton.translations[2] = [9e29, 0, 0]
    model.skeleton.translations[3] = [9e29, 0, 0]
    t = clip.channels[0].times
    moved = skinkit.Clip("c", [skinkit.Channel(3, "translation", t, np.full((3, 3), -9e29))])
    with pytest.raises(ValueError, match=r"the position of joint 'mixamorig:Spine2' at frame 0 = "
                                         r"-1.8e\+30, not finite or past 1e\+30"):
        skinkit.write_bvh(model, moved, tmp_path / "v.bvh")
    model, _ = renamed()
    q = np.tile([0.0, 0, 0, 1], (3, 1))
    q[1, 0] = np.nan
    nan = skinkit.Clip("c", [skinkit.Channel(2, "rotation", t, q)])
    with pytest.raises(ValueError, match=r"the rotation of joint 'mixamorig:Spine1' at frame 1 = "
                                         r"nan, not finite"):
        skinkit.write_bvh(model, nan, tmp_path / "v.bvh")
    assert not (tmp_path / "v.bvh").exists()


@pytest.mark.parametrize("order", ["ZXY", "ZYX", "XYZ", "XZY", "YXZ", "YZX"])
def test_euler_angles_rebuild_the_rotation_even_at_gimbal_lock(order):
    from skinkit.io.bvh.write import _euler

    rng = np.random.default_rng(0)
    ang = rng.uniform(-3, 3, size=(300, 3))
    ang[:50, 1] = np.pi / 2
    ang[50:100, 1] = -np.pi / 2
    r = Rotation.from_euler(order, ang)
    back = Rotation.from_euler(order, _euler(r.as_quat(), order), degrees=True)
    np.testing.assert_allclose(back.as_matrix(), r.as_matrix(), atol=1e-12)
