"""The data model: a skeleton (node hierarchy with rest TRS), skins, mesh primitives, clips.

Plain NumPy arrays in, plain NumPy arrays out; nothing here knows about file formats.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from . import _repr
from ._repr import Summarized
from .clip import TRS, Clip

if TYPE_CHECKING:
    from .posed import PosedMeshes
    from .request import BlendLayers, ClipLike, PoseRequest


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
class Skeleton(Summarized):
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

    _summary = (_repr.skeleton, _repr.skeleton_html)

    names: Sequence[Optional[str]]
    parents: NDArray[Any]
    translations: NDArray[Any]
    rotations: NDArray[Any]
    scales: NDArray[Any]

    @property
    def count(self) -> int:
        return len(self.parents)



@dataclass(repr=False)
class Skin(Summarized):
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

    _summary = (_repr.skin, _repr.skin_html)

    name: Optional[str]
    joints: NDArray[Any]
    inverse_bind_matrices: NDArray[Any]
    skeleton: Optional[int] = None



@dataclass(repr=False)
class Primitive(Summarized):
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

    _summary = (_repr.primitive, _repr.primitive_html)

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



SkinnedPrimitive = Primitive
"""The name of :class:`Primitive` in skinkit 0.1 (skinned primitives only); kept for one release."""


@dataclass(repr=False)
class Model(Summarized):
    """A posable model: skeleton, skins, mesh primitive instances and clips.

    What ``load_gltf``, ``load_bvh`` and ``default_model`` return; its methods ``local_pose``,
    ``world_matrices`` and ``pose`` are those of ``skinkit.pose`` with the model bound.

    Attributes
    ----------
    skeleton : Skeleton, every node.
    skins : list of Skin
    primitives : list of Primitive, every mesh primitive instance of the loaded scene, skinned
        or rigid, in node then primitive order.
    clips : list of Clip
    name : str or None
    materials : dict or None
        What a glTF file's primitives are drawn with, kept so that ``write_gltf`` writes it
        back: its ``materials``, ``textures`` and ``samplers`` (the JSON objects as in the file),
        ``images`` (JSON objects, each with its bytes as a uint8 array under ``"data"``) and the
        ``extensionsUsed`` they need.  None for other sources.
    """

    _summary = (_repr.model, _repr.model_html)

    skeleton: Skeleton
    skins: List[Skin] = field(default_factory=list)
    primitives: List[Primitive] = field(default_factory=list)
    clips: List[Clip] = field(default_factory=list)
    name: Optional[str] = None
    materials: Optional[Dict[str, Any]] = None


    # -- posing: thin delegations to skinkit.pose ------------------------------------------------

    def clip(self, name_or_index: ClipLike) -> Clip:
        """The clip with this name or index (see ``skinkit.model.pose.resolve_clip``).

        Raises
        ------
        ValueError
            No such clip; the message lists the available ones.
        """
        from .pose import resolve_clip

        if name_or_index is None:
            raise ValueError("a clip name or index is required")
        clip = resolve_clip(self, name_or_index)
        assert clip is not None  # only None resolves to None
        return clip

    def local_pose(self, clip: ClipLike = None, times: Optional[ArrayLike] = None,
                   loop: Optional[bool] = None) -> TRS:
        """Local TRS of every node, (T, N, 3), (T, N, 4), (T, N, 3); see ``skinkit.model.pose.local_pose``."""
        from .pose import local_pose

        return local_pose(self, clip, times, loop)

    def world_matrices(self, clip: ClipLike = None, times: Optional[ArrayLike] = None,
                       loop: Optional[bool] = None) -> NDArray[Any]:
        """World matrices of every node, (T, N, 4, 4); see ``skinkit.model.pose.world_matrices``."""
        from .pose import world_matrices

        return world_matrices(self, clip, times, loop)

    def request(self, clip: ClipLike = None, times: Optional[ArrayLike] = None, *,
                fps: Optional[float] = None, loop: Optional[bool] = None, normals: bool = False,
                skinning: str = "lbs", blend: Optional[BlendLayers] = None,
                joints: bool = False) -> PoseRequest:
        """A checked ``PoseRequest`` for this model (clip, times or fps, loop, outputs,
        skinning, blend layers); see ``skinkit.model.request.PoseRequest.build``."""
        from .request import PoseRequest

        return PoseRequest.build(self, clip, times, fps=fps, loop=loop, normals=normals,
                                 skinning=skinning, blend=blend, joints=joints)

    def pose(self, clip: Union[ClipLike, PoseRequest] = None, times: Optional[ArrayLike] = None,
             loop: Optional[bool] = None, normals: bool = False, skinning: str = "lbs",
             blend: Optional[BlendLayers] = None) -> PosedMeshes:
        """Posed positions (and normals) of every primitive instance, a ``PosedMeshes`` record
        (key -> (T, V, 3)); ``skinning="dqs"`` for dual quaternions, ``blend=[(clip, weight),
        ...]`` for a blend of clips; ``clip`` may be a ``PoseRequest``; see
        ``skinkit.model.pose.pose``."""
        from .pose import pose

        return pose(self, clip, times, loop, normals, skinning, blend)

    def pose_blocks(self, request: PoseRequest,
                    frames: Optional[int] = None) -> Iterator[PosedMeshes]:
        """``PosedMeshes`` blocks of at most ``frames`` frames (default
        ``skinkit.model.pose.BLOCK_FRAMES``) of ``request`` (from ``request(...)``), in order, holding
        one block at a time; see ``skinkit.model.pose.pose_blocks``."""
        from .pose import pose_blocks

        return pose_blocks(self, request, frames)
