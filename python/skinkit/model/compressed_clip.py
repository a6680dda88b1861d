"""A compressed clip (``skinkit.compress`` makes one): its tracks, decoded by the C kernel.

``CompressedClip.sample`` decodes straight from the codes (``sk_decode_cclip``,
src/compress_decode.c): for each track and time it finds the key interval, decodes the one or two
keys around the time (four rows for CUBICSPLINE), and interpolates them as the source clip's
sampler does (glTF 2.0 Appendix C: STEP, LINEAR with a shortest-path slerp, CUBICSPLINE
normalized for rotations).  A compressed clip holds its container's bytes (packed once, with 8
bytes of padding), the key times and the ranges, not decoded keys.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from ..kernels._checks import check_out
from ..kernels.trs import TRS
from ..model.clip import INTERPOLATIONS, PATHS, WEIGHTS, Channel, Clip, as_times
from .summary import plural, table

PATH_NAMES = tuple(PATHS) + (WEIGHTS,)         # a track's path code indexes this
CONSTANT, RAW = 0, 255                         # level codes; 3..23 are bit rates
CONSTANT24, KEYS24 = 1, 2                      # a constant, the keys: 24-bit floats
CONSTANTS = (CONSTANT, CONSTANT24)
BIT_RATES = tuple(range(3, 17)) + (18, 20, 23)
TRACK_FIELDS = 15                              # int64 fields a track (sk_ctrack, src/skinkit.h)
_ROTATION, _CUBIC = PATH_NAMES.index("rotation"), INTERPOLATIONS.index("CUBICSPLINE")
_RATES = frozenset(BIT_RATES)
_NONE32: NDArray[np.float32] = np.zeros(0, np.float32)   # empty: no element to write
_NONE8: NDArray[np.uint8] = np.zeros(0, np.uint8)
_NONE64: NDArray[np.int64] = np.zeros(0, np.int64)
_NO_CODES: NDArray[np.uint8] = np.zeros((0, 0), np.uint8)
for _empty in (_NONE32, _NONE8, _NONE64, _NO_CODES):  # shared by every track without them
    _empty.flags.writeable = False
Rest = Tuple[ArrayLike, ArrayLike, ArrayLike]


@dataclass
class Track:
    """One channel of a compressed clip, as the container stores it.

    ``node``, ``path`` (an index into PATH_NAMES), ``interp`` (into INTERPOLATIONS), ``times``
    (an index into the clip's key-time arrays), ``ncomp`` (components of the channel), ``level``
    (CONSTANT, CONSTANT24, KEYS24, a bit rate, or RAW), ``dropped`` (the component a STEP or LINEAR rotation leaves
    out, >= 0 in every key), ``minimum``/``extent`` (float32, per stored component, for a
    bit rate: the range over the clip), ``seg_keys`` (keys a segment, 0: one segment of all
    keys), ``seg_codes`` (uint8 (segments, 2 c): each segment's minimum and extent in 255ths of
    the clip's range, ``segment_ranges``; only with ``seg_keys``), ``widths`` (uint8
    (segments * c), the bits of each stored component in each segment for a bit rate: ``level``
    for the clip's widest range, fewer for narrower ones, 0 for a component constant over the
    clip) and ``payload`` (the constant's float32 values, the packed codes segment after
    segment, or the raw keys).
    """

    node: int
    path: int
    interp: int
    times: int
    ncomp: int
    level: int
    dropped: int = 3
    minimum: NDArray[np.float32] = field(default_factory=lambda: _NONE32)
    extent: NDArray[np.float32] = field(default_factory=lambda: _NONE32)
    widths: NDArray[np.uint8] = field(default_factory=lambda: _NONE8)
    payload: Union[bytes, memoryview] = b""
    seg_keys: int = 0
    seg_codes: NDArray[np.uint8] = field(default_factory=lambda: _NO_CODES)

    def seg_rows(self, nkeys: int) -> int:
        """Rows a segment (the last one: what is left)."""
        return (self.seg_keys or nkeys) * (3 if self.interp == _CUBIC else 1)

    def segment_ranges(self) -> NDArray[np.float32]:
        """(segments, 2, c) float32: each segment's minima and extents as the decoder reads
        them (those kept by ``keep_segment_ranges`` while they hold)."""
        kept = self.__dict__.get("_ranges")
        if kept is not None and kept[0] == self._range_key():
            ranges: NDArray[np.float32] = kept[1]
            return ranges
        if not self.seg_keys:
            return np.stack([self.minimum, self.extent])[None].astype(np.float32)
        return segment_ranges(self.minimum, self.extent, self.seg_codes)

    def code_bits(self, nkeys: int) -> NDArray[np.int64]:
        """The first bit of every segment's codes, and the bits of all (segments + 1) (those
        kept by ``keep_code_bits`` while they hold)."""
        rows, per = self.rows(nkeys), self.seg_rows(nkeys)
        kept = self.__dict__.get("_bits")
        if kept is not None and kept[0] == (id(self.widths), rows, per):
            offsets: NDArray[np.int64] = kept[1]
            return offsets
        n = -(-rows // per)
        counts = np.full(n, per, np.int64)
        counts[n - 1:] = rows - per * (n - 1)                   # the last segment: what is left
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(counts * self.widths.reshape(n, -1).sum(axis=1, dtype=np.int64),
                  out=offsets[1:])
        return offsets

    # The encoder (``compress``) builds every bit rate of a track's range layout, each track a
    # copy of the layout's attributes: their segment ranges are one array, computed once, and
    # the code bits of all rates one cumsum.  A track keeps them (read-only) for as long as the
    # arrays they come from are the same objects (and the numbers the same); ``compress``
    # returns tracks without them.

    def _range_key(self) -> Tuple[int, int, int, int]:
        return id(self.minimum), id(self.extent), id(self.seg_codes), self.seg_keys

    def keep_segment_ranges(self, ranges: Optional[NDArray[np.float32]] = None
                            ) -> NDArray[np.float32]:
        """``segment_ranges`` (or ``ranges``, computed by the caller as ``segment_ranges``
        computes them), kept (and shared by copies of this track's attributes)."""
        self.__dict__.pop("_ranges", None)
        ranges = self.segment_ranges() if ranges is None else ranges
        ranges.flags.writeable = False
        self._ranges = (self._range_key(), ranges, (self.minimum, self.extent, self.seg_codes))
        return ranges

    def keep_code_bits(self, rows: int, per: int, offsets: NDArray[np.int64]) -> None:
        """Keeps ``offsets`` as ``code_bits`` of ``rows`` rows in segments of ``per`` rows at
        the present ``widths``."""
        offsets.flags.writeable = False
        self._bits = ((id(self.widths), rows, per), offsets, self.widths)

    def forget_kept(self) -> None:
        """Forgets what ``keep_segment_ranges`` and ``keep_code_bits`` kept."""
        self.__dict__.pop("_ranges", None)
        self.__dict__.pop("_bits", None)

    def stored_components(self) -> int:
        """Components stored per key: a quantized or constant STEP or LINEAR rotation drops
        one."""
        rotation = self.path == _ROTATION and self.level != RAW
        return 3 if rotation and self.interp != _CUBIC else self.ncomp

    def rows(self, nkeys: int) -> int:
        return 3 * nkeys if self.interp == _CUBIC else nkeys


def level_name(level: int) -> str:
    """A track level in words, for reprs and ``skinkit info``."""
    return {CONSTANT: "constant", CONSTANT24: "constant, 24-bit", KEYS24: "24-bit keys",
            RAW: "raw"}.get(level, f"{level} bits")


def _top24(values: NDArray[Any]) -> NDArray[np.uint32]:
    """The top 24 bits of each value's float32, rounded to nearest (the low 24 bits kept; a
    carry out of the top bit, only past the largest NaN, wraps to 0)."""
    u = np.array(values, np.float32).view(np.uint32)
    u += np.uint32(0x80)
    u >>= np.uint32(8)
    return u


def to_float24(values: NDArray[Any]) -> bytes:
    """Values as the top 24 bits of their float32s (rounded to nearest), 3 bytes each, little
    endian: a float with a 15-bit mantissa."""
    top = _top24(np.asarray(values).reshape(-1)).astype("<u4", copy=False)
    return top.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()


def round24(values: NDArray[Any]) -> NDArray[np.float32]:
    """``values`` as ``from_float24(to_float24(values))`` gives them back, in their shape."""
    top = _top24(values)
    top <<= np.uint32(8)
    return top.view(np.float32)


def from_float24(data: Union[bytes, memoryview]) -> NDArray[np.float32]:
    b = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.uint32)
    return ((b[:, 0] | b[:, 1] << 8 | b[:, 2] << 16) << 8).astype(np.uint32).view(np.float32)


def segment_ranges(minimum: NDArray[np.float32], extent: NDArray[np.float32],
                   codes: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Segment ranges (..., segments, 2, c) float32 from the clip's range (..., c) and each
    segment's minimum and extent in 255ths of it (codes (..., segments, 2 c)), of one track or
    of several (the leading axes): the float32 minimum at or below, the extent at or above
    (range reduction in two levels: N. Frechette, "Animation Compression: Range Reduction",
    2016, and ACL's segments)."""
    c = minimum.shape[-1]
    lo64 = minimum.astype(np.float64)[..., None, :]
    ext64 = extent.astype(np.float64)[..., None, :]
    m, e = codes[..., :c].astype(np.float64), codes[..., c:].astype(np.float64)
    lo = lo64 + ext64 * (m / 255)
    hi = lo64 + ext64 * ((m + e) / 255)
    lo32 = lo.astype(np.float32)
    lo32 = np.where(lo32.astype(np.float64) > lo, np.nextafter(lo32, np.float32(-np.inf)), lo32)
    span = hi - lo32.astype(np.float64)
    ext32 = np.maximum(span, 0).astype(np.float32)
    ext32 = np.where(ext32.astype(np.float64) < span, np.nextafter(ext32, np.float32(np.inf)),
                     ext32)
    return np.stack([lo32, ext32], axis=-2).astype(np.float32)


def decode_track(track: Track, nkeys: int, dtype: np.dtype[Any]) -> NDArray[Any]:
    """The key values of a track, (rows, ncomp), in ``dtype`` (a constant: one row), with the
    operations of the C decoder."""
    c = track.stored_components()
    if track.level == RAW:
        return np.frombuffer(track.payload, dtype).reshape(-1, track.ncomp).copy()
    if track.level == CONSTANT:
        v = np.frombuffer(track.payload, np.float32).astype(dtype).reshape(1, c)
    elif track.level in (CONSTANT24, KEYS24):
        v = from_float24(track.payload).astype(dtype).reshape(-1, c)
    else:
        rows, per = track.rows(nkeys), track.seg_rows(nkeys)
        starts = track.code_bits(nkeys)
        bits = np.unpackbits(np.frombuffer(track.payload, np.uint8), count=int(starts[-1]),
                             bitorder="little")
        v = np.empty((rows, c), dtype)
        for s, (rng, ws) in enumerate(zip(track.segment_ranges(), track.widths.reshape(-1, c))):
            r0, r1 = s * per, min(rows, (s + 1) * per)
            seg = bits[starts[s]:starts[s + 1]].reshape(r1 - r0, -1).astype(np.int64)
            at = 0
            for k, w in enumerate(ws.tolist()):
                if w == 0:
                    v[r0:r1, k] = rng[0, k]
                    continue
                code = (seg[:, at:at + w] << np.arange(w)).sum(axis=1)
                step = dtype.type(1) / dtype.type((1 << w) - 1)
                v[r0:r1, k] = (dtype.type(rng[0, k])
                               + dtype.type(rng[1, k]) * (code.astype(dtype) * step))
                at += w
    if c == track.ncomp:
        return np.asarray(v, dtype)
    s = v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1] + v[:, 2] * v[:, 2]
    w = np.sqrt(np.where(s < 1, 1 - s, 0)).astype(dtype)
    return np.insert(v, track.dropped, w, axis=1).astype(dtype)


def decoder_tables(tracks: List[Track], times: List[NDArray[np.float64]], dtype: np.dtype[Any],
                   nodes: Optional[List[int]] = None
                   ) -> Tuple[Tuple[NDArray[np.int64], NDArray[np.int64]],
                              Tuple[NDArray[Any], NDArray[np.float32], NDArray[np.uint8],
                                    NDArray[np.uint8], NDArray[np.int64]], int]:
    """The tables of ``tracks`` (their TRS tracks', their weights tracks') and the arrays a
    ``_core.CompressedDecoder`` reads (key times in ``dtype``, ranges, the payloads in one
    buffer with 8 bytes of padding, widths, the segments' first bits), and the weights' width.
    Each track writes its node, or the node ``nodes`` gives it (the tracks left as they are);
    without ``nodes``, each track's payload is made a view of the buffer."""
    starts = [0, *accumulate(t.size for t in times)]
    key_times = np.concatenate(times + [np.zeros(0)]).astype(dtype)
    rows: Tuple[List[List[int]], List[List[int]]] = ([], [])   # TRS tracks', weights tracks'
    ranges: List[NDArray[np.float32]] = []
    widths: List[NDArray[np.uint8]] = []
    segs: List[NDArray[np.int64]] = []
    chunks, views = [], []
    data = nrange = nwidth = nseg = width = 0
    for m, tr in enumerate(tracks):
        path, ncomp, level = tr.path, tr.ncomp, tr.level
        weights = path == len(PATHS)
        if weights:
            offset, width = width, width + ncomp
        else:
            offset = (tr.node if nodes is None else nodes[m]) * ncomp
        first = starts[tr.times]
        nkeys = starts[tr.times + 1] - first
        rows[weights].append([path, offset, tr.interp, level, tr.dropped, ncomp,
                              tr.stored_components(), path == _ROTATION, first, nkeys, data,
                              nrange, nwidth, tr.seg_rows(nkeys), nseg])
        chunk = bytes(tr.payload)
        chunks.append(chunk)
        views.append(data)
        data += len(chunk)
        if level in _RATES:
            ranges.append(tr.segment_ranges().reshape(-1))
            nrange += ranges[-1].size
            widths.append(tr.widths)
            nwidth += tr.widths.size
            segs.append(tr.code_bits(nkeys)[:-1])
            nseg += segs[-1].size
    buf = np.frombuffer(b"".join(chunks) + bytes(8), np.uint8)
    for tr, at, chunk in zip(tracks if nodes is None else (), views, chunks):  # views of buf
        tr.payload = buf.data[at:at + len(chunk)]
    tables = (np.array(rows[0], np.int64).reshape(-1), np.array(rows[1], np.int64).reshape(-1))
    arrays = (key_times, np.concatenate(ranges).astype(np.float32) if ranges else _NONE32,
              buf, np.concatenate(widths).astype(np.uint8) if widths else _NONE8,
              np.concatenate(segs).astype(np.int64) if segs else _NONE64)
    return tables, arrays, width


@dataclass
class CompressedClip:
    """A clip compressed by ``skinkit.compress``: key-time arrays and tracks, as its container
    stores them (``skinkit.io.skc``).

    Attributes
    ----------
    name : str or None
    dtype : numpy dtype, float32 or float64
        The dtype of the source clip and of every sample.
    node_count : int
        Nodes of the skeleton it was compressed against (its rest pose fills the nodes and
        channels the clip leaves out: a track equal to it is not stored).
    times : list of float64 arrays (K,)
        The distinct key-time arrays of the source channels.
    tracks : list of Track
        At most one a node and path (ValueError otherwise: each output has one writer).
    """

    name: Optional[str]
    dtype: np.dtype[Any]
    node_count: int
    times: List[NDArray[np.float64]]
    tracks: List[Track]
    _tables: Tuple[NDArray[np.int64], NDArray[np.int64]] = field(init=False, repr=False,
                                                                  compare=False)
    _arrays: Tuple[NDArray[Any], NDArray[np.float32], NDArray[np.uint8], NDArray[np.uint8],
                   NDArray[np.int64]] = field(init=False, repr=False, compare=False)
    _width: int = field(init=False, repr=False, compare=False)
    _animated: Tuple[FrozenSet[int], ...] = field(init=False, repr=False, compare=False)
    _still: Dict[int, NDArray[np.int64]] = field(init=False, repr=False, compare=False)
    _stride: Dict[int, NDArray[np.int64]] = field(init=False, repr=False, compare=False)
    _top_node: int = field(init=False, repr=False, compare=False)
    _decoders: Tuple["_core.CompressedDecoder", ...] = field(init=False, repr=False,
                                                            compare=False)

    def __post_init__(self) -> None:
        self.dtype = np.dtype(self.dtype)
        seen = set()
        for i, tr in enumerate(self.tracks):     # each output written by one track (and thread)
            if (tr.node, tr.path) in seen:
                raise ValueError(f"track {i} animates the {PATH_NAMES[tr.path]} of node "
                                 f"{tr.node}, which an earlier track animates")
            seen.add((tr.node, tr.path))
        self._tables, self._arrays, self._width = decoder_tables(self.tracks, self.times,
                                                                 self.dtype)
        self._stride: Dict[int, NDArray[np.int64]] = {}
        self._animated = tuple(frozenset(t.node for t in self.tracks if t.path == p)
                               for p in range(len(PATHS)))
        self._still: Dict[int, NDArray[np.int64]] = {}
        self._top_node = max((t.node for t in self.tracks if t.path < len(PATHS)), default=-1)
        # the tables checked once (each call then checks only its outputs)
        self._decoders = tuple(_core.CompressedDecoder(t, *self._arrays) for t in self._tables)

    @property
    def duration(self) -> float:
        """The last key time, in seconds."""
        return float(max((t[-1] for t in self.times), default=0.0))

    @property
    def weights_nodes(self) -> List[int]:
        """The nodes whose morph target weights the clip animates, in track order."""
        return [t.node for t in self.tracks if t.path == len(PATHS)]

    @property
    def nbytes(self) -> int:
        """Bytes of the tracks' payloads: constants, packed codes, raw keys (the container adds
        the key times, the ranges and a few bytes a track)."""
        return int(self._arrays[2].size - 8)

    def __repr__(self) -> str:      # counts, not the key times and tracks (Jupyter prints it)
        keyed = sum(t.level not in CONSTANTS for t in self.tracks)
        return (f"CompressedClip(name={self.name!r}, {self.dtype}, duration={self.duration:g} s, "
                f"{plural(len(self.tracks), 'track')} ({keyed} keyed), "
                f"{plural(self.node_count, 'node')}, {self.nbytes} bytes of payload)")

    def _repr_html_(self) -> str:
        head = table(("name", "dtype", "duration", "nodes", "tracks", "payload bytes"),
                     [(self.name, self.dtype, f"{self.duration:g} s", self.node_count,
                       len(self.tracks), self.nbytes)], "CompressedClip")
        rows = [(t.node, PATH_NAMES[t.path], INTERPOLATIONS[t.interp],
                 self.times[t.times].size, level_name(t.level)) for t in self.tracks]
        return head + table(("node", "path", "interpolation", "keys", "stored as"), rows,
                            "Tracks")

    def to_clip(self) -> Clip:
        """The decoded keys as a Clip: every stored track a channel of its source interpolation
        (a constant one key), in the source's dtype; for writers (glTF) and other samplers.
        Its samples are those of ``sample`` up to rounding (the Clip sampler's own slerp)."""
        channels = []
        for tr in self.tracks:
            kt = self.times[tr.times]
            values = decode_track(tr, kt.size, self.dtype)
            interp = INTERPOLATIONS[tr.interp]
            if tr.level in CONSTANTS:
                kt, interp = kt[:1], "LINEAR" if interp == "CUBICSPLINE" else interp
            channels.append(Channel(tr.node, PATH_NAMES[tr.path], kt, values, interp))
        return Clip(self.name, channels, self.dtype)

    def _strides(self, n: int) -> NDArray[np.int64]:
        """The decoder's output strides for a pose of n nodes (kept per n)."""
        if n not in self._stride:
            self._stride[n] = np.array([3 * n, 4 * n, 3 * n, self._width], np.int64)
        return self._stride[n]

    def _still_runs(self, n: int) -> NDArray[np.int64]:
        """The (path, offset, length) runs of a pose of n nodes that no track writes: each path's
        ranges of nodes without a track, in values (kept per n)."""
        if n not in self._still:
            runs: List[Tuple[int, int, int]] = []
            for p, (nodes, k) in enumerate(zip(self._animated, PATHS.values())):
                for i in range(n):
                    if i in nodes:
                        continue
                    if runs and runs[-1][0] == p and sum(runs[-1][1:]) == k * i:
                        runs[-1] = (p, runs[-1][1], runs[-1][2] + k)
                    else:
                        runs.append((p, k * i, k))
            self._still[n] = np.array(runs, np.int64).reshape(-1)
        return self._still[n]

    def _decode(self, weights: bool, t: NDArray[Any], out: Tuple[NDArray[Any], ...], n: int,
                threads: Optional[int], fill: Optional[Tuple[NDArray[Any], ...]] = None) -> None:
        """The TRS tracks (or the weights tracks) at times t into out (4 arrays), after fill's
        runs of rest values (CompressedDecoder.decode)."""
        self._decoders[weights].decode(self._strides(n), t, tuple(o.reshape(-1) for o in out),
                                       threads, fill)

    def _times(self, times: ArrayLike, loop: bool) -> NDArray[Any]:
        t = as_times(times, self.dtype)
        if loop and self.duration > 0:
            t = np.mod(t, np.asarray(self.duration, self.dtype))
        return t

    def _rest(self, rest: Rest) -> Tuple[NDArray[Any], ...]:
        arrays = tuple(np.asarray(a) for a in rest)
        n = arrays[0].shape[0] if arrays[0].ndim else -1
        if tuple(a.shape for a in arrays) != ((n, 3), (n, 4), (n, 3)):
            raise ValueError("rest must be translations (N, 3), rotations (N, 4), scales (N, 3); "
                             f"got {', '.join(str(a.shape) for a in arrays)}")
        if any(a.dtype.kind not in "iuf" for a in arrays):
            raise TypeError("rest must be real number arrays, got dtypes "
                            f"{', '.join(str(a.dtype) for a in arrays)}")
        if self._top_node >= n:
            raise ValueError(f"compressed clip {self.name!r} animates node {self._top_node}, but "
                             f"the rest pose has {n} nodes")
        return arrays

    def sample(self, times: ArrayLike, rest: Rest, loop: bool = False,
               threads: Optional[int] = None,
               out: Optional[Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]] = None) -> TRS:
        """Local TRS at ``times`` on top of ``rest``, decoded straight from the codes.

        Parameters
        ----------
        times : float or array (T,)
            Seconds; with ``loop`` wrapped into [0, duration) first.
        rest : (translations (N, 3), rotations (N, 4), scales (N, 3))
            The rest pose of the skeleton passed to ``compress`` (tracks equal to it were
            dropped); nodes without a track keep it.
        loop : bool
        threads : int or None
            At most this many threads (tracks are shared out; the bits do not depend on it).
        out : (translations, rotations, scales) or None
            As for ``Clip.sample``.

        Returns
        -------
        TRS
            translations (..., N, 3), rotations (..., N, 4) unit (x, y, z, w), scales
            (..., N, 3) in the clip's dtype; ``...`` is the shape of ``times``.

        Raises
        ------
        ValueError, TypeError, MemoryError
            As ``Clip.sample``: a rest pose of the wrong shapes or too few nodes, times not
            finite, an ``out`` array of the wrong shape, dtype or layout.
        """
        shape = np.shape(times)
        rt, rr, rs = self._rest(rest)
        n = rt.shape[0]
        t = self._times(times, loop)
        shapes = [shape + (n, k) for k in PATHS.values()]
        if out is None:
            if t.size and n and 10 * n * self.dtype.itemsize > sys.maxsize // t.size:
                raise MemoryError(f"{t.size} times x {n} nodes of TRS do not fit in memory")
            res = tuple(np.empty(s, self.dtype) for s in shapes)
        else:
            if not isinstance(out, tuple) or len(out) != 3:
                raise TypeError("out must be a tuple (translations, rotations, scales), got "
                                f"{type(out).__name__}")
            for i, (o, s) in enumerate(zip(out, shapes)):
                check_out(o, self.dtype, s, f"out[{i}]", " (the clip's dtype)")
            res = out
        # nodes no track writes keep the rest pose: their runs of values copied by the decoder
        # (a fraction of the cost of NumPy's copies), the tracks' nodes then written by it
        fill = (self._still_runs(n),) + tuple(np.ascontiguousarray(r, self.dtype).reshape(-1)
                                              for r in (rt, rr, rs))
        self._decode(False, t, res + (np.zeros(0, self.dtype),), n, threads, fill)
        return TRS(*res)

    def sample_weights(self, times: ArrayLike, loop: bool = False,
                       threads: Optional[int] = None) -> Dict[int, NDArray[Any]]:
        """Morph target weights at ``times``: node -> (..., M), as ``Clip.sample_weights``."""
        shape = np.shape(times)
        t = self._times(times, loop)
        buf = np.empty((t.size, self._width), self.dtype)
        empty = np.zeros(0, self.dtype)
        self._decode(True, t, (empty, empty, empty, buf), 0, threads)
        out, col = {}, 0
        for tr in self.tracks:
            if tr.path == len(PATHS):
                out[tr.node] = buf[:, col:col + tr.ncomp].reshape(shape + (tr.ncomp,))
                col += tr.ncomp
        return out

    def playback(self, rest: Rest, loop: bool = False,
                 batch: Optional[int] = None) -> "CompressedPlayback":
        """A sampler that keeps its place between calls: one time a call, or ``batch`` times
        a call into a pose of its own (``CompressedPlayback``)."""
        return CompressedPlayback(self, rest, loop, batch)


class CompressedPlayback(_core.CompressedPlayer):
    """A compressed clip sampled into a pose of its own, one time a call as ``Playback`` does
    for a Clip, or ``batch`` times a call.  The rest pose and the constant tracks are written
    once (a first sample) and each call decodes the keyed tracks only (``sample`` gives the
    bits of ``CompressedClip.sample``).  One time a call, each track keeps its key interval
    from one call to the next (a frame after the last one finds it without a search), each lane
    group of rotation tracks its decoded keys, their slerp constants and its segments
    (``sk_play_cclip``); ``batch`` times a call, the times are any (``sk_decode_cclip``, on the
    calling thread).  ``sample`` is the C method itself (``_core.CompressedPlayer``, over the
    clip's checked table, ``_core.CompressedDecoder``, with copies of its offsets): a float
    time, or an array of ``batch`` times in the clip's dtype, goes from the call straight to
    the decoder, with the checks of its outputs done once here.  For one thread at a time
    (make one per thread).

    Parameters
    ----------
    clip : CompressedClip
    rest : (translations (N, 3), rotations (N, 4), scales (N, 3))
    loop : bool
        Times wrapped into [0, duration) first.
    batch : int >= 1 or None
        None: ``sample(time)`` takes a float and ``pose`` is (N, 3), (N, 4), (N, 3); an int:
        ``sample(times)`` takes ``batch`` times (seconds, shape (batch,): fastest as a
        contiguous array of the clip's dtype, else converted) and ``pose`` is (batch, N, 3),
        (batch, N, 4), (batch, N, 3).

    Raises
    ------
    ValueError, TypeError
        For the rest pose, as ``CompressedClip.sample``; ``batch`` not an int >= 1 or None.
        ``sample`` raises ValueError for a time not finite, or times not of shape (batch,).
    """

    clip: CompressedClip
    loop: bool
    pose: TRS

    def __new__(cls, clip: CompressedClip, rest: Rest, loop: bool = False,
                batch: Optional[int] = None) -> "CompressedPlayback":
        if batch is not None and (not isinstance(batch, (int, np.integer))
                                  or isinstance(batch, bool) or batch < 1):
            raise ValueError(f"batch must be None or an int >= 1, got {batch!r}")
        pose = clip.sample(0.0 if batch is None else np.zeros(int(batch)), rest)
        out = tuple(o.reshape(-1) for o in pose) + (np.zeros(0, clip.dtype),)
        self = super().__new__(cls, clip._decoders[0], clip._strides(pose.translations.shape[-2]),
                               out, clip.duration if loop else 0.0, pose, int(batch or 0))
        self.clip, self.loop, self.pose = clip, loop, pose
        return self

    if TYPE_CHECKING:   # the C method (its docstring is the documentation), typed here
        def sample(self, time: Union[float, ArrayLike]) -> TRS:
            """The pose at ``time`` (seconds; a batch player: ``batch`` times), in the arrays
            of ``pose`` (overwritten next call)."""
