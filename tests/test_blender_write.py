"""Files written by skinkit.write_gltf, imported by Blender's glTF importer (bpy) and evaluated
there (Armature modifier, shape keys): Blender's vertices match skinkit's pose of the model that
was written, at key times (both deform in float32 or better: 2e-6 of the model's size).
The Blender side runs in bpy's own Python (see tests/test_blender.py)."""

import numpy as np


def blender_job(job, scene):
    """In Blender: every mesh object's evaluated world vertices at job["frames"], side by side
    in object-name order."""
    import bpy
    from blender_mesh import each_frame, world_vertices

    meshes = sorted((o for o in bpy.data.objects if o.type == "MESH"
                     and not o.name.startswith("Icosphere")), key=lambda o: o.name)  # bone shapes
    frames = [float(f) for f in job["frames"]]
    verts = [np.concatenate([world_vertices(m, d) for m in meshes]) for d in each_frame(scene, frames)]
    return {"vertices": np.array(verts), "fps": np.float64(scene.render.fps / scene.render.fps_base)}


if __name__ == "__main__":
    from blender_mesh import run_script
    run_script(blender_job)


import pytest  # noqa: E402
from scipy.spatial.transform import Rotation  # noqa: E402

import skinkit  # noqa: E402
from blender_mesh import bpy_python, run_in_blender  # noqa: E402
from conftest import GLTF  # noqa: E402
from skinkit.model.humanoid import humanoid_model  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.shared]
FRAMES = [0, 6, 12, 24]   # Blender imports at 24 frames per second: keys every 1/24 s


def humanoid_with_clip():
    src = humanoid_model("smpl", "T")
    t = np.arange(25) / 24.0
    rng = np.random.default_rng(7)
    ch = [skinkit.Channel(j, "rotation", t, Rotation.from_rotvec(
        np.cumsum(rng.normal(size=(25, 3)) * 0.05, axis=0)).as_quat()) for j in range(22)]
    ch.append(skinkit.Channel(0, "translation", t, [0, 0.95, 0] + rng.normal(size=(25, 3)) * 0.05))
    src.clips = [skinkit.Clip("motion", ch)]
    dst = humanoid_model("mixamo", "A", bone_frames=True)
    dst.clips = [skinkit.retarget(src, dst)]
    return dst


def models():
    return {"humanoid.glb": humanoid_with_clip(),
            "RiggedSimple-morph.glb": skinkit.load_gltf(GLTF / "RiggedSimple-morph.glb"),
            "CesiumMan.glb": skinkit.load_gltf(GLTF / "CesiumMan.glb")}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    exe = bpy_python()
    folder = tmp_path_factory.mktemp("blender_write")
    ms = models()
    jobs = []
    for name, model in ms.items():
        path = folder / name
        skinkit.write_gltf(model, path)
        jobs.append({"model": str(path), "frames": FRAMES})
    return ms, run_in_blender(exe, __file__, jobs, folder, PYTHONPATH="")


@pytest.mark.parametrize("name", ["humanoid.glb", "RiggedSimple-morph.glb", "CesiumMan.glb"])
def test_blender_evaluates_the_written_file_like_skinkit(written, name):
    ms, results = written
    model, r = ms[name], results[name]
    times = np.array(FRAMES, float) / float(r["fps"])
    posed = model.pose(0, times)
    ours = np.concatenate([posed[p.key] for p in model.primitives], axis=1)
    ours = ours[..., [0, 2, 1]] * [1.0, -1.0, 1.0]      # glTF +Y up -> Blender +Z up
    theirs = r["vertices"]
    assert theirs.shape == ours.shape
    extent = np.ptp(ours.reshape(-1, 3), axis=0).max()
    err = np.abs(theirs - ours).max() / extent      # one mesh object each: vertex order kept
    assert err < 2e-6, err
