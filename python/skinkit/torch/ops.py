"""skinkit's kernels as PyTorch operators: ``torch.library.custom_op`` in the namespace
``skinkit`` (``torch.ops.skinkit.*``), each with a fake implementation (shapes for
``torch.compile`` and the ``meta`` device), a backward through the kernels' VJPs (themselves
operators, so that a compiled graph holds its backward too) and a vmap rule.

The functions below are the public entry points: they check that every tensor is on the CPU
(skinkit has no GPU kernels), convert integer inputs, and call the operator.  Results are in the
inputs' floating dtype (float64 when any is float64, else float32); gradients are returned in
each input's dtype and shape, summed over the dimensions it was broadcast along.
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple, cast

import numpy as np
import torch
from torch import Tensor
from torch.library import custom_op

from ..kernels import dqs_vjp
from ..kernels import gradients
from ..kernels import wrappers as kernels
from ..kernels import morph
from . import _vmap
from ._function import differentiable
from ._convert import as_float, check_cpu, cotangent, np_, result_dtype, tensor

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


# ------------------------------------------------------------------ quaternions

@custom_op("skinkit::quat_to_matrix", mutates_args=())
def _quat_to_matrix(q: Tensor) -> Tensor:
    return tensor(kernels.quat_to_matrix(np_(q)))


@_quat_to_matrix.register_fake
def _(q: Tensor) -> Tensor:
    return _empty(q.shape[:-1] + (3, 3), q)


@custom_op("skinkit::quat_to_matrix_vjp", mutates_args=())
def _quat_to_matrix_vjp(q: Tensor, g: Tensor) -> Tensor:
    return tensor(gradients.quat_to_matrix_vjp(np_(q), np_(g)))


@_quat_to_matrix_vjp.register_fake
def _(q: Tensor, g: Tensor) -> Tensor:
    return _empty(_batch((q, 1), (g, 2)) + (4,), q, g)


def _quat_to_matrix_bwd(ctx: Any, g: Tensor) -> Tensor:
    (q,) = ctx.saved_tensors
    return cotangent(_quat_to_matrix_vjp(q, g), q)


_quat_to_matrix_fn = differentiable(_quat_to_matrix, _saving_inputs, _quat_to_matrix_bwd)


@custom_op("skinkit::quat_from_rotvec", mutates_args=())
def _quat_from_rotvec(rotvec: Tensor) -> Tensor:
    return tensor(kernels.quat_from_rotvec(np_(rotvec)))


@_quat_from_rotvec.register_fake
def _(rotvec: Tensor) -> Tensor:
    return _empty(rotvec.shape[:-1] + (4,), rotvec)


@custom_op("skinkit::quat_from_rotvec_vjp", mutates_args=())
def _quat_from_rotvec_vjp(rotvec: Tensor, g: Tensor) -> Tensor:
    return tensor(gradients.quat_from_rotvec_vjp(np_(rotvec), np_(g)))


@_quat_from_rotvec_vjp.register_fake
def _(rotvec: Tensor, g: Tensor) -> Tensor:
    return _empty(_batch((rotvec, 1), (g, 1)) + (3,), rotvec, g)


def _quat_from_rotvec_bwd(ctx: Any, g: Tensor) -> Tensor:
    (r,) = ctx.saved_tensors
    return cotangent(_quat_from_rotvec_vjp(r, g), r)


_quat_from_rotvec_fn = differentiable(_quat_from_rotvec, _saving_inputs, _quat_from_rotvec_bwd)


# ------------------------------------------------------------------ forward kinematics

@custom_op("skinkit::rigid_forward_kinematics", mutates_args=())
def _rigid_fk(parents: Tensor, rest_positions: Tensor, rotations: Tensor
              ) -> Tuple[Tensor, Tensor]:
    Q, t = kernels.rigid_forward_kinematics(np_(parents), np_(rest_positions), np_(rotations))
    return tensor(Q), tensor(t)


@_rigid_fk.register_fake
def _(parents: Tensor, rest_positions: Tensor, rotations: Tensor) -> Tuple[Tensor, Tensor]:
    b = _batch((rest_positions, 2), (rotations, 2)) + (parents.shape[0],)
    return (_empty(b + (4,), rest_positions, rotations),
            _empty(b + (3,), rest_positions, rotations))


@custom_op("skinkit::rigid_forward_kinematics_vjp", mutates_args=())
def _rigid_fk_vjp(parents: Tensor, rest_positions: Tensor, rotations: Tensor, g_rotations: Tensor,
                  g_translations: Tensor) -> Tuple[Tensor, Tensor]:
    gx, gq = gradients.rigid_forward_kinematics_vjp(
        np_(parents), np_(rest_positions), np_(rotations), np_(g_rotations), np_(g_translations))
    return tensor(gx), tensor(gq)


@_rigid_fk_vjp.register_fake
def _(parents: Tensor, rest_positions: Tensor, rotations: Tensor, g_rotations: Tensor,
      g_translations: Tensor) -> Tuple[Tensor, Tensor]:
    args = (rest_positions, rotations, g_rotations, g_translations)
    b = _batch(*((a, 2) for a in args)) + (parents.shape[0],)
    return _empty(b + (3,), *args), _empty(b + (4,), *args)


def _rigid_fk_bwd(ctx: Any, g_rot: Tensor, g_trans: Tensor) -> Tuple[None, Tensor, Tensor]:
    parents, x, q = ctx.saved_tensors
    gx, gq = _rigid_fk_vjp(parents, x, q, g_rot, g_trans)
    return None, cotangent(gx, x), cotangent(gq, q)


_rigid_fk_fn = differentiable(_rigid_fk, _saving_inputs, _rigid_fk_bwd)


@custom_op("skinkit::forward_kinematics", mutates_args=())
def _fk(parents: Tensor, rotations: Tensor, translations: Tensor, scales: Optional[Tensor]
        ) -> Tensor:
    return tensor(kernels.forward_kinematics(np_(parents), np_(rotations), np_(translations),
                                             np_(scales)))


@_fk.register_fake
def _(parents: Tensor, rotations: Tensor, translations: Tensor, scales: Optional[Tensor]
      ) -> Tensor:
    args = [a for a in (rotations, translations, scales) if a is not None]
    return _empty(_batch(*((a, 2) for a in args)) + (parents.shape[0], 4, 4), *args)


@custom_op("skinkit::forward_kinematics_vjp", mutates_args=())
def _fk_vjp(parents: Tensor, rotations: Tensor, translations: Tensor, scales: Optional[Tensor],
            world: Tensor, g: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    gq, gt, gs = gradients.forward_kinematics_vjp(np_(parents), np_(rotations), np_(translations),
                                                  np_(scales), np_(world), np_(g))
    return tensor(gq), tensor(gt), tensor(np.zeros(0, gt.dtype) if gs is None else gs)


@_fk_vjp.register_fake
def _(parents: Tensor, rotations: Tensor, translations: Tensor, scales: Optional[Tensor],
      world: Tensor, g: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    b = _batch((world, 3), (g, 3)) + (parents.shape[0],)
    return (_empty(b + (4,), world, g), _empty(b + (3,), world, g),
            _empty(b + (3,) if scales is not None else (0,), world, g))


def _fk_setup(ctx: Any, inputs: Tuple[Any, ...], output: Tensor) -> None:
    parents, q, t, s = inputs
    ctx.has_scales = s is not None
    ctx.save_for_backward(parents, q, t, s if s is not None else t, output)


def _fk_bwd(ctx: Any, g: Tensor
            ) -> Tuple[None, Tensor, Tensor, Optional[Tensor]]:
    parents, q, t, s, world = ctx.saved_tensors
    s = s if ctx.has_scales else None
    gq, gt, gs = _fk_vjp(parents, q, t, s, world, g)
    return (None, cotangent(gq, q), cotangent(gt, t),
            cotangent(gs, s) if s is not None else None)


_fk_fn = differentiable(_fk, _fk_setup, _fk_bwd)


# ------------------------------------------------------------------ skinning

@custom_op("skinkit::linear_blend_skinning", mutates_args=())
def _lbs(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor) -> Tensor:
    return tensor(kernels.linear_blend_skinning(np_(vertices), np_(joints), np_(weights),
                                                np_(skinning_matrices)))


def _skinning_fake(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor
                   ) -> Tensor:
    return _empty(_batch((vertices, 2), (skinning_matrices, 3)) + vertices.shape[-2:],
                  vertices, weights, skinning_matrices)


_lbs.register_fake(_skinning_fake)


@custom_op("skinkit::linear_blend_skinning_vjp", mutates_args=())
def _lbs_vjp(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor,
             g: Tensor) -> Tuple[Tensor, Tensor]:
    gv, gm = gradients.linear_blend_skinning_vjp(np_(vertices), np_(joints), np_(weights),
                                                 np_(skinning_matrices), np_(g))
    return tensor(gv), tensor(gm)


@_lbs_vjp.register_fake
def _(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor, g: Tensor
      ) -> Tuple[Tensor, Tensor]:
    args = (vertices, weights, skinning_matrices, g)
    b = _batch((vertices, 2), (skinning_matrices, 3), (g, 2))
    return (_empty(b + vertices.shape[-2:], *args),
            _empty(b + skinning_matrices.shape[-3:], *args))


@custom_op("skinkit::linear_blend_skinning_weights_vjp", mutates_args=())
def _lbs_weights_vjp(vertices: Tensor, joints: Tensor, weights: Tensor,
                     skinning_matrices: Tensor, g: Tensor) -> Tensor:
    return tensor(gradients.linear_blend_skinning_weights_vjp(
        np_(vertices), np_(joints), np_(weights), np_(skinning_matrices), np_(g)))


@_lbs_weights_vjp.register_fake
def _(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor, g: Tensor
      ) -> Tensor:
    b = _batch((vertices, 2), (skinning_matrices, 3), (g, 2))
    return _empty(b + weights.shape, vertices, weights, skinning_matrices, g)


def _lbs_bwd(ctx: Any, g: Tensor
             ) -> Tuple[Optional[Tensor], None, Optional[Tensor], Optional[Tensor]]:
    v, j, w, m = ctx.saved_tensors
    need = ctx.needs_input_grad
    gv = gm = gw = None
    if need[0] or need[3]:
        gv, gm = _lbs_vjp(v, j, w, m, g)
        gv = cotangent(gv, v) if need[0] else None
        gm = cotangent(gm, m) if need[3] else None
    if need[2]:
        gw = cotangent(_lbs_weights_vjp(v, j, w, m, g), w)
    return gv, None, gw, gm


_lbs_fn = differentiable(_lbs, _saving_inputs, _lbs_bwd)


@custom_op("skinkit::dual_quaternion_skinning", mutates_args=())
def _dqs(vertices: Tensor, joints: Tensor, weights: Tensor, skinning_matrices: Tensor) -> Tensor:
    return tensor(kernels.dual_quaternion_skinning(np_(vertices), np_(joints), np_(weights),
                                                   np_(skinning_matrices)))


_dqs.register_fake(_skinning_fake)


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
_vmap.broadcasting(_quat_to_matrix, [1])
_vmap.broadcasting(_quat_from_rotvec, [1])
_vmap.broadcasting(_rigid_fk, [None, 2, 2])
_vmap.broadcasting(_fk, [None, 2, 2, 2])
_vmap.broadcasting(_lbs, [2, None, None, 3])
_vmap.broadcasting(_dqs, [2, None, None, 3])
_vmap.broadcasting(_blend_shapes, [None, None, 1])
_vmap.broadcasting(_quat_to_matrix_vjp, [1, 2])
_vmap.broadcasting(_quat_from_rotvec_vjp, [1, 1])
_vmap.broadcasting(_rigid_fk_vjp, [None, 2, 2, 2, 2])
_vmap.broadcasting(_fk_vjp, [None, 2, 2, 2, 3, 3])
_vmap.broadcasting(_lbs_vjp, [2, None, None, 3, 2])
_vmap.broadcasting(_lbs_weights_vjp, [2, None, None, 3, 2])
_vmap.broadcasting(_dqs_vjp, [2, None, None, 3, 2])
_vmap.broadcasting(_dq_records_vjp, [3, 2])


# ------------------------------------------------------------------ public functions
# (an operator's __call__ is unannotated in torch: its results are cast to what its schema says)

def _floats(op: str, **tensors: Optional[Tensor]) -> List[Optional[Tensor]]:
    """The tensors checked for the CPU and converted to a floating dtype."""
    check_cpu(op, **tensors)
    dt = result_dtype(*tensors.values())
    return [as_float(t, dt) for t in tensors.values()]


def quat_to_matrix(q: Tensor) -> Tensor:
    """``skinkit.quat_to_matrix`` as a differentiable torch operator.

    Parameters
    ----------
    q : Tensor (..., 4)
        Quaternions (x, y, z, w), used as given (the matrix is the polynomial of q that equals
        the rotation for a unit q).

    Returns
    -------
    Tensor (..., 3, 3)
        Rotation matrices acting on column vectors, in q's floating dtype.

    Raises
    ------
    ValueError
        q is not on the CPU (the message names the device), or has the wrong shape.
    """
    return cast(Tensor, _quat_to_matrix_fn(*_floats("quat_to_matrix", q=q)))


def quat_from_rotvec(rotvec: Tensor) -> Tensor:
    """``skinkit.quat_from_rotvec`` (axis-angle, radians, to unit quaternions (x, y, z, w)) as a
    differentiable torch operator; rotvec (..., 3) -> (..., 4), exact at and near 0 (series).

    Raises
    ------
    ValueError
        rotvec is not on the CPU, or has the wrong shape.
    """
    return cast(Tensor, _quat_from_rotvec_fn(*_floats("quat_from_rotvec", rotvec=rotvec)))


def rigid_forward_kinematics(parents: Tensor, rest_positions: Tensor, rotations: Tensor
                             ) -> Tuple[Tensor, Tensor]:
    """``skinkit.rigid_forward_kinematics`` (libigl's joint-centred FK) as a torch operator.

    Parameters
    ----------
    parents : Tensor (J,) of integers, -1 for a root.
    rest_positions : Tensor (..., J, 3)
    rotations : Tensor (..., J, 4), relative rotations (x, y, z, w).

    Returns
    -------
    (Tensor (..., J, 4), Tensor (..., J, 3))
        World rotations Q and translations t; differentiable in rest_positions and rotations.

    Raises
    ------
    ValueError
        A tensor not on the CPU; a bad parent index or cycle; shapes that do not match.
    """
    check_cpu("rigid_forward_kinematics", parents=parents)
    return cast(Tuple[Tensor, Tensor], _rigid_fk_fn(parents, *_floats(
        "rigid_forward_kinematics", rest_positions=rest_positions, rotations=rotations)))


def forward_kinematics(parents: Tensor, rotations: Tensor, translations: Tensor,
                       scales: Optional[Tensor] = None) -> Tensor:
    """``skinkit.forward_kinematics`` (world matrices ``M_i = M_p T(t_i) R(q_i) S(s_i)``, glTF
    2.0 section 3.5.3) as a torch operator, differentiable in rotations, translations and scales.

    Parameters
    ----------
    parents : Tensor (J,) of integers, -1 for a root.
    rotations : Tensor (..., J, 4) (x, y, z, w).  translations, scales : Tensor (..., J, 3);
        scales None for 1.

    Returns
    -------
    Tensor (..., J, 4, 4)
        World matrices (row-major, acting on column vectors).

    Raises
    ------
    ValueError
        A tensor not on the CPU; a bad parent index or cycle; shapes that do not match.
    """
    check_cpu("forward_kinematics", parents=parents)
    return cast(Tensor, _fk_fn(parents, *_floats("forward_kinematics", rotations=rotations,
                                              translations=translations, scales=scales)))


def linear_blend_skinning(vertices: Tensor, joints: Tensor, weights: Tensor,
                          skinning_matrices: Tensor) -> Tensor:
    """``skinkit.linear_blend_skinning`` (positions) as a torch operator, differentiable in
    vertices, weights and skinning_matrices.

    Parameters
    ----------
    vertices : Tensor (..., V, 3), rest positions.
    joints : Tensor (V, K) of integers, -1 for an unused slot.
    weights : Tensor (V, K).
    skinning_matrices : Tensor (..., J, 4, 4).

    Returns
    -------
    Tensor (..., V, 3)
        ``v'_i = sum_k w_ik M_{j_ik} v_i`` (Magnenat-Thalmann 1988).

    Raises
    ------
    ValueError
        A tensor not on the CPU, a joint index out of range, shapes that do not match.
    """
    check_cpu("linear_blend_skinning", joints=joints)
    v, w, m = _floats("linear_blend_skinning", vertices=vertices, weights=weights,
                      skinning_matrices=skinning_matrices)
    return cast(Tensor, _lbs_fn(v, joints, w, m))


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
