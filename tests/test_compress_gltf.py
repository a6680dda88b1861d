"""Compressed keys through glTF: write_gltf(..., compress=...) and write_gltf(...,
rotations="short") of gltf_clip's reduced keys, read back by skinkit's own reader and by trimesh,
within the precision of the source."""
import json
import struct

import pytest

import skinkit
from skinkit.model.compress import gltf_clip

from conftest import GLTF
from test_compress import dense, shell_errors

pytestmark = pytest.mark.shared             # the Khronos samples of ../shared


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


@pytest.mark.parametrize("compress,precision", [(True, 1e-4), (3e-4, 3e-4),
                                                ({"precision": 2e-4, "shell_distance": 0.05},
                                                 2e-4)])
def test_write_gltf_compress_writes_short_reduced_keys(tmp_path, compress, precision):
    """compress= reduces every clip and stores its rotations as normalized SHORT; the file read
    back is within the precision of the source at the dense times (shell as asked)."""
    model = skinkit.load_gltf(GLTF / "CesiumMan.glb")
    skel, clip = model.skeleton, model.clips[0]
    small, full = tmp_path / "small.glb", tmp_path / "full.glb"
    skinkit.write_gltf(model, small, compress=compress)
    skinkit.write_gltf(model, full)
    assert small.stat().st_size < full.stat().st_size
    doc = gltf_json(small)
    rot = [doc["accessors"][s["output"]] for a in doc["animations"]
           for s, c in zip(a["samplers"], a["channels"]) if c["target"]["path"] == "rotation"]
    assert rot and all(o["componentType"] == 5122 and o["normalized"] for o in rot)
    back = skinkit.load_gltf(small).clips[0]
    shell = compress.get("shell_distance", 0.03) if isinstance(compress, dict) else 0.03
    t = dense([ch.times for ch in clip.channels])
    rest = (skel.translations, skel.rotations, skel.scales)
    err = shell_errors(skel.parents, rest, clip.channels, back.channels, t, shell)
    assert err.max() <= precision + 1e-6


def test_write_gltf_compress_with_float_rotations(tmp_path):
    model = skinkit.load_gltf(GLTF / "RiggedFigure.glb")
    path = tmp_path / "f.glb"
    skinkit.write_gltf(model, path, compress=True, rotations="float")
    doc = gltf_json(path)
    types = {doc["accessors"][s["output"]]["componentType"]
             for a in doc["animations"] for s in a["samplers"]}
    assert types == {5126}


@pytest.mark.parametrize("compress,error,match", [
    ("fine", TypeError, "compress must be"), ([1e-4], TypeError, "compress must be"),
    ({"tolerance": 1e-4}, ValueError, "unknown option.*'tolerance'"),
    (-1.0, ValueError, "precision must be"), (float("nan"), ValueError, "precision must be"),
    ({"shell_distance": 0}, ValueError, "shell_distance must be")])
def test_write_gltf_compress_is_checked(tmp_path, compress, error, match):
    model = skinkit.load_gltf(GLTF / "RiggedSimple.glb")
    path = tmp_path / "x.glb"
    with pytest.raises(error, match=match):
        skinkit.write_gltf(model, path, compress=compress)
    assert not path.exists()
