"""Files written by skinkit.write_usd, imported by Blender's USD importer (bpy) and evaluated there
(Armature modifier, shape keys): Blender's vertices match skinkit's pose of the model that was
written, at whole time codes (Blender's frames).  The Blender side runs in bpy's own Python (see
tests/test_blender.py); it brings its own USD, so usd-core is needed only to write."""
import numpy as np


def blender_job(job, scene):
    """In Blender: every mesh object's evaluated world vertices at job["frames"], side by side
    in object-name order."""
    import bpy
    from blender_mesh import each_frame, world_vertices

    meshes = sorted((o for o in bpy.data.objects if o.type == "MESH"), key=lambda o: o.name)
    frames = [float(f) for f in job["frames"]]
    verts = [np.concatenate([world_vertices(m, d) for m in meshes])
             for d in each_frame(scene, frames)]
    return {"vertices": np.array(verts), "names": np.array([m.name for m in meshes]),
            "fps": np.float64(scene.render.fps / scene.render.fps_base)}


def _usd_import(path):
    import bpy
    bpy.ops.wm.usd_import(filepath=path)


if __name__ == "__main__":
    from blender_mesh import run_script
    run_script(blender_job, _usd_import)


import pytest  # noqa: E402

import skinkit  # noqa: E402
from blender_mesh import run_in_blender  # noqa: E402
from conftest import GLTF, USD_HOW, optional_import  # noqa: E402
from test_blender import bpy_python  # noqa: E402

pytestmark = pytest.mark.integration
FRAMES = [0, 6, 12, 24]


def models(usd_files):
    return {"CesiumMan.usdc": skinkit.load_gltf(GLTF / "CesiumMan.glb"),
            "RiggedSimple-morph.usdc": skinkit.load_gltf(GLTF / "RiggedSimple-morph.glb"),
            "dqs.usda": skinkit.load_usd(usd_files / "openusd/dqs.usda", axes="file")}


@pytest.fixture(scope="module")
def written(tmp_path_factory, usd_files):
    optional_import("pxr", USD_HOW, "usd")
    exe = bpy_python()
    folder = tmp_path_factory.mktemp("blender_usd")
    ms = models(usd_files)
    jobs = []
    for name, model in ms.items():
        path = folder / name
        skinkit.write_usd(model, path)
        jobs.append({"model": str(path), "frames": FRAMES})
    return ms, run_in_blender(exe, __file__, jobs, folder, PYTHONPATH="")


@pytest.mark.parametrize("name", ["CesiumMan.usdc", "RiggedSimple-morph.usdc", "dqs.usda"])
def test_blender_evaluates_the_written_usd_like_skinkit(written, name):
    """dqs.usda: three meshes written with skel:skinningMethod "dualQuaternion", which Blender
    5.0.1's importer does not read: it skins them linearly, so they are compared with
    skinkit's LBS (usd-core honours the method: test_usd.py).  Read in the file's units: with
    the 0.01 root scale of axes="gltf" on a joint, Blender is off by 2e-4 of the extent."""
    from pxr import Tf
    ms, results = written
    model, r = ms[name], results[name]
    times = np.array(FRAMES, float) / 24.0      # the written stage: 24 time codes a second
    for p in model.primitives:
        p.skinning = None
    posed = model.pose(0, times)
    by_name = {Tf.MakeValidIdentifier(f"{model.skeleton.names[p.node]}_{p.index}"): p.key
               for p in model.primitives}       # Blender's objects: the Mesh prims' names
    ours = np.concatenate([posed[by_name[n]] for n in r["names"]], axis=1)
    ours = ours[..., [0, 2, 1]] * [1.0, -1.0, 1.0]      # the stage's +Y up -> Blender's +Z up
    theirs = r["vertices"]
    assert theirs.shape == ours.shape
    extent = np.ptp(ours.reshape(-1, 3), axis=0).max()
    err = np.abs(theirs - ours).max() / extent
    assert err < 2e-6, (err, float(r["fps"]))
