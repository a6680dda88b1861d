"""A stand-in for ``skinkit.load_amass`` and ``skinkit.io.body.find_body_model`` (being written
on another branch) with their fixed interface, installed into ``sys.modules`` when imported (and
as a Dask worker preload through DASK_DISTRIBUTED__WORKER__PRELOAD): only for tests/test_bake.py
until the real reader lands.  Also writes AMASS-layout motion files."""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

import skinkit.io.body


@dataclass(frozen=True)
class BodyMotion:
    poses: np.ndarray
    transl: np.ndarray
    betas: np.ndarray
    expression: Optional[np.ndarray]
    fps: float
    gender: str
    model_type: str
    source: str

    @property
    def times(self):
        return np.arange(len(self.poses)) / self.fps

    def resample(self, fps):
        T, J = self.poses.shape[:2]
        t = np.arange(int(np.floor((T - 1) / self.fps * fps + 1e-9)) + 1) / fps
        src = self.times
        poses = np.stack([Slerp(src, Rotation.from_rotvec(self.poses[:, j]))(t).as_rotvec()
                          for j in range(J)], axis=1)
        transl = np.stack([np.interp(t, src, self.transl[:, k]) for k in range(3)], axis=1)
        return BodyMotion(poses, transl, self.betas, None, fps, self.gender, self.model_type,
                          self.source)


def load_amass(path):
    with np.load(path, allow_pickle=False) as z:
        poses = z["poses"]
        T = poses.shape[0]
        return BodyMotion(poses.reshape(T, -1, 3).astype(np.float64), z["trans"].astype(float),
                          z["betas"].astype(float), None, float(z["mocap_framerate"]),
                          str(z["gender"]), "smplh", str(path))


def find_body_model(body_dir, model_type, gender):
    return Path(body_dir) / model_type / f"{model_type.upper()}_{gender.upper()}.npz"


def write_motion(path, T, fps=30.0, seed=0, gender="male", joints=52):
    """An AMASS SMPL+H-layout file: poses (T, 3 J), trans (T, 3), betas (16,), gender,
    mocap_framerate."""
    rng = np.random.default_rng(seed)
    np.savez(path, poses=rng.normal(0, 0.3, (T, 3 * joints)), trans=rng.normal(0, 0.5, (T, 3)),
             betas=rng.normal(0, 1, 16), gender=np.array(gender), mocap_framerate=np.array(fps),
             dmpls=np.zeros((T, 8)))
    return path


_module = types.ModuleType("skinkit.io.amass")
_module.load_amass = load_amass
_module.BodyMotion = BodyMotion
try:
    import skinkit.io.amass  # noqa: F401  the real reader, once it is there
except ImportError:
    sys.modules["skinkit.io.amass"] = _module
if not hasattr(skinkit.io.body, "find_body_model"):
    skinkit.io.body.find_body_model = find_body_model
