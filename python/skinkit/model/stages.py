"""The stages of posing, in the order ``skinkit.model.pose.run`` chains them (ozz-animation's ``Run()``):

1. ``sample_transforms`` / ``sample_weights``: each layer's clip sampled at the frames' times
   (glTF 2.0 section 3.11 and Appendix C, ``Clip.sample``), or the rest pose;
2. ``blend``: the layers' local TRS blended (``blending.blend_poses``), or the one layer;
3. ``forward_kinematics``: world matrices of every node (glTF 2.0 section 3.5.3);
4. ``morph_weights``: each morph-targeted node's weights, sampled or default (section 3.7.2.2),
   blended as the layers' weighted mean;
5. ``skin``: per mesh primitive instance, morph targets (``blend_shapes``), then skinning
   (section 3.7.3, ``p = sum_k w_k JointWorld_k InverseBind_k v``; the instantiating node's
   transform ignored) or, for a rigid primitive, its node's world matrix.

Each stage takes the model, the checked ``PoseRequest`` and the previous stage's arrays, and is
one batched call over the frames: there are no Python loops over times or vertices, only over
layers, skins and primitives.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple, cast

import numpy as np
from numpy.typing import NDArray

from ..kernels import wrappers as kernels
from ..kernels.blending import blend_poses
from ..kernels.skinning import SKINNING, SkinningKernel
from ..kernels.trs import TRS
from ..kernels.morph import blend_shapes

if TYPE_CHECKING:
    from .records import Posable, Primitive
    from .request import PoseRequest


_Posed = Tuple[NDArray[Any], Optional[NDArray[Any]]]   # positions and normals (or None)

MorphWeights = Dict[int, NDArray[Any]]   # node -> (B, M) sampled, or (M,) default weights


def rest_pose(model: Posable) -> TRS:
    """The skeleton's rest (default) local TRS, (N, 3), (N, 4), (N, 3)."""
    sk = model.skeleton
    return TRS(np.asarray(sk.translations), np.asarray(sk.rotations), np.asarray(sk.scales))


def sample_transforms(model: Posable, request: PoseRequest, times: NDArray[Any]) -> List[TRS]:
    """Stage 1: the local TRS (B, N, 3|4|3) of each layer of ``request`` at ``times`` (B,):
    its clip sampled (wrapped with ``request.loop``, else clamped), or the rest pose broadcast
    (in ``request.dtype``)."""
    rest = rest_pose(model)
    layers = []
    for c in request.clips:
        if c is not None:
            layers.append(c.sample(times, rest, loop=request.loop))
            continue
        layers.append(TRS(*(np.ascontiguousarray(np.broadcast_to(
            a.astype(request.dtype, copy=False), (len(times),) + a.shape)) for a in rest)))
    return layers


def sample_weights(model: Posable, request: PoseRequest, times: NDArray[Any]) -> List[MorphWeights]:
    """Stage 1 for morph targets: each layer's weights channels at ``times``, node -> (B, M)
    (empty for the rest pose or a clip without weights channels)."""
    return [c.sample_weights(times, request.loop) if c is not None and c.weights_nodes else {}
            for c in request.clips]


def blend(model: Posable, layers: List[TRS], weights: Optional[NDArray[Any]]) -> TRS:
    """Stage 2: the layers' local TRS blended with ``weights`` (B, L) (``blend_poses`` with the
    skeleton's rest pose filling in where the weights sum to less than 0.1, as in
    ozz-animation); the single layer as is when ``weights`` is None."""
    if weights is None:
        return layers[0]
    stacked = TRS(*(np.stack([layer[i] for layer in layers], axis=1) for i in range(3)))
    r, t, s = blend_poses(stacked.rotations, stacked.translations, stacked.scales,
                          weights.astype(stacked.translations.dtype), rest=rest_pose(model))
    return TRS(t, r, s)


def forward_kinematics(model: Posable, local: TRS) -> NDArray[Any]:
    """Stage 3: world matrices (B, N, 4, 4) of every node, one ``kernels.forward_kinematics``
    call: ``M_i = M_parent(i) T(t_i) R(q_i) S(s_i)`` (glTF 2.0 section 3.5.3)."""
    return kernels.forward_kinematics(np.asarray(model.skeleton.parents), local.rotations,
                                      local.translations, local.scales)


def morph_weights(model: Posable, request: PoseRequest, sampled: List[MorphWeights],
                  weights: Optional[NDArray[Any]]) -> MorphWeights:
    """Stage 4: node -> morph weights for every node whose mesh has morph targets: the layer's
    sampled (B, M), else the instance's default (M,) (``node.weights``, else ``mesh.weights``,
    else zeros: glTF 2.0 section 3.7.2.2).  For a blend, the layers' mean weighted by
    ``weights`` (B, L) normalised (the plain mean where they sum to 0).

    Raises ValueError for a weights channel of width other than the mesh's target count M."""
    counts = {p.node: p.target_count for p in model.primitives}
    defaults = {p.node: p.morph_weights for p in model.primitives
                if p.target_count and p.morph_weights is not None}
    per_layer = []
    for clip, layer in zip(request.clips, sampled):
        out = dict(defaults)
        for node, w in layer.items():
            if node not in counts:
                continue   # a node outside the posed scene
            if w.shape[-1] != counts[node]:
                raise ValueError(f"clip {getattr(clip, 'name', None)!r}: the weights channel "
                                 f"of node {node} has {w.shape[-1]} weights, its mesh has "
                                 f"{counts[node]} morph targets")
            out[node] = w
        per_layer.append(out)
    if weights is None:
        return per_layer[0]
    total = weights.sum(axis=1, keepdims=True)
    w = np.divide(weights, total, out=np.full_like(weights, 1.0 / weights.shape[1]),
                  where=total != 0)
    return {node: cast(NDArray[Any], sum(w[:, i, None] * np.broadcast_to(
                layer[node], (len(w), np.shape(first)[-1])) for i, layer in enumerate(per_layer)))
            for node, first in per_layer[0].items()}


def skin(model: Posable, request: PoseRequest, world: NDArray[Any], weights: MorphWeights
         ) -> Tuple[Dict[str, NDArray[Any]], Dict[str, NDArray[Any]]]:
    """Stage 5: posed positions (and, with ``request.normals``, normals), key -> (B, V, 3), of
    every mesh primitive instance: morph targets first, then skinned with ``request.skinning``
    (one ``skinning_matrices`` call per skin, one skinning call per primitive) or placed by the
    node's world matrix (``_rigid``)."""
    mats = skinning_matrices(model, world)
    positions, normals = {}, {}
    for prim in model.primitives:
        p, n = _morph(prim, weights.get(prim.node), request.normals)
        if prim.skin is not None:
            p, n = _skin(prim, p, n, mats[prim.skin],
                         SKINNING[prim.skinning or request.skinning])
        else:
            p, n = _rigid(world[:, prim.node], p, n)
        positions[prim.key] = p
        if n is not None:
            normals[prim.key] = n
    return positions, normals


def skinning_matrices(model: Posable, world: NDArray[Any],
                      skins: Optional[Iterable[int]] = None) -> Dict[int, NDArray[Any]]:
    """Skinning matrices of the skins used by the model's primitives.

    Parameters
    ----------
    model : Model
    world : array (T, N, 4, 4), from ``world_matrices``.
    skins : iterable of int, optional
        Skin indices (default: those of the skinned ``model.primitives``).

    Returns
    -------
    dict
        skin index -> array (T, J, 4, 4), ``world[:, skin.joints] @ skin.inverse_bind_matrices``
        (glTF 2.0 section 3.7.3 "Skins"); one ``kernels.skinning_matrices`` call per skin.
    """
    if skins is None:
        skins = dict.fromkeys(p.skin for p in model.primitives if p.skin is not None)
    out = {}
    for i in skins:
        skin_ = model.skins[i]
        out[i] = kernels.skinning_matrices(world[:, np.asarray(skin_.joints)],
                                           skin_.inverse_bind_matrices)
    return out


def _morph(prim: Primitive, weights: Optional[NDArray[Any]], normals: bool) -> _Posed:
    """The primitive's positions and (with ``normals``) normals after its morph targets:
    (V, 3) for constant weights, (T, V, 3) for weights (T, M); normals None if it has none."""
    n = prim.normals if normals else None
    if weights is None:
        return prim.positions, n
    if prim.morph_positions is not None:
        p = blend_shapes(prim.positions, prim.morph_positions, weights)
    else:
        p = prim.positions
    if n is not None and prim.morph_normals is not None:
        n = blend_shapes(n, prim.morph_normals, weights)
    return p, n


def _skin(prim: Primitive, positions: NDArray[Any], normals: Optional[NDArray[Any]],
          matrices: NDArray[Any], kernel: SkinningKernel) -> _Posed:
    """Skin ``positions`` (and ``normals``), (V, 3) or (T, V, 3), with skinning ``matrices``
    (T, J, 4, 4) and the skinning ``kernel`` (``SKINNING``)."""
    if prim.joints is None or prim.weights is None:
        raise ValueError(f"primitive {prim.key} has a skin but no joints or weights")
    if normals is None:
        return kernel(vertices=positions, joints=prim.joints, weights=prim.weights,
                      skinning_matrices=matrices), None
    return kernel(vertices=positions, joints=prim.joints, weights=prim.weights,
                  skinning_matrices=matrices, normals=normals)


def _rigid(world: NDArray[Any], positions: NDArray[Any], normals: Optional[NDArray[Any]]) -> _Posed:
    """Transform (V, 3) or (T, V, 3) positions (and normals) by the node's world matrices
    (T, 4, 4): the skinning kernel with one influence of weight 1 per vertex, which is the
    matrix product ``World v`` for all times in one call (normals by the cofactor of the 3x3
    times the sign of its determinant, i.e. the inverse transpose up to a positive factor,
    renormalised).  On RobotExpressive (15 rigid instances, 1,000 frames, positions only) 1.3x
    faster than NumPy's batched matmul of (V, 3) by (T, 3, 3) (medians of 9 interleaved runs),
    3x with normals."""
    v = np.shape(positions)[-2]
    one = np.ones((v, 1), dtype=world.dtype)
    joint = np.zeros((v, 1), dtype=np.uint8)
    mats = world[:, None]
    if normals is None:
        return kernels.linear_blend_skinning(vertices=positions, joints=joint, weights=one,
                                             skinning_matrices=mats), None
    return kernels.linear_blend_skinning(vertices=positions, joints=joint, weights=one,
                                         skinning_matrices=mats, normals=normals)
