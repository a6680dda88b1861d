"""AMASS motion files (.npz) as a ``BodyMotion``: both AMASS layouts, read through the safe npz
member reader (no pickle, no object array, sizes checked before decompressing).

SMPL+H layout (AMASS's original release): ``poses`` (T, 156) axis-angle of the 52 SMPL+H
joints, ``trans`` (T, 3), ``betas`` (16,), ``gender``, ``mocap_framerate``; ``dmpls`` and the
rest ignored.  SMPL-X layout (the SMPL-X release): ``root_orient`` (T, 3), ``pose_body``
(T, 63), ``pose_hand`` (T, 90), ``pose_jaw`` (T, 3), ``pose_eye`` (T, 6), ``trans``,
``betas``, ``gender``, ``mocap_frame_rate``, ``surface_model_type``; the 55 joints in smplx's
order (global, body 21, jaw, left eye, right eye, left hand 15, right hand 15).
"""
from __future__ import annotations

import dataclasses
import math
import os
from typing import Any, Dict, Optional, SupportsFloat, Union

import numpy as np
from numpy.typing import NDArray

from ..kernels.wrappers import quat_from_rotvec, slerp
from ..kernels._types import PathLike
from ..limits import MAX_ARRAY_BYTES, MAX_FILE_VALUE, MAX_FPS
from ..body.kinds import BodyModelError
from .body.npz import read_npz, read_npz_text
from .formats import check_format

GENDERS = ("male", "female", "neutral")
# each layout's pose arrays in joint order with their widths, and its frame-rate key
_LAYOUTS = {
    "smplh": (("poses", 156),),
    "smplx": (("root_orient", 3), ("pose_body", 63), ("pose_jaw", 3), ("pose_eye", 6),
              ("pose_hand", 90)),
}
_FPS_KEYS = {"smplh": "mocap_framerate", "smplx": "mocap_frame_rate"}


def quat_to_rotvec(q: NDArray[Any]) -> NDArray[Any]:
    """Rotation vectors (..., 3) of unit quaternions (..., 4) (x, y, z, w), angles in [0, pi]:
    ``2 atan2(|v|, w) v / |v|`` with the sign making w >= 0 (series 2/w near zero)."""
    q = np.where(q[..., 3:] < 0, -q, q)
    v, w = q[..., :3], np.ascontiguousarray(q[..., 3])  # see _euler (io/bvh/write.py)
    s = np.linalg.norm(v, axis=-1)
    small = s < 1e-8
    ratio = np.where(small, 2 / np.where(small, w, 1), 2 * np.arctan2(s, w) / np.where(small, 1, s))
    rotvec: NDArray[Any] = v * ratio[..., None]
    return rotvec


@dataclasses.dataclass(frozen=True)
class BodyMotion:
    """A body-model motion: per-frame axis-angle poses of every joint, translation, shape.

    Attributes
    ----------
    poses : (T, J, 3) float64, axis-angle (radians) of each joint relative to its parent in
        the model's joint order (SMPL+H: J = 52; SMPL-X: J = 55 as smplx orders them).
    transl : (T, 3) float64, root translation in metres.
    betas : (B,) float64, shape coefficients.
    expression : (T, E) float64 or None.
    fps : float, frames per second; frame k is at time k / fps.
    gender : 'male', 'female' or 'neutral'.
    model_type : 'smplh' or 'smplx' (smplx.create's names).
    source : str, the file read.
    """

    poses: NDArray[Any]
    transl: NDArray[Any]
    betas: NDArray[Any]
    expression: Optional[NDArray[Any]]
    fps: float
    gender: str
    model_type: str
    source: str

    @property
    def times(self) -> NDArray[Any]:
        """(T,) float64 seconds, ``k / fps``."""
        return np.arange(len(self.poses)) / self.fps

    def resample(self, fps: float, start: float = 0.0, frames: Optional[int] = None
                 ) -> "BodyMotion":
        """The motion at ``t = start + k / fps`` for every k with t inside the duration
        ``(T - 1) / self.fps`` (both ends when they fall on the grid), at most ``frames`` of
        them; frame 0 of the result is at ``start``.

        Joint rotations by shortest-path slerp (skinkit.slerp, Shoemake 1985) between the two
        neighbouring source frames, never a lerp of the axis-angle vectors; translations and
        expression by lerp; betas unchanged.

        Raises
        ------
        ValueError
            ``fps`` not finite, <= 0 or above MAX_FPS, ``start`` outside the duration,
            ``frames`` < 1, or an output larger than MAX_ARRAY_BYTES.
        """
        fps = _check_fps(fps, "fps")
        T = len(self.poses)
        duration = (T - 1) / self.fps
        if not 0.0 <= float(start) <= duration * (1 + 1e-12):
            raise ValueError(f"start must be in [0, {duration:g}] seconds, got {start!r}")
        if frames is not None and int(frames) < 1:
            raise ValueError(f"frames must be at least 1, got {frames!r}")
        n = int(math.floor((duration - start) * fps * (1 + 1e-12))) + 1
        n = n if frames is None else min(n, int(frames))
        per_frame = 8 * (self.poses[0].size + 4 * self.poses.shape[1] + 3 +
                         (0 if self.expression is None else self.expression.shape[1]))
        if n * per_frame > MAX_ARRAY_BYTES:
            raise ValueError(f"resampling {duration:g} s at {fps:g} fps gives {n} frames, "
                             f"{n * per_frame} bytes, more than the limit of {MAX_ARRAY_BYTES}")
        u = np.minimum((start + np.arange(n) / fps) * self.fps, T - 1)
        i = np.minimum(np.floor(u).astype(np.int64), max(T - 2, 0))
        i1 = np.minimum(i + 1, T - 1)
        a = u - i
        q = quat_from_rotvec(self.poses)
        q = slerp(q[i], q[i1], np.broadcast_to(a[:, None], (n, q.shape[1])))

        def lerp(x: NDArray[Any]) -> NDArray[Any]:
            y: NDArray[Any] = x[i] + a.reshape((n,) + (1,) * (x.ndim - 1)) * (x[i1] - x[i])
            return y

        return dataclasses.replace(
            self, poses=quat_to_rotvec(q), transl=lerp(self.transl),
            expression=None if self.expression is None else lerp(self.expression), fps=fps)


def _check_fps(fps: Union[SupportsFloat, str], what: str) -> float:
    try:
        fps = float(fps)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {fps!r}") from None
    if not (math.isfinite(fps) and 0 < fps <= MAX_FPS):
        raise ValueError(f"{what} must be in (0, {MAX_FPS:g}] frames per second, got {fps!r}")
    return fps


def _frames(raw: Dict[str, NDArray[Any]], key: str, width: int, T: Optional[int],
            name: str) -> NDArray[Any]:
    """raw[key] as (T, width) float64, finite; T the first array's frame count."""
    if key not in raw:
        raise BodyModelError(f"{name}: missing key {key!r}")
    a = raw[key]
    if a.ndim != 2 or a.shape[1] != width or (T is not None and a.shape[0] != T):
        want = f"({'T' if T is None else T}, {width})"
        raise BodyModelError(f"{name}: {key} must have shape {want}, got {a.shape}")
    return _finite(a, key, name)


def _finite(a: NDArray[Any], key: str, name: str) -> NDArray[Any]:
    """``a`` as float64, refused unless every value is finite and within MAX_FILE_VALUE (so
    that a float32 pose stays finite)."""
    a = a.astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad_values = ~(np.abs(a) <= MAX_FILE_VALUE)
    if bad_values.any():
        bad = np.argwhere(bad_values)[0]
        raise BodyModelError(f"{name}: {key}{list(bad.tolist())} = {a[tuple(bad)]} is not "
                             f"finite or past the limit of {MAX_FILE_VALUE:g} "
                             "(skinkit.limits.MAX_FILE_VALUE)")
    return a


def _scalar(raw: Dict[str, NDArray[Any]], key: str, name: str) -> float:
    if key not in raw:
        raise BodyModelError(f"{name}: missing key {key!r}")
    a = raw[key]
    if a.size != 1:
        raise BodyModelError(f"{name}: {key} must be one number, got shape {a.shape}")
    try:
        return _check_fps(a.reshape(()).item(), key)
    except ValueError as e:
        raise BodyModelError(f"{name}: {e}") from None


def _model_type(text: Dict[str, str], rates: Dict[str, NDArray[Any]], name: str) -> str:
    """'smplx' for a file with ``surface_model_type`` or ``mocap_frame_rate``, else 'smplh'."""
    surface = text.get("surface_model_type")
    if surface is not None and surface.strip().lower() != "smplx":
        raise BodyModelError(f"{name}: surface_model_type {surface!r} is not 'smplx' (AMASS "
                             "files of SMPL+H have no surface_model_type)")
    return "smplx" if surface is not None or "mocap_frame_rate" in rates else "smplh"


def load_amass(path: PathLike) -> BodyMotion:
    """Read an AMASS motion .npz (SMPL+H or SMPL-X layout, told apart by its keys).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    BodyMotion with poses (T, 52, 3) (SMPL+H) or (T, 55, 3) (SMPL-X), float64.

    Raises
    ------
    skinkit.BodyModelError (a ValueError)
        Naming the file and the key: a missing key, a wrong shape, a non-finite value, no
        frames, a frame rate not in (0, MAX_FPS], an unknown gender, an object array or a
        declared size over the limits (see skinkit.io.body.npz); a file of another format
        (the message says which and the function that reads it).
    OSError
        The file cannot be opened.
    """
    name = os.fspath(path)
    check_format(path, "amass", BodyModelError)
    text = read_npz_text(path, ("surface_model_type", "gender"))
    rates = read_npz(path, _FPS_KEYS.values())
    model_type = _model_type(text, rates, name)
    fps = _scalar(rates, _FPS_KEYS[model_type], name)
    gender = text.get("gender")
    if gender is None or gender.strip().lower() not in GENDERS:
        raise BodyModelError(f"{name}: gender must be one of {', '.join(GENDERS)}, got "
                             f"{gender!r}")
    keys = [k for k, _ in _LAYOUTS[model_type]] + ["trans", "betas", "expression"]
    raw = read_npz(path, keys, frames=True)
    first, width = _LAYOUTS[model_type][0]
    T = _frames(raw, first, width, None, name).shape[0]
    if T == 0:
        raise BodyModelError(f"{name}: {first} has no frames (T = 0)")
    parts = [_frames(raw, key, width, T, name)
             for key, width in _LAYOUTS[model_type] + (("trans", 3),)]
    betas = raw.get("betas")
    if betas is None or betas.ndim != 1:
        raise BodyModelError(f"{name}: betas must have shape (B,), got "
                             f"{'nothing' if betas is None else betas.shape}")
    expression = raw.get("expression")
    if expression is not None:
        width = expression.shape[1] if expression.ndim == 2 else -1
        expression = _frames(raw, "expression", width, T, name)
    return BodyMotion(poses=np.concatenate(parts[:-1], axis=1).reshape(T, -1, 3),
                      transl=parts[-1], betas=_finite(betas, "betas", name),
                      expression=expression, fps=fps, gender=gender.strip().lower(),
                      model_type=model_type, source=name)
