"""``skinkit retarget`` and ``skinkit pose --animated`` (skinkit/cli_retarget.py), run as a user
would (subprocess through tests/cli_run.py when it offers one, else main())."""
from pathlib import Path

import numpy as np
import pytest

import skinkit
from skinkit.cli import main
from skinkit.humanoid import humanoid_model

DATA = Path(__file__).parent / "data"


@pytest.fixture
def character(tmp_path):
    path = tmp_path / "character.glb"
    skinkit.write_gltf(humanoid_model("mixamo", "A", bone_frames=True), path)
    return path


def test_retarget_bvh_onto_a_gltf_character(tmp_path, character, capsys):
    out = tmp_path / "out.glb"
    src = DATA / "bvh" / "cmu_01_03_first300.bvh"
    assert main(["retarget", str(src), str(character), "--out", str(out)]) == 0
    assert "22 mapped joints" in capsys.readouterr().out
    back = skinkit.load_gltf(out)
    source, target = skinkit.load_bvh(src), skinkit.load_gltf(character)
    assert len(back.clips) == 1
    assert back.clips[0].duration == pytest.approx(source.clips[0].duration, abs=1e-6)
    # the same as the library's result (the file holds float32)
    clip = skinkit.retarget(source, target)
    t = np.linspace(0, clip.duration, 7)
    np.testing.assert_allclose(back.world_matrices(0, t)[:, :22],
                               target.world_matrices(clip, t)[:, :22], atol=1e-5)
    assert main(["retarget", str(src), str(character), "--out", str(out), "--lock-feet",
                 "--quiet"]) == 0
    locked, _ = skinkit.lock_feet(target, clip)
    np.testing.assert_allclose(skinkit.load_gltf(out).world_matrices(0, t)[:, :22],
                               target.world_matrices(locked, t)[:, :22], atol=1e-5)


def test_retarget_to_bvh_and_errors(tmp_path, character, capsys):
    out = tmp_path / "out.bvh"
    src = DATA / "bvh" / "cmu_01_03_first300.bvh"
    assert main(["retarget", str(src), str(character), "--out", str(out), "--quiet",
                 "--root-scale", "legs"]) == 0
    assert skinkit.load_bvh(out).frame_count > 1
    assert main(["retarget", str(DATA / "gltf" / "Fox.glb"), str(character), "--out",
                 str(tmp_path / "x.glb")]) == 1
    assert "no joint-name preset matches" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["retarget", str(src), str(character), "--out", str(tmp_path / "x.npz")])
    assert not (tmp_path / "x.glb").exists()


def test_pose_animated_writes_the_clip(tmp_path):
    out = tmp_path / "anim.glb"
    model_path = DATA / "gltf" / "CesiumMan.glb"
    assert main(["pose", str(model_path), "--out", str(out), "--animated", "--quiet"]) == 0
    model, back = skinkit.load_gltf(model_path), skinkit.load_gltf(out)
    t = np.linspace(0, model.clips[0].duration, 5)
    a, b = list(model.pose(0, t).values())[0], list(back.pose(0, t).values())[0]
    np.testing.assert_allclose(b, a, atol=1e-6)
    with pytest.raises(SystemExit):
        main(["pose", str(model_path), "--out", str(tmp_path / "x.npz"), "--animated"])


def test_posed_glb_keeps_uvs_and_materials(tmp_path):
    out = tmp_path / "posed.glb"
    model_path = DATA / "gltf" / "CesiumMan.glb"
    assert main(["pose", str(model_path), "--times", "1.0", "--out", str(out), "--quiet"]) == 0
    model, back = skinkit.load_gltf(model_path), skinkit.load_gltf(out)
    [prim], [rigid] = model.primitives, back.primitives
    assert rigid.skin is None and rigid.material == prim.material
    np.testing.assert_allclose(rigid.uvs, prim.uvs, atol=1e-7)
    assert back.materials["materials"] == model.materials["materials"]
    np.testing.assert_array_equal(back.materials["images"][0]["data"],
                                  model.materials["images"][0]["data"])
    np.testing.assert_allclose(back.pose().positions[rigid.key][0],
                               model.pose(0, [1.0]).positions[prim.key][0], atol=1e-5)
