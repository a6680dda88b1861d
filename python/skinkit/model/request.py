"""A pose request: what to pose, resolved against a model and checked once.

As ozz-animation's jobs validate every input before ``Run()``, ``PoseRequest.build`` resolves the
clips, the times, the dtype, the time mode (clamp or loop), the skinning method, the blend layers
and the outputs into one frozen record; the stages of ``skinkit.pose`` then trust it.  Each rule
has one owner here: the clip lookup (``resolve_clip``), the frame times (``frame_times``), the
times (``as_times`` in ``skinkit.model.clip``), the blend weights, the skinning names.

Times need not be held: a request for a clip at a frame rate keeps only the rate and the frame
count, and ``times_at(start, stop)`` gives the times of a block, so streaming a long clip in
blocks (``Model.pose_blocks``) holds no array of the clip's length.
"""
from __future__ import annotations

import logging
import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .clip import Clip, SampledClip, as_times
from ..kernels.skinning import SKINNING

__all__ = ["PoseRequest", "frame_count", "frame_times", "resolve_clip"]

if TYPE_CHECKING:
    from .records import Posable

ClipLike = Union[Clip, int, str, None]
PoseClip = Union[ClipLike, SampledClip]
"""What posing takes: a model's clip (object, index, name), None, or any ``SampledClip`` (a
compressed clip)."""
BlendLayers = Sequence[Tuple[PoseClip, ArrayLike]]
"""The layers of a blend: (clip, weight) pairs, a weight a number or an array (T,)."""
DEFAULT_FPS = 30.0
MAX_FRAMES = 2.0**53   # frame indices exact in float64; far beyond any memory or disk
_log = logging.getLogger("skinkit")


def resolve_clip(model: Posable, clip: ClipLike) -> Optional[Clip]:
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


def resolve_sampled(model: Posable, clip: PoseClip) -> Optional[SampledClip]:
    """``resolve_clip``, and a ``SampledClip`` that is no Clip (a compressed clip) as is."""
    if isinstance(clip, SampledClip) and not isinstance(clip, Clip):
        return clip
    return resolve_clip(model, clip)


def _available(clips: Sequence[Clip]) -> str:
    if not clips:
        return "the model has no clips"
    names = ", ".join(f"{i}: {c.name!r}" for i, c in enumerate(clips))
    return f"available clips are {names}"


def _check_rate(duration: float, fps: float) -> Tuple[float, float]:
    duration, fps = float(duration), float(fps)
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps}")
    if not (math.isfinite(duration) and duration >= 0):
        raise ValueError(f"duration must be finite and >= 0, got {duration}")
    return duration, fps


def frame_count(duration: float, fps: float) -> int:
    """``len(frame_times(duration, fps))``, without making the times: ``ceil(duration * fps)
    + 1``.  Raises ValueError as ``frame_times``."""
    duration, fps = _check_rate(duration, fps)
    x = duration * fps
    if not x < MAX_FRAMES:
        raise ValueError(f"{duration} s at {fps} frames per second are {x:.3g} frames, more "
                         f"than any array holds ({MAX_FRAMES:.3g})")
    return int(math.ceil(x - 1e-9 * max(1.0, x))) + 1


def frame_times(clip: Union[SampledClip, float], fps: float = DEFAULT_FPS, start: int = 0,
                stop: Optional[int] = None) -> NDArray[np.float64]:
    """Frame times covering a clip: 0, 1/fps, 2/fps, ... up to and including its duration.

    Parameters
    ----------
    clip : Clip (any SampledClip) or float
        The clip, or a duration in seconds (>= 0).
    fps : float
        Frames per second, > 0.
    start, stop : int, optional
        Only frames ``start`` to ``stop`` (excluded; default: to the end), as
        ``frame_times(clip, fps)[start:stop]`` would give them.

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
    duration = float(clip.duration if isinstance(clip, SampledClip) else clip)
    n = frame_count(duration, fps)
    start, stop, _ = slice(start, stop).indices(n)
    t = np.arange(start, max(start, stop), dtype=np.float64) / float(fps)
    if stop == n and stop > start:
        t[-1] = duration if n > 1 else 0.0
    return t


@dataclass(frozen=True, eq=False)
class PoseRequest:
    """What to pose, resolved and checked: build it with ``PoseRequest.build`` (or
    ``Model.request``), pose it with ``Model.pose`` or, block by block, ``Model.pose_blocks``.

    Attributes
    ----------
    clips : tuple of (Clip or None)
        The clip to play (None: the rest pose), or the layers of a blend.
    blend_weights : float64 array (T, L) or None
        One weight per time and layer for a blend; None for a single clip.
    count : int
        T, the number of times.
    fps : float or None
        For a clip at a frame rate: its frames are ``frame_times(clips[0], fps)`` (not held).
    loop : bool
        Wrap times into [0, duration) (True) or clamp them to the clip (False).
    skinning : {"lbs", "dqs"}
    normals : bool
        Also pose the normals of the primitives that have them.
    joints : bool
        Also give the world position of every node (``PosedMeshes.joints``).
    dtype : numpy.dtype
        float32 or float64, the precision of every result (the first clip's, else the model's).
    """

    clips: Tuple[Optional[SampledClip], ...]
    blend_weights: Optional[NDArray[Any]]
    count: int
    fps: Optional[float]
    loop: bool
    skinning: str
    normals: bool
    joints: bool
    dtype: np.dtype[Any]
    _times: Optional[NDArray[Any]] = None

    @classmethod
    def build(cls, model: Posable, clip: PoseClip = None, times: Optional[ArrayLike] = None, *,
              fps: Optional[float] = None, loop: Optional[bool] = None, normals: bool = False,
              skinning: str = "lbs", blend: Optional[BlendLayers] = None,
              joints: bool = False) -> "PoseRequest":
        """Resolve and check a request against ``model``.

        Parameters
        ----------
        model : Model
        clip : Clip, int, str, CompressedClip or None
            The clip to play (object, index into ``model.clips`` or name, or any
            ``SampledClip``: a compressed clip); None for the rest pose (the skeleton's default
            TRS).
        times : float or array-like (T,), optional
            Seconds.  Default: for the rest pose one frame; for a clip its frames at ``fps``.
        fps : float, optional
            Frames per second covering the whole clip, both ends included (``frame_times``);
            default 30.  Not with ``times``.
        loop : bool or None
            True wraps times into [0, duration) (``Clip.sample``); False clamps them to the
            clip; None (the default) clamps them too, and logs one warning on the ``skinkit``
            logger when some fall outside the clip.
        normals, joints : bool
            The outputs besides positions: normals of the primitives that have them, world
            positions of every node.
        skinning : {"lbs", "dqs"}
            Linear blend or dual quaternion skinning.
        blend : sequence of (clip, weight), optional
            Pose a blend of clips instead of ``clip``: a weight is a number or an array (T,),
            one per time.  Default times: those of the first clip.

        Returns
        -------
        PoseRequest

        Raises
        ------
        ValueError
            An unknown clip (the message lists the available ones) or skinning method, times
            empty or not finite, fps not positive, both ``times`` and ``fps``, both ``clip`` and
            ``blend``, blend weights of another length than the times.
        TypeError
            Times that are not real numbers, a clip of another type.
        """
        if skinning not in SKINNING:
            raise ValueError(f"skinning must be one of {', '.join(map(repr, SKINNING))}, got "
                             f"{skinning!r}")
        if blend is None:
            clips: Tuple[Optional[SampledClip], ...] = (resolve_sampled(model, clip),)
            pairs = None
        elif clip is not None:
            raise ValueError("give either clip or blend, not both")
        else:
            pairs = list(blend)
            if not pairs or not all(isinstance(b, (tuple, list)) and len(b) == 2
                                    for b in pairs):
                raise ValueError("blend must be a non-empty sequence of (clip, weight) pairs")
            clips = tuple(resolve_sampled(model, c) for c, _ in pairs)
        first = clips[0]
        dtype = first.dtype if first is not None else _model_dtype(model)
        held, rate, count = _times(first, times, fps, dtype)
        weights = None if pairs is None else _blend_weights([w for _, w in pairs], count)
        if loop is None and held is not None:
            _warn_outside(clips, held)
        if held is not None:
            if times is not None and np.shares_memory(held, np.asarray(times)):
                held = held.copy()          # the caller's array stays theirs, and writeable
            held.flags.writeable = False
        return cls(clips, weights, count, rate, bool(loop), skinning, bool(normals),
                   bool(joints), np.dtype(dtype), held)

    @property
    def clip(self) -> Optional[SampledClip]:
        """The clip played (the first layer of a blend)."""
        return self.clips[0]

    @property
    def times(self) -> NDArray[Any]:
        """All T times (seconds), in ``dtype``."""
        return self.times_at(0, self.count)

    def times_at(self, start: int, stop: int) -> NDArray[Any]:
        """The times of frames ``start`` to ``stop`` (excluded), in ``dtype``."""
        if self._times is None and self.clip is not None and self.fps is not None:
            return frame_times(self.clip, self.fps, start, stop).astype(self.dtype)
        assert self._times is not None   # build holds the times unless it keeps a rate
        return self._times[start:stop]

    def weights_at(self, start: int, stop: int) -> Optional[NDArray[Any]]:
        """The blend weights (B, L) of frames ``start`` to ``stop``, or None."""
        return None if self.blend_weights is None else self.blend_weights[start:stop]

    def __repr__(self) -> str:
        names = ", ".join("rest" if c is None else repr(c.name) for c in self.clips)
        what = f"blend of {names}" if self.blend_weights is not None else f"clip {names}"
        outputs = "positions" + ", normals" * self.normals + ", joints" * self.joints
        return (f"PoseRequest({what}, {self.count} times"
                + (f" at {self.fps:g} fps" if self.fps else "")
                + f", {'loop' if self.loop else 'clamp'}, {self.skinning}, {outputs}, "
                f"{self.dtype.name})")


def _model_dtype(model: Posable) -> np.dtype[Any]:
    dt = np.asarray(model.skeleton.translations).dtype
    return dt if dt in (np.float32, np.float64) else np.dtype(np.float64)


def _times(clip: Optional[SampledClip], times: Optional[ArrayLike], fps: Optional[float],
           dtype: DTypeLike) -> Tuple[Optional[NDArray[Any]], Optional[float], int]:
    """(held times or None, frame rate or None, count): explicit times as given, the rest
    pose's one frame, or a clip's frames at ``fps`` (not held)."""
    if times is not None and fps is not None:
        raise ValueError("give either times or fps, not both")
    if times is not None:
        t = as_times(times, dtype)
        if t.size == 0:
            raise ValueError("times must hold at least one time")
        return t, None, len(t)
    if clip is None:
        return np.zeros(1, dtype), None, 1
    rate = DEFAULT_FPS if fps is None else float(fps)
    return None, rate, frame_count(clip.duration, rate)


def _blend_weights(weights: Iterable[ArrayLike], count: int) -> NDArray[np.float64]:
    try:
        return np.stack([np.broadcast_to(np.asarray(w, np.float64), (count,)) for w in weights],
                        1)
    except (ValueError, TypeError):
        raise ValueError(f"each blend weight must be a number or an array of {count} weights "
                         "(one per time)") from None


def _warn_outside(clips: Iterable[Optional[SampledClip]], times: NDArray[Any]) -> None:
    """One warning when times fall outside a clip that will clamp them."""
    lo, hi = float(times.min()), float(times.max())
    for c in clips:
        if c is not None and (lo < 0 or hi > c.duration):
            _log.warning("times %g..%g s reach outside clip %r (0..%g s): clamped to it "
                         "(loop=True or --loop wraps them; loop=False or --clamp clamps without "
                         "this warning)", lo, hi, c.name, c.duration)
            return
