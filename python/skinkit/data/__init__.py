"""Sample content made by skinkit itself, so examples run after ``pip install`` in any folder.

- :func:`character`: a procedural rigged character (:mod:`skinkit.data.procedural`: 22 joints
  with Mixamo's names, a skinned body of 1,470 vertices, a rigid head with two morph targets,
  clips ``Idle``, ``Walk`` and ``Run``), written by :func:`skinkit.write_gltf` as
  ``character.glb`` and read back;
- :func:`mocap`: its walk, 2.5 s at 120 frames a second, written by :func:`skinkit.write_bvh`
  as ``walk.bvh`` and read back;
- :func:`body_model`: a small synthetic SMPL-family body model (random, not human: the real model
  files are licensed and cannot be shipped).

The two files are generated on first use (deterministic: the same bytes every time) into
``$SKINKIT_DATA_DIR`` or ``~/.cache/skinkit``, in a folder named after skinkit's version and a
hash of the code that makes them (written atomically, so concurrent first uses are safe).  ``LICENSES.md`` beside this module says what they are.
"""
from __future__ import annotations

import hashlib
import os
import sys
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

FILES = ("character.glb", "walk.bvh", "LICENSES.md")
"""The files of this package, for :func:`path`."""
MOCAP_SECONDS, MOCAP_FPS = 2.5, 120.0


def path(name: str) -> Path:
    """The path of a sample file (one of :data:`FILES`), generated on first use.

    Raises
    ------
    ValueError
        ``name`` is not a sample file; the message lists them.
    OSError
        The cache folder cannot be written.
    """
    if name not in FILES:
        raise ValueError(f"skinkit.data has no file {name!r}; it has {', '.join(FILES)}")
    if name == "LICENSES.md":
        return Path(str(resources.files(__name__).joinpath(name)))
    out = _folder() / name
    if not out.exists():
        from ..io.bvh.write import write_bvh
        from ..io.gltf.write import write_gltf
        from ..model.humanoid import humanoid_model
        from .procedural import character_model, walk_clip

        out.parent.mkdir(parents=True, exist_ok=True)
        if name == "character.glb":
            write_gltf(character_model(), out)
        else:                               # the joints alone (humanoid_model's skeleton)
            rig = humanoid_model("mixamo", "T")
            write_bvh(rig, walk_clip(rig, MOCAP_SECONDS, MOCAP_FPS), out,
                      frame_time=1.0 / MOCAP_FPS)
    return out


def _folder() -> Path:
    """Where the generated files live: named after the version, NumPy's version (whose math
    functions may differ in the last bit from one release to another) and a hash of the code
    that makes them (this module, the character's, the humanoid's and the two writers)."""
    from .._core import __version__
    from ..io.bvh import write as bvh_write
    from ..io.gltf import write as gltf_write
    from ..model import humanoid
    from . import procedural

    digest = hashlib.sha256(np.__version__.encode())
    for module in (sys.modules[__name__], procedural, humanoid, bvh_write, gltf_write):
        digest.update(Path(str(module.__file__)).read_bytes())
    base = os.environ.get("SKINKIT_DATA_DIR") or Path.home() / ".cache" / "skinkit"
    return Path(base) / f"data-{__version__}-{digest.hexdigest()[:12]}"


def character(dtype: DTypeLike = np.float64) -> Model:
    """The sample character, ``load_gltf`` of ``character.glb``: a :class:`~skinkit.Model`,
    metres, +Y up, clips ``Idle`` (2 s), ``Walk`` (1 s) and ``Run`` (0.7 s)."""
    from ..io.gltf import load_gltf

    return load_gltf(path("character.glb"), dtype=dtype)


def mocap(dtype: DTypeLike = np.float64) -> BvhModel:
    """The sample motion, ``load_bvh`` of ``walk.bvh``: the character's walk, 301 frames at
    120 fps (2.5 s), 22 joints and 5 End Sites, in the file's units (metres) and axes (+Y up)."""
    from ..io.bvh.read import load_bvh

    return load_bvh(path("walk.bvh"), dtype=dtype)


def body_model(kind: str = "SMPL", dtype: DTypeLike = np.float64,
               num_vertices: int = 800) -> BodyModel:
    """A small synthetic body model of the SMPL family (``kind``: "SMPL", "SMPL+H", "SMPL-X" or
    "MANO"), :func:`skinkit.synthetic_body_model` with ``num_vertices`` vertices, seed 0."""
    from ..body.synthetic import synthetic_body_model

    return synthetic_body_model(kind, seed=0, dtype=dtype, num_vertices=num_vertices)
