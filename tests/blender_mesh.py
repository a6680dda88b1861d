"""Run inside Blender by the Blender tests: an object's evaluated mesh (modifiers, shape keys,
bone parents applied) in world space."""
import json
from pathlib import Path

import numpy as np


def run_jobs(jobs_json: str, out_dir: str, one_job) -> int:
    """For each job {"model", ...} of ``jobs_json``: a fresh Blender session with the glTF file
    ``job["model"]`` imported, then ``one_job(job, scene)`` -> {name: array}, saved as
    ``out_dir/<model stem>.npz``."""
    import bpy

    for job in json.loads(jobs_json):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=job["model"])
        out = one_job(job, bpy.context.scene)
        np.savez(Path(out_dir) / (Path(job["model"]).stem + ".npz"), **out)
    return 0


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
