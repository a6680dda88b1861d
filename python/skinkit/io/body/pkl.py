"""Body-model pickles read as data: a restricted unpickler whose NumPy globals are inert
stand-ins.

``numpy.dtype``, ``numpy.ndarray``, ``multiarray._reconstruct``, ``multiarray.scalar`` and
``numeric._frombuffer`` resolve to classes and functions here that only record their arguments
and the state BUILD gives them; chumpy and scipy.sparse classes become placeholders keeping
their pickled state; every other global is refused.  The arrays a model needs are then rebuilt
by ``arrays`` from the recorded dtype descr, byte order, shape and bytes, after checking them.
So no code from the file runs and no NumPy constructor sees a value from the file (issue 17: a
version-3 dtype state with an object dtype's flags cleared made ``ndarray.__setstate__`` take
file bytes as object pointers).  Python 2 pickles (``encoding="latin1"``) and protocols 0-5 read.
"""
from __future__ import annotations

import codecs
import io
import os
import pickle
import struct
from typing import Any, Dict, List

import numpy as np
from numpy.typing import NDArray

from ...kernels._types import PathLike
from ...limits import MAX_PICKLE_BYTES
from ...body.kinds import BodyModelError
from .arrays import dense_from_compressed, from_bytes, numeric_dtype


class _Recorded:
    """A stand-in that records the state BUILD gives it and nothing else."""

    state: Any = None

    def __setstate__(self, state: object) -> None:
        self.state = state


class _Dtype(_Recorded):
    """``numpy.dtype(descr, align, copy)``, recorded."""

    def __init__(self, *args: object) -> None:
        self.args = args


class _Array(_Recorded):
    """``numpy.ndarray`` (the class ``_reconstruct`` is given, and an array stand-in): its
    state is ``(version, shape, dtype, fortran, data)``."""

    def __init__(self, *args: object) -> None:
        self.args = args


class _Scalar(_Recorded):
    """``multiarray.scalar(dtype, data)``: a NumPy scalar, recorded."""

    def __init__(self, dtype: object = None, data: object = b"") -> None:
        self.dtype, self.data = dtype, data


class _FromBuffer(_Recorded):
    """``numeric._frombuffer(buffer, dtype, shape, order)`` of protocol 5, recorded."""

    def __init__(self, buf: object = None, dtype: object = None, shape: object = None,
                 order: object = "C") -> None:
        self.buf, self.dtype, self.shape, self.order = buf, dtype, shape, order


class _Stored(_Recorded):
    """Placeholder for an object of an allowed class (chumpy, scipy.sparse): made by NEWOBJ or
    copy_reg._reconstructor without arguments; a call with arguments (a function of those
    modules) is refused."""

    cls_name = "?"

    def __init__(self, *args: object, **kwargs: object) -> None:
        if args or kwargs:
            raise pickle.UnpicklingError(f"refused call of {self.cls_name} (a body model file "
                                         "holds only arrays)")


def _reconstruct(cls: object = None, shape: object = None, typecode: object = None) -> _Array:
    """``multiarray._reconstruct(ndarray, (0,), b'b')``: an array stand-in awaiting BUILD."""
    if cls is not _Array:
        raise pickle.UnpicklingError("_reconstruct of a class other than numpy.ndarray")
    return _Array()


def _encode(text: object, encoding: str = "utf-8") -> bytes:
    """``_codecs.encode(str, 'latin1')``: how Python 3 pickles bytes at protocols 0-2."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode of something other than a latin1 str")
    return codecs.encode(text, "latin1")


def _placeholder(module: str, name: str) -> type:
    return type(name, (_Stored,), {"cls_name": f"{module}.{name}"})


def _reconstructor(cls: object, base: object, state: object = None) -> _Stored:
    """copy_reg._reconstructor of Python 2 pickles, for placeholders only."""
    if not (isinstance(cls, type) and issubclass(cls, _Stored)) or base is not object:
        raise pickle.UnpicklingError("copy_reg._reconstructor of a refused class")
    return cls()


_NUMPY = {"dtype": _Dtype, "ndarray": _Array}
_MULTIARRAY = {"_reconstruct": _reconstruct, "scalar": _Scalar}
_BUILTINS = {"set": set, "frozenset": frozenset, "object": object}


class _Unpickler(pickle._Unpickler):
    """Resolves the globals of a body-model pickle to stand-ins and placeholders; anything else
    raises UnpicklingError naming the global.

    The pure-Python unpickler: its memo is a dict, where the C one grows an array to the index
    a PUT opcode names (a 191-byte file with LONG_BINPUT 175726962 made it allocate 2.7 GB)."""

    dispatch = dict(pickle._Unpickler.dispatch)
    stack: List[Any]   # the pure-Python unpickler's stack (not in typeshed's stub)

    def _load_build(self) -> None:
        """BUILD only on a stand-in or placeholder (setting attributes of anything else, such
        as the stand-in classes themselves, would change them for later files)."""
        if not isinstance(self.stack[-2], _Recorded):
            raise pickle.UnpicklingError(f"BUILD on a {type(self.stack[-2]).__name__}, not an "
                                         "array or placeholder")
        state = self.stack.pop()
        self.stack[-1].__setstate__(state)

    dispatch[pickle.BUILD[0]] = _load_build  # type: ignore[assignment]

    def find_class(self, module: str, name: str) -> Any:
        if module == "numpy" and name in _NUMPY:
            return _NUMPY[name]
        if module in ("numpy.core.multiarray", "numpy._core.multiarray") and name in _MULTIARRAY:
            return _MULTIARRAY[name]
        if module in ("numpy.core.numeric", "numpy._core.numeric") and name == "_frombuffer":
            return _FromBuffer
        if (module, name) == ("_codecs", "encode"):
            return _encode
        if module in ("builtins", "__builtin__") and name in _BUILTINS:
            return _BUILTINS[name]
        if module in ("copy_reg", "copyreg") and name == "_reconstructor":
            return _reconstructor
        if module == "chumpy" or module.startswith(("chumpy.", "scipy.sparse")):
            return _placeholder(module, name)
        raise pickle.UnpicklingError(f"refused global {module}.{name} (a body model file holds "
                                     "only arrays)")


_LOAD_ERRORS = (pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError,
                IndexError, KeyError, OverflowError, RecursionError, MemoryError, LookupError,
                struct.error)


def read_pickle(path: PathLike) -> Dict[str, Any]:
    """The dict a body-model pickle holds, its arrays as stand-ins (see ``to_array``)."""
    name = os.fspath(path)
    with open(path, "rb") as f:
        # the size from the file system, checked before reading: read(n) allocates n bytes up
        # front, so a bound as the read's size would allocate the bound for any file
        size = os.fstat(f.fileno()).st_size
        if size > MAX_PICKLE_BYTES:
            raise BodyModelError(f"{name}: a pickle of {size} bytes, more than the limit of "
                                 f"{MAX_PICKLE_BYTES} bytes (MAX_PICKLE_BYTES)")
        raw = f.read(size)
    try:
        data = _Unpickler(io.BytesIO(raw), encoding="latin1").load()
    except _LOAD_ERRORS as e:
        raise BodyModelError(f"{name}: not a readable body model pickle: "
                             f"{type(e).__name__}: {e}") from None
    if not isinstance(data, dict):
        raise BodyModelError(f"{name}: expected a pickled dict of arrays, got "
                             f"{type(data).__name__}")
    return data


def _dtype_of(stub: object, key: str) -> np.dtype[Any]:
    """The numeric dtype a recorded ``numpy.dtype(descr, 0, 1)`` with its version-3 state
    describes: (3, byteorder, None, None, None, elsize, alignment, 0)."""
    if not isinstance(stub, _Dtype) or not stub.args:
        raise BodyModelError(f"{key}: the array's dtype is a {type(stub).__name__}, not a "
                             "numpy.dtype")
    st = stub.state
    if not (isinstance(st, tuple) and len(st) == 8 and st[0] == 3 and st[2:5] == (None,) * 3
            and st[7] == 0):
        raise BodyModelError(f"{key}: dtype {stub.args[0]!r} has the state {st!r}; a numeric "
                             "dtype's is (3, byteorder, None, None, None, -1, -1, 0)")
    return numeric_dtype(stub.args[0], st[1], key)


def _bytes(data: object, key: str) -> object:
    """Array bytes as pickled: bytes, a Python 2 str read as latin1, or a bytearray."""
    if isinstance(data, str):
        try:
            return data.encode("latin1")
        except UnicodeEncodeError:
            raise BodyModelError(f"{key}: array data is text, not bytes") from None
    return data


def _array(stub: _Array, key: str) -> NDArray[Any]:
    st = stub.state
    if isinstance(st, tuple) and len(st) == 5 and st[0] == 1:
        st = st[1:]
    if not (isinstance(st, tuple) and len(st) == 4):
        raise BodyModelError(f"{key}: an ndarray without the state (shape, dtype, fortran, "
                             "data)")
    shape, dtype, fortran, data = st
    return from_bytes(_dtype_of(dtype, key), shape, _bytes(data, key), fortran, key)


def _sparse(value: _Stored, key: str) -> NDArray[Any]:
    st = value.state
    fmt = value.cls_name.rsplit(".", 1)[-1][:3]
    if not isinstance(st, dict) or fmt not in ("csc", "csr") or \
            not {"data", "indices", "indptr"} <= st.keys():
        raise BodyModelError(f"{key} is a {value.cls_name} without the stored arrays of a CSC or "
                             "CSR matrix (data, indices, indptr, shape)")
    parts = {k: to_array(st[k], f"{key}.{k}", objects=False) for k in ("data", "indices",
                                                                          "indptr")}
    shape = st.get("_shape", st.get("shape"))
    return dense_from_compressed(fmt, shape, key=key, **parts)


def to_array(value: object, key: str, objects: bool = True) -> NDArray[Any]:
    """The array a loaded value stands for: a recorded ndarray, scalar or protocol-5 buffer
    rebuilt from its checked bytes, and (``objects``) a chumpy object's stored ``x`` or a
    scipy.sparse CSC/CSR matrix made dense.  BodyModelError naming ``key`` for anything else
    (a chumpy expression, a list, a string, an object inside an object: no recursion)."""
    if isinstance(value, _Array):
        return _array(value, key)
    if isinstance(value, _Scalar):
        return from_bytes(_dtype_of(value.dtype, key), (), _bytes(value.data, key), False, key)
    if isinstance(value, _FromBuffer):
        if value.order not in ("C", "F"):
            raise BodyModelError(f"{key}: array order {value.order!r} is not 'C' or 'F'")
        return from_bytes(_dtype_of(value.dtype, key), value.shape,
                          _bytes(value.buf, key), value.order == "F", key)
    if isinstance(value, _Stored) and objects:
        st = value.state
        if isinstance(st, dict) and "x" in st:
            return to_array(st["x"], key, objects=False)
        if value.cls_name.startswith("scipy.sparse"):
            return _sparse(value, key)
        raise BodyModelError(f"{key} is a {value.cls_name} object without stored values (a "
                             "chumpy expression); only arrays can be read")
    raise BodyModelError(f"{key} is a {type(value).__name__}, not an array")
