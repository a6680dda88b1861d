"""Writing a model as a skinned, animated glTF 2.0 file (.glb or .gltf with the buffer embedded).

The layout follows the glTF 2.0 specification: nodes with their rest TRS (section 3.5),
skins with column-major inverse bind matrices (3.7.3), meshes with POSITION (with min/max),
NORMAL, TEXCOORD_0, JOINTS_n/WEIGHTS_n sets of four, morph targets and default weights (3.7.2),
and one animation per clip whose samplers keep the clip's keys and interpolation (3.11); the
binary container of section 4.  Floats are written as float32, as the specification requires
for these attributes; indices as uint32 (uint16 when they fit).  Materials, textures and images
the model carries from a glTF file (``Model.materials``) are written back with the primitives'
material indices.
"""
from __future__ import annotations

import base64
import json
import logging
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ...model.clip import Clip
from ...model.compress import gltf_clip
from ..mesh_files import write_atomic
from .materials import image_bytes
from ...kernels._types import PathLike
from .fields import Json

_log = logging.getLogger(__name__)   # a child of "skinkit": the clips the writer left out

if TYPE_CHECKING:
    from ...model.model import Model
    from ...model.records import Primitive

__all__ = ["write_gltf", "static_model"]

_FLOAT, _UBYTE, _SHORT, _USHORT, _UINT = 5126, 5121, 5122, 5123, 5125
_TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963


class _Buffer:
    """The binary buffer, its buffer views and accessors, built as arrays are added."""

    def __init__(self) -> None:
        self.chunks: List[bytes] = []
        self.size = 0
        self.views: List[Json] = []
        self.accessors: List[Json] = []
        self.meshes: List[Json] = []

    def view(self, data: bytes, target: Optional[int] = None) -> int:
        pad = (-self.size) % 4
        if pad:
            self.chunks.append(b"\0" * pad)
            self.size += pad
        v = {"buffer": 0, "byteOffset": self.size, "byteLength": len(data)}
        if target:
            v["target"] = target
        self.chunks.append(data)
        self.size += len(data)
        self.views.append(v)
        return len(self.views) - 1

    def accessor(self, a: NDArray[Any], width: int, component: int, target: Optional[int] = None,
                 bounds: bool = False) -> int:
        dtype = {_FLOAT: "<f4", _UBYTE: "u1", _SHORT: "<i2", _USHORT: "<u2", _UINT: "<u4"}[component]
        if component == _SHORT:        # normalized: c / 32767 (glTF 2.0 section 3.11)
            a = np.rint(np.clip(np.asarray(a, np.float64), -1, 1) * 32767)
        a = np.ascontiguousarray(np.asarray(a).reshape(-1, width), dtype=dtype)
        acc = {"bufferView": self.view(a.tobytes(), target), "componentType": component,
               "count": int(a.shape[0]), "type": _TYPES[width]}
        if component == _SHORT:
            acc["normalized"] = True
        if bounds:
            acc["min"] = [float(x) for x in a.min(axis=0)]
            acc["max"] = [float(x) for x in a.max(axis=0)]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def data(self) -> bytes:
        return b"".join(self.chunks) + b"\0" * ((-self.size) % 4)


def _indices(faces: NDArray[Any], buf: _Buffer) -> int:
    f = np.asarray(faces).reshape(-1)
    comp = _USHORT if f.size and f.max() < 65535 else _UINT
    return buf.accessor(f, 1, comp, _ELEMENT_ARRAY_BUFFER)


def _skin_sets(prim: Primitive, buf: _Buffer, attributes: Json) -> None:
    """JOINTS_n / WEIGHTS_n: the K influences padded with zero weights to sets of four"""
    joints = np.asarray(prim.joints).astype(np.int64)
    weights = np.asarray(prim.weights, dtype=np.float64)
    V, K = joints.shape
    k4 = -(-K // 4) * 4
    j = np.zeros((V, k4), np.int64)
    w = np.zeros((V, k4))
    j[:, :K] = np.where(joints >= 0, joints, 0)
    w[:, :K] = np.where(joints >= 0, weights, 0.0)
    comp = _UBYTE if j.max(initial=0) < 256 else _USHORT
    for s in range(k4 // 4):
        attributes[f"JOINTS_{s}"] = buf.accessor(j[:, 4 * s:4 * s + 4], 4, comp, _ARRAY_BUFFER)
        attributes[f"WEIGHTS_{s}"] = buf.accessor(w[:, 4 * s:4 * s + 4], 4, _FLOAT, _ARRAY_BUFFER)


def _primitive(prim: Primitive, buf: _Buffer) -> Json:
    attributes = {"POSITION": buf.accessor(prim.positions, 3, _FLOAT, _ARRAY_BUFFER, True)}
    if prim.normals is not None:
        attributes["NORMAL"] = buf.accessor(prim.normals, 3, _FLOAT, _ARRAY_BUFFER)
    uvs = getattr(prim, "uvs", None)
    if uvs is not None:
        attributes["TEXCOORD_0"] = buf.accessor(uvs, 2, _FLOAT, _ARRAY_BUFFER)
    if prim.skinned:
        _skin_sets(prim, buf, attributes)
    out: Json = {"attributes": attributes}
    if prim.faces is not None:
        out["indices"] = _indices(prim.faces, buf)
    else:
        out["mode"] = 0    # POINTS
    material = getattr(prim, "material", None)
    if material is not None:
        out["material"] = int(material)
    targets = []
    for m in range(prim.target_count):
        t = {}
        if prim.morph_positions is not None:
            t["POSITION"] = buf.accessor(prim.morph_positions[m], 3, _FLOAT, _ARRAY_BUFFER, True)
        if prim.morph_normals is not None:
            t["NORMAL"] = buf.accessor(prim.morph_normals[m], 3, _FLOAT, _ARRAY_BUFFER)
        targets.append(t)
    if targets:
        out["targets"] = targets
    return out


def _nodes(model: Model) -> List[Json]:
    sk = model.skeleton
    nodes = []
    for i in range(sk.count):
        n: Json = {}
        if sk.names[i] is not None:
            n["name"] = str(sk.names[i])
        for key, value, rest in (("translation", sk.translations[i], (0, 0, 0)),
                                 ("rotation", sk.rotations[i], (0, 0, 0, 1)),
                                 ("scale", sk.scales[i], (1, 1, 1))):
            if not np.array_equal(value, rest):
                n[key] = [float(x) for x in np.asarray(value, np.float32)]
        nodes.append(n)
    parents = np.asarray(sk.parents)
    for i, p in enumerate(parents):
        if p >= 0:
            nodes[p].setdefault("children", []).append(i)
    return nodes


def _meshes(model: Model, nodes: List[Json], buf: _Buffer) -> Dict[int, int]:
    """glTF meshes for the primitives, on their nodes; a skinned mesh instanced by a joint node
    gets a new root node (the joint's transform would otherwise be ignored for it).  Returns
    {model node: glTF node holding its mesh}."""
    joints = {int(j) for s in model.skins for j in s.joints}
    meshes: List[Json] = []
    mesh_of: Dict[Tuple[int, int], int] = {}
    holder: Dict[int, int] = {}
    for prim in model.primitives:
        key = (prim.node, prim.mesh)
        if key not in mesh_of:
            mesh_of[key] = len(meshes)
            meshes.append({"primitives": []})
            if "name" in nodes[prim.node]:
                meshes[-1]["name"] = nodes[prim.node]["name"]
            node = prim.node
            if prim.skinned and node in joints:
                nodes.append({"name": f"{nodes[node].get('name', node)} mesh"})
                node = len(nodes) - 1
            holder[prim.node] = node
            nodes[node]["mesh"] = mesh_of[key]
            if prim.skin is not None:
                nodes[node]["skin"] = int(prim.skin)
        mesh = meshes[mesh_of[key]]
        mesh["primitives"].append(_primitive(prim, buf))
        if prim.target_count and prim.morph_weights is not None:
            mesh["weights"] = [float(w) for w in prim.morph_weights]
            if prim.target_names:
                mesh["extras"] = {"targetNames": list(prim.target_names)}
    buf.meshes = meshes
    return holder


def _animation(clip: Clip, holder: Dict[int, int], buf: _Buffer, short: bool) -> Json:
    samplers, channels = [], []
    inputs: Dict[bytes, int] = {}
    for ch in clip.channels:
        times = np.asarray(ch.times, np.float32)
        key = times.tobytes()
        if key not in inputs:
            inputs[key] = buf.accessor(times, 1, _FLOAT, bounds=True)
        values = np.asarray(ch.values)
        width = values.shape[1] if ch.path != "weights" else 1
        quantized = short and ch.path == "rotation" and ch.interpolation != "CUBICSPLINE"
        samplers.append({"input": inputs[key], "interpolation": ch.interpolation,
                         "output": buf.accessor(values, width, _SHORT if quantized else _FLOAT)})
        node = holder.get(ch.node, ch.node) if ch.path == "weights" else ch.node
        channels.append({"sampler": len(samplers) - 1, "target": {"node": int(node),
                                                                  "path": ch.path}})
    out: Json = {"samplers": samplers, "channels": channels}
    if clip.name is not None:
        out["name"] = str(clip.name)
    return out


def static_model(model: Model, positions: Mapping[str, ArrayLike],
                 normals: Optional[Mapping[str, ArrayLike]] = None) -> Model:
    """One posed frame of ``model`` as a static Model for ``write_gltf``: a root node per
    primitive, named by its key, holding it rigidly with the posed positions (and normals), its
    faces, UVs and material; the materials carried over.

    Parameters
    ----------
    model : Model
    positions : mapping key -> (V, 3) or (1, V, 3), the posed frame (``pose(...).positions``).
    normals : mapping key -> (V, 3) or (1, V, 3), optional.
    """
    from ...model.model import Model
    from ...model.records import Primitive, Skeleton, one_frame

    prims = [p for p in model.primitives if p.key in positions]
    n = len(prims)
    skeleton = Skeleton(names=[p.key for p in prims], parents=np.full(n, -1, np.int32),
                        translations=np.zeros((n, 3)), rotations=np.tile([0.0, 0, 0, 1], (n, 1)),
                        scales=np.ones((n, 3)))
    out = [Primitive(node=i, mesh=i, index=0, skin=None,
                     positions=one_frame(positions[p.key], f"positions of {p.key!r}"),
                     normals=None if normals is None or normals.get(p.key) is None
                     else one_frame(normals[p.key], f"normals of {p.key!r}"),
                     faces=p.faces, uvs=p.uvs, material=p.material)
           for i, p in enumerate(prims)]
    return Model(skeleton, [], out, [], name=model.name, materials=model.materials)


def gltf_document(model: Model, clips: Optional[Sequence[Clip]] = None,
                  rotations: str = "float") -> Tuple[Json, bytes]:
    """The glTF JSON document and its binary buffer for ``model`` (see ``write_gltf``)."""
    if rotations not in ("float", "short"):
        raise ValueError(f"rotations must be 'float' or 'short', got {rotations!r}")
    for k, prim in enumerate(model.primitives):
        if len(prim.positions) == 0:
            raise ValueError(f"model.primitives[{k}] ({prim.key!r}) has no vertex; a glTF "
                             "accessor holds at least one (glTF 2.0 section 5.1: accessor.count "
                             ">= 1): leave it out of the model")
    written = []
    for k, clip in enumerate(model.clips if clips is None else clips):
        if clip.channels:
            written.append(clip)
        else:   # glTF 2.0 section 5.2: animation.channels and samplers hold at least one
            _log.warning("clip %d (%r) has no channel; a glTF animation needs one, so it is "
                         "left out", k, clip.name)
    buf = _Buffer()
    nodes = _nodes(model)
    holder = _meshes(model, nodes, buf)
    skins = []
    for s in model.skins:
        ibm = np.asarray(s.inverse_bind_matrices).transpose(0, 2, 1)   # column-major
        skin = {"joints": [int(j) for j in s.joints],
                "inverseBindMatrices": buf.accessor(ibm, 16, _FLOAT)}
        if s.name is not None:
            skin["name"] = str(s.name)
        if s.skeleton is not None:
            skin["skeleton"] = int(s.skeleton)
        skins.append(skin)
    animations = [_animation(c, holder, buf, rotations == "short") for c in written]
    has_parent = {c for n in nodes for c in n.get("children", [])}
    doc: Json = {"asset": {"version": "2.0", "generator": "skinkit"},
                 "scene": 0, "scenes": [{"nodes": [i for i in range(len(nodes))
                                                   if i not in has_parent]}],
                 "nodes": nodes}
    for key, value in (("meshes", buf.meshes), ("skins", skins), ("animations", animations)):
        if value:
            doc[key] = value
    _materials(model, doc, buf)
    data = buf.data()
    doc["accessors"], doc["bufferViews"] = buf.accessors, buf.views
    doc["buffers"] = [{"byteLength": len(data)}]
    return doc, data


def _materials(model: Model, doc: Json, buf: _Buffer) -> None:
    """materials, textures, samplers and images carried from a glTF file: images go into the
    buffer (bufferView + mimeType)"""
    carried = getattr(model, "materials", None)
    if not carried:
        return
    for key in ("materials", "textures", "samplers"):
        if carried.get(key):
            doc[key] = carried[key]
    images = []
    for i, im in enumerate(carried.get("images", [])):
        entry = {k: v for k, v in im.items() if k not in ("data", "file", "uri", "bufferView")}
        data = image_bytes(im, f"images[{i}]")
        if data is None:     # its file was missing when read: the reference as it was
            entry["uri"] = im["uri"]
        else:
            entry["bufferView"] = buf.view(data)
        images.append(entry)
    if images:
        doc["images"] = images
    if carried.get("extensionsUsed"):
        doc["extensionsUsed"] = list(carried["extensionsUsed"])


_COMPRESS_OPTIONS = ("precision", "shell_distance", "weights_precision")


def _compress_options(compress: Union[None, bool, float, Mapping[str, float]]
                      ) -> Optional[Dict[str, float]]:
    """``write_gltf``'s ``compress`` as ``gltf_clip``'s keyword arguments (None: keys as they
    are)."""
    if compress is None or compress is False:
        return None
    if compress is True:
        return {}
    if isinstance(compress, (int, float)) and not isinstance(compress, bool):
        return {"precision": float(compress)}
    if isinstance(compress, Mapping):
        unknown = sorted(set(map(str, compress)) - set(_COMPRESS_OPTIONS))
        if unknown:
            raise ValueError(f"compress: unknown option(s) {', '.join(map(repr, unknown))}; "
                             f"expected some of {', '.join(_COMPRESS_OPTIONS)}")
        return dict(compress)
    raise TypeError("compress must be None, True, a precision (float) or a dict of "
                    f"{', '.join(_COMPRESS_OPTIONS)}, got {type(compress).__name__}")


def write_gltf(model: Model, path: PathLike, clips: Optional[Sequence[Clip]] = None,
               rotations: Optional[str] = None,
               compress: Union[None, bool, float, Mapping[str, float]] = None) -> None:
    """Write ``model`` as a skinned, animated glTF 2.0 file.

    Parameters
    ----------
    model : Model
        Its skeleton becomes the nodes (same order, rest TRS), its skins the skins, its
        primitives the meshes (POSITION, NORMAL, TEXCOORD_0 from ``uvs`` when present, joints and
        weights in sets of four, morph targets with their default weights and names, the
        material index), and materials carried from a glTF file (``model.materials``) are
        written back.
    path : path
        ``.glb`` for the binary container, ``.gltf`` for JSON with the buffer embedded as a data
        URI.  Written atomically (a temporary file replaced over ``path``).
    clips : sequence of Clip, optional
        The animations (default ``model.clips``): one per clip, a sampler per channel with its
        key times, values and interpolation (STEP, LINEAR or CUBICSPLINE) unchanged; a clip
        without channels is left out (a glTF animation has at least one), with a warning on the
        ``skinkit`` logger.
    rotations : {"float", "short"}, optional
        How STEP and LINEAR rotation keys are stored: float32, or normalized SHORT (c / 32767,
        which glTF 2.0 section 3.11 allows for rotation outputs: half the bytes).  Default:
        "short" with ``compress``, "float" without.
    compress : True, float or dict, optional
        Write each clip's keys reduced by :func:`skinkit.compress`
        (``skinkit.model.compress.gltf_clip``): within the precision of the source at every
        key time and between them (object-space error on a shell around every joint, ACL's
        metric), once read back from the file's SHORT or float rotations; tracks equal to the
        rest pose left out, constant ones one key.  True: its defaults (1e-4, shell 0.03, in
        the model's units: metres for glTF); a float: the precision; a dict: some of
        ``precision``, ``shell_distance``, ``weights_precision``.  Any glTF viewer plays the
        result.

    Raises
    ------
    ValueError
        ``path`` ends neither in .glb nor in .gltf; ``rotations`` is neither; a primitive has
        no vertex (a glTF accessor holds at least one); ``compress`` names an unknown option
        or a precision that is not finite and > 0.
    TypeError
        ``compress`` is of another type.

    Notes
    -----
    Values are stored as float32 (glTF 2.0 accessor rules); a skinned primitive instanced by a
    node that is a joint gets a new root node for its mesh (glTF ignores a skinned mesh node's
    transform).
    """
    suffix = Path(path).suffix.lower()
    if suffix not in (".glb", ".gltf"):
        raise ValueError(f"write_gltf: path must end in .glb or .gltf, got {str(path)!r}")
    options = _compress_options(compress)
    if options is not None:
        clips = [gltf_clip(c, model.skeleton, **options) if c.channels else c
                 for c in (model.clips if clips is None else clips)]
    doc, data = gltf_document(model, clips, rotations or ("float" if options is None else
                                                          "short"))
    if suffix == ".gltf":
        doc["buffers"][0]["uri"] = ("data:application/octet-stream;base64,"
                                    + base64.b64encode(data).decode("ascii"))
        text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
        write_atomic(path, lambda f: f.write(text), suffix=suffix)
        return
    js = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    js += b" " * ((-len(js)) % 4)
    body = (struct.pack("<II", len(js), 0x4E4F534A) + js
            + struct.pack("<II", len(data), 0x004E4942) + data)
    header = struct.pack("<III", 0x46546C67, 2, 12 + len(body))
    write_atomic(path, lambda f: f.write(header + body), suffix=suffix)
