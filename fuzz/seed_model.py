"""A small valid glTF 2.0 model that uses most of what skinkit's loader reads, for the fuzzers:
two skinned primitives (float, quantized and interleaved attributes, two JOINTS/WEIGHTS sets,
normalized weights, a sparse accessor, indexed and non-indexed), a node hierarchy with a
matrix node, a skin with inverse bind matrices, and an animation with STEP, LINEAR and
CUBICSPLINE samplers plus a morph-weights channel.

``model()`` returns (json dict, bin bytes); ``glb(doc, bin)`` packs a GLB container.
"""
import base64
import json
import os
import sys

import numpy as np

# the document builder is shared with the loader's tests
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from gltf_doc import Doc, pack_glb as glb  # noqa: E402,F401

def model():
    d = Doc()
    vertices = np.zeros(4, dtype=[("p", "<f4", 3), ("n", "<f4", 3), ("pad", "<u4")])
    vertices["p"] = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]
    vertices["n"] = [0, 0, 1]
    inter = d.view(vertices.tobytes(), stride=28)
    prim0 = {"attributes": {
        "POSITION": d.accessor(5126, "VEC3", 4, inter, min=[0, 0, 0], max=[1, 1, 0]),
        "NORMAL": d.accessor(5126, "VEC3", 4, inter, byteOffset=12),
        "JOINTS_0": d.add([[0, 1, 0, 0]] * 4, 5121, "VEC4"),
        "JOINTS_1": d.add([[2, 0, 0, 0]] * 4, 5123, "VEC4"),
        "WEIGHTS_0": d.add([[128, 64, 0, 0]] * 4, 5121, "VEC4", normalized=True),
        "WEIGHTS_1": d.add([[0.25, 0, 0, 0]] * 4, 5126, "VEC4")},
        "indices": d.add([0, 1, 2, 2, 1, 3], 5125, "SCALAR")}
    pos1 = np.zeros((3, 4), np.int16)
    pos1[:, :3] = [[0, 0, 0], [100, 0, 0], [0, 100, 0]]
    sparse = {"count": 1,
              "indices": {"bufferView": d.view(np.array([2], "<u2").tobytes()),
                          "componentType": 5123},
              "values": {"bufferView": d.view(np.array([[0, 50, 50]], "<i2").tobytes())}}
    prim1 = {"attributes": {
        "POSITION": d.accessor(5122, "VEC3", 3, d.view(pos1.tobytes(), stride=8),
                               sparse=sparse),
        "NORMAL": d.add([[0, 0, 1]] * 3, 5126, "VEC3"),
        "JOINTS_0": d.add([[1, 2, 0, 0]] * 3, 5123, "VEC4"),
        "WEIGHTS_0": d.add([[0.5, 0.5, 0, 0]] * 3, 5126, "VEC4")},
        "targets": [{"POSITION": d.add([[0, 0, 1]] * 3, 5126, "VEC3")}]}
    ibm = np.tile(np.eye(4, dtype=np.float32).T.ravel(), (3, 1))
    ibm[1, 13] = -1.0
    skin_ibm = d.add(ibm, 5126, "MAT4")
    t_in = d.add([0.0, 0.5, 1.0], 5126, "SCALAR")
    rot = d.add([[0, 0, 0, 1], [0, 0, 0.7071, 0.7071], [0, 0, 1, 0]], 5126, "VEC4")
    steps = d.add([[0, 0, 0], [0, 1, 0], [0, 2, 0]], 5126, "VEC3")
    cubic = d.add([[0, 0, 0], [1, 1, 1], [0, 0, 0]] * 3, 5126, "VEC3")
    qrot = d.add([[0, 0, 0, 127], [0, 0, 90, 90], [0, 0, 127, 0]], 5120, "VEC4", normalized=True)
    mw = d.add([0.0, 1.0, 0.5], 5126, "SCALAR")
    m = np.eye(4)
    m[3, :3] = [0, 1, 0]  # column-major translation
    d.json.update(
        scene=0, scenes=[{"nodes": [0, 1]}],
        nodes=[{"mesh": 0, "skin": 0, "name": "body"},
               {"children": [2], "name": "root", "translation": [0, 0, 0],
                "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]},
               {"children": [3], "matrix": m.ravel().tolist(), "name": "mid"},
               {"name": "tip"},
               {"mesh": 1, "skin": 0}],
        meshes=[{"primitives": [prim0]}, {"primitives": [prim1], "weights": [0.0]}],
        skins=[{"joints": [1, 2, 3], "inverseBindMatrices": skin_ibm, "skeleton": 1}],
        animations=[{"name": "bend", "channels": [
            {"sampler": 0, "target": {"node": 2, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 1, "path": "translation"}},
            {"sampler": 2, "target": {"node": 3, "path": "scale"}},
            {"sampler": 3, "target": {"node": 3, "path": "rotation"}},
            {"sampler": 4, "target": {"node": 4, "path": "weights"}}],
            "samplers": [{"input": t_in, "output": rot},
                         {"input": t_in, "output": steps, "interpolation": "STEP"},
                         {"input": t_in, "output": cubic, "interpolation": "CUBICSPLINE"},
                         {"input": t_in, "output": qrot},
                         {"input": t_in, "output": mw}]}])
    return d.json, bytes(d.bin)


def gltf_text(doc, bin_bytes):
    doc = json.loads(json.dumps(doc))
    doc["buffers"][0]["uri"] = ("data:application/octet-stream;base64,"
                                + base64.b64encode(bin_bytes).decode())
    return json.dumps(doc).encode()


if __name__ == "__main__":  # a quick check that the model is valid
    import sys
    import tempfile
    from pathlib import Path

    import skinkit
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "m.glb"
        p.write_bytes(glb(*model()))
        m = skinkit.load_gltf(p)
        print(m.skeleton.parents, [c.name for c in m.clips], len(m.primitives),
              {k: v.shape for k, v in m.pose(clip=0, times=[0.0, 0.3]).items()}, file=sys.stderr)
