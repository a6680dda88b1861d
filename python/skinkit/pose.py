"""Posing a model: clip sampling, forward kinematics, morph targets and skinning or the node
transform, in a few batched calls.

The path is ``Clip.sample`` (local TRS of every node at every time) and ``Clip.sample_weights``
(morph weights) -> ``forward_kinematics`` (world matrices of every node) -> per mesh primitive
instance: ``blend_shapes`` (morph targets) then, for a skinned primitive, ``skinning_matrices``
(per skin) and ``linear_blend_skinning`` (or ``dual_quaternion_skinning``), for a rigid one the node's world matrix (one matrix
product for all times).  Each step is one call over all times; there are no Python loops over
times or vertices, only over skins and primitives.

Coordinate space: posed positions are in the world space of the scene.  Skinned (glTF 2.0
section 3.7.3 "Skins"): ``p = sum_k w_k JointWorld_k InverseBind_k v``, where ``JointWorld``
includes every ancestor of the joint (also those above ``skin.skeleton``) and the transform of
the node that instantiates the skinned mesh is ignored.  Rigid: ``p = World_node v``, normals by
the inverse transpose of its 3x3.  Morph targets come first in both cases (section 3.7.2.2).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Dict, Iterator, Mapping, Optional, Tuple, Union

import numpy as np

from . import kernels
from .blending import blend_poses
from .clip import Clip, as_times
from .morph import blend_shapes

__all__ = ["resolve_clip", "local_pose", "blended_local_pose", "world_matrices", "morph_weights", "skinning_matrices",
           "pose", "PosedMeshes", "frame_times"]

ClipLike = Union[Clip, int, str, None]
TRS = Tuple[np.ndarray, np.ndarray, np.ndarray]   # translations, rotations, scales


def resolve_clip(model, clip: ClipLike) -> Optional[Clip]:
    """Find a clip of ``model`` by object, index or name.

    Parameters
    ----------
    model : Model
        Its ``clips`` are searched.
    clip : Clip, int, str or None
        A Clip is returned as is; an int indexes ``model.clips`` (negative values count from the
        end, as for lists); a str is matched against the clip names.  None gives None (the rest
        pose).

    Returns
    -------
    Clip or None

    Raises
    ------
    ValueError
        No clip with that index or name; the message lists the available clips.
    TypeError
        ``clip`` is of another type (bool included).
    """
    if clip is None or isinstance(clip, Clip):
        return clip
    clips = model.clips
    if isinstance(clip, numbers.Integral) and not isinstance(clip, bool):
        i = int(clip)
        if -len(clips) <= i < len(clips):
            return clips[i]
        raise ValueError(f"clip index {i} is out of range: {_available(clips)}")
    if isinstance(clip, str):
        for c in clips:
            if c.name == clip:
                return c
        raise ValueError(f"no clip named {clip!r}: {_available(clips)}")
    raise TypeError(f"clip must be a Clip, an int index, a name or None, got {type(clip).__name__}")


def _available(clips) -> str:
    if not clips:
        return "the model has no clips"
    names = ", ".join(f"{i}: {c.name!r}" for i, c in enumerate(clips))
    return f"available clips are {names}"


def _model_dtype(model) -> np.dtype:
    dt = np.asarray(model.skeleton.translations).dtype
    return dt if dt in (np.float32, np.float64) else np.dtype(np.float64)


def _times_array(times, clip: Optional[Clip], dtype) -> np.ndarray:
    """Times as a 1-D float array: None -> [0] (rest) or ``frame_times(clip)``; scalar -> (1,)."""
    if times is None:
        if clip is None:
            return np.zeros(1, dtype=dtype)
        return frame_times(clip).astype(clip.dtype)
    t = as_times(times, dtype if clip is None else clip.dtype)
    if t.size == 0:
        raise ValueError("times must hold at least one time")
    return t


def local_pose(model, clip: ClipLike = None, times=None, loop: bool = False) -> TRS:
    """Local TRS of every node of ``model`` at every time.

    Parameters
    ----------
    model : Model
        Its skeleton gives the nodes (N) and their rest pose; its ``clips`` are those ``clip``
        can name.
    clip : Clip, int, str or None
        The clip to play (object, index into ``model.clips`` or name).  None gives the rest pose:
        the skeleton's default TRS (glTF node ``translation``/``rotation``/``scale``).
    times : float or array-like (T,), optional
        Seconds.  Default: for the rest pose one frame (T = 1); for a clip
        ``frame_times(clip, 30.0)`` (the whole clip at 30 frames per second).  For the rest pose
        the values do not matter, only their number T.
    loop : bool
        Wrap times into [0, duration) before sampling (see ``Clip.sample``).

    Returns
    -------
    translations : array (T, N, 3)
    rotations : array (T, N, 4), quaternions (x, y, z, w)
    scales : array (T, N, 3)
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
    ``skinkit.clip``.
    """
    c = resolve_clip(model, clip)
    sk = model.skeleton
    dtype = _model_dtype(model)
    t = _times_array(times, c, dtype)
    rest = (np.asarray(sk.translations), np.asarray(sk.rotations), np.asarray(sk.scales))
    if c is not None:
        return c.sample(t, rest, loop=loop)
    T = t.size
    translations, rotations, scales = (
        np.ascontiguousarray(np.broadcast_to(a.astype(dtype, copy=False), (T,) + a.shape))
        for a in rest)
    return translations, rotations, scales


def _blend_layers(model, blend, times, loop):
    """The clips of ``blend`` resolved, the times, and the weights (T, L)."""
    blend = list(blend)
    if not blend or not all(isinstance(b, (tuple, list)) and len(b) == 2 for b in blend):
        raise ValueError("blend must be a non-empty sequence of (clip, weight) pairs")
    clips = [resolve_clip(model, c) for c, _ in blend]
    t = _times_array(times, clips[0], _model_dtype(model))
    try:
        w = np.stack([np.broadcast_to(np.asarray(wt, np.float64), t.shape) for _, wt in blend], 1)
    except ValueError:
        raise ValueError(f"each blend weight must be a number or an array of {t.size} weights "
                         "(one per time)") from None
    return clips, t, w


def blended_local_pose(model, blend, times=None, loop: bool = False) -> TRS:
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
    translations (T, N, 3), rotations (T, N, 4), scales (T, N, 3)
        ``blending.blend_poses`` of the clips' local poses, with the skeleton's rest pose as
        ``rest`` (it fills in where the weights sum to less than 0.1, as in ozz-animation).

    Raises
    ------
    ValueError
        An empty blend, an unknown clip, weights of another length than the times.
    """
    clips, t, w = _blend_layers(model, blend, times, loop)
    layers = [local_pose(model, c, t, loop) for c in clips]
    tr, r, sc = (np.stack([layer[i] for layer in layers], axis=1) for i in range(3))
    sk = model.skeleton
    r, tr, sc = blend_poses(r, tr, sc, w.astype(tr.dtype),
                            rest=(sk.rotations, sk.translations, sk.scales))
    return tr, r, sc


def _blended_morph_weights(model, blend, times, loop) -> Dict[int, np.ndarray]:
    """``morph_weights`` of a blend of clips: per node the weighted mean of the clips' morph
    weights (T, M) (the plain mean where the weights sum to 0)."""
    clips, t, w = _blend_layers(model, blend, times, loop)
    total = w.sum(axis=1, keepdims=True)
    w = np.divide(w, total, out=np.full_like(w, 1.0 / w.shape[1]), where=total != 0)
    per_clip = [morph_weights(model, c, t, loop) for c in clips]
    out = {}
    for node, first in per_clip[0].items():
        shape = (t.size, np.shape(first)[-1])
        out[node] = sum(w[:, i, None] * np.broadcast_to(mw[node], shape)
                        for i, mw in enumerate(per_clip))
    return out


def world_matrices(model, clip: ClipLike = None, times=None, loop: bool = False) -> np.ndarray:
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
    tr, ro, sc = local_pose(model, clip, times, loop)
    return kernels.forward_kinematics(np.asarray(model.skeleton.parents), ro, tr, sc)


@dataclass(repr=False, eq=False)
class PosedMeshes(Mapping[str, np.ndarray]):
    """The result of ``pose``: posed positions (and normals) of every mesh primitive instance.

    A read-only mapping ``prim.key`` -> positions (T, V, 3), so ``posed[key]`` is the positions
    of one primitive; the same record whatever ``pose`` was asked for.

    Attributes
    ----------
    times : float array (T,), the times posed (seconds).
    positions : dict key -> float array (T, V, 3), world space, file units.
    normals : dict key -> float array (T, V, 3), unit normals in world space, for the primitives
        that have normals when ``pose(normals=True)``; empty otherwise.
    """

    times: np.ndarray
    positions: Dict[str, np.ndarray]
    normals: Dict[str, np.ndarray]

    __eq__ = object.__eq__   # equal only to itself: arrays have no single truth value
    __hash__ = None          # type: ignore[assignment]  # a mutable record

    def __getitem__(self, key: str) -> np.ndarray:
        return self.positions[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.positions)

    def __len__(self) -> int:
        return len(self.positions)

    def arrays(self) -> Dict[str, np.ndarray]:
        """``positions_<key>`` and ``normals_<key>`` arrays, as ``skinkit pose`` writes them."""
        out = {f"positions_{k}": v for k, v in self.positions.items()}
        out.update((f"normals_{k}", v) for k, v in self.normals.items())
        return out

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}: {v.shape}" for k, v in list(self.positions.items())[:4])
        more = f", ... {len(self) - 4} more" if len(self) > 4 else ""
        return (f"PosedMeshes({len(self.times)} times, {len(self)} primitives "
                f"{{{shapes}{more}}}, normals for {len(self.normals)})")


SKINNING = {"lbs": kernels.linear_blend_skinning, "dqs": kernels.dual_quaternion_skinning}


def pose(model, clip: ClipLike = None, times=None, loop: bool = False, normals: bool = False,
         skinning: str = "lbs", blend=None) -> PosedMeshes:
    """Posed vertex positions (and normals) of every mesh primitive instance at every time.

    Parameters
    ----------
    model, clip, times, loop
        As for ``local_pose``.
    normals : bool
        Also pose the normals of the primitives that have them.
    skinning : {"lbs", "dqs"}
        ``"lbs"``: ``linear_blend_skinning``; ``"dqs"``: ``dual_quaternion_skinning`` (volume
        preserving, as Blender's "Preserve Volume").
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
        As ``world_matrices``; a joint index outside the primitive's skin (from the kernel); a
        weights channel whose width is not the primitive's number of morph targets; an unknown
        ``skinning``; both ``clip`` and ``blend``.

    Notes
    -----
    Per primitive (glTF 2.0): morph targets first (3.7.2.2, ``blend_shapes`` with the weights of
    ``morph_weights``), then a skinned primitive is skinned (3.7.3, ``p = sum_k w_k JointWorld_k
    InverseBind_k v``; the node that instantiates the mesh contributes nothing), a rigid one is
    transformed by its node's world matrix (normals by the inverse transpose of its 3x3,
    computed as the cofactor matrix times the sign of the determinant, then renormalised).  One
    ``skinning_matrices`` call per skin and one skinning call per primitive (for a rigid one the
    skinning kernel with a single influence, the node's world matrix), each batched over all T
    times.  Skinning weights are used as the model stores
    them.
    """
    if skinning not in SKINNING:
        raise ValueError(f"skinning must be one of {', '.join(map(repr, SKINNING))}, got "
                         f"{skinning!r}")
    if blend is None:
        c = resolve_clip(model, clip)
        t = _times_array(times, c, _model_dtype(model))
        world = world_matrices(model, c, t, loop)
        weights = morph_weights(model, c, t, loop)
    elif clip is not None:
        raise ValueError("give either clip or blend, not both")
    else:
        t = _blend_layers(model, blend, times, loop)[1]
        tr, ro, sc = blended_local_pose(model, blend, t, loop)
        world = kernels.forward_kinematics(np.asarray(model.skeleton.parents), ro, tr, sc)
        weights = _blended_morph_weights(model, blend, t, loop)
    mats = skinning_matrices(model, world)
    positions, normals_out = {}, {}
    for prim in model.primitives:
        p, n = _morph(prim, weights.get(prim.node), normals)
        if prim.skinned:
            p, n = _skin(prim, p, n, mats[prim.skin], SKINNING[skinning])
        else:
            p, n = _rigid(world[:, prim.node], p, n)
        positions[prim.key] = p
        if n is not None:
            normals_out[prim.key] = n
    return PosedMeshes(np.asarray(t), positions, normals_out)


def morph_weights(model, clip: ClipLike = None, times=None, loop: bool = False
                  ) -> Dict[int, np.ndarray]:
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
    c = resolve_clip(model, clip)
    counts = {p.node: p.target_count for p in model.primitives}
    out = {p.node: p.morph_weights for p in model.primitives if p.target_count}
    if c is None or not c.weights_nodes:
        return out
    t = _times_array(times, c, _model_dtype(model))
    for node, w in c.sample_weights(t, loop).items():
        if node not in counts:
            continue   # a node outside the posed scene
        if w.shape[-1] != counts[node]:
            raise ValueError(f"clip {c.name!r}: the weights channel of node {node} has "
                             f"{w.shape[-1]} weights, its mesh has {counts[node]} morph targets")
        out[node] = w
    return out


def _morph(prim, weights, normals: bool):
    """The primitive's positions and (with ``normals``) normals after its morph targets:
    (V, 3) for constant weights, (T, V, 3) for weights (T, M); normals None if it has none."""
    n = prim.normals if normals else None
    if weights is None:
        return prim.positions, n
    if prim.morph_positions is not None:
        p = blend_shapes(prim.positions, prim.morph_positions, weights)
    else:
        p = prim.positions
    if n is not None and prim.morph_normals is not None:
        n = blend_shapes(n, prim.morph_normals, weights)
    return p, n


def _skin(prim, positions, normals, matrices, kernel):
    """Skin ``positions`` (and ``normals``), (V, 3) or (T, V, 3), with skinning ``matrices``
    (T, J, 4, 4) and the skinning ``kernel`` (``SKINNING``)."""
    if normals is None:
        return kernel(positions, prim.joints, prim.weights, matrices), None
    return kernel(positions, prim.joints, prim.weights, matrices, normals=normals)


def _rigid(world, positions, normals):
    """Transform (V, 3) or (T, V, 3) positions (and normals) by the node's world matrices
    (T, 4, 4): the skinning kernel with one influence of weight 1 per vertex, which is the
    matrix product ``World v`` for all times in one call (normals by the cofactor of the 3x3
    times the sign of its determinant, i.e. the inverse transpose up to a positive factor,
    renormalised).  On RobotExpressive (15 rigid instances, 1,000 frames, positions only) 1.3x
    faster than NumPy's batched matmul of (V, 3) by (T, 3, 3) (medians of 9 interleaved runs),
    3x with normals."""
    v = np.shape(positions)[-2]
    one = np.ones((v, 1), dtype=world.dtype)
    joint = np.zeros((v, 1), dtype=np.uint8)
    mats = world[:, None]
    if normals is None:
        return kernels.linear_blend_skinning(positions, joint, one, mats), None
    return kernels.linear_blend_skinning(positions, joint, one, mats, normals=normals)


def skinning_matrices(model, world, skins=None) -> Dict[int, np.ndarray]:
    """Skinning matrices of the skins used by the model's primitives.

    Parameters
    ----------
    model : Model
    world : array (T, N, 4, 4), from ``world_matrices``.
    skins : iterable of int, optional
        Skin indices (default: those of the skinned ``model.primitives``).

    Returns
    -------
    dict
        skin index -> array (T, J, 4, 4), ``world[:, skin.joints] @ skin.inverse_bind_matrices``
        (glTF 2.0 section 3.7.3 "Skins"); one ``kernels.skinning_matrices`` call per skin.
    """
    if skins is None:
        skins = dict.fromkeys(p.skin for p in model.primitives if p.skinned)
    out = {}
    for i in skins:
        skin = model.skins[i]
        out[i] = kernels.skinning_matrices(world[:, np.asarray(skin.joints)],
                                           skin.inverse_bind_matrices)
    return out


skin_matrices = kernels._deprecated("pose.skin_matrices", skinning_matrices)


def frame_times(clip, fps: float = 30.0) -> np.ndarray:
    """Frame times covering a clip: 0, 1/fps, 2/fps, ... up to and including its duration.

    Parameters
    ----------
    clip : Clip or float
        The clip, or a duration in seconds (>= 0).
    fps : float
        Frames per second, > 0.

    Returns
    -------
    float64 array (F,)
        ``F = ceil(duration * fps) + 1`` frames at ``i / fps``, the last one clamped to the
        duration (so both ends are included); ``[0.0]`` for a clip of zero duration.

    Raises
    ------
    ValueError
        fps not finite and positive, or a negative or non-finite duration.
    """
    duration = float(clip.duration if isinstance(clip, Clip) else clip)
    fps = float(fps)
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps}")
    if not (math.isfinite(duration) and duration >= 0):
        raise ValueError(f"duration must be finite and >= 0, got {duration}")
    x = duration * fps
    n = int(math.ceil(x - 1e-9 * max(1.0, x))) + 1
    t = np.arange(n, dtype=np.float64) / fps
    t[-1] = duration if n > 1 else 0.0
    return t
