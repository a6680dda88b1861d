"""Pose blending: weighted layers, pose differences and additive layers.  Thin wrappers over the
C kernels of ``skinkit._core`` (src/blend.c).

A pose is a tuple ``(rotations (..., J, 4), translations (..., J, 3), scales (..., J, 3))`` of
local transforms, the order of ozz-animation's jobs; ``Model.local_pose`` returns a
``skinkit.clip.TRS`` named tuple (translations, rotations, scales), which every tuple argument
here (``rest``, ``out``, ``reference``, ``pose``, ``base``, ``delta``) also accepts, read by
name.  dtypes, broadcasting, ``out=`` and ``threads=`` follow the conventions of
``skinkit.kernels``.
"""
from __future__ import annotations

import numpy as np

from . import _core
from .clip import TRS
from .kernels import _asarray

__all__ = ["blend_poses", "pose_delta", "additive_pose"]


def _triple(x, name):
    """A pose as (rotations, translations, scales); a ``skinkit.clip.TRS`` is read by name."""
    if isinstance(x, TRS):
        return x.rotations, x.translations, x.scales
    if not isinstance(x, (tuple, list)) or len(x) != 3:
        raise TypeError(f"{name} must be a tuple (rotations, translations, scales), got "
                        f"{type(x).__name__}" + (f" of length {len(x)}"
                                                 if isinstance(x, (tuple, list)) else ""))
    return tuple(x)


def blend_poses(rotations, translations, scales, weights, rest=None, threshold=0.1, out=None,
                threads=None):
    """Blend L layers of poses with weights, per joint, as ozz-animation's ``BlendingJob``.

    Parameters
    ----------
    rotations : (..., L, J, 4) local rotations (x, y, z, w) of each layer.
    translations : (..., L, J, 3).  scales : (..., L, J, 3).
    weights : (..., L) one weight per layer, or (..., L, J) per layer and joint (an array whose
        last two dimensions are (L, J) is read per joint).  A weight <= 0 leaves the layer out
        (for that joint), as in ozz.
    rest : optional tuple (rotations (..., J, 4), translations (..., J, 3), scales (..., J, 3)),
        the rest (bind) pose.
    threshold : float > 0.  Where a joint's total weight is below it and ``rest`` is given, the
        rest pose is blended in with weight ``threshold - total``.
    out : optional tuple of three arrays for the results.

    Returns
    -------
    rotations (..., J, 4), translations (..., J, 3), scales (..., J, 3)
        Translations and scales: the weighted means.  Rotations: the weighted sum, each
        quaternion first put in the hemisphere of the first layer with a positive weight for
        that joint (q and -q are the same rotation), normalized.  A joint with no weight at all
        (total 0, no rest) gets the identity (rotation (0, 0, 0, 1), translation 0, scale 1).

    Raises
    ------
    ValueError
        Shapes that do not match (the message names the argument), threshold not > 0.
    TypeError
        ``rest`` or ``out`` not a tuple of three.

    Notes
    -----
    ozz-animation, ``ozz::animation::BlendingJob`` (include/ozz/animation/runtime/
    blending_job.h): normalized weighted sums of the layers; the rest pose fills the weight up
    to ``threshold``.  Normalized quaternion sums ("nlerp") are exact for two layers up to the
    speed along the arc and commutative for any number.
    """
    threshold = float(threshold)
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    r, w = _asarray(rotations), _asarray(weights)
    if r.ndim >= 3 and (w.ndim < 2 or w.shape[-2:] != r.shape[-3:-1]):
        w = np.broadcast_to(w[..., None], w.shape + r.shape[-2:-1])   # per layer -> (..., L, J)
    rest = (None, None, None) if rest is None else _triple(rest, "rest")
    out = None if out is None else _triple(out, "out")
    return _core._blend_poses(r, translations, scales, w, threshold, *rest, out, threads)


def pose_delta(reference, pose, out=None, threads=None):
    """The difference that takes ``reference`` to ``pose``, for an additive layer.

    Parameters
    ----------
    reference, pose : tuples (rotations (..., J, 4), translations (..., J, 3),
        scales (..., J, 3)); they broadcast against each other.
    out : optional tuple of three arrays.

    Returns
    -------
    rotations ``normalize(r_ref)^-1 r``, translations ``t - t_ref``, scales ``s / s_ref``:
    (..., J, 4), (..., J, 3), (..., J, 3).

    Notes
    -----
    three.js ``AnimationUtils.makeClipAdditive`` for rotation and translation (the reference
    rotation normalized, then conjugated, on the left); ozz-animation's additive convention for
    scale (a ratio).  ``additive_pose(reference, pose_delta(reference, pose), 1)`` is ``pose``.
    """
    ref, cur = _triple(reference, "reference"), _triple(pose, "pose")
    out = None if out is None else _triple(out, "out")
    return _core._pose_delta(*ref, *cur, out, threads)


def additive_pose(base, delta, weight=1.0, out=None, threads=None):
    """Apply an additive layer ``delta`` (from ``pose_delta``) to ``base`` with ``weight``.

    Parameters
    ----------
    base, delta : tuples (rotations (..., J, 4), translations (..., J, 3), scales (..., J, 3)).
    weight : float, or (..., J) per joint (0 gives ``base``, 1 the whole delta; other values
        scale it, negative ones subtract it).
    out : optional tuple of three arrays.

    Returns
    -------
    rotations ``r_base slerp(identity, dr, w)``, translations ``t_base + w dt``, scales
    ``s_base (1 + w (ds - 1))``: (..., J, 4), (..., J, 3), (..., J, 3).

    Notes
    -----
    three.js ``PropertyMixer`` additive blending (``_slerpAdditive``: slerp from the base
    to base times delta, on the shortest path) for rotation and translation; ozz-animation's
    ``BlendingJob`` additive layers for scale.
    """
    b, d = _triple(base, "base"), _triple(delta, "delta")
    out = None if out is None else _triple(out, "out")
    return _core._additive_pose(*b, *d, weight, out, threads)
