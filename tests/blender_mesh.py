"""The Blender tests' bridge to Blender's Python (its own interpreter): running a test file there
as a script on a list of jobs and reading back what it saved; and, inside Blender, an object's
evaluated mesh (modifiers, shape keys, bone parents applied) in world space."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np


def run_in_blender(exe, script, jobs, out_dir, **env):
    """Run ``script`` (a test file whose ``__main__`` is run_script) with Blender's Python ``exe``
    on ``jobs`` [{"model": glTF path, ...}] with the environment variables ``env`` added; returns
    {model file name: {name: array}}, what it saved for each job in ``out_dir``."""
    proc = subprocess.run([exe, str(script), json.dumps(jobs), str(out_dir)], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, **env))
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    saved = {Path(job["model"]).name: Path(out_dir) / (Path(job["model"]).stem + ".npz")
             for job in jobs}
    return {name: dict(np.load(path)) for name, path in saved.items()}


def run_script(one_job, load=None):
    """In Blender, a test file's ``__main__`` (``python FILE JOBS_JSON OUT_DIR``): for each job
    {"model", ...} a fresh session with the file ``job["model"]`` imported (``load(path)``,
    default Blender's glTF importer), then ``one_job(job, scene)`` -> {name: array}, saved as
    ``OUT_DIR/<model stem>.npz``; exits."""
    import bpy

    jobs_json, out_dir = sys.argv[1:3]
    for job in json.loads(jobs_json):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        if load is None:
            bpy.ops.import_scene.gltf(filepath=job["model"])
        else:
            load(job["model"])
        out = one_job(job, bpy.context.scene)
        np.savez(Path(out_dir) / (Path(job["model"]).stem + ".npz"), **out)
    sys.exit(0)


def each_frame(scene, frames):
    """Set ``scene`` to every (fractional) frame in turn; yields the frame's evaluated
    depsgraph."""
    import bpy

    for f in frames:
        scene.frame_set(int(np.floor(f)), subframe=float(f - np.floor(f)))
        yield bpy.context.evaluated_depsgraph_get()


def world_vertices(obj, depsgraph) -> np.ndarray:
    """The evaluated vertices of ``obj`` in world space, (V, 3) float64."""
    ev = obj.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    co = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    M = np.array(ev.matrix_world)
    ev.to_mesh_clear()
    return co.reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]
