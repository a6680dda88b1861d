"""Retargeting: a clip of one skeleton played on another.

Rotations move in world space relative to each skeleton's rest pose (the kernel:
src/retarget.c).  For a target joint j mapped to source joint m(j),

    W_t[j](t) = W_s[m](t) R_s[m]^-1 A_j R_t[j],

where W are world rotations, R rest world rotations and A_j the shortest rotation taking the
target's rest bone direction (j toward its first mapped descendant, through unmapped joints)
onto the source's: the target joint turns from its rest by what the source joint turned from its
own, after the bones are aligned, so skeletons in T and A poses, or with other joint axes, give
parallel bones.  Unmapped target
joints keep their rest local rotation.  The root (the canonical ``hips``) follows the source's
displacement from its rest, scaled by the ratio of hip heights or leg lengths.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Set, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core, limits
from ..kernels import wrappers as kernels
from ..model.clip import Channel, Clip
from ..model.joint_names import PRESETS, canonical_names
from ..kernels._generated import Float, Input

if TYPE_CHECKING:
    from ..model.model import Model
    from ..model.request import ClipLike

_F64 = NDArray[np.float64]

__all__ = ["retarget", "retarget_pose", "retarget_rotations", "joint_mapping"]

_CHAIN_FIRST = ("spine", "spine1", "spine2", "neck", "head")   # preferred bone of a fork
_LEG = ("left_hip", "left_knee", "left_ankle")                  # root_scale="legs"


def retarget_rotations(parents: Input, source_world: Input, offsets: Input, mapped: Input,
                       rest_rotations: Input, threads: Optional[int] = None
                       ) -> Tuple[Float, Float]:
    """Target local rotations from source world rotations, batched over frames (the C kernel).

    Parameters
    ----------
    parents : int array (J,)
        The target's parents, -1 for roots.
    source_world : float array (..., J, 4)
        World rotation of each target joint's source joint (anything where unmapped).
    offsets : float array (J, 4)
        C_j = R_s[m(j)]^-1 A_j R_t[j] (``retarget`` computes them; identity where unmapped).
    mapped : array (J,)
        Non-zero for mapped target joints.
    rest_rotations : float array (J, 4)
        The target's rest local rotations.

    Returns
    -------
    rotations, world_rotations : (..., J, 4)
        The target's local and world rotations, unit quaternions (x, y, z, w).
    """
    sw = np.asarray(source_world)
    dtype = sw.dtype if sw.dtype in (np.float32, np.float64) else np.float64
    return _core._retarget_rotations(parents, sw.astype(dtype, copy=False),
                                     np.asarray(offsets, dtype), np.asarray(mapped, dtype),
                                     np.asarray(rest_rotations, dtype), None, threads)


def joint_mapping(source: Model, target: Model,
                  mapping: Optional[Dict[str, str]] = None) -> NDArray[np.int64]:
    """For every target joint, the index of its source joint, or -1.

    Parameters
    ----------
    source, target : Model
    mapping : dict {target joint name: source joint name} or None
        None matches the joints by canonical name (``skinkit.model.joint_names``: SMPL/SMPL+H/SMPL-X,
        Mixamo ``mixamorig:``, MotionBuilder (HumanIK) and CMU BVH, LaFAN1; detected per
        skeleton).  Several target joints may name one source joint (a target with more spine
        joints than the source): they turn with it as one rigid piece.  A target joint left
        out keeps its rest local rotation, its mapped children still follow their source
        joints.

    Raises
    ------
    TypeError
        ``mapping`` is not a dict (a preset's name included: presets are detected), or holds a
        name that is not a str.
    ValueError
        A name in ``mapping`` that the skeleton does not have, or has more than once; no
        preset matching a skeleton (the message says which); no joint mapped (an empty
        ``mapping`` included).
    """
    sn, tn = list(source.skeleton.names), list(target.skeleton.names)
    m = np.full(len(tn), -1, dtype=np.int64)
    if mapping is None:
        sc, tc = (_canonical(names, side) for names, side in ((sn, "source"), (tn, "target")))
        where = {c: i for i, c in enumerate(sc) if c is not None}
        for j, c in enumerate(tc):
            m[j] = where.get(c, -1) if c is not None else -1
    elif not isinstance(mapping, Mapping):
        raise TypeError(f"mapping must be a dict {{target joint name: source joint name}} or "
                        f"None (presets, {', '.join(PRESETS)}, are detected), got "
                        f"{type(mapping).__name__} {mapping!r:.40}")
    else:
        s_index, t_index = _by_name(sn), _by_name(tn)
        for t, s in mapping.items():
            j = _joint(t, t_index, tn, "target")
            m[j] = _joint(s, s_index, sn, "source")
    if not np.any(m >= 0):
        raise ValueError("no target joint is mapped to a source joint"
                         + (" (mapping is empty)" if mapping is not None and not mapping else ""))
    return m


def _canonical(names: Sequence[Optional[str]], side: str) -> List[Optional[str]]:
    try:
        return canonical_names(names)
    except ValueError as e:
        raise ValueError(f"the {side} skeleton: {e}") from None


def _by_name(names: Sequence[Optional[str]]) -> Dict[Optional[str], List[int]]:
    """The joints of each name of a skeleton."""
    out: Dict[Optional[str], List[int]] = {}
    for i, n in enumerate(names):
        out.setdefault(n, []).append(i)
    return out


def _joint(name: object, index: Dict[Optional[str], List[int]], names: Sequence[Optional[str]],
           side: str) -> int:
    """The joint a name of ``mapping`` (on its ``side``) names in its skeleton."""
    if not isinstance(name, str):
        raise TypeError(f"mapping: {side} joint names must be str, got {name!r:.40} "
                        f"({type(name).__name__})")
    found = index.get(name, [])
    if len(found) != 1:
        had = "does not have" if not found else f"has {len(found)} times ({found[:4]}...)"
        raise ValueError(f"mapping names {side} joint {name!r}, which the {side} skeleton "
                         f"{had} (it has {names[:6]}...)")
    return found[0]


def _rest(model: Model) -> Tuple[_F64, Float, _F64]:
    """rest world matrices (N, 4, 4), rotations (N, 4) and positions (N, 3)"""
    w = model.world_matrices()[0].astype(np.float64)
    return w, _rotations(w), w[:, :3, 3]


def _rotations(world: NDArray[np.floating[Any]]) -> Float:
    r = world[..., :3, :3] / np.linalg.norm(world[..., :3, :3], axis=-2, keepdims=True)
    return kernels.quat_from_matrix(r)


def _bone_child(parents: NDArray[np.integer[Any]], m: NDArray[np.int64],
                spine: NDArray[np.bool_]) -> NDArray[np.int64]:
    """for each mapped target joint, the joint its bone points to: its first mapped descendant
    along the chain (through unmapped joints: CMU's LowerBack between Hips and Spine), or -1
    (several: the one that continues the spine, ``spine``, else none).  Looking past unmapped
    joints, and telling the spine by either skeleton's names, pairs the same bones whichever
    skeleton is the source, so that A -> B -> A returns every mapped joint's world rotation."""
    children: List[List[int]] = [[] for _ in parents]
    for c, p in enumerate(parents.tolist()):
        if p >= 0:
            children[p].append(c)
    out = np.full(len(parents), -1, dtype=np.int64)
    for j in np.flatnonzero(m >= 0).tolist():
        kids: List[int] = []
        todo = list(children[j])
        while todo:      # each unmapped joint is seen from its nearest mapped ancestor only
            c = todo.pop(0)
            if m[c] >= 0:
                kids.append(c)
            else:
                todo.extend(children[c])
        chain = [c for c in kids if spine[c]]
        if chain:
            out[j] = chain[0]
        elif len(kids) == 1:
            out[j] = kids[0]
    return out


def _spine(model: Model) -> NDArray[np.bool_]:
    """(N,) whether each joint of ``model`` continues the spine at a fork (its preset name is
    one of _CHAIN_FIRST; none when no preset matches the skeleton)"""
    try:
        names = canonical_names(list(model.skeleton.names))
    except ValueError:
        names = [None] * model.skeleton.count
    return np.array([n in _CHAIN_FIRST for n in names], dtype=bool)


def _alignments(source: Model, target: Model, m: NDArray[np.int64], t_pos: _F64,
                s_pos: _F64) -> _F64:
    """A_j of the module docstring, (J, 4): target rest bone onto source rest bone; a mapped
    joint without a bone takes its parent's"""
    parents = np.asarray(target.skeleton.parents)
    spine = _spine(target) | ((m >= 0) & _spine(source)[np.maximum(m, 0)])
    child = _bone_child(parents, m, spine)
    a = np.tile([0.0, 0.0, 0.0, 1.0], (len(parents), 1))
    order = _order(parents)
    for j in order:
        c = child[j]
        if m[j] >= 0 and c >= 0:
            a[j] = _from_vectors(t_pos[c] - t_pos[j], s_pos[m[c]] - s_pos[m[j]])
        elif parents[j] >= 0:
            a[j] = a[parents[j]]
    return a


def _order(parents: NDArray[np.integer[Any]]) -> List[int]:
    done: Set[int] = set()
    order: List[int] = []
    while len(order) < len(parents):
        for j, p in enumerate(parents):
            if j not in done and (p < 0 or p in done):
                done.add(j)
                order.append(j)
    return order


def _from_vectors(a: _F64, b: _F64) -> _F64:
    """shortest rotation taking direction a onto direction b (identity for a zero vector)"""
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return np.array([0.0, 0.0, 0.0, 1.0])
    re = na * nb + a @ b
    if re <= 1e-12 * na * nb:
        v = np.array([-a[1], a[0], 0.0]) if abs(a[0]) > abs(a[2]) else np.array([0.0, -a[2], a[1]])
        q = np.append(v, 0.0)
    else:
        q = np.append(np.cross(a, b), re)
    q /= np.linalg.norm(q)
    return q


def _root_scale(root_scale: Union[str, float], target: Model, root: int,
                m: NDArray[np.int64], s_pos: _F64, t_pos: _F64) -> float:
    """The factor of the root's displacement (``root`` is a mapped target joint)."""
    if not isinstance(root_scale, str):
        scale = float(root_scale)
        if not math.isfinite(scale):
            raise ValueError(f"root_scale must be a finite number, got {root_scale!r}")
        return scale
    if root_scale == "hips":
        # the root's height above the lowest joint of the rest pose
        ht = float(t_pos[root, 1] - np.min(t_pos[:, 1]))
        hs = float(s_pos[m[root], 1] - np.min(s_pos[:, 1]))
        what = f"the source's root joint {m[root]} is at the height of its lowest joint"
    elif root_scale == "legs":
        try:
            chain = [canonical_names(list(target.skeleton.names)).index(n) for n in _LEG]
        except ValueError:
            chain = []
        if not chain or min(m[chain]) < 0:
            raise ValueError(f"root_scale='legs' needs the target's {', '.join(_LEG)} (by "
                             "preset name) mapped to source joints; give 'hips' or a number")
        ht = sum(float(np.linalg.norm(t_pos[a] - t_pos[b])) for a, b in zip(chain, chain[1:]))
        hs = sum(float(np.linalg.norm(s_pos[m[a]] - s_pos[m[b]]))
                 for a, b in zip(chain, chain[1:]))
        what = "the source's left leg has length 0"
    else:
        raise ValueError(f"root_scale must be 'hips', 'legs' or a number, got {root_scale!r}")
    if not hs > 0:
        raise ValueError(f"root_scale={root_scale!r}: {what} in its rest pose; give a number")
    return ht / hs


def retarget(source: Model, target: Model, clip: ClipLike = None,
             mapping: Optional[Dict[str, str]] = None, root_scale: Union[str, float] = "hips",
             times: Optional[ArrayLike] = None, name: Optional[str] = None,
             threads: Optional[int] = None) -> Clip:
    """The clip of ``source`` played on the ``target`` skeleton.

    Parameters
    ----------
    source, target : Model
        Skeletons in the same world axes (glTF: +Y up); their rest poses may differ (T or A
        pose, joint axes, proportions, extra or missing joints).
    clip : Clip, int, str or None
        A clip of ``source`` (default its first).
    mapping : dict {target joint name: source joint name} or None
        See ``joint_mapping``; None maps by the name presets.
    root_scale : "hips", "legs" or float
        The root's displacement from its rest position is scaled by the ratio (target / source)
        of the root joints' rest heights above their skeleton's lowest joint, of the left leg
        lengths (preset names: hip, knee, ankle), or this finite number.
    times : array-like (T,) or None
        Seconds at which the clip is sampled; default the union of its key times.
    name : str or None
        The new clip's name (default the source clip's).

    Returns
    -------
    Clip
        LINEAR rotation channels (float64) for every mapped target joint and a translation
        channel for the target's root (the joint mapped as ``hips``, or the first mapped joint);
        other joints keep their rest pose.

    Raises
    ------
    TypeError
        ``mapping`` is not a dict of names (see ``joint_mapping``).
    ValueError
        No clip, or a clip of another skeleton; more than ``skinkit.limits.MAX_SAMPLES``
        frames x joints (refused before sampling); unmapped skeletons (see ``joint_mapping``); a
        ``root_scale`` that is not "hips", "legs" or a finite number, or a ratio the rest
        poses cannot give (a source root at its lowest joint, legs not mapped).
    """
    c = source.clip(0 if clip is None else clip)
    if times is None:
        times = np.unique(np.concatenate([ch.times for ch in c.channels]))
    times = np.asarray(times, dtype=np.float64).reshape(-1)
    joints = max(source.skeleton.count, target.skeleton.count)
    too_many = limits.count_error(len(times) * joints, "MAX_SAMPLES",
                                  f"joint samples ({len(times)} frames of {joints} joints)")
    if too_many is not None:
        raise ValueError(f"retarget: {too_many}; give times= for part of the clip")
    tr, ro, sc = (np.asarray(x, np.float64) for x in source.local_pose(c, times))
    rot, root, root_translation = retarget_pose(source, target, ro, tr, sc, mapping, root_scale,
                                                threads)
    m = joint_mapping(source, target, mapping)
    channels = [Channel(int(j), "rotation", times, rot[:, j]) for j in np.flatnonzero(m >= 0)]
    if root is not None and root_translation is not None:
        channels.append(Channel(root, "translation", times, root_translation))
    return Clip(name if name is not None else c.name, channels, np.float64)


def retarget_pose(source: Model, target: Model, rotations: ArrayLike,
                  translations: Optional[ArrayLike] = None, scales: Optional[ArrayLike] = None,
                  mapping: Optional[Dict[str, str]] = None,
                  root_scale: Union[str, float] = "hips", threads: Optional[int] = None
                  ) -> Tuple[Float, Optional[int], Optional[_F64]]:
    """Retargeting on arrays: local poses of ``source`` to local rotations of ``target``,
    batched over any leading dimensions (what ``retarget`` does to a sampled clip).

    Parameters
    ----------
    source, target, mapping, root_scale
        As for ``retarget``.
    rotations : float array (..., S, 4)
        Local rotations of the S source joints (unit quaternions).
    translations, scales : float arrays (..., S, 3) or None
        Local translations and scales of the source joints (default its rest ones).

    Returns
    -------
    rotations : float64 array (..., J, 4)
        Local rotations of the J target joints (unmapped ones: their rest rotation).
    root : int or None
        The target joint whose translation follows the source root (None: the root is unmapped).
    root_translation : float64 array (..., 3) or None
        That joint's local translation.
    """
    sk = source.skeleton
    ro = np.asarray(rotations, np.float64)
    tr = np.broadcast_to(np.asarray(sk.translations, np.float64) if translations is None
                         else np.asarray(translations, np.float64), ro.shape[:-1] + (3,))
    sc = np.broadcast_to(np.asarray(sk.scales, np.float64) if scales is None
                         else np.asarray(scales, np.float64), ro.shape[:-1] + (3,))
    m = joint_mapping(source, target, mapping)
    parents = np.asarray(target.skeleton.parents)
    s_w, s_rot, s_pos = _rest(source)
    t_w, t_rot, t_pos = _rest(target)
    a = _alignments(source, target, m, t_pos, s_pos)
    mapped = m >= 0
    src = np.where(mapped, m, 0)
    offsets = kernels.quat_multiply(kernels.quat_multiply(kernels.quat_conjugate(s_rot[src]), a),
                                    t_rot)
    world = kernels.forward_kinematics(np.asarray(sk.parents), ro, tr, sc)
    gathered = _rotations(world)[..., src, :]
    rest_local = np.asarray(target.skeleton.rotations, dtype=np.float64)
    local, _ = retarget_rotations(parents, gathered, offsets, mapped, rest_local, threads)
    # the root: rest position + scaled source displacement, in its parent's rest frame
    try:
        root = canonical_names(list(target.skeleton.names)).index("hips")
    except ValueError:
        root = int(np.flatnonzero(mapped)[0])
    if m[root] < 0:
        return local, None, None
    scale = _root_scale(root_scale, target, root, m, s_pos, t_pos)
    pos = t_pos[root] + scale * (world[..., m[root], :3, 3] - s_pos[m[root]])
    p = parents[root]
    if p >= 0:
        inv = np.linalg.inv(t_w[p])
        pos = pos @ inv[:3, :3].T + inv[:3, 3]
    return local, root, pos
