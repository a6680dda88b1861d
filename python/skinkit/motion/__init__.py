"""Motion: retargeting a clip onto another skeleton, foot locking, and the representations models
learn from (HumanML3D's features, 6D rotations)."""
from .footlock import foot_contacts, foot_drift, lock_feet
from .humanml3d import humanml3d_features, humanml3d_joints, humanml3d_preprocess
from .retarget import joint_mapping, retarget, retarget_pose, retarget_rotations
from .rotations6d import matrix_from_6d, matrix_to_6d

__all__ = ["foot_contacts", "foot_drift", "humanml3d_features", "humanml3d_joints",
           "humanml3d_preprocess", "joint_mapping", "lock_feet", "matrix_from_6d", "matrix_to_6d",
           "retarget", "retarget_pose", "retarget_rotations"]
