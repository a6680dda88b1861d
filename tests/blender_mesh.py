"""Run inside Blender by the Blender tests: an object's evaluated mesh (modifiers, shape keys,
bone parents applied) in world space."""
import numpy as np


def world_vertices(obj, depsgraph) -> np.ndarray:
    """The evaluated vertices of ``obj`` in world space, (V, 3) float64."""
    ev = obj.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    co = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    M = np.array(ev.matrix_world)
    ev.to_mesh_clear()
    return co.reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]
