"""A minimal protocol-2 pickle writer emitting the opcodes Python 2.7 wrote for the released
SMPL-family .pkl files (SHORT_BINSTRING / BINSTRING strings, ``numpy.core.multiarray``
globals, ``copy_reg`` / ``__builtin__`` names, chumpy objects through NEWOBJ + BUILD), opcode by
opcode, so tests and the layout generators can write those files without Python 2, NumPy 1,
chumpy or SciPy's pickling, and can also write the hostile variants (any dtype state, shape or
byte count).  The opcodes follow tiny_mano_chumpy_py2.pkl (written by Python 2.7.18 with chumpy
0.70, see README.md) and pickletools' documentation.
"""
import struct
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Str", "Global", "Call", "New", "dumps", "dtype", "ndarray", "ch", "sparse"]


class Str(bytes):
    """A Python 2 ``str`` (read back by ``encoding="latin1"`` as a Python 3 str)."""

    def __new__(cls, value):
        return super().__new__(cls, value.encode("latin1") if isinstance(value, str) else value)


class Global(NamedTuple):
    module: str
    name: str


class Call(NamedTuple):
    """``func(*args)`` (REDUCE), then BUILD with ``state`` unless it is None."""
    func: Any
    args: tuple
    state: Any = None


class New(NamedTuple):
    """``cls.__new__(cls)`` (EMPTY_TUPLE NEWOBJ), then BUILD with ``state``: how chumpy and
    scipy.sparse objects were pickled."""
    cls: Global
    state: Any


def _int(n: int) -> bytes:
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if 0 <= n < 65536:
        return b"M" + struct.pack("<H", n)
    if -2**31 <= n < 2**31:
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def _save(obj, out: list) -> None:
    if obj is None:
        out.append(b"N")
    elif obj is True or obj is False:
        out.append(b"\x88" if obj else b"\x89")
    elif isinstance(obj, int):
        out.append(_int(obj))
    elif isinstance(obj, float):
        out.append(b"G" + struct.pack(">d", obj))
    elif isinstance(obj, Str):
        out.append((b"U" + bytes([len(obj)])) if len(obj) < 256 else
                   (b"T" + struct.pack("<I", len(obj))))
        out.append(bytes(obj))
    elif isinstance(obj, str):
        raw = obj.encode("utf-8")
        out.append(b"X" + struct.pack("<I", len(raw)) + raw)
    elif isinstance(obj, Global):
        out.append(f"c{obj.module}\n{obj.name}\n".encode())
    elif isinstance(obj, Call):
        _save(obj.func, out)
        _save(tuple(obj.args), out)
        out.append(b"R")
        if obj.state is not None:
            _save(obj.state, out)
            out.append(b"b")
    elif isinstance(obj, New):
        _save(obj.cls, out)
        out.append(b")\x81")
        _save(obj.state, out)
        out.append(b"b")
    elif isinstance(obj, tuple):
        if not obj:
            out.append(b")")
        elif len(obj) <= 3:
            for x in obj:
                _save(x, out)
            out.append(b"\x85\x86\x87"[len(obj) - 1:len(obj)])
        else:
            out.append(b"(")
            for x in obj:
                _save(x, out)
            out.append(b"t")
    elif isinstance(obj, list):
        out.append(b"]")
        if obj:
            out.append(b"(")
            for x in obj:
                _save(x, out)
            out.append(b"e")
    elif isinstance(obj, dict):
        out.append(b"}")
        if obj:
            out.append(b"(")
            for k, v in obj.items():
                _save(Str(k) if isinstance(k, str) else k, out)
                _save(v, out)
            out.append(b"u")
    elif isinstance(obj, np.ndarray):
        _save(ndarray(obj), out)
    else:
        raise TypeError(f"py2pickle cannot write {type(obj).__name__}")


def dumps(obj) -> bytes:
    """``obj`` as a protocol-2 pickle; str dict keys are written as Python 2 strs."""
    out = [b"\x80\x02"]
    _save(obj, out)
    out.append(b".")
    return b"".join(out)


def dtype(descr: str, byteorder: str = "<", flags: int = 0, version: int = 3, elsize=-1) -> Call:
    """``numpy.dtype(descr, 0, 1)`` with NumPy's version-3 state, as NumPy 1.16 pickled it."""
    return Call(Global("numpy", "dtype"), (Str(descr), 0, 1),
                (version, Str(byteorder), None, None, None, elsize, -1, flags))


def ndarray(a=None, *, shape=None, dt=None, data=None, fortran=False) -> Call:
    """An ndarray as NumPy 1.16 pickled it (``_reconstruct`` then BUILD with ``(1, shape,
    dtype, fortran, bytes)``); the keywords override what ``a`` gives (hostile files)."""
    if a is not None:
        a = np.asarray(a)
        order = a.dtype.byteorder if a.dtype.byteorder in "<>|" else "<"
        shape = a.shape if shape is None else shape
        dt = dtype(a.dtype.str[1:], order) if dt is None else dt
        data = a.tobytes(order="F" if fortran else "C") if data is None else data
    return Call(Global("numpy.core.multiarray", "_reconstruct"),
                (Global("numpy", "ndarray"), (0,), Str("b")),
                (1, tuple(shape) if isinstance(shape, list) else shape, dt, fortran, Str(data)))


def ch(a) -> New:
    """A chumpy.ch.Ch holding ``a`` (its state as chumpy 0.70 pickled it)."""
    return New(Global("chumpy.ch", "Ch"), {
        "_make_sparse": False, "_dirty_vars": Call(Global("__builtin__", "set"), ([Str("x")],)),
        "_itr": None, "_depends_on_deps": {}, "_make_dense": False, "x": ndarray(a)})


def sparse(m, fmt="csc", module="scipy.sparse.csc", **override) -> New:
    """A scipy.sparse CSC/CSR matrix of the dense ``m`` as SciPy 1.2 pickled it."""
    m = np.asarray(m)
    major = m.T if fmt == "csc" else m
    nz = [np.flatnonzero(row) for row in major]
    state = {"indices": np.concatenate(nz).astype(np.int32) if nz else np.zeros(0, np.int32),
             "data": np.concatenate([row[i] for row, i in zip(major, nz)]) if nz else
             np.zeros(0), "maxprint": 50, "_shape": m.shape,
             "indptr": np.concatenate([[0], np.cumsum([len(i) for i in nz])]).astype(np.int32)}
    state.update(override)
    return New(Global(module, f"{fmt}_matrix"), state)
