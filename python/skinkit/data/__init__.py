"""Sample content shipped in the wheel, so examples run after ``pip install`` in any folder.

- :func:`character`: the Khronos "Fox" glTF sample (24 joints, 1,728 vertices, a texture, clips
  ``Survey``, ``Walk`` and ``Run``);
- :func:`mocap`: 300 frames (2.5 s at 120 fps) of the CMU motion capture database (subject 01,
  trial 03) as BVH;
- :func:`body_model`: a small synthetic SMPL-family body model (random, not human: the real model
  files are licensed and cannot be shipped).

Licences and attribution: ``LICENSES.md`` beside this module (:func:`path` ``("LICENSES.md")``).
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import DTypeLike

if TYPE_CHECKING:
    from ..body.body_model import BodyModel
    from ..io.bvh.read import BvhModel
    from ..model.model import Model

__all__ = ["FILES", "body_model", "character", "mocap", "path"]

FILES = ("Fox.glb", "cmu_01_03_first300.bvh", "LICENSES.md")
"""The files of this package, for :func:`path`."""


def path(name: str) -> Path:
    """The path of a bundled file (one of :data:`FILES`).

    Raises
    ------
    ValueError
        ``name`` is not a bundled file; the message lists them.
    """
    if name not in FILES:
        raise ValueError(f"skinkit.data has no file {name!r}; it has {', '.join(FILES)}")
    return Path(str(resources.files(__name__).joinpath(name)))


def character(dtype: DTypeLike = np.float64) -> Model:
    """The sample character, ``load_gltf`` of ``Fox.glb``: a :class:`~skinkit.Model`, metres,
    +Y up, clips ``Survey`` (3.4 s), ``Walk`` and ``Run``."""
    from ..io.gltf import load_gltf

    return load_gltf(path("Fox.glb"), dtype=dtype)


def mocap(dtype: DTypeLike = np.float64) -> BvhModel:
    """The sample motion, ``load_bvh`` of ``cmu_01_03_first300.bvh``: 31 joints, 300 frames at
    120 fps, in the file's units (inches) and axes (+Y up)."""
    from ..io.bvh.read import load_bvh

    return load_bvh(path("cmu_01_03_first300.bvh"), dtype=dtype)


def body_model(kind: str = "SMPL", dtype: DTypeLike = np.float64,
               num_vertices: int = 800) -> BodyModel:
    """A small synthetic body model of the SMPL family (``kind``: "SMPL", "SMPL+H", "SMPL-X" or
    "MANO"), :func:`skinkit.synthetic_body_model` with ``num_vertices`` vertices, seed 0."""
    from ..body.synthetic import synthetic_body_model

    return synthetic_body_model(kind, seed=0, dtype=dtype, num_vertices=num_vertices)
