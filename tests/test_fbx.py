"""FBX (skinkit.load_fbx, ufbx underneath) on files Blender wrote at test time
(tests/blender_scenes.py in ``bpy``, cached; the ``blender_files`` and ``blender_conversions``
fixtures): world-space vertices of every mesh, for every animation stack, against what Blender
itself reports about the scene it exported (its evaluated depsgraph: Armature modifier, shape
keys, bone parents), and against ufbx's Python package (tests/fbx_reference.py: curves evaluated
at each time, ufbx's own skinning); the same documents re-encoded as binary FBX 7.5 and ASCII
FBX (tests/fbx_transcode.py) read as their Blender originals.

Tolerance: 1e-5 of the model's size (Blender deforms in float32 and composes FBX's transform
chain itself; the worst seen is 9e-7).  Blender bakes every frame, so each compared frame is a
key of the file.
"""
import re

import numpy as np
import pytest

import skinkit
from fbx_transcode import parse, to_ascii, to_binary

TOLERANCE = 1e-5
SCENES = ["rig.fbx", "rig_zup.fbx"]                      # the procedural rig, Y up and Z up


def model_size(positions) -> float:
    """The largest extent of a mesh over all its frames (the scale of relative errors)."""
    return float(np.ptp(np.asarray(positions).reshape(-1, 3), axis=0).max())


def recorded(folder, name):
    """What Blender reported about the scene written as ``name`` (blender_scenes.py)."""
    stem = "rig" if name.startswith("rig") else name.rsplit(".", 1)[0]
    with np.load(folder / f"{stem}.npz") as z:
        return {k: z[k] for k in z.files}


def stack(model, action):
    """The clip (FBX animation stack ``<armature>|<action>``) of Blender's ``action``."""
    names = [c.name for c in model.clips if c.name.split("|", 1)[-1] == action]
    assert names, (action, [c.name for c in model.clips])
    return model.clip(names[0])


def worst_against_blender(model, record):
    """The largest error / model size of every mesh of ``model`` over every action."""
    worst = 0.0
    for action in record["actions"]:
        posed = model.pose(stack(model, str(action)), record[f"t:{action}"])
        for p in model.primitives:
            theirs = record[f"v:{action}:{model.skeleton.names[p.node]}"]
            assert posed[p.key].shape == theirs.shape, (p.key, theirs.shape)
            worst = max(worst, float(np.abs(posed[p.key] - theirs).max()) / model_size(theirs))
    return worst


@pytest.mark.parametrize("name", SCENES)
def test_pose_matches_the_blender_scene(blender_files, name):
    model = skinkit.load_fbx(blender_files / name)
    record = recorded(blender_files, name)
    assert len(model.primitives) == 2 and len(model.clips) == len(record["actions"]) == 2
    worst = worst_against_blender(model, record)
    print(f"\n{name}: worst error / model size vs Blender's scene {worst:.2e}")
    assert worst < TOLERANCE


@pytest.mark.shared
@pytest.mark.parametrize("source", ["RiggedSimple.glb", "RiggedSimple-morph.glb",
                                    "RiggedFigure.glb"])
def test_gltf_fixture_through_blender_matches_its_scene(blender_conversions, source):
    """A shared glTF fixture through Blender's glTF importer and FBX exporter: the FBX posed
    as Blender poses the imported scene."""
    name = source.replace(".glb", ".fbx")
    worst = worst_against_blender(skinkit.load_fbx(blender_conversions / name),
                                  recorded(blender_conversions, name))
    print(f"\n{name}: worst error / model size vs Blender's scene {worst:.2e}")
    assert worst < TOLERANCE


@pytest.mark.parametrize("name", SCENES)
def test_pose_matches_ufbx_python(blender_files, name):
    """skinkit (ufbx's baked keys, skinkit's sampler and skinning) against ufbx's Python
    package, at 7 of the baked key times of each stack."""
    from fbx_reference import posed_vertices
    path = blender_files / name
    model = skinkit.load_fbx(path)
    for index, clip in enumerate(model.clips):
        keys = np.unique(np.concatenate([ch.times for ch in clip.channels]))
        times = keys[np.unique(np.linspace(0, len(keys) - 1, 7).astype(int))]
        posed, theirs_all = model.pose(index, times), posed_vertices(path, index, times)
        for p in model.primitives:
            theirs = theirs_all[model.skeleton.names[p.node]]
            err = float(np.abs(posed[p.key] - theirs).max()) / model_size(theirs)
            assert err < 1e-6, (clip.name, p.key, err)
            assert not np.allclose(theirs[0], theirs[len(times) // 2])   # it moves


@pytest.mark.parametrize("encoding", ["binary 7.5", "ascii"])
def test_other_encodings_read_as_the_original(blender_files, tmp_path, encoding):
    """Blender's FBX 7.4 as binary FBX 7.5 (64-bit node offsets) and as ASCII FBX: the same
    model, posed alike to the bit (ASCII writes every float with 17 digits)."""
    doc = parse((blender_files / "rig.fbx").read_bytes())
    path = tmp_path / "rig.fbx"
    if encoding == "ascii":
        path.write_text(to_ascii(doc))
    else:
        path.write_bytes(to_binary(doc, 7500))
    a, b = skinkit.load_fbx(path), skinkit.load_fbx(blender_files / "rig.fbx")
    assert a.skeleton.names == b.skeleton.names
    times = np.linspace(0, b.clips[0].duration, 7)
    for index in range(len(b.clips)):
        pa, pb = a.pose(index, times), b.pose(index, times)
        for key in pb:
            np.testing.assert_array_equal(pa[key], pb[key])


def test_model_contents(blender_files):
    """What the reader hands over, against Blender's scene: the bones as joints of one skin,
    each tube vertex with the (at most two) influences Blender's vertex groups gave it, the
    shape key as a morph target with Blender's values over the clip, the rigid cap under its
    bone, unit normals (UVs: Blender writes them by polygon vertex, which the reader leaves
    out)."""
    model = skinkit.load_fbx(blender_files / "rig.fbx")
    record = recorded(blender_files, "rig.fbx")
    names = model.skeleton.names
    tube, cap = (next(p for p in model.primitives if names[p.node] == n) for n in ("Tube", "Cap"))
    assert [names[j] for j in model.skins[tube.skin].joints] == list(record["bones"])
    assert tube.skinned and not cap.skinned
    assert names[model.skeleton.parents[cap.node]] == "Tip"
    np.testing.assert_allclose(tube.weights.sum(axis=1), 1.0, atol=1e-6)
    influences = (tube.weights > 0).sum(axis=1)
    assert (influences <= 2).all() and (influences == 2).any()
    assert tube.target_names == list(record["keys:Tube"]) == ["Bulge"]
    for action in record["actions"]:
        ours = stack(model, str(action)).sample_weights(record[f"t:{action}"])[tube.node]
        np.testing.assert_allclose(ours, record[f"w:{action}:Tube"], atol=1e-6)
    for p in (tube, cap):
        assert p.uvs is None or p.uvs.shape == (len(p.positions), 2)
        np.testing.assert_allclose(np.linalg.norm(p.normals, axis=1), 1.0, atol=1e-6)
        assert p.faces.max() < len(p.positions)


def test_units_and_axes(blender_files):
    """axes="gltf" (metres, +Y up) against axes="file" (Blender's FBX: centimetres, +Y up; the
    rest pose scaled by its 0.01 m unit), and the Z-up file posed as the Y-up one."""
    path = blender_files / "rig.fbx"
    gltf, file = skinkit.load_fbx(path), skinkit.load_fbx(path, axes="file")
    a, b = gltf.pose()[gltf.primitives[0].key], file.pose()[file.primitives[0].key]
    np.testing.assert_allclose(a, b * 0.01, atol=1e-9 * model_size(a))
    zup = skinkit.load_fbx(blender_files / "rig_zup.fbx")
    for p in gltf.primitives:
        np.testing.assert_allclose(zup.pose()[p.key], gltf.pose()[p.key], atol=1e-6 * model_size(a))
    with pytest.raises(ValueError, match="axes"):
        skinkit.load_fbx(path, axes="z-up")
    with pytest.raises(ValueError, match="max_bytes"):
        skinkit.load_fbx(path, max_bytes=-1)


def test_float32_model(blender_files):
    path = blender_files / "rig.fbx"
    model, wide = skinkit.load_fbx(path, dtype=np.float32), skinkit.load_fbx(path)
    times = np.linspace(0, wide.clips[0].duration, 5)
    p32, p64 = model.pose(0, times), wide.pose(0, times)
    key = wide.primitives[0].key
    assert p32[key].dtype == np.float32
    assert np.abs(p32[key] - p64[key]).max() / model_size(p64[key]) < 1e-5


@pytest.mark.shared
def test_shape_key_weights_follow_the_gltf_clip(blender_conversions, fixtures):
    """RiggedSimple-morph.glb through Blender: its two morph targets keep their names, and the
    baked weights equal the glTF clip's at its key times (Blender's stack starts at the
    action's first frame, 1/24 s after the glTF's time 0)."""
    model = skinkit.load_fbx(blender_conversions / "RiggedSimple-morph.fbx")
    source = skinkit.load_gltf(fixtures / "gltf" / "RiggedSimple-morph.glb")
    prim = model.primitives[0]
    assert prim.target_names == ["Bulge", "Shear"]
    times = source.clips[0].channels[0].times[1:-1]
    ours = model.clips[0].sample_weights(times - 1 / 24)[prim.node]
    theirs = source.clips[0].sample_weights(times)[source.primitives[0].node]
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_cli_info_and_pose(blender_files, tmp_path, capsys, monkeypatch):
    from cli_run import run
    monkeypatch.chdir(tmp_path)
    name = blender_files / "rig.fbx"
    code, out, err = run(["info", name], capsys)
    assert code == 0, err
    assert "Tip" in out and "Rig|Twist" in out
    code, out, err = run(["pose", name, "--out", "posed.npz"], capsys)
    assert code == 0, err
    model = skinkit.load_fbx(name)
    with np.load(tmp_path / "posed.npz") as z:
        key = model.primitives[0].key
        posed = [z[k] for k in z.files if k.endswith(key) and k.startswith("positions")]
        assert posed and posed[0].shape[1:] == model.primitives[0].positions.shape


def test_cli_version_names_ufbx(capsys):
    from cli_run import run
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    assert f"ufbx {skinkit._core.ufbx_version()}" in out
    assert re.fullmatch(r"\d+\.\d+\.\d+", skinkit._core.ufbx_version())
