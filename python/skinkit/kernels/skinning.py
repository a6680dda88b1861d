"""The skinning kernels by the names a pose request takes (``PoseRequest.skinning``,
``skinkit pose --skinning``)."""
from __future__ import annotations

from typing import Dict

from ._generated import SkinningKernel
from .wrappers import dual_quaternion_skinning, linear_blend_skinning

__all__ = ["SKINNING", "SkinningKernel"]

SKINNING: Dict[str, SkinningKernel] = {"lbs": linear_blend_skinning,
                                       "dqs": dual_quaternion_skinning}
