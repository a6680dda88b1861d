"""Model assembly from glTF 2.0 nodes: the skeleton (every node), the skins, and the nodes of a
scene (glTF 2.0 sections 3.5 "Scenes" and 3.7.3 "Skins")."""
from __future__ import annotations

import re

from typing import Any, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .accessors import FLOAT, Accessors
from .fields import (GltfError, Json, int_field, list_field, name_field, numbers_field, obj,
                        objects)
from ...kernels.wrappers import forward_kinematics, quat_from_matrix
from ...limits import nodes_error
from ...model.records import Skeleton, Skin


def _decompose(values: NDArray[Any], path: str) -> Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
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


def _check_hierarchy(parents: NDArray[Any]) -> None:
    """Refuse a node hierarchy with a cycle, as a GltfError naming the ``children`` list that
    closes it.

    The rule is ``sk_topological_order``'s, which ``forward_kinematics`` runs on its parents
    before any pose (here none): its ValueError names the joint, reworded with the JSON path.
    """
    try:
        forward_kinematics(parents, np.zeros((0, len(parents), 4)), np.zeros((0, len(parents), 3)))
    except ValueError as e:
        found = re.search(r"joint (\d+)", str(e))
        if found is None:  # not about a joint: not a hierarchy the file made
            raise
        node = int(found.group(1))
        raise GltfError(f"nodes[{parents[node]}].children: node {node} is its own ancestor, the "
                        f"node hierarchy has a cycle ({e})") from None


def read_skeleton(doc: Json, dtype: np.dtype[Any]) -> Skeleton:
    """Every node as one skeleton (glTF 2.0 "Nodes and Hierarchy", "Transformations")."""
    n = len(list_field(doc, "nodes", ""))
    too_many = nodes_error(n)
    if too_many is not None:
        raise GltfError(f"nodes: {too_many}")
    parents = [-1] * n
    names = []
    trs = np.zeros((n, 10))
    for i, path, node in objects(doc, "nodes", ""):
        names.append(name_field(node, path))
        for c in list_field(node, "children", path):
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
            t, r, s = _decompose(numbers_field(node, "matrix", path, 16, None), f"{path}.matrix")
        else:
            t = numbers_field(node, "translation", path, 3, (0, 0, 0))
            r = numbers_field(node, "rotation", path, 4, (0, 0, 0, 1))
            s = numbers_field(node, "scale", path, 3, (1, 1, 1))
        trs[i] = np.concatenate([t, r, s])
    parent_array = np.array(parents, dtype=np.int32)
    _check_hierarchy(parent_array)
    trs = trs.astype(dtype)
    return Skeleton(names, parent_array, trs[:, :3].copy(),
                    trs[:, 3:7].copy(), trs[:, 7:].copy())


def read_skins(doc: Json, accessors: Accessors, dtype: np.dtype[Any]) -> List[Skin]:
    """One Skin per ``skins[s]``; inverse bind matrices row-major (glTF 2.0 "Skins")."""
    count = len(list_field(doc, "nodes", ""))
    return [_read_skin(skin, path, count, accessors, dtype)
            for _, path, skin in objects(doc, "skins", "")]


def _read_skin(skin: Json, path: str, count: int, accessors: Accessors,
               dtype: np.dtype[Any]) -> Skin:
    joints = list_field(skin, "joints", path, required=True)
    for j in joints:
        if type(j) is not int or not 0 <= j < count:
            raise GltfError(f"{path}.joints: {j!r:.40} is not a node index "
                            f"(there are {count} nodes)")
    if "inverseBindMatrices" in skin:
        ibm = accessors.get(skin, "inverseBindMatrices", path, ("MAT4",), FLOAT)
        if len(ibm) != len(joints):
            raise GltfError(f"{path}.inverseBindMatrices: {len(ibm)} matrices for "
                            f"{len(joints)} joints")
        ibm = accessors.cast(ibm.reshape(-1, 4, 4).transpose(0, 2, 1), dtype,
                             f"{path}.inverseBindMatrices")
    else:
        accessors.charge(len(joints) * 16 * dtype.itemsize, f"{path}.joints",
                         f"{len(joints)} identity inverse bind matrices")
        ibm = np.tile(np.eye(4, dtype=dtype), (len(joints), 1, 1))
    return Skin(name_field(skin, path), np.array(joints, dtype=np.int32), ibm,
                int_field(skin, "skeleton", path, default=None, hi=count))


def scene_nodes(doc: Json, skeleton: Skeleton, scene: Optional[int]) -> List[int]:
    """The nodes of a scene (its root nodes and their descendants), in node index order.

    ``scene`` None takes ``doc.scene``, else ``scenes[0]``; a document without scenes gives every
    node (glTF 2.0 "Scenes": a file may leave the scene to the application).
    """
    scenes = list_field(doc, "scenes", "")
    if scene is None:
        if not scenes:
            return list(range(skeleton.count))
        scene = int_field(doc, "scene", "", default=0, hi=len(scenes))
    elif not 0 <= scene < len(scenes):
        raise GltfError(f"scenes[{scene}]: no such scene, the file has {len(scenes)}")
    path = f"scenes[{scene}]"
    roots = list_field(obj(scenes[scene], path), "nodes", path)
    inside = np.zeros(skeleton.count, dtype=bool)
    for r in roots:
        if type(r) is not int or not 0 <= r < skeleton.count:
            raise GltfError(f"{path}.nodes: {r!r:.40} is not a node index "
                            f"(there are {skeleton.count} nodes)")
        if skeleton.parents[r] != -1:
            raise GltfError(f"{path}.nodes: node {r} is not a root node (its parent is node "
                            f"{skeleton.parents[r]})")
        inside[r] = True
    nodes: List[int] = np.flatnonzero(inside[_roots(skeleton.parents)]).tolist()
    return nodes


def _roots(parents: NDArray[Any]) -> NDArray[Any]:
    """The root of every node of a forest (``parents`` -1 for roots, in any order, no cycles),
    in one walk: each node's path up stops at the first node whose root is known, and every node
    on it takes that root, so each node is visited once (a chain of N nodes costs N steps, not
    the N passes of spreading membership one level at a time)."""
    parent = np.asarray(parents).tolist()
    root = [-1] * len(parent)
    for i in range(len(parent)):
        path = []
        j = i
        while root[j] < 0 and parent[j] >= 0:
            path.append(j)
            j = parent[j]
        r = root[j] if root[j] >= 0 else j
        root[j] = r
        for k in path:
            root[k] = r
    return np.array(root, dtype=np.int64)
