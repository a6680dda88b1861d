"""Writing a skeleton and one clip as a BVH file (Biovision hierarchy, the layout load_bvh reads:
HIERARCHY with ROOT/JOINT/End Site blocks, OFFSET, CHANNELS, then MOTION with Frames and Frame
Time).  Each joint gets the Euler order, among the six, whose middle angle stays farthest from
+-90 degrees over the clip (away from gimbal lock); a joint whose sampled translation leaves its
rest offset gets position channels (a root always does)."""
from __future__ import annotations

import io
import warnings
from typing import List, Optional

import numpy as np
from scipy.spatial.transform import Rotation

from ..export import write_atomic
from ..pose import frame_times, resolve_clip

__all__ = ["write_bvh"]

ORDERS = ("ZXY", "ZYX", "XYZ", "XZY", "YXZ", "YZX")


def _euler(q: np.ndarray, order: str) -> np.ndarray:
    """(T, 3) degrees; at gimbal lock SciPy warns and still returns angles of the rotation"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return Rotation.from_quat(q).as_euler(order, degrees=True)


def _order(q: np.ndarray) -> str:
    """the intrinsic order (BVH's channel order) whose middle angle is farthest from +-90"""
    worst = [np.abs(_euler(q, o)[:, 1]).max() for o in ORDERS]
    return ORDERS[int(np.argmin(worst))]


def _name(name: Optional[str], j: int) -> str:
    return "_".join(str(name).split()) if name else f"joint{j}"


def write_bvh(model, clip, path, frame_time: Optional[float] = None) -> None:
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
    times = frame_times(c, 1.0 / ft) if c is not None else np.zeros(1)
    times = np.arange(len(times)) * ft
    tr, ro, sc = (np.asarray(a, np.float64) for a in model.local_pose(c, times))
    sk = model.skeleton
    bad = np.flatnonzero(np.any(np.abs(sc - 1.0) > 1e-9, axis=(0, 2)))
    if bad.size:
        raise ValueError(f"write_bvh: joint {_name(sk.names[bad[0]], int(bad[0]))!r} has scale "
                         f"{sc[0, bad[0]].tolist()}; BVH joints have unit scale")
    parents = np.asarray(sk.parents)
    ends = np.asarray(getattr(model, "end_sites", np.zeros(0, bool)), bool)
    end = lambda j: j < ends.size and ends[j]
    offsets = np.asarray(sk.translations, np.float64)
    columns: List[np.ndarray] = []
    out = io.StringIO()
    out.write("HIERARCHY\n")
    num = lambda v: " ".join(f"{x:.17g}" for x in v)

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
