"""skinkit.data: the sample content, made by skinkit (skinkit.data.procedural written by its own
writers on first use), works from any folder, is the same every time, and reads back as the
model it was made from."""
import hashlib

import numpy as np
import pytest

import skinkit
from skinkit.data.procedural import character_model, walk_clip
from skinkit.model.humanoid import humanoid_model


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)      # nothing of the repository beside the current folder


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_files_are_generated_deterministically(tmp_path, monkeypatch):
    """A fresh cache folder gets the same bytes as the first (both made here: the default
    cache may hold files another process made, under another NumPy's last bits)."""
    monkeypatch.setenv("SKINKIT_DATA_DIR", str(tmp_path / "first"))
    first = {name: _sha(skinkit.data.path(name)) for name in skinkit.data.FILES}
    monkeypatch.setenv("SKINKIT_DATA_DIR", str(tmp_path / "fresh"))
    again = {name: skinkit.data.path(name) for name in skinkit.data.FILES}
    assert all(str(again[n]).startswith(str(tmp_path / "fresh")) for n in ("character.glb",
                                                                           "walk.bvh"))
    assert {name: _sha(p) for name, p in again.items()} == first


def test_licences_name_every_file():
    text = skinkit.data.path("LICENSES.md").read_text(encoding="utf-8")
    for name in skinkit.data.FILES[:-1]:
        assert f"## {name}" in text
    assert "no third-party content" in text


def test_unknown_file_is_refused_with_the_list():
    with pytest.raises(ValueError, match="character.glb"):
        skinkit.data.path("Fox.glb")


def test_character_reads_back_as_made():
    """The glb through load_gltf poses as the model it was written from (float32 storage)."""
    made, read = character_model(), skinkit.data.character()
    assert [c.name for c in read.clips] == ["Idle", "Walk", "Run"]
    assert read.skeleton.names == made.skeleton.names
    for clip in ("Idle", "Walk", "Run"):
        times = np.linspace(0, read.clip(clip).duration, 7)
        ours, theirs = made.pose(clip=clip, times=times), read.pose(clip=clip, times=times)
        assert sorted(ours) == sorted(theirs) == ["22_0", "23_0"]
        for key in ours:
            np.testing.assert_allclose(theirs[key], ours[key], atol=1e-6)


def test_character_moves_like_a_character():
    """Walk and Run move the feet over a stride (Run the longer), the head stays up and the
    feet near the ground, Idle blinks once."""
    model = skinkit.data.character()
    foot = model.skeleton.names.index("mixamorig:LeftToeBase")
    head = model.skeleton.names.index("mixamorig:Head")
    reach = {}
    for clip in ("Walk", "Run"):
        world = model.world_matrices(clip=clip, times=np.linspace(0, model.clip(clip).duration,
                                                                  31))
        reach[clip] = np.ptp(world[:, foot, 2, 3])                 # forward-back, metres
        assert (world[:, head, 1, 3] > 1.3).all()
        body = next(p for p in model.primitives if p.skinned)
        lowest = model.pose(clip=clip, times=np.linspace(0, 1, 11))[body.key][..., 1].min()
        assert -0.1 < lowest < 0.02                     # the rest pose's lowest: -0.025 m
    assert 0.3 < reach["Walk"] < reach["Run"] < 1.5
    face = model.skeleton.names.index("Face")
    blink = model.clip("Idle").sample_weights([0.0, 1.0, 1.5])[face]
    np.testing.assert_allclose(blink[:, 0], [0.0, 1.0, 0.0], atol=1e-6)


def test_mocap_is_the_walk():
    model = skinkit.data.mocap()
    assert model.clips[0].duration == pytest.approx(2.5)
    assert len(model.skeleton.names) == 27          # 22 joints + 5 End Sites
    made = humanoid_model("mixamo", "T")
    clip = walk_clip(made, 2.5, 120.0)
    times = np.array([0.0, 0.5, 1.25, 2.5])
    ours = made.world_matrices(clip=clip, times=times)[:, :, :3, 3]
    joints = [model.skeleton.names.index(n) for n in made.skeleton.names]
    np.testing.assert_allclose(model.world_matrices(clip=0, times=times)[:, joints][..., :3, 3], ours,
                               atol=1e-9)


@pytest.mark.parametrize("kind,joints", [("SMPL", 24), ("SMPL-X", 55)])
def test_body_model_is_small_and_poses(kind, joints):
    body = skinkit.data.body_model(kind, num_vertices=300)
    vertices, _ = body.forward(pose=np.zeros((2, joints, 3)))
    assert vertices.shape == (2, 300, 3) and np.isfinite(vertices).all()
