"""Reading SMPL-family body model files (.pkl and .npz): plain NumPy arrays read as data, then
the ``BodyModel`` they make (``load_body_model``).

The files are those the model authors distribute (SMPL, SMPL+H, SMPL-X, MANO, FLAME), with the
keys smplx 0.1.28 reads: ``v_template`` (V, 3), ``shapedirs`` (V, 3, S), ``posedirs``
(V, 3, P), ``J_regressor`` (J, V) dense or scipy-sparse, ``weights`` (V, J), ``kintree_table``
(2, J) and ``f`` (F, 3).  Pickles (Python 2 with chumpy objects, or Python 3, protocols 0-5)
are read by ``pkl`` without running code from the file or letting NumPy interpret its state;
.npz files by ``npz`` member by member, only these keys, never an object array.
"""
from __future__ import annotations

import os
from typing import Any, Dict

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ...body.body_model import BodyModel
from ...body.kinds import KINDS, BodyModelError
from ...kernels._types import PathLike
from ...limits import MAX_ARRAY_BYTES
from ..formats import check_format
from .layouts import REQUIRED, find_body_model
from .npz import read_npz, read_npz_text
from .pkl import read_pickle, to_array


def _from_pickle(path: PathLike) -> Dict[str, NDArray[Any]]:
    raw = read_pickle(path)
    out = {}
    for key in REQUIRED:
        if key in raw:
            try:
                out[key] = to_array(raw[key], key)
            except BodyModelError as e:
                raise BodyModelError(f"{os.fspath(path)}: {e}") from None
    return out


def read_body_arrays(path: PathLike) -> Dict[str, NDArray[Any]]:
    """The arrays REQUIRED of a .pkl or .npz body model file (told apart by content), keyed as
    in the file, numeric, owned.

    Raises
    ------
    BodyModelError (a ValueError)
        Naming the file and the key: a missing key, a refused pickle global, a chumpy
        expression, a non-numeric or object array, a declared size over the limits or not
        matching the data, a malformed sparse matrix; or a file of another format (glTF, FBX,
        BVH: the message says which and the function that reads it).
    OSError
        The file cannot be opened.
    """
    name = os.fspath(path)
    fmt = check_format(path, "body", BodyModelError)
    npz = fmt is not None and fmt.name == "npz"
    out = read_npz(path, REQUIRED) if npz else _from_pickle(path)
    for key in REQUIRED:
        if key not in out:
            motion = npz and read_npz(path, ("trans",))
            hint = "; it looks like an AMASS motion (skinkit.load_amass reads it)" if motion \
                else ""
            raise BodyModelError(f"{name}: missing key {key!r} (a body model file has "
                                 f"{', '.join(REQUIRED)}){hint}")
    return out


def load_body_model(path: PathLike, dtype: DTypeLike = np.float64) -> BodyModel:
    """Load an SMPL, SMPL+H, SMPL-X, MANO or FLAME model file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.pkl`` as distributed (including the original chumpy pickles, read without chumpy
        and without running code from the file) or a ``.npz``; the keys smplx 0.1.28 reads
        (``v_template``, ``shapedirs``, ``posedirs``, ``J_regressor`` dense or scipy-sparse,
        ``weights``, ``kintree_table``, ``f``).  Other keys (landmarks, hand PCA) are ignored.
    dtype : numpy.float32 or numpy.float64
        Precision of the model's arrays and of every computation.

    Returns
    -------
    BodyModel; its kind follows from the joint count (24 SMPL, 52 SMPL+H, 55 SMPL-X, 16 MANO,
    5 FLAME).  An SMPL-X or FLAME file with at least 400 shape columns has 300 shape then 100
    expression coefficients (smplx's SHAPE_SPACE_DIM); with fewer, 10 shape and the rest
    expression (at most 10 for FLAME), as smplx.

    Raises
    ------
    skinkit.BodyModelError (a ValueError)
        A missing key or one of the wrong shape (the message names the key and the expected
        shape), a pickle that needs anything but arrays, an unknown joint count; a glTF, FBX
        or BVH file (the message says what the file looks like and which function reads it).
    OSError
        The file cannot be read.
    """
    return BodyModel(read_body_arrays(path), dtype=dtype, source=str(path))


__all__ = ["BodyModelError", "KINDS", "MAX_ARRAY_BYTES", "REQUIRED", "find_body_model",
           "load_body_model", "read_body_arrays", "read_npz", "read_npz_text"]
