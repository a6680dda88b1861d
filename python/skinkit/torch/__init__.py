"""PyTorch interface (optional; every device): skinkit's kernels and body models as torch
operators, differentiable through VJP operators, and ``BodyModel``, an ``nn.Module`` with
the forward arguments of smplx's layers.

    import skinkit.torch as skt
    v = skt.linear_blend_skinning(vertices=rest, joints=joints, weights=weights,
                                  skinning_matrices=mats)          # a torch.ops.skinkit op
    body = skt.BodyModel("SMPL_NEUTRAL.pkl")
    out = body(betas=betas, body_pose=body_pose, global_orient=orient)
    ((out.joints - target) ** 2).sum().backward()

The operators (``torch.ops.skinkit.*``, registered on import) work under ``torch.compile``
(``fullgraph=True``) and ``torch.func.vmap``, on every device: the C kernels on the CPU,
plain torch (``skinkit.torch.generic``) on CUDA and every other device; ``BodyModel`` moves
with ``.to(device)``.  ``use_torch_kernels()`` runs the plain-torch kernels on the CPU too.
"""
from ..dataset.torch import BakedDataset  # a baked store's frames (skinkit.dataset)
from ..dataset.torch import ChunkGroupedSampler, MotionDataset
from .body import BodyModel, BodyOutput
from .body_op import body_forward
from ._surface import use_torch_kernels
from .ops import (blend_shapes, dual_quaternion_skinning, forward_kinematics,
                  linear_blend_skinning, quat_from_rotvec, quat_to_matrix,
                  rigid_forward_kinematics)

__all__ = ["BakedDataset", "BodyModel", "BodyOutput", "ChunkGroupedSampler", "MotionDataset",
           "blend_shapes", "body_forward", "dual_quaternion_skinning", "forward_kinematics",
           "linear_blend_skinning", "quat_from_rotvec", "quat_to_matrix", "use_torch_kernels",
           "rigid_forward_kinematics"]
