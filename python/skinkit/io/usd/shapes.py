"""UsdSkel blend shapes as morph targets, their in-betweens as targets of their own.

UsdSkel "BlendShape": a shape holds point offsets (sparse with ``pointIndices``), optional
normal offsets, and in-between shapes at weights other than 0 and 1; a weight w is applied by
interpolating linearly between the two sub-shapes (the rest shape at 0 among them) whose
weights bracket w, and extrapolating from the first or last pair outside them
(``UsdSkelBlendShapeQuery::ComputeSubShapeWeights``).  That mapping is piecewise linear in w,
so the weights of the targets are linear between two keys of w except where w crosses a
sub-shape's weight: ``shape_weight_channel`` adds a key at each such crossing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from ... import limits
from ...model.clip import Channel
from ..fbx import shape_weights
from .stage import Arrays, Pxr


@dataclass
class BlendShapes:
    """A mesh's blend shapes (S, the mesh's ``skel:blendShapes`` order) as M targets.

    offsets, normal_offsets : (M, V, 3) dense offsets (normal offsets None if no shape has any)
    names : the S shape names; target_names : M names (``"shape"``, ``"shape@0.5"``)
    channel : (M,) the shape of each target; weight : (M,) the sub-shape weight of each.
    """

    offsets: NDArray[Any]
    normal_offsets: Optional[NDArray[Any]]
    names: List[str]
    target_names: List[str]
    channel: NDArray[Any]
    weight: NDArray[Any]


def read_blend_shapes(binding: Pxr, V: int, arrays: Arrays) -> Optional[BlendShapes]:
    """The blend shapes a mesh's ``skel:blendShapes`` and ``skel:blendShapeTargets`` bind, None
    when it has none; UsdError for mismatched lengths or indices outside the mesh."""
    from pxr import Usd, UsdSkel
    names = [str(n) for n in (binding.GetBlendShapesAttr().Get() or [])]
    if not names:
        return None
    too_many = limits.count_error(len(names), "MAX_MORPH_TARGETS", "blend shapes")
    if too_many is not None:
        raise arrays.error(binding.GetBlendShapesAttr(), too_many)
    targets = binding.GetBlendShapeTargetsRel().GetTargets()
    if len(targets) != len(names):
        raise arrays.error(binding.GetBlendShapesAttr(), f"{len(names)} blend shapes, but "
                           f"{len(targets)} skel:blendShapeTargets")
    stage = binding.GetPrim().GetStage()
    t = Usd.TimeCode.EarliestTime()
    offsets: List[NDArray[Any]] = []
    normals: List[Optional[NDArray[Any]]] = []
    target_names: List[str] = []
    channel: List[int] = []
    weight: List[float] = []
    for s, (name, target) in enumerate(zip(names, targets)):
        shape = UsdSkel.BlendShape(stage.GetPrimAtPath(target))
        if not shape:
            raise arrays.error(binding.GetBlendShapeTargetsRel(), f"target {target} is not a "
                               "BlendShape")
        indices = arrays.value(shape.GetPointIndicesAttr(), t, 0, what="pointIndices")
        subs = [(1.0, shape.GetOffsetsAttr(), shape.GetNormalOffsetsAttr())]
        for ib in shape.GetInbetweens():
            subs.append((float(ib.GetWeight()), ib.GetAttr(), ib.GetNormalOffsetsAttr()))
        n = V if indices is None else len(indices)
        if indices is not None and n and (indices.min() < 0 or indices.max() >= V):
            raise arrays.error(shape.GetPointIndicesAttr(), f"point indices must be in "
                               f"0..{V - 1}, got {int(indices.min())}..{int(indices.max())}")
        seen = set()
        for w, attr, nattr in subs:
            if not np.isfinite(w) or w == 0 or w in seen:
                raise arrays.error(attr, f"in-between weight {w:g} is 0, repeated or not "
                                   "finite")
            seen.add(w)
            offsets.append(_dense(arrays.value(attr, t, 3, n, "offsets"), indices, V))
            normals.append(None if nattr is None or not nattr.HasAuthoredValue() else
                           _dense(arrays.value(nattr, t, 3, n, "normal offsets"), indices, V))
            target_names.append(name if w == 1.0 else f"{name}@{w:g}")
            channel.append(s)
            weight.append(w)
    arrays.charge(len(offsets) * V * 24 * 2, binding.GetPrim(), f"{len(offsets)} blend shapes")
    has_normals = any(x is not None for x in normals)
    return BlendShapes(
        np.stack(offsets), np.stack([np.zeros((V, 3)) if x is None else x for x in normals])
        if has_normals else None, names, target_names, np.array(channel), np.array(weight))


def _dense(values: Optional[NDArray[Any]], indices: Optional[NDArray[Any]], V: int
           ) -> NDArray[Any]:
    out = np.zeros((V, 3))
    if values is None:
        return out
    if indices is None:
        out[:] = values
    else:
        out[indices] = values
    return out


def shape_weight_channel(node: int, shapes: BlendShapes, anim_names: List[str],
                         times: NDArray[Any], weights: NDArray[Any]) -> Optional[Channel]:
    """The weights channel (M targets) of a mesh's blend shapes from a SkelAnimation's
    ``blendShapes`` (its own order) and ``blendShapeWeights`` keys (K,) x (K, S'); shapes it
    does not name have weight 0.  None when it names none of them."""
    column = {n: i for i, n in enumerate(anim_names)}
    if not any(n in column for n in shapes.names):
        return None
    w = np.stack([weights[:, column[n]] if n in column else np.zeros(len(times))
                  for n in shapes.names], axis=1)
    times, w = _with_crossings(times, w, shapes)
    per_target = shape_weights(w, {"target_weight": shapes.weight,
                                   "target_channel": shapes.channel})
    return Channel(node, "weights", times, per_target)


def _with_crossings(times: NDArray[Any], w: NDArray[Any], shapes: BlendShapes
                    ) -> Tuple[NDArray[Any], NDArray[Any]]:
    """Keys added where a shape's weight crosses one of its sub-shape weights (or 0) between
    two keys, the weights there interpolated linearly."""
    extra = []
    for s in range(w.shape[1]):
        knots = np.append(shapes.weight[shapes.channel == s], 0.0)
        a, b = w[:-1, s, None], w[1:, s, None]
        cross = (np.minimum(a, b) < knots) & (knots < np.maximum(a, b))
        k, j = np.nonzero(cross)
        f = (knots[j] - a[k, 0]) / (b[k, 0] - a[k, 0])
        extra.append(times[k] + f * (times[k + 1] - times[k]))
    all_times = np.unique(np.concatenate([times] + extra))
    return all_times, np.stack([np.interp(all_times, times, w[:, s])
                                for s in range(w.shape[1])], axis=1)
