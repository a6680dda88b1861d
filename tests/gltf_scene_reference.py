"""A plain NumPy evaluation of a glTF 2.0 scene at key times, written from the specification
alone (no skinkit): its own accessor decoding (byte strides, sparse accessors, normalized
integers), the node TRS chain (3.5.3), morph targets (3.7.2.2), skinning (3.7.3) or the node's
world matrix, for every mesh primitive instance of a scene.

At a key time of every channel (or before the first or after the last key of each) every
sampler returns a key value, so no interpolation is needed: ``scene_times`` picks such times and
``key_value`` refuses any other.  Between keys (``key_times_and_midpoints``) a channel is
interpolated by ``reference.sample_channel`` (glTF 2.0 Appendix C; rotations normalized).
"""
import base64
import json
import struct
from pathlib import Path

import numpy as np

import reference as ref

_DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


class Document:
    """A glTF file's JSON and buffers."""

    def __init__(self, path):
        path = Path(path)
        data = path.read_bytes()
        chunk = None
        if data[:4] == b"glTF":
            n = struct.unpack_from("<I", data, 12)[0]
            self.json = json.loads(data[20:20 + n])
            if len(data) > 20 + n:
                chunk = data[28 + n:]
        else:
            self.json = json.loads(data)
        self._cache = {}
        self.buffers = []
        for b in self.json.get("buffers", []):
            uri = b.get("uri")
            if uri is None:
                self.buffers.append(chunk)
            elif uri.startswith("data:"):
                self.buffers.append(base64.b64decode(uri.split(",", 1)[1]))
            else:
                self.buffers.append((path.parent / uri).read_bytes())

    def _elements(self, view_index, offset, ctype, width, count, tight=False):
        view = self.json["bufferViews"][view_index]
        size = np.dtype(_DTYPES[ctype]).itemsize
        stride = width * size if tight else view.get("byteStride", width * size)
        start = view.get("byteOffset", 0) + offset
        buf = self.buffers[view["buffer"]]
        rows = [np.frombuffer(buf, _DTYPES[ctype], width, start + i * stride)
                for i in range(count)]
        return np.array(rows, dtype=np.float64).reshape(count, width)

    def accessor(self, k):
        """accessors[k] as float64 (count, width); normalized integers as c / max (>= -1)."""
        if k not in self._cache:
            self._cache[k] = self._decode(k)
        return self._cache[k]

    def _decode(self, k):
        a = self.json["accessors"][k]
        width, ctype, count = _WIDTH[a["type"]], a["componentType"], a["count"]
        if "bufferView" in a:
            out = self._elements(a["bufferView"], a.get("byteOffset", 0), ctype, width, count)
        else:
            out = np.zeros((count, width))
        sparse = a.get("sparse")
        if sparse:
            ind, val = sparse["indices"], sparse["values"]
            rows = self._elements(ind["bufferView"], ind.get("byteOffset", 0),
                                  ind["componentType"], 1, sparse["count"], tight=True)
            out[rows[:, 0].astype(int)] = self._elements(
                val["bufferView"], val.get("byteOffset", 0), ctype, width, sparse["count"],
                tight=True)
        if a.get("normalized"):
            info = np.iinfo(_DTYPES[ctype])
            out = np.maximum(out / info.max, -1.0)
        return out


def _trs(t, r, s):
    m = np.eye(4)
    m[:3, :3] = ref.quat_to_matrix(r) * np.asarray(s, float)
    m[:3, 3] = t
    return m


def key_value(doc, sampler, t):
    """The sampler's key value in force at time t: t must be a key time, or before the first
    or after the last key (glTF 2.0 Appendix C)."""
    times = doc.accessor(sampler["input"])[:, 0]
    values = doc.accessor(sampler["output"])
    cubic = sampler.get("interpolation", "LINEAR") == "CUBICSPLINE"
    per_key = values.reshape(len(times), -1)            # a key's outputs side by side
    if t <= times[0]:
        k = 0
    elif t >= times[-1]:
        k = len(times) - 1
    else:
        hits = np.flatnonzero(times == t)
        assert hits.size == 1, f"{t} is not a key time"
        k = int(hits[0])
    row = per_key[k]
    if cubic:                                          # in-tangents, values, out-tangents
        n = row.size // 3
        row = row[n:2 * n]
    return row


def channel_value(doc, sampler, t, path):
    """The channel's value at time t: the key value at a key time (or outside the keys), else
    interpolated (``reference.sample_channel``); a rotation normalized either way, as
    Blender and ozz-animation (and skinkit) use it; three.js uses a key as stored: SimpleSkin's
    keys have |q| = 1.00023, which moves its vertices by 4.5e-4 of the model's size
    (docs/conventions.rst)."""
    rotation = path == "rotation"
    times = doc.accessor(sampler["input"])[:, 0]
    if t <= times[0] or t >= times[-1] or t in times:
        value = key_value(doc, sampler, t)
        return ref.quat_normalize(value) if rotation else value
    values = doc.accessor(sampler["output"])
    rows = len(times) * (3 if sampler.get("interpolation") == "CUBICSPLINE" else 1)
    return ref.sample_channel(times, values.reshape(rows, -1),
                              sampler.get("interpolation", "LINEAR"), t, rotation)


def scene_times(doc, animation):
    """Times at which every channel of ``animations[animation]`` is at a key: the key times all
    channels share, and one time before and one after every key."""
    anim = doc.json["animations"][animation]
    sets = [set(doc.accessor(anim["samplers"][c["sampler"]]["input"])[:, 0].tolist())
            for c in anim["channels"]]
    first = min(min(s) for s in sets)
    last = max(max(s) for s in sets)
    return [first - 0.25] + sorted(set.intersection(*sets)) + [last + 0.25]


def key_times_and_midpoints(doc, animation):
    """Every key time of every channel of ``animations[animation]``, the midpoint between each
    two neighbouring ones, and one time before the first and one after the last."""
    anim = doc.json["animations"][animation]
    keys = sorted({float(t) for c in anim["channels"]
                   for t in doc.accessor(anim["samplers"][c["sampler"]]["input"])[:, 0]})
    mids = [(a + b) / 2 for a, b in zip(keys, keys[1:])]
    return [keys[0] - 0.25] + sorted(keys + mids) + [keys[-1] + 0.25]


def _scene_nodes(doc, scene):
    gl = doc.json
    if "scenes" not in gl:
        return list(range(len(gl["nodes"])))
    if scene is None:
        scene = gl.get("scene", 0)
    out, stack = [], list(gl["scenes"][scene].get("nodes", []))
    while stack:
        i = stack.pop()
        out.append(i)
        stack.extend(gl["nodes"][i].get("children", []))
    return sorted(out)


def evaluate(doc, animation, t, scene=None):
    """World positions and unit normals {"<node>_<primitive>": ((V, 3), (V, 3) or None)} of
    every mesh primitive instance of a scene, at time t of ``animations[animation]`` (None: the
    nodes' own TRS)."""
    gl = doc.json
    nodes = gl["nodes"]
    trs = []
    for node in nodes:
        if "matrix" in node:
            trs.append(np.array(node["matrix"], float).reshape(4, 4).T)
        else:
            trs.append([np.array(node.get("translation", [0, 0, 0]), float),
                        np.array(node.get("rotation", [0, 0, 0, 1]), float),
                        np.array(node.get("scale", [1, 1, 1]), float)])
    weights = {}
    for i, node in enumerate(nodes):
        if "mesh" in node:
            mesh = gl["meshes"][node["mesh"]]
            m = len(mesh["primitives"][0].get("targets", []))
            weights[i] = np.array(node.get("weights", mesh.get("weights", [0.0] * m)), float)
    if animation is not None:
        anim = gl["animations"][animation]
        for c in anim["channels"]:
            target = c["target"]
            value = channel_value(doc, anim["samplers"][c["sampler"]], t, target["path"])
            if target["path"] == "weights":
                weights[target["node"]] = value
            else:
                slot = {"translation": 0, "rotation": 1, "scale": 2}[target["path"]]
                trs[target["node"]][slot] = value
    local = [m if isinstance(m, np.ndarray) else _trs(*m) for m in trs]
    parent = {c: i for i, node in enumerate(nodes) for c in node.get("children", [])}

    def world(i):
        return local[i] if i not in parent else world(parent[i]) @ local[i]

    out = {}
    for i in _scene_nodes(doc, scene):
        node = nodes[i]
        if "mesh" not in node:
            continue
        for p, prim in enumerate(gl["meshes"][node["mesh"]]["primitives"]):
            attrs = prim["attributes"]
            if "POSITION" not in attrs:
                continue
            pos = doc.accessor(attrs["POSITION"])
            nrm = doc.accessor(attrs["NORMAL"]) if "NORMAL" in attrs else None
            for w, target in zip(weights.get(i, []), prim.get("targets", [])):
                if "POSITION" in target:
                    pos = pos + w * doc.accessor(target["POSITION"])
                if nrm is not None and "NORMAL" in target:
                    nrm = nrm + w * doc.accessor(target["NORMAL"])
            if "skin" in node:
                skin = gl["skins"][node["skin"]]
                ibm = (doc.accessor(skin["inverseBindMatrices"]).reshape(-1, 4, 4)
                       .transpose(0, 2, 1) if "inverseBindMatrices" in skin
                       else np.tile(np.eye(4), (len(skin["joints"]), 1, 1)))
                joint = np.array([world(j) @ ibm[k] for k, j in enumerate(skin["joints"])])
                blended = np.zeros((len(pos), 4, 4))
                n_sets = sum(1 for key in attrs if key.startswith("JOINTS_"))
                for s in range(n_sets):
                    js = doc.accessor(attrs[f"JOINTS_{s}"]).astype(int)
                    ws = doc.accessor(attrs[f"WEIGHTS_{s}"])
                    blended += np.einsum("vk,vkij->vij", ws, joint[js])
            else:
                blended = np.broadcast_to(world(i), (len(pos), 4, 4))
            posed = np.einsum("vij,vj->vi", blended[:, :3, :3], pos) + blended[:, :3, 3]
            if nrm is not None:
                inv_t = np.linalg.inv(blended[:, :3, :3]).transpose(0, 2, 1)
                nrm = np.einsum("vij,vj->vi", inv_t, nrm)
                nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
            out[f"{i}_{p}"] = (posed, nrm)
    return out
