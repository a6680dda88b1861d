"""skinkit: fast, batchable skeletal animation from NumPy.

C kernels for forward kinematics, glTF 2.0 clip sampling, pose blending, linear blend and dual
quaternion skinning, blend shapes (morph targets), a glTF 2.0 scene loader, SMPL-family body
models with analytic gradients, and the ``skinkit`` command.
"""
from .blending import additive_pose, blend_poses, pose_delta
from .body import BodyModel, BodyModelError, load_body_model
from .body_synthetic import synthetic_body_arrays, synthetic_body_model
from .io.bvh import BvhError, load_bvh
from .clip import Channel, Clip
from .default_model import default_model
from .fit import FitResult, fit_body
from .io.gltf import GltfError, load_gltf
from .gradients import *  # noqa: F401,F403
from .gradients import __all__ as _vjp_names
from .kernels import *  # noqa: F401,F403
from .kernels import __all__ as _kernel_names
from .kernels import inverse_bind_matrices, quat_from_axis_angle  # noqa: F401  deprecated
from .model import Model, Primitive, Skeleton, SkinnedPrimitive, Skin
from .morph import blend_shapes
from .pose import PosedMeshes, frame_times, local_pose, pose, world_matrices

__version__ = "0.1.0"
__all__ = ["BodyModel", "BodyModelError", "BvhError", "Channel", "Clip", "FitResult", "GltfError",
           "Model", "PosedMeshes", "Primitive", "Skeleton", "SkinnedPrimitive", "Skin",
           "additive_pose", "blend_poses", "blend_shapes", "default_model", "fit_body",
           "frame_times", "load_body_model", "load_bvh", "load_gltf", "local_pose", "pose",
           "pose_delta", "synthetic_body_arrays", "synthetic_body_model", "world_matrices", *_kernel_names, *_vjp_names]
