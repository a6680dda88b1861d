"""skinkit: fast, batchable skeletal animation from NumPy.

C kernels for forward kinematics, glTF 2.0 clip sampling, pose blending, linear blend and dual
quaternion skinning, blend shapes (morph targets), glTF 2.0 and FBX scene loaders, SMPL-family
body models with analytic gradients, and the ``skinkit`` command.
"""
import logging as _logging

from . import data
from .kernels.blending import additive_pose, blend_poses, pose_delta
from .body.body_model import BodyModel, BodyModelError, load_body_model
from .body.synthetic import synthetic_body_arrays, synthetic_body_model
from .io.amass import BodyMotion, load_amass
from .io.bvh.read import BvhError, load_bvh
from .io.bvh.write import write_bvh
from .model.clip import TRS, Channel, Clip
from . import dataset
from .model.default_model import default_model
from .io.detect import load_model
from .io.fbx import FbxError, load_fbx
from .body.fit import FitResult, fit_body
from .io.gltf import GltfError, load_gltf
from .io.gltf.write import write_gltf
from .kernels.ik import ik_aim, ik_ccd, ik_fabrik, ik_two_bone
from .kernels.gradients import *  # noqa: F401,F403
from .kernels.gradients import __all__ as _vjp_names
from .kernels.wrappers import *  # noqa: F401,F403
from .kernels.wrappers import __all__ as _kernel_names
from .kernels.wrappers import inverse_bind_matrices, quat_from_axis_angle  # noqa: F401  deprecated
from .model.model import Model, Primitive, Skeleton, SkinnedPrimitive, Skin
from .kernels.morph import blend_shapes
from .motion.compress import compress
from .motion.compressed_clip import CompressedClip
from .motion.compressed_file import load_compressed, save_compressed
from .motion.footlock import foot_contacts, foot_drift, lock_feet
from .motion.retarget import joint_mapping, retarget, retarget_pose, retarget_rotations
from .model.pose import PosedMeshes, frame_times, local_pose, pose, world_matrices
from .model.request import PoseRequest
from .apps.viewer import view, view_body

# what the loaders and the posing decided goes to the "skinkit" logger: quiet unless the
# application configures logging (the skinkit command prints its warnings)
_logging.getLogger("skinkit").addHandler(_logging.NullHandler())

__version__ = "0.1.0"
__all__ = ["BodyModel", "BodyModelError", "BodyMotion", "BvhError", "Channel", "Clip",
           "CompressedClip", "compress", "load_compressed", "save_compressed",
           "FbxError", "FitResult", "GltfError", "Model", "PosedMeshes", "PoseRequest",
           "Primitive", "Skeleton", "SkinnedPrimitive", "Skin", "TRS", "additive_pose",
           "blend_poses", "blend_shapes", "default_model", "fit_body", "foot_contacts",
           "foot_drift", "frame_times", "ik_aim", "ik_ccd", "ik_fabrik", "ik_two_bone",
           "joint_mapping", "load_amass", "load_body_model", "load_bvh", "load_fbx", "load_gltf",
           "load_model", "local_pose", "lock_feet", "pose", "pose_delta", "retarget",
           "retarget_pose", "retarget_rotations", "synthetic_body_arrays", "synthetic_body_model",
           "view", "view_body", "world_matrices", "write_bvh", "write_gltf"]
__all__ += _kernel_names
__all__ += _vjp_names
