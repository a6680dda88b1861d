"""skinkit: fast, batchable skeletal animation from NumPy.

C kernels for forward kinematics, glTF 2.0 clip sampling and linear blend skinning, a glTF 2.0
loader, and the ``skinkit`` command.
"""
from .clip import Channel, Clip
from .kernels import *  # noqa: F401,F403
from .kernels import __all__ as _kernel_names
from .model import Model, Skeleton, SkinnedPrimitive, Skin

__version__ = "0.1.0"
__all__ = ["Channel", "Clip", "Model", "Skeleton", "SkinnedPrimitive", "Skin", *_kernel_names]
