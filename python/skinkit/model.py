"""The data model: a skeleton (node hierarchy with rest TRS), skins, skinned primitives, clips.

Plain NumPy arrays in, plain NumPy arrays out; nothing here knows about file formats.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np

from .clip import Clip


@dataclass(repr=False)
class Skeleton:
    """A forest of nodes (glTF nodes, BVH joints) with their rest (default) local TRS.

    Attributes
    ----------
    names : list of str or None, length N
    parents : int32 array (N,), -1 for roots, any order.
    translations : float array (N, 3), rest local translation (file units).
    rotations : float array (N, 4), rest local rotation, unit quaternion (x, y, z, w).
    scales : float array (N, 3), rest local scale.
    """

    names: Sequence[Optional[str]]
    parents: np.ndarray
    translations: np.ndarray
    rotations: np.ndarray
    scales: np.ndarray

    @property
    def count(self) -> int:
        return len(self.parents)

    def __repr__(self) -> str:
        from ._repr import skeleton
        return skeleton(self)

    def _repr_html_(self) -> str:
        from ._repr import skeleton_html
        return skeleton_html(self)


@dataclass(repr=False)
class Skin:
    """A glTF skin: the nodes used as joints and their inverse bind matrices.

    Attributes
    ----------
    name : str or None
    joints : int32 array (J,), node index of each joint (glTF ``skin.joints``).
    inverse_bind_matrices : float array (J, 4, 4), row-major, column-vector convention;
        identity when the file gives none.
    skeleton : int or None, the node named by ``skin.skeleton``.
    """

    name: Optional[str]
    joints: np.ndarray
    inverse_bind_matrices: np.ndarray
    skeleton: Optional[int] = None

    def __repr__(self) -> str:
        from ._repr import skin
        return skin(self)

    def _repr_html_(self) -> str:
        from ._repr import skin_html
        return skin_html(self)


@dataclass(repr=False)
class SkinnedPrimitive:
    """One skinned mesh primitive (glTF ``meshes[mesh].primitives[index]`` on node ``node``).

    Attributes
    ----------
    node, mesh, index, skin : int
        The node that instantiates the mesh, the mesh, the primitive index within the mesh and
        the skin (index into ``Model.skins``).
    positions : float array (V, 3), bind-pose POSITION.
    normals : float array (V, 3) or None, NORMAL.
    joints : uint8/uint16/int32 array (V, K), every JOINTS_n set side by side (K = 4 n);
        values index ``skin.joints``.
    weights : float array (V, K), every WEIGHTS_n set side by side, normalized integers decoded.
    faces : int array (F, 3) or None, triangle vertex indices (mode 4 primitives).
    """

    node: int
    mesh: int
    index: int
    skin: int
    positions: np.ndarray
    normals: Optional[np.ndarray]
    joints: np.ndarray
    weights: np.ndarray
    faces: Optional[np.ndarray] = None

    @property
    def key(self) -> str:
        """``"<node>_<primitive>"``, the suffix of this primitive's arrays in ``skinkit pose`` output."""
        return f"{self.node}_{self.index}"

    def __repr__(self) -> str:
        from ._repr import primitive
        return primitive(self)

    def _repr_html_(self) -> str:
        from ._repr import primitive_html
        return primitive_html(self)


@dataclass(repr=False)
class Model:
    """A posable model: skeleton, skins, skinned primitives and clips."""

    skeleton: Skeleton
    skins: List[Skin] = field(default_factory=list)
    primitives: List[SkinnedPrimitive] = field(default_factory=list)
    clips: List[Clip] = field(default_factory=list)
    name: Optional[str] = None

    def __repr__(self) -> str:
        from ._repr import model
        return model(self)

    def _repr_html_(self) -> str:
        from ._repr import model_html
        return model_html(self)

    # -- posing: thin delegations to skinkit.pose ------------------------------------------------

    def clip(self, name_or_index) -> Clip:
        """The clip with this name or index (see ``skinkit.pose.resolve_clip``).

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

    def local_pose(self, clip=None, times=None, loop: bool = False):
        """Local TRS of every node, (T, N, 3), (T, N, 4), (T, N, 3); see ``skinkit.pose.local_pose``."""
        from .pose import local_pose

        return local_pose(self, clip, times, loop)

    def world_matrices(self, clip=None, times=None, loop: bool = False) -> np.ndarray:
        """World matrices of every node, (T, N, 4, 4); see ``skinkit.pose.world_matrices``."""
        from .pose import world_matrices

        return world_matrices(self, clip, times, loop)

    def pose(self, clip=None, times=None, loop: bool = False, normals: bool = False,
             skinning: str = "lbs", blend=None):
        """Skinned positions per primitive key, (T, V, 3) each; see ``skinkit.pose.pose``."""
        from .pose import pose

        return pose(self, clip, times, loop, normals, skinning, blend)
