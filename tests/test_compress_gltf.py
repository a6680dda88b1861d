"""Compressed keys through glTF: write_gltf(..., rotations="short") of gltf_clip's reduced keys,
read back by skinkit's own reader and by trimesh, within the precision of the source."""
import json
import struct

import pytest

import skinkit
from skinkit.model.compress import gltf_clip

from conftest import GLTF
from test_compress import dense, shell_errors


def gltf_json(path):
    data = path.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    return json.loads(data[20:20 + length])


@pytest.mark.parametrize("name", ["RiggedFigure.glb", "CesiumMan.glb"])
def test_reduced_keys_round_trip_through_glb(tmp_path, name):
    model = skinkit.load_gltf(GLTF / name)
    skel, clip = model.skeleton, model.clips[0]
    reduced = gltf_clip(clip, skel, precision=1e-4, shell_distance=0.03)
    small, full = tmp_path / "small.glb", tmp_path / "full.glb"
    skinkit.write_gltf(model, small, clips=[reduced], rotations="short")
    skinkit.write_gltf(model, full)
    assert small.stat().st_size < full.stat().st_size
    doc = gltf_json(small)
    outputs = [doc["accessors"][s["output"]] for a in doc["animations"] for s in a["samplers"]]
    paths = [c["target"]["path"] for a in doc["animations"] for c in a["channels"]]
    rot = [o for o, p in zip(outputs, paths) if p == "rotation"]
    assert rot and all(o["componentType"] == 5122 and o["normalized"] for o in rot)
    back = skinkit.load_gltf(small).clips[0]
    t = dense([ch.times for ch in clip.channels])
    rest = (skel.translations, skel.rotations, skel.scales)
    err = shell_errors(skel.parents, rest, clip.channels, back.channels, t, 0.03)
    assert err.max() <= 1e-4 + 1e-6                  # the file's float32 key times and values


def test_trimesh_loads_the_short_rotations(tmp_path):
    trimesh = pytest.importorskip("trimesh", reason="trimesh is not installed")
    model = skinkit.load_gltf(GLTF / "RiggedFigure.glb")
    path = tmp_path / "small.glb"
    skinkit.write_gltf(model, path, clips=[gltf_clip(model.clips[0], model.skeleton)],
                       rotations="short")
    scene = trimesh.load(path)
    assert len(scene.geometry) >= 1


def test_rotations_option_is_checked(tmp_path):
    model = skinkit.load_gltf(GLTF / "RiggedSimple.glb")
    with pytest.raises(ValueError, match="rotations must be"):
        skinkit.write_gltf(model, tmp_path / "x.glb", rotations="half")
