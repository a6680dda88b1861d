"""``PosedMeshes``: what posing returns, for all times (``Model.pose``) or one block of frames
(``Model.pose_blocks``, ``BodyModel.pose_blocks``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, Mapping, Optional, Tuple

import numpy as np
from numpy.typing import DTypeLike, NDArray

__all__ = ["PosedMeshes", "layout"]

Layout = Dict[str, Tuple[Tuple[int, ...], np.dtype[Any]]]   # array name -> (shape, dtype)


def layout(count: int, vertices: Mapping[str, int], normals: Iterable[str] = (),
           joints: Optional[int] = None, dtype: DTypeLike = np.float64,
           times: bool = True) -> Layout:
    """The arrays a pose of ``count`` frames gives, before posing: ``times`` (T,) (with
    ``times``), ``positions_<key>`` (T, V, 3) for each ``vertices[key] = V``, ``normals_<key>``
    for each key of ``normals``, ``joints`` (T, N, 3) for ``joints = N``; in the order and with
    the names of ``PosedMeshes.arrays``, all of ``dtype``."""
    dt = np.dtype(dtype)
    out: Layout = {"times": ((count,), dt)} if times else {}
    out.update((f"positions_{k}", ((count, v, 3), dt)) for k, v in vertices.items())
    out.update((f"normals_{k}", ((count, vertices[k], 3), dt)) for k in normals)
    if joints is not None:
        out["joints"] = ((count, joints, 3), dt)
    return out


@dataclass(repr=False, eq=False)
class PosedMeshes(Mapping[str, NDArray[Any]]):
    """Posed positions (and normals, joints) of every mesh primitive instance.

    A read-only mapping ``prim.key`` -> positions (T, V, 3), so ``posed[key]`` is the positions
    of one primitive; the same record whatever was asked for.

    Attributes
    ----------
    times : float array (T,), the times posed (seconds); for a body model, frame indices.
    positions : dict key -> float array (T, V, 3), world space, file units.
    normals : dict key -> float array (T, V, 3), unit normals in world space, for the primitives
        that have normals when normals were asked for; empty otherwise.
    joints : float array (T, N, 3) or None, the world position of every node (of every joint of
        a body model) when asked for.
    """

    times: NDArray[Any]
    positions: Dict[str, NDArray[Any]]
    normals: Dict[str, NDArray[Any]]
    joints: Optional[NDArray[Any]] = None

    __eq__ = object.__eq__   # equal only to itself: arrays have no single truth value
    __hash__ = None          # type: ignore[assignment]  # a mutable record

    def __getitem__(self, key: str) -> NDArray[Any]:
        return self.positions[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.positions)

    def __len__(self) -> int:
        return len(self.positions)

    def arrays(self) -> Dict[str, NDArray[Any]]:
        """``positions_<key>``, ``normals_<key>`` and ``joints`` arrays, as ``skinkit pose``
        writes them."""
        out = {f"positions_{k}": v for k, v in self.positions.items()}
        out.update((f"normals_{k}", v) for k, v in self.normals.items())
        if self.joints is not None:
            out["joints"] = self.joints
        return out

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}: {v.shape}" for k, v in list(self.positions.items())[:4])
        more = f", ... {len(self) - 4} more" if len(self) > 4 else ""
        joints = "" if self.joints is None else f", joints {self.joints.shape}"
        return (f"PosedMeshes({len(self.times)} times, {len(self)} primitives "
                f"{{{shapes}{more}}}, normals for {len(self.normals)}{joints})")
