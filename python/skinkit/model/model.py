"""``Model``: a posable model (skeleton, skins, mesh primitive instances, clips), the facade whose
methods bind the model to ``skinkit.model.pose``.

Plain NumPy arrays in, plain NumPy arrays out; nothing here knows about file formats.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union

from numpy.typing import ArrayLike, NDArray

from ..kernels.trs import TRS
from .clip import CLIP_HEADER, Clip
from .records import PRIMITIVE_HEADER, SKELETON_HEADER, SKIN_HEADER, Primitive, Skeleton, Skin
from .summary import escape, listing, plural, table

if TYPE_CHECKING:
    from .posed import PosedMeshes
    from .request import BlendLayers, ClipLike, PoseClip, PoseRequest


@dataclass(repr=False)
class Model:
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
        ``images`` (JSON objects, each with its bytes as a uint8 array under ``"data"``, or for
        an image file beside a glTF its path under ``"file"``, read by ``write_gltf`` only, or
        its ``"uri"`` alone when that file was missing) and the
        ``extensionsUsed`` they need.  None for other sources.
    """


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

    def local_pose(self, clip: PoseClip = None, times: Optional[ArrayLike] = None,
                   loop: Optional[bool] = None) -> TRS:
        """Local TRS of every node, (T, N, 3), (T, N, 4), (T, N, 3); see ``skinkit.model.pose.local_pose``."""
        from .pose import local_pose

        return local_pose(self, clip, times, loop)

    def world_matrices(self, clip: PoseClip = None, times: Optional[ArrayLike] = None,
                       loop: Optional[bool] = None) -> NDArray[Any]:
        """World matrices of every node, (T, N, 4, 4); see ``skinkit.model.pose.world_matrices``."""
        from .pose import world_matrices

        return world_matrices(self, clip, times, loop)

    def request(self, clip: PoseClip = None, times: Optional[ArrayLike] = None, *,
                fps: Optional[float] = None, loop: Optional[bool] = None, normals: bool = False,
                skinning: str = "lbs", blend: Optional[BlendLayers] = None,
                joints: bool = False) -> PoseRequest:
        """A checked ``PoseRequest`` for this model (clip, times or fps, loop, outputs,
        skinning, blend layers); see ``skinkit.model.request.PoseRequest.build``."""
        from .request import PoseRequest

        return PoseRequest.build(self, clip, times, fps=fps, loop=loop, normals=normals,
                                 skinning=skinning, blend=blend, joints=joints)

    def pose(self, clip: Union[PoseClip, PoseRequest] = None, times: Optional[ArrayLike] = None,
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

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(name={self.name!r},\n"
                f"  skeleton={self.skeleton!r},\n"
                f"  skins={listing(repr(s) for s in self.skins)},\n"
                f"  primitives={listing(repr(p) for p in self.primitives)},\n"
                f"  clips={listing(repr(c) for c in self.clips)})")

    def _repr_html_(self) -> str:
        title = (f"<b>Model {escape(self.name) if self.name is not None else ''}</b>: "
                 f"{plural(self.skeleton.count, 'node')}, {plural(len(self.skins), 'skin')}, "
                 f"{plural(len(self.primitives), 'mesh primitive')}, "
                 f"{plural(len(self.clips), 'clip')}")
        parts = [f"<div>{title}"]
        if self.skins:
            parts.append(table(SKIN_HEADER, [s._row(i) for i, s in enumerate(self.skins)],
                               "Skins"))
        if self.primitives:
            parts.append(table(PRIMITIVE_HEADER, [p._row() for p in self.primitives],
                               "Mesh primitives"))
        if self.clips:
            parts.append(table(CLIP_HEADER, [c._row(i) for i, c in enumerate(self.clips)],
                               "Clips"))
        parts.append(table(SKELETON_HEADER, self.skeleton._rows(), "Skeleton"))
        parts.append("</div>")
        return "".join(parts)
