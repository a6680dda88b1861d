"""The Blender tests' bridge to Blender's Python (its own interpreter): finding it, running a test
file there as a script on a list of jobs and reading back what it saved, making (and caching) the
content tests/blender_scenes.py writes; and, inside Blender, an object's evaluated mesh
(modifiers, shape keys, bone parents applied) in world space."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

SCENES = Path(__file__).resolve().parent / "blender_scenes.py"


def bpy_python():
    """An interpreter that imports bpy: $SKINKIT_BPY_PYTHON, this one, or .ci/run's venv;
    without one, ``missing("bpy")`` (skip, or fail where bpy is required)."""
    from conftest import missing

    if os.environ.get("SKINKIT_BPY_PYTHON"):
        return os.environ["SKINKIT_BPY_PYTHON"]
    import importlib.util
    if importlib.util.find_spec("bpy") is not None:
        return sys.executable
    venv = Path(os.environ.get("SKINKIT_BPY_VENV",
                               Path.home() / ".cache" / "skinkit" / "bpy-venv"))
    exe = venv / "bin" / "python"
    if not exe.exists():
        missing("bpy", "bash .ci/run makes a venv with it, or by hand: python3.11 -m venv "
                "~/.cache/skinkit/bpy-venv && ~/.cache/skinkit/bpy-venv/bin/pip install "
                "bpy==5.0.1 (or set SKINKIT_BPY_PYTHON to a Python that imports bpy)")
    return str(exe)


def made_by_blender(*sources) -> Path:
    """The folder of what tests/blender_scenes.py writes (the procedural rig; each glTF of
    ``sources`` converted), made once by Blender and cached under ``CACHE/blender-<hash>``, the
    hash of that script, this file and the sources' bytes."""
    from conftest import CACHE

    digest = hashlib.sha256()
    for path in (SCENES, Path(__file__), *sources):
        digest.update(Path(path).read_bytes())
    out = CACHE / f"blender-{digest.hexdigest()[:16]}"
    if not (out / "done").exists():
        tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        proc = subprocess.run([bpy_python(), str(SCENES), str(tmp), *map(str, sources)],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
        (tmp / "done").write_text("")
        try:
            tmp.rename(out)
        except OSError:      # another process got there first
            shutil.rmtree(tmp)
    return out


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
