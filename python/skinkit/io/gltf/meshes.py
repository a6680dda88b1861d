"""Model assembly from glTF 2.0 meshes: one :class:`~skinkit.model.model.Primitive` per mesh primitive
instance of a scene, skinned or rigid, with its morph targets (glTF 2.0 sections 3.7.2 "Meshes",
3.7.2.2 "Morph Targets", 3.7.3 "Skins"; KHR_mesh_quantization attribute types)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .accessors import (FLOAT, INT8_16, JOINT_INDEX, SNORM, UNORM, VERTEX_INDEX, Accessors,
                        Kinds)
from .draco import DRACO, decode_draco
from .fields import GltfError, Json, int_field, list_field, numbers_field, obj, objects
from ...model.records import Primitive, Skin
from ...limits import count_error

# Attribute types: glTF 2.0 "Meshes" widened by KHR_mesh_quantization (positions and morph
# deltas as (normalized) 8/16-bit integers, normals as normalized signed integers).
_POSITION = FLOAT | INT8_16 | UNORM | SNORM
_NORMAL = FLOAT | SNORM
_TEXCOORD = FLOAT | UNORM | SNORM | INT8_16   # core: FLOAT and UNORM; the rest quantization
_TARGET_POSITION = FLOAT | SNORM | frozenset({(5120, False), (5122, False)})
_TARGET_NORMAL = FLOAT | SNORM


@dataclass
class _PrimitiveData:
    """The arrays of ``meshes[m].primitives[p]``, shared by every node that uses the mesh."""

    positions: NDArray[Any]
    normals: Optional[NDArray[Any]]
    joints: Optional[NDArray[Any]]
    weights: Optional[NDArray[Any]]
    joint_maxima: List[int]            # the largest joint of each JOINTS_n set
    faces: Optional[NDArray[Any]]
    morph_positions: Optional[NDArray[Any]]
    morph_normals: Optional[NDArray[Any]]
    uvs: Optional[NDArray[Any]]
    material: Optional[int]


@dataclass
class _MeshData:
    """``meshes[m]``: its primitives (None for one without POSITION), default morph weights
    (M,) and target names."""

    primitives: List[Optional[_PrimitiveData]]
    weights: NDArray[Any]
    target_names: Optional[List[str]]


def target_counts(doc: Json) -> Dict[int, int]:
    """The number of morph targets of the mesh of every node that has one (node -> M), from the
    JSON alone; checks that all primitives of a mesh have the same number of targets."""
    meshes = list_field(doc, "meshes", "")
    per_mesh: Dict[int, int] = {}
    out = {}
    for i, npath, node in objects(doc, "nodes", ""):
        if "mesh" not in node:
            continue
        m = int_field(node, "mesh", npath, hi=len(meshes))
        if m not in per_mesh:
            path = f"meshes[{m}]"
            prims = list_field(obj(meshes[m], path), "primitives", path, required=True)
            counts = [len(list_field(obj(p, f"{path}.primitives[{k}]"), "targets",
                                     f"{path}.primitives[{k}]")) for k, p in enumerate(prims)]
            for k, c in enumerate(counts):
                if c != counts[0]:
                    raise GltfError(f"{path}.primitives[{k}].targets: {c} morph targets, "
                                    f"primitives[0] has {counts[0]} (every primitive of a mesh "
                                    "must have the same number)")
            too_many = count_error(counts[0], "MAX_MORPH_TARGETS", "morph targets")
            if too_many is not None:
                raise GltfError(f"{path}.primitives[0].targets: {too_many}")
            per_mesh[m] = counts[0]
        out[i] = per_mesh[m]
    return out


def read_primitives(doc: Json, accessors: Accessors, nodes: List[int], skins: List[Skin],
                    dtype: np.dtype[Any]) -> List[Primitive]:
    """One Primitive per primitive of the mesh of each node in ``nodes`` (node, then primitive
    order); primitives without POSITION are skipped (glTF 2.0: nothing to draw)."""
    meshes = list_field(doc, "meshes", "")
    counts = target_counts(doc)
    cache: Dict[int, _MeshData] = {}
    out = []
    for i in nodes:
        path = f"nodes[{i}]"
        node = obj(doc["nodes"][i], path)
        if "mesh" not in node:
            continue
        m = int_field(node, "mesh", path, hi=len(meshes))
        s = int_field(node, "skin", path, default=None, hi=len(skins))
        if m not in cache:
            cache[m] = _read_mesh(doc, meshes[m], f"meshes[{m}]", counts[i], accessors, dtype)
        mesh = cache[m]
        weights = mesh.weights
        if "weights" in node:
            weights = numbers_field(node, "weights", path, counts[i], None).astype(dtype)
        for p, data in enumerate(mesh.primitives):
            if data is None:
                continue
            skinned = s is not None
            if skinned and data.joints is None:
                raise GltfError(f"meshes[{m}].primitives[{p}].attributes: JOINTS_0 and "
                                f"WEIGHTS_0 are required, nodes[{i}] skins the mesh")
            njoints = len(skins[s].joints) if s is not None else 0
            for n, largest in enumerate(data.joint_maxima if skinned else ()):
                if largest >= njoints:
                    raise GltfError(
                        f"meshes[{m}].primitives[{p}].attributes.JOINTS_{n}: joint {largest} "
                        f"is out of range for the {njoints} joints of skins[{s}] "
                        f"(used by nodes[{i}])")
            out.append(Primitive(
                node=i, mesh=m, index=p, skin=s if skinned else None, positions=data.positions,
                normals=data.normals, joints=data.joints if skinned else None,
                weights=data.weights if skinned else None, faces=data.faces,
                morph_positions=data.morph_positions, morph_normals=data.morph_normals,
                morph_weights=weights if len(weights) else None,
                target_names=mesh.target_names, uvs=data.uvs, material=data.material))
    return out


def _read_mesh(doc: Json, value: object, path: str, count: int, accessors: Accessors,
               dtype: np.dtype[Any]) -> _MeshData:
    mesh = obj(value, path)
    weights = numbers_field(mesh, "weights", path, count, (0.0,) * count).astype(dtype)
    names = obj(mesh.get("extras", {}), f"{path}.extras").get("targetNames")
    if names is not None and (not isinstance(names, list) or len(names) != count
                              or not all(isinstance(n, str) for n in names)):
        raise GltfError(f"{path}.extras.targetNames: expected {count} strings")
    prims = [_read_primitive(doc, obj(p, f"{path}.primitives[{k}]"),
                             f"{path}.primitives[{k}]", accessors, dtype)
             for k, p in enumerate(list_field(mesh, "primitives", path, required=True))]
    return _MeshData(prims, weights, names)


def _vertex_attribute(accessors: Accessors, owner: Json, key: str, path: str, count: int,
                      allowed: Kinds) -> NDArray[Any]:
    a = accessors.get(owner, key, path, ("VEC3",), allowed)
    if len(a) != count:
        raise GltfError(f"{path}.{key}: count {len(a)} differs from POSITION count {count}")
    return a


def _read_primitive(doc: Json, prim: Json, path: str, accessors: Accessors,
                    dtype: np.dtype[Any]) -> Optional[_PrimitiveData]:
    if DRACO in obj(prim.get("extensions", {}), f"{path}.extensions"):
        decode_draco(doc, prim, path, accessors)
    apath = f"{path}.attributes"
    attributes = obj(prim.get("attributes"), apath)
    if "POSITION" not in attributes:
        return None
    positions = accessors.get(attributes, "POSITION", apath, ("VEC3",), _POSITION)
    count = len(positions)
    normals = None
    if "NORMAL" in attributes:
        normals = accessors.cast(_vertex_attribute(accessors, attributes, "NORMAL", apath,
                                                   count, _NORMAL), dtype, f"{apath}.NORMAL")
    joints, weights, maxima = _skin_attributes(attributes, apath, count, accessors, dtype)
    morph_positions, morph_normals = _targets(prim, path, count, accessors, dtype)
    uvs = None
    if "TEXCOORD_0" in attributes:
        uvs = accessors.get(attributes, "TEXCOORD_0", apath, ("VEC2",), _TEXCOORD)
        if len(uvs) != count:
            raise GltfError(f"{apath}.TEXCOORD_0: count {len(uvs)} differs from POSITION count "
                            f"{count}")
        uvs = accessors.cast(uvs, dtype, f"{apath}.TEXCOORD_0")
    material = int_field(prim, "material", path, default=None,
                         hi=len(list_field(doc, "materials", "")))
    return _PrimitiveData(accessors.cast(positions, dtype, f"{apath}.POSITION"), normals, joints,
                          weights, maxima, _faces(prim, path, count, accessors), morph_positions,
                          morph_normals, uvs, material)


def _skin_attributes(attributes: Json, apath: str, count: int, accessors: Accessors,
                     dtype: np.dtype[Any]
                     ) -> Tuple[Optional[NDArray[Any]], Optional[NDArray[Any]], List[int]]:
    """Every JOINTS_n / WEIGHTS_n set side by side, and the largest joint of each set
    (None, None, [] without any)."""
    joints: List[NDArray[Any]] = []
    weights: List[NDArray[Any]] = []
    while f"JOINTS_{len(joints)}" in attributes or f"WEIGHTS_{len(joints)}" in attributes:
        n = len(joints)
        j = accessors.get(attributes, f"JOINTS_{n}", apath, ("VEC4",), JOINT_INDEX)
        w = accessors.get(attributes, f"WEIGHTS_{n}", apath, ("VEC4",), FLOAT | UNORM)
        for key, a in ((f"JOINTS_{n}", j), (f"WEIGHTS_{n}", w)):
            if len(a) != count:
                raise GltfError(f"{apath}.{key}: count {len(a)} differs from POSITION "
                                f"count {count}")
        joints.append(j)
        weights.append(w)
    sets = {f"{a}_{n}" for a in ("JOINTS", "WEIGHTS") for n in range(len(joints))}
    for key in attributes:
        if key.startswith(("JOINTS_", "WEIGHTS_")) and key not in sets:
            raise GltfError(f"{apath}.{key}: JOINTS_n/WEIGHTS_n sets must be numbered "
                            "0, 1, 2, ... without gaps")
    if not joints:
        return None, None, []
    jtype = np.result_type(*joints)
    accessors.charge(count * 4 * len(joints) * (jtype.itemsize + np.dtype(dtype).itemsize),
                     apath, f"{len(joints)} JOINTS_n/WEIGHTS_n sets of {count} vertices")
    with np.errstate(invalid="ignore"):  # a signalling NaN weight stays a NaN (Accessors.cast)
        weights_all = np.concatenate(weights, axis=1, dtype=dtype)
    return (np.concatenate(joints, axis=1, dtype=jtype), weights_all,
            [int(j.max()) for j in joints])


def _targets(prim: Json, path: str, count: int, accessors: Accessors, dtype: np.dtype[Any]
             ) -> Tuple[Optional[NDArray[Any]], Optional[NDArray[Any]]]:
    """Morph target POSITION and NORMAL displacements, (M, V, 3) each or None (glTF 2.0
    section 3.7.2.2); other target attributes (TANGENT, texture coordinates) are ignored."""
    targets = list_field(prim, "targets", path)
    for k, target in enumerate(targets):
        if not obj(target, f"{path}.targets[{k}]"):
            raise GltfError(f"{path}.targets[{k}]: a morph target needs at least one attribute")
    out: Dict[str, Optional[NDArray[Any]]] = {}
    for key, allowed in (("POSITION", _TARGET_POSITION), ("NORMAL", _TARGET_NORMAL)):
        if not any(key in t for t in targets):
            out[key] = None
            continue
        # dense deltas (M, V, 3) outgrow the file when targets share accessors: bounded first
        accessors.charge(len(targets) * count * 3 * np.dtype(dtype).itemsize, f"{path}.targets",
                         f"{len(targets)} morph target {key}s of {count} vertices")
        deltas = np.zeros((len(targets), count, 3), dtype=dtype)
        for k, target in enumerate(targets):
            if key in target:
                deltas[k] = _vertex_attribute(accessors, target, key, f"{path}.targets[{k}]",
                                              count, allowed)
        out[key] = deltas
    return out["POSITION"], out["NORMAL"]


def _faces(prim: Json, path: str, count: int, accessors: Accessors) -> Optional[NDArray[Any]]:
    """Triangle vertex indices (F, 3) of a mode 4 primitive, None for other modes."""
    if int_field(prim, "mode", path, default=4, hi=7) != 4:
        return None
    if "indices" not in prim:
        if count % 3:
            raise GltfError(f"{path}.attributes.POSITION: {count} vertices of non-indexed "
                            "triangles are not whole triangles")
        accessors.charge(count * 8, f"{path}.attributes.POSITION", f"{count} vertex indices")
        return np.arange(count, dtype=np.int64).reshape(-1, 3)
    index = accessors.get(prim, "indices", path, ("SCALAR",), VERTEX_INDEX)[:, 0]
    if len(index) % 3:
        raise GltfError(f"{path}.indices: {len(index)} indices are not whole triangles")
    if index.max() >= count:
        raise GltfError(f"{path}.indices: vertex {index.max()} is out of range for "
                        f"{count} vertices")
    return accessors.cast(index, np.int64, f"{path}.indices").reshape(-1, 3)
