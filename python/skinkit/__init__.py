"""skinkit: fast, batchable skeletal animation from NumPy.

C kernels for forward kinematics, glTF 2.0 clip sampling and linear blend skinning, a glTF 2.0
loader, and the ``skinkit`` command.
"""
from .bvh import BvhError, load_bvh
from .clip import Channel, Clip
from .default_model import default_model
from .gltf import GltfError, load_gltf
from .kernels import *  # noqa: F401,F403
from .kernels import __all__ as _kernel_names
from .kernels import inverse_bind_matrices, quat_from_axis_angle  # noqa: F401  deprecated
from .model import Model, Skeleton, SkinnedPrimitive, Skin
from .pose import frame_times, local_pose, pose, world_matrices

__version__ = "0.1.0"
__all__ = ["BvhError", "Channel", "Clip", "GltfError", "Model", "Skeleton", "SkinnedPrimitive",
           "Skin", "default_model", "frame_times", "load_bvh", "load_gltf", "local_pose", "pose",
           "world_matrices", *_kernel_names]
