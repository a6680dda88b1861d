"""Blender: skinkit.apps.blender (the bridge that poses a Blender armature's meshes from bpy data)
against Blender's own shape keys and Armature modifier, and skinkit's glTF pose against the same
Blender scene.

Blender's Python module (``bpy`` 5.0.1 from PyPI, Python 3.11) pins ``numpy<2``, so it lives in its
own virtual environment; .ci/run makes it (``$SKINKIT_BPY_VENV``, default
``~/.cache/skinkit/bpy-venv``).  This file is also the script that runs there: it imports each glTF
fixture with ``bpy.ops.import_scene.gltf``, sets frames, and saves the evaluated depsgraph mesh
(Blender's deformation, in world space) next to what the example computes from the ``bpy`` data.
The skinkit it uses is the one under test (this interpreter's package, put on the path).

Tolerances, relative to the model's size (largest extent of the posed mesh): 2e-6 where both sides
compute the same thing (Blender deforms in float32: the worst seen is 5e-7); glTF against Blender
at key times the same; between keys 2e-3, because Blender interpolates quaternion F-curves
component-wise (then normalizes) where glTF slerps (RiggedFigure, keys 1.25 s apart: 6e-4).
"""
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- the Blender side

def evaluated_positions(scene, meshes, frames):
    """{mesh name: (T, V, 3)} world-space positions of the evaluated meshes at ``frames``."""
    from blender_mesh import each_frame, world_vertices

    out = {m.name: [] for m in meshes}
    for depsgraph in each_frame(scene, frames):
        for m in meshes:
            out[m.name].append(world_vertices(m, depsgraph))
    return {k: np.array(v) for k, v in out.items()}


def blender_job(job, scene):
    """Run by Blender's Python for each job {"model", "frames", "dqs"} (blender_mesh.run_script):
    blender_<mesh> (T, V, 3), example_<mesh> (T, V, 3), current_<mesh> (1, V, 3: the example on
    the pose at the last frame), fps, action name; with "dqs" also blender_dqs_<mesh> (T, V, 3),
    the Armature modifier with "Preserve Volume" on."""
    import bpy
    import skinkit.apps.blender as blender_pose

    frames = [float(f) for f in job["frames"]]
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    meshes = blender_pose.skinned_meshes(arm)
    if job.get("shape_keys"):
        return shape_key_job(arm, meshes[0], frames, scene)
    out = {"fps": np.float64(scene.render.fps / scene.render.fps_base),
           "action": np.array(arm.animation_data.action.name),
           "meshes": np.array([m.name for m in meshes])}
    start = time.perf_counter()
    for m in meshes:
        out[f"example_{m.name}"] = blender_pose.pose_mesh(arm, m, frames)
    out["example_seconds"] = np.float64(time.perf_counter() - start)
    blender = evaluated_positions(scene, meshes, frames)
    for m in meshes:                        # scene is at the last frame: its current pose
        out[f"blender_{m.name}"] = blender[m.name]
        out[f"current_{m.name}"] = blender_pose.pose_mesh(arm, m)
    if job.get("dqs"):
        for m in meshes:
            for mod in m.modifiers:
                if mod.type == "ARMATURE":
                    mod.use_deform_preserve_volume = True
        for name, pos in evaluated_positions(scene, meshes, frames).items():
            out[f"blender_dqs_{name}"] = pos
        for m in meshes:
            out[f"example_dqs_{m.name}"] = blender_pose.pose_mesh(arm, m, frames)
    return out


def shape_key_job(arm, mesh, frames, scene):
    """Shape keys on top of the glTF importer's (morph targets, their weights animated): one
    masked by a vertex group, one relative to it, one muted; Blender's evaluated mesh and
    skinkit.apps.blender's at ``frames`` and now; then the keys made absolute, which must be refused
    (the message is saved)."""
    import skinkit.apps.blender as bridge

    key = mesh.data.shape_keys
    rng = np.random.default_rng(7)
    size = np.ptp(bridge._coordinates(mesh.data.vertices), axis=0).max()
    for name, relative, value, group in [("masked", None, 0.6, mesh.vertex_groups[0].name),
                                         ("chained", "masked", 0.3, ""),
                                         ("muted", None, 1.0, "")]:
        block = mesh.shape_key_add(name=name, from_mix=False)
        co = bridge._coordinates(block.data) + 0.1 * size * rng.normal(size=(len(block.data), 3))
        block.data.foreach_set("co", co.ravel())
        block.value, block.vertex_group = value, group
        if relative:
            block.relative_key = key.key_blocks[relative]
        block.mute = name == "muted"
    out = {"shape_key_names": np.array([b.name for b in key.key_blocks]),
           "example": bridge.pose_mesh(arm, mesh, frames),
           "blender": evaluated_positions(scene, [mesh], frames)[mesh.name],
           "current": bridge.pose_mesh(arm, mesh)}
    out["blender_current"] = evaluated_positions(scene, [mesh], [frames[-1]])[mesh.name]
    key.use_relative = False
    try:
        bridge.pose_mesh(arm, mesh, frames)
        out["refused"] = np.array("")
    except ValueError as e:
        out["refused"] = np.array(str(e))
    return out


if __name__ == "__main__":
    from blender_mesh import run_script
    run_script(blender_job)


# --------------------------------------------------------------------------- the tests

import pytest  # noqa: E402

import skinkit  # noqa: E402
from blender_mesh import bpy_python, run_in_blender  # noqa: E402
from conftest import GLTF  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.shared]


# model -> frames: key frames (frame = time * 24), then between keys
JOBS = {
    "CesiumMan.glb": [1, 12, 24, 37, 48, 10.5],
    "CesiumMan-cubic.glb": [1, 12, 24, 48],
    "Fox.glb": [0, 5, 20, 82, 7.25],
    "RiggedSimple.glb": [1, 10, 25, 50],
    "RiggedFigure.glb": [0, 30, 7],
    "character.glb": [0, 4, 12, 24, 40, 7],     # skinkit.data's own (keys every 1/30 s)
}
BETWEEN_KEYS = {("CesiumMan.glb", 10.5), ("Fox.glb", 7.25), ("RiggedFigure.glb", 7),
                ("character.glb", 7)}
DQS = {"CesiumMan.glb", "RiggedFigure.glb"}          # also posed with "Preserve Volume"
SHAPE_KEYS = {"RiggedSimple-morph.glb": [1, 10, 25, 40]}   # shape_key_job's model and frames
TIGHT, LOOSE = 2e-6, 2e-3


def model_path(name):
    """A shared glTF fixture, or the sample character skinkit.data writes."""
    return skinkit.data.path(name) if name in skinkit.data.FILES else GLTF / name


@pytest.fixture(scope="module")
def blender_results(tmp_path_factory):
    exe = bpy_python()
    theirs = subprocess.run([exe, "-c", "import sys; print(*sys.version_info[:2])"],
                            capture_output=True, text=True).stdout.split()
    if not theirs:
        pytest.fail(f"{exe} does not run")
    if theirs != [str(v) for v in sys.version_info[:2]]:
        # not a missing dependency: this build of skinkit cannot load in that interpreter
        pytest.skip(f"bpy's Python is {'.'.join(theirs)} and this is "
                    f"{sys.version_info[0]}.{sys.version_info[1]}: skinkit's extension built "
                    "here does not load there (bpy 5.0 is for Python 3.11)")
    # the skinkit under test, alone on the path (not this environment's numpy 2)
    shim = tmp_path_factory.mktemp("shim")
    (shim / "skinkit").symlink_to(Path(skinkit.__file__).parent, target_is_directory=True)
    jobs = [{"model": str(model_path(m)), "frames": f, "dqs": m in DQS} for m, f in JOBS.items()]
    jobs += [{"model": str(model_path(m)), "frames": f, "shape_keys": True}
             for m, f in SHAPE_KEYS.items()]
    start = time.perf_counter()
    results = run_in_blender(exe, __file__, jobs, tmp_path_factory.mktemp("blender"),
                             PYTHONPATH=str(shim))
    print(f"\nBlender side: {time.perf_counter() - start:.1f} s")
    return results


def rel_error(a, b):
    return float(np.abs(a - b).max() / np.ptp(b.reshape(-1, 3), axis=0).max())


@pytest.mark.parametrize("model", sorted(JOBS))
def test_example_matches_blender_armature_modifier(blender_results, model):
    r = blender_results[model]
    assert len(r["meshes"]) >= 1
    for name in r["meshes"]:
        ours, blender = r[f"example_{name}"], r[f"blender_{name}"]
        assert ours.shape == blender.shape == (len(JOBS[model]), ours.shape[1], 3)
        assert rel_error(ours, blender) < TIGHT, (name, rel_error(ours, blender))
        assert not np.allclose(blender[0], blender[1])           # the frames really differ
        # the current pose (pose bones' matrix_basis) at the last frame set
        assert rel_error(r[f"current_{name}"][0], blender[-1]) < TIGHT


def test_shape_keys_match_blender(blender_results):
    """Relative shape keys (the glTF importer's animated morph targets, a key masked by a vertex
    group, one relative to it, a muted one) then the Armature modifier: skinkit.apps.blender against
    Blender's evaluated mesh at frames and at the current values; absolute keys refused."""
    (model,) = SHAPE_KEYS
    r = blender_results[model]
    assert len(r["shape_key_names"]) >= 4                 # the importer's and the three added
    ours, blender = r["example"], r["blender"]
    assert ours.shape == blender.shape
    assert rel_error(ours, blender) < TIGHT, rel_error(ours, blender)
    assert not np.allclose(blender[0], blender[-1])
    assert rel_error(r["current"], r["blender_current"]) < TIGHT
    assert "absolute" in str(r["refused"])


def _gltf_clip(model, action_name):
    for i, c in enumerate(model.clips):
        if c.name == action_name or (c.name is None and action_name == f"Anim_{i}"):
            return c
    raise AssertionError(f"no clip for Blender's action {action_name!r}")


def in_blender_axes(model, posed, name):
    """skinkit's posed positions of the mesh on the node named ``name`` (its primitives side by
    side), turned from glTF's +Y up to Blender's +Z up: (x, y, z) -> (x, -z, y)."""
    prims = [p for p in model.primitives if model.skeleton.names[p.node] == name]
    assert prims, f"no glTF primitive on a node named {name!r}"
    ours = np.concatenate([posed[p.key] for p in prims], axis=1)
    return ours[..., [0, 2, 1]] * np.array([1.0, -1.0, 1.0])


@pytest.mark.parametrize("model_name", sorted(JOBS))
def test_skinkit_gltf_pose_matches_blender(blender_results, model_name):
    """skinkit's glTF pose, turned from glTF's +Y up to Blender's +Z up ((x, y, z) ->
    (x, -z, y)), at time = frame / fps, against Blender's imported scene."""
    r = blender_results[model_name]
    model = skinkit.load_gltf(model_path(model_name))
    clip = _gltf_clip(model, str(r["action"]))
    frames = np.array(JOBS[model_name], np.float64)
    posed = model.pose(clip=clip, times=frames / float(r["fps"]))
    for name in r["meshes"]:
        ours = in_blender_axes(model, posed, name)
        blender = r[f"blender_{name}"]
        assert ours.shape == blender.shape
        for i, f in enumerate(JOBS[model_name]):
            tol = LOOSE if (model_name, f) in BETWEEN_KEYS else TIGHT
            assert rel_error(ours[i], blender[i]) < tol, (name, f, rel_error(ours[i], blender[i]))


@pytest.mark.parametrize("model_name", sorted(DQS))
def test_skinkit_dqs_matches_blender_preserve_volume(blender_results, model_name):
    """skinkit's glTF pose with dual quaternion skinning against Blender's Armature modifier
    with "Preserve Volume", at key times (as test_skinkit_gltf_pose_matches_blender)."""
    r = blender_results[model_name]
    model = skinkit.load_gltf(model_path(model_name))
    clip = _gltf_clip(model, str(r["action"]))
    frames = np.array([f for f in JOBS[model_name] if (model_name, f) not in BETWEEN_KEYS])
    keys = [i for i, f in enumerate(JOBS[model_name]) if (model_name, f) not in BETWEEN_KEYS]
    posed = model.pose(clip=clip, times=frames / float(r["fps"]), skinning="dqs")
    lbs = model.pose(clip=clip, times=frames / float(r["fps"]))
    for name in r["meshes"]:
        ours = in_blender_axes(model, posed, name)
        blender = r[f"blender_dqs_{name}"][keys]
        err = rel_error(ours, blender)
        # examples/blender_pose.py from the bpy data, with Preserve Volume on
        example = rel_error(r[f"example_dqs_{name}"], r[f"blender_dqs_{name}"])
        print(f"\n{model_name} {name}: against Blender's Preserve Volume, relative error "
              f"{err:.2e} (glTF pose), {example:.2e} (example from bpy data)")
        assert err < TIGHT, (name, err)
        assert example < TIGHT, (name, example)
        # Preserve Volume really differs from LBS on these poses
        assert rel_error(in_blender_axes(model, lbs, name), blender) > 100 * TIGHT
