"""A second view of an FBX file, from ufbx's Python package (``ufbx`` on PyPI, its own build of
ufbx): world-space vertices of every mesh at given times, from ``ufbx.evaluate_scene`` (the
animation curves evaluated at each time, no baking) with ufbx's own skinning and blend shapes,
and the axis and unit conversion done by a root transform (TRANSFORM_ROOT) and geometry
transforms kept as they are (PRESERVE): other code paths than skinkit's reader takes.

ufbx 0.0.5 (Python) crashes when an evaluated scene is freed (seen at garbage collection), so the
evaluation runs in a child process that saves its arrays and leaves with ``os._exit``."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


_KEEP = []   # the child process exits with os._exit before anything here is freed


def _vec3s(values) -> np.ndarray:
    return np.array([[v.x, v.y, v.z] for v in values], dtype=np.float64).reshape(-1, 3)


def _matrix(m) -> np.ndarray:
    out = np.eye(4)
    for c, col in enumerate((m.c0, m.c1, m.c2, m.c3)):
        out[:3, c] = (col.x, col.y, col.z)
    return out


def posed_vertices(path, stack, times):
    """{node name: (T, V, 3)} world-space control points of each mesh instance (metres, +Y up)
    at ``times`` (seconds) of animation stack ``stack`` (an index; None for the rest pose)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "posed.npz"
        proc = subprocess.run([sys.executable, __file__, str(path), json.dumps(stack),
                               json.dumps([float(t) for t in times]), str(out)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        with np.load(out) as z:
            return {k: z[k] for k in z.files}


def _evaluate(path, stack, times):
    import ufbx
    scene = ufbx.load_file(str(path), target_axes=ufbx.axes_right_handed_y_up,
                           target_unit_meters=1.0,
                           space_conversion=ufbx.SpaceConversion.TRANSFORM_ROOT,
                           geometry_transform_handling=ufbx.GeometryTransformHandling.PRESERVE,
                           evaluate_skinning=True)
    # every object ufbx hands out is kept alive: freeing some crashes ufbx 0.0.5
    stacks = scene.anim_stacks
    anim = stacks[stack].anim if stack is not None else scene.anim
    out, states = {}, []
    for t in times:
        state = ufbx.evaluate_scene(scene, anim, t, evaluate_skinning=True)
        states.append(state)
        for node in state.nodes:
            mesh = node.mesh
            if mesh is None or node.is_root:
                continue
            pos = mesh.skinned_position
            first = np.array(list(mesh.vertex_first_index), dtype=np.int64)
            idx = np.array(list(pos.indices), dtype=np.int64)[first]
            v = _vec3s(pos.values)[idx]
            if mesh.skinned_is_local:
                m = _matrix(node.geometry_to_world)
                v = v @ m[:3, :3].T + m[:3, 3]
            out.setdefault(node.name, []).append(v)
    _KEEP.append((scene, stacks, anim, states))
    return {k: np.stack(v) for k, v in out.items()}


if __name__ == "__main__":
    import gc
    gc.disable()   # ufbx 0.0.5's objects crash the cyclic collector
    posed = _evaluate(sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]))
    np.savez(sys.argv[4], **posed)
    sys.stdout.flush()
    os._exit(0)
