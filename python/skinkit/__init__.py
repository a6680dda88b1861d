"""skinkit: fast, batchable skeletal animation from NumPy.

C kernels for forward kinematics, glTF 2.0 clip sampling, pose blending, linear blend and dual
quaternion skinning, blend shapes (morph targets), glTF 2.0 and FBX scene loaders, SMPL-family
body models with analytic gradients, and the ``skinkit`` command.
"""
import logging as _logging

from . import _core, data
from .kernels.blending import additive_pose, blend_poses, pose_delta
from .body.body_model import BodyModel
from .body.kinds import BodyModelError
from .body.synthetic import synthetic_body_arrays, synthetic_body_model
from .io.amass import BodyMotion, load_amass
from .io.body import load_body_model
from .io.bvh.read import BvhError, load_bvh
from .io.bvh.write import write_bvh
from .kernels.trs import TRS
from .model.clip import Channel, Clip
from . import dataset
from .model.default_model import default_model
from .io.load import load_model
from .io.fbx import FbxError, load_fbx
from .body.fit import FitResult, fit_body
from .io.gltf import GltfError, load_gltf
from .io.gltf.write import write_gltf
from .io.usd import UsdError, load_usd, write_usd
from .kernels.ik import ik_aim, ik_ccd, ik_fabrik, ik_two_bone
from .kernels.gradients import *  # noqa: F401,F403
from .kernels.gradients import __all__ as _vjp_names
from .kernels.wrappers import *  # noqa: F401,F403
from .kernels.wrappers import __all__ as _kernel_names
from .kernels.wrappers import inverse_bind_matrices, quat_from_axis_angle  # noqa: F401  deprecated
from .model.model import Model
from .model.records import Primitive, Skeleton, SkinnedPrimitive, Skin
from .kernels.morph import blend_shapes
from .motion.canonical import (canonical_joints, canonical_motion, canonical_transform,
                               transform_motion)
from .model.compress import compress
from .model.compressed_clip import CompressedClip
from .io.skc import load_compressed, save_compressed
from .motion.footlock import foot_contacts, foot_drift, lock_feet
from .motion.humanml3d import humanml3d_features, humanml3d_joints, humanml3d_preprocess
from .motion.mirror import mirror, mirror_permutation, mirror_positions, mirror_rotations
from .motion.rotations6d import matrix_from_6d, matrix_to_6d
from .motion.rep272 import rep272_features, rep272_joints, rep272_rotations
from .motion.retarget import joint_mapping, retarget, retarget_pose, retarget_rotations
from .model.pose import PosedMeshes, frame_times, local_pose, pose, world_matrices
from .model.request import PoseRequest
from .apps.viewer import view, view_body

# what the loaders and the posing decided goes to the "skinkit" logger: quiet unless the
# application configures logging (the skinkit command prints its warnings)
_logging.getLogger("skinkit").addHandler(_logging.NullHandler())

__version__ = _core.__version__   # SKINKIT_VERSION of src/skinkit.h
__all__ = ["BodyModel", "BodyModelError", "BodyMotion", "BvhError", "Channel", "Clip",
           "CompressedClip", "FbxError", "FitResult", "GltfError", "Model", "PosedMeshes",
           "PoseRequest", "UsdError", "compress", "load_compressed", "save_compressed",
           "Primitive", "Skeleton", "SkinnedPrimitive", "Skin", "TRS", "additive_pose",
           "blend_poses", "blend_shapes", "canonical_joints", "canonical_motion",
           "canonical_transform", "default_model", "fit_body", "foot_contacts",
           "foot_drift", "frame_times", "humanml3d_features", "humanml3d_joints",
           "humanml3d_preprocess", "ik_aim", "ik_ccd", "ik_fabrik", "ik_two_bone",
           "joint_mapping", "load_amass", "load_body_model", "load_bvh", "load_fbx", "load_gltf",
           "load_model", "load_usd", "local_pose", "lock_feet", "matrix_from_6d", "matrix_to_6d",
           "mirror", "mirror_permutation", "mirror_positions", "mirror_rotations", "pose",
           "pose_delta", "rep272_features", "rep272_joints", "rep272_rotations", "retarget",
           "retarget_pose", "retarget_rotations", "synthetic_body_arrays", "synthetic_body_model",
           "transform_motion", "view", "view_body", "world_matrices", "write_bvh", "write_gltf",
           "write_usd"]
__all__ += _kernel_names
__all__ += _vjp_names
