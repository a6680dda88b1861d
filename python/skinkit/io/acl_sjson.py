"""Reader of ACL's raw clip files (``*.acl.sjson``, version 1 and later: nfrechette/acl-test-data).

SJSON is JSON with bare keys, ``=`` for ``:``, optional commas and ``//`` comments.  A clip file
holds ``clip`` (``name``, ``num_samples``, ``sample_rate``, ``error_threshold``), ``bones`` (``name``,
``parent`` by name, ``""`` for a root, ``vertex_distance``, ``bind_rotation`` (x, y, z, w),
``bind_translation``, ``bind_scale``) and ``tracks`` (per bone by name: ``rotations``,
``translations``, ``scales``, one row a sample, uniformly at ``sample_rate``).  Units are the
file's (centimetres for the CMU clips).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Tuple, Union

import numpy as np
from numpy.typing import NDArray

from ..limits import MAX_FPS, nodes_error
from ..model.clip import Channel, Clip
from ..model.records import Skeleton

_TOKEN = re.compile(r'\s+|//[^\n]*|"((?:[^"\\]|\\.)*)"|([{}\[\]=,:])|([^\s{}\[\]=,:"]+)')
MAX_SJSON_BYTES = 256 << 20


class SjsonError(ValueError):
    """A file that is not an ACL sjson clip; the message names the file and what is wrong."""


@dataclass
class AclClip:
    """What an ACL sjson clip holds: the skeleton (rest pose = the bind pose), the clip, the
    file's ``error_threshold`` and per-bone ``vertex_distance`` (the file's units)."""

    skeleton: Skeleton
    clip: Clip
    error_threshold: float
    vertex_distance: NDArray[Any]
    sample_rate: float
    num_samples: int


def _parse(text: str, where: str) -> Any:
    tokens: List[Tuple[str, Any]] = []
    for m in _TOKEN.finditer(text):
        if m.group(1) is not None:
            tokens.append(("s", m.group(1)))
        elif m.group(2) is not None:
            tokens.append(("p", m.group(2)))
        elif m.group(3) is not None:
            tokens.append(("w", m.group(3)))
    pos = 0

    def value() -> Any:
        nonlocal pos
        if pos >= len(tokens):
            raise SjsonError(f"{where}: the file ends inside a value")
        kind, tok = tokens[pos]
        pos += 1
        if kind == "s":
            return tok
        if kind == "w":
            if tok in ("true", "false"):
                return tok == "true"
            try:
                return float(tok)
            except ValueError:
                raise SjsonError(f"{where}: {tok!r:.40} is not a number") from None
        if tok == "[":
            items: List[Any] = []
            while True:
                if pos < len(tokens) and tokens[pos] == ("p", ","):
                    pos += 1
                if pos < len(tokens) and tokens[pos] == ("p", "]"):
                    pos += 1
                    return items
                items.append(value())
        if tok == "{":
            return members("}")
        raise SjsonError(f"{where}: unexpected {tok!r}")

    def members(end: str) -> Dict[str, Any]:
        nonlocal pos
        out: Dict[str, Any] = {}
        while True:
            if pos < len(tokens) and tokens[pos] == ("p", ","):
                pos += 1
            if pos >= len(tokens):
                if end:
                    raise SjsonError(f"{where}: the file ends inside an object")
                return out
            if tokens[pos] == ("p", end):
                pos += 1
                return out
            kind, key = tokens[pos]
            if kind == "p" or pos + 1 >= len(tokens) or tokens[pos + 1][1] not in ("=", ":"):
                raise SjsonError(f"{where}: expected 'key = value', got {key!r:.40}")
            pos += 2
            out[key] = value()

    return members("")


def _floats(x: Any, width: int, what: str, where: str) -> NDArray[Any]:
    try:
        a = np.asarray(x, np.float64)
    except (TypeError, ValueError):
        raise SjsonError(f"{where}: {what} is not an array of numbers") from None
    if a.ndim != 2 or a.shape[1] != width or not np.all(np.isfinite(a)):
        raise SjsonError(f"{where}: {what} must be rows of {width} finite numbers, got shape "
                         f"{a.shape}")
    return a


def load_acl_sjson(path: Union[str, Path], dtype: Any = np.float64) -> AclClip:
    """Read an ACL sjson clip.

    Parameters
    ----------
    path : str or Path
    dtype : float32 or float64
        Of the clip's keys.

    Returns
    -------
    AclClip
        The skeleton (its rest pose is the file's bind pose), the clip (one LINEAR channel per
        track the file lists, keys at ``i / sample_rate`` seconds), ``error_threshold`` and the
        bones' ``vertex_distance``, in the file's units.

    Raises
    ------
    SjsonError
        The file is not an sjson clip, a bone's parent is unknown or comes after it, a track has
        a number of samples other than ``num_samples``, or a size is out of bounds.
    """
    where = str(path)
    p = Path(path)
    if p.stat().st_size > MAX_SJSON_BYTES:
        raise SjsonError(f"{where}: {p.stat().st_size} bytes, more than {MAX_SJSON_BYTES}")
    doc = _parse(p.read_text(encoding="utf-8"), where)
    info, bones, tracks = doc.get("clip"), doc.get("bones"), doc.get("tracks", [])
    if not isinstance(info, dict) or not isinstance(bones, list) or not isinstance(tracks, list):
        raise SjsonError(f"{where}: expected 'clip', 'bones' and 'tracks'")
    rate = float(info.get("sample_rate", 30.0))
    count = info.get("num_samples", 0)
    if not 0 < rate <= MAX_FPS or not isinstance(count, float) or count != int(count) or count < 1:
        raise SjsonError(f"{where}: sample_rate {rate} or num_samples {count!r} out of range")
    err = nodes_error(len(bones), "bones")
    if err:
        raise SjsonError(f"{where}: {err}")
    names = [str(b.get("name", "")) if isinstance(b, dict) else "" for b in bones]
    index = {n: i for i, n in enumerate(names)}
    nb = len(bones)
    parents = np.full(nb, -1, np.int32)
    rest_t, rest_s = np.zeros((nb, 3)), np.ones((nb, 3))
    rest_r = np.tile([0.0, 0.0, 0.0, 1.0], (nb, 1))
    shell = np.zeros(nb)
    for i, b in enumerate(bones):
        if not isinstance(b, dict):
            raise SjsonError(f"{where}: bones[{i}] is not an object")
        parent = b.get("parent", "")
        if parent:
            if index.get(parent, nb) >= i:
                raise SjsonError(f"{where}: bone {names[i]!r} has parent {parent!r}, not a bone "
                                 "before it")
            parents[i] = index[parent]
        rest_r[i] = _floats([b.get("bind_rotation", rest_r[i])], 4, "bind_rotation", where)[0]
        rest_t[i] = _floats([b.get("bind_translation", rest_t[i])], 3, "bind_translation",
                            where)[0]
        rest_s[i] = _floats([b.get("bind_scale", rest_s[i])], 3, "bind_scale", where)[0]
        shell[i] = float(b.get("vertex_distance", 1.0))
    k = int(count)
    times = np.arange(k, dtype=np.float64) / rate
    channels = []
    for tr in tracks:
        node = index.get(str(tr.get("name"))) if isinstance(tr, dict) else None
        if node is None:
            raise SjsonError(f"{where}: a track names no bone")
        for key, target, width in (("translations", "translation", 3),
                                   ("rotations", "rotation", 4), ("scales", "scale", 3)):
            if key in tr:
                v = _floats(tr[key], width, f"track {names[node]!r} {key}", where)
                if v.shape[0] != k:
                    raise SjsonError(f"{where}: track {names[node]!r} {key} has {v.shape[0]} "
                                     f"samples, num_samples is {k}")
                channels.append(Channel(node, target, times, v.astype(dtype)))
    skeleton = Skeleton(names, parents, rest_t, rest_r, rest_s)
    clip = Clip(str(info.get("name", p.stem)), channels, dtype)
    return AclClip(skeleton, clip, float(info.get("error_threshold", 0.01)), shell, rate, k)
