"""write_bvh (skinkit/io/bvh_write.py): load_bvh of the written file gives the same world
positions (1e-9 of the skeleton's size, float64) for BVH files other programs wrote, a glTF
skeleton and a retargeted humanoid; gimbal-safe rotation orders per joint."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.model.humanoid import humanoid_model

from conftest import BVH, GLTF, shared_files



def assert_same_world(model, clip, path, frame_time):
    back = skinkit.load_bvh(path)
    names = [n.replace(" ", "_") if n else f"joint{j}" for j, n in enumerate(model.skeleton.names)]
    idx = [back.skeleton.names.index(n) for n in names]
    t = np.arange(back.frame_count) * frame_time
    a = model.world_matrices(clip, t)[..., :3, 3]
    b = back.world_matrices(0, t)[:, idx][..., :3, 3]
    size = np.ptp(a.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(b, a, atol=1e-9 * size, rtol=0)
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


def test_scaled_joint_is_refused(tmp_path):
    model = humanoid_model()
    model.skeleton.scales[3] = 2.0
    t = np.arange(3) / 30
    clip = skinkit.Clip("c", [skinkit.Channel(0, "translation", t, np.zeros((3, 3)))])
    with pytest.raises(ValueError, match=r"joint 'mixamorig:Spine2' has scale \[2.0, 2.0, 2.0\]"):
        skinkit.write_bvh(model, clip, tmp_path / "s.bvh")
    assert not (tmp_path / "s.bvh").exists()


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
