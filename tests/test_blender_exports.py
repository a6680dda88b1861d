"""The glTF and BVH readers on files Blender wrote (tests/blender_scenes.py, the
``blender_files`` fixture): the joints of the procedural rig where Blender says its bones' heads
are, at every recorded frame (keys of the files: Blender bakes every frame).

glTF: ``rig.glb`` from Blender's glTF exporter (world space, metres, +Y up), its clip ``Rig``
(the armature's action ``Bend``); BVH: ``rig.bvh`` from Blender's BVH exporter, which writes the
armature's own space in Blender's axes (+Z up), angles and the frame time with 6 decimals
(so frame f is at f times the file's frame time; 1e-5 m)."""
import numpy as np
import pytest

import skinkit

BONES = ["Root", "Mid", "Tip"]


def recorded(blender_files):
    with np.load(blender_files / "rig.npz") as z:
        return {k: z[k] for k in z.files}


def test_gltf_joints_where_blender_has_the_bones(blender_files):
    record = recorded(blender_files)
    model = skinkit.load_gltf(blender_files / "rig.glb")
    world = model.world_matrices(clip="Rig", times=record["t:Bend"])
    for bone in BONES:
        ours = world[:, model.skeleton.names.index(bone), :3, 3]
        np.testing.assert_allclose(ours, record[f"j:Bend:{bone}"], atol=1e-6)
        assert np.ptp(ours, axis=0).max() > 0.05 or bone == "Root"      # it moves


def test_gltf_skin_has_blenders_bones(blender_files):
    model = skinkit.load_gltf(blender_files / "rig.glb")
    tube = next(p for p in model.primitives if p.skinned)
    joints = {model.skeleton.names[j] for j in model.skins[tube.skin].joints}
    assert joints == set(recorded(blender_files)["bones"])
    assert tube.target_names == ["Bulge"]


def test_bvh_joints_where_blender_has_the_bones(blender_files):
    record = recorded(blender_files)
    model = skinkit.load_bvh(blender_files / "rig.bvh")
    assert model.skeleton.names[:3] == BONES
    frame_time = model.clips[0].duration / 24                    # 25 frames
    assert frame_time == pytest.approx(1 / 24, rel=1e-5)
    world = model.world_matrices(clip=0, times=record["frames"] * frame_time)
    for j, bone in enumerate(BONES):
        np.testing.assert_allclose(world[:, j, :3, 3], record[f"a:Bend:{bone}"], atol=1e-5)
