"""BVH (Biovision Hierarchy) motion capture loader: a ``.bvh`` file to a skeleton-only Model.

The conventions are those of three.js's ``BVHLoader`` (and of the format as most tools read it):

- ``HIERARCHY``: ``ROOT``/``JOINT name { OFFSET x y z  CHANNELS n c1 .. cn  children }``; an
  ``End Site { OFFSET x y z }`` has no channels and becomes a joint of its own named
  ``<parent>_end`` (``<parent>_end2``, ... when that name is taken).  Several roots are allowed.
- Skeleton: joints in the file's pre-order (End Sites included, where the file has them), rest
  translation = OFFSET, identity rest rotation, unit scale.  No axis or unit conversion: a Z-up
  file stays Z-up.
- ``MOTION``: ``Frames: F``, ``Frame Time: dt``, then one line per frame holding every channel
  of every joint in hierarchy order.  Frame ``i`` is at time ``i * dt``.
- A joint's local translation = OFFSET + (Xposition, Yposition, Zposition) for the position
  channels it has (added, not substituted; missing ones count as 0), for every joint that has
  them, not only the root.
- A joint's local rotation composes its rotation channels in the order the file lists them,
  angles in degrees: ``R = R_c1 R_c2 R_c3`` (intrinsic), so ``Zrotation Xrotation Yrotation``
  gives ``R = Rz Rx Ry``; every joint may have its own order.
- Between frames the Clip interpolates LINEAR: translations lerped, rotations slerped on the
  shortest path (a 180-degree wrap of an Euler angle between two frames gives quaternions of
  opposite sign, which the slerp handles); before the first frame and after the last the end
  frame holds.

The file is untrusted: every problem raises :class:`BvhError` whose message starts with the file
and the line number (``walk.bvh: line 57: expected 6 channel values, got 5``; ``parse_bvh``,
which reads text, gives the line number alone).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ...model.clip import Channel, Clip
from ..formats import check_format
from ...kernels.wrappers import quat_from_rotvec, quat_multiply
from ...limits import MAX_FILE_VALUE, duration_error, nodes_error
from ...kernels._types import PathLike
from ...model.model import Model
from ...model.records import Skeleton, float_dtype

__all__ = ["BvhError", "BvhModel", "load_bvh", "parse_bvh"]

CHANNEL_NAMES = ("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")
_CHANNELS = {c.lower(): c for c in CHANNEL_NAMES}
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_COUNT = re.compile(r"\d+\Z")
_FRAMES = re.compile(r"frames\s*:\s*(.*)\Z", re.IGNORECASE)
_FRAME_TIME = re.compile(r"frame\s+time\s*:\s*(.*)\Z", re.IGNORECASE)
# anything but digits, signs, points, exponents and white space in the motion block
_NOT_NUMERIC = re.compile(r"[^0-9eE+\-.\s]")


class BvhError(ValueError):
    """A file that is not a BVH file skinkit can read.

    The message starts with the file and the line number of the problem
    (``walk.bvh: line 57: ...``), or the line number alone from ``parse_bvh`` (``line 57: ...``);
    ``file`` holds the file (None from ``parse_bvh``), ``line`` the line number and ``detail``
    what is wrong there.
    """

    def __init__(self, line: int, message: str, file: Optional[PathLike] = None):
        self.line = line
        self.detail = message
        self.file = None if file is None else os.fspath(file)
        where = f"line {line}" if file is None else f"{self.file}: line {line}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> Tuple[Any, ...]:  # pickles (a worker's error) with its attributes
        return (type(self), (self.line, self.detail, self.file))


@dataclass(repr=False)  # the compact Model repr, not a dump of the motion arrays
class BvhModel(Model):
    """A :class:`~skinkit.model.model.Model` read from a BVH file (no skins, no primitives).

    Extra attributes
    ----------------
    frame_time : float
        Seconds per frame (``Frame Time:``).
    frame_count : int
        Number of frames (``Frames:``); ``clips[0]`` has one key per frame (no clip when 0).
    end_sites : bool array (N,)
        True for the joints made from ``End Site`` blocks.
    channels : list of (int, str)
        The motion columns: joint index and channel name (``"Zrotation"``), in file order.
    motion : float64 array (F, C)
        The motion block as written in the file (file units, degrees).
    """

    frame_time: float = 0.0
    frame_count: int = 0
    end_sites: NDArray[Any] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    channels: List[Tuple[int, str]] = field(default_factory=list)
    motion: NDArray[Any] = field(default_factory=lambda: np.zeros((0, 0)))


def load_bvh(path: PathLike, dtype: DTypeLike = np.float64) -> BvhModel:
    """Load the skeleton and motion of a BVH file.

    The conventions (End Sites as joints, channel orders, no axis or unit conversion) are those
    of three.js's ``BVHLoader``; the module ``skinkit.io.bvh.read`` lists them.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.bvh`` file (UTF-8 or Latin-1 text; LF, CRLF or CR line endings; tabs or spaces).
    dtype : float32 or float64
        Precision of every float array of the skeleton and the clip.  The file is always parsed
        and the rotations built in float64 first.

    Returns
    -------
    BvhModel
        A Model with ``skeleton`` (one joint per ROOT, JOINT and End Site, in file order),
        no skins and no primitives, and ``clips = [clip]``: one LINEAR ``rotation`` channel per
        joint with rotation channels and one ``translation`` channel per joint with position
        channels, one key per frame at ``i * frame_time``; ``clips == []`` when the file has 0
        frames.  ``name`` and the clip's name are the file name without its suffix.  Joint world
        positions: ``model.world_matrices(clip=0, times=...)[..., :3, 3]``.

    Raises
    ------
    BvhError
        A malformed file, or a file of another format; the message starts with
        ``<path>: line N:``.
    OSError
        The file cannot be read.
    TypeError
        ``dtype`` is not float32 or float64.
    """
    path = Path(path)
    # check_format's message starts with the path, as BvhError's will
    check_format(path, "bvh", lambda m: BvhError(1, m.removeprefix(f"{path}: "), file=path))
    data = path.read_bytes()  # dtype is checked by parse_bvh
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    try:
        return parse_bvh(text, dtype=dtype, name=path.stem)
    except BvhError as e:   # the parser knows lines, not files: name the file once, here
        raise BvhError(e.line, e.detail, file=path) from None


def parse_bvh(text: str, dtype: DTypeLike = np.float64, name: Optional[str] = None) -> BvhModel:
    """Parse the text of a BVH file; see :func:`load_bvh`.  ``name`` names the model and clip."""
    dtype = float_dtype(dtype)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    h = _parse_hierarchy(lines)
    motion, frame_count, frame_time = _parse_motion(lines, h)
    return _build(h, motion, frame_count, frame_time, dtype, name)


# --- HIERARCHY -------------------------------------------------------------------------------


class _Hierarchy:
    def __init__(self) -> None:
        self.names: List[Optional[str]] = []
        self.parents: List[int] = []
        self.offsets: List[List[float]] = []
        self.end_site: List[bool] = []
        self.channels: List[Tuple[int, str]] = []  # (joint, canonical channel name)
        self.motion_line = 0  # index into lines of the line after MOTION


class _Statements:
    """Non-blank lines, stripped, with 1-based line numbers."""

    def __init__(self, lines: List[str]) -> None:
        self.lines = lines
        self.i = 0

    def next(self) -> Tuple[int, Optional[str]]:
        """(line number, stripped text) of the next non-blank line; (last line, None) at the
        end."""
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            self.i += 1
            if s:
                return self.i, s
        return _last_line(self.lines), None


def _last_line(lines: List[str]) -> int:
    """The number of the file's last line (a final line break does not start a new line)."""
    return max(1, len(lines) - (lines[-1] == ""))


def _parse_number(token: str, line: int, what: str) -> float:
    """A finite number of magnitude at most ``skinkit.limits.MAX_FILE_VALUE``."""
    if _NUMBER.match(token):
        value = float(token)
        if abs(value) <= MAX_FILE_VALUE:
            return value
        if np.isfinite(value):
            raise BvhError(line, f"{what}: {token!r:.40} is beyond the largest magnitude "
                                 f"skinkit reads, {MAX_FILE_VALUE:g}")
        raise BvhError(line, f"{what}: {token!r:.40} overflows a double")
    try:
        finite = bool(np.isfinite(float(token)))
    except ValueError:
        finite = True  # not a number at all
    if not finite:
        raise BvhError(line, f"{what}: {token!r} is not a finite number")
    raise BvhError(line, f"{what}: {token!r:.40} is not a number")


def _parse_count(token: str, line: int, what: str) -> int:
    """A whole number >= 0 of at most 18 digits (int() of a longer one can exceed Python's
    conversion limit, and no count skinkit could allocate needs more)."""
    if not _COUNT.match(token) or len(token.lstrip("0")) > 18:
        raise BvhError(line, f"{what}: {token!r:.40} is not a whole number in [0, 10**18)")
    return int(token)


def _parse_hierarchy(lines: List[str]) -> _Hierarchy:
    h = _Hierarchy()
    st = _Statements(lines)
    line, s = st.next()
    if s is None or s.split()[0].upper() != "HIERARCHY" or len(s.split()) != 1:
        raise BvhError(line, "expected HIERARCHY at the start of the file"
                       + ("" if s is None else f", got {s!r:.40}"))
    stack: List[Tuple[int, int, str]] = []  # (joint index, line of its header, "JOINT x" label)
    while True:
        line, s = st.next()
        if s is None:
            if stack:
                j, opened, label = stack[-1]
                raise BvhError(line, f"the file ends inside {label} (line {opened}): "
                                     "missing '}'")
            raise BvhError(line, "the file ends before MOTION")
        tokens = s.split()
        keyword = tokens[0].upper()
        if not stack:
            if keyword == "ROOT":
                _begin_joint(h, st, line, s, tokens, -1, stack)
            elif keyword == "MOTION" and len(tokens) == 1:
                if not h.names:
                    raise BvhError(line, "MOTION before any ROOT")
                h.motion_line = st.i
                return h
            elif s == "}":
                raise BvhError(line, "'}' without a matching '{'")
            else:
                raise BvhError(line, f"expected ROOT or MOTION, got {s!r:.40}")
            continue
        j, opened, label = stack[-1]
        if s == "}":
            stack.pop()
        elif h.end_site[j]:
            raise BvhError(line, f"expected '}}' to close {label} (line {opened}), "
                                 f"got {s!r:.40}")
        elif keyword == "JOINT" or (keyword == "END" and len(tokens) == 2
                                    and tokens[1].upper() == "SITE"):
            _begin_joint(h, st, line, s, tokens, j, stack)
        elif keyword in ("ROOT", "MOTION"):
            raise BvhError(line, f"{tokens[0]} inside {label} (line {opened}): missing '}}'")
        else:
            raise BvhError(line, f"expected JOINT, End Site or '}}' in {label} (line {opened}), "
                                 f"got {s!r:.40}")


def _got(text: Optional[str]) -> str:
    return "the file ends" if text is None else f"got {text!r:.40}"


def _statement(st: _Statements, keyword: str, label: str) -> Tuple[int, List[str]]:
    """The line number and words of the next line, which must start with ``keyword``."""
    line, text = st.next()
    words = [] if text is None else text.split()
    if not words or words[0].upper() != keyword:
        raise BvhError(line, f"expected {keyword} in {label}, {_got(text)}")
    return line, words


def _begin_joint(h: _Hierarchy, st: _Statements, line: int, s: str, tokens: List[str],
                 parent: int, stack: List[Tuple[int, int, str]]) -> None:
    end = tokens[0].upper() == "END"
    if end:
        name, label = None, f"the End Site of {h.names[parent]!r}"
    else:
        name = s[len(tokens[0]):].strip()
        if not name:
            raise BvhError(line, f"{tokens[0]} without a name")
        if name.endswith("{"):
            raise BvhError(line, f"put the '{{' of {tokens[0]} {name[:-1].strip()!r} on a line "
                                 "of its own")
        label = f"{tokens[0].upper()} {name!r}"
    index = len(h.names)
    too_many = nodes_error(index + 1, "joints and End Sites")
    if too_many is not None:
        raise BvhError(line, f"{label}: {too_many}")
    h.names.append(name)
    h.parents.append(parent)
    h.end_site.append(end)

    l2, s2 = st.next()
    if s2 != "{":
        raise BvhError(l2, f"expected '{{' after {label} (line {line}), {_got(s2)}")
    l3, t3 = _statement(st, "OFFSET", label)
    if len(t3) != 4:
        raise BvhError(l3, f"OFFSET of {label} needs 3 numbers, got {len(t3) - 1}")
    h.offsets.append([_parse_number(t, l3, f"OFFSET of {label}") for t in t3[1:]])
    if not end:
        l4, t4 = _statement(st, "CHANNELS", label)
        if len(t4) < 2:
            raise BvhError(l4, f"CHANNELS of {label}: expected a channel count, got ''")
        n = _parse_count(t4[1], l4, f"CHANNELS of {label}")
        if len(t4) - 2 != n:
            raise BvhError(l4, f"CHANNELS of {label} declares {n} channels but lists "
                               f"{len(t4) - 2}")
        seen = set()
        for t in t4[2:]:
            c = _CHANNELS.get(t.lower())
            if c is None:
                raise BvhError(l4, f"CHANNELS of {label}: unknown channel {t!r:.40}; expected "
                                   f"one of {', '.join(CHANNEL_NAMES)}")
            if c in seen:
                raise BvhError(l4, f"CHANNELS of {label}: {t} is listed twice")
            seen.add(c)
            h.channels.append((index, c))
    stack.append((index, line, label))


# --- MOTION ----------------------------------------------------------------------------------


def _header(st: _Statements, pattern: re.Pattern[str], expected: str) -> Tuple[int, str]:
    """The line number of the next line, which must match ``pattern``, and its group 1."""
    line, text = st.next()
    m = None if text is None else pattern.match(text)
    if m is None:
        raise BvhError(line, f"expected {expected}"
                       + ("" if text is None else f", got {text!r:.40}"))
    return line, m.group(1)


def _parse_motion(lines: List[str], h: _Hierarchy) -> Tuple[NDArray[Any], int, float]:
    st = _Statements(lines)
    st.i = h.motion_line
    line, count = _header(st, _FRAMES, "'Frames: <count>' after MOTION")
    frames_line, frame_count = line, _parse_count(count, line, "Frames")
    line, seconds = _header(st, _FRAME_TIME, "'Frame Time: <seconds>' after Frames:")
    frame_time = _parse_number(seconds.strip(), line, "Frame Time")
    if not (frame_time > 0 or (frame_time == 0 and frame_count <= 1)):
        raise BvhError(line, f"Frame Time must be positive, got {seconds!r:.40}")
    too_long = duration_error(max(frame_count - 1, 0) * frame_time)
    if too_long is not None:
        raise BvhError(line, f"{frame_count} frames of {frame_time:g} s: {too_long}")

    ncols = len(h.channels)
    data = [(i + 1, lines[i]) for i in range(st.i, len(lines)) if lines[i].strip()]
    if ncols == 0:
        if data:
            raise BvhError(data[0][0], "frame data, but the hierarchy declares no channels")
        return np.zeros((frame_count, 0)), frame_count, frame_time
    counts = np.fromiter((len(text.split()) for _, text in data), dtype=np.int64,
                         count=len(data))
    bad = np.flatnonzero(counts != ncols)
    if bad.size:
        k = int(bad[0])
        raise BvhError(data[k][0], f"expected {ncols} channel values, got {int(counts[k])}")
    if len(data) < frame_count:
        raise BvhError(_last_line(lines), f"the file ends after {len(data)} of the "
                                          f"{frame_count} frames declared on line {frames_line}")
    if len(data) > frame_count:
        raise BvhError(data[frame_count][0], f"more frame lines than the {frame_count} "
                                             f"declared on line {frames_line}")
    if frame_count == 0:
        return np.zeros((0, ncols)), 0, frame_time
    # one vectorised parse of the whole block; the slow path only names the culprit
    block = "\n".join(text for _, text in data)
    values = None
    if _NOT_NUMERIC.search(block) is None:
        try:
            values = np.array(block.split(), dtype=np.float64).reshape(frame_count, ncols)
        except ValueError:
            values = None
    if values is None or not np.all(np.abs(values) <= MAX_FILE_VALUE):  # False for NaN too
        _locate_bad_value(data, h)
        raise AssertionError("unreachable: a bad value was not located")  # pragma: no cover
    return values, frame_count, frame_time


def _locate_bad_value(data: List[Tuple[int, str]], h: _Hierarchy) -> None:
    """Raise BvhError for the first value of the motion block that is not a finite number."""
    for line, text in data:
        for col, token in enumerate(text.split()):
            joint, channel = h.channels[col]
            what = f"value {col + 1} ({channel} of {_joint_label(h, joint)})"
            _parse_number(token, line, what)


def _joint_label(h: _Hierarchy, j: int) -> str:
    return repr(h.names[j]) if h.names[j] is not None else f"End Site {j}"


# --- the model -------------------------------------------------------------------------------


_AXIS = {"X": 0, "Y": 1, "Z": 2}


def _build(h: _Hierarchy, motion: NDArray[Any], frame_count: int, frame_time: float,
           dtype: np.dtype[Any],
           name: Optional[str]) -> BvhModel:
    n = len(h.names)
    names = _end_site_names(h)
    offsets = np.asarray(h.offsets, dtype=np.float64).reshape(n, 3)
    skeleton = Skeleton(
        names=names,
        parents=np.asarray(h.parents, dtype=np.int32),
        translations=offsets.astype(dtype),
        rotations=np.tile(np.array([0, 0, 0, 1], dtype=dtype), (n, 1)),
        scales=np.ones((n, 3), dtype=dtype))
    clips = []
    if frame_count > 0:
        clips.append(Clip(name, _channels(h, motion, offsets, frame_count, frame_time, dtype),
                          dtype=dtype))
    return BvhModel(skeleton, skins=[], primitives=[], clips=clips, name=name,
                    frame_time=frame_time, frame_count=frame_count,
                    end_sites=np.asarray(h.end_site, dtype=bool),
                    channels=list(h.channels), motion=motion)


def _end_site_names(h: _Hierarchy) -> List[str]:
    """Joint names with every End Site named ``<parent>_end`` (``_end2``, ... if taken)."""
    taken = {x for x in h.names if x is not None}
    # names only get taken, so the first free suffix of a base never goes down: each base's
    # search resumes where its last one stopped (one pass, not a probe from 1 per End Site)
    suffix: Dict[str, int] = {}
    names: List[str] = []
    for j, x in enumerate(h.names):
        if x is None:  # an End Site: its parent comes before it
            base = f"{names[h.parents[j]]}_end"
            k = suffix.get(base, 1)
            x = base if k == 1 else f"{base}{k}"
            while x in taken:
                k += 1
                x = f"{base}{k}"
            suffix[base] = k
            taken.add(x)
        names.append(x)
    return names


def _channels(h: _Hierarchy, motion: NDArray[Any], offsets: NDArray[Any], frame_count: int,
              frame_time: float, dtype: np.dtype[Any]) -> List[Channel]:
    """One translation channel per joint with position channels, one rotation channel per joint
    with rotation channels, keys at ``i * frame_time``; rotations built by the kernels over all
    frames at once."""
    if not h.channels:  # no key times either: Frames: may be any count without motion lines
        return []
    times = np.arange(frame_count, dtype=np.float64) * frame_time
    per_joint: Dict[int, List[Tuple[int, str]]] = {}
    for col, (j, c) in enumerate(h.channels):
        per_joint.setdefault(j, []).append((col, c))
    out = []

    # translations: OFFSET + the position channels the joint has
    for j, cols in per_joint.items():
        pos = [(col, _AXIS[c[0]]) for col, c in cols if c.endswith("position")]
        if pos:
            t = np.repeat(offsets[j][None, :], frame_count, axis=0)
            for col, axis in pos:
                t[:, axis] += motion[:, col]
            out.append(Channel(j, "translation", times, t.astype(dtype), "LINEAR"))

    # rotations: R = R_c1 R_c2 R_c3 in the file's order, every frame at once
    rot_joints = [(j, [(col, _AXIS[c[0]]) for col, c in cols if c.endswith("rotation")])
                  for j, cols in per_joint.items()]
    rot_joints = [(j, r) for j, r in rot_joints if r]
    if rot_joints:
        depth = max(len(r) for _, r in rot_joints)  # at most 3: channels are not repeated
        rotvec = np.zeros((frame_count, len(rot_joints), depth, 3))
        for k, (j, r) in enumerate(rot_joints):
            for slot, (col, axis) in enumerate(r):
                rotvec[:, k, slot, axis] = np.radians(motion[:, col])
        q = quat_from_rotvec(rotvec)  # (F, R, depth, 4); unused slots are the identity
        composed = q[:, :, 0]
        for slot in range(1, depth):
            composed = quat_multiply(composed, q[:, :, slot])
        composed = composed.astype(dtype)
        for k, (j, _) in enumerate(rot_joints):
            out.append(Channel(j, "rotation", times, np.ascontiguousarray(composed[:, k]),
                               "LINEAR"))
    return out
