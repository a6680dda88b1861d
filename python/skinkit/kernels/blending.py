"""Pose blending: weighted layers, pose differences and additive layers.  Thin wrappers over the
C kernels of ``skinkit._core`` (src/blend.c).

A pose is a tuple ``(rotations (..., J, 4), translations (..., J, 3), scales (..., J, 3))`` of
local transforms, the order of ozz-animation's jobs; ``Model.local_pose`` returns a
``skinkit.model.clip.TRS`` named tuple (translations, rotations, scales), which every tuple argument
here (``rest``, ``out``, ``reference``, ``pose``, ``base``, ``delta``) also accepts, read by
name.  dtypes, broadcasting, ``out=`` and ``threads=`` follow the conventions of
``skinkit.kernels``.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, TypeVar, Union, overload

import numpy as np
from numpy.typing import NDArray

from .. import _core
from ._generated import Float, Input, Out
from .trs import TRS
from .wrappers import _asarray

Pose = Union[TRS, Sequence[Input]]
"""(rotations, translations, scales), or a ``TRS`` read by name."""
PoseOut = Optional[Union[TRS, Sequence[Out]]]
"""An ``out=`` pose: three arrays, or None."""
_T = TypeVar("_T")

__all__ = ["blend_poses", "pose_delta", "additive_pose"]


@overload
def _triple(x: TRS, name: str) -> Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]: ...
@overload
def _triple(x: Sequence[_T], name: str) -> Tuple[_T, _T, _T]: ...
def _triple(x: Union[TRS, Sequence[Any]], name: str) -> Tuple[Any, Any, Any]:
    """A pose as (rotations, translations, scales); a ``skinkit.model.clip.TRS`` is read by name."""
    if isinstance(x, TRS):
        return x.rotations, x.translations, x.scales
    if not isinstance(x, (tuple, list)) or len(x) != 3:
        raise TypeError(f"{name} must be a tuple (rotations, translations, scales), got "
                        f"{type(x).__name__}" + (f" of length {len(x)}"
                                                 if isinstance(x, (tuple, list)) else ""))
    return x[0], x[1], x[2]


def blend_poses(rotations: Input, translations: Input, scales: Input, weights: Input,
                rest: Optional[Pose] = None, threshold: float = 0.1, out: PoseOut = None,
                threads: Optional[int] = None) -> Tuple[Float, Float, Float]:
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
    rest_r, rest_t, rest_s = (None, None, None) if rest is None else _triple(rest, "rest")
    out_ = None if out is None else _triple(out, "out")
    return _core._blend_poses(r, translations, scales, w, threshold, rest_r, rest_t, rest_s, out_,
                              threads)


def pose_delta(reference: Pose, pose: Pose, out: PoseOut = None,
               threads: Optional[int] = None) -> Tuple[Float, Float, Float]:
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
    out_ = None if out is None else _triple(out, "out")
    return _core._pose_delta(*ref, *cur, out_, threads)


def additive_pose(base: Pose, delta: Pose, weight: Input = 1.0, out: PoseOut = None,
                  threads: Optional[int] = None) -> Tuple[Float, Float, Float]:
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
    out_ = None if out is None else _triple(out, "out")
    return _core._additive_pose(*b, *d, weight, out_, threads)
