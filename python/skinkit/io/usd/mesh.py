"""A UsdGeom.Mesh as checked arrays: points, fan-triangulated faces, per-point normals and UVs
(UsdGeom "Mesh": faceVertexCounts, faceVertexIndices, orientation; primvar interpolation)."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
from numpy.typing import NDArray

from .stage import Arrays, Pxr

if TYPE_CHECKING:
    from .shapes import BlendShapes

_log = logging.getLogger(__name__)
_PER_POINT = ("vertex", "varying")


@dataclass
class MeshArrays:
    positions: NDArray[Any]
    faces: NDArray[Any]
    normals: Optional[NDArray[Any]]
    uvs: Optional[NDArray[Any]]

    def transform(self, m: NDArray[Any], shapes: Optional[BlendShapes]) -> None:
        """Apply the affine ``m`` (4, 4) (a geomBindTransform) to the points, normals (by the
        inverse transpose, renormalized) and blend-shape offsets (by its linear part)."""
        if np.array_equal(m, np.eye(4)):
            return
        a = m[:3, :3]
        self.positions = self.positions @ a.T + m[:3, 3]
        inv_t = np.linalg.inv(a)   # n' = A^-T n, as rows: n A^-1
        if self.normals is not None:
            self.normals = _unit(self.normals @ inv_t)
        if shapes is not None:
            shapes.offsets = shapes.offsets @ a.T
            if shapes.normal_offsets is not None:
                shapes.normal_offsets = shapes.normal_offsets @ inv_t


def _unit(n: NDArray[Any]) -> NDArray[Any]:
    length = np.linalg.norm(n, axis=-1, keepdims=True)
    out: NDArray[Any] = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    return out


def read_mesh(mesh: Pxr, arrays: Arrays) -> MeshArrays:
    """The mesh's points at the earliest time (a point cache's later samples are left out),
    its polygons as triangle fans, and its normals and ``st`` when they are per point."""
    from pxr import Usd, UsdGeom
    t = Usd.TimeCode.EarliestTime()
    points = arrays.value(mesh.GetPointsAttr(), t, 3, what="points")
    if points is None:
        points = np.zeros((0, 3))
    if mesh.GetPointsAttr().GetNumTimeSamples() > 1:
        _log.info("%s: %s: animated points (a point cache) are not read; the earliest sample "
                  "is the mesh", arrays.path, mesh.GetPath())
    V = len(points)
    counts = arrays.value(mesh.GetFaceVertexCountsAttr(), t, 0, what="faceVertexCounts")
    indices = arrays.value(mesh.GetFaceVertexIndicesAttr(), t, 0, what="faceVertexIndices")
    counts = np.zeros(0, np.int64) if counts is None else counts
    indices = np.zeros(0, np.int64) if indices is None else indices
    if np.any(counts < 0) or counts.sum() != len(indices):
        raise arrays.error(mesh.GetFaceVertexCountsAttr(), f"the face sizes sum to "
                           f"{int(counts.sum())}, but there are {len(indices)} faceVertexIndices")
    if indices.size and (indices.min() < 0 or indices.max() >= V):
        raise arrays.error(mesh.GetFaceVertexIndicesAttr(), f"indices must be in 0..{V - 1}, "
                           f"got {int(indices.min())}..{int(indices.max())}")
    faces = _fans(counts, indices)
    if mesh.GetOrientationAttr().Get() == UsdGeom.Tokens.leftHanded:
        faces = faces[:, ::-1].copy()
    api = UsdGeom.PrimvarsAPI(mesh.GetPrim())
    normals = _per_point(api.GetPrimvar("normals"), V, 3, arrays)
    if normals is None and mesh.GetNormalsAttr().HasAuthoredValue() \
            and mesh.GetNormalsInterpolation() in _PER_POINT:
        normals = arrays.value(mesh.GetNormalsAttr(), t, 3, V, "normals")
    uvs = _per_point(api.GetPrimvar("st"), V, 2, arrays)
    if uvs is not None:
        uvs = uvs * [1.0, -1.0] + [0.0, 1.0]   # USD's v up to glTF's v down
    return MeshArrays(points, faces, None if normals is None else _unit(normals), uvs)


def _fans(counts: NDArray[Any], indices: NDArray[Any]) -> NDArray[Any]:
    """(F, 3) triangles: polygon of corners c0..cn-1 as (c0, ci, ci+1), i = 1..n-2."""
    n = np.maximum(counts - 2, 0)
    starts = np.cumsum(counts) - counts
    first = np.repeat(starts, n)
    step = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n) + 1
    return np.stack([indices[first], indices[first + step], indices[first + step + 1]],
                    axis=1).astype(np.int64) if n.sum() else np.zeros((0, 3), np.int64)


def _per_point(primvar: Pxr, V: int, width: int, arrays: Arrays) -> Optional[NDArray[Any]]:
    """A primvar's values (V, width) when it is authored per point (indexed ones flattened),
    None otherwise."""
    from pxr import Usd
    if not primvar or not primvar.HasAuthoredValue() \
            or primvar.GetInterpolation() not in _PER_POINT:
        return None
    value = primvar.ComputeFlattened(Usd.TimeCode.EarliestTime())
    if value is None:
        return None
    a = np.asarray(value, np.float64).reshape(-1, width)
    if len(a) != V or not np.all(np.isfinite(a)):
        raise arrays.error(primvar.GetAttr(), f"{len(a)} per-point values for {V} points, or "
                           "values that are not finite")
    return a
