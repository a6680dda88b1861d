"""Posing a model: clip sampling, forward kinematics and skinning in a few batched kernel calls.

The path is ``Clip.sample`` (local TRS of every node at every time) -> ``forward_kinematics``
(world matrices of every node) -> ``skinning_matrices`` (per skin) -> ``linear_blend_skinning``
(per skinned primitive).  Each step is one kernel call over all times; there are no Python loops
over times or vertices, only over skins and primitives.

Coordinate space (glTF 2.0 section 3.7.3 "Skins"): posed positions are in the world space of the
scene, ``p = sum_k w_k JointWorld_k InverseBind_k v``, where ``JointWorld`` includes every ancestor
of the joint (also those above ``skin.skeleton``) and the transform of the node that instantiates
the skinned mesh is ignored.
"""
from __future__ import annotations

import math
import numbers
from typing import Dict, Optional, Tuple, Union

import numpy as np

from . import kernels
from .clip import Clip, as_times

__all__ = ["resolve_clip", "local_pose", "world_matrices", "skinning_matrices", "pose",
           "frame_times"]

ClipLike = Union[Clip, int, str, None]


def resolve_clip(model, clip: ClipLike) -> Optional[Clip]:
    """Find a clip of ``model`` by object, index or name.

    Parameters
    ----------
    model : Model
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


def local_pose(model, clip: ClipLike = None, times=None, loop: bool = False
               ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local TRS of every node of ``model`` at every time.

    Parameters
    ----------
    model : Model
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


def world_matrices(model, clip: ClipLike = None, times=None, loop: bool = False) -> np.ndarray:
    """World matrices of every node of ``model`` at every time.

    Parameters
    ----------
    model, clip, times, loop
        As for ``local_pose``.

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


def pose(model, clip: ClipLike = None, times=None, loop: bool = False, normals: bool = False
         ) -> Dict[str, object]:
    """Skinned vertex positions (and normals) of every skinned primitive at every time.

    Parameters
    ----------
    model, clip, times, loop
        As for ``local_pose``.
    normals : bool
        Also skin the normals (primitives without normals give None).

    Returns
    -------
    dict
        ``prim.key`` (``"<node>_<primitive>"``) -> positions, an array (T, V, 3), or with
        ``normals`` a tuple (positions (T, V, 3), normals (T, V, 3) or None).  Positions are in
        the world space of the scene, in the file's units.

    Raises
    ------
    ValueError
        As ``world_matrices``; a joint index outside the primitive's skin (from the kernel).

    Notes
    -----
    glTF 2.0 section 3.7.3 "Skins": ``p = sum_k w_k JointWorld_k InverseBind_k v``; the node
    that instantiates the mesh contributes nothing.  One ``skinning_matrices`` call per skin and
    one ``linear_blend_skinning`` call per primitive, each batched over all T times.  Weights are
    used as the model stores them.
    """
    world = world_matrices(model, clip, times, loop)
    mats = skinning_matrices(model, world)
    out = {}
    for prim in model.primitives:
        m = mats[prim.skin]
        if normals and prim.normals is not None:
            out[prim.key] = kernels.linear_blend_skinning(prim.positions, prim.joints,
                                                          prim.weights, m, normals=prim.normals)
        else:
            p = kernels.linear_blend_skinning(prim.positions, prim.joints, prim.weights, m)
            out[prim.key] = (p, None) if normals else p
    return out


def skinning_matrices(model, world, skins=None) -> Dict[int, np.ndarray]:
    """Skinning matrices of the skins used by the model's primitives.

    Parameters
    ----------
    model : Model
    world : array (T, N, 4, 4), from ``world_matrices``.
    skins : iterable of int, optional
        Skin indices (default: those of ``model.primitives``).

    Returns
    -------
    dict
        skin index -> array (T, J, 4, 4), ``world[:, skin.joints] @ skin.inverse_bind_matrices``
        (glTF 2.0 section 3.7.3 "Skins"); one ``kernels.skinning_matrices`` call per skin.
    """
    if skins is None:
        skins = dict.fromkeys(p.skin for p in model.primitives)
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
