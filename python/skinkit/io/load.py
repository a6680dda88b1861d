"""``load_model``: any file skinkit reads, with the reader its content calls for (the dispatcher
above the readers, as trimesh's ``exchange/load.py``)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Union

from ..body.body_model import BodyModel
from ..kernels._types import PathLike
from ..model.model import Model
from .body import load_body_model
from .bvh.read import load_bvh
from .fbx import load_fbx
from .formats import _BY_SUFFIX, format_of
from .gltf import load_gltf
from .usd import load_usd


def load_model(path: PathLike, **kwargs: Any) -> Union[Model, BodyModel]:
    """Load a model or motion file with the reader its content calls for.

    Parameters
    ----------
    path : str or os.PathLike
        A glTF (JSON or GLB), FBX (binary or ASCII), BVH, USD (.usd, .usda, .usdc, .usdz) or
        body-model (.npz, .pkl) file;
        the format is told by the file's first bytes; a file they do not identify goes to the
        reader of its suffix.
    **kwargs
        Passed to the reader (``dtype`` for all; ``scene`` for glTF, ``axes`` for FBX).

    Returns
    -------
    Model, BvhModel or BodyModel
        What ``load_gltf``, ``load_fbx``, ``load_bvh``, ``load_usd`` or ``load_body_model``
        returns.

    Raises
    ------
    ValueError
        Neither the content nor the suffix names a format skinkit reads (the message names the
        file); the reader's own error (a ValueError subclass) for a malformed file.
    OSError
        The file cannot be read.
    """
    fmt = format_of(path)
    name = fmt.name if fmt else _BY_SUFFIX.get(Path(path).suffix.lower())
    if name in ("gltf", "glb"):
        return load_gltf(path, **kwargs)
    if name == "fbx":
        return load_fbx(path, **kwargs)
    if name == "bvh":
        return load_bvh(path, **kwargs)
    if name == "usd":
        return load_usd(path, **kwargs)
    if name in ("npz", "pickle"):
        return load_body_model(path, **kwargs)
    raise ValueError(f"{path}: not a format skinkit reads (glTF/GLB, FBX, BVH, USD, body-model "
                     ".npz or .pkl), judging by its first bytes and its suffix")
