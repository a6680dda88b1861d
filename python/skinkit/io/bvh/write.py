"""Writing a skeleton and one clip as a BVH file (Biovision hierarchy, the layout load_bvh reads:
HIERARCHY with ROOT/JOINT/End Site blocks, OFFSET, CHANNELS, then MOTION with Frames and Frame
Time).  Each joint gets the Euler order, among the six, whose middle angle stays farthest from
+-90 degrees over the clip (away from gimbal lock); a joint whose sampled translation leaves its
rest offset gets position channels (a root always does)."""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Iterable, List, Optional

import numpy as np
from numpy.typing import NDArray
from ...kernels import wrappers as kernels
from ..mesh_files import write_atomic
from ...limits import MAX_FILE_VALUE
from ...model.pose import frame_times, resolve_clip

if TYPE_CHECKING:
    from ...kernels._types import PathLike
    from ...model.model import Model
    from ...model.request import ClipLike

__all__ = ["write_bvh"]

ORDERS = ("ZXY", "ZYX", "XYZ", "XZY", "YXZ", "YZX")


_AXIS = {"X": 0, "Y": 1, "Z": 2}


def _euler(q: NDArray[Any], order: str) -> NDArray[Any]:
    """(T, 3) degrees a, b, c with R(q) = R_i(a) R_j(b) R_k(c) for ``order`` = ijk (intrinsic
    Tait-Bryan angles; the middle one by atan2, accurate near +-90); at gimbal lock c = 0."""
    i, j, k = (_AXIS[c] for c in order)
    s = 1.0 if (j - i) % 3 == 1 else -1.0          # cyclic order or not
    # R[i, j] is the (T,) column of entry (i, j), contiguous: NumPy 1.x's arctan2 of a strided
    # view may differ in the last bit with the view's alignment in memory
    R = np.ascontiguousarray(np.moveaxis(kernels.quat_to_matrix(kernels.quat_normalize(q)), 0, -1))
    cb = np.hypot(R[i, i], R[i, j])
    b = np.arctan2(s * R[i, k], cb)
    lock = cb < 1e-12
    a = np.where(lock, np.arctan2(s * R[k, j], R[j, j]), np.arctan2(-s * R[j, k], R[k, k]))
    c = np.where(lock, 0.0, np.arctan2(-s * R[i, j], R[i, i]))
    degrees: NDArray[np.float64] = np.degrees(np.stack([a, b, c], -1))
    return degrees


def _order(q: NDArray[Any]) -> str:
    """the intrinsic order (BVH's channel order) whose middle angle is farthest from +-90"""
    worst = [np.abs(_euler(q, o)[:, 1]).max() for o in ORDERS]
    return ORDERS[int(np.argmin(worst))]


def _name(name: Optional[str], j: int) -> str:
    """The joint's name as written: as it is (load_bvh reads the rest of the ROOT or JOINT line,
    stripped, as UTF-8), ``joint<j>`` for a joint without one; ValueError for a name that would
    not read back as it is: only whitespace, white space at an end or other than spaces
    inside (a tab, a vertical tab, U+2028), a brace, a character that is not printable, or one
    UTF-8 cannot encode (a lone surrogate)."""
    if name is None or name == "":
        return f"joint{j}"
    text = str(name)
    bad = [c for c in text if c in "{}" or (c.isspace() and c != " ") or not c.isprintable()]
    why = ("is only white space" if not text.strip() else
           "has white space at an end" if text != text.strip() else
           f"holds {bad[0]!r} (a brace, or white space or a character a BVH line cannot hold)"
           if bad else None)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        why = "is not UTF-8 (a lone surrogate)"
    if why is not None:
        raise ValueError(f"write_bvh: joint {j}'s name {text!r} {why}: it would not read back "
                         "as written; rename the joint")
    return text


def _checked(values: NDArray[Any], what: str) -> NDArray[Any]:
    """``values``, unless one is not finite or past ``skinkit.limits.MAX_FILE_VALUE`` (which
    load_bvh refuses): ValueError naming ``what``, the frame and the value."""
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(values) <= MAX_FILE_VALUE)
    if bad.any():
        at = np.argwhere(bad)[0]
        where = f" at frame {at[0]}" if values.ndim > 1 else ""
        raise ValueError(f"write_bvh: {what}{where} = {float(values[tuple(at)]):g}, not finite "
                         f"or past {MAX_FILE_VALUE:g} (skinkit.limits.MAX_FILE_VALUE), which "
                         "load_bvh refuses")
    return values


def _scale_folded(parents: NDArray[Any], tr: NDArray[Any], sc: NDArray[Any], rest_tr: NDArray[Any],
                  rest_sc: NDArray[Any], names: Any) -> Any:
    """Translations (T, N, 3) and rest offsets (N, 3) with every joint's uniform scale pushed
    down to its children: for a uniform s, T R S T_c R_c = T R T(s t_c) R_c S, so each
    joint's translation is multiplied by the product of its ancestors' scales and every world
    position and rotation stays (a Blender FBX's objects at scale 100); ValueError naming the
    joint for a non-uniform scale, which BVH cannot carry."""
    for s, when in ((rest_sc[None], "rest"), (sc, "sampled")):
        mean = s.mean(axis=-1, keepdims=True)
        off = np.abs(s - mean) > 1e-6 * np.abs(mean)
        if off.any():
            t, j = (int(x) for x in np.argwhere(off.any(axis=-1))[0])
            raise ValueError(f"write_bvh: joint {_name(names[j], j)!r} has the {when} scale "
                             f"{s[t, j].tolist()}; BVH joints have no scale, and only a uniform "
                             "one is folded into the offsets")
    factor = np.ones(tr.shape[:2])
    rest_factor = np.ones(len(parents))
    for j in _parents_first(parents):
        p = parents[j]
        if p >= 0:
            factor[:, j] = factor[:, p] * sc[:, p].mean(axis=-1)
            rest_factor[j] = rest_factor[p] * rest_sc[p].mean()
    return tr * factor[..., None], rest_tr * rest_factor[:, None]


def _parents_first(parents: NDArray[Any]) -> List[int]:
    order, stack = [], [int(r) for r in np.flatnonzero(parents < 0)][::-1]
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(int(k) for k in np.flatnonzero(parents == j)[::-1])
    return order


def write_bvh(model: Model, clip: ClipLike, path: PathLike,
              frame_time: Optional[float] = None) -> None:
    """Write ``model``'s skeleton and ``clip`` as a BVH file.

    Parameters
    ----------
    model : Model
        Joints: every node of its skeleton (several roots give several ROOT blocks); OFFSET is
        the rest translation; joints flagged as ``end_sites`` (a model from load_bvh) are written
        as End Site blocks, and every other leaf gets an End Site at its origin.
    clip : Clip, int or str
        A clip of ``model`` (or any Clip for its skeleton), sampled every ``frame_time``.
    path : path
        Written atomically.
    frame_time : float, optional
        Seconds per frame; default the model's ``frame_time`` (a BVH model) or 1/30.

    Raises
    ------
    ValueError
        A joint with a non-uniform scale (BVH has no scale channels: a uniform one, a Blender
        FBX's objects at 100, is folded into the offsets below it; the message names it), a
        name that would not read back as written (see the Notes), an offset or a sampled value
        that is not finite or past ``skinkit.limits.MAX_FILE_VALUE`` (load_bvh refuses them),
        or a frame_time that is not positive.

    Notes
    -----
    Values are written with 17 significant digits, so load_bvh gives back the sampled poses to
    rounding (world positions within ~1e-12 of the model's size).  Rotation channels are in
    degrees, R = R_a R_b R_c in the listed order (intrinsic), as load_bvh reads them.  Names
    are written as they are, in UTF-8 (``Hand L`` and ``Hand_L`` stay two joints, ``Épaule``
    and CJK names read back as written); a joint without a name is ``joint<j>``.
    """
    c = resolve_clip(model, clip)
    ft = float(frame_time or getattr(model, "frame_time", 0.0) or 1.0 / 30.0)
    if not ft > 0:
        raise ValueError(f"frame_time must be > 0, got {frame_time!r}")
    count = len(frame_times(c, 1.0 / ft)) if c is not None else 1
    times = np.arange(count) * ft
    tr, ro, sc = (np.asarray(a, np.float64) for a in model.local_pose(c, times))
    sk = model.skeleton
    names = [_name(n, j) for j, n in enumerate(sk.names)]
    parents = np.asarray(sk.parents)
    tr, offsets = _scale_folded(parents, tr, sc, np.asarray(sk.translations, np.float64),
                                np.asarray(sk.scales, np.float64), sk.names)
    ends = np.asarray(getattr(model, "end_sites", np.zeros(0, bool)), bool)

    def end(j: int) -> bool:
        return j < ends.size and bool(ends[j])

    columns: List[NDArray[Any]] = []
    out = io.StringIO()
    out.write("HIERARCHY\n")

    def num(v: Iterable[float]) -> str:
        return " ".join(f"{x:.17g}" for x in v)

    def joint(j: int, depth: int) -> None:
        pad = "\t" * depth
        kids = [k for k in np.flatnonzero(parents == j)]
        if end(j):
            out.write(f"{pad}End Site\n{pad}{{\n{pad}\tOFFSET {num(offsets[j])}\n{pad}}}\n")
            return
        _checked(offsets[j], f"the OFFSET of joint {names[j]!r}")
        out.write(f"{pad}{'ROOT' if parents[j] < 0 else 'JOINT'} {names[j]}\n"
                  f"{pad}{{\n{pad}\tOFFSET {num(offsets[j])}\n")
        moved = parents[j] < 0 or np.abs(tr[:, j] - offsets[j]).max() > 0
        order = _order(ro[:, j])
        chans = (["Xposition", "Yposition", "Zposition"] if moved else []) + \
            [f"{a}rotation" for a in order]
        out.write(f"{pad}\tCHANNELS {len(chans)} {' '.join(chans)}\n")
        if moved:
            columns.append(_checked(tr[:, j] - offsets[j], f"the position of joint {names[j]!r}"))
        _checked(ro[:, j], f"the rotation of joint {names[j]!r}")
        columns.append(_checked(_euler(ro[:, j], order), f"the rotation of joint {names[j]!r}"))
        for k in kids:
            joint(int(k), depth + 1)
        if not kids:
            out.write(f"{pad}\tEnd Site\n{pad}\t{{\n{pad}\t\tOFFSET 0 0 0\n{pad}\t}}\n")
        out.write(f"{pad}}}\n")

    for r in np.flatnonzero(parents < 0):
        joint(int(r), 0)
    motion = np.concatenate(columns, axis=1)
    out.write(f"MOTION\nFrames: {len(times)}\nFrame Time: {ft:.17g}\n")
    for row in motion:
        out.write(num(row) + "\n")
    data = out.getvalue().encode("utf-8")
    write_atomic(path, lambda f: f.write(data), suffix=".bvh")
