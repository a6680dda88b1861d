"""Foot locking: contacts detected from a clip by height and speed thresholds, then two-bone IK
(``skinkit.ik_two_bone``, ozz's IKTwoBoneJob) pins each foot where its contact began, which
removes the sliding that retargeting onto other proportions leaves."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kernels import wrappers as kernels
from ..limits import count_error
from ..model.clip import Channel, Clip
from ..kernels.ik import ik_two_bone
from ..model.joint_names import canonical_names
from ._checks import integer, number, values

if TYPE_CHECKING:
    from ..model.model import Model
    from ..model.request import ClipLike

__all__ = ["foot_contacts", "foot_drift", "lock_feet"]

LEGS = {"left": ("left_hip", "left_knee", "left_ankle"),
        "right": ("right_hip", "right_knee", "right_ankle")}


def foot_contacts(positions: ArrayLike, times: ArrayLike, height: float, speed: float,
                  up: int = 1) -> NDArray[np.bool_]:
    """Frames where a foot is planted.

    Parameters
    ----------
    positions : (T, 3) world positions of the foot joint.
    times : (T,) seconds.
    height : a contact is at most this far above the foot's lowest point in the clip (units of
        the positions).
    speed : ... and moves slower than this (units per second, central differences).
    up : the vertical axis (1: +Y, glTF).

    Returns
    -------
    bool array (T,)

    Raises
    ------
    TypeError
        for arrays of other than real numbers, thresholds that are not numbers, an up axis that
        is not an integer.
    ValueError
        positions not (T >= 1, 3), times not (T,) strictly increasing, values not finite or past
        skinkit.limits.MAX_FILE_VALUE, negative thresholds, an up axis other than 0, 1, 2.
    """
    p = values(positions, "positions")
    t = values(times, "times")
    if p.ndim != 2 or p.shape[1] != 3 or len(p) < 1 or t.shape != (len(p),):
        raise ValueError(f"positions (T >= 1, 3) and times (T,) expected, got {p.shape} and "
                         f"{t.shape}")
    if not (np.diff(t) > 0).all():
        raise ValueError(f"times: expected strictly increasing seconds, got {t[:8]}...")
    height, speed = number(height, "height"), number(speed, "speed")
    up = integer(up, "up", 0, 2)
    v = np.linalg.norm(np.gradient(p, t, axis=0), axis=1) if len(t) > 1 else np.zeros(len(t))
    contacts: NDArray[np.bool_] = (p[:, up] - np.min(p[:, up]) <= height) & (v <= speed)
    return contacts


def _segments(contacts: ArrayLike) -> List[Tuple[int, int]]:
    """(start, end) frame ranges of the runs of True"""
    c = np.concatenate([[False], np.asarray(contacts, bool), [False]])
    edges = np.flatnonzero(np.diff(c.astype(np.int8)))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def foot_drift(positions: ArrayLike, contacts: ArrayLike, up: int = 1) -> NDArray[np.float64]:
    """Horizontal distance of a foot from where each contact began, at every contact frame
    (0 elsewhere): (T,).  ValueError for positions not (T, 3) finite, contacts not (T,)."""
    p = values(positions, "positions")
    if p.ndim != 2 or p.shape[1] != 3 or np.shape(contacts) != (len(p),):
        raise ValueError(f"positions (T, 3) and contacts (T,) expected, got {p.shape} and "
                         f"{np.shape(contacts)}")
    up = integer(up, "up", 0, 2)
    out = np.zeros(len(p))
    horiz = [a for a in range(3) if a != up]
    for a, b in _segments(contacts):
        out[a:b] = np.linalg.norm(p[a:b][:, horiz] - p[a][horiz], axis=1)
    return out


def _weights(contacts: ArrayLike, blend: int) -> NDArray[np.float64]:
    """1 on contact frames, ramping linearly to 0 over ``blend`` frames on either side"""
    c = np.asarray(contacts, bool)
    w = c.astype(np.float64)
    idx = np.flatnonzero(c)
    if blend > 0 and idx.size:
        dist = np.abs(np.arange(len(c))[:, None] - idx[None, :]).min(axis=1)
        w = np.maximum(w, np.clip(1.0 - dist / (blend + 1.0), 0.0, 1.0))
    return w


def _targets(p: NDArray[np.floating[Any]], contacts: ArrayLike,
             blend: int) -> NDArray[np.floating[Any]]:
    """the foot held where each contact began; around a contact the held point blends back"""
    target = p.copy()
    segments = _segments(contacts)
    for a, b in segments:           # the fades first: a contact's own frames win
        target[max(0, a - blend):min(len(p), b + blend)] = p[a]
    for a, b in segments:
        target[a:b] = p[a]
    return target


def lock_feet(model: Model, clip: ClipLike, times: Optional[ArrayLike] = None,
              height: float = 0.03, speed: float = 0.5,
              legs: Optional[Dict[str, Sequence[str]]] = None, blend: int = 3
              ) -> Tuple[Clip, Dict[str, NDArray[Any]]]:
    """Pin the feet of ``model`` playing ``clip`` during their contacts.

    Parameters
    ----------
    model : Model
        A humanoid whose joint names a preset knows (``skinkit.model.joint_names``), or any model
        with ``legs`` given.
    clip : Clip, int or str
    times : (T,) seconds, default the union of the clip's key times.
    height, speed : contact thresholds (``foot_contacts``), model units and units per second.
    legs : {"left": (hip, knee, ankle) joint names, ...}; default the canonical legs.
    blend : frames over which the IK fades in before and out after a contact.

    Returns
    -------
    clip : Clip
        LINEAR keys at ``times``: every channel of ``clip`` resampled, the hips' and knees'
        rotations corrected by two-bone IK (pole vector: the knee's current side, mid axis:
        the knee's hinge where it bends most in the clip) toward the ankle's position where its contact began.
    contacts : dict leg -> bool (T,)

    Raises
    ------
    TypeError, ValueError
        as ``foot_contacts`` for times and thresholds, a negative blend, more times x joints
        than skinkit.limits.MAX_SAMPLES, leg joints the model lacks.
    """
    c = model.clip(clip)
    if times is None:
        times = np.unique(np.concatenate([ch.times for ch in c.channels]))
    times = values(times, "times")
    blend = integer(blend, "blend")
    names = list(model.skeleton.names)
    error = count_error(times.size * len(names), "MAX_SAMPLES", "joint samples (times x joints)")
    if error:
        raise ValueError(f"times: {error}")
    chains: Dict[str, Sequence[Optional[str]]]
    if legs is None:
        canon = canonical_names(names)
        chains = {side: tuple(names[canon.index(j)] for j in chain)
                  for side, chain in LEGS.items()}
    else:
        chains = dict(legs)
    for side, chain in chains.items():
        if isinstance(chain, str) or len(chain) != 3:
            raise ValueError(f"legs[{side!r}]: expected (hip, knee, ankle) joint names, got "
                             f"{chain!r}")
        missing = [n for n in chain if n not in names]
        if missing:
            raise ValueError(f"legs[{side!r}]: {missing[0]!r} is not a joint of the model "
                             f"(joints such as {names[:4]})")
    tr, ro, sc = (np.array(a, np.float64) for a in model.local_pose(c, times))
    parents = np.asarray(model.skeleton.parents)
    world = kernels.forward_kinematics(parents, ro, tr, sc)
    contacts = {}
    new_ro = ro.copy()
    for side, chain in chains.items():
        h, k, a = (names.index(n) for n in chain)
        p = world[:, :, :3, 3]
        contact = foot_contacts(p[:, a], times, height, speed)
        contacts[side] = contact
        target = _targets(p[:, a], contact, blend)
        upper, lower = p[:, k] - p[:, h], p[:, a] - p[:, k]
        pole = upper - lower
        # the knee's hinge in its own frame, from the frame where it bends most (a straight leg
        # has none)
        hinge = np.cross(lower, upper)
        f = int(np.argmax(np.linalg.norm(hinge, axis=1)))
        rk = world[f, k, :3, :3] / np.linalg.norm(world[f, k, :3, :3], axis=-2, keepdims=True)
        axis = rk.T @ hinge[f]
        qs, qm, _ = ik_two_bone(world[:, h], world[:, k], world[:, a], target, pole, axis,
                                weight=_weights(contact, blend))
        new_ro[:, h] = kernels.quat_multiply(ro[:, h], qs)
        new_ro[:, k] = kernels.quat_multiply(ro[:, k], qm)
    animated = {(ch.node, ch.path) for ch in c.channels}
    by_path = {"translation": tr, "rotation": new_ro, "scale": sc}
    chans = [Channel(node, path, times, by_path[path][:, node])
             for node, path in sorted(animated) if path in by_path]
    for side, chain in chains.items():
        for n in chain[:2]:
            j = names.index(n)
            if (j, "rotation") not in animated:
                chans.append(Channel(j, "rotation", times, new_ro[:, j]))
    return Clip(c.name, chans, np.float64), contacts
