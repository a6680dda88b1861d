"""skinkit's kernels as PyTorch operators: ``torch.library.custom_op`` in the namespace
``skinkit`` (``torch.ops.skinkit.*``), each with a kernel in plain torch for every device
(``skinkit.torch.generic``) and the C kernel for the CPU, a fake implementation (shapes for
``torch.compile`` and the ``meta`` device), a backward through VJP operators (so that a compiled
graph holds its backward too) and a vmap rule.

The operators of the descriptor table (quaternions, FK, rigid FK, LBS) are generated from it
(``_generated.py``, by tools/generate_surface.py); this module adds those the table has no
descriptor for as the torch face takes them: dual quaternion skinning (two C steps, the skinning
matrices turned into joint records first) and blend shapes.

Results are in the inputs' floating dtype (float64 when any is float64, else float32) on the
inputs' device; gradients are returned in each input's dtype and shape, summed over the
dimensions it was broadcast along.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, cast

from torch import Tensor
from torch.library import custom_op

from .. import _core
from ..kernels import dqs_vjp
from ..kernels import wrappers as kernels
from ..kernels import morph
from . import _vmap
from . import generic as _generic
from ._function import differentiable
from ._convert import cotangent, np_, tensor
from ._generated import (forward_kinematics, linear_blend_skinning, quat_from_rotvec,
                         quat_to_matrix, rigid_forward_kinematics)
from ._surface import OPERATORS, c_kernel, call, fake, generic, generic_vjp

__all__ = ["quat_to_matrix", "quat_from_rotvec", "rigid_forward_kinematics",
           "forward_kinematics", "linear_blend_skinning", "dual_quaternion_skinning",
           "blend_shapes"]


def _saving_inputs(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    """setup_context of the operators whose backward needs their tensor inputs: saved through
    save_for_backward, so that an input edited in place before backward raises."""
    ctx.save_for_backward(*(x for x in inputs if isinstance(x, Tensor)))


# ------------------------------------------------------------------ dual quaternion skinning
# DQS takes linear_blend_skinning's operands (skinkit.kernels.operands.SAME_AS)

_LBS = _core._shapes["linear_blend_skinning"]
_SKIN = [(n, s) for n, s, role in _LBS if role == "in"]
_dqs_shapes = fake("dual_quaternion_skinning", _SKIN, [(_LBS[-2][1], None)])
_dqs_vjp_shapes = fake("dual_quaternion_skinning_vjp", _SKIN + [("g", _LBS[-2][1])],
                       [(_LBS[0][1], None), ("(..., V, K)", None), (_LBS[3][1], None)])


@custom_op("skinkit::dual_quaternion_skinning", mutates_args=())
def _dqs(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor) -> Tensor:
    return cast(Tensor, generic(_generic.dual_quaternion_skinning, _dqs_shapes, vertices=vertices,
                                joints=joints, weights=weights,
                                skinning_matrices=skinning_matrices))


_dqs.register_fake(_dqs_shapes)
c_kernel(_dqs, kernels, "dual_quaternion_skinning", 1)


@custom_op("skinkit::dual_quaternion_skinning_vjp", mutates_args=())
def _dqs_vjp(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor,
             g: Tensor, matrices: bool) -> Tuple[Tensor, Tensor, Tensor]:
    """(g_vertices, g_weights per pose, g_skinning_matrices per pose, or an empty placeholder
    unless ``matrices``)."""
    out = generic_vjp(_generic.dual_quaternion_skinning, _dqs_vjp_shapes,
                      ("vertices", "joints", "weights", "skinning_matrices"), ("positions",),
                      ("vertices", "weights", "skinning_matrices"), vertices=vertices,
                      joints=joints, weights=weights, skinning_matrices=skinning_matrices, g=g)
    return out[0], out[1], out[2] if matrices else out[2].new_empty(0)


@_dqs_vjp.register_fake
def _(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor, g: Tensor,
      matrices: bool) -> Tuple[Tensor, Tensor, Tensor]:
    gv, gw, gm = _dqs_vjp_shapes(vertices, joints, weights, skinning_matrices, g)
    return gv, gw, gm if matrices else gm.new_empty(0)


@_dqs_vjp.register_kernel("cpu")
def _(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor, g: Tensor,
      matrices: bool) -> Tuple[Tensor, Tensor, Tensor]:
    """One pass over the vertices gives the three cotangents (of the joint records for the
    matrices); the records' step only for the matrices (src/dqs_vjp.c)."""
    gv, gw, gr = dqs_vjp.blend_vjp(np_(vertices), np_(joints), np_(weights),
                                   np_(skinning_matrices), np_(g))
    gm = dqs_vjp.records_vjp(np_(skinning_matrices), gr) if matrices else gr[:0].reshape(0)
    return tensor(gv), tensor(gw), tensor(gm)


OPERATORS.append(_dqs_vjp)       # its CPU kernel, registered above, is use_torch_kernels's too


def _dqs_bwd(ctx: Any, g: Tensor
             ) -> Tuple[Optional[Tensor], None, Optional[Tensor], Optional[Tensor]]:
    v, j, w, m = ctx.saved_tensors
    need = ctx.needs_input_grad
    gv, gw, gm = _dqs_vjp(v, j, w, m, g, bool(need[3]))
    return (cotangent(gv, v) if need[0] else None, None, cotangent(gw, w) if need[2] else None,
            cotangent(gm, m) if need[3] else None)


_dqs_fn = differentiable(_dqs, _saving_inputs, _dqs_bwd)
_vmap.broadcasting(_dqs, [2, None, None, 3])
_vmap.broadcasting(_dqs_vjp, [2, None, None, 3, 2, None])


# ------------------------------------------------------------------ blend shapes

_blend_shapes_shapes = fake("blend_shapes", [("base", "(V, C)"), ("deltas", "(M, V, C)"),
                                             ("weights", "(..., M)")], [("(..., V, C)", None)])


@custom_op("skinkit::blend_shapes", mutates_args=())
def _blend_shapes(base: Tensor, deltas: Tensor, weights: Tensor) -> Tensor:
    return cast(Tensor, generic(_generic.blend_shapes, _blend_shapes_shapes, base=base,
                                deltas=deltas, weights=weights))


_blend_shapes.register_fake(_blend_shapes_shapes)
c_kernel(_blend_shapes, morph, "blend_shapes", 1)


def _blend_shapes_bwd(ctx: Any, g: Tensor
                      ) -> Tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor]]:
    """The transposed products, in torch (BLAS): no kernel of skinkit's own."""
    base, deltas, weights = ctx.saved_tensors
    need = ctx.needs_input_grad
    g2 = g.reshape(-1, base.numel())
    gb = cotangent(g2.sum(0).reshape(base.shape), base) if need[0] else None
    gd = gw = None
    if need[1]:
        w2 = weights.reshape(-1, weights.shape[-1]).to(g.dtype)
        gd = cotangent((w2.T @ g2).reshape(deltas.shape), deltas)
    if need[2]:
        d2 = deltas.reshape(deltas.shape[0], -1).to(g.dtype)
        gw = cotangent((g2 @ d2.T).reshape(g.shape[:-2] + deltas.shape[:1]), weights)
    return gb, gd, gw


_blend_shapes_fn = differentiable(_blend_shapes, _saving_inputs, _blend_shapes_bwd)
_vmap.broadcasting(_blend_shapes, [None, None, 1])


# ------------------------------------------------------------------ public functions
# (an operator's __call__ is unannotated in torch: its results are cast to what its schema says)

def dual_quaternion_skinning(vertices: Tensor, joints: Tensor, weights: Tensor,
                             skinning_matrices: Tensor) -> Tensor:
    """``skinkit.dual_quaternion_skinning`` (Kavan et al. 2008) as a torch operator,
    differentiable in vertices, weights and skinning_matrices
    (``skinkit.kernels.gradients.dual_quaternion_skinning_vjp``, which says where the derivative
    does not exist): shapes, arguments and errors as ``linear_blend_skinning``.  On a device
    other than the CPU, ``skinkit.torch.generic.dual_quaternion_skinning``, which equals the C
    kernel for skinning matrices whose 3x3 has det > 0 (rotations, scales, shears; not
    mirrors)."""
    return cast(Tensor, call(_dqs_fn, ("vertices", "weights", "skinning_matrices"),
                             vertices=vertices, joints=joints, weights=weights,
                             skinning_matrices=skinning_matrices))


def blend_shapes(base: Tensor, deltas: Tensor, weights: Tensor) -> Tensor:
    """``skinkit.blend_shapes`` (``base + sum_m weights[..., m] deltas[m]``, glTF 2.0 section
    3.7.2.2) as a torch operator, differentiable in all three.

    Parameters
    ----------
    base : Tensor (V, C).  deltas : Tensor (M, V, C).  weights : Tensor (..., M).

    Returns
    -------
    Tensor (..., V, C)

    Raises
    ------
    ValueError
        Shapes that do not match.
    """
    return cast(Tensor, call(_blend_shapes_fn, ("base", "deltas", "weights"), base=base,
                             deltas=deltas, weights=weights))
