"""Writing a model as a UsdSkel stage (``.usda``, ``.usdc``, ``.usd``, ``.usdz``).

The layout follows the UsdSkel schema documentation: a SkelRoot holding one Skeleton per skin
(every node a joint, parents before children; ``bindTransforms`` the inverses of the skin's
inverse bind matrices, the rest world transforms for the other nodes), one more Skeleton with
identity bind transforms for the rigid primitives (each bound to its node with one constant
influence), one SkelAnimation that every Skeleton plays (the animated joints' translations,
rotations and scales and every blend shape's weight at the union of the clip's key times), and
a Mesh per primitive with its joint influences, ``skel:skinningMethod`` and BlendShape
children.  Names are made valid USD identifiers (``Tf.MakeValidIdentifier``, numbered where
two collide); the nodes' own names are kept in the Skeletons' customData
(``"skinkitJointNames"``), where ``load_usd`` reads them back.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set

import numpy as np
from numpy.typing import NDArray

from ...kernels._types import PathLike
from ...model.clip import Clip
from ...model.model import Model
from ..mesh_files import atomic_file
from .read import JOINT_NAMES
from .stage import Pxr, pxr

__all__ = ["write_usd"]

SUFFIXES = (".usda", ".usdc", ".usd", ".usdz")
_RATES = (24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0)   # timeCodesPerSecond tried, in order
_RATE = 60.0   # the rate of keys on none of them (fractional time codes)


def write_usd(model: Model, path: PathLike, clips: Optional[Sequence[Clip]] = None) -> None:
    """Write ``model`` as a UsdSkel stage (layout in the module docstring).

    Parameters
    ----------
    model : Model
    path : path
        ``.usda`` (text), ``.usdc`` or ``.usd`` (binary crate) or ``.usdz`` (a package of one
        crate).  Written atomically (a temporary file replaced over ``path``).
    clips : sequence of at most one Clip, optional
        The animation (default: ``model.clips[:1]``).  A stage has one timeline; for several
        clips write several files.  TRS and weights values are sampled at the union of the
        clip's key times (exact for LINEAR keys; STEP and CUBICSPLINE channels are sampled at
        60 time codes a second as well, which USD interpolates linearly).  timeCodesPerSecond is
        the first of 24, 25, 30, 48, 50, 60, 120 that puts every key on a whole time code (60
        when none does).

    Raises
    ------
    ValueError
        ``path`` has another suffix; more than one clip; a name UTF-8 cannot encode.
    ImportError
        usd-core is not installed (``pip install 'skinkit[usd]'``).

    Notes
    -----
    The stage has upAxis Y and metersPerUnit 1 (skinkit's units); joint scales are ``half3`` in
    UsdSkel, so an animated scale keeps about 3 significant digits.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"write_usd: path must end in one of {', '.join(SUFFIXES)}, got "
                         f"{str(path)!r}")
    chosen = list(model.clips[:1] if clips is None else clips)
    if len(chosen) > 1:
        raise ValueError(f"write_usd: a USD stage holds one animation, got {len(chosen)} clips")
    _check_text(model, chosen[0] if chosen else None)
    pxr()
    from pxr import UsdUtils
    stage = _Writer(model, chosen[0] if chosen else None).stage
    with tempfile.TemporaryDirectory() as tmp, atomic_file(path, suffix) as f:
        out = os.path.join(tmp, Path(path).stem + suffix)
        crate = os.path.join(tmp, Path(path).stem + ".usdc")
        stage.GetRootLayer().Export(crate if suffix == ".usdz" else out)
        if suffix == ".usdz" and not UsdUtils.CreateNewUsdzPackage(crate, out):
            raise OSError(f"write_usd: usd-core could not package {path}")
        with open(out, "rb") as src:
            shutil.copyfileobj(src, f)


def _check_text(model: Model, clip: Optional[Clip]) -> None:
    """ValueError naming the first name (the model's, a joint's, a blend shape's, the clip's)
    that UTF-8 cannot encode (a lone surrogate): a stage's strings are UTF-8."""
    named = [("the model's name", model.name), ("the clip's name", clip and clip.name)]
    named += [(f"joint {j}'s name", n) for j, n in enumerate(model.skeleton.names)]
    named += [(f"primitive {k}'s target {m}'s name", n) for k, p in enumerate(model.primitives)
              for m, n in enumerate(p.target_names or ())]
    for what, text in named:
        try:
            str(text or "").encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"write_usd: {what} {text!r} is not UTF-8 (a lone surrogate); "
                             "rename it") from None


def _unique(names: Sequence[str], taken: Optional[Set[str]] = None) -> List[str]:
    """Valid, distinct USD identifiers for ``names``."""
    from pxr import Tf
    taken = set() if taken is None else taken
    out = []
    for n in names:
        base = Tf.MakeValidIdentifier(n or "node")
        name, i = base, 1
        while name in taken:
            name, i = f"{base}_{i}", i + 1
        taken.add(name)
        out.append(name)
    return out


def _matrix(m: NDArray[Any]) -> Pxr:
    from pxr import Gf
    return Gf.Matrix4d(np.asarray(m, np.float64).T.tolist())   # USD's row-vector matrices


class _Writer:
    def __init__(self, model: Model, clip: Optional[Clip]):
        from pxr import Usd, UsdGeom, UsdSkel
        self.model, self.clip = model, clip
        self.stage = stage = Usd.Stage.CreateInMemory()
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
        UsdGeom.SetStageMetersPerUnit(stage, 1.0)
        root = UsdSkel.Root.Define(stage, "/" + _unique([model.name or "Model"])[0])
        stage.SetDefaultPrim(root.GetPrim())
        self.root = root.GetPath()
        self._joints()
        self.times = self._times()
        anim = self._animation()
        taken = {"Anim"}
        self.skeletons: Dict[Optional[int], Pxr] = {}
        for s in sorted({p.skin for p in model.primitives}, key=lambda s: -1 if s is None else s):
            name = _unique(["Rigid" if s is None else f"Skel{s}"], taken)[0]
            self.skeletons[s] = self._skeleton(name, s, anim)
        self.shape_weights: Dict[str, NDArray[Any]] = {}
        mesh_names = _unique([f"{model.skeleton.names[p.node] or 'mesh'}_{p.index}"
                              for p in model.primitives], taken)
        for prim, name in zip(model.primitives, mesh_names):
            self._mesh(prim, name)
        if anim is not None and self.shape_weights:
            UsdSkel.Animation(anim).CreateBlendShapesAttr(list(self.shape_weights))
            w = np.stack(list(self.shape_weights.values()), axis=1)
            attr = UsdSkel.Animation(anim).CreateBlendShapeWeightsAttr()
            if not self.codes:   # no clip: the rest weights
                attr.Set(w[0].astype(np.float32).tolist())
            for k, code in enumerate(self.codes):
                attr.Set(w[k].astype(np.float32).tolist(), code)
        if len(self.codes) > 1:
            stage.SetStartTimeCode(float(self.codes[0]))
            stage.SetEndTimeCode(float(self.codes[-1]))
        stage.SetTimeCodesPerSecond(self.rate)
        stage.SetFramesPerSecond(self.rate)

    def _joints(self) -> None:
        """The joint order (parents first) and each node's joint path."""
        sk = self.model.skeleton
        parents = np.asarray(sk.parents)
        children: Dict[int, List[int]] = {}
        for n, p in enumerate(parents):
            children.setdefault(int(p), []).append(n)
        self.order: List[int] = []
        self.path: Dict[int, str] = {}
        stack = [(-1, "")]
        while stack:
            parent, prefix = stack.pop()
            kids = children.get(parent, [])
            for n, token in zip(kids, _unique([str(sk.names[n] or f"node{n}") for n in kids])):
                self.path[n] = prefix + token
                self.order.append(n)
                stack.append((n, self.path[n] + "/"))
        from ...kernels import wrappers as kernels
        r, t, s = (np.asarray(a, np.float64) for a in (sk.rotations, sk.translations, sk.scales))
        self.local = kernels.forward_kinematics(np.full(len(parents), -1), r, t, s)
        self.world_rest = kernels.forward_kinematics(parents, r, t, s)

    def _times(self) -> NDArray[Any]:
        """Key times (s) of the written animation: the union of the clip's, with 60 a second
        across STEP and CUBICSPLINE channels; on whole time codes when a rate of ``_RATES``
        puts them there (within 1e-3 of a code)."""
        self.rate, self.codes = _RATE, []
        if self.clip is None or not self.clip.channels:
            return np.zeros(0)
        parts = [np.asarray(ch.times, np.float64) for ch in self.clip.channels]
        for ch in self.clip.channels:
            if ch.interpolation != "LINEAR" and len(ch.times) > 1:
                parts.append(np.arange(ch.times[0], ch.times[-1], 1.0 / _RATE))
        times = np.unique(np.concatenate(parts))
        for r in _RATES:
            if np.all(np.abs(times * r - np.round(times * r)) < 1e-3):
                self.rate = r
                times = np.unique(np.round(times * r)) / r
                break
        self.codes = [float(c) for c in times * self.rate]
        return times

    def _animation(self) -> Optional[Pxr]:
        from pxr import UsdSkel, Vt
        weighted = any(p.target_count and np.any(np.asarray(p.morph_weights) != 0)
                       for p in self.model.primitives)
        if self.clip is None and not weighted:
            return None
        anim = UsdSkel.Animation.Define(self.stage, self.root.AppendChild("Anim"))
        channels = [] if self.clip is None else self.clip.channels
        animated = sorted({ch.node for ch in channels if ch.path != "weights"},
                          key=self.order.index)
        anim.CreateJointsAttr([self.path[n] for n in animated])
        if animated:
            t, r, s = self.model.local_pose(self.clip, self.times)
            t, r, s = (np.asarray(a, np.float64)[:, animated] for a in (t, r, s))
            for k, code in enumerate(self.codes):
                anim.CreateTranslationsAttr().Set(Vt.Vec3fArray.FromNumpy(
                    t[k].astype(np.float32)), code)
                anim.CreateRotationsAttr().Set(Vt.QuatfArray.FromNumpy(
                    r[k].astype(np.float32)), code)
                anim.CreateScalesAttr().Set(Vt.Vec3hArray.FromNumpy(
                    s[k].astype(np.float16)), code)
        return anim.GetPrim()

    def _skeleton(self, name: str, skin: Optional[int], anim: Optional[Pxr]) -> Pxr:
        from pxr import UsdSkel, Vt
        sk = self.model.skeleton
        skel = UsdSkel.Skeleton.Define(self.stage, self.root.AppendChild(name))
        bind = self.world_rest.copy()
        if skin is None:
            bind[:] = np.eye(4)
        else:
            s = self.model.skins[skin]
            bind[np.asarray(s.joints)] = np.linalg.inv(np.asarray(s.inverse_bind_matrices,
                                                                  np.float64))
        skel.CreateJointsAttr([self.path[n] for n in self.order])
        skel.CreateBindTransformsAttr([_matrix(bind[n]) for n in self.order])
        skel.CreateRestTransformsAttr([_matrix(self.local[n]) for n in self.order])
        skel.GetPrim().SetCustomDataByKey(JOINT_NAMES, Vt.StringArray(
            [str(sk.names[n] or "") for n in self.order]))
        if anim is not None:
            UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets(
                [anim.GetPath()])
        return skel

    def _mesh(self, prim: Any, name: str) -> None:
        from pxr import Sdf, UsdGeom, UsdSkel, Vt
        mesh = UsdGeom.Mesh.Define(self.stage, self.root.AppendChild(name))
        pts = np.asarray(prim.positions, np.float64)
        mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(pts.astype(np.float32)))
        if len(pts):
            mesh.CreateExtentAttr([tuple(pts.min(0).tolist()), tuple(pts.max(0).tolist())])
        faces = np.zeros((0, 3), np.int64) if prim.faces is None else np.asarray(prim.faces)
        mesh.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(faces)))
        mesh.CreateFaceVertexIndicesAttr(Vt.IntArray(faces.reshape(-1).tolist()))
        mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
        if prim.normals is not None:
            mesh.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(
                np.asarray(prim.normals, np.float32)))
            mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
        if prim.uvs is not None:
            st = UsdGeom.PrimvarsAPI(mesh).CreatePrimvar(
                "st", Sdf.ValueTypeNames.TexCoord2fArray, UsdGeom.Tokens.vertex)
            uv = np.asarray(prim.uvs, np.float64) * [1, -1] + [0, 1]
            st.Set(Vt.Vec2fArray.FromNumpy(uv.astype(np.float32)))
        binding = UsdSkel.BindingAPI.Apply(mesh.GetPrim())
        binding.CreateSkeletonRel().SetTargets([self.skeletons[prim.skin].GetPath()])
        if prim.skin is None:
            binding.CreateJointsAttr([self.path[prim.node]])
            binding.CreateJointIndicesPrimvar(True, 1).Set([0])
            binding.CreateJointWeightsPrimvar(True, 1).Set([1.0])
        else:
            skin = self.model.skins[prim.skin]
            binding.CreateJointsAttr([self.path[int(j)] for j in skin.joints])
            joints = np.asarray(prim.joints, np.int64)
            K = joints.shape[1]
            binding.CreateJointIndicesPrimvar(False, K).Set(Vt.IntArray(
                joints.reshape(-1).tolist()))
            binding.CreateJointWeightsPrimvar(False, K).Set(Vt.FloatArray.FromNumpy(
                np.asarray(prim.weights, np.float32).reshape(-1)))
            binding.CreateSkinningMethodAttr(
                "dualQuaternion" if prim.skinning == "dqs" else "classicLinear")
        if prim.target_count:
            self._shapes(prim, mesh, binding)

    def _shapes(self, prim: Any, mesh: Pxr, binding: Pxr) -> None:
        from pxr import UsdSkel, Vt
        M = prim.target_count
        names = _unique([str(n) for n in (prim.target_names or [])][:M]
                        + [f"target{m}" for m in range(len(prim.target_names or []), M)])
        paths = []
        for m, name in enumerate(names):
            shape = UsdSkel.BlendShape.Define(self.stage, mesh.GetPath().AppendChild(name))
            off = np.zeros_like(prim.positions) if prim.morph_positions is None \
                else prim.morph_positions[m]
            shape.CreateOffsetsAttr(Vt.Vec3fArray.FromNumpy(np.asarray(off, np.float32)))
            if prim.morph_normals is not None:
                shape.CreateNormalOffsetsAttr(Vt.Vec3fArray.FromNumpy(
                    np.asarray(prim.morph_normals[m], np.float32)))
            paths.append(shape.GetPath())
        tokens = _unique([f"{mesh.GetPath().name}_{n}" for n in names],
                         set(self.shape_weights))
        binding.CreateBlendShapesAttr(tokens)
        binding.CreateBlendShapeTargetsRel().SetTargets(paths)
        rest = np.asarray(prim.morph_weights, np.float64)
        channel = None if self.clip is None else next(
            (c for c in self.clip.channels if c.path == "weights" and c.node == prim.node), None)
        for m, token in enumerate(tokens):
            if channel is None:
                w = np.full(max(len(self.codes), 1), rest[m])
            else:
                w = np.interp(self.times, channel.times, np.asarray(channel.values)[:, m])
            self.shape_weights[token] = w
