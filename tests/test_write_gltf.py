"""write_gltf (skinkit/io/gltf/write.py): files written from the glTF fixtures (made by other
programs), the procedural humanoid and a retargeted clip load back with load_gltf and pose like
the model they came from; the layout is checked against the specification's rules."""
import json
import struct

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.model.humanoid import humanoid_model

from conftest import GLTF, shared_files

FIXTURES = [p.name for p in shared_files(GLTF, "*.gl*")]


def key_times(clip):
    t = np.unique(np.concatenate([ch.times for ch in clip.channels]))
    mid = (t[:-1] + t[1:]) / 2 if t.size > 1 else t
    return np.concatenate([t, mid])[:200]


def size(model):
    p = np.concatenate([np.asarray(pr.positions, np.float64) for pr in model.primitives])
    return float(np.linalg.norm(p.max(0) - p.min(0)))


def assert_poses_alike(a, b, clips):
    assert len(a.primitives) == len(b.primitives)
    tol = 1e-7 * size(a)
    for i, clip in enumerate([None] + list(range(len(clips)))):
        times = [0.0] if clip is None else key_times(a.clips[clip])
        pa = list(a.pose(clip, times).values())
        pb = list(b.pose(clip, times).values())
        for x, y in zip(pa, pb):
            np.testing.assert_allclose(y, x, atol=tol, rtol=0)


@pytest.mark.shared
@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_round_trip_poses_alike(name, tmp_path):
    model = skinkit.load_gltf(GLTF / name, dtype=np.float32)
    assert model.primitives
    out = tmp_path / "out.glb"
    skinkit.write_gltf(model, out)
    back = skinkit.load_gltf(out, dtype=np.float32)
    assert back.skeleton.names[:model.skeleton.count] == list(model.skeleton.names)
    assert [c.name for c in back.clips] == [c.name for c in model.clips]
    assert [c.interpolations for c in back.clips] == [c.interpolations for c in model.clips]
    assert_poses_alike(model, back, model.clips)


@pytest.mark.shared
def test_gltf_json_with_embedded_buffer(tmp_path):
    model = skinkit.load_gltf(GLTF / "RiggedSimple-morph.glb", dtype=np.float32)
    skinkit.write_gltf(model, tmp_path / "out.gltf")
    doc = json.loads((tmp_path / "out.gltf").read_text())
    assert doc["buffers"][0]["uri"].startswith("data:application/octet-stream;base64,")
    assert_poses_alike(model, skinkit.load_gltf(tmp_path / "out.gltf", dtype=np.float32),
                       model.clips)


def test_layout_follows_the_specification(tmp_path):
    model = humanoid_model("mixamo", "A", bone_frames=True)
    src = humanoid_model("smpl", "T")
    t = np.linspace(0, 1, 5)
    rotvec = np.random.default_rng(0).normal(size=(15, 3)) * 0.3     # (N, 3) for SciPy < 1.14
    q = Rotation.from_rotvec(rotvec).as_quat().reshape(3, 5, 4)
    src.clips = [skinkit.Clip("walk", [skinkit.Channel(j, "rotation", t, q[j]) for j in range(3)])]
    clip = skinkit.retarget(src, model)
    skinkit.write_gltf(model, tmp_path / "h.glb", clips=[clip])
    raw = (tmp_path / "h.glb").read_bytes()
    magic, version, length = struct.unpack("<III", raw[:12])
    assert (magic, version, length) == (0x46546C67, 2, len(raw))
    jlen, jtype = struct.unpack("<II", raw[12:20])
    assert jtype == 0x4E4F534A and jlen % 4 == 0
    doc = json.loads(raw[20:20 + jlen])
    for acc in doc["accessors"]:
        view = doc["bufferViews"][acc["bufferView"]]
        assert view["byteOffset"] % 4 == 0
    prim = doc["meshes"][0]["primitives"][0]
    pos = doc["accessors"][prim["attributes"]["POSITION"]]
    assert "min" in pos and "max" in pos
    # the skinned mesh sits on its own root node, not on a joint
    holder = next(n for n in doc["nodes"] if "mesh" in n)
    assert "skin" in holder and doc["nodes"].index(holder) not in doc["skins"][0]["joints"]
    back = skinkit.load_gltf(tmp_path / "h.glb")
    ts = clip.channels[0].times
    a = model.pose(clip, ts)["0_0"]
    b = list(back.pose(0, ts).values())[0]
    np.testing.assert_allclose(b, a, atol=1e-6 * size(model))


def test_bad_suffix_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"must end in \.glb or \.gltf, got .*x\.obj"):
        skinkit.write_gltf(skinkit.default_model(), tmp_path / "x.obj")
    assert not list(tmp_path.iterdir())


@pytest.mark.shared
@pytest.mark.parametrize("name", ["CesiumMan.glb", "Fox.glb"])
def test_materials_textures_and_uvs_are_carried_over(name, tmp_path):
    model = skinkit.load_gltf(GLTF / name)
    assert model.materials is not None and model.materials["images"]
    skinkit.write_gltf(model, tmp_path / "out.glb")
    back = skinkit.load_gltf(tmp_path / "out.glb")
    for key in ("materials", "textures", "samplers", "extensionsUsed"):
        assert back.materials[key] == model.materials[key], key
    for a, b in zip(model.materials["images"], back.materials["images"]):
        np.testing.assert_array_equal(b["data"], a["data"])
        assert b["mimeType"] == a["mimeType"]
    for a, b in zip(model.primitives, back.primitives):
        assert a.uvs is not None and b.material == a.material
        np.testing.assert_allclose(b.uvs, a.uvs, atol=1e-7)
    # the file as another reader sees it: trimesh finds the textured material
    import trimesh
    scene = trimesh.load(tmp_path / "out.glb")
    geom = next(iter(scene.geometry.values()))
    assert geom.visual.kind == "texture" and geom.visual.uv.shape == (len(geom.vertices), 2)
