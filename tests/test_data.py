"""skinkit.data: the sample content in the package works from any folder, is byte for byte the
test fixture whose provenance tests/data documents, and carries its attribution."""
import hashlib

import numpy as np
import pytest

import skinkit
from conftest import BVH, GLTF


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)      # no tests/data beside the current folder


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.shared
@pytest.mark.parametrize("name,fixture", [("Fox.glb", GLTF / "Fox.glb"),
                                          ("cmu_01_03_first300.bvh",
                                           BVH / "cmu_01_03_first300.bvh")])
def test_files_are_the_documented_fixtures(name, fixture):
    assert _sha(skinkit.data.path(name)) == _sha(fixture)


def test_licences_name_every_file_and_its_licence():
    text = skinkit.data.path("LICENSES.md").read_text(encoding="utf-8")
    for name in skinkit.data.FILES[:-1]:
        assert f"## {name}" in text
    assert "CC BY 4.0" in text and "mocap.cs.cmu.edu" in text


def test_unknown_file_is_refused_with_the_list():
    with pytest.raises(ValueError, match="Fox.glb"):
        skinkit.data.path("Cat.glb")


@pytest.mark.shared
def test_character_poses_like_the_fixture():
    model = skinkit.data.character(dtype=np.float32)
    assert [c.name for c in model.clips] == ["Survey", "Walk", "Run"]
    assert model.primitives[0].skinned
    times = np.linspace(0, model.clip("Walk").duration, 7)
    got = model.pose(clip="Walk", times=times)
    want = skinkit.load_gltf(GLTF / "Fox.glb", dtype=np.float32).pose(clip="Walk", times=times)
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])


def test_mocap_is_the_cmu_clip():
    model = skinkit.data.mocap()
    assert model.clips[0].duration == pytest.approx(299 * 0.0083333, rel=1e-6)   # Frame Time
    assert len(model.skeleton.names) == 38          # 31 joints + 7 End Sites


@pytest.mark.parametrize("kind,joints", [("SMPL", 24), ("SMPL-X", 55)])
def test_body_model_is_small_and_poses(kind, joints):
    body = skinkit.data.body_model(kind, num_vertices=300)
    vertices, _ = body.forward(pose=np.zeros((2, joints, 3)))
    assert vertices.shape == (2, 300, 3) and np.isfinite(vertices).all()
