"""``skinkit retarget`` and ``skinkit pose --animated`` (skinkit/cli_retarget.py), run as a user
would (subprocess through tests/cli_run.py when it offers one, else main())."""
import re

import numpy as np
import pytest

import skinkit
from amass_files import write_motion, write_motion_smplx
from cli_run import run
from skinkit.body.export import body_clip, body_model_to_model
from skinkit.body.synthetic import humanoid_smplh_arrays
from skinkit.cli.main import main
from skinkit.model.humanoid import humanoid_model
from skinkit.motion.retarget import joint_mapping

from conftest import BVH, GLTF



@pytest.fixture
def character(tmp_path):
    path = tmp_path / "character.glb"
    skinkit.write_gltf(humanoid_model("mixamo", "A", bone_frames=True), path)
    return path


@pytest.mark.shared
def test_retarget_bvh_onto_a_gltf_character(tmp_path, character, capsys):
    out = tmp_path / "out.glb"
    src = BVH / "cmu_01_03_first300.bvh"
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


@pytest.mark.shared
def test_retarget_to_bvh_and_errors(tmp_path, character, capsys):
    out = tmp_path / "out.bvh"
    src = BVH / "cmu_01_03_first300.bvh"
    assert main(["retarget", str(src), str(character), "--out", str(out), "--quiet",
                 "--root-scale", "legs"]) == 0
    assert skinkit.load_bvh(out).frame_count == skinkit.load_bvh(src).frame_count
    assert main(["retarget", str(GLTF / "Fox.glb"), str(character), "--out",
                 str(tmp_path / "x.glb")]) == 1
    assert "no joint-name preset matches" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["retarget", str(src), str(character), "--out", str(tmp_path / "x.npz")])
    assert not (tmp_path / "x.glb").exists()


@pytest.fixture
def body_dir(tmp_path):
    """DIR/smplh/male/model.npz (AMASS's layout): a SMPL+H body with a person's joints."""
    path = tmp_path / "models" / "smplh" / "male" / "model.npz"
    path.parent.mkdir(parents=True)
    np.savez(path, **humanoid_smplh_arrays(num_vertices=120))
    return tmp_path / "models"


def rotations(world):
    return world[..., :3, :3]


def test_retarget_amass_motion_onto_a_gltf_character(tmp_path, character, body_dir, capsys):
    T, fps = 40, 50.0
    motion = write_motion(tmp_path / "walk_poses.npz", T, fps=fps, rest_frames=1)   # male
    out = tmp_path / "out.glb"
    code, stdout, err = run(["retarget", motion, character, "--body-dir", body_dir, "--out",
                             out], capsys)
    assert code == 0, err
    assert "walk_poses.npz (SMPL+H model.npz)" in stdout and "22 mapped joints" in stdout
    back, target = skinkit.load_gltf(out), skinkit.load_gltf(character)
    assert back.skeleton.names == target.skeleton.names
    [clip] = back.clips
    assert clip.name == "walk_poses"
    assert clip.duration == pytest.approx((T - 1) / fps, abs=1e-6)
    assert {len(ch.times) for ch in clip.channels} == {T}
    # the source as the library builds it: the body shaped by the motion's betas, the motion
    body = skinkit.load_body_model(body_dir / "smplh" / "male" / "model.npz")
    mo = skinkit.load_amass(motion)
    betas = mo.betas[:body.num_betas]
    source = body_model_to_model(body, betas)
    walk = body_clip(body, mo.poses, mo.transl, betas, fps=fps)
    t = np.array([0, 7, 19, T - 1]) / fps
    # every mapped target joint's world rotation changes from its (aligned) rest, frame 0 where
    # the source is at rest, as its source joint's changes from its own rest
    m = joint_mapping(source, target)
    mapped = np.flatnonzero(m >= 0)
    assert len(mapped) == 22
    ws, rest = rotations(source.world_matrices(walk, t)), rotations(source.world_matrices()[0])
    np.testing.assert_allclose(ws[0], rest, atol=1e-12)
    wt = rotations(back.world_matrices(0, t))
    change_t = wt[:, mapped] @ np.swapaxes(wt[0, mapped], -1, -2)
    change_s = ws[:, m[mapped]] @ np.swapaxes(rest[m[mapped]], -1, -2)
    np.testing.assert_allclose(change_t, change_s, atol=1e-5)        # the file holds float32
    # and the whole pose (root motion too) is the library's
    np.testing.assert_allclose(back.world_matrices(0, t),
                               target.world_matrices(skinkit.retarget(source, target, walk), t),
                               atol=1e-5)
    # --body MODEL gives the same file as --body-dir picking it
    again = tmp_path / "again.glb"
    assert run(["retarget", motion, character, "--body", body_dir / "smplh" / "male" /
                "model.npz", "--out", again, "--quiet"], capsys)[0] == 0
    np.testing.assert_array_equal(skinkit.load_gltf(again).world_matrices(0, t),
                                  back.world_matrices(0, t))
    # as a BVH: one frame per motion frame, at the motion's rate, nothing clamped
    code, _, err = run(["retarget", motion, character, "--body-dir", body_dir, "--out",
                        tmp_path / "out.bvh", "--quiet"], capsys)
    assert code == 0 and err == ""
    bvh = skinkit.load_bvh(tmp_path / "out.bvh")
    assert bvh.frame_count == T and bvh.frame_time == pytest.approx(1 / fps, rel=1e-6)


@pytest.mark.shared
@pytest.mark.parametrize("case, argv, code, match", [
    ("no body model", lambda m, d, c: [m, c], 2,
     r"SOURCE \S+ is an AMASS motion, which has no skeleton of its own: give its body model "
     r"with --body MODEL or --body-dir DIR"),
    ("body for a bvh", lambda m, d, c: [BVH / "cmu_01_03_first300.bvh", c,
                                        "--body-dir", d], 2, "is not one"),
    ("no model of the gender", lambda m, d, c: [m.with_name("f.npz"), c, "--body-dir", d], 1,
     "no female smplh model in"),
    ("wrong kind", lambda m, d, c: [m.with_name("x.npz"), c, "--body",
                                    d / "smplh" / "male" / "model.npz"], 1,
     r"a smplx motion \(55 joints\) cannot pose the SMPL\+H model"),
    ("body model as SOURCE", lambda m, d, c: [d / "smplh" / "male" / "model.npz", c], 1,
     "not an AMASS motion .no poses or root_orient array."),
])
def test_retarget_amass_errors(tmp_path, character, body_dir, capsys, case, argv, code, match):
    motion = write_motion(tmp_path / "m.npz", 5)
    write_motion(tmp_path / "f.npz", 5, gender="female")
    write_motion_smplx(tmp_path / "x.npz", 5)
    out = tmp_path / "out.glb"
    got, stdout, err = run(["retarget", *argv(motion, body_dir, character), "--out", out],
                           capsys)
    assert got == code and re.search(match, " ".join(err.split())), err
    assert "Traceback" not in err and not out.exists()
    if code == 1:
        assert err.startswith("skinkit: error: ") and err.count("\n") == 1


@pytest.mark.shared
def test_pose_animated_writes_the_clip(tmp_path):
    out = tmp_path / "anim.glb"
    model_path = GLTF / "CesiumMan.glb"
    assert main(["pose", str(model_path), "--out", str(out), "--animated", "--quiet"]) == 0
    model, back = skinkit.load_gltf(model_path), skinkit.load_gltf(out)
    t = np.linspace(0, model.clips[0].duration, 5)
    a, b = list(model.pose(0, t).values())[0], list(back.pose(0, t).values())[0]
    np.testing.assert_allclose(b, a, atol=1e-6)
    with pytest.raises(SystemExit):
        main(["pose", str(model_path), "--out", str(tmp_path / "x.npz"), "--animated"])


@pytest.mark.shared
def test_posed_glb_keeps_uvs_and_materials(tmp_path):
    out = tmp_path / "posed.glb"
    model_path = GLTF / "CesiumMan.glb"
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


def test_retarget_onto_an_fbx_character_with_a_mapping(tmp_path, capsys, blender_conversions):
    """Issue 31: FBX targets were refused and there was no --mapping.  CesiumMan's names match
    no preset: a mapping file pairs its joints with the CMU BVH's, and the result is the
    library's with that mapping."""
    import json
    src = BVH / "cmu_01_03_first300.bvh"
    target = blender_conversions / "RiggedSimple.fbx"        # Blender's export: Bone, Bone.001
    mapping = {"Bone": "Hips", "Bone.001": "Spine"}
    (tmp_path / "map.json").write_text(json.dumps(mapping))
    out = tmp_path / "out.glb"
    code, stdout, err = run(["retarget", src, target, "--mapping", tmp_path / "map.json",
                             "--root-scale", "1", "--out", out], capsys)
    assert code == 0, err
    assert "2 mapped joints" in stdout
    clip = skinkit.retarget(skinkit.load_bvh(src), skinkit.load_fbx(target), mapping=mapping,
                            root_scale=1.0)
    back = skinkit.load_gltf(out)
    assert back.clips[0].duration == pytest.approx(clip.duration, abs=1e-6)
    (tmp_path / "bad.json").write_text("[1, 2]")
    code, _, err = run(["retarget", src, target, "--mapping", tmp_path / "bad.json", "--out",
                        tmp_path / "x.glb"], capsys)
    assert code == 1 and "--mapping" in err and "expected a JSON object" in err
    (tmp_path / "names.json").write_text('{"Bone": "NoSuchJoint"}')
    code, _, err = run(["retarget", src, target, "--mapping", tmp_path / "names.json", "--out",
                        tmp_path / "x.glb"], capsys)
    assert code == 1 and "NoSuchJoint" in err and not (tmp_path / "x.glb").exists()


@pytest.mark.shared
@pytest.mark.parametrize("command", ["pose", "retarget"])
def test_a_negative_clip_index_is_refused(tmp_path, character, capsys, command):
    src = BVH / "cmu_01_03_first300.bvh"
    argv = (["pose", src, "--clip", "-1", "--out", tmp_path / "x.npz"] if command == "pose" else
            ["retarget", src, character, "--clip", "-1", "--out", tmp_path / "x.glb"])
    code, _, err = run(argv, capsys)
    assert code == 1 and "--clip -1: clip indices count from 0 (0..0 here)" in err, err
    assert not list(tmp_path.glob("x.*"))
