"""USD loader: UsdSkel stages (``.usd``, ``.usda``, ``.usdc``, ``.usdz``) to a
:class:`~skinkit.model.model.Model`.

The stage is composed by usd-core (``skinkit[usd]``); UsdSkel's rules (the UsdSkel schema
documentation, "Skeleton", "SkelAnimation", "Binding", "BlendShape") are applied here, as
plain data: the skinning matrix of joint j is the joint's world matrix times the inverse of its
``bindTransforms`` entry, the mesh's points are first moved by its ``geomBindTransform``, and the
skinned points land in the skeleton prim's space (the mesh's own transform is ignored), as
``UsdSkel.SkinningQuery`` and ``UsdSkel.BakeSkinning`` compute them.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ... import limits
from ...kernels._types import PathLike
from ...model.clip import Channel, Clip
from ...model.model import Model
from ...model.records import Primitive, Skeleton, Skin, float_dtype
from ..formats import check_format
from ..gltf.fields import GltfError
from ..gltf.nodes import _decompose
from .shapes import read_blend_shapes, shape_weight_channel
from .stage import Arrays, Pxr, UsdError, open_stage, pxr
from .mesh import read_mesh

_log = logging.getLogger(__name__)

__all__ = ["UsdError", "load_usd", "AXES", "JOINT_NAMES"]

AXES = ("gltf", "file")
JOINT_NAMES = "skinkitJointNames"   # Skeleton customData: the joints' names before escaping
_METHODS = {"classicLinear": "lbs", "dualQuaternion": "dqs"}
_TRS = (("translation", 3), ("rotation", 4), ("scale", 3))


def load_usd(path: PathLike, dtype: DTypeLike = np.float64, axes: str = "gltf",
             max_bytes: Optional[int] = None) -> Model:
    """Load the skeletons, skinned and rigid meshes, blend shapes and animation of a USD stage.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.usda``, ``.usdc``, ``.usd`` or ``.usdz`` file (told by content).
    dtype : float32 or float64
        Precision of every float array of the result.
    axes : {"gltf", "file"}
        ``"gltf"`` (default): a root node (named ``"/"``) scales by the stage's
        ``metersPerUnit`` (USD's fallback 0.01 when unauthored) and turns a +Z up stage to +Y
        up (-90 degrees about X), so that posed results are in glTF's metres and axes;
        ``"file"``: that node is the identity.
    max_bytes : int, optional
        The bytes the model's arrays and the time samples read may take; a file needing more
        is refused.  Default ``skinkit.limits.decoded_limit`` of the file's size.

    Returns
    -------
    Model
        ``skeleton``: the root node ``"/"``, then a node per Xformable prim (named by its prim
        path, rest TRS its local transform at the earliest time), and under each Skeleton
        prim a node per joint (named by its joint path, or by the names ``write_usd`` kept in
        the Skeleton's customData ``"skinkitJointNames"``; rest TRS from ``restTransforms``,
        or from ``bindTransforms`` when those are not authored).  ``skins``: one per skeleton
        and joint order (the mesh's ``skel:joints`` or the skeleton's), inverse bind matrices
        the inverses of ``bindTransforms``, ``Skin.skeleton`` the Skeleton prim's node.
        ``primitives``: one per Mesh prim (other gprims are left out), triangulated as fans,
        with vertex normals and ``st`` UVs (v flipped to glTF's) where they are per point;
        a mesh with joint influences is skinned: ``geomBindTransform`` applied to its points,
        normals and blend shapes, ``joints`` / ``weights`` (V, elementSize), constant
        influences repeated over the points, ``skinning`` ``"lbs"`` or ``"dqs"`` from
        ``skel:skinningMethod``.  Blend shapes are morph targets, an in-between its own target
        (``target_names`` ``"shape"`` and ``"shape@0.5"``).  ``clips``: one clip (named after
        the file) when anything is animated: the Xformable prims' time samples as LINEAR TRS
        channels, each SkelAnimation's translations, rotations and scales on the joints they
        name (joints it does not name keep their rest transform, as in UsdSkel), its
        blend-shape weights as a weights channel per mesh (mapped to the in-between targets,
        with keys added where a weight crosses an in-between, so that the result is exact
        between samples too); key times are time codes / ``timeCodesPerSecond``, in seconds.

    Raises
    ------
    UsdError
        usd-core cannot open the file, it has a composition error (a reference cycle), or its
        UsdSkel content is broken (joint indices outside the joint order, mismatched array
        lengths, an element size below 1, NaN or infinite transforms or samples, a singular bind
        transform, duplicate joints) or over the limits; the message names the file and the
        attribute.
    ImportError
        usd-core is not installed (``pip install 'skinkit[usd]'``).
    OSError
        The file cannot be read.
    TypeError, ValueError
        ``dtype`` is not float32 or float64; ``axes`` is not one of ``AXES``; ``max_bytes``
        is not a positive integer.
    """
    dtype = float_dtype(dtype)
    if axes not in AXES:
        raise ValueError(f"axes must be one of {AXES}, got {axes!r}")
    path = Path(path)
    pxr()
    check_format(path, "usd", UsdError)
    budget = limits.Budget(path.stat().st_size)
    if max_bytes is not None:
        if not isinstance(max_bytes, int) or not 0 < max_bytes < 2**62:
            raise ValueError(f"max_bytes must be a positive integer, got {max_bytes!r}")
        budget.limit = max_bytes
    reader = _Reader(open_stage(path), Arrays(path, budget), axes == "file")
    try:
        return reader.model(dtype)
    except GltfError as e:   # _decompose's
        raise UsdError(f"{path}: {e}") from None


class _Skel:
    """A Skeleton prim read: its node, its joints' first node, joint names -> index, the bind
    transforms (J, 4, 4) and the joints' rest TRS."""

    def __init__(self, node: int, first: int, joints: List[str], bind: NDArray[Any]):
        self.node, self.first, self.bind = node, first, bind
        self.index = {j: i for i, j in enumerate(joints)}
        self.shapes: Optional[Tuple[List[str], NDArray[Any], NDArray[Any]]] = None


class _Reader:
    def __init__(self, stage: Pxr, arrays: Arrays, file_axes: bool):
        self.stage, self.arrays, self.file_axes = stage, arrays, file_axes
        self.rate = float(stage.GetTimeCodesPerSecond())
        if not 0 < self.rate <= limits.MAX_FPS:
            raise arrays.error("/", f"timeCodesPerSecond {self.rate:g} is outside "
                               f"(0, {limits.MAX_FPS:g}] (skinkit.limits.MAX_FPS)")
        self.names: List[Optional[str]] = []
        self.parents: List[int] = []
        self.trs: List[NDArray[Any]] = []
        self.node_of: Dict[str, int] = {}
        self.skels: Dict[str, _Skel] = {}
        self.channels: List[Channel] = []
        self.skins: List[Skin] = []
        self.skin_of: Dict[Tuple[str, Tuple[str, ...]], int] = {}
        self.primitives: List[Primitive] = []

    def add(self, name: str, parent: int, trs: NDArray[Any]) -> int:
        self.names.append(name)
        self.parents.append(parent)
        self.trs.append(trs)
        return len(self.names) - 1

    def model(self, dtype: np.dtype[Any]) -> Model:
        from pxr import Usd, UsdGeom, UsdSkel
        self.add("/", -1, self._conversion())
        self.node_of["/"] = 0
        roots = []
        for prim in self.stage.Traverse(Usd.TraverseInstanceProxies()):
            parent = self.node_of[str(prim.GetParent().GetPath())]
            path = str(prim.GetPath())
            if prim.IsA(UsdGeom.Xformable):
                self.node_of[path] = self._xform(prim, parent)
                if prim.IsA(UsdSkel.Skeleton):
                    self._skeleton(prim, self.node_of[path])
                if prim.IsA(UsdSkel.Root):
                    roots.append(prim)
            else:
                self.node_of[path] = parent
            too_many = limits.nodes_error(len(self.names))
            if too_many is not None:
                raise self.arrays.error(prim, too_many)
        skinned = set()
        for root in roots:
            skinned |= self._bindings(root)
        for prim in self.stage.Traverse(Usd.TraverseInstanceProxies()):
            if prim.IsA(UsdGeom.Mesh) and str(prim.GetPath()) not in skinned:
                self._primitive(prim, None, None, None)
        trs = np.array(self.trs, dtype=np.float64).reshape(-1, 10).astype(dtype)
        skeleton = Skeleton(self.names, np.array(self.parents, np.int32), trs[:, :3].copy(),
                            trs[:, 3:7].copy(), trs[:, 7:].copy())
        skins = [Skin(s.name, s.joints, s.inverse_bind_matrices.astype(dtype), s.skeleton)
                 for s in self.skins]
        for p in self.primitives:
            for field in ("positions", "normals", "weights", "morph_positions", "morph_normals",
                          "morph_weights", "uvs"):
                if getattr(p, field) is not None:
                    setattr(p, field, getattr(p, field).astype(dtype))
        name = Path(self.arrays.path).stem
        clips = [Clip(name, self.channels, dtype)] if self.channels else []
        return Model(skeleton, skins, self.primitives, clips, name=name)

    def _conversion(self) -> NDArray[Any]:
        """The root node's TRS: metersPerUnit and upAxis to glTF's (identity for the file's)."""
        from pxr import UsdGeom
        trs = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], np.float64)
        if self.file_axes:
            return trs
        scale = float(UsdGeom.GetStageMetersPerUnit(self.stage))
        if not 0 < scale < 1e30:
            raise self.arrays.error("/", f"metersPerUnit must be > 0, got {scale:g}")
        trs[7:] = scale
        if UsdGeom.GetStageUpAxis(self.stage) == UsdGeom.Tokens.z:
            trs[3:7] = [-np.sqrt(0.5), 0, 0, np.sqrt(0.5)]   # +Z up to +Y up
        return trs

    def _xform(self, prim: Pxr, parent: int) -> int:
        """A node for an Xformable prim: rest TRS at the earliest time, channels at its time
        samples when it has more than one."""
        from pxr import Usd, UsdGeom
        xf = UsdGeom.Xformable(prim)
        if xf.GetResetXformStack():
            parent = 0
        times = xf.GetTimeSamples()
        self.arrays.charge(len(times) * 80, prim, f"{len(times)} transform time samples")
        if len(times) and max(abs(t) for t in times) / self.rate > limits.MAX_DURATION:
            raise self.arrays.error(prim, limits.duration_error(
                max(abs(t) for t in times) / self.rate) or "")
        node = self.add(str(prim.GetPath()), parent,
                        self._local_trs(xf, Usd.TimeCode.EarliestTime()))
        if len(times) > 1:
            keys = np.stack([self._local_trs(xf, Usd.TimeCode(t)) for t in times])
            seconds = np.asarray(times, np.float64) / self.rate
            for (path, width), start in zip(_TRS, (0, 3, 7)):
                self.channels.append(Channel(node, path, seconds, keys[:, start:start + width]))
        return node

    def _local_trs(self, xf: Pxr, time: Pxr) -> NDArray[Any]:
        m = np.asarray(xf.GetLocalTransformation(time), np.float64)
        if not np.all(np.isfinite(m)):
            raise self.arrays.error(xf.GetPrim(), f"its transform at time code "
                                    f"{time.GetValue():g} holds NaN or infinity")
        return np.concatenate(_decompose(m.reshape(16), f"{xf.GetPrim().GetPath()} transform"))

    def _skeleton(self, prim: Pxr, node: int) -> None:
        from pxr import UsdSkel
        skel = UsdSkel.Skeleton(prim)
        joints = [str(j) for j in (skel.GetJointsAttr().Get() or [])]
        if len(set(joints)) != len(joints):
            dup = next(j for j in joints if joints.count(j) > 1)
            raise self.arrays.error(skel.GetJointsAttr(), f"joint {dup!r} is listed twice")
        too_many = limits.nodes_error(len(joints), "joints")
        if too_many is not None:
            raise self.arrays.error(prim, too_many)
        topology = UsdSkel.Topology(joints)
        ok, why = topology.Validate()
        if not ok:
            raise self.arrays.error(skel.GetJointsAttr(), f"invalid joint hierarchy: {why}")
        parents = np.asarray(topology.GetParentIndices(), np.int64)
        bind = self.arrays.matrices(skel.GetBindTransformsAttr(), len(joints), "bindTransforms")
        rest = self.arrays.matrices(skel.GetRestTransformsAttr(), len(joints), "restTransforms")
        if joints and bind is None and rest is None:
            raise self.arrays.error(prim, "neither bindTransforms nor restTransforms are "
                                    "authored")
        if not joints:
            bind = rest = np.zeros((0, 4, 4))
        if bind is None:   # the rest pose in skeleton space
            bind = np.zeros((len(joints), 4, 4))
            assert rest is not None
            for j in range(len(joints)):   # UsdSkel.Topology: parents come first
                bind[j] = rest[j] if parents[j] < 0 else bind[parents[j]] @ rest[j]
        det = np.linalg.det(bind[:, :3, :3])
        if np.any(np.abs(det) < 1e-12):
            raise self.arrays.error(skel.GetBindTransformsAttr(), f"bindTransforms"
                                    f"[{int(np.argmin(np.abs(det)))}] is singular")
        if rest is None:   # the bind pose's local transforms
            up = np.where(parents[:, None, None] >= 0,
                          np.linalg.inv(bind)[np.maximum(parents, 0)], np.eye(4))
            rest = up @ bind
        kept = prim.GetCustomDataByKey(JOINT_NAMES)   # write_usd's (a string[]), if they fit
        kept = list(kept) if hasattr(kept, "__len__") and not isinstance(kept, str) else []
        names = kept if len(kept) == len(joints) and all(isinstance(n, str) for n in kept) \
            else joints
        first = len(self.names)
        for j, name in enumerate(names):
            self.add(str(name), node if parents[j] < 0 else first + int(parents[j]),
                     np.concatenate(_decompose(rest[j].T.reshape(16),
                                               f"{prim.GetPath()}.restTransforms[{j}]")))
        info = _Skel(node, first, joints, bind)
        self.skels[str(prim.GetPath())] = info
        anim = UsdSkel.BindingAPI(prim).GetAnimationSource()
        if anim is not None and anim.IsA(UsdSkel.Animation):
            self._animation(UsdSkel.Animation(anim), info)

    def _animation(self, anim: Pxr, skel: _Skel) -> None:
        """The SkelAnimation's samples as channels on the joints it names (in its own order);
        its blend-shape weights kept on ``skel`` for the meshes bound to it."""
        joints = [str(j) for j in (anim.GetJointsAttr().Get() or [])]
        known = [(a, skel.index[j]) for a, j in enumerate(joints) if j in skel.index]
        if len(known) < len(joints):
            _log.info("%s: %s: %d animated joints are not in the skeleton; left out",
                      self.arrays.path, anim.GetPath(), len(joints) - len(known))
        for attr, (path, width) in zip((anim.GetTranslationsAttr(), anim.GetRotationsAttr(),
                                        anim.GetScalesAttr()), _TRS):
            got = self.arrays.samples(attr, len(joints), width, self.rate, f"{path}s")
            if got is None:
                continue
            times, values = got   # GfQuat arrays hold (x, y, z, w): skinkit's order
            for a, j in known:
                self.channels.append(Channel(skel.first + j, path, times, values[:, a]))
        shapes = [str(s) for s in (anim.GetBlendShapesAttr().Get() or [])]
        if shapes:
            got = self.arrays.samples(anim.GetBlendShapeWeightsAttr(), len(shapes), 0,
                                      self.rate, "blend-shape weights")
            if got is not None:
                skel.shapes = (shapes, got[0], got[1])

    def _bindings(self, root: Pxr) -> Set[str]:
        """The meshes bound to the SkelRoot's skeletons as primitives; their paths."""
        from pxr import Usd, UsdGeom, UsdSkel
        cache = UsdSkel.Cache()
        predicate = Usd.TraverseInstanceProxies()
        cache.Populate(UsdSkel.Root(root), predicate)
        done: Set[str] = set()
        for binding in cache.ComputeSkelBindings(UsdSkel.Root(root), predicate):
            skel = self.skels.get(str(binding.GetSkeleton().GetPrim().GetPath()))
            if skel is None:
                continue
            for query in binding.GetSkinningTargets():
                prim = query.GetPrim()
                if not prim.IsA(UsdGeom.Mesh):
                    _log.info("%s: %s: a skinned %s, not a Mesh; left out", self.arrays.path,
                              prim.GetPath(), prim.GetTypeName())
                    continue
                done.add(str(prim.GetPath()))
                self._primitive(prim, query, skel, binding.GetSkeleton().GetPrim())
        return done

    def _primitive(self, prim: Pxr, query: Optional[Pxr], skel: Optional[_Skel],
                   skel_prim: Optional[Pxr]) -> None:
        """A primitive for a Mesh prim: skinned when ``query`` has joint influences."""
        from pxr import UsdGeom, UsdSkel
        mesh = read_mesh(UsdGeom.Mesh(prim), self.arrays)
        V = len(mesh.positions)
        skinned = query is not None and query.HasJointInfluences()
        indices = UsdSkel.BindingAPI(prim).GetJointIndicesPrimvar()
        if query is not None and not skinned and indices and indices.HasAuthoredValue():
            raise self.arrays.error(indices.GetAttr(), f"joint influences that usd-core does "
                                    f"not accept (elementSize {indices.GetElementSize()}, must "
                                    "be >= 1, the same for jointWeights, and the counts "
                                    "whole multiples of it)")
        bind = np.eye(4)
        if query is not None and skinned:
            bind = np.asarray(query.GetGeomBindTransform(), np.float64).T
            if not np.all(np.isfinite(bind)) or abs(np.linalg.det(bind[:3, :3])) < 1e-300:
                raise self.arrays.error(prim, "geomBindTransform is singular or not finite")
        shapes = read_blend_shapes(UsdSkel.BindingAPI(prim), V, self.arrays)
        mesh.transform(bind, shapes)
        node = self.node_of[str(prim.GetPath())]
        p = Primitive(node=node, mesh=len(self.primitives), index=0, skin=None,
                      positions=mesh.positions, normals=mesh.normals, faces=mesh.faces,
                      uvs=mesh.uvs)
        if skinned:
            assert query is not None and skel is not None
            self._influences(p, query, skel, prim)
        if shapes is not None:
            p.morph_positions, p.morph_normals = shapes.offsets, shapes.normal_offsets
            p.morph_weights = np.zeros(len(shapes.offsets))
            p.target_names = shapes.target_names
            if skel is not None and skel.shapes is not None:
                ch = shape_weight_channel(node, shapes, *skel.shapes)
                if ch is not None:
                    self.channels.append(ch)
        self.primitives.append(p)

    def _influences(self, p: Primitive, query: Pxr, skel: _Skel, prim: Pxr) -> None:
        """``p``'s skin, joints, weights and skinning method from the binding (UsdSkel
        "Binding": jointIndices / jointWeights primvars, elementSize influences each)."""
        order = query.GetJointOrder()
        joints = [str(j) for j in order] if order else list(skel.index)   # the skeleton's order
        missing = [j for j in joints if j not in skel.index]
        if missing:
            raise self.arrays.error(prim, f"skel:joints names {missing[0]!r}, which is not a "
                                    "joint of the bound skeleton")
        indices, weights = query.GetJointIndicesPrimvar(), query.GetJointWeightsPrimvar()
        K = indices.GetElementSize()
        if K < 1 or weights.GetElementSize() != K:
            raise self.arrays.error(indices.GetAttr(), f"elementSize must be >= 1 and the same "
                                    f"for jointWeights, got {K} and {weights.GetElementSize()}")
        from pxr import Usd
        t = Usd.TimeCode.EarliestTime()
        ji = self.arrays.value(indices.GetAttr(), t, 0, what="joint indices")
        jw = self.arrays.value(weights.GetAttr(), t, 0, what="joint weights")
        if ji is None or jw is None:
            raise self.arrays.error(prim, "jointIndices or jointWeights have no value")
        V = len(p.positions)
        n = K if indices.GetInterpolation() == "constant" else V * K
        for a, attr in ((ji, indices.GetAttr()), (jw, weights.GetAttr())):
            if len(a) != n:
                raise self.arrays.error(attr, f"{len(a)} values, expected {n} ({V} points x "
                                        f"elementSize {K}, interpolation "
                                        f"{indices.GetInterpolation()})")
        bad = np.flatnonzero((ji < 0) | (ji >= len(joints)))
        if bad.size:
            raise self.arrays.error(indices.GetAttr(), f"joint index {int(ji[bad[0]])} at "
                                    f"[{int(bad[0])}] is outside 0..{len(joints) - 1}")
        ji, jw = ji.reshape(-1, K), jw.reshape(-1, K)
        key = (str(skel.node), tuple(joints))
        if key not in self.skin_of:
            index = np.array([skel.index[j] for j in joints], np.int64)
            self.skin_of[key] = len(self.skins)
            self.skins.append(Skin(None, (skel.first + index).astype(np.int32),
                                   np.linalg.inv(skel.bind[index]), skel.node))
        p.skin = self.skin_of[key]
        p.joints = np.ascontiguousarray(np.broadcast_to(ji, (V, K)), np.int32)
        p.weights = np.ascontiguousarray(np.broadcast_to(jw, (V, K)))
        method = str(query.GetSkinningMethod())
        if method not in _METHODS:
            raise self.arrays.error(prim, f"skinningMethod must be one of {sorted(_METHODS)}, "
                                    f"got {method!r}")
        p.skinning = _METHODS[method]

