"""Clip compression to an object-space error, as ACL (the Animation Compression Library)
measures it.

The error of a lossy pose is measured as ACL's ``qvvf_transform_error_metric`` measures it in
object space (N. Frechette, "Animation Compression: Measuring Accuracy", 2016): three virtual
vertices at ``shell_distance`` along the axes of every joint, carried through the whole hierarchy
by the source and by the compressed clip; the error of a joint is the largest distance between the
two images of its vertices.  ``compress`` keeps that error at or below ``precision`` at every
joint at every time of a dense grid: every key time of the clip and three times evenly between
each pair of consecutive key times (4x the sample rate), the decoded clip sampled as the source
interpolates (its glTF interpolation: STEP, LINEAR with slerp, CUBICSPLINE; glTF 2.0 Appendix C).

Each channel becomes one track, stored at one of these levels:

* default: equal to the skeleton's rest pose; not stored (the sampler leaves the rest pose);
* constant: one value (float32, or the top 24 bits of each float32; a rotation as three
  components, the fourth >= 0 left out);
* 24-bit keys: every key, each component the top 24 bits of its float32 (short tracks);
* quantized: range reduction over the clip (per component minimum and extent, float32) and, where
  smaller, over segments of 16 keys (each segment's range in 255ths of the clip's, its own bits
  per component), then every key at ``bits`` bits per component (3 to 23) for the clip's widest
  range, fewer for a narrower one; STEP and LINEAR rotations as three components,
  the track's fourth (the one farthest from 0 over all its keys, made >= 0: q and -q are one
  rotation and slerp takes the shortest path) restored as sqrt(1 - the others' squares),
  CUBICSPLINE rotations and tangents with all four components;
* raw: the keys as the clip's dtype (lossless).

The bit rates come from a search: every track's own error at every level is bounded with lever
arms from the source pose at its key times (a rotation error of angle a at joint j moves its
descendants' vertices by at most 2 sin(a/2) times their distance from j; the keys at each level
decoded from their fractions in float64, without packing them), a common tolerance picks each
track's cheapest level under it, bisection finds the largest tolerance whose exact hierarchical
error passes, then each track tries cheaper levels one at a time under the exact check.  The
exact check runs on the decoder's own samples (of the levels the search reaches, decoded when
first reached) at the key times first; the dense times where the decoder's samples of the
choice exceed the precision join them, and the search runs again, until the choice passes at
every dense time.  Morph weights are scalar tracks held to ``weights_precision`` each, on their
own, by their exact errors.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray

from .. import _core
from ..kernels.wrappers import forward_kinematics
from ..model.clip import INTERPOLATIONS, PATHS, WEIGHTS, Channel, Clip
from ..model.records import Skeleton
from .compressed_clip import (BIT_RATES, CONSTANT, CONSTANT24, KEYS24, PATH_NAMES, RAW,
                              CompressedClip, Track, decoder_tables, from_float24, segment_ranges,
                              to_float24)

DEFAULT = -1                                   # a level of the search only: the track is dropped
LEVELS = (RAW, CONSTANT, CONSTANT24, KEYS24, DEFAULT) + BIT_RATES   # the search's columns
RATES_AT = LEVELS.index(BIT_RATES[0])          # the column of the first bit rate
SEGMENT_KEYS = 16                              # keys a segment (ACL's default)
_RATE_CODES = np.array(BIT_RATES, np.uint8)    # the bit rates as _core.rate_layout reads them
CHECK_ROWS = 256                                # times a call of the final check (_Problem)
_KEY_LIMIT = float(np.finfo(np.float32).max) / 2   # |key|: a range's float32 extent finite


def _with(track: Track, **changes: Any) -> Track:
    """``dataclasses.replace(track, **changes)`` as a copy of its attributes (a few times
    faster; Track has no ``__post_init__``), keeping what it has kept
    (``Track.keep_segment_ranges``)."""
    new = object.__new__(Track)
    new.__dict__.update(track.__dict__, **changes)
    return new


def _ends(values: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The least and the greatest of ``values`` (M, rows, c) over the rows, (M, c) each: over a
    copy with the rows last (contiguous reductions, about 10x NumPy's over the middle axis)."""
    rows_last = np.ascontiguousarray(values.transpose(0, 2, 1))
    return rows_last.min(axis=2), rows_last.max(axis=2)


def _constants(low: NDArray[np.float64], high: NDArray[np.float64], unit: bool
               ) -> Dict[int, List[bytes]]:
    """The payloads of M tracks of one shape as a constant at CONSTANT and CONSTANT24, from
    their keys' least and greatest stored components (``_ends``, (M, c) each): the mids of
    their ranges (``unit``: a rotation's three components, scaled into the unit ball)."""
    mids = 0.5 * (low + high)
    if unit:
        mids = mids / np.maximum(1.0, np.linalg.norm(mids, axis=-1, keepdims=True))
    n = mids.shape[0]
    out: Dict[int, List[bytes]] = {}
    for level, data in ((CONSTANT, mids.astype(np.float32).tobytes()),
                        (CONSTANT24, to_float24(mids))):
        size = len(data) // n
        out[level] = [data[m * size:(m + 1) * size] for m in range(n)]
    return out


def _layouts(values: NDArray[np.float64], per: int,
             ends: Tuple[NDArray[np.float64], NDArray[np.float64]]
             ) -> Tuple[NDArray[np.float32], NDArray[np.float32], Optional[NDArray[np.uint8]]]:
    """The ranges of M tracks of one shape, ``values`` (M, rows, stored components), in
    segments of ``per`` rows (0: one segment): each track's float32 range over the clip,
    outwards (minimum, extent: (M, c)), and each segment's in 255ths of it (codes (M, segments,
    2 c), None for one segment); ``ends``: the values' least and greatest (``_ends``)."""
    low, high = ends
    lo = low.astype(np.float32)
    lo = np.where(lo.astype(np.float64) > low, np.nextafter(lo, np.float32(-np.inf)), lo)
    span = high - lo.astype(np.float64)
    ext = span.astype(np.float32)
    ext = np.where(ext.astype(np.float64) < span, np.nextafter(ext, np.float32(np.inf)), ext)
    if not per:
        return lo, ext, None
    starts = np.arange(0, values.shape[1], per)
    e64 = ext.astype(np.float64)[:, None]
    safe = np.where(e64 > 0, e64, 1.0)
    lo64 = lo.astype(np.float64)[:, None]
    m = np.floor(255 * (np.minimum.reduceat(values, starts, axis=1) - lo64) / safe).clip(0, 255)
    top = np.ceil(255 * (np.maximum.reduceat(values, starts, axis=1) - lo64) / safe).clip(0, 255)
    e = np.maximum(top - m, 1)
    m = np.minimum(m, 255 - e)
    zero = e64 == 0
    codes = np.concatenate([np.where(zero, 0, m), np.where(zero, 0, e)], axis=2).astype(np.uint8)
    return lo, ext, codes


class _Quantizer:
    """M tracks' ``values`` (M, rows, stored components) at the bit rates (BIT_RATES) in the
    ranges of their layout (``_layouts``) in segments of ``seg_keys`` keys (0: one segment),
    the tracks' other fields their ``bases``, ``ends`` the values' least and greatest
    (``_ends``): the fractions of their segments' ranges (``unit``), the bits of each component
    in each segment at every rate (``widths``) and of each segment's codes (``bits``), all
    tracks and rates in one C call (``_core.rate_layout``), the container bytes they cost
    (``costs``, (M, rates)), the tracks, their bounds."""

    def __init__(self, values: NDArray[np.float64], bases: Sequence[Track], seg_keys: int,
                 ends: Tuple[NDArray[np.float64], NDArray[np.float64]]):
        self.bases, self.seg_keys = bases, seg_keys
        self.per = bases[0].rows(seg_keys) if seg_keys else values.shape[1]
        self.lo, self.ext, self.codes = _layouts(values, bases[0].rows(seg_keys), ends)
        # the segment ranges as the decoder reads them (Track.segment_ranges), float32
        self.kept = (segment_ranges(self.lo, self.ext, self.codes) if self.codes is not None
                     else np.stack([self.lo, self.ext], axis=1)[:, None])
        self.kept.flags.writeable = False
        self.ranges = self.kept.astype(np.float64)                    # (M, segments, 2, c)
        # the fractions, each component's bits in each segment at each rate (fewer for ranges
        # narrower than the clip's widest), the first bit of each segment and the bits of all
        self.unit, self.widths, self.bits = _core.rate_layout(
            values, self.ranges, self.ext.astype(np.float64), self.per, _RATE_CODES)
        # ``_cost`` of the tracks at each rate, without packing them
        fixed = 3 + 8 * values.shape[2] + 1 + self.widths[0, 0].size + (
            0 if self.codes is None else self.codes[0].size)
        self.costs = (fixed + (self.bits[:, :, -1] + 7) // 8).tolist()

    def bounds(self, row0: int, step: int, src: NDArray[np.float64], lever: NDArray[np.float64],
               dropped: NDArray[np.int32], rotation: bool, want: NDArray[np.uint8]
               ) -> NDArray[np.float64]:
        """The bounds of the error of the tracks at the bit rates (M, rates), those ``want``
        (M, rates) gives, at their keys rows row0::step against ``src`` (M, keys, C) with
        ``lever`` (M, keys) (``_core.rate_bounds``: decoded in float64 from the fractions, the
        decoder's float32 rounding left out)."""
        return _core.rate_bounds(self.unit, self.widths, self.ranges, self.per, row0, step,
                                 src, lever, dropped, rotation, want)

    def track(self, m: int, k: int) -> Track:
        """Track m at bit rate ``BIT_RATES[k]``: its codes rounded and packed in C
        (``_core.quantize_codes``)."""
        w8 = self.widths[m, k]
        layout: Dict[str, Any] = {"seg_keys": self.seg_keys}
        if self.codes is not None:
            layout["seg_codes"] = self.codes[m]
        tr = _with(self.bases[m], minimum=self.lo[m], extent=self.ext[m], level=BIT_RATES[k],
                   widths=w8.reshape(-1), payload=_core.quantize_codes(self.unit[m], w8,
                                                                       self.per), **layout)
        tr.keep_segment_ranges(self.kept[m])
        tr.keep_code_bits(self.unit.shape[1], self.per, self.bits[m, k])
        return tr


def dense_times(clip: Clip, per_interval: int = 4) -> NDArray[np.float64]:
    """Every key time of ``clip`` and ``per_interval - 1`` times evenly between each pair of
    consecutive ones: the times at which ``compress`` bounds the error (4x the sample rate)."""
    distinct = {id(ch.times): ch.times for ch in clip.channels}     # channels share arrays
    keys: NDArray[np.float64] = np.unique(np.concatenate(
        [np.asarray(t, np.float64) for t in distinct.values()] or [np.zeros(1)]))
    if keys.size < 2:
        return keys
    f = np.arange(per_interval) / per_interval
    inner = keys[:-1, None] + (keys[1:] - keys[:-1])[:, None] * f
    return np.concatenate([inner.reshape(-1), keys[-1:]])


def _preorder(parents: NDArray[np.int64]) -> Tuple[NDArray[np.int64], NDArray[np.int64],
                                                   NDArray[np.int64]]:
    """The joints in depth-first preorder (every subtree one range), each joint's place in it,
    and the size of each joint's subtree (itself included)."""
    children: List[List[int]] = [[] for _ in parents]
    for j, p in enumerate(parents):
        if p >= 0:
            children[p].append(j)
    order: List[int] = []
    stack = [j for j in range(parents.size) if parents[j] < 0][::-1]
    while stack:
        k = stack.pop()
        order.append(k)
        stack.extend(children[k][::-1])
    pos = np.empty(parents.size, np.int64)
    pos[order] = np.arange(len(order))
    size = np.ones(parents.size, np.int64)
    for k in order[::-1]:
        if parents[k] >= 0:
            size[parents[k]] += size[k]
    return np.array(order, np.int64), pos, size


class _Problem:
    """The source, sampled densely once (its world matrices with the joints in depth-first
    preorder, ``_preorder``), and the exact check of a decoded clip.  The dense times
    (``dense_times``) are held key times first, the ``keys`` of them, then the others: every
    result over them is a maximum, which their order leaves as it is; the search runs on some of
    them (``at``: the key rows first) and ``failing`` names those the decoder's samples of its
    choice exceed."""

    def __init__(self, clip: Clip, skeleton: Skeleton, shell: float):
        self.clip, self.shell = clip, shell
        parents = np.asarray(skeleton.parents, np.int64)
        self.count = parents.size
        self.order, self.pos, self.size = _preorder(parents)
        self.parents = np.where(parents[self.order] >= 0, self.pos[parents[self.order]],
                                -1).astype(np.int32)                  # in preorder
        # the rest pose as the samplers write it (in the clip's dtype), where no track is
        self.rest: Tuple[NDArray[Any], NDArray[Any], NDArray[Any]] = tuple(  # type: ignore
            np.asarray(r, clip.dtype).astype(np.float64)
            for r in (skeleton.translations, skeleton.rotations, skeleton.scales))
        t = dense_times(clip)
        key = np.zeros(t.size, bool)
        key[::4] = True                        # dense_times' every 4th time is a key time
        self.t, self.keys = np.concatenate([t[key], t[~key]]), int(key.sum())
        self.shells = np.full(self.t.size, shell)
        self.preordered = bool(np.array_equal(self.order, np.arange(self.count)))
        t, r, s = self._local(clip)
        self.world: NDArray[np.float64] = np.asarray(forward_kinematics(self.parents, r, t, s),
                                                     np.float64)
        self.weights = clip.sample_weights(self.t)

    def _local(self, clip: Union[Clip, CompressedClip]) -> List[NDArray[np.float64]]:
        """The translations, rotations and scales of ``clip`` at the dense times, float64,
        the joints in preorder (a copy in that order unless they are in it already)."""
        local = [np.asarray(a, np.float64) for a in clip.sample(self.t, self.rest)]
        return local if self.preordered else [a[:, self.order] for a in local]

    def at(self, rows: NDArray[np.int64]) -> _Problem:
        """The problem at the rows ``rows`` (sorted, distinct) of its dense times alone (views
        where they follow one another: the key rows, the others)."""
        sub = object.__new__(_Problem)
        sub.__dict__.update(self.__dict__)
        at: Union[slice, NDArray[np.int64]] = rows
        if rows.size and rows[-1] - rows[0] == rows.size - 1:
            at = slice(int(rows[0]), int(rows[-1]) + 1)
        sub.t, sub.shells, sub.world = self.t[at], self.shells[at], self.world[at]
        sub.keys = int(np.count_nonzero(rows < self.keys))
        sub.weights = {k: v[at] for k, v in self.weights.items()}
        return sub

    def failing(self, decoded: CompressedClip, limit: Dict[bool, float],
                passed: Optional[NDArray[np.int64]] = None) -> NDArray[np.int64]:
        """The rows at which the decoder's own samples of ``decoded`` exceed the precision at a
        joint (``limit[False]``) or a morph weight (``limit[True]``), of those not in
        ``passed`` (rows where they are known to be within it)."""
        todo = np.ones(self.t.size, bool)
        if passed is not None:
            todo[passed] = False
        rows: NDArray[np.int64] = np.flatnonzero(todo)
        if not rows.size:
            return rows
        sub = self.at(rows)
        bad = ~(np.max(sub.pose_error(decoded), axis=1, initial=0.0) <= limit[False])  # NaN
        w = decoded.sample_weights(sub.t)
        for k, v in sub.weights.items():
            bad |= ~(np.max(np.abs(w.get(k, 0) - v), axis=1, initial=0.0) <= limit[True])
        failing: NDArray[np.int64] = rows[bad]
        return failing

    def pose_error(self, clip: Union[Clip, CompressedClip]) -> NDArray[np.float64]:
        """(T, N) object-space error of ``clip`` against the source at the dense times: ACL's
        ``qvvf_transform_error_metric``, for each joint the largest distance between the images
        of its three virtual vertices at ``shell`` on its x, y and z axes
        (``_core._shell_error_fk``, ``CHECK_ROWS`` rows at a time into one world buffer: its
        matrices, never read, stay in cache)."""
        t, r, s = self._local(clip)
        err = np.empty((self.t.size, self.count))
        world = np.empty((min(CHECK_ROWS, self.t.size), self.count, 4, 4))
        mask = np.ones(self.count)
        for a in range(0, self.t.size, CHECK_ROWS):
            b = min(a + CHECK_ROWS, self.t.size)
            _core._shell_error_fk(self.parents, r[a:b], t[a:b], s[a:b], self.world[a:b],
                                  self.shells[a:b], mask, (world[:b - a], err[a:b]))
        return err if self.preordered else err[:, self.pos]

    def levers(self) -> Tuple[NDArray[Any], NDArray[Any]]:
        """Per joint (the skeleton's order) and time: the largest distance from the joint to a
        vertex of it or of a descendant (T, N), and its parent's largest world axis scale
        (T, N) (``_core.subtree_reach``, on the joints in preorder)."""
        reach, parent_scale = _core.subtree_reach(self.parents, self.size[self.order],
                                                  self.world, self.shell)
        if self.preordered:
            return reach, parent_scale
        return reach[:, self.pos], parent_scale[:, self.pos]


def _levers(path: str, src: NDArray[Any], reach: NDArray[Any],
            parent_scale: NDArray[Any]) -> NDArray[np.float64]:
    """What multiplies a track's own error to bound the object-space error it causes, (T, M):
    a rotation error of angle a moves a vertex at distance r by 2 sin(a/2) r = 4 sin(a/4)
    cos(a/4) r <= 2 |q - q'| r (q' the nearer of the lossy quaternion and its negative: the
    chord, well conditioned for small angles where 1 - cos(a/2) is lost to rounding, and for
    keys not quite unit in float32); a translation moves everything below by its error; a
    scale error of e moves a vertex at r by r e / s."""
    if path == "rotation":
        return np.asarray(2 * reach * parent_scale, np.float64)
    if path == "translation":
        return np.asarray(parent_scale, np.float64)
    return np.asarray(reach * parent_scale / np.maximum(np.abs(src).min(axis=-1), 1e-6),
                      np.float64)


def _cost(tr: Optional[Track]) -> int:
    """The bytes of a track in the container (``track_bytes``), without building them."""
    if tr is None:
        return 0
    ranges = 8 * tr.minimum.size + 1 + tr.widths.size + tr.seg_codes.size
    return 3 + len(tr.payload) + (ranges if tr.level in BIT_RATES else 0)


class _Group:
    """The levels of the M channels of a group (``_group_levels``): their keys as stored and
    as compared with the decoded ones (``values``, ``src``), each track's cost at each
    level (``costs`` (M, columns of LEVELS) int64 bytes, -1 where it has not that level), the
    quantizers of its bit rates and, for each track and rate, the one it is in (``pick`` (M,
    rates))."""

    def __init__(self, values: NDArray[np.float64], src: NDArray[np.float64]):
        self.values, self.src = values, src      # stored, compared: (M, rows, c), (M, rows, C)
        count = values.shape[0]
        self.costs = np.full((count, len(LEVELS)), -1, np.int64)
        self.quantizers: List[_Quantizer] = []
        self.pick = np.zeros((count, len(BIT_RATES)), np.int64)


class _Levels:
    """The levels of channel ``ch`` that the search tries: their costs (``costs``, its row of
    its group's), their tracks (``track``: made when first asked for, a bit rate's codes packed
    then; None: DEFAULT)."""

    def __init__(self, ch: Channel, raw: Track, vals: NDArray[np.float64],
                 src: NDArray[np.float64], dropped: int, group: _Group, m: int):
        self.ch, self.cubic = ch, ch.interpolation == "CUBICSPLINE"
        self.vals, self.src, self.dropped = vals, src, dropped   # stored; compared (rows, C)
        self.raw, self.group, self.m = raw, group, m
        self.costs = group.costs[m]
        self.tracks: Dict[int, Optional[Track]] = {RAW: raw}
        self.payloads: Dict[int, bytes] = {}        # CONSTANT, CONSTANT24

    def levels(self) -> List[int]:
        """The levels it has, in the order of LEVELS."""
        return [LEVELS[j] for j in np.flatnonzero(self.costs >= 0).tolist()]

    def track(self, lv: int) -> Optional[Track]:
        """The track at level ``lv`` (a bit rate's packed when first asked for)."""
        if lv not in self.tracks:
            if lv == KEYS24:
                self.tracks[lv] = _with(self.raw, level=lv, payload=to_float24(self.vals))
            elif lv in self.payloads:
                self.tracks[lv] = _with(self.raw, level=lv, payload=self.payloads[lv])
            else:
                k = BIT_RATES.index(lv)
                self.tracks[lv] = self.group.quantizers[self.group.pick[self.m, k]].track(
                    self.m, k)
        return self.tracks[lv]


def _group_levels(channels: Sequence[Channel], bases: Sequence[Track], dtype: np.dtype[Any]
                  ) -> List[_Levels]:
    """The levels of channels of one key times, path, interpolation and component count (their
    tracks' fields ``bases``, made their raw tracks), made together: the raw keys; a STEP or
    LINEAR rotation's keys made unit, with the component each track leaves out
    (``_core.unit_rotations``); the constants and 24-bit keys (``_constants``), DEFAULT, and the
    bit rates (``_Quantizer``), each in the layout of fewer bytes (the first of equal), none that
    the raw keys undercut."""
    ch = channels[0]
    values = np.stack([np.asarray(c.values, np.float64) for c in channels])   # (M, rows, C)
    if not (values.min(initial=0.0) >= -_KEY_LIMIT and values.max(initial=0.0) <= _KEY_LIMIT):
        m, row = np.argwhere(~(np.abs(values) <= _KEY_LIMIT))[0, :2].tolist()     # NaN too
        raise ValueError(f"clip: the {channels[m].path} keys of node {channels[m].node} must be "
                         f"finite and within +-{_KEY_LIMIT:.3g} (the float32 ranges of the "
                         f"compressed levels), got {values[m, row].tolist()} at row {row} of "
                         f"its values")
    if ch.path == "rotation" and ch.interpolation != "CUBICSPLINE":
        # a key of length 0 (its squares' sum, as _sampler_values) samples as the identity
        values[np.einsum("mrc,mrc->mr", values, values) == 0] = (0.0, 0.0, 0.0, 1.0)
    for m, b in enumerate(bases):          # the raw tracks
        b.payload = values[m].astype(dtype, copy=False).tobytes()
    src = values
    dropped: NDArray[np.int64] = np.full(len(channels), -1, np.int64)
    if ch.path == "rotation" and ch.interpolation != "CUBICSPLINE":
        src, values, dropped = _core.unit_rotations(values)
        for b, d in zip(bases, dropped.tolist()):
            b.dropped = d
    elif ch.path == "rotation":
        dropped = np.array([b.dropped for b in bases], np.int64)
    group = _Group(values, src)
    levels = [_Levels(c, b, values[m], src[m], int(dropped[m]), group, m)
              for m, (c, b) in enumerate(zip(channels, bases))]
    group.costs[:, 0] = [_cost(b) for b in bases]
    first = levels[0]
    unit = first.dropped >= 0 and not first.cubic       # a rotation's three components
    ends = _ends(values)
    for level, payloads in _constants(*(_ends(values[:, 1::3]) if first.cubic else ends),
                                      unit).items():
        for lv, data in zip(levels, payloads):
            lv.payloads[level] = data
        group.costs[:, LEVELS.index(level)] = 3 + len(payloads[0])              # _cost's
    group.costs[:, LEVELS.index(KEYS24)] = 3 + 3 * values[0].size      # packed when asked for
    if first.ch.path in PATHS:
        for lv in levels:
            lv.tracks[DEFAULT] = None
        group.costs[:, LEVELS.index(DEFAULT)] = 0
    # a bit rate costs its ranges (8 bytes, a width and more a component) and its codes
    if 3 + 9 * values.shape[2] + 1 >= group.costs[0, 0]:
        return levels
    group.quantizers = [_Quantizer(values, bases, keys, ends)
                        for keys in (0, SEGMENT_KEYS) if keys < len(first.ch.times)]
    costs = np.array([q.costs for q in group.quantizers])               # (layouts, M, rates)
    group.pick, least = costs.argmin(axis=0), costs.min(axis=0)
    group.costs[:, RATES_AT:] = np.where(least < group.costs[:, :1], least, -1)
    return levels


def compress(clip: Clip, skeleton: Skeleton, precision: float = 1e-4,
             shell_distance: float = 0.03, weights_precision: float = 1e-3,
             refine: bool = True) -> CompressedClip:
    """Compress ``clip`` so that no joint's object-space error exceeds ``precision``.

    Parameters
    ----------
    clip : Clip
        float32 or float64; any mix of STEP, LINEAR and CUBICSPLINE channels of translations,
        rotations, scales and morph weights.
    skeleton : Skeleton
        The hierarchy the clip animates (``parents``) and its rest pose, which fills what the
        clip leaves out; channels equal to it within the error are dropped.
    precision : float
        Largest object-space error, in the clip's units (metres for glTF).
    shell_distance : float
        Distance of the virtual vertices from their joint, in the clip's units (ACL's
        ``vertex_distance``; 3 cm by default).
    weights_precision : float
        Largest error of a morph target weight.
    refine : bool
        After the bisection, try cheaper levels track by track under the exact check (smaller,
        slower to compress).

    Returns
    -------
    CompressedClip
        Its decoded samples are within ``precision`` of the source at every key time and at
        three times between each pair of key times (``dense_times``).

    Raises
    ------
    TypeError
        ``clip`` is not a Clip, or ``skeleton`` not a Skeleton.
    ValueError
        ``precision``, ``shell_distance`` or ``weights_precision`` not finite and > 0, a
        channel targets a node the skeleton does not have, a key is not finite or beyond half
        float32's largest (the compressed levels' ranges are float32), or two channels animate
        one path of one node (``CompressedClip``).

    Notes
    -----
    Error metric: ACL's ``qvvf_transform_error_metric`` in object space (nfrechette/acl,
    docs/error_metrics.md); range reduction and per-track bit rates: N. Frechette, "Animation
    Compression: Range Reduction" (2016) and ACL's variable bit rates.  Keys are kept at the
    source's key times (no key reduction).  A STEP or LINEAR rotation key of length 0 is the
    identity, as the sampler reads it.  An error that is NaN (world matrices past float64's
    range) counts as above the precision: such tracks keep their raw keys.
    """
    if not isinstance(clip, Clip):
        raise TypeError(f"clip must be a skinkit.Clip, got {type(clip).__name__}")
    if not isinstance(skeleton, Skeleton):
        raise TypeError(f"skeleton must be a skinkit.Skeleton, got {type(skeleton).__name__}")
    for name, v in (("precision", precision), ("shell_distance", shell_distance),
                    ("weights_precision", weights_precision)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
    n = skeleton.count
    for ch in clip.channels:
        if ch.node >= n:
            raise ValueError(f"clip {clip.name!r} animates node {ch.node}, but the skeleton has "
                             f"{n} nodes")
    prob = _Problem(clip, skeleton, float(shell_distance))
    times: Dict[bytes, int] = {}
    time_arrays: List[NDArray[np.float64]] = []
    bases: List[Track] = []
    groups: Dict[Tuple[int, int, int, int], List[int]] = {}
    seen: Dict[int, int] = {}                   # channels' key-time arrays by identity
    for ch in clip.channels:
        at = seen.get(id(ch.times))
        if at is None:
            kt = np.asarray(ch.times, np.float64)
            at = seen[id(ch.times)] = times.setdefault(kt.tobytes(), len(times))
            if at == len(time_arrays):
                time_arrays.append(kt)
        key = (at, PATH_NAMES.index(ch.path), INTERPOLATIONS.index(ch.interpolation),
               int(np.shape(ch.values)[1]))
        bases.append(Track(ch.node, key[1], key[2], at, key[3], RAW))
        groups.setdefault(key, []).append(len(bases) - 1)
    made: Dict[int, _Levels] = {}
    for group in groups.values():
        made.update(zip(group, _group_levels([clip.channels[i] for i in group],
                                             [bases[i] for i in group], clip.dtype)))
    candidates = [made[i] for i in range(len(bases))]
    limit = {True: float(weights_precision), False: float(precision)}
    bounds = _bounds(prob.at(np.arange(prob.keys)), candidates, groups.values())

    def build(chosen: Sequence[Optional[Track]]) -> CompressedClip:
        return CompressedClip(clip.name, clip.dtype, n, time_arrays,
                              [tr for tr in chosen if tr is not None])

    def tracks_of(levels: Sequence[int]) -> List[Optional[Track]]:
        return [c.track(lv) for c, lv in zip(candidates, levels)]

    # the search at the key rows first; the rows where the decoder's own samples of its choice
    # exceed a precision join them, and the search runs again, until the choice passes at every
    # row (or the rows stop growing: the keys as they are)
    rows: NDArray[Any] = np.arange(prob.keys)
    while True:
        best, checked = _search(prob.at(rows), clip, candidates, bounds, time_arrays, limit,
                                refine)
        decoded = build(tracks_of(best))
        failing = prob.failing(decoded, limit, rows if checked else None)
        grown = np.union1d(rows, failing)
        if not failing.size or grown.size == rows.size:
            break
        rows = grown
    if failing.size:             # a search whose every try failed: the keys as they are
        decoded = build([c.tracks[RAW] for c in candidates])
    for tr in decoded.tracks:    # without what the search kept (Track.keep_code_bits)
        tr.forget_kept()
    return decoded


def _search(prob: _Problem, clip: Clip, candidates: List[_Levels],
            bounds: NDArray[np.float64], time_arrays: List[NDArray[np.float64]],
            limit: Dict[bool, float], refine: bool) -> Tuple[List[int], bool]:
    """Each track's level under the exact check at the rows of ``prob``: the largest common
    tolerance of the bounds (``_bounds``; a weights track: its exact error) that passes, by
    bisection, then with ``refine`` each track one level cheaper at a time while its subtree
    stays within the precision; and whether the choice passed (a bisection whose every try
    failed: the levels of tolerance 0, unchecked)."""
    precision, weights_precision = limit[False], limit[True]
    poses = _Poses(prob, clip, candidates, time_arrays)
    errors = bounds.copy()
    for i, ch in enumerate(clip.channels):
        if ch.path == WEIGHTS:
            lvs = candidates[i].levels()
            got = poses.need([(i, lv) for lv in lvs])
            errors[i, [LEVELS.index(lv) for lv in lvs]] = [
                float(np.abs(got[i, lv] - prob.weights[ch.node]).max(initial=0.0)) for lv in lvs]

    # each track's levels by cost (the first of equal in the order of LEVELS) and their errors,
    # a row each (those it has not: inf, dearer than all): a tolerance picks the first level of
    # each row within it
    every = np.stack([c.costs for c in candidates]) if candidates else np.zeros((0, len(LEVELS)),
                                                                                np.int64)
    every = np.where(every >= 0, every, np.iinfo(np.int64).max)
    by = np.argsort(every, axis=1, kind="stable")
    table = np.take_along_axis(errors, by, axis=1)
    names = np.array(LEVELS)[by]
    costs = np.take_along_axis(every, by, axis=1)
    weights = np.array([ch.path == WEIGHTS for ch in clip.channels], bool)

    def pick(tol: float) -> List[int]:
        if not candidates:                      # a clip without channels
            return []
        ok = table <= np.where(weights, weights_precision, tol)[:, None]
        first = names[np.arange(len(candidates)), ok.argmax(axis=1)]
        return np.where(ok.any(axis=1), first, RAW).tolist()  # type: ignore[no-any-return]

    passes: Dict[Tuple[int, ...], bool] = {}     # the choices checked (a tolerance's repeat)

    def check(chosen: List[int]) -> bool:
        key = tuple(chosen)
        if key not in passes:
            passes[key] = poses.assemble(chosen, precision)
        return passes[key]

    lo, hi = 0.0, precision
    best, trial, checked = pick(0.0), pick(hi), False
    if check(trial):
        best, lo, hi, checked = trial, hi, 64.0 * hi, True
    for _ in range(10):
        mid = 0.5 * (lo + hi)
        trial = pick(mid)
        if check(trial):
            best, lo, checked = trial, mid, True
        else:
            hi = mid
    if refine and best:    # each track one level cheaper at a time, while its subtree stays in
        poses.assemble(best)
        chosen = every[np.arange(len(best)), [LEVELS.index(lv) for lv in best]]
        order = [i for i in np.argsort(-chosen, kind="stable").tolist() if not weights[i]]
        # each track's first try: its dearest level below its choice's cost (the first of
        # equal in their order; for those that have one), decoded at once; the others (most
        # tracks try one) listed once the first is kept, and decoded four at a time when reached
        below = costs < chosen[:, None]
        has = np.asarray(below.any(axis=1)).tolist()
        top = costs[np.arange(len(best)), np.maximum(below.sum(axis=1) - 1, 0)]
        first: List[int] = names[np.arange(len(best)),
                                 (costs == top[:, None]).argmax(axis=1)].tolist()
        order = [i for i in order if has[i]]
        poses.need([(i, first[i]) for i in order])
        done = 0
        while done < len(order):
            # the first tries in C up to the first kept (or a KEYS24 refused, whose track tries
            # on: the others' errors grow as their costs fall, not KEYS24's), then that track's
            # other levels, dearest first (the first of equal in their order)
            t, kept = poses.try_firsts([(i, first[i]) for i in order[done:]], precision)
            done += t + 1
            if done > len(order):
                break
            i = order[done - 1]
            if kept:
                best[i] = first[i]
            cols = np.flatnonzero(every[i] < chosen[i])
            tries = [LEVELS[c] for c in cols[np.argsort(-every[i, cols], kind="stable")].tolist()]
            for j in range(1, len(tries)):
                lv = tries[j]
                if (i, lv) not in poses.samples:
                    poses.need([(i, v) for v in tries[j:j + 4]])
                if poses.try_level(i, lv, precision):
                    best[i] = lv
                elif lv != KEYS24:
                    break
    return best, checked


def _constants_decoded(levels: Sequence[_Levels]) -> NDArray[np.float64]:
    """The constants of a group's channels (``_group_levels``) at CONSTANT and CONSTANT24 as
    they decode, stored components: (M, 2, c)."""
    got = [np.frombuffer(b"".join(lv.payloads[CONSTANT] for lv in levels), np.float32),
           from_float24(b"".join(lv.payloads[CONSTANT24] for lv in levels))]
    out: NDArray[np.float64] = np.stack([g.reshape(len(levels), -1) for g in got],
                                        axis=1).astype(np.float64)
    return out


def _bounds(prob: _Problem, candidates: List[_Levels],
            groups: Iterable[List[int]]) -> NDArray[np.float64]:
    """Each track's bound of the error it causes alone at each of its levels (tracks, columns
    of LEVELS; inf where it has not that level), at its key times (``prob``: the key rows;
    ``_core.track_bounds``, on its keys as they decode approximately: the keys, the constants
    (``_constants_decoded``), the keys' 24-bit floats, the rest pose; ``_Quantizer.bounds``), the
    tracks of a group (``_group_levels``) at once; weights tracks: none (``_search`` measures
    theirs)."""
    reach, parent_scale = prob.levers()
    errors = np.full((len(candidates), len(LEVELS)), np.inf)
    for group in groups:
        first = candidates[group[0]]
        ch = first.ch
        if ch.path == WEIGHTS:
            continue
        at = np.searchsorted(prob.t, np.asarray(ch.times, np.float64))
        nodes = [candidates[i].ch.node for i in group]
        rows = slice(1, None, 3) if first.cubic else slice(None)
        per_track = np.ascontiguousarray(first.group.src[:, rows])              # (M, K, C)
        src = np.ascontiguousarray(per_track.transpose(1, 0, 2))                 # (K, M, C)
        lever = np.ascontiguousarray(_levers(ch.path, src, reach[at][:, nodes],
                                             parent_scale[at][:, nodes]))        # (K, M)
        # RAW, CONSTANT, CONSTANT24, KEYS24 as they decode (a STEP or LINEAR rotation's
        # dropped component restored in C), and DEFAULT: the rest pose (``_core.track_bounds``)
        members = [candidates[i] for i in group]
        drop = (np.array([lv.dropped for lv in members], np.int32)
                if first.dropped >= 0 and not first.cubic else None)
        rotation = ch.path == "rotation"
        got = np.full((len(group), len(LEVELS)), np.inf)
        rest = prob.rest[list(PATHS).index(ch.path)][nodes]                      # (M, C)
        got[:, :RATES_AT] = _core.track_bounds(
            src, np.ascontiguousarray(first.group.values[:, rows]), _constants_decoded(members),
            rest, lever, drop, rotation)
        # the bit rates: the tracks of a layout at once (those of its rates in that layout)
        g = first.group
        if g.quantizers:
            dropped = np.array([-1 if first.cubic else lv.dropped for lv in members], np.int32)
            for n, q in enumerate(g.quantizers):
                want = (g.pick == n) & (g.costs[:, RATES_AT:] >= 0)
                if not want.any():
                    continue
                rates = q.bounds(1 if first.cubic else 0, 3 if first.cubic else 1, per_track,
                                 np.ascontiguousarray(lever.T), dropped, rotation,
                                 want.astype(np.uint8))
                got[:, RATES_AT:] = np.where(want, rates, got[:, RATES_AT:])
        errors[group] = got
    return errors


class _Poses:
    """The local poses and world matrices of a choice of levels, assembled from each track's
    decoded samples (``need``), and the exact check of one track changed, by FK of its
    joint's subtree alone, in place (``_core.shell_check``: the other joints' world matrices
    kept).  The joints are held in depth-first preorder, where every subtree is one range.  The
    rows are the search's (``_Problem.at``: the key rows, and the dense rows that joined
    them); a check runs on the rows where the joints checked had their largest errors first,
    and stops at the first group of rows above the precision."""

    def __init__(self, prob: _Problem, clip: Clip, candidates: List[_Levels],
                 time_arrays: List[NDArray[np.float64]]):
        self.prob, self.clip, self.candidates, self.time_arrays = prob, clip, candidates, \
            time_arrays
        self.samples: Dict[Tuple[int, int], NDArray[np.float64]] = {}
        self.order, self.pos, self.size, self.parents = prob.order, prob.pos, prob.size, \
            prob.parents
        t, n = prob.t.size, prob.count
        self.world = np.zeros((t, n, 4, 4))
        self.errors = np.zeros((t, n))
        self.joints = np.arange(n, dtype=np.int32)
        self.times = prob.t.astype(clip.dtype)          # the rows' times, as need decodes them
        # the rest pose, under the tracks' joints (written by every assemble and try_level)
        self.local = [np.repeat(r[self.order][None], t, axis=0) for r in prob.rest]
        # each track's path, joint and the end of its subtree (preorder), the weights' none
        self.subtrees = {i: (list(PATHS).index(ch.path), int(self.pos[ch.node]),
                             int(self.pos[ch.node] + self.size[ch.node]))
                         for i, ch in enumerate(clip.channels) if ch.path != WEIGHTS}
        # the level each track's samples in local are at (-2: none yet): assemble writes the
        # changed ones (one track a joint's path: CompressedClip refuses two)
        self.trs = np.array([ch.path != WEIGHTS for ch in clip.channels], bool)
        self.levels = np.full(len(clip.channels), -2)
        self.stale = np.ones(n, bool)       # joints whose rows assemble computes again

    def _check(self, joints: NDArray[np.int32], precision: float, start: int = -1,
               count: int = -1) -> Tuple[int, int, bool]:
        """FK of ``joints`` (preorder; every other joint's world matrices as they are) into
        world at ``count`` rows (-1: all) from row ``start`` (-1: the row where they erred most
        when last checked, where a change of their levels most likely fails, and likely its
        neighbours) on, round to row 0 after the last, until the first group of rows above
        ``precision`` (inf: none): the start, the rows done, and whether one was above."""
        tr, rot, sc = self.local
        prob = self.prob
        start, done, above = _core.shell_check(
            self.parents, joints, rot, tr, sc, prob.world, prob.shells,
            self.world, self.errors, start, self.errors.shape[0] if count < 0 else count,
            precision if precision < math.inf else 0.0)
        return start, done, above

    def need(self, pairs: Sequence[Tuple[int, int]]) -> Dict[Tuple[int, int], NDArray[Any]]:
        """The decoder's samples of tracks at levels, (track, level) each, at the rows (T, C;
        DEFAULT: the rest pose's row (C,)), those not yet held decoded at once: each track on a
        node of its own in one clip."""
        rest = self.prob.rest
        tracks, where, nodes = [], [], []
        count = [0] * (len(PATHS) + 1)
        for i, lv in pairs:
            if (i, lv) in self.samples:
                continue
            tr = self.candidates[i].track(lv)
            if tr is None:          # DEFAULT: the rest pose as the sampler writes it (a row)
                self.samples[i, lv] = rest[self.subtrees[i][0]][self.clip.channels[i].node]
                continue
            tracks.append(tr)
            where.append((i, lv))
            nodes.append(count[tr.path])
            count[tr.path] += 1
        if tracks:      # decoded as CompressedClip.sample decodes, without its checks
            # each TRS track's rows one block (its node's offset T rows on: out[path] (n, T, k),
            # converted at once), the weights' columns in the order of tracks
            dtype, t = self.clip.dtype, self.times
            tables, arrays, width = decoder_tables(tracks, self.time_arrays, dtype,
                                                   [k * t.size for k in nodes])
            n = max(count)
            out = [np.empty((n, t.size, k), dtype) for k in PATHS.values()]
            out.append(np.empty((t.size, width), dtype))
            strides = np.array([3, 4, 3, width], np.int64)
            for table in tables:
                if table.size:
                    _core.CompressedDecoder(table, *arrays).decode(
                        strides, t, tuple(o.reshape(-1) for o in out))
            got = [o[:c].astype(np.float64) for o, c in zip(out[:-1], count)]  # blocks written
            got.append(out[-1].astype(np.float64))
            col = 0
            for key, tr, node in zip(where, tracks, nodes):
                if tr.path == len(PATHS):
                    self.samples[key] = np.ascontiguousarray(got[-1][:, col:col + tr.ncomp])
                    col += tr.ncomp
                else:
                    self.samples[key] = got[tr.path][node]
        return self.samples

    def assemble(self, chosen: Sequence[int], precision: float = math.inf) -> bool:
        """The poses of the levels ``chosen``; whether they are within ``precision``.  The
        subtrees of the tracks changed are computed, and those left stale by the last assemble
        (above the precision, the rows after the first failing ones): the other joints'
        matrices and errors are those of the same levels."""
        changed = np.flatnonzero((self.levels != chosen) & self.trs).tolist()
        self.need([(i, chosen[i]) for i in changed])
        redo = self.stale.copy()
        for i in changed:
            k, a, b = self.subtrees[i]
            self.local[k][:, a] = self.samples[i, chosen[i]]
            self.levels[i] = chosen[i]
            redo[a:b] = True
        above = bool(redo.any()) and self._check(self.joints[redo], precision)[2]
        self.stale = redo if above else np.zeros_like(redo)
        return not above and not (precision < math.inf and not bool(   # NaN: above
            np.max(self.errors[:, ~redo], initial=0.0) <= precision))

    def try_firsts(self, tries: Sequence[Tuple[int, int]], precision: float
                   ) -> Tuple[int, bool]:
        """``try_level`` of the (track, level) ``tries`` in turn, in C (``_core.shell_refine``),
        up to the first that keeps its level or refuses a KEYS24 one: its index and whether it
        kept it ((len(tries), False) when all refused)."""
        tr, rot, sc = self.local
        prob = self.prob
        t, kept = _core.shell_refine(
            self.parents, self.joints, rot, tr, sc, prob.world, prob.shells, self.world,
            self.errors, precision,
            [self.subtrees[i] + (self.samples[i, lv], self.samples[i, int(self.levels[i])],
                                 lv == KEYS24) for i, lv in tries])
        if kept:
            self.levels[tries[t][0]] = tries[t][1]
        return t, kept

    def try_level(self, i: int, level: int, precision: float) -> bool:
        """Track i at ``level`` if the subtree it moves stays within precision (kept then;
        otherwise the rows it reached are computed back from the kept level's samples)."""
        k, a, b = self.subtrees[i]
        self.local[k][:, a] = self.samples[i, level]
        start, done, above = self._check(self.joints[a:b], precision)
        if not above:
            self.levels[i] = level
        else:
            self.local[k][:, a] = self.samples[i, int(self.levels[i])]
            self._check(self.joints[a:b], math.inf, start, done)
        return not above


def _short_rotations(clip: Clip) -> Clip:
    """``clip`` with its STEP and LINEAR rotation keys as a glTF reader reads them back from
    normalized SHORT accessors (round(q 32767) / 32767, glTF 2.0 section 3.11)."""
    channels = [Channel(ch.node, ch.path, ch.times,
                        np.rint(np.clip(np.asarray(ch.values, np.float64), -1, 1) * 32767) / 32767
                        if ch.path == "rotation" and ch.interpolation != "CUBICSPLINE"
                        else ch.values, ch.interpolation) for ch in clip.channels]
    return Clip(clip.name, channels, clip.dtype)


def gltf_clip(clip: Clip, skeleton: Skeleton, precision: float = 1e-4,
              shell_distance: float = 0.03, weights_precision: float = 1e-3) -> Clip:
    """The reduced keys of ``compress`` as a Clip for ``write_gltf(..., rotations="short")``:
    within ``precision`` of ``clip`` at the dense times (``dense_times``) once its rotations are
    read back from normalized SHORT accessors (checked; compressed at half the precision until
    it holds, the source keys after four tries).  Tracks equal to the rest pose are left out,
    constant ones hold one key.  Parameters and errors as ``compress``."""
    prob = None
    p = precision
    for _ in range(4):
        reduced = _short_rotations(compress(clip, skeleton, p, shell_distance,
                                            weights_precision).to_clip())
        prob = prob or _Problem(clip, skeleton, float(shell_distance))
        if float(np.max(prob.pose_error(reduced), initial=0.0)) <= precision:
            return reduced
        p /= 2
    return clip
