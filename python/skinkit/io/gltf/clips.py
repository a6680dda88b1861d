"""Model assembly from glTF 2.0 animations: one :class:`~skinkit.model.clip.Clip` per animation
(glTF 2.0 section 3.11 "Animations"; translation, rotation, scale and morph target weights)."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Tuple

import numpy as np
from numpy.typing import NDArray

from ...model.clip import PATHS, WEIGHTS, Channel, Clip
from ...limits import duration_error
from .accessors import FLOAT, SNORM, UNORM, Accessors
from .fields import GltfError, Json, int_field, list_field, name_field, obj, objects

# a Channel field -> the sampler property it comes from
_PROPERTY = {"times": "input", "values": "output", "interpolation": "interpolation"}


def read_clips(doc: Json, accessors: Accessors, target_counts: Dict[int, int],
               dtype: np.dtype[Any]) -> List[Clip]:
    """One Clip per ``animations[a]``.

    ``target_counts`` maps every node with a mesh to its number of morph targets (a weights
    channel needs one).  Channels without a target node, or with a path skinkit does not know
    (an extension's), are listed in ``Clip.unsupported``.
    """
    node_count = len(list_field(doc, "nodes", ""))
    out = []
    for _, path, animation in objects(doc, "animations", ""):
        samplers = list_field(animation, "samplers", path, required=True)
        channels: List[Channel] = []
        unsupported: List[str] = []
        targets: Dict[Tuple[int, str], int] = {}
        for c, cpath, channel in objects(animation, "channels", path, required=True):
            j = int_field(channel, "sampler", cpath, hi=len(samplers))
            tpath = f"{cpath}.target"
            target = obj(channel.get("target"), tpath)
            node = int_field(target, "node", tpath, default=None, hi=node_count)
            kind = target.get("path")
            if not isinstance(kind, str):
                raise GltfError(f"{tpath}.path: expected a string")
            if node is None:
                unsupported.append(f"channels[{c}] (no target node, {kind:.40}): channels "
                                   "without a target node are not supported")
                continue
            if kind not in PATHS and kind != WEIGHTS:
                unsupported.append(f"channels[{c}] (node {node} {kind:.40}): target path "
                                   "is not supported")
                continue
            width = PATHS.get(kind) or target_counts.get(node, 0)
            if not width:
                raise GltfError(f"{tpath}: node {node} has no mesh with morph targets, its "
                                "weights cannot be animated")
            if (node, kind) in targets:
                raise GltfError(f"{tpath}: node {node} {kind} is already animated by "
                                f"channels[{targets[node, kind]}]")
            targets[node, kind] = c
            spath = f"{path}.samplers[{j}]"
            times, values, interpolation = _sampler(obj(samplers[j], spath), spath, kind,
                                                    width, accessors)
            try:
                channels.append(Channel(node, kind, accessors.cast(times, dtype, spath),
                                        accessors.cast(values, dtype, spath), interpolation))
            except ValueError as e:  # Channel owns the key rules: reworded with the JSON path
                field = re.search(r"channel (times|values|interpolation)", str(e))
                if field is None:  # the loader's own arguments (node, path) are checked above
                    raise
                raise GltfError(f"{spath}.{_PROPERTY[field.group(1)]}: {e}") from None
        out.append(Clip(name_field(animation, path), channels, dtype=dtype,
                        unsupported=unsupported))
    return out


def _sampler(sampler: Json, path: str, kind: str, width: int,
             accessors: Accessors) -> Tuple[NDArray[Any], NDArray[Any], str]:
    """Key times (K,), values (K, C) or (3 K, C) and interpolation of one animation sampler.

    Times are seconds; rotation and weights values may be normalized integers, decoded to float.
    Weights outputs are scalars, ``width`` (the number of morph targets) per key (glTF 2.0
    section 3.11), read as rows of ``width``.  The interpolation, key counts and times are
    checked by :class:`~skinkit.model.clip.Channel`.
    """
    interpolation = sampler.get("interpolation", "LINEAR")
    times = accessors.get(sampler, "input", path, ("SCALAR",), FLOAT)[:, 0]
    # (times that are not finite are Channel's to refuse)
    too_long = duration_error(float(times.max())) if np.all(np.isfinite(times)) else None
    if too_long is not None:
        raise GltfError(f"{path}.input: a key at {times.max():g} s: {too_long}")
    if kind == "translation" or kind == "scale":
        values = accessors.get(sampler, "output", path, ("VEC3",), FLOAT)
    else:
        values = accessors.get(sampler, "output", path,
                               ("VEC4",) if kind == "rotation" else ("SCALAR",),
                               FLOAT | UNORM | SNORM)
    if kind == WEIGHTS and len(values) % width:
        raise GltfError(f"{path}.output: {len(values)} values, not a multiple of the {width} "
                        "morph targets of the node")
    return times, values.reshape(-1, width), interpolation
