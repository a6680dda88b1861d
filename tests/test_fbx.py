"""FBX (skinkit.load_fbx, ufbx underneath) against Blender's own FBX importer, which does not use
ufbx: world-space vertices of every mesh at frames of the clip Blender plays, on files written
by Blender, Maya, 3ds Max and MotionBuilder (tests/data/fbx/LICENSES.md).

This file is also the script that runs in Blender's Python (``bpy``, see tests/test_blender.py):
it imports each file with ``bpy.ops.import_scene.fbx`` (animation offset 0, so frame f is time
f / fps), picks frames across the actions it assigned, and saves the evaluated meshes turned
from Blender's +Z up to glTF's +Y up ((x, y, z) -> (x, z, -y)).  Blender's importer reads
binary FBX 7.x only, refuses in-between shapes, ignores scale inheritance modes and not FBX's
key tangents: those files are posed against ufbx's Python package (tests/fbx_reference.py),
the ASCII files against their binary twins.
"""
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FBX = HERE / "data" / "fbx"


# --------------------------------------------------------------------------- the Blender side

def _load_fbx_in_blender(path):
    import bpy
    bpy.ops.import_scene.fbx(filepath=path, anim_offset=0.0)


def _fcurves(action):
    """The F-curves of a Blender action (5.0's layered actions keep them in channelbags)."""
    if hasattr(action, "layers") and action.layers:
        return [c for layer in action.layers for strip in layer.strips
                for bag in strip.channelbags for c in bag.fcurves]
    return list(action.fcurves)


def blender_job(job, scene):
    """For each mesh object: ``v:<name>`` (T, V, 3) world vertices in glTF axes at ``frames``:
    up to 6 whole frames that are keys of every F-curve of the actions Blender assigned (frame
    0 for a file without animation); ``fps``; ``action``: the first assigned action's name.

    Keys only: Blender's importer does not read FBX key tangents (its curves between keys are
    its own Bezier handles), so between keys it is no oracle of the file."""
    import bpy
    from blender_mesh import each_frame, world_vertices

    actions = []
    for ob in bpy.data.objects:
        keys = ob.data.shape_keys if ob.type == "MESH" else None
        for owner in (ob, keys):
            ad = owner.animation_data if owner is not None else None
            if ad is not None and ad.action is not None:
                actions.append(ad.action)
    frames = np.zeros(1)
    if actions:   # whole frames keyed on every curve: up to 6, spread over the range
        keyed = None
        for action in actions:
            for curve in _fcurves(action):
                k = {round(p.co[0], 6) for p in curve.keyframe_points}
                keyed = k if keyed is None else keyed & k
        keyed = sorted(f for f in (keyed or ()) if f == int(f))
        if keyed:
            frames = np.array(keyed)[np.unique(np.linspace(0, len(keyed) - 1, 6).astype(int))]
    meshes = [ob for ob in bpy.data.objects if ob.type == "MESH"]
    out = {"fps": np.float64(scene.render.fps / scene.render.fps_base), "frames": frames,
           "action": np.array(actions[0].name if actions else "")}
    posed = {ob.name: [] for ob in meshes}
    for depsgraph in each_frame(scene, frames):
        for ob in meshes:
            posed[ob.name].append(world_vertices(ob, depsgraph))
    for name, v in posed.items():
        out[f"v:{name}"] = np.array(v)[..., [0, 2, 1]] * np.array([1.0, 1.0, -1.0])
    return out


if __name__ == "__main__":
    from blender_mesh import run_script
    run_script(blender_job, load=_load_fbx_in_blender)


# --------------------------------------------------------------------------- the tests

import pytest  # noqa: E402

import skinkit  # noqa: E402
from blender_mesh import run_in_blender  # noqa: E402

# file -> the program that wrote it; each is posed against Blender's importer
BLENDER_ORACLE = {
    "blender_RiggedSimple.fbx": "Blender 5.0",
    "blender_RiggedSimple-morph.fbx": "Blender 5.0",
    "blender_RiggedFigure.fbx": "Blender 5.0",
    "blender_279_sausage_7400_binary.fbx": "Blender 2.79",
    "max_transformed_skin_7500_binary.fbx": "3ds Max (FBX SDK 2019.2)",
    "maya_advanced_skinned_pivot_7700_binary.fbx": "Maya (FBX SDK 2020.3)",
    "maya_split_pivot_7700_binary.fbx": "Maya (FBX SDK 2020.3)",
    "motionbuilder_cube_7700_binary.fbx": "MotionBuilder (FBX SDK 2020.3)",
}
# file -> program, posed against ufbx's Python package (tests/fbx_reference.py) at frames where
# Blender is no oracle: in-between shapes (refused by Blender's importer), the RrSs scale
# inheritance of MotionBuilder (Blender ignores inherit types: 36% off at the rest pose) and
# blend channels keyed at different frames (Blender's curves between keys are its own)
UFBX_ORACLE = {
    "maya_blend_inbetween_7500_binary.fbx": "Maya (FBX SDK 2020.1.1)",
    "maya_blend_shape_cube_7700_binary.fbx": "Maya (FBX SDK 2020.1.1)",
    "motionbuilder_sausage_rrss_7700_binary.fbx": "MotionBuilder (FBX SDK 2020.3)",
    "max_transformed_skin_7500_binary.fbx": "3ds Max (FBX SDK 2019.2)",
    "max2009_cube_anim_6100_binary.fbx": "3ds Max 2009 (FBX 6.1)",
}
# ufbx-python 0.0.5 (ufbx 0.21.1, curves evaluated) and skinkit (the vendored ufbx 0.21.2, baked
# keys) pose this file's blend channels differently: 4.3e-5 of the model size at its baked keys,
# the same with ufbx 0.23.0 vendored (cause not found)
UFBX_TOLERANCE = {"maya_blend_shape_cube_7700_binary.fbx": 1e-4}
# ASCII file -> its binary twin (the same scene written by the same program)
ASCII_TWINS = {
    "max_transformed_skin_7500_ascii.fbx": "max_transformed_skin_7500_binary.fbx",
    "maya_blend_shape_cube_7700_ascii.fbx": "maya_blend_shape_cube_7700_binary.fbx",
    "max2009_cube_anim_6100_ascii.fbx": "max2009_cube_anim_6100_binary.fbx",
}
# Blender deforms in float32 and its importer composes FBX's transform chain itself
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def blender_results(tmp_path_factory):
    from test_blender import bpy_python
    jobs = [{"model": str(FBX / name)} for name in sorted(BLENDER_ORACLE)]
    return run_in_blender(bpy_python(), __file__, jobs, tmp_path_factory.mktemp("blender-fbx"))


def model_size(positions) -> float:
    """The largest extent of a mesh over all its frames (the scale of relative errors)."""
    return float(np.ptp(np.asarray(positions).reshape(-1, 3), axis=0).max())


def clip_for_action(model, action: str):
    """The clip (animation stack) Blender's action ``<object>|<stack>[|<layer>]`` came from."""
    if not action:
        return None
    stack = action.split("|", 1)[1]
    names = [c.name for c in model.clips if c.name and stack.startswith(c.name)]
    assert names, (action, [c.name for c in model.clips])
    return model.clip(max(names, key=len))


def blender_object(result, node_name):
    """Blender's mesh object for the node ``node_name`` (Blender may add a .001 suffix)."""
    if f"v:{node_name}" in result:
        return result[f"v:{node_name}"]
    for key in result:
        if key.startswith("v:") and re.sub(r"\.\d{3}$", "", key[2:]) == node_name:
            return result[key]
    raise AssertionError(f"Blender has no mesh object for node {node_name!r}")


@pytest.mark.integration   # drives Blender
@pytest.mark.parametrize("name", sorted(BLENDER_ORACLE))
def test_pose_matches_blender_importer(blender_results, name):
    r = blender_results[name]
    model = skinkit.load_fbx(FBX / name)
    assert model.primitives
    clip = clip_for_action(model, str(r["action"]))
    times = r["frames"] / r["fps"]
    posed = model.pose(clip, times)
    worst = 0.0
    for p in model.primitives:
        theirs = blender_object(r, model.skeleton.names[p.node])
        ours = posed[p.key]
        assert ours.shape == theirs.shape, (p.key, ours.shape, theirs.shape)
        worst = max(worst, float(np.abs(ours - theirs).max()) / model_size(theirs))
    print(f"\n{name} ({BLENDER_ORACLE[name]}): clip {clip.name if clip else None!r}, "
          f"{len(times)} frames, worst error / model size vs Blender's importer {worst:.2e}")
    assert worst < TOLERANCE


def test_exporters_covered():
    """At least six files from at least three programs other than Blender are posed against
    Blender's importer."""
    programs = {v.split()[0] for v in BLENDER_ORACLE.values()}
    assert {"Blender", "Maya", "3ds", "MotionBuilder"} <= programs
    assert sum(not v.startswith("Blender") for v in BLENDER_ORACLE.values()) >= 4
    assert len(BLENDER_ORACLE) >= 6


@pytest.mark.parametrize("ascii_name", sorted(ASCII_TWINS))
def test_ascii_reads_as_its_binary_twin(ascii_name):
    a = skinkit.load_fbx(FBX / ascii_name)
    b = skinkit.load_fbx(FBX / ASCII_TWINS[ascii_name])
    assert a.skeleton.names == b.skeleton.names
    clip = 0 if a.clips else None
    times = np.linspace(0, a.clips[0].duration, 7) if a.clips else None
    pa, pb = a.pose(clip, times), b.pose(clip, times)
    for key in pb:
        err = np.abs(pa[key] - pb[key]).max() / model_size(pb[key])
        assert err < 1e-6, (key, err)   # ASCII keeps ~7 digits of the values


@pytest.mark.parametrize("name", sorted(UFBX_ORACLE))
def test_pose_matches_ufbx_python(name):
    """skinkit (ufbx's baked keys, skinkit's sampler and skinning) against ufbx's Python
    package (curves evaluated at each time, ufbx's own skinning and blend shapes), at 7 of the
    baked key times spread over the clip (between them, ufbx-python 0.0.5 and skinkit differ
    on Maya's blend-shape curves: 4.5e-4 of the model size at frame 45 of
    maya_blend_shape_cube)."""
    from fbx_reference import posed_vertices
    path = FBX / name
    model = skinkit.load_fbx(path)
    keys = np.unique(np.concatenate([ch.times for ch in model.clips[0].channels]))
    times = keys[np.unique(np.linspace(0, len(keys) - 1, 7).astype(int))]
    posed = model.pose(0, times)
    theirs_all = posed_vertices(path, 0, times)
    worst = 0.0
    for p in model.primitives:
        theirs = theirs_all[model.skeleton.names[p.node]]
        worst = max(worst, float(np.abs(posed[p.key] - theirs).max()) / model_size(theirs))
        assert not np.allclose(theirs[0], theirs[len(times) // 2])   # it moves
    print(f"\n{name} ({UFBX_ORACLE[name]}): {len(times)} key times, worst error / model size vs "
          f"ufbx (Python) {worst:.2e}")
    assert worst < UFBX_TOLERANCE.get(name, 1e-6)


def test_inbetween_targets():
    """Maya in-between shapes: 5 shapes on 2 channels, each a morph target of its own."""
    prim = skinkit.load_fbx(FBX / "maya_blend_inbetween_7500_binary.fbx").primitives[0]
    assert prim.target_count == 5 and prim.morph_positions.shape == (5, 26, 3)


def test_units_and_axes():
    """axes="gltf" (metres, +Y up) against axes="file" (Maya: centimetres, +Y up; the file's
    rest pose scaled by its 0.01 m unit)."""
    name = FBX / "maya_advanced_skinned_pivot_7700_binary.fbx"
    gltf, file = skinkit.load_fbx(name), skinkit.load_fbx(name, axes="file")
    a, b = gltf.pose()[gltf.primitives[0].key], file.pose()[file.primitives[0].key]
    np.testing.assert_allclose(a, b * 0.01, atol=1e-9 * model_size(a))
    with pytest.raises(ValueError, match="axes"):
        skinkit.load_fbx(name, axes="z-up")
    with pytest.raises(ValueError, match="max_bytes"):
        skinkit.load_fbx(name, max_bytes=-1)


def test_float32_model():
    model = skinkit.load_fbx(FBX / "motionbuilder_sausage_rrss_7700_binary.fbx", dtype=np.float32)
    wide = skinkit.load_fbx(FBX / "motionbuilder_sausage_rrss_7700_binary.fbx")
    times = np.linspace(0, wide.clips[0].duration, 5)
    p32, p64 = model.pose(0, times), wide.pose(0, times)
    key = wide.primitives[0].key
    assert p32[key].dtype == np.float32
    assert np.abs(p32[key] - p64[key]).max() / model_size(p64[key]) < 1e-5


def test_model_contents():
    """What the reader hands over, on the Blender export of RiggedSimple-morph.glb: node names
    as in the file, one skin with the glTF's two joints, control points with two influences,
    the two shape keys as morph targets with the glTF's rest weights, UVs, normals."""
    model = skinkit.load_fbx(FBX / "blender_RiggedSimple-morph.fbx")
    source = skinkit.load_gltf(HERE / "data" / "gltf" / "RiggedSimple-morph.glb")
    skin = model.skins[0]
    assert [model.skeleton.names[j] for j in skin.joints] == \
        [source.skeleton.names[j] for j in source.skins[0].joints]
    prim = model.primitives[0]
    assert prim.skinned and prim.joints.shape[1] == 2
    np.testing.assert_allclose(prim.weights.sum(axis=1), 1.0, atol=1e-6)
    assert prim.target_names == ["Bulge", "Shear"]
    # the baked shape-key weights against the glTF clip's, at its key times; Blender's round
    # trip (glTF import, FBX export) moves the clip one frame (1/24 s) earlier
    times = source.clips[0].channels[0].times[1:-1]   # (and ends a frame early)
    ours = model.clips[0].sample_weights(times - 1 / 24)[prim.node]
    theirs = source.clips[0].sample_weights(times)[source.primitives[0].node]
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    assert prim.uvs is None or prim.uvs.shape == (len(prim.positions), 2)
    assert prim.normals.shape == prim.positions.shape
    np.testing.assert_allclose(np.linalg.norm(prim.normals, axis=1), 1.0, atol=1e-6)
    assert prim.faces.max() < len(prim.positions)


def test_cli_info_and_pose(tmp_path, capsys, monkeypatch):
    from cli_run import run
    monkeypatch.chdir(tmp_path)
    name = FBX / "max_transformed_skin_7500_ascii.fbx"
    code, out, err = run(["info", name], capsys)
    assert code == 0, err
    assert "Bone001" in out
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
