"""glTF 2.0 loader: ``.glb`` and ``.gltf`` files to a :class:`~skinkit.model.Model`.

Read: every node (one skeleton, joint index = node index, whatever the scenes say), every skin,
every skinned mesh primitive and every animation.  Not read: materials, textures, cameras and
morph targets (``primitive.targets`` are ignored; ``weights`` channels are listed in
``Clip.unsupported``).

The file is untrusted: every index, offset and count is checked against the bytes that exist before
anything is allocated from it, and buffer URIs may only be ``data:`` base64 URIs or relative paths
that stay inside the model's folder.  Every :class:`GltfError` message starts with the JSON path of
the problem, e.g. ``accessors[3]: ...`` or ``buffers[0].uri: ...``; problems in the GLB container
name ``GLB header.<field>`` or ``GLB chunks[i].<field>``.
"""
from __future__ import annotations

import base64
import json
import os
import struct
from typing import Any, Dict, List, Tuple
from pathlib import Path, PureWindowsPath
from urllib.parse import unquote, urlsplit

import numpy as np

from .clip import INTERPOLATIONS, PATHS, Channel, Clip
from .kernels import quat_from_matrix
from .model import Model, Skeleton, Skin, SkinnedPrimitive

# The container is parsed here with json + struct rather than a glTF library: those open whatever
# path a buffer URI names and check no lengths, and every file is treated as untrusted.

_CHUNK_JSON = 0x4E4F534A
_CHUNK_BIN = 0x004E4942

_COMPONENTS: Dict[int, np.dtype] = {5120: np.dtype("<i1"), 5121: np.dtype("<u1"), 5122: np.dtype("<i2"),
               5123: np.dtype("<u2"), 5125: np.dtype("<u4"), 5126: np.dtype("<f4")}
_COMPONENT_NAMES = {5120: "BYTE", 5121: "UNSIGNED_BYTE", 5122: "SHORT", 5123: "UNSIGNED_SHORT",
                    5125: "UNSIGNED_INT", 5126: "FLOAT"}
_TYPES = {"SCALAR": (1, 1), "VEC2": (1, 2), "VEC3": (1, 3), "VEC4": (1, 4),
          "MAT2": (2, 2), "MAT3": (3, 3), "MAT4": (4, 4)}  # (columns, rows)

# Allowed (componentType, normalized) pairs; None allows any.
_FLOAT = {(5126, False)}
_UNORM = {(5121, True), (5123, True)}
_SNORM = {(5120, True), (5122, True)}
_JOINT_INDEX = {(5121, False), (5123, False)}
_VERTEX_INDEX = {(5121, False), (5123, False), (5125, False)}

# Required extensions that change nothing skinkit reads (KHR_mesh_quantization only widens the
# component types of attributes, which the accessor decoder handles).
_HARMLESS_EXTENSION_PREFIXES = ("KHR_mesh_quantization", "KHR_materials_", "KHR_texture_",
                                "EXT_texture_", "KHR_lights_punctual")

_MISSING = object()
_FLOAT_MAX = float(np.finfo(np.float64).max)  # abs(x) <= this is False for NaN and inf too


class GltfError(ValueError):
    """A file that is not valid glTF 2.0 for what skinkit reads, or that points outside its folder.

    The message starts with the JSON path of the problem (``nodes[4].children: ...``).
    """


def load_gltf(path, dtype=np.float64) -> Model:
    """Load the skeleton, skins, skinned primitives and animations of a glTF 2.0 model.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.glb`` file (GLB container: 12-byte header, JSON chunk, optional BIN chunk) or a
        ``.gltf`` JSON file whose buffers are ``data:`` base64 URIs or files inside its folder.
    dtype : float32 or float64
        Precision of every float array of the result.

    Returns
    -------
    Model
        ``skeleton`` over all nodes (glTF 2.0 "Nodes and Hierarchy"; ``matrix`` nodes decomposed
        to TRS), one ``Skin`` per skin ("Skins"), one ``SkinnedPrimitive`` per primitive with
        JOINTS_0 and WEIGHTS_0 of every node that has both ``mesh`` and ``skin``, in node then
        primitive order ("Meshes"), one ``Clip`` per animation ("Animations"); ``name`` is the
        file name without its suffix.  Primitives that instance the same mesh share their arrays.
        Positions and key values are in file units, key times in seconds.

    Raises
    ------
    GltfError
        The file breaks the glTF 2.0 rules skinkit relies on (container, indices, byte ranges,
        hierarchy, accessor types and counts, key times) or a buffer URI leaves the model's folder.
    OSError
        The file or one of its buffer files cannot be read.
    TypeError
        ``dtype`` is not float32 or float64.

    Notes
    -----
    Morph targets are not supported: ``primitive.targets`` are ignored and ``weights`` channels
    are listed in ``Clip.unsupported`` instead of becoming channels.
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dtype}")
    path = Path(path)
    data = path.read_bytes()
    if path.suffix.lower() == ".glb" or data[:4] == b"glTF":
        doc, bin_chunk = _parse_glb(data)
    else:
        doc, bin_chunk = _parse_json(data), None
    reader = _Reader(doc, bin_chunk, Path(os.path.abspath(path)).parent.resolve(), dtype)
    skeleton = reader.skeleton()
    skins = reader.skins()
    return Model(skeleton, skins, reader.primitives(skins), reader.clips(), name=path.stem)


def _parse_glb(data: bytes):
    """Split a GLB file into its JSON document and its BIN chunk (a memoryview, or None)."""
    if len(data) < 12:
        raise GltfError(f"GLB header: the file has {len(data)} bytes, the header needs 12")
    magic, version, length = struct.unpack_from("<4sII", data)
    if magic != b"glTF":
        raise GltfError(f"GLB header.magic: {magic!r} is not b'glTF'")
    if version != 2:
        raise GltfError(f"GLB header.version: {version}, only version 2 is supported")
    if length != len(data):
        raise GltfError(f"GLB header.length: {length} bytes declared, the file has {len(data)}")
    chunks: List[Tuple[int, memoryview]] = []
    offset = 12
    while offset < length:
        where = f"GLB chunks[{len(chunks)}]"
        if length - offset < 8:
            raise GltfError(f"{where}: {length - offset} bytes left, a chunk header needs 8")
        size, kind = struct.unpack_from("<II", data, offset)
        if size > length - offset - 8:
            raise GltfError(f"{where}.chunkLength: {size} bytes, only {length - offset - 8} "
                            "bytes are left in the file")
        chunks.append((kind, memoryview(data)[offset + 8:offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _CHUNK_JSON:
        raise GltfError("GLB chunks[0].chunkType: the first chunk must be JSON")
    bin_chunk = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _CHUNK_BIN else None
    return _parse_json(chunks[0][1]), bin_chunk


def _parse_json(raw) -> dict:
    """Parse and check the top of a glTF JSON document (an object with a 2.x ``asset.version``)."""
    try:
        doc = json.loads(bytes(raw).decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise GltfError(f"$: invalid UTF-8 JSON ({e})") from None
    if not isinstance(doc, dict):
        raise GltfError(f"$: the glTF JSON must be an object, got {type(doc).__name__}")
    asset = doc.get("asset")
    version = asset.get("version") if isinstance(asset, dict) else None
    if not isinstance(version, str) or version.split(".")[0] != "2":
        raise GltfError(f"asset.version: {version!r:.40}, expected a glTF 2.x version string")
    for i, name in enumerate(_list(doc, "extensionsRequired", "")):
        if not isinstance(name, str) or not name.startswith(_HARMLESS_EXTENSION_PREFIXES):
            raise GltfError(f"extensionsRequired[{i}]: extension {name!r:.60} is not supported")
    return doc


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _int(obj: dict, key: str, path: str, default=_MISSING, lo: int = 0, hi=None):
    """``obj[key]`` as an int in [lo, hi) (``path`` is the path of ``obj``); default if absent."""
    if key not in obj:
        if default is _MISSING:
            raise GltfError(f"{_join(path, key)}: missing")
        return default
    value = obj[key]
    if type(value) is not int or value < lo or (hi is not None and value >= hi):
        bound = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi})"
        raise GltfError(f"{_join(path, key)}: {value!r:.40} is not {bound}")
    return value


def _list(obj: dict, key: str, path: str, required: bool = False) -> list:
    """``obj[key]`` as a list; an empty list if absent and not required."""
    if key not in obj and not required:
        return []
    value = obj.get(key)
    if not isinstance(value, list) or (required and not value):
        raise GltfError(f"{_join(path, key)}: expected a non-empty array")
    return value


def _dict(value, path: str) -> dict:
    if not isinstance(value, dict):
        raise GltfError(f"{path}: expected an object, got {type(value).__name__}")
    return value


def _name(obj: dict, path: str):
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        raise GltfError(f"{path}.name: expected a string")
    return name


def _numbers(obj: dict, key: str, path: str, n: int, default) -> np.ndarray:
    """``obj[key]`` as a float64 array of ``n`` finite numbers; ``default`` if absent."""
    value = obj.get(key, default)
    if (not isinstance(value, (list, tuple)) or len(value) != n
            or not all(type(x) in (int, float) and abs(x) <= _FLOAT_MAX for x in value)):
        raise GltfError(f"{_join(path, key)}: expected {n} finite numbers")
    return np.array(value, dtype=np.float64)


def _normalize(a: np.ndarray) -> np.ndarray:
    """Normalized integers to float64 (glTF 2.0 "Accessors"): c / max, at least -1 if signed."""
    info = np.iinfo(a.dtype)
    f = a / np.float64(info.max)
    return np.maximum(f, -1.0) if info.min < 0 else f


def _decompose(values: np.ndarray, path: str):
    """Split a ``node.matrix`` (16 numbers, column-major) into translation, rotation, scale.

    Scale is the column norms of the upper 3x3, the x scale negated when its determinant is
    negative; rotation is the polar (nearest orthogonal, by SVD) factor of the 3x3 divided by the
    scale, as a quaternion (x, y, z, w) with w >= 0.
    """
    m = values.reshape(4, 4).T
    if not np.array_equal(m[3], [0.0, 0.0, 0.0, 1.0]):
        raise GltfError(f"{path}: the last row must be (0, 0, 0, 1) for a TRS matrix")
    a = m[:3, :3]
    scale = np.linalg.norm(a, axis=0)
    if np.linalg.det(a) < 0:
        scale[0] = -scale[0]
    u, _, vt = np.linalg.svd(a / np.where(scale == 0, 1.0, scale))
    if np.linalg.det(u @ vt) < 0:
        u[:, -1] = -u[:, -1]
    return m[:3, 3], quat_from_matrix(u @ vt), scale


def _check_acyclic(parents: list) -> None:
    """Raise GltfError if following parents from some node comes back to it."""
    state = [0] * len(parents)  # 0 unseen, 1 on the current walk, 2 known to reach a root
    for start in range(len(parents)):
        walk = []
        i = start
        while i != -1 and state[i] == 0:
            state[i] = 1
            walk.append(i)
            i = parents[i]
        if i != -1 and state[i] == 1:
            raise GltfError(f"nodes[{parents[i]}].children: node {i} is its own ancestor "
                            "(the node hierarchy has a cycle)")
        for j in walk:
            state[j] = 2


class _Reader:
    """Validating reader of one glTF document; accessors are decoded once and cached."""

    def __init__(self, doc: dict, bin_chunk, folder: Path, dtype: np.dtype):
        self.doc = doc
        self.dtype = dtype
        self.folder = folder
        self.nodes = _list(doc, "nodes", "")
        self.views = _list(doc, "bufferViews", "")
        self.accessors = _list(doc, "accessors", "")
        self.buffers = [self._buffer(b, bin_chunk) for b in range(len(_list(doc, "buffers", "")))]
        self.buffer_bytes = sum(len(b) for b in self.buffers)
        self._decoded: Dict[int, np.ndarray] = {}
        self._meshes: Dict[int, Any] = {}

    # --- bytes: buffers, buffer views, accessors ("Buffers and Buffer Views", "Accessors") ---

    def _buffer(self, b: int, bin_chunk) -> memoryview:
        path = f"buffers[{b}]"
        buffer = _dict(self.doc["buffers"][b], path)
        length = _int(buffer, "byteLength", path, lo=1)
        uri = buffer.get("uri")
        if uri is None:
            if b != 0 or bin_chunk is None:
                raise GltfError(f"{path}.uri: missing; only the first buffer of a .glb with a BIN "
                                "chunk may omit it")
            data = bin_chunk
        elif not isinstance(uri, str):
            raise GltfError(f"{path}.uri: expected a string")
        elif uri[:5].lower() == "data:":
            header, comma, payload = uri[5:].partition(",")
            if not comma or not header.endswith(";base64"):
                raise GltfError(f"{path}.uri: only base64 data: URIs are supported")
            try:
                data = base64.b64decode(payload, validate=True)
            except ValueError as e:   # binascii.Error, or non-ASCII characters in the payload
                raise GltfError(f"{path}.uri: bad base64 ({e})") from None
        else:
            data = self._file(uri, length, f"{path}.uri")
        if len(data) < length:
            raise GltfError(f"{path}.byteLength: {length} bytes declared, the data has {len(data)}")
        return memoryview(data)[:length]

    def _file(self, uri: str, length: int, path: str) -> bytes:
        """Read ``length`` bytes of the file a relative URI names inside the model's folder."""
        if urlsplit(uri).scheme:
            raise GltfError(f"{path}: {uri!r:.60} has a URI scheme; only data: URIs and relative "
                            "file paths are supported")
        name = unquote(uri)
        if name.startswith(("/", "\\")) or PureWindowsPath(name).drive or os.path.isabs(name):
            raise GltfError(f"{path}: {uri!r:.60} is absolute; buffer files must be relative to "
                            "the model's folder")
        try:
            target = (self.folder / name).resolve()
            inside = self.folder in target.parents
            size = target.stat().st_size if inside and target.is_file() else None
        except (OSError, ValueError, RuntimeError) as e:  # NUL, name too long, symlink loop
            raise GltfError(f"{path}: {uri!r:.60} is not a usable file name ({e!s:.80})") from None
        if not inside:
            raise GltfError(f"{path}: {uri!r:.60} resolves outside the model's folder")
        if size is None:
            raise GltfError(f"{path}: {uri!r:.60} is not a file")
        if size < length:
            raise GltfError(f"{path}: {uri!r:.60} has {size} bytes, byteLength says {length}")
        with open(target, "rb") as f:
            return f.read(length)

    def _view(self, v: int):
        """Bytes of bufferViews[v] (memoryview) and its byteStride (None when absent)."""
        path = f"bufferViews[{v}]"
        view = _dict(self.views[v], path)
        b = _int(view, "buffer", path, hi=len(self.buffers))
        offset = _int(view, "byteOffset", path, default=0)
        length = _int(view, "byteLength", path, lo=1)
        stride = _int(view, "byteStride", path, default=None, lo=4, hi=253)
        if stride is not None and stride % 4:
            raise GltfError(f"{path}.byteStride: {stride} is not a multiple of 4")
        if offset + length > len(self.buffers[b]):
            raise GltfError(f"{path}: byteOffset {offset} + byteLength {length} exceeds the "
                            f"{len(self.buffers[b])} bytes of buffers[{b}]")
        return self.buffers[b][offset:offset + length], stride

    def _read(self, obj: dict, path: str, count: int, kind: str, dtype: np.dtype,
              strided: bool) -> np.ndarray:
        """Copy ``count`` elements out of ``obj``'s bufferView/byteOffset as a (count, n) array.

        Matrix columns start on 4-byte boundaries (glTF 2.0 "Data Alignment"); ``strided``
        honours the view's byteStride (sparse indices and values are always tightly packed).
        """
        v = _int(obj, "bufferView", path, hi=len(self.views))
        data, stride = self._view(v)
        offset = _int(obj, "byteOffset", path, default=0)
        cols, rows = _TYPES[kind]
        size = dtype.itemsize
        column = rows * size if cols == 1 else -(-rows * size // 4) * 4
        element = cols * column
        if not strided or stride is None:
            stride = element
        elif stride < element:
            raise GltfError(f"bufferViews[{v}].byteStride: {stride} is smaller than the "
                            f"{element}-byte elements of {path}")
        need = offset + stride * (count - 1) + element
        if need > len(data):
            raise GltfError(f"{path}: count {count} x stride {stride} from byteOffset {offset} "
                            f"needs {need} bytes, bufferViews[{v}] has {len(data)}")
        raw: np.ndarray = np.ndarray((count, cols, rows), dtype=dtype, buffer=data,
                                     offset=offset, strides=(stride, column, size))
        return np.array(raw, dtype=dtype.newbyteorder("="), order="C").reshape(count, cols * rows)

    def _decode(self, k: int) -> np.ndarray:
        """accessors[k] as a (count, n) array: ints as stored, normalized ints as float64."""
        path = f"accessors[{k}]"
        acc = self.accessors[k]
        ctype, kind, normalized = self._meta(k)
        dtype = _COMPONENTS[ctype]
        count = _int(acc, "count", path, lo=1)
        cols, rows = _TYPES[kind]
        if "bufferView" in acc:
            out = self._read(acc, path, count, kind, dtype, strided=True)
        else:
            size = count * cols * rows * dtype.itemsize
            if size > self.buffer_bytes:
                raise GltfError(f"{path}.count: {count} elements without a bufferView take "
                                f"{size} bytes, more than the {self.buffer_bytes} buffer bytes "
                                "of the file")
            out = np.zeros((count, cols * rows), dtype=dtype.newbyteorder("="))
        if "sparse" in acc:
            self._sparse(acc, path, count, kind, dtype, out)
        return _normalize(out) if normalized else out

    def _sparse(self, acc: dict, path: str, count: int, kind: str, dtype: np.dtype,
                out: np.ndarray) -> None:
        """Write an accessor's sparse substitutions into ``out`` (glTF 2.0 "Sparse Accessors")."""
        path = f"{path}.sparse"
        sparse = _dict(acc["sparse"], path)
        n = _int(sparse, "count", path, lo=1, hi=count + 1)
        ipath = f"{path}.indices"
        indices = _dict(sparse.get("indices"), ipath)
        ctype = _int(indices, "componentType", ipath)
        if (ctype, False) not in _VERTEX_INDEX:
            raise GltfError(f"{ipath}.componentType: {ctype} is not UNSIGNED_BYTE, "
                            "UNSIGNED_SHORT or UNSIGNED_INT")
        index = self._read(indices, ipath, n, "SCALAR", _COMPONENTS[ctype], False)[:, 0]
        index = index.astype(np.int64)
        if index.max() >= count:
            raise GltfError(f"{ipath}: index {index.max()} is out of range for count {count}")
        if np.any(np.diff(index) <= 0):
            raise GltfError(f"{ipath}: indices must be strictly increasing")
        vpath = f"{path}.values"
        out[index] = self._read(_dict(sparse.get("values"), vpath), vpath, n, kind, dtype, False)

    def _meta(self, k: int):
        """componentType, type and normalized of accessors[k], checked."""
        path = f"accessors[{k}]"
        acc = _dict(self.accessors[k], path)
        ctype = _int(acc, "componentType", path)
        if ctype not in _COMPONENTS:
            raise GltfError(f"{path}.componentType: {ctype} is not a glTF component type")
        kind = acc.get("type")
        if not isinstance(kind, str) or kind not in _TYPES:
            raise GltfError(f"{path}.type: {kind!r:.40} is not one of {sorted(_TYPES)}")
        normalized = acc.get("normalized", False)
        if type(normalized) is not bool or (normalized and ctype in (5125, 5126)):
            raise GltfError(f"{path}.normalized: must be false or absent for "
                            f"{_COMPONENT_NAMES[ctype]}, a boolean otherwise")
        return ctype, kind, normalized

    def accessor(self, obj: dict, key: str, path: str, kinds, allowed) -> np.ndarray:
        """Decode the accessor ``obj[key]`` refers to as a (count, n) array, checking its kind.

        ``kinds`` are the allowed types, ``allowed`` the allowed (componentType, normalized)
        pairs (None: any).  Errors about the reference name ``path.key``.
        """
        k = _int(obj, key, path, hi=len(self.accessors))
        ctype, kind, normalized = self._meta(k)
        if kind not in kinds or (allowed is not None and (ctype, normalized) not in allowed):
            wanted = ", ".join(sorted(("normalized " if n else "") + _COMPONENT_NAMES[c]
                                      for c, n in allowed or ()))
            raise GltfError(f"{_join(path, key)}: accessors[{k}] is {kind} "
                            f"{'normalized ' if normalized else ''}{_COMPONENT_NAMES[ctype]}, "
                            f"expected {' or '.join(kinds)}{' of ' + wanted if wanted else ''}")
        if k not in self._decoded:
            self._decoded[k] = self._decode(k)
        return self._decoded[k]

    # --- model parts ---

    def skeleton(self) -> Skeleton:
        """Every node as one skeleton (glTF 2.0 "Nodes and Hierarchy", "Transformations")."""
        n = len(self.nodes)
        parents = [-1] * n
        names = []
        trs = np.zeros((n, 10))
        for i, node in enumerate(self.nodes):
            path = f"nodes[{i}]"
            node = _dict(node, path)
            names.append(_name(node, path))
            for c in _list(node, "children", path):
                if type(c) is not int or not 0 <= c < n:
                    raise GltfError(f"{path}.children: {c!r:.40} is not a node index "
                                    f"(there are {n} nodes)")
                if parents[c] != -1:
                    raise GltfError(f"{path}.children: node {c} is already a child of "
                                    f"node {parents[c]}")
                parents[c] = i
            if "matrix" in node:
                if any(key in node for key in ("translation", "rotation", "scale")):
                    raise GltfError(f"{path}.matrix: a node has a matrix or translation/rotation/"
                                    "scale, not both")
                t, r, s = _decompose(_numbers(node, "matrix", path, 16, None), f"{path}.matrix")
            else:
                t = _numbers(node, "translation", path, 3, (0, 0, 0))
                r = _numbers(node, "rotation", path, 4, (0, 0, 0, 1))
                s = _numbers(node, "scale", path, 3, (1, 1, 1))
            trs[i] = np.concatenate([t, r, s])
        _check_acyclic(parents)
        trs = trs.astype(self.dtype)
        return Skeleton(names, np.array(parents, dtype=np.int32), trs[:, :3].copy(),
                        trs[:, 3:7].copy(), trs[:, 7:].copy())

    def skins(self) -> list:
        """One Skin per ``skins[s]``; inverse bind matrices row-major (glTF 2.0 "Skins")."""
        out = []
        for s, skin in enumerate(_list(self.doc, "skins", "")):
            path = f"skins[{s}]"
            skin = _dict(skin, path)
            joints = _list(skin, "joints", path, required=True)
            for j in joints:
                if type(j) is not int or not 0 <= j < len(self.nodes):
                    raise GltfError(f"{path}.joints: {j!r:.40} is not a node index "
                                    f"(there are {len(self.nodes)} nodes)")
            if "inverseBindMatrices" in skin:
                ibm = self.accessor(skin, "inverseBindMatrices", path, ("MAT4",), _FLOAT)
                if len(ibm) != len(joints):
                    raise GltfError(f"{path}.inverseBindMatrices: {len(ibm)} matrices for "
                                    f"{len(joints)} joints")
                ibm = np.ascontiguousarray(ibm.reshape(-1, 4, 4).transpose(0, 2, 1), self.dtype)
            else:
                ibm = np.tile(np.eye(4, dtype=self.dtype), (len(joints), 1, 1))
            out.append(Skin(_name(skin, path), np.array(joints, dtype=np.int32), ibm,
                            _int(skin, "skeleton", path, default=None, hi=len(self.nodes))))
        return out

    def primitives(self, skins: list) -> list:
        """One SkinnedPrimitive per skinned primitive of every node with ``mesh`` and ``skin``."""
        meshes = _list(self.doc, "meshes", "")
        out = []
        for i, node in enumerate(self.nodes):
            if "mesh" not in node or "skin" not in node:
                continue
            path = f"nodes[{i}]"
            m = _int(node, "mesh", path, hi=len(meshes))
            s = _int(node, "skin", path, hi=len(skins))
            joint_count = len(skins[s].joints)
            for p, arrays in enumerate(self._mesh(meshes, m)):
                if arrays is None:
                    continue
                positions, normals, joints, weights, faces, maxima = arrays
                for n, largest in enumerate(maxima):
                    if largest >= joint_count:
                        raise GltfError(
                            f"meshes[{m}].primitives[{p}].attributes.JOINTS_{n}: joint {largest} "
                            f"is out of range for the {joint_count} joints of skins[{s}] "
                            f"(used by nodes[{i}])")
                out.append(SkinnedPrimitive(i, m, p, s, positions, normals, joints, weights,
                                            faces))
        return out

    def _mesh(self, meshes: list, m: int) -> list:
        """Arrays of each primitive of meshes[m] (None for primitives without skin attributes)."""
        if m not in self._meshes:
            path = f"meshes[{m}]"
            mesh = _dict(meshes[m], path)
            self._meshes[m] = [
                self._primitive(_dict(prim, f"{path}.primitives[{p}]"), f"{path}.primitives[{p}]")
                for p, prim in enumerate(_list(mesh, "primitives", path, required=True))]
        return self._meshes[m]

    def _primitive(self, prim: dict, path: str):
        """positions, normals, joints, weights, faces and the largest joint of each JOINTS_n.

        Morph targets (``prim.targets``) are ignored: skinkit does not support them.
        """
        apath = f"{path}.attributes"
        attributes = _dict(prim.get("attributes"), apath)
        if "JOINTS_0" not in attributes or "WEIGHTS_0" not in attributes:
            return None
        positions = self.accessor(attributes, "POSITION", apath, ("VEC3",), None)
        count = len(positions)
        normals = None
        if "NORMAL" in attributes:
            normals = self.accessor(attributes, "NORMAL", apath, ("VEC3",), None)
            if len(normals) != count:
                raise GltfError(f"{apath}.NORMAL: count {len(normals)} differs from POSITION "
                                f"count {count}")
            normals = normals.astype(self.dtype)
        joints: List[np.ndarray] = []
        weights: List[np.ndarray] = []
        maxima: List[int] = []
        while f"JOINTS_{len(joints)}" in attributes or f"WEIGHTS_{len(joints)}" in attributes:
            n = len(joints)
            j = self.accessor(attributes, f"JOINTS_{n}", apath, ("VEC4",), _JOINT_INDEX)
            w = self.accessor(attributes, f"WEIGHTS_{n}", apath, ("VEC4",), _FLOAT | _UNORM)
            for key, a in ((f"JOINTS_{n}", j), (f"WEIGHTS_{n}", w)):
                if len(a) != count:
                    raise GltfError(f"{apath}.{key}: count {len(a)} differs from POSITION "
                                    f"count {count}")
            joints.append(j)
            weights.append(w)
            maxima.append(int(j.max()))
        sets = {f"{a}_{n}" for a in ("JOINTS", "WEIGHTS") for n in range(len(joints))}
        for key in attributes:
            if key.startswith(("JOINTS_", "WEIGHTS_")) and key not in sets:
                raise GltfError(f"{apath}.{key}: JOINTS_n/WEIGHTS_n sets must be numbered "
                                "0, 1, 2, ... without gaps")
        faces = None
        if _int(prim, "mode", path, default=4, hi=7) == 4:
            if "indices" in prim:
                index = self.accessor(prim, "indices", path, ("SCALAR",), _VERTEX_INDEX)[:, 0]
                if len(index) % 3:
                    raise GltfError(f"{path}.indices: {len(index)} indices are not whole "
                                    "triangles")
                if index.max() >= count:
                    raise GltfError(f"{path}.indices: vertex {index.max()} is out of range for "
                                    f"{count} vertices")
                faces = index.astype(np.int64).reshape(-1, 3)
            elif count % 3:
                raise GltfError(f"{apath}.POSITION: {count} vertices of non-indexed triangles "
                                "are not whole triangles")
            else:
                faces = np.arange(count, dtype=np.int64).reshape(-1, 3)
        return (positions.astype(self.dtype), normals,
                np.concatenate([j.astype(np.result_type(*joints)) for j in joints], axis=1),
                np.concatenate([w.astype(self.dtype) for w in weights], axis=1), faces, maxima)

    def clips(self) -> list:
        """One Clip per animation (glTF 2.0 "Animations"); morph weights go to ``unsupported``."""
        out = []
        for a, animation in enumerate(_list(self.doc, "animations", "")):
            path = f"animations[{a}]"
            animation = _dict(animation, path)
            samplers = _list(animation, "samplers", path, required=True)
            channels: List[Channel] = []
            unsupported: List[str] = []
            targets: Dict[Tuple[int, str], int] = {}
            for c, channel in enumerate(_list(animation, "channels", path, required=True)):
                cpath = f"{path}.channels[{c}]"
                channel = _dict(channel, cpath)
                j = _int(channel, "sampler", cpath, hi=len(samplers))
                tpath = f"{cpath}.target"
                target = _dict(channel.get("target"), tpath)
                node = _int(target, "node", tpath, default=None, hi=len(self.nodes))
                kind = target.get("path")
                if not isinstance(kind, str):
                    raise GltfError(f"{tpath}.path: expected a string")
                if node is None:
                    unsupported.append(f"channels[{c}] (no target node, {kind}): channels "
                                       "without a target node are not supported")
                    continue
                if kind == "weights":
                    unsupported.append(f"channels[{c}] (node {node} weights): morph target "
                                       "weights are not supported")
                    continue
                if kind not in PATHS:
                    unsupported.append(f"channels[{c}] (node {node} {kind:.40}): target path "
                                       "is not supported")
                    continue
                if (node, kind) in targets:
                    raise GltfError(f"{tpath}: node {node} {kind} is already animated by "
                                    f"channels[{targets[node, kind]}]")
                targets[node, kind] = c
                spath = f"{path}.samplers[{j}]"
                channels.append(Channel(node, kind, *self._sampler(
                    _dict(samplers[j], spath), spath, kind)))
            out.append(Clip(_name(animation, path), channels, dtype=self.dtype,
                            unsupported=unsupported))
        return out

    def _sampler(self, sampler: dict, path: str, kind: str):
        """Key times (K,), values (K, C) or (3 K, C), interpolation of one animation sampler.

        Times are seconds; rotation values may be normalized integers, decoded to float.
        """
        interpolation = sampler.get("interpolation", "LINEAR")
        if interpolation not in INTERPOLATIONS:
            raise GltfError(f"{path}.interpolation: {interpolation!r:.40} is not one of "
                            f"{INTERPOLATIONS}")
        times = self.accessor(sampler, "input", path, ("SCALAR",), _FLOAT)[:, 0]
        if not np.all(np.isfinite(times)) or np.any(np.diff(times) <= 0):
            raise GltfError(f"{path}.input: key times must be finite and strictly increasing")
        rotation = kind == "rotation"
        values = self.accessor(sampler, "output", path, ("VEC4" if rotation else "VEC3",),
                               _FLOAT | _UNORM | _SNORM if rotation else _FLOAT)
        expected = len(times) * (3 if interpolation == "CUBICSPLINE" else 1)
        if len(values) != expected:
            raise GltfError(f"{path}.output: {len(values)} values for {len(times)} "
                            f"{interpolation} keys, expected {expected}")
        return times.astype(self.dtype), values.astype(self.dtype), interpolation
