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
    R = kernels.quat_to_matrix(kernels.quat_normalize(q))
    cb = np.hypot(R[..., i, i], R[..., i, j])
    b = np.arctan2(s * R[..., i, k], cb)
    lock = cb < 1e-12
    a = np.where(lock, np.arctan2(s * R[..., k, j], R[..., j, j]),
                 np.arctan2(-s * R[..., j, k], R[..., k, k]))
    c = np.where(lock, 0.0, np.arctan2(-s * R[..., i, j], R[..., i, i]))
    degrees: NDArray[np.float64] = np.degrees(np.stack([a, b, c], -1))
    return degrees


def _order(q: NDArray[Any]) -> str:
    """the intrinsic order (BVH's channel order) whose middle angle is farthest from +-90"""
    worst = [np.abs(_euler(q, o)[:, 1]).max() for o in ORDERS]
    return ORDERS[int(np.argmin(worst))]


def _name(name: Optional[str], j: int) -> str:
    return "_".join(str(name).split()) if name else f"joint{j}"


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
        A joint with a non-unit scale (BVH has no scale channels; the message names it), or a
        frame_time that is not positive.

    Notes
    -----
    Values are written with 17 significant digits, so load_bvh gives back the sampled poses to
    rounding (world positions within ~1e-12 of the model's size).  Rotation channels are in
    degrees, R = R_a R_b R_c in the listed order (intrinsic), as load_bvh reads them.
    """
    c = resolve_clip(model, clip)
    ft = float(frame_time or getattr(model, "frame_time", 0.0) or 1.0 / 30.0)
    if not ft > 0:
        raise ValueError(f"frame_time must be > 0, got {frame_time!r}")
    count = len(frame_times(c, 1.0 / ft)) if c is not None else 1
    times = np.arange(count) * ft
    tr, ro, sc = (np.asarray(a, np.float64) for a in model.local_pose(c, times))
    sk = model.skeleton
    bad = np.flatnonzero(np.any(np.abs(sc - 1.0) > 1e-9, axis=(0, 2)))
    if bad.size:
        raise ValueError(f"write_bvh: joint {_name(sk.names[bad[0]], int(bad[0]))!r} has scale "
                         f"{sc[0, bad[0]].tolist()}; BVH joints have unit scale")
    parents = np.asarray(sk.parents)
    ends = np.asarray(getattr(model, "end_sites", np.zeros(0, bool)), bool)

    def end(j: int) -> bool:
        return j < ends.size and bool(ends[j])

    offsets = np.asarray(sk.translations, np.float64)
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
        out.write(f"{pad}{'ROOT' if parents[j] < 0 else 'JOINT'} {_name(sk.names[j], j)}\n"
                  f"{pad}{{\n{pad}\tOFFSET {num(offsets[j])}\n")
        moved = parents[j] < 0 or np.abs(tr[:, j] - offsets[j]).max() > 0
        order = _order(ro[:, j])
        chans = (["Xposition", "Yposition", "Zposition"] if moved else []) + \
            [f"{a}rotation" for a in order]
        out.write(f"{pad}\tCHANNELS {len(chans)} {' '.join(chans)}\n")
        if moved:
            columns.append(tr[:, j] - offsets[j])
        columns.append(_euler(ro[:, j], order))
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
    data = out.getvalue().encode("ascii")
    write_atomic(path, lambda f: f.write(data), suffix=".bvh")
