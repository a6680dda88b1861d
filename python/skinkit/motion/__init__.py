"""Motion: retargeting a clip onto another skeleton, foot locking, and what models learn from:
the canonical frame, mirroring, HumanML3D's features, 6D rotations."""
from .canonical import canonical_joints, canonical_motion, canonical_transform, transform_motion
from .footlock import foot_contacts, foot_drift, lock_feet
from .humanml3d import humanml3d_features, humanml3d_joints, humanml3d_preprocess
from .mirror import mirror, mirror_permutation, mirror_positions, mirror_rotations
from .rep272 import rep272_features, rep272_joints, rep272_rotations
from .retarget import joint_mapping, retarget, retarget_pose, retarget_rotations
from .rotations6d import matrix_from_6d, matrix_to_6d

__all__ = ["canonical_joints", "canonical_motion", "canonical_transform", "foot_contacts",
           "foot_drift", "humanml3d_features", "humanml3d_joints", "humanml3d_preprocess",
           "joint_mapping", "lock_feet", "matrix_from_6d", "matrix_to_6d", "mirror",
           "mirror_permutation", "mirror_positions", "mirror_rotations", "rep272_features",
           "rep272_joints", "rep272_rotations", "retarget", "retarget_pose", "retarget_rotations",
           "transform_motion"]
