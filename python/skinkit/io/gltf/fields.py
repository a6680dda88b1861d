"""Checked access to the JSON of a glTF 2.0 document: every error names the JSON path.

Shared by the byte layer (``accessors``) and model assembly (``nodes``,
``meshes``, ``clips``).  Every :class:`GltfError` raised here starts with the JSON path of
the problem, e.g. ``accessors[3]: ...`` or ``nodes[4].children: ...``; ``load_gltf`` puts
the file in front (``fox.glb: nodes[4].children: ...``).
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypeVar, Union, overload

import numpy as np
from numpy.typing import NDArray

from ...limits import MAX_FILE_VALUE
from ...kernels._types import PathLike

Json = Dict[str, Any]
"""A JSON object of the document (its values are whatever the file holds)."""
MISSING: Any = object()
_D = TypeVar("_D")


class GltfError(ValueError):
    """A file that is not valid glTF 2.0 for what skinkit reads, or that points outside its folder.

    The message starts with the file, then the JSON path of the problem
    (``fox.glb: nodes[4].children: ...``); ``file`` holds the file (None for an error raised
    by the parts of the reader, which know JSON paths, not files).
    """

    file: Optional[str] = None

    @classmethod
    def in_file(cls, file: PathLike, message: str) -> "GltfError":
        """The error ``<file>: <message>``, with ``file`` set."""
        error = cls(f"{os.fspath(file)}: {message}")
        error.file = os.fspath(file)
        return error


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@overload
def int_field(obj: Json, key: str, path: str, *, lo: int = 0, hi: Optional[int] = None) -> int: ...
@overload
def int_field(obj: Json, key: str, path: str, default: _D, lo: int = 0,
              hi: Optional[int] = None) -> Union[int, _D]: ...
def int_field(obj: Json, key: str, path: str, default: Any = MISSING, lo: int = 0,
              hi: Optional[int] = None) -> Any:
    """``obj[key]`` as an int in [lo, hi) (``path`` is the path of ``obj``); default if absent."""
    if key not in obj:
        if default is MISSING:
            raise GltfError(f"{join(path, key)}: missing")
        return default
    value = obj[key]
    if type(value) is not int or value < lo or (hi is not None and value >= hi):
        bound = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi})"
        raise GltfError(f"{join(path, key)}: {value!r:.40} is not {bound}")
    return value


def list_field(obj: Json, key: str, path: str, required: bool = False) -> List[Any]:
    """``obj[key]`` as a list; an empty list if absent and not required."""
    if key not in obj and not required:
        return []
    value = obj.get(key)
    if not isinstance(value, list) or (required and not value):
        raise GltfError(f"{join(path, key)}: expected a non-empty array")
    return value


def objects(value: Json, key: str, path: str,
            required: bool = False) -> List[Tuple[int, str, Json]]:
    """``(index, path, item)`` for every item of the array ``value[key]``, each a JSON object."""
    where = join(path, key)
    return [(i, f"{where}[{i}]", obj(item, f"{where}[{i}]"))
            for i, item in enumerate(list_field(value, key, path, required))]


def obj(value: object, path: str) -> Json:
    """``value`` if it is a JSON object."""
    if not isinstance(value, dict):
        raise GltfError(f"{path}: expected an object, got {type(value).__name__}")
    return value


def name_field(value: Json, path: str) -> Optional[str]:
    name = value.get("name")
    if name is not None and not isinstance(name, str):
        raise GltfError(f"{path}.name: expected a string")
    return name


def numbers_field(value: Json, key: str, path: str, n: Optional[int],
                  default: Optional[Sequence[float]]) -> NDArray[np.float64]:
    """``value[key]`` as a float64 array of ``n`` finite numbers of magnitude at most
    ``skinkit.limits.MAX_FILE_VALUE`` (any length for n = None); ``default`` if absent."""
    x = value.get(key, default)
    # abs(v) <= the limit is False for NaN and inf too
    if (not isinstance(x, (list, tuple)) or (n is not None and len(x) != n)
            or not all(type(v) in (int, float) and abs(v) <= MAX_FILE_VALUE for v in x)):
        count = "" if n is None else f"{n} "
        raise GltfError(f"{join(path, key)}: expected {count}finite numbers of magnitude at "
                        f"most {MAX_FILE_VALUE:g}")
    return np.array(x, dtype=np.float64)
