"""Posing a model: one checked ``PoseRequest`` run through the stages of ``skinkit.model.stages``.

``run`` is the whole path for a range of frames, as ozz-animation's ``Run()``::

    sample -> blend -> forward kinematics -> morph weights -> skin/place

``pose`` runs it once for all times; ``pose_blocks`` runs it block by block, so that the memory
held does not depend on the clip's length.  ``local_pose``, ``blended_local_pose``,
``world_matrices`` and ``morph_weights`` stop after their stage.

Coordinate space: posed positions are in the world space of the scene.  Skinned (glTF 2.0
section 3.7.3 "Skins"): ``p = sum_k w_k JointWorld_k InverseBind_k v``, where ``JointWorld``
includes every ancestor of the joint (also those above ``skin.skeleton``) and the transform of
the node that instantiates the skinned mesh is ignored.  Rigid: ``p = World_node v``, normals by
the inverse transpose of its 3x3.  Morph targets come first in both cases (section 3.7.2.2).
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Iterator, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kernels import wrappers as kernels
from . import stages
from ..kernels.trs import TRS
from .posed import Layout, PosedMeshes
from .posed import layout as _layout
from .request import BlendLayers, PoseClip, PoseRequest, frame_times, resolve_clip
from .stages import MorphWeights, skinning_matrices

if TYPE_CHECKING:
    from .records import Posable

__all__ = ["resolve_clip", "local_pose", "blended_local_pose", "world_matrices", "morph_weights",
           "skinning_matrices", "pose", "pose_blocks", "run", "PosedMeshes", "PoseRequest",
           "TRS", "frame_times", "layout", "BLOCK_FRAMES"]

BLOCK_FRAMES = 64   # pose_blocks' default block: 64 frames of the default model are 0.2 MB


def local_pose(model: Posable, clip: PoseClip = None, times: Optional[ArrayLike] = None,
               loop: Optional[bool] = None) -> TRS:
    """Local TRS of every node of ``model`` at every time.

    Parameters
    ----------
    model : Model
        Its skeleton gives the nodes (N) and their rest pose; its ``clips`` are those ``clip``
        can name.
    clip : Clip, int, str, CompressedClip or None
        The clip to play (object, index into ``model.clips`` or name), or a compressed clip
        (``skinkit.compress``; any ``SampledClip``), decoded straight from its codes.  None
        gives the rest pose: the skeleton's default TRS (glTF node
        ``translation``/``rotation``/``scale``).
    times : float or array-like (T,), optional
        Seconds.  Default: for the rest pose one frame (T = 1); for a clip
        ``frame_times(clip, 30.0)`` (the whole clip at 30 frames per second).  For the rest pose
        the values do not matter, only their number T.
    loop : bool or None
        True wraps times into [0, duration) before sampling (see ``Clip.sample``); False clamps
        them to the clip; None clamps with one logged warning when some lie outside (see
        ``PoseRequest.build``).

    Returns
    -------
    TRS
        translations (T, N, 3), rotations (T, N, 4) quaternions (x, y, z, w), scales (T, N, 3);
        N = ``model.skeleton.count``.  Nodes without a channel keep their rest TRS.  dtype: the
        clip's dtype, or the skeleton's for the rest pose.

    Raises
    ------
    ValueError
        Unknown clip (the message lists the available ones), times not finite or empty, a channel
        that targets a node outside the skeleton.

    Notes
    -----
    Sampling follows glTF 2.0 section 3.11 "Animations" and Appendix C "Interpolation"; see
    ``skinkit.model.clip``.
    """
    request = PoseRequest.build(model, clip, times, loop=loop)
    return stages.sample_transforms(model, request, request.times)[0]


def blended_local_pose(model: Posable, blend: BlendLayers, times: Optional[ArrayLike] = None,
                       loop: Optional[bool] = None) -> TRS:
    """Local TRS of a weighted blend of clips (a cross-fade, a blend tree's output).

    Parameters
    ----------
    model : Model
    blend : sequence of (clip, weight)
        Clips (object, index or name; None for the rest pose) and their weights: a number, or
        an array (T,) with one weight per time.
    times, loop
        As for ``local_pose`` (default times: those of the first clip).

    Returns
    -------
    TRS
        translations (T, N, 3), rotations (T, N, 4), scales (T, N, 3):
        ``blending.blend_poses`` of the clips' local poses, with the skeleton's rest pose as
        ``rest`` (it fills in where the weights sum to less than 0.1, as in ozz-animation).

    Raises
    ------
    ValueError
        An empty blend, an unknown clip, weights of another length than the times.
    """
    request = PoseRequest.build(model, times=times, loop=loop, blend=blend)
    layers = stages.sample_transforms(model, request, request.times)
    return stages.blend(model, layers, request.blend_weights)


def world_matrices(model: Posable, clip: PoseClip = None, times: Optional[ArrayLike] = None,
                   loop: Optional[bool] = None) -> NDArray[Any]:
    """World matrices of every node of ``model`` at every time.

    Parameters
    ----------
    model, clip, times, loop
        As for ``local_pose``, whose local TRS go through ``forward_kinematics``.

    Returns
    -------
    array (T, N, 4, 4)
        Row-major matrices acting on column vectors, ``M_i = M_parent(i) T(t_i) R(q_i) S(s_i)``
        (glTF 2.0 section 3.5.3 "Transformations"); the world space of the scene, units of the
        file.  One batched ``kernels.forward_kinematics`` call.

    Raises
    ------
    ValueError
        As ``local_pose``; a bad hierarchy (cycle, parent out of range) from the kernel.
    """
    return stages.forward_kinematics(model, local_pose(model, clip, times, loop))


def morph_weights(model: Posable, clip: PoseClip = None, times: Optional[ArrayLike] = None,
                  loop: Optional[bool] = None) -> MorphWeights:
    """Morph target weights of every node whose mesh has morph targets, at every time.

    Parameters
    ----------
    model, clip, times, loop
        As for ``local_pose``; of the clip only the weights channels are sampled.

    Returns
    -------
    dict
        node -> weights: (T, M) for a node the clip animates (``Clip.sample_weights``), else its
        default weights (M,) (``node.weights``, else ``mesh.weights``, else zeros: glTF 2.0
        section 3.7.2.2).

    Raises
    ------
    ValueError
        A weights channel of width other than M, or on a node without morph targets.
    """
    request = PoseRequest.build(model, clip, times, loop=loop)
    sampled = stages.sample_weights(model, request, request.times)
    return stages.morph_weights(model, request, sampled, None)


def run(model: Posable, request: PoseRequest, start: int = 0,
        stop: Optional[int] = None) -> PosedMeshes:
    """Pose frames ``start`` to ``stop`` (excluded; default: the last) of ``request``: every
    stage of ``skinkit.model.stages`` once, batched over those frames.

    Returns
    -------
    PosedMeshes
        As ``pose``, for those frames.
    """
    stop = request.count if stop is None else min(stop, request.count)
    times = request.times_at(start, stop)
    weights = request.weights_at(start, stop)
    local = stages.blend(model, stages.sample_transforms(model, request, times), weights)
    world = stages.forward_kinematics(model, local)
    morph = stages.morph_weights(model, request, stages.sample_weights(model, request, times),
                                 weights)
    positions, normals = stages.skin(model, request, world, morph)
    joints = np.ascontiguousarray(world[..., :3, 3]) if request.joints else None
    return PosedMeshes(np.asarray(times), positions, normals, joints)


def pose(model: Posable, clip: Union[PoseClip, PoseRequest] = None,
         times: Optional[ArrayLike] = None,
         loop: Optional[bool] = None, normals: bool = False, skinning: str = "lbs",
         blend: Optional[BlendLayers] = None) -> PosedMeshes:
    """Posed vertex positions (and normals) of every mesh primitive instance at every time.

    Parameters
    ----------
    model, clip, times, loop
        As for ``local_pose``; ``clip`` may also be a ``PoseRequest`` (then give nothing else).
    normals : bool
        Also pose the normals of the primitives that have them.
    skinning : {"lbs", "dqs"}
        ``"lbs"``: ``linear_blend_skinning``; ``"dqs"``: ``dual_quaternion_skinning`` (volume
        preserving, as Blender's "Preserve Volume").  A primitive whose ``skinning`` is set (a
        USD file's ``skel:skinningMethod``) is skinned with its own method.
    blend : sequence of (clip, weight), optional
        Pose a blend of clips instead of ``clip`` (``blended_local_pose``; morph weights are
        the weighted means of the clips').

    Returns
    -------
    PosedMeshes
        ``positions[prim.key]`` (T, V, 3) for every primitive of ``model.primitives`` (keys
        ``"<node>_<primitive>"``), vertices in the accessor's order, in the world space of the
        scene and the file's units; with ``normals``, ``normals[prim.key]`` (T, V, 3) unit
        vectors for those with normals.

    Raises
    ------
    ValueError
        As ``PoseRequest.build`` and ``world_matrices``; a joint index outside the primitive's
        skin (from the kernel); a weights channel whose width is not the primitive's number of
        morph targets.
    TypeError
        A ``PoseRequest`` with other arguments.

    Notes
    -----
    ``run`` over all times: the stages of ``skinkit.model.stages``, each one batched call (one
    ``skinning_matrices`` call per skin and one skinning call per primitive, for a rigid one the
    skinning kernel with a single influence, the node's world matrix).  Skinning weights are
    used as the model stores them.
    """
    if isinstance(clip, PoseRequest):
        if any(a is not None for a in (times, loop, blend)) or normals or skinning != "lbs":
            raise TypeError("pose(model, request) takes no other arguments: the request holds "
                            "them")
        return run(model, clip)
    return run(model, PoseRequest.build(model, clip, times, loop=loop, normals=normals,
                                        skinning=skinning, blend=blend))


def pose_blocks(model: Posable, request: PoseRequest, frames: Optional[int] = None
                ) -> Iterator[PosedMeshes]:
    """``run`` block by block: a ``PosedMeshes`` of at most ``frames`` frames at a time.

    Parameters
    ----------
    model : Model
    request : PoseRequest
        From ``PoseRequest.build`` (``Model.request``).
    frames : int, optional
        Frames per block (> 0); default ``BLOCK_FRAMES``.

    Yields
    ------
    PosedMeshes
        Frames ``[i, i + frames)`` of the request in order; together they hold exactly what
        ``pose(model, request)`` does (the same bytes).  Memory held: one block, whatever the
        number of times (the request keeps a clip's frame rate, not its times).

    Raises
    ------
    TypeError, ValueError
        ``request`` not a PoseRequest, ``frames`` not a positive integer; while iterating, as
        ``pose``.
    """
    if not isinstance(request, PoseRequest):
        raise TypeError(f"request must be a PoseRequest (Model.request(...)), got "
                        f"{type(request).__name__}")
    frames = BLOCK_FRAMES if frames is None else operator.index(frames)
    if frames <= 0:
        raise ValueError(f"frames must be > 0, got {frames}")
    return (run(model, request, start, start + frames)
            for start in range(0, request.count, frames))


def layout(model: Posable, request: PoseRequest) -> Layout:
    """The arrays ``pose(model, request)`` gives, known before posing: name -> (shape, dtype)
    for ``times`` and every array of ``PosedMeshes.arrays`` (see ``skinkit.model.posed.layout``)."""
    prims = model.primitives
    return _layout(request.count, {p.key: len(p.positions) for p in prims},
                   [p.key for p in prims if p.normals is not None] if request.normals else (),
                   model.skeleton.count if request.joints else None, request.dtype)


skin_matrices = kernels._deprecated("pose.skin_matrices", skinning_matrices)
