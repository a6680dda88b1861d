"""Animation clips: keyframe channels sampled by the C kernel in one call.

The math is glTF 2.0 section 3.11 "Animations" (samplers) and Appendix C "Interpolation":
STEP holds the previous key; LINEAR lerps translations and scales and slerps rotations on the
shortest path; CUBICSPLINE is the cubic Hermite spline with in/out tangents scaled by the key
interval.  Every sampled rotation is a unit quaternion, also from keys that are not: STEP and
LINEAR keys are normalized when the clip is built (slerp of unit keys stays unit), CUBICSPLINE
values after interpolation, as Blender and ozz-animation do (three.js uses them as given:
docs/conventions.rst).  A weights channel has any number of components (one per morph target).
Before the first key a channel holds its first value, after the last key its last value.
"""
from __future__ import annotations

import functools
import operator
import sys
from dataclasses import dataclass
from typing import (TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional, Protocol, Sequence,
                    Tuple, runtime_checkable)

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .. import _core
from ..kernels._checks import check_out
from ..kernels.trs import TRS
from .summary import plural, table

INTERPOLATIONS = ("STEP", "LINEAR", "CUBICSPLINE")
PATHS = {"translation": 3, "rotation": 4, "scale": 3}   # the TRS paths, and their components
WEIGHTS = "weights"   # morph target weights: one component per target (glTF 2.0 section 3.11)
_PATH_INDEX = {**{p: i for i, p in enumerate(PATHS)}, WEIGHTS: len(PATHS)}
CLIP_HEADER = ("clip", "name", "duration", "channels", "interpolations", "unsupported")


@dataclass(repr=False)
class Channel:
    """Keyframes of one node property.

    Attributes
    ----------
    node : int
        Index of the animated node (joint).
    path : {"translation", "rotation", "scale", "weights"}
    times : float array (K,)
        Key times in seconds, strictly increasing.
    values : float array (K, C) or (3 K, C) for CUBICSPLINE
        C = 3 for translation and scale, 4 for rotation (x, y, z, w), M >= 1 for the morph
        target weights of the node's mesh.  CUBICSPLINE stores, per key, the in-tangent, the
        value and the out-tangent (glTF 2.0 Appendix C).
    interpolation : {"STEP", "LINEAR", "CUBICSPLINE"}
    """

    node: int
    path: str
    times: NDArray[Any]
    values: NDArray[Any]
    interpolation: str = "LINEAR"

    def __post_init__(self) -> None:
        if self.path not in PATHS and self.path != WEIGHTS:
            raise ValueError(f"channel path must be one of {sorted(PATHS) + [WEIGHTS]}, "
                             f"got {self.path!r}")
        if self.interpolation not in INTERPOLATIONS:
            raise ValueError(
                f"channel interpolation must be one of {INTERPOLATIONS}, got {self.interpolation!r}")
        try:
            node = operator.index(self.node)
        except TypeError:
            raise TypeError(f"channel node must be an integer, got {self.node!r:.40}") from None
        if not 0 <= node < 2**62:
            raise ValueError(f"channel node must be a node index >= 0, got {node}")
        times = np.asarray(self.times)
        values = np.asarray(self.values)
        for name, a in (("times", times), ("values", values)):
            if a.dtype.kind not in "iuf":
                raise TypeError(f"channel {name} must be a real number array, got dtype {a.dtype}")
        if times.ndim != 1 or times.size == 0:
            raise ValueError(f"channel times must have shape (K,) with K >= 1, got {times.shape}")
        if not np.all(np.isfinite(times)) or np.any(np.diff(times) <= 0):
            raise ValueError("channel times must be finite and strictly increasing")
        per_key = 3 if self.interpolation == "CUBICSPLINE" else 1
        width = PATHS.get(self.path, values.shape[-1] if values.ndim == 2 else 1)
        expected = (per_key * times.size, max(width, 1))
        if values.shape != expected:
            raise ValueError(f"{self.path} channel values must have shape {expected} for "
                             f"{times.size} {self.interpolation} keys, got {values.shape}")
        self.times, self.values = times, values     # arrays (a list given is converted)

    def __repr__(self) -> str:
        times = self.times
        span = f"{float(times[0]):g}-{float(times[-1]):g} s" if times.size else "no keys"
        return (f"Channel(node={self.node}, path={self.path!r}, {plural(times.size, 'key')}, "
                f"{self.interpolation}, {span})")


def as_times(times: ArrayLike, dtype: DTypeLike) -> NDArray[Any]:
    """``times`` as a C-contiguous 1-D array of ``dtype``; the one check of sampling times.

    Raises TypeError if they are not real numbers, ValueError if one is not finite.
    """
    t = np.asarray(times)
    if t.dtype.kind not in "iuf":
        raise TypeError(f"times must be real numbers, got dtype {t.dtype}")
    with np.errstate(over="ignore"):            # past the dtype's range: inf, refused
        t = np.require(t.reshape(-1), dtype, ["C", "A"])
    if not np.isfinite(t).all():
        raise ValueError(f"times must be finite {t.dtype} numbers")
    return t


def _sampler_values(ch: Channel) -> NDArray[Any]:
    """The key values the sampler reads: STEP and LINEAR rotation keys as unit quaternions (a zero
    key as the identity), as ozz-animation's AnimationBuilder stores them, so that slerp, which is
    defined on unit quaternions, and the held keys give rotations; CUBICSPLINE keys as given (the
    sampler normalizes the spline's value, glTF 2.0 Appendix C)."""
    if ch.path != "rotation" or ch.interpolation == "CUBICSPLINE":
        return np.asarray(ch.values)
    return _core.quat_normalize(np.asarray(ch.values, np.float64), None, None)


class ClipTable(NamedTuple):
    """A clip's channels packed for the C sampler (``sk_clip`` in src/skinkit.h, whose check
    ``sk_check_clip`` runs on every sampling call): channel c has ``nkeys[c]`` key times at
    ``key_times[key_offset[c]:]`` and its key values at ``values[value_offset[c]:]``, ``ncomp[c]``
    components each (three values per key for CUBICSPLINE), interpolation ``interp[c]`` (an index
    into INTERPOLATIONS), ``rotation[c]`` 1 for quaternions (STEP and LINEAR rotation keys
    normalized: ``_sampler_values``).  ``node`` and ``path`` (an index
    into PATHS, or 3 for morph weights) say where each channel's samples go; the channels are
    ordered by path.  ``prepared`` (``sk_prepare_clip``) holds, for each key of a LINEAR rotation
    channel, its slerp constants (angle, sine, cosine, sign) at the key's value offset, so that a
    sample needs one sine/cosine pair and no arc tangent, and then the keys of the lane groups
    (runs of LINEAR rotation or 3-vector channels sharing key times, sampled side by side with
    AVX2: src/sample.c); None (such as the morph weights table, whose LINEAR channels are plain
    lerps) leaves it out."""

    key_times: NDArray[Any]
    values: NDArray[Any]
    key_offset: NDArray[Any]
    nkeys: NDArray[Any]
    value_offset: NDArray[Any]
    ncomp: NDArray[Any]
    interp: NDArray[Any]
    rotation: NDArray[Any]
    node: NDArray[Any]
    path: NDArray[Any]
    prepared: Optional[NDArray[Any]] = None

    @classmethod
    def pack(cls, channels: Sequence[Channel], dtype: DTypeLike) -> "ClipTable":
        c = sorted(channels, key=lambda ch: _PATH_INDEX[ch.path])    # one output run per path
        nkeys = np.array([ch.times.size for ch in c], dtype=np.int64)
        sizes = np.array([np.size(ch.values) for ch in c], dtype=np.int64)
        # each distinct key-time array once: the sampler finds a block's key intervals once for
        # all the channels that share them (sk_block_keys, src/sample_keys.h)
        offsets: Dict[bytes, int] = {}
        key_times, key_offset, size = [], [], 0
        for ch in c:
            kt = np.asarray(ch.times).astype(dtype)
            if kt.tobytes() not in offsets:
                offsets[kt.tobytes()] = size
                key_times.append(kt)
                size += kt.size
            key_offset.append(offsets[kt.tobytes()])
        return cls(
            key_times=np.concatenate(key_times or [np.zeros(0)]).astype(dtype),
            values=np.concatenate([np.ravel(_sampler_values(ch)) for ch in c]
                                  or [np.zeros(0)]).astype(dtype),
            key_offset=np.array(key_offset, dtype=np.int64),
            nkeys=nkeys,
            value_offset=np.cumsum(sizes) - sizes,
            ncomp=np.array([np.shape(ch.values)[1] for ch in c], dtype=np.int32),
            interp=np.array([INTERPOLATIONS.index(ch.interpolation) for ch in c], dtype=np.int32),
            rotation=np.array([ch.path == "rotation" for ch in c], dtype=np.int32),
            node=np.array([ch.node for ch in c], dtype=np.int64),
            path=np.array([_PATH_INDEX[ch.path] for ch in c], dtype=np.int64))


@runtime_checkable
class SampledClip(Protocol):
    """What posing needs of a clip (``skinkit.model.pose``): a ``Clip``, or a compressed clip
    (``skinkit.motion.CompressedClip``, sampled straight from its codes).  ``sample`` and
    ``sample_weights`` as ``Clip``'s: the same arguments, shapes, dtypes and errors."""

    name: Optional[str]
    dtype: np.dtype[Any]

    @property
    def duration(self) -> float: ...

    @property
    def weights_nodes(self) -> List[int]: ...

    def sample(self, times: ArrayLike, rest: Tuple[ArrayLike, ArrayLike, ArrayLike],
               loop: bool = False, threads: Optional[int] = None) -> TRS: ...

    def sample_weights(self, times: ArrayLike, loop: bool = False,
                       threads: Optional[int] = None) -> Dict[int, NDArray[Any]]: ...


class Clip:
    """A named set of channels, sampled all at once.

    Parameters
    ----------
    name : str or None
    channels : sequence of Channel
    dtype : float32 or float64
        Precision of the packed keys and of every sample.
    unsupported : sequence of str
        Descriptions of channels the source held but skinkit does not play.
    """


    def __init__(self, name: Optional[str], channels: Sequence[Channel],
                 dtype: DTypeLike = np.float64, unsupported: Sequence[str] = ()):
        self.name = name
        self.channels: List[Channel] = list(channels)
        self.unsupported = list(unsupported)
        self.dtype: np.dtype[Any] = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise TypeError(f"clip dtype must be float32 or float64, got {self.dtype}")
        self.duration = float(max((ch.times[-1] for ch in self.channels), default=0.0))
        table = ClipTable.pack([ch for ch in self.channels if ch.path in PATHS], self.dtype)
        self._table = table._replace(prepared=_core.prepare_clip(table))
        self._layouts: Dict[int, Tuple[Tuple[NDArray[Any], ...], NDArray[Any], NDArray[Any]]] = {}
        # a weights channel is one channel of the sampler, whatever its number of targets
        self._weights = ClipTable.pack([ch for ch in self.channels if ch.path == WEIGHTS],
                                       self.dtype)
        nodes = self._weights.node.tolist()
        if len(set(nodes)) != len(nodes):
            raise ValueError(f"clip {name!r} has several weights channels for one node")

    def __reduce__(self) -> Tuple[type, Tuple[Any, ...]]:
        # pickle the channels only; the packed arrays are rebuilt on load
        return (Clip, (self.name, self.channels, self.dtype, self.unsupported))

    @property
    def interpolations(self) -> List[str]:
        """The distinct interpolations used by the channels, in first-use order."""
        return list(dict.fromkeys(ch.interpolation for ch in self.channels))

    @property
    def weights_nodes(self) -> List[int]:
        """The nodes whose morph target weights the clip animates."""
        nodes: List[int] = self._weights.node.tolist()
        return nodes

    def _times(self, times: ArrayLike, loop: bool) -> Tuple[NDArray[Any], Tuple[int, ...]]:
        """times as a flat C array of the clip's dtype (wrapped with ``loop``), and its shape."""
        t = np.asarray(times)
        shape = t.shape
        t = as_times(t, self.dtype)
        if loop and self.duration > 0:
            t = np.mod(t, np.asarray(self.duration, self.dtype))
        return t, shape

    def sample(self, times: ArrayLike, rest: Tuple[ArrayLike, ArrayLike, ArrayLike],
               loop: bool = False, threads: Optional[int] = None,
               out: Optional[Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]] = None) -> TRS:
        """Sample every translation, rotation and scale channel at ``times``, on top of a rest
        pose (``sample_weights`` samples the morph weights channels).

        Parameters
        ----------
        times : float or array (T,)
            Seconds.  With ``loop``, times are wrapped into [0, duration) first.
        rest : (translations (N, 3), rotations (N, 4), scales (N, 3))
            Local TRS of every node; nodes without a channel keep these values.
        loop : bool
        threads : int or None
            At most this many threads (see ``skinkit.kernels``); channels are shared out.
        out : (translations, rotations, scales) or None
            Arrays to write the result into (and return), shaped and typed as the result and
            C-contiguous, writeable and not overlapping: a loop that samples again and again
            reuses its memory instead of paging in a fresh result each time.

        Returns
        -------
        TRS
            translations (..., N, 3), rotations (..., N, 4), scales (..., N, 3) in the clip's
            dtype; ``...`` is the shape of ``times`` (() for a scalar).  Rotations
            are slerped with per-key constants computed once per clip (one sine/cosine pair
            per sample).

        Raises
        ------
        ValueError
            If a channel targets a node outside the rest pose, a time is not finite, the rest
            arrays are not (N, 3), (N, 4), (N, 3), or an ``out`` array has the wrong shape,
            is not C-contiguous and writeable, or overlaps another.
        TypeError
            If times or rest are not real numbers (complex, str, object...), or ``out`` is not
            a tuple of three arrays of the clip's dtype.
        MemoryError
            If T x N poses cannot be allocated (checked before anything is copied).
        """
        t = np.asarray(times)
        shape = t.shape
        rest_t, rest_r, rest_s = (np.asarray(a) for a in rest)
        n = rest_t.shape[0] if rest_t.ndim else -1
        if rest_t.shape != (n, 3) or rest_r.shape != (n, 4) or rest_s.shape != (n, 3):
            raise ValueError("rest must be translations (N, 3), rotations (N, 4), scales (N, 3); "
                             f"got {rest_t.shape}, {rest_r.shape}, {rest_s.shape}")
        if any(a.dtype.kind not in "iuf" for a in (rest_t, rest_r, rest_s)):
            raise TypeError("rest must be real number arrays, got dtypes "
                            f"{rest_t.dtype}, {rest_r.dtype}, {rest_s.dtype}")
        nodes = self._table.node
        if nodes.size and nodes.max() >= n:
            raise ValueError(f"clip {self.name!r} animates node {int(nodes.max())}, "
                             f"but the rest pose has {n} nodes")
        T = t.size
        shapes = [shape + (n, k) for k in PATHS.values()]
        if out is None:
            if T and n and 10 * n * self.dtype.itemsize > sys.maxsize // T:
                raise MemoryError(f"{T} times x {n} nodes of TRS do not fit in memory")
            res = tuple(np.empty(s, self.dtype) for s in shapes)   # before any copy
        else:
            self._check_out(out, shapes)
            res = out
        t, _ = self._times(t, loop)
        rest_nodes, out_offset, out_stride = self._layout(n)
        for o, r, rest_only in zip(res, (rest_t, rest_r, rest_s), rest_nodes):
            # the rest pose only where no channel writes (a full copy was 7% of a sampling call);
            # fill_rows writes a large one with streaming stores, as the sampler its samples,
            # on the call's threads (on one, it held 2-thread calls to 1.5-1.7 x 1 thread)
            if rest_only.size == n:
                _core.fill_rows(o.reshape(-1), np.require(r, o.dtype, ["C", "A"]).reshape(-1),
                                threads)
            elif rest_only.size:
                o[..., rest_only, :] = r[rest_only]
        _core.sample_channels(self._table, out_offset, out_stride, t,
                              tuple(o.reshape(-1) for o in res), threads)
        return TRS(*res)

    def _layout(self, n: int) -> Tuple[Tuple[NDArray[Any], ...], NDArray[Any], NDArray[Any]]:
        """For a rest pose of n nodes: per path the nodes no channel writes, and the channels'
        output offsets and strides; kept per n (a playback loop samples one time a call, where
        working them out was two thirds of the call)."""
        if n not in self._layouts:
            nodes, ncomp = self._table.node, self._table.ncomp.astype(np.int64)
            rest_nodes = tuple(np.setdiff1d(np.arange(n), nodes[self._table.path == p])
                               for p in range(len(PATHS)))
            self._layouts[n] = (rest_nodes, nodes * ncomp, n * ncomp)
        return self._layouts[n]

    def playback(self, rest: Tuple[ArrayLike, ArrayLike, ArrayLike], loop: bool = False,
                 threads: Optional[int] = None) -> "Playback":
        """A sampler of this clip for one time a call (a game or viewer loop, once a frame):
        see ``Playback``.  ``rest``, ``loop`` and ``threads`` as for ``sample``."""
        return Playback(self, rest, loop, threads)

    def _check_out(self, out: object, shapes: Sequence[Tuple[int, ...]]) -> None:
        if not isinstance(out, tuple) or len(out) != 3:
            raise TypeError("out must be a tuple (translations, rotations, scales), got "
                            f"{type(out).__name__}")
        for i, (o, s) in enumerate(zip(out, shapes)):
            check_out(o, self.dtype, s, f"out[{i}]", " (the clip's dtype)")
        for i in range(3):
            for j in range(i):
                if np.may_share_memory(out[i], out[j]):
                    raise ValueError(f"out[{j}] and out[{i}] overlap")

    def sample_weights(self, times: ArrayLike, loop: bool = False,
                       threads: Optional[int] = None) -> Dict[int, NDArray[Any]]:
        """Sample the morph target weights channels at ``times`` (the C sampler of ``sample``).

        Parameters
        ----------
        times, loop, threads
            As for ``sample``: times in seconds, a float or an array (T,).

        Returns
        -------
        dict
            node -> weights (..., M) for every node with a weights channel, in the clip's dtype;
            ``...`` is the shape of ``times``.  STEP holds, LINEAR lerps (no normalisation),
            CUBICSPLINE is the Hermite spline (glTF 2.0 section 3.11 and Appendix C).

        Raises
        ------
        ValueError, TypeError
            Times not finite or not real numbers.
        """
        table = self._weights
        t, shape = self._times(times, loop)
        ncomp = table.ncomp.astype(np.int64)
        width = int(ncomp.sum())
        buf = np.empty((t.size, width), dtype=self.dtype)
        offset = np.cumsum(ncomp) - ncomp
        _core.sample_channels(table, offset, np.full_like(ncomp, width), t, buf.reshape(-1),
                              threads)
        return {int(node): buf[:, o:o + m].reshape(shape + (int(m),))
                for node, o, m in zip(table.node, offset, ncomp)}

    def __repr__(self) -> str:
        return (f"Clip(name={self.name!r}, duration={self.duration:g} s, "
                f"channels={len(self.channels)}, interpolations={self.interpolations})")

    def _repr_html_(self) -> str:
        rows = [(ch.node, ch.path, np.size(ch.times), ch.interpolation,
                 f"{float(ch.times[0]):g}-{float(ch.times[-1]):g} s") for ch in self.channels]
        head = table(CLIP_HEADER[1:], [self._row(0)[1:]], "Clip")
        return head + table(("node", "path", "keys", "interpolation", "times"), rows, "Channels")

    def _row(self, i: int) -> Tuple[object, ...]:
        """The clip's row in a table of clips (CLIP_HEADER), as clip ``i``."""
        return (i, self.name, f"{self.duration:g} s", len(self.channels),
                "/".join(self.interpolations) or None, "; ".join(self.unsupported) or None)


class Playback(_core.ClipPlayer):
    """A clip sampled one time a call into a pose of its own (``Clip.playback`` makes it).

    A playback loop sampling once a frame would pay ``Clip.sample``'s checks of its arguments
    on every call, most of a call for a skeleton of 64 joints.  A Playback checks the rest pose,
    the clip's table and its own output once (its C base ``_core.ClipPlayer``, which keeps
    copies of the table's offsets) and writes the rest pose once where no channel writes (those
    nodes keep it from call to call).  The C sampler plans the clip once, as ozz-animation's
    SamplingJob Context does (``sk_play_plan`` in src/skinkit.h): its lane groups and where they
    write, each keeping its key interval from one call to the next, so a frame after the last
    one finds its interval without a search.  ``sample`` is the C method itself: a float time
    goes from the call straight to the sampler.  A Playback is for one thread at a time: its
    pose and its key intervals are its own (make one per thread); it cannot be pickled or
    copied (make another).

    Parameters
    ----------
    clip : Clip
    rest : (translations (N, 3), rotations (N, 4), scales (N, 3))
        As for ``Clip.sample``.
    loop : bool
        Times wrapped into [0, duration) first, as ``Clip.sample``'s ``loop``.
    threads : int or None
        As for ``Clip.sample``.

    Raises
    ------
    ValueError, TypeError
        For the rest pose, as ``Clip.sample``.
    """

    def __new__(cls, clip: Clip, rest: Tuple[ArrayLike, ArrayLike, ArrayLike],
                loop: bool = False, threads: Optional[int] = None) -> "Playback":
        pose = clip.sample(0.0, rest)                  # checks rest, writes it
        _, offset, stride = clip._layout(pose[0].shape[0])
        views = [o.view() for o in pose]
        for v in views:
            v.flags.writeable = False
        return super().__new__(cls, clip._table, offset, stride,
                               tuple(o.reshape(-1) for o in pose), threads,
                               clip.duration if loop else 0.0, TRS(*views),
                               functools.partial(_one_time, dtype=clip.dtype))

    if TYPE_CHECKING:   # the C method (its docstring is the documentation), typed for Playback
        def sample(self, time: float) -> TRS: ...


def _one_time(time: Any, dtype: np.dtype[Any]) -> Any:
    """``time`` as one number of ``dtype`` by ``as_times``'s rule: what ``Playback.sample``
    samples at for a time that is not a float or a NumPy float64, float32 or float16 (those the
    C sampler reads as they are: converting them to float64 is exact, and the sampler rounds
    that to the clip's dtype as ``as_times`` would)."""
    t = as_times(time, dtype)
    if t.size != 1:
        raise ValueError(f"time must be one number, got {t.size}")
    return t[0]
