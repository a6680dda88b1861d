"""FBX loader: binary (6.x, 7.x) and ASCII ``.fbx`` files to a :class:`~skinkit.model.model.Model`.

The file is parsed by ufbx (vendored C library, ``skinkit._core.ufbx_version()``), through
``src/fbx_read.c``, which hands over flat arrays; this module assembles the model from them.
ufbx resolves what FBX leaves to the reader: Euler orders, pre/post rotations, pivots and
offsets, scale inheritance (compensated, or helper nodes where it cannot be), geometry
transforms (applied to the vertices), unit and axis conversion, and it bakes each animation
stack into linearly interpolated keys at the file's frame rate (``ufbx_bake_anim``), exact at
frames.

The file is untrusted: ufbx's allocations while loading and baking are capped (``max_bytes``),
a broken index refuses the file (no clamping), the arrays of the model are counted and checked
against ``max_bytes`` before any is allocated, and no other file (textures, caches) is opened.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import DTypeLike, NDArray

from .. import _core, limits
from ..model.clip import Channel, Clip
from ..kernels._types import PathLike
from ..model.model import Model
from ..model.records import Primitive, Skeleton, Skin, float_dtype
from .formats import check_format

_log = logging.getLogger(__name__)   # a child of "skinkit": what the reader decided

__all__ = ["FbxError", "load_fbx"]

AXES = ("gltf", "file")
_PATHS = ("translation", "rotation", "scale")
_WEIGHT_TRACK = 3
FIRST_VERSION = 2000   # FBX versions count from 2000 (FBX 2.0) to 7700 (FBX 2020); 0 is none


class FbxError(ValueError):
    """A file that ufbx cannot read as FBX, or whose model exceeds the limits: the message names
    the file."""


def load_fbx(path: PathLike, dtype: DTypeLike = np.float64, axes: str = "gltf",
             max_bytes: Optional[int] = None) -> Model:
    """Load the nodes, skins, meshes, blend shapes and animation stacks of an FBX file.

    Parameters
    ----------
    path : str or os.PathLike
        A binary (FBX 6.x or 7.x) or ASCII FBX file.
    dtype : float32 or float64
        Precision of every float array of the result.
    axes : {"gltf", "file"}
        ``"gltf"`` (default) converts units and axes to glTF's: metres, +Y up, right-handed
        (ufbx's ``target_axes`` / ``target_unit_meters``, applied to the geometry, the node
        transforms and the keys); ``"file"`` keeps the file's units and axes.
    max_bytes : int, optional
        The memory ufbx may use to load the file (and, again, to bake each animation stack) and
        the bytes the model's arrays may take; a file needing more is refused.  Default:
        ``skinkit.limits.decoded_limit`` of the file's size (64 times it, at least 256 MiB, at
        most half the machine's memory).

    Returns
    -------
    Model
        ``skeleton``: every node of the file (names as in the file; ufbx's synthetic root left
        out, so top-level nodes are roots), rest TRS from the node's local transform with pivots
        folded in.  ``skins``: one per skin deformer; ``joints`` are its clusters' bone nodes,
        ``inverse_bind_matrices`` the clusters' geometry-to-bone matrices (from the bind pose).
        ``primitives``: one per node with a mesh, skinned when the mesh has a skin deformer:
        ``positions`` (V, 3) one per control point in file order (as ufbx's ``mesh.vertices``
        and Blender's importer), ``faces`` (F, 3) every polygon triangulated by ufbx,
        ``normals`` the mean of each control point's corner normals (normalized), ``uvs`` the
        first UV set when it has one value per control point (None when UV seams split
        control points), ``joints`` / ``weights`` (V, K) with K the most influences on one
        control point (zero-padded, weights normalized to sum 1 as ufbx and Blender skin;
        control points without any follow the mesh's node, which joins the skin as a joint),
        blend shapes as morph targets
        (``morph_positions`` (M, V, 3): each channel's shapes, in-between shapes as targets of
        their own, ``morph_weights`` the rest channel weights mapped to the shapes as ufbx
        does).  ``clips``: one per animation stack, named after it, LINEAR channels of
        translation, rotation and scale per animated node and a weights channel per mesh
        whose blend channels are animated; key times in seconds as in the file.

    Raises
    ------
    FbxError
        ufbx refuses the file (not FBX, truncated, broken indices, over the memory cap), the
        model's arrays would exceed ``max_bytes`` or a mesh has more blend shapes than
        ``skinkit.limits.MAX_MORPH_TARGETS``; the message names the file (and the mesh node).
    OSError
        The file cannot be read.
    TypeError, ValueError
        ``dtype`` is not float32 or float64; ``axes`` is not one of ``AXES``; ``max_bytes`` is
        not a positive integer.

    Notes
    -----
    The ``skinkit`` logger says (INFO, one line each, naming the file and the mesh node) what
    the reader did to skin weights: influences dropped (zero, negative or NaN weight), control
    points whose weights were normalized to sum 1, control points without any weight.
    """
    dtype = float_dtype(dtype)
    if axes not in AXES:
        raise ValueError(f"axes must be one of {AXES}, got {axes!r}")
    path = Path(path)
    check_format(path, "fbx", FbxError)
    if max_bytes is None:
        max_bytes = limits.decoded_limit(path.stat().st_size)
    if not isinstance(max_bytes, int) or not 0 < max_bytes < 2**62:
        raise ValueError(f"max_bytes must be a positive integer, got {max_bytes!r}")
    try:
        scene = _core.fbx_read(path, axes == "file", int(max_bytes), float(max_bytes),
                               limits.MAX_MORPH_TARGETS)
    except ValueError as e:
        limit = f" (max_bytes={max_bytes})" if "Memory limit" in str(e) else ""
        raise FbxError(f"{path}: {e}{limit}") from None
    try:
        return _assemble(scene, dtype, path)
    except ValueError as e:
        raise FbxError(f"{path}: {e}") from None


def _checked(a: NDArray[Any], dtype: np.dtype[Any], what: str) -> NDArray[Any]:
    """``a`` in ``dtype``, once every value is seen to be finite and of magnitude at most
    ``skinkit.limits.MAX_FILE_VALUE`` (as the glTF and BVH readers hold numbers: a float32 load
    never turns one into inf); ValueError naming the field, the index and the value."""
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(a) <= limits.MAX_FILE_VALUE)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{what}{list(at)} = {float(a[at]):g} is not finite or past the "
                         f"limit of {limits.MAX_FILE_VALUE:g} (skinkit.limits.MAX_FILE_VALUE)")
    return a.astype(dtype)


def _assemble(scene: Dict[str, Any], dtype: np.dtype[Any], path: Path) -> Model:
    version = scene["version"]
    if not FIRST_VERSION <= version:
        raise ValueError(f"FBXVersion {version}: not an FBX version ({FIRST_VERSION} or "
                         "later)")
    nodes = scene["nodes"]
    if not len(nodes["names"]):
        raise ValueError(f"an empty scene (FBXVersion {version}): no node to pose")
    too_many = limits.nodes_error(len(nodes["names"]))
    if too_many is not None:
        raise ValueError(too_many)
    trs = _checked(nodes["trs"], dtype, "node TRS")
    skeleton = Skeleton(nodes["names"], nodes["parents"], trs[:, :3].copy(), trs[:, 3:7].copy(),
                        trs[:, 7:].copy())
    skins = []
    for i, s in enumerate(scene["skins"]):
        if np.any(s["joints"] < 0):
            raise ValueError(f"skin {i} ({s['name']!r}): a cluster has no bone node")
        skins.append(Skin(s["name"] or None, s["joints"],
                          _checked(s["ibm"], dtype, f"skin {i} ({s['name']!r}): bind matrix")))
    primitives = [_primitive(p, dtype, nodes["names"][p["node"]]) for p in scene["primitives"]]
    for p, prim in zip(scene["primitives"], primitives):
        if prim.skin is not None and prim.weights is not None and prim.joints is not None:
            node = skeleton.names[prim.node]
            _log_weights(path, node, p, len(prim.weights))
            free = np.logical_not(prim.weights.any(axis=1))
            if free.any():
                _log.info("%s: mesh node %r: %d of %d control points have no skin weight; "
                          "they follow the node (weight 1), as in ufbx and Blender", path,
                          node, int(np.count_nonzero(free)), len(free))
                _attach_unweighted(prim, prim.skin, prim.joints, prim.weights, free, skins)
    clips = [_clip(c, scene["primitives"], dtype) for c in scene["clips"]]
    return Model(skeleton, skins, primitives, clips, name=path.stem)


def _log_weights(path: Path, node: Optional[str], p: Dict[str, Any], count: int) -> None:
    """Say on the "skinkit" logger (INFO) what the C reader did to a mesh's skin weights: the
    influences ufbx dropped and the control points whose weights it divided by their sum."""
    if p["dropped"]:
        _log.info("%s: mesh node %r: %d skin influence(s) dropped (zero, negative or NaN "
                  "weight)", path, node, p["dropped"])
    if p["renormalized"]:
        _log.info("%s: mesh node %r: skin weights of %d of %d control points normalized to sum "
                  "1", path, node, p["renormalized"], count)


def _primitive(p: Dict[str, Any], dtype: np.dtype[Any], node: str) -> Primitive:
    faces = p["faces"]
    faces = faces[np.all(faces >= 0, axis=1)]
    targets = len(p["target_weight"])
    skinned = p["skin"] >= 0 and p["joints"] is not None

    def cast(key: str) -> Optional[NDArray[Any]]:
        a = p[key]
        return None if a is None else _checked(a, dtype, f"mesh node {node!r}: {key}")

    return Primitive(
        node=p["node"], mesh=p["mesh"], index=0, skin=p["skin"] if skinned else None,
        positions=_checked(p["positions"], dtype, f"mesh node {node!r}: positions"),
        normals=cast("normals"), uvs=cast("uvs"),
        joints=p["joints"] if skinned else None, weights=cast("weights") if skinned else None,
        faces=faces,
        morph_positions=cast("morph_positions") if targets else None,
        morph_weights=shape_weights(p["channel_weight"], p)[0].astype(dtype) if targets else None,
        target_names=p["target_names"] if targets else None)


def _attach_unweighted(prim: Primitive, s: int, joints: NDArray[Any], weights: NDArray[Any],
                       free: NDArray[Any], skins: List[Skin]) -> None:
    """Control points without influences (``free``) follow the mesh's own node, as ufbx's and
    Blender's skinning do: the node joins a copy of skin ``s`` as a joint with an identity
    inverse bind matrix (the geometry transform is already in the vertices) and takes them with
    weight 1."""
    skin = skins[s]
    ibm = np.concatenate([skin.inverse_bind_matrices,
                          np.eye(4, dtype=skin.inverse_bind_matrices.dtype)[None]])
    skins.append(Skin(skin.name, np.append(skin.joints, np.int32(prim.node)), ibm))
    prim.skin = len(skins) - 1
    prim.joints, prim.weights = joints.copy(), weights.copy()
    prim.joints[free, 0] = len(skin.joints)
    prim.weights[free, 0] = 1


def shape_weights(channel_weights: NDArray[Any], prim: Dict[str, Any]) -> NDArray[Any]:
    """The weight of each blend shape (T, M) for channel weights (T, C) or (C,), as ufbx's
    ``ufbx_blend_keyframe.effective_weight``: along a channel, the shapes sit at their target
    weights with an implicit base shape at 0, the weight is interpolated linearly between the
    two shapes around the channel weight, and extrapolated past the first or last one."""
    w = np.atleast_2d(np.asarray(channel_weights, dtype=np.float64))
    out = np.zeros((w.shape[0], len(prim["target_weight"])))
    for c in range(w.shape[1]):
        shapes = np.flatnonzero(prim["target_channel"] == c)
        knots = np.concatenate([[0.0], prim["target_weight"][shapes]])
        order = np.argsort(knots, kind="stable")
        x = knots[order]
        seg = np.clip(np.searchsorted(x, w[:, c], side="right") - 1, 0, len(x) - 2)
        delta = x[seg + 1] - x[seg]
        t = np.divide(w[:, c] - x[seg], delta, out=np.zeros_like(delta), where=delta != 0)
        full = np.zeros((w.shape[0], len(x)))
        rows = np.arange(w.shape[0])
        full[rows, seg] += np.where(delta != 0, 1.0 - t, 0.0)
        full[rows, seg + 1] += t
        out[:, shapes] = full[:, np.argsort(order)][:, 1:]
    return out


def _strict_keys(times: NDArray[Any], values: NDArray[Any], dtype: np.dtype[Any]
                 ) -> Tuple[NDArray[Any], NDArray[Any]]:
    """Keys with strictly increasing times in ``dtype``: of keys whose times are equal (ufbx's
    pair around a stepped key, merged by a float32 cast) the last is kept."""
    t = times.astype(dtype)
    keep = np.append(t[1:] > t[:-1], True)
    return t[keep], values[keep].astype(dtype)


def _clip(clip: Dict[str, Any], prims: List[Dict[str, Any]], dtype: np.dtype[Any]) -> Clip:
    channels = []
    weight_tracks: Dict[int, Tuple[NDArray[Any], NDArray[Any]]] = {}
    for target, kind, times, values in clip["tracks"]:
        path = _PATHS[kind] if kind < len(_PATHS) else "weights"
        what = f"animation stack {clip['name']!r}: node {target} {path}"
        too_long = limits.duration_error(float(times.max())) if len(times) else None
        if too_long is not None:
            raise ValueError(f"{what}: {too_long}")
        _checked(values, dtype, f"{what} keys")
        if kind == _WEIGHT_TRACK:
            weight_tracks[target] = (times, values[:, 0])
        elif len(times):
            channels.append(Channel(target, _PATHS[kind], *_strict_keys(times, values, dtype)))
    for p in prims:
        ids = p["channel_id"].tolist()
        tracks = [weight_tracks.get(i) for i in ids]
        if not any(tracks):
            continue
        times = np.unique(np.concatenate([t[0] for t in tracks if t is not None]))
        w = np.stack([np.interp(times, *t) if t is not None else np.full(len(times), rest)
                      for t, rest in zip(tracks, p["channel_weight"])], axis=1)
        channels.append(Channel(p["node"], "weights",
                                *_strict_keys(times, shape_weights(w, p), dtype)))
    return Clip(clip["name"] or None, channels, dtype)
