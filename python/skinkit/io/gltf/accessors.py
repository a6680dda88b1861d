"""The byte layer of the glTF reader: buffers, buffer views and accessors (glTF 2.0 sections 3.6.1
"Buffers and Buffer Views" and 3.6.2 "Accessors", sparse accessors included).

An :class:`Accessors` object decodes each accessor once (cached) into a ``(count, n)`` NumPy
array: integers as stored, normalized integers as float64 (``c / max``, at least -1 if signed;
the rule KHR_mesh_quantization relies on), floats as float32.  Every index, offset and count is
checked against the bytes that exist before anything is allocated from it, and buffer URIs may
only be ``data:`` base64 URIs or relative paths that stay inside the model's folder.
"""
from __future__ import annotations

import base64
import os
from pathlib import Path, PureWindowsPath
from typing import AbstractSet, Any, Dict, Optional, Sequence, Tuple, Union
from urllib.parse import unquote, urlsplit

import numpy as np
from numpy.typing import DTypeLike, NDArray

from .fields import GltfError, Json, int_field, join, list_field, obj
from ...limits import Budget

Kinds = AbstractSet[Tuple[int, bool]]
"""Allowed (componentType, normalized) pairs of an accessor."""

COMPONENTS: Dict[int, np.dtype[Any]] = {
    5120: np.dtype("<i1"), 5121: np.dtype("<u1"), 5122: np.dtype("<i2"), 5123: np.dtype("<u2"),
    5125: np.dtype("<u4"), 5126: np.dtype("<f4")}
COMPONENT_NAMES = {5120: "BYTE", 5121: "UNSIGNED_BYTE", 5122: "SHORT", 5123: "UNSIGNED_SHORT",
                   5125: "UNSIGNED_INT", 5126: "FLOAT"}
_TYPES = {"SCALAR": (1, 1), "VEC2": (1, 2), "VEC3": (1, 3), "VEC4": (1, 4),
          "MAT2": (2, 2), "MAT3": (3, 3), "MAT4": (4, 4)}  # (columns, rows)

# Allowed (componentType, normalized) pairs, for ``Accessors.get``; None allows any.
FLOAT = frozenset({(5126, False)})
UNORM = frozenset({(5121, True), (5123, True)})
SNORM = frozenset({(5120, True), (5122, True)})
INT8_16 = frozenset({(5120, False), (5121, False), (5122, False), (5123, False)})
JOINT_INDEX = frozenset({(5121, False), (5123, False)})
VERTEX_INDEX = frozenset({(5121, False), (5123, False), (5125, False)})


def _normalize(a: NDArray[Any]) -> NDArray[Any]:
    """Normalized integers to float64 (glTF 2.0 "Accessors"): c / max, at least -1 if signed."""
    info = np.iinfo(a.dtype)
    f = a / np.float64(info.max)
    return np.maximum(f, -1.0) if info.min < 0 else f


def _check_range(a: NDArray[Any], ctype: int, what: str) -> None:
    """Refuse values (decoded by an extension) that the accessor's componentType cannot hold:
    a cast would wrap them (joint 256 as UNSIGNED_BYTE becomes joint 0) or make them inf."""
    if a.dtype.kind not in "iuf":
        raise GltfError(f"{what} are {a.dtype}, not numbers")
    if a.size == 0:
        return
    low, high = a.min(), a.max()
    target = COMPONENTS[ctype]
    info = np.iinfo(target) if target.kind in "iu" else np.finfo(target)
    if not (info.min <= low and high <= info.max):  # NaN fails too
        bad = low if not info.min <= low else high
        raise GltfError(f"{what}: {bad} is out of the range [{info.min}, {info.max}] of "
                        f"{COMPONENT_NAMES[ctype]}")
    if target.kind in "iu" and a.dtype.kind == "f" and np.any(a != np.round(a)):
        raise GltfError(f"{what} are not whole numbers, the accessor is "
                        f"{COMPONENT_NAMES[ctype]}")


class Accessors:
    """Validating decoder of the accessors of one glTF document (results cached by index).

    Parameters
    ----------
    doc : dict
        The glTF JSON.
    bin_chunk : memoryview or None
        The BIN chunk of a .glb (the data of a ``buffers[0]`` without ``uri``).
    folder : Path
        The model's folder, resolved: relative buffer URIs must stay inside it.
    file_bytes : int
        The size of the .glb or .gltf file: with the buffers' bytes, what the arrays decoded
        from the file are bounded by (``skinkit.limits``; see :meth:`charge`).
    """

    def __init__(self, doc: Json, bin_chunk: Optional[memoryview], folder: Path,
                 file_bytes: int):
        self.doc = doc
        self.folder = folder
        self.views = list_field(doc, "bufferViews", "")
        self.accessors = list_field(doc, "accessors", "")
        self.buffers = [self._buffer(b, bin_chunk)
                        for b in range(len(list_field(doc, "buffers", "")))]
        self.buffer_bytes = sum(len(b) for b in self.buffers)
        self.budget = Budget(file_bytes + self.buffer_bytes)
        self._decoded: Dict[int, NDArray[Any]] = {}

    def charge(self, nbytes: int, path: str, what: str) -> None:
        """Count ``nbytes`` about to be allocated for ``what`` (at JSON path ``path``) against
        the file's budget: a GltfError naming the path, the bytes and the limit past it.

        Every array the model is built from is charged: each decoded accessor once, and every
        copy made of it (one accessor may serve thousands of channels or meshes)."""
        message = self.budget.charge(int(nbytes), what)
        if message is not None:
            raise GltfError(f"{path}: {message}")

    def get(self, owner: Json, key: str, path: str, kinds: Sequence[str],
            allowed: Optional[Kinds]) -> NDArray[Any]:
        """Decode the accessor ``owner[key]`` refers to as a (count, n) array, checking its kind.

        ``kinds`` are the allowed types ("VEC3", ...), ``allowed`` the allowed
        (componentType, normalized) pairs (None: any).  Errors about the reference name
        ``path.key``.
        """
        k = int_field(owner, key, path, hi=len(self.accessors))
        ctype, kind, normalized = self._meta(k)
        if kind not in kinds or (allowed is not None and (ctype, normalized) not in allowed):
            wanted = ", ".join(sorted(("normalized " if n else "") + COMPONENT_NAMES[c]
                                      for c, n in allowed or ()))
            raise GltfError(f"{join(path, key)}: accessors[{k}] is {kind} "
                            f"{'normalized ' if normalized else ''}{COMPONENT_NAMES[ctype]}, "
                            f"expected {' or '.join(kinds)}{' of ' + wanted if wanted else ''}")
        if k not in self._decoded:
            self._decoded[k] = self._decode(k)
        return self._decoded[k]

    def cast(self, a: NDArray[Any], dtype: DTypeLike, path: str) -> NDArray[Any]:
        """A C-contiguous copy of ``a`` as ``dtype``, charged to the file's budget (see
        :meth:`charge`): contiguous, so the kernels read it in place and pickles carry it out of
        band (NumPy < 1.25 pickles a transposed array, such as inverse bind matrices, in band)."""
        dtype = np.dtype(dtype)
        self.charge(a.size * dtype.itemsize, path, f"{a.size} {dtype} values")
        # a signalling NaN in the file's floats raises the "invalid" flag when widened: it stays
        # a NaN (which the model's own checks see), without a RuntimeWarning
        with np.errstate(invalid="ignore"):
            return a.astype(dtype, order="C")

    def view_bytes(self, v: int) -> memoryview:
        """The bytes of ``bufferViews[v]`` (for compressed data that extensions decode)."""
        return self._view(v)[0]

    def provide(self, owner: Json, key: str, path: str, values: NDArray[Any]) -> None:
        """Cache ``values`` as the data of the accessor ``owner[key]`` refers to (decoded by an
        extension, e.g. Draco): they must have its count and width; they are converted to its
        componentType, and normalized integers decoded, as stored data would be."""
        k = int_field(owner, key, path, hi=len(self.accessors))
        ctype, kind, normalized = self._meta(k)
        count = int_field(self.accessors[k], "count", f"accessors[{k}]", lo=1)
        cols, rows = _TYPES[kind]
        a = np.asarray(values)
        where = join(path, key)
        if a.shape != (count, cols * rows):
            raise GltfError(f"{where}: the decoded data has shape {a.shape}, "
                            f"accessors[{k}] is {count} x {kind}")
        _check_range(a, ctype, f"{where}: the decoded values of accessors[{k}]")
        a = self.cast(a, COMPONENTS[ctype].newbyteorder("="), where)
        if normalized:
            self.charge(a.size * 8, where, f"{a.size} normalized values as float64")
        self._decoded[k] = _normalize(a) if normalized else a

    def _buffer(self, b: int, bin_chunk: Optional[memoryview]) -> memoryview:
        path = f"buffers[{b}]"
        buffer = obj(self.doc["buffers"][b], path)
        length = int_field(buffer, "byteLength", path, lo=1)
        uri = buffer.get("uri")
        data: Union[bytes, memoryview]
        if uri is None:
            if b != 0 or bin_chunk is None:
                raise GltfError(f"{path}.uri: missing; only the first buffer of a .glb with a BIN "
                                "chunk may omit it")
            data = bin_chunk
        elif not isinstance(uri, str):
            raise GltfError(f"{path}.uri: expected a string")
        elif uri[:5].lower() == "data:":
            header, comma, payload = uri[5:].partition(",")
            if not comma or not header.endswith(";base64"):
                raise GltfError(f"{path}.uri: only base64 data: URIs are supported")
            try:
                data = base64.b64decode(payload, validate=True)
            except ValueError as e:   # binascii.Error, or non-ASCII characters in the payload
                raise GltfError(f"{path}.uri: bad base64 ({e})") from None
        else:
            data = self._file(uri, length, f"{path}.uri")
        if len(data) < length:
            raise GltfError(f"{path}.byteLength: {length} bytes declared, the data has {len(data)}")
        return memoryview(data)[:length]

    def file_path(self, uri: str, path: str) -> Tuple[Path, int]:
        """The file a relative URI names inside the model's folder, and its size (GltfError
        naming ``path`` for a URI with a scheme, an absolute one, one resolving outside the
        folder or naming no file); nothing is read."""
        if urlsplit(uri).scheme:
            raise GltfError(f"{path}: {uri!r:.60} has a URI scheme; only data: URIs and relative "
                            "file paths are supported")
        name = unquote(uri)
        if name.startswith(("/", "\\")) or PureWindowsPath(name).drive or os.path.isabs(name):
            raise GltfError(f"{path}: {uri!r:.60} is absolute; buffer files must be relative to "
                            "the model's folder")
        try:
            target = (self.folder / name).resolve()
            inside = self.folder in target.parents
            size = target.stat().st_size if inside and target.is_file() else None
        except (OSError, ValueError, RuntimeError) as e:  # NUL, name too long, symlink loop
            raise GltfError(f"{path}: {uri!r:.60} is not a usable file name ({e!s:.80})") from None
        if not inside:
            raise GltfError(f"{path}: {uri!r:.60} resolves outside the model's folder")
        if size is None:
            raise GltfError(f"{path}: {uri!r:.60} is not a file")
        return target, size

    def _file(self, uri: str, length: int, path: str) -> bytes:
        """Read ``length`` bytes of the file a relative URI names inside the model's folder."""
        target, size = self.file_path(uri, path)
        if size < length:
            raise GltfError(f"{path}: {uri!r:.60} has {size} bytes, byteLength says {length}")
        with open(target, "rb") as f:
            return f.read(length)

    def _view(self, v: int) -> Tuple[memoryview, Optional[int]]:
        """Bytes of bufferViews[v] (memoryview) and its byteStride (None when absent)."""
        path = f"bufferViews[{v}]"
        view = obj(self.views[v], path)
        b = int_field(view, "buffer", path, hi=len(self.buffers))
        offset = int_field(view, "byteOffset", path, default=0)
        length = int_field(view, "byteLength", path, lo=1)
        stride = int_field(view, "byteStride", path, default=None, lo=4, hi=253)
        if stride is not None and stride % 4:
            raise GltfError(f"{path}.byteStride: {stride} is not a multiple of 4")
        if offset + length > len(self.buffers[b]):
            raise GltfError(f"{path}: byteOffset {offset} + byteLength {length} exceeds the "
                            f"{len(self.buffers[b])} bytes of buffers[{b}]")
        return self.buffers[b][offset:offset + length], stride

    def _read(self, owner: Json, path: str, count: int, kind: str, dtype: np.dtype[Any],
              strided: bool) -> NDArray[Any]:
        """Copy ``count`` elements out of ``owner``'s bufferView/byteOffset as a (count, n) array.

        Matrix columns start on 4-byte boundaries (glTF 2.0 "Data Alignment"); ``strided``
        honours the view's byteStride (sparse indices and values are always tightly packed).
        """
        v = int_field(owner, "bufferView", path, hi=len(self.views))
        data, stride = self._view(v)
        offset = int_field(owner, "byteOffset", path, default=0)
        cols, rows = _TYPES[kind]
        size = dtype.itemsize
        column = rows * size if cols == 1 else -(-rows * size // 4) * 4
        element = cols * column
        if not strided or stride is None:
            stride = element
        elif stride < element:
            raise GltfError(f"bufferViews[{v}].byteStride: {stride} is smaller than the "
                            f"{element}-byte elements of {path}")
        need = offset + stride * (count - 1) + element
        if need > len(data):
            raise GltfError(f"{path}: count {count} x stride {stride} from byteOffset {offset} "
                            f"needs {need} bytes, bufferViews[{v}] has {len(data)}")
        # the copy is charged: many accessors may read one view
        self.charge(count * cols * rows * size, path, f"{count} {kind} elements")
        raw: NDArray[Any] = np.ndarray((count, cols, rows), dtype=dtype, buffer=data,
                                       offset=offset, strides=(stride, column, size))
        return np.array(raw, dtype=dtype.newbyteorder("="), order="C").reshape(count, cols * rows)

    def _decode(self, k: int) -> NDArray[Any]:
        """accessors[k] as a (count, n) array: ints as stored, normalized ints as float64."""
        path = f"accessors[{k}]"
        acc = self.accessors[k]
        ctype, kind, normalized = self._meta(k)
        dtype = COMPONENTS[ctype]
        count = int_field(acc, "count", path, lo=1)
        cols, rows = _TYPES[kind]
        if "bufferView" in acc:
            out = self._read(acc, path, count, kind, dtype, strided=True)
        else:
            size = count * cols * rows * dtype.itemsize
            if size > self.buffer_bytes:
                raise GltfError(f"{path}.count: {count} elements without a bufferView take "
                                f"{size} bytes, more than the {self.buffer_bytes} buffer bytes "
                                "of the file")
            self.charge(size, path, f"{count} {kind} elements")
            out = np.zeros((count, cols * rows), dtype=dtype.newbyteorder("="))
        if "sparse" in acc:
            self._sparse(acc, path, count, kind, dtype, out)
        if normalized:
            self.charge(out.size * 8, path, f"{out.size} normalized values as float64")
            return _normalize(out)
        return out

    def _sparse(self, acc: Json, path: str, count: int, kind: str, dtype: np.dtype[Any],
                out: NDArray[Any]) -> None:
        """Write an accessor's sparse substitutions into ``out`` (glTF 2.0 "Sparse Accessors")."""
        path = f"{path}.sparse"
        sparse = obj(acc["sparse"], path)
        n = int_field(sparse, "count", path, lo=1, hi=count + 1)
        ipath = f"{path}.indices"
        indices = obj(sparse.get("indices"), ipath)
        ctype = int_field(indices, "componentType", ipath)
        if (ctype, False) not in VERTEX_INDEX:
            raise GltfError(f"{ipath}.componentType: {ctype} is not UNSIGNED_BYTE, "
                            "UNSIGNED_SHORT or UNSIGNED_INT")
        index = self._read(indices, ipath, n, "SCALAR", COMPONENTS[ctype], False)[:, 0]
        index = index.astype(np.int64)
        if index.max() >= count:
            raise GltfError(f"{ipath}: index {index.max()} is out of range for count {count}")
        if np.any(np.diff(index) <= 0):
            raise GltfError(f"{ipath}: indices must be strictly increasing")
        vpath = f"{path}.values"
        out[index] = self._read(obj(sparse.get("values"), vpath), vpath, n, kind, dtype, False)

    def _meta(self, k: int) -> Tuple[int, str, bool]:
        """componentType, type and normalized of accessors[k], checked."""
        path = f"accessors[{k}]"
        acc = obj(self.accessors[k], path)
        ctype = int_field(acc, "componentType", path)
        if ctype not in COMPONENTS:
            raise GltfError(f"{path}.componentType: {ctype} is not a glTF component type")
        kind = acc.get("type")
        if not isinstance(kind, str) or kind not in _TYPES:
            raise GltfError(f"{path}.type: {kind!r:.40} is not one of {sorted(_TYPES)}")
        normalized = acc.get("normalized", False)
        if type(normalized) is not bool or (normalized and ctype in (5125, 5126)):
            raise GltfError(f"{path}.normalized: must be false or absent for "
                            f"{COMPONENT_NAMES[ctype]}, a boolean otherwise")
        return ctype, kind, normalized
