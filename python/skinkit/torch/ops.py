"""skinkit's kernels as PyTorch operators: ``torch.library.custom_op`` in the namespace
``skinkit`` (``torch.ops.skinkit.*``), each with a fake implementation (shapes for
``torch.compile`` and the ``meta`` device), a backward through the kernels' VJPs (themselves
operators, so that a compiled graph holds its backward too) and a vmap rule.

The operators of the descriptor table (quaternions, FK, rigid FK, LBS) are generated from it
(``_generated.py``, by tools/generate_surface.py); this module adds those the table has no
descriptor for as the torch face takes them: dual quaternion skinning (two C steps, the skinning
matrices turned into joint records first) and blend shapes.

The public functions check that every tensor is on the CPU (skinkit has no GPU kernels),
convert integer inputs, and call the operator.  Results are in the inputs' floating dtype
(float64 when any is float64, else float32); gradients are returned in each input's dtype and
shape, summed over the dimensions it was broadcast along.
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple, cast

import torch
from torch import Tensor
from torch.library import custom_op

from .. import _core
from ..kernels import dqs_vjp
from ..kernels import wrappers as kernels
from ..kernels import morph
from . import _vmap
from ._function import differentiable
from ._convert import as_float, check_cpu, cotangent, np_, result_dtype, tensor
from ._generated import (forward_kinematics, linear_blend_skinning, quat_from_rotvec,
                         quat_to_matrix, rigid_forward_kinematics)
from ._surface import fake

__all__ = ["quat_to_matrix", "quat_from_rotvec", "rigid_forward_kinematics",
           "forward_kinematics", "linear_blend_skinning", "dual_quaternion_skinning",
           "blend_shapes"]


def _batch(*pairs: Tuple[Optional[Tensor], int]) -> Tuple[int, ...]:
    """The broadcast batch shape of (tensor, core ndim) pairs (None tensors skipped)."""
    return tuple(torch.broadcast_shapes(  # type: ignore[no-untyped-call]  # unannotated in torch
        *(t.shape[:t.ndim - c] for t, c in pairs if t is not None)))


def _empty(shape: Tuple[int, ...], *like: Tensor) -> Tensor:
    return torch.empty(shape, dtype=result_dtype(*like), device=like[0].device)


def _saving_inputs(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    """setup_context of the operators whose backward needs their tensor inputs: saved through
    save_for_backward, so that an input edited in place before backward raises."""
    ctx.save_for_backward(*(x for x in inputs if isinstance(x, Tensor)))


# ------------------------------------------------------------------ dual quaternion skinning

@custom_op("skinkit::dual_quaternion_skinning", mutates_args=())
def _dqs(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor) -> Tensor:
    return tensor(kernels.dual_quaternion_skinning(np_(vertices), np_(joints), np_(weights),
                                                   np_(skinning_matrices)))


# DQS takes linear_blend_skinning's operands (skinkit.kernels.operands.SAME_AS)
_dqs.register_fake(fake([s for _, s, role in _core._shapes["linear_blend_skinning"] if role == "in"],
                        [(_core._shapes["linear_blend_skinning"][-2][1], None)]))


@custom_op("skinkit::dual_quaternion_skinning_vjp", mutates_args=())
def _dqs_vjp(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor,
             g: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    gv, gw, gr = dqs_vjp.blend_vjp(np_(vertices), np_(joints), np_(weights),
                                   np_(skinning_matrices), np_(g))
    return tensor(gv), tensor(gw), tensor(gr)


@_dqs_vjp.register_fake
def _(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor, g: Tensor
      ) -> Tuple[Tensor, Tensor, Tensor]:
    args = (vertices, weights, skinning_matrices, g)
    b = _batch((vertices, 2), (skinning_matrices, 3), (g, 2))
    return (_empty(b + vertices.shape[-2:], *args), _empty(b + weights.shape, *args),
            _empty(b + (skinning_matrices.shape[-3], dqs_vjp.RECORD_SIZE), *args))


@custom_op("skinkit::skinning_dual_quaternions_vjp", mutates_args=())
def _dq_records_vjp(skinning_matrices: Tensor, g_records: Tensor) -> Tensor:
    return tensor(dqs_vjp.records_vjp(np_(skinning_matrices), np_(g_records)))


@_dq_records_vjp.register_fake
def _(skinning_matrices: Tensor, g_records: Tensor) -> Tensor:
    return _empty(_batch((skinning_matrices, 3), (g_records, 2)) + skinning_matrices.shape[-3:],
                  skinning_matrices, g_records)


def _dqs_bwd(ctx: Any, g: Tensor
             ) -> Tuple[Optional[Tensor], None, Optional[Tensor], Optional[Tensor]]:
    """One pass over the vertices for any of the three; the records' step only for the
    matrices."""
    v, j, w, m = ctx.saved_tensors
    need = ctx.needs_input_grad
    gv, gw, gr = _dqs_vjp(v, j, w, m, g)
    return (cotangent(gv, v) if need[0] else None, None, cotangent(gw, w) if need[2] else None,
            cotangent(_dq_records_vjp(m, gr), m) if need[3] else None)


_dqs_fn = differentiable(_dqs, _saving_inputs, _dqs_bwd)


# ------------------------------------------------------------------ blend shapes

@custom_op("skinkit::blend_shapes", mutates_args=())
def _blend_shapes(base: Tensor, deltas: Tensor, weights: Tensor) -> Tensor:
    return tensor(morph.blend_shapes(np_(base), np_(deltas), np_(weights)))


@_blend_shapes.register_fake
def _(base: Tensor, deltas: Tensor, weights: Tensor) -> Tensor:
    return _empty(weights.shape[:-1] + base.shape, base, deltas, weights)


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

# vmap: core dimensions of each argument (None: taken once per call)
_vmap.broadcasting(_dqs, [2, None, None, 3])
_vmap.broadcasting(_blend_shapes, [None, None, 1])
_vmap.broadcasting(_dqs_vjp, [2, None, None, 3, 2])
_vmap.broadcasting(_dq_records_vjp, [3, 2])


# ------------------------------------------------------------------ public functions
# (an operator's __call__ is unannotated in torch: its results are cast to what its schema says)

def _floats(op: str, **tensors: Optional[Tensor]) -> List[Optional[Tensor]]:
    """The tensors checked for the CPU and converted to a floating dtype."""
    check_cpu(op, **tensors)
    dt = result_dtype(*tensors.values())
    return [as_float(t, dt) for t in tensors.values()]


def dual_quaternion_skinning(vertices: Tensor, joints: Tensor, weights: Tensor,
                             skinning_matrices: Tensor) -> Tensor:
    """``skinkit.dual_quaternion_skinning`` (Kavan et al. 2008) as a torch operator,
    differentiable in vertices, weights and skinning_matrices
    (``skinkit.kernels.gradients.dual_quaternion_skinning_vjp``, which says where the derivative does
    not exist): shapes, arguments and errors as ``linear_blend_skinning``."""
    check_cpu("dual_quaternion_skinning", joints=joints)
    v, w, m = _floats("dual_quaternion_skinning", vertices=vertices, weights=weights,
                      skinning_matrices=skinning_matrices)
    return cast(Tensor, _dqs_fn(v, joints, w, m))


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
        A tensor not on the CPU, shapes that do not match.
    """
    return cast(Tensor, _blend_shapes_fn(*_floats("blend_shapes", base=base, deltas=deltas,
                                               weights=weights)))
