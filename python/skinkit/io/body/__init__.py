"""Reading SMPL-family body model files (.pkl and .npz) into plain NumPy arrays, as data.

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
from numpy.typing import NDArray

from ...kernels._types import PathLike
from ...limits import MAX_ARRAY_BYTES
from ..detect import check_format
from .arrays import BodyModelError
from .layouts import KINDS, REQUIRED, find_body_model
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


__all__ = ["BodyModelError", "KINDS", "MAX_ARRAY_BYTES", "REQUIRED", "find_body_model",
           "read_body_arrays", "read_npz", "read_npz_text"]
