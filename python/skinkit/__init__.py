"""skinkit: fast, batchable skeletal animation from NumPy.

C kernels for forward kinematics, glTF 2.0 clip sampling, pose blending, linear blend and dual
quaternion skinning, a glTF 2.0 loader, and the ``skinkit`` command.
"""
from .blending import additive_pose, blend_poses, pose_delta
from .bvh import BvhError, load_bvh
from .clip import Channel, Clip
from .default_model import default_model
from .gltf import GltfError, load_gltf
from .kernels import *  # noqa: F401,F403
from .kernels import __all__ as _kernel_names
from .model import Model, Skeleton, SkinnedPrimitive, Skin
from .pose import frame_times, local_pose, pose, world_matrices

__version__ = "0.1.0"
__all__ = ["BvhError", "Channel", "Clip", "GltfError", "Model", "Skeleton", "SkinnedPrimitive",
           "Skin", "additive_pose", "blend_poses", "default_model", "frame_times", "load_bvh",
           "load_gltf", "local_pose", "pose", "pose_delta", "world_matrices", *_kernel_names]
