"""The records of the data model: a skeleton (node hierarchy with rest TRS), skins, mesh
primitives; and ``Posable``, what posing needs of a model (``Model`` is the facade on top).

Plain NumPy arrays in, plain NumPy arrays out; nothing here knows about file formats.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Protocol, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .clip import Clip
from .summary import MAX_ITEMS, MAX_NAMES, Rows, cut, plural, table


SKELETON_HEADER = ("node", "parent", "name")
SKIN_HEADER = ("skin", "name", "joints", "skeleton")
PRIMITIVE_HEADER = ("key", "node", "mesh", "index", "skin", "vertices", "triangles",
                    "influences", "morph targets", "normals", "dtype")


def float_dtype(dtype: DTypeLike) -> np.dtype[Any]:
    """``dtype`` as a NumPy dtype, float32 or float64: the precision argument of the loaders.

    Raises
    ------
    TypeError
        Any other dtype.
    """
    dt: np.dtype[Any] = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    return dt


def one_frame(positions: ArrayLike, what: str = "positions",
              dtype: Optional[DTypeLike] = None) -> NDArray[Any]:
    """``positions`` of one posed frame as an array (V, 3); (1, V, 3) is accepted too (a
    ``model.pose(clip, [t])`` entry).  Raises ValueError naming ``what`` for any other shape."""
    p = np.asarray(positions, dtype=dtype)
    if p.ndim == 3 and p.shape[0] == 1:
        p = p[0]
    if p.ndim != 2 or p.shape[1] != 3:
        raise ValueError(f"{what} must have shape (V, 3), got {p.shape}")
    return p


def bone_pairs(parents: ArrayLike, nodes: NDArray[np.integer[Any]]) -> NDArray[np.int64]:
    """(B, 2) pairs (ancestor, node): each of ``nodes`` joined to its nearest ancestor among
    ``nodes`` (a skeleton drawn on a subset of its nodes)."""
    parents = np.asarray(parents, dtype=np.int64)
    drawn = np.zeros(len(parents), dtype=bool)
    drawn[nodes] = True
    pairs = []
    for n in nodes:
        p = parents[n]
        while p >= 0 and not drawn[p]:
            p = parents[p]
        if p >= 0:
            pairs.append((p, n))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


@dataclass(repr=False)
class Skeleton:
    """A forest of nodes (glTF nodes, BVH joints) with their rest (default) local TRS.

    Its node order (N = ``count`` nodes) is that of every per-node array skinkit returns: local
    poses, world matrices, ``Skin.joints`` indices.

    Attributes
    ----------
    names : list of str or None, length N
    parents : int32 array (N,), -1 for roots, any order.
    translations : float array (N, 3), rest local translation (file units).
    rotations : float array (N, 4), rest local rotation, unit quaternion (x, y, z, w).
    scales : float array (N, 3), rest local scale.
    """


    names: Sequence[Optional[str]]
    parents: NDArray[Any]
    translations: NDArray[Any]
    rotations: NDArray[Any]
    scales: NDArray[Any]

    @property
    def count(self) -> int:
        return len(self.parents)

    def __repr__(self) -> str:
        roots = int(np.count_nonzero(np.asarray(self.parents) < 0))
        names = ", ".join(cut([repr(n) for n in (self.names or [])], MAX_NAMES))
        return (f"Skeleton({plural(self.count, 'node')}, {plural(roots, 'root')}, "
                f"names=[{names}])")

    def _repr_html_(self) -> str:
        return table(SKELETON_HEADER, self._rows(), f"Skeleton: {plural(self.count, 'node')}")

    def _rows(self) -> Rows:
        names = list(self.names or [])
        return [(i, int(self.parents[i]), names[i] if i < len(names) else None)
                for i in range(self.count)]



@dataclass(repr=False)
class Skin:
    """A glTF skin: the nodes used as joints and their inverse bind matrices.

    A skinned primitive's ``joints`` index this skin's ``joints``; joint j's skinning matrix is
    the world matrix of node ``joints[j]`` times ``inverse_bind_matrices[j]`` (glTF 2.0 section
    3.7.3 "Skins").

    Attributes
    ----------
    name : str or None
    joints : int32 array (J,), node index of each joint (glTF ``skin.joints``).
    inverse_bind_matrices : float array (J, 4, 4), row-major, column-vector convention;
        identity when the file gives none.
    skeleton : int or None, the node named by ``skin.skeleton``.
    """


    name: Optional[str]
    joints: NDArray[Any]
    inverse_bind_matrices: NDArray[Any]
    skeleton: Optional[int] = None

    def __repr__(self) -> str:
        return (f"Skin(name={self.name!r}, {plural(len(self.joints), 'joint')}, "
                f"skeleton={self.skeleton!r})")

    def _repr_html_(self) -> str:
        joints = ", ".join(cut([str(int(j)) for j in self.joints], 3 * MAX_ITEMS))
        return table(("name", "joints", "joint nodes", "skeleton"),
                     [(self.name, len(self.joints), joints, self.skeleton)], "Skin")

    def _row(self, i: int) -> Tuple[object, ...]:
        return (i, self.name, len(self.joints), self.skeleton)



@dataclass(repr=False)
class Primitive:
    """One mesh primitive instance: ``meshes[mesh].primitives[index]`` drawn by node ``node``.

    A mesh used by several nodes gives one Primitive per node (an instance each); they share
    their arrays.  A primitive is skinned when ``skin`` is set (glTF 2.0 section 3.7.3: the
    node's own transform is ignored), rigid otherwise (the node's world matrix places it).

    Attributes
    ----------
    node, mesh, index : int
        The node that instantiates the mesh, the mesh, the primitive index within the mesh.
    skin : int or None
        Index into ``Model.skins`` for a skinned primitive, None for a rigid one.
    positions : float array (V, 3), POSITION (bind pose for a skinned primitive), file units.
    normals : float array (V, 3) or None, NORMAL.
    joints : uint8/uint16/int32 array (V, K) or None, every JOINTS_n set side by side
        (K = 4 n); values index ``skin.joints``.  None for a rigid primitive.
    weights : float array (V, K) or None, every WEIGHTS_n set side by side, normalized integers
        decoded.  None for a rigid primitive.
    faces : int array (F, 3) or None, triangle vertex indices (mode 4 primitives).
    morph_positions : float array (M, V, 3) or None
        POSITION displacement of each morph target (glTF 2.0 section 3.7.2.2), zero for a target
        without POSITION; None when no target has one.
    morph_normals : float array (M, V, 3) or None, NORMAL displacements, likewise.
    morph_weights : float array (M,) or None
        The instance's default morph weights: ``node.weights``, else ``mesh.weights``, else
        zeros.  None (or M = 0) when the primitive has no morph targets.
    target_names : list of str or None, ``mesh.extras.targetNames`` when the file gives them.
    uvs : float array (V, 2) or None, TEXCOORD_0 (glTF's (u, v), v down), normalized integers
        decoded.
    material : int or None, the glTF material index (into ``Model.materials["materials"]``).
    skinning : {"lbs", "dqs"} or None
        The skinning method the file asks for this primitive (USD's ``skel:skinningMethod``),
        which ``pose`` uses instead of its ``skinning`` argument; None: the argument's.
    """


    node: int
    mesh: int
    index: int
    skin: Optional[int]
    positions: NDArray[Any]
    normals: Optional[NDArray[Any]] = None
    joints: Optional[NDArray[Any]] = None
    weights: Optional[NDArray[Any]] = None
    faces: Optional[NDArray[Any]] = None
    morph_positions: Optional[NDArray[Any]] = None
    morph_normals: Optional[NDArray[Any]] = None
    morph_weights: Optional[NDArray[Any]] = None
    target_names: Optional[List[str]] = None
    uvs: Optional[NDArray[Any]] = None
    material: Optional[int] = None
    skinning: Optional[str] = None

    @property
    def key(self) -> str:
        """``"<node>_<primitive>"``, the suffix of this primitive's arrays in ``skinkit pose`` output."""
        return f"{self.node}_{self.index}"

    @property
    def skinned(self) -> bool:
        """Whether the primitive is skinned (has a skin, joints and weights)."""
        return self.skin is not None

    @property
    def target_count(self) -> int:
        """M, the number of morph targets."""
        return 0 if self.morph_weights is None else len(self.morph_weights)

    def __repr__(self) -> str:
        normals = "normals" if self.normals is not None else "no normals"
        skin = f"skin={self.skin}" if self.skin is not None else "rigid"
        parts = [plural(len(self.positions), 'vertex', 'vertices'),
                 plural(self._triangles, 'triangle')]
        if self.skin is not None:
            parts.append(plural(self._influences, 'influence'))
        if self._targets:
            parts.append(plural(self._targets, 'morph target'))
        return (f"Primitive(key={self.key!r}, node={self.node}, mesh={self.mesh}, "
                f"index={self.index}, {skin}, {', '.join(parts)}, {normals}, "
                f"{np.asarray(self.positions).dtype})")

    def _repr_html_(self) -> str:
        return table(PRIMITIVE_HEADER, [self._row()], "Primitive")

    @property
    def _influences(self) -> int:
        j = self.joints
        return int(j.shape[1]) if j is not None and np.ndim(j) == 2 else 0

    @property
    def _triangles(self) -> int:
        return 0 if self.faces is None else int(len(self.faces))

    @property
    def _targets(self) -> int:
        return int(getattr(self, "target_count", 0))

    def _row(self) -> Tuple[object, ...]:
        return (self.key, self.node, self.mesh, self.index,
                "rigid" if self.skin is None else self.skin, len(self.positions),
                self._triangles, self._influences, self._targets,
                "yes" if self.normals is not None else "no", np.asarray(self.positions).dtype)



SkinnedPrimitive = Primitive
"""The name of :class:`Primitive` in skinkit 0.1 (skinned primitives only); kept for one release."""


class Posable(Protocol):
    """What posing reads of a model (``skinkit.model.pose``, ``request``, ``stages``): ``Model``
    and its subclasses are posable; so is any object with these attributes."""

    skeleton: Skeleton
    skins: List[Skin]
    primitives: List[Primitive]
    clips: List[Clip]
