"""Reading SMPL-family body model files (.pkl and .npz) into plain NumPy arrays.

The files are those the model authors distribute, with the keys and layouts smplx 0.1.28 reads:
``v_template`` (V, 3), ``shapedirs`` (V, 3, S), ``posedirs`` (V, 3, P), ``J_regressor`` (J, V)
dense or scipy-sparse, ``weights`` (V, J), ``kintree_table`` (2, J) and ``f`` (F, 3).

The original .pkl files were written by Python 2 with chumpy objects inside.  They are read here
without chumpy and without running any code from the file: a restricted unpickler resolves only
the globals that rebuild NumPy arrays, turns every chumpy class into a placeholder whose stored
values (``x``) become a NumPy array, rebuilds scipy.sparse matrices from their stored arrays
(so SciPy is not needed either), and refuses every other global.
"""
from __future__ import annotations

import importlib
import os
import pickle
import zipfile
from types import ModuleType
from typing import Any, Dict

import numpy as np
from numpy.typing import NDArray

from .._types import PathLike

# the keys a model needs; SMPL-X's landmark and hand-PCA keys are optional and ignored
REQUIRED = ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table", "f")


class BodyModelError(ValueError):
    """A body model file that cannot be read: the message names the file and the key."""


class _Stored:
    """Placeholder for an object of an allowed class (chumpy, scipy.sparse): keeps its class
    name and its pickled state, never runs the class's code."""

    cls_name = "?"

    def __setstate__(self, state: object) -> None:
        self.state = state if isinstance(state, dict) else {"_state": state}


def _placeholder(module: str, name: str) -> type:
    return type(name, (_Stored,), {"cls_name": f"{module}.{name}"})


def _reconstructor(cls: object, base: object, state: object) -> _Stored:
    """copyreg._reconstructor of Python 2 pickles, for placeholders only."""
    if not (isinstance(cls, type) and issubclass(cls, _Stored)) or base is not object:
        raise pickle.UnpicklingError("copy_reg._reconstructor of a refused class")
    return cls()


_NUMPY_GLOBALS = {("numpy", "ndarray"), ("numpy", "dtype")}
_MULTIARRAY = ("numpy.core.multiarray", "numpy._core.multiarray")


def _multiarray() -> ModuleType:
    """numpy._core.multiarray (NumPy 2) or numpy.core.multiarray (NumPy 1)."""
    try:
        return importlib.import_module("numpy._core.multiarray")
    except ImportError:  # NumPy 1
        return importlib.import_module("numpy.core.multiarray")


class _RestrictedUnpickler(pickle.Unpickler):
    """Resolves only the globals that rebuild arrays; chumpy and scipy.sparse classes become
    placeholders; anything else raises UnpicklingError naming the global."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _NUMPY_GLOBALS:
            return getattr(np, name)
        if module in _MULTIARRAY and name in ("_reconstruct", "scalar"):
            return getattr(_multiarray(), name)
        if (module, name) == ("_codecs", "encode"):
            import codecs
            return codecs.encode
        if module in ("builtins", "__builtin__") and name in ("set", "frozenset", "object"):
            return {"set": set, "frozenset": frozenset, "object": object}[name]
        if module in ("copy_reg", "copyreg") and name == "_reconstructor":
            return _reconstructor
        if module == "chumpy" or module.startswith("chumpy.") or \
                module.startswith("scipy.sparse"):
            return _placeholder(module, name)
        raise pickle.UnpicklingError(f"refused global {module}.{name} (a body model file holds "
                                     "only arrays)")


def _to_array(value: object, key: str) -> NDArray[Any]:
    """A loaded value as an ndarray: placeholders of chumpy arrays give their stored ``x``,
    scipy.sparse matrices become dense; a chumpy expression (no stored values) is refused."""
    if isinstance(value, _Stored):
        st = value.state
        if "x" in st and isinstance(st["x"], np.ndarray):
            return st["x"]
        if {"data", "indices", "indptr"} <= st.keys():
            return _dense_from_compressed(st, value.cls_name.rsplit(".", 1)[-1][:3], key)
        raise BodyModelError(f"{key} is a {value.cls_name} object without stored values (a "
                             "chumpy expression); only arrays can be read")
    return np.asarray(value)


def _dense_from_compressed(st: Dict[str, Any], fmt: str, key: str) -> NDArray[Any]:
    """A scipy.sparse CSC or CSR matrix's pickled state as a dense array."""
    shape = st.get("_shape", st.get("shape"))
    data, indices, indptr = (np.asarray(st[k]) for k in ("data", "indices", "indptr"))
    if shape is None or fmt not in ("csc", "csr"):
        raise BodyModelError(f"{key}: a sparse matrix of unknown shape or format {fmt!r}")
    rows, cols = (int(s) for s in shape)
    outer = cols if fmt == "csc" else rows
    if indptr.shape != (outer + 1,) or indptr[-1] > data.size or indices.size < indptr[-1]:
        raise BodyModelError(f"{key}: sparse matrix arrays do not match its shape {shape}")
    dense = np.zeros((rows, cols))
    major = np.repeat(np.arange(outer), np.diff(indptr))
    minor = indices[:indptr[-1]]
    if (minor < 0).any() or (minor >= (rows if fmt == "csc" else cols)).any():
        raise BodyModelError(f"{key}: sparse matrix index out of range for shape {shape}")
    if fmt == "csc":
        np.add.at(dense, (minor, major), data[:indptr[-1]])
    else:
        np.add.at(dense, (major, minor), data[:indptr[-1]])
    return dense


def _read_pkl(path: PathLike) -> Dict[str, Any]:
    with open(path, "rb") as f:
        try:
            data = _RestrictedUnpickler(f, encoding="latin1").load()
        except (pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError,
                IndexError, KeyError) as e:
            raise BodyModelError(f"{os.fspath(path)}: not a readable body model pickle: {e}") \
                from None
    if not isinstance(data, dict):
        raise BodyModelError(f"{os.fspath(path)}: expected a pickled dict of arrays, got "
                             f"{type(data).__name__}")
    return data


def _read_npz(path: PathLike) -> Dict[str, Any]:
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise BodyModelError(f"{os.fspath(path)}: not a readable .npz body model: {e}") from None


def read_body_arrays(path: PathLike) -> Dict[str, NDArray[Any]]:
    """The model arrays of a .pkl or .npz file, keyed as in the file (float64 / int64).

    Raises BodyModelError (a ValueError) naming the file and the key for a missing key, a
    refused pickle global or a chumpy expression; OSError when the file cannot be opened.
    """
    name = os.fspath(path)
    with open(path, "rb") as f:
        magic = f.read(2)
    raw = _read_npz(path) if magic == b"PK" else _read_pkl(path)
    out = {}
    for key in REQUIRED:
        if key not in raw:
            raise BodyModelError(f"{name}: missing key {key!r} (a body model file has "
                                 f"{', '.join(REQUIRED)})")
        try:
            a = _to_array(raw[key], key)
        except BodyModelError as e:
            raise BodyModelError(f"{name}: {e}") from None
        if a.dtype.kind not in "biuf":
            raise BodyModelError(f"{name}: {key} must be a numeric array, got dtype {a.dtype}")
        out[key] = a
    return out
