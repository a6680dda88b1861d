"""The body model's forward pass (``skinkit.BodyModel``) as one torch operator,
``torch.ops.skinkit.body_forward``, whose backward is ``BodyModel``'s analytic VJP (C kernels
and the transposed BLAS product) as the operator ``torch.ops.skinkit.body_vjp``.  On a device
other than the CPU (or within ``use_torch_kernels``) both run in plain torch: the forward
composed of ``skinkit.torch.generic``'s rotations, rigid FK and LBS with the basis products as
``matmul``, the VJP ``torch.func.vjp`` of it.

An operator takes tensors and numbers only, so a model enters it as the integer key of a
``ModelSet``: the model's arrays, with a ``skinkit.BodyModel`` per dtype built on first use (the
computation runs in the inputs' dtype whatever the dtype of the loaded model).
"""
from __future__ import annotations

import itertools
import math
import warnings
import weakref
from typing import Any, Dict, Mapping, Optional, Tuple, Union

import numpy as np
import torch
from numpy.typing import NDArray
from torch import Tensor
from torch.library import custom_op

from ..body.body_model import CORES, BodyModel
from . import _vmap
from . import generic
from ._function import differentiable
from ._convert import np_, result_dtype, tensor
from ._surface import OPERATORS

__all__ = ["ModelSet", "body_forward"]

_SETS: "weakref.WeakValueDictionary[int, ModelSet]" = weakref.WeakValueDictionary()
_OF_MODEL: "weakref.WeakKeyDictionary[BodyModel, ModelSet]" = weakref.WeakKeyDictionary()
_KEYS = itertools.count()
_NP = {torch.float32: np.float32, torch.float64: np.float64}


def _arrays_of(m: BodyModel) -> Dict[str, NDArray[Any]]:
    """A model file's arrays (the keys BodyModel reads) from a loaded model."""
    return {"v_template": m.v_template, "posedirs": m.posedirs, "J_regressor": m.J_regressor,
            "shapedirs": np.concatenate([m.shapedirs, m.exprdirs], axis=2),
            "weights": m.weights, "f": m.faces,
            "kintree_table": np.stack([m.parents, np.arange(m.num_joints)])}


class ModelSet:
    """One body model in every dtype: ``get(torch.float64)`` is a ``skinkit.BodyModel`` of
    float64 built from ``model``'s arrays (or ``model`` itself when its dtype matches)."""

    def __init__(self, model: BodyModel) -> None:
        self.key = next(_KEYS)
        _SETS[self.key] = self
        self.model = model
        self._models = {np.dtype(model.dtype): model}

        self._tensors: Dict[Tuple[torch.dtype, torch.device], Dict[str, Tensor]] = {}

    def get(self, dtype: torch.dtype) -> BodyModel:
        dt = np.dtype(_NP[dtype])
        if dt not in self._models:
            self._models[dt] = BodyModel(_arrays_of(self.model), dtype=dt, source=repr(self.model))
        return self._models[dt]

    def tensors(self, dtype: torch.dtype, device: torch.device) -> Dict[str, Tensor]:
        """The arrays of the forward (its bases, parents, influences) as tensors on ``device``,
        copied there on first use."""
        key = (dtype, device)
        if key not in self._tensors:
            m = self.get(dtype)
            lj, lw = m._influences
            arrays = {"basis": m._basis, "joint_basis": m._joint_basis, "parents": m.parents,
                      "joints": lj.astype(np.int64), "weights": lw}
            self._tensors[key] = {k: torch.from_numpy(np.ascontiguousarray(a)).to(device)
                                  for k, a in arrays.items()}
        return self._tensors[key]


def model_set(model: Union[BodyModel, ModelSet]) -> ModelSet:
    """The ModelSet of a skinkit BodyModel (one per model, kept while the model lives)."""
    if isinstance(model, ModelSet):
        return model
    if not isinstance(model, BodyModel):
        raise TypeError(f"model must be a skinkit.BodyModel, got {type(model).__name__}")
    if model not in _OF_MODEL:
        _OF_MODEL[model] = ModelSet(model)
    return _OF_MODEL[model]


_SAVED = ("q", "x", "Q", "G", "v_posed")   # the forward's intermediates the VJP reuses


def _products(a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
    """a @ b by torch.matmul: the ops' basis products on torch's BLAS and intra-op threads, the
    one parallel runtime of a torch program.  With NumPy's BLAS, OpenBLAS's pool spinning beside
    torch's threads made the forward+backward of 64 poses on 2 threads take 20 or 44 ms (SMPL)
    from call to call, against 24 ms on 1; with it on one thread, 2 threads gained nothing
    where the products are most of the time (SMPL-X)."""
    with warnings.catch_warnings():   # the model's basis is read-only: torch only reads it here
        warnings.filterwarnings("ignore", "The given NumPy array is not writable")
        out: NDArray[Any] = torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    return out


def _generic_forward(model: int, betas: Optional[Tensor], pose: Tensor, transl: Optional[Tensor],
                     expression: Optional[Tensor]) -> Tuple[Tensor, ...]:
    """``BodyModel._forward``'s steps in plain torch on the inputs' device: the rotations, the
    shape, pose-corrective and expression bases as one product, the rest joints, rigid FK, the
    skinning matrices G and LBS; the outputs and the forward's saved intermediates."""
    ms = _SETS[model]
    m, t = ms.model, ms.tensors(pose.dtype, pose.device)
    N, J, V = pose.shape[0], m.num_joints, m.num_vertices
    S, E = _width(betas), _width(expression)
    q = generic.quat_from_rotvec(pose)
    R = generic.quat_to_matrix(q)
    eye = torch.eye(3, dtype=pose.dtype, device=pose.device)
    parts = ([betas.flip(-1)] if betas is not None and S else []) + [
        torch.ones((N, 1), dtype=pose.dtype, device=pose.device),
        (R[:, 1:] - eye).reshape(N, -1)] + ([expression] if expression is not None and E else [])
    c = torch.cat(parts, 1)
    lo = m.num_betas - S
    rows = slice(lo, lo + c.shape[1])
    v_posed = (c @ t["basis"][rows]).reshape(N, V, 3)
    x = (c @ t["joint_basis"][rows]).reshape(N, J, 3)
    Q, tr = generic.rigid_forward_kinematics(parents=t["parents"], rest_positions=x, rotations=q)
    A = generic.quat_to_matrix(Q)
    fold = transl is not None and m._fold_transl
    if fold and transl is not None:
        tr = tr + transl[:, None, :]
    bottom = torch.zeros((N, J, 1, 4), dtype=pose.dtype, device=pose.device)
    bottom[..., 3] = 1
    G = torch.cat([torch.cat([A, tr[..., None]], -1), bottom], -2)
    verts = generic.linear_blend_skinning(vertices=v_posed, joints=t["joints"],
                                          weights=t["weights"], skinning_matrices=G)
    joints = generic._mv(A, x) + tr
    if transl is not None and not fold:
        verts = verts + transl[:, None, :]
        joints = joints + transl[:, None, :]
    return verts, joints, q, x, Q, G, v_posed


@custom_op("skinkit::body_forward", mutates_args=())
def _body(model: int, betas: Optional[Tensor], pose: Tensor, transl: Optional[Tensor],
          expression: Optional[Tensor], threads: Optional[int]) -> Tuple[
              Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    v, j, q, x, Q, G, v_posed = _generic_forward(model, betas, pose, transl, expression)
    return v, j, q, x, Q, G, v_posed


@_body.register_kernel("cpu")
def _(model: int, betas: Optional[Tensor], pose: Tensor, transl: Optional[Tensor],
      expression: Optional[Tensor], threads: Optional[int]) -> Tuple[Tensor, ...]:
    m = _SETS[model].get(pose.dtype)
    flat = {k: np_(t) for k, t in zip(CORES, (betas, pose, transl, expression)) if t is not None}
    verts, joints, saved = m._forward(flat, pose.shape[0], threads, _products)
    q, x, Q, G, v_posed = (tensor(saved[k]) for k in _SAVED)
    return tensor(verts), tensor(joints), q, x, Q, G, v_posed


@_body.register_fake
def _(model: int, betas: Optional[Tensor], pose: Tensor, transl: Optional[Tensor],
      expression: Optional[Tensor], threads: Optional[int]) -> Tuple[Tensor, ...]:
    m = _SETS[model].model
    N, J, V = pose.shape[0], m.num_joints, m.num_vertices
    shapes = [(V, 3), (J, 3), (J, 4), (J, 3), (J, 4), (J, 4, 4), (V, 3)]
    return tuple(pose.new_empty((N,) + s) for s in shapes)


@custom_op("skinkit::body_vjp", mutates_args=())
def _body_vjp(model: int, betas: Optional[Tensor], pose: Tensor, transl: bool,
              expression: Optional[Tensor], q: Tensor, x: Tensor, Q: Tensor, G: Tensor,
              v_posed: Tensor, g_vertices: Tensor, g_joints: Tensor, threads: Optional[int]
              ) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """(the plain-torch kernel: ``torch.func.vjp`` of ``_generic_forward``; transl's
    cotangent zeros when it was not given, as the CPU kernel's)"""
    N = pose.shape[0]
    zeros = torch.zeros((N, 3), dtype=pose.dtype, device=pose.device)
    b = betas if betas is not None else pose.new_zeros((N, 0))
    e = expression if expression is not None else pose.new_zeros((N, 0))

    def f(b: Tensor, p: Tensor, t: Tensor, e: Tensor) -> Tuple[Tensor, Tensor]:
        out = _generic_forward(model, b if betas is not None else None, p,
                               t if transl else None, e if expression is not None else None)
        return out[0], out[1]

    pull = torch.func.vjp(f, b, pose, zeros, e)[1]
    gb, gp, gt, ge = pull((g_vertices, g_joints))
    return gb, gp, gt, ge


@_body_vjp.register_kernel("cpu")
def _(model: int, betas: Optional[Tensor], pose: Tensor, transl: bool,
      expression: Optional[Tensor], q: Tensor, x: Tensor, Q: Tensor, G: Tensor,
      v_posed: Tensor, g_vertices: Tensor, g_joints: Tensor, threads: Optional[int]
      ) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    m = _SETS[model].get(pose.dtype)
    N, S, E = pose.shape[0], _width(betas), _width(expression)
    saved: Dict[str, Any] = {k: np_(t) for k, t in zip(_SAVED, (q, x, Q, G, v_posed))}
    saved.update(pose=np_(pose), A=np.ascontiguousarray(saved["G"][..., :3, :3]), S=S, E=E,
                 rows=slice(m.num_betas - S, m.num_betas + 1 + m._P + E),
                 fold=transl and m._fold_transl, transl=transl)
    gv, gj = (np.ascontiguousarray(np_(g), m.dtype) for g in (g_vertices, g_joints))
    # transl's cotangent, the only one None (when transl is not given), as zeros
    g = {k: np.zeros((N, 3), m.dtype) if a is None else a
         for k, a in m._backward(saved, gv, gj, N, threads, _products).items()}
    return tensor(g["betas"]), tensor(g["pose"]), tensor(g["transl"]), tensor(g["expression"])


@_body_vjp.register_fake
def _(model: int, betas: Optional[Tensor], pose: Tensor, transl: bool,
      expression: Optional[Tensor], q: Tensor, x: Tensor, Q: Tensor, G: Tensor, v_posed: Tensor,
      g_vertices: Tensor, g_joints: Tensor, threads: Optional[int]
      ) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    N = pose.shape[0]
    return (pose.new_empty((N, _width(betas))), pose.new_empty(pose.shape),
            pose.new_empty((N, 3)), pose.new_empty((N, _width(expression))))


def _width(t: Optional[Tensor]) -> int:
    return 0 if t is None else t.shape[1]


def _body_setup(ctx: Any, inputs: Tuple[Any, ...], output: Tuple[Tensor, ...]) -> None:
    model, betas, pose, transl, expression, threads = inputs
    ctx.model, ctx.threads, ctx.transl = model, threads, transl is not None
    ctx.save_for_backward(betas, pose, expression, *output[2:])
    ctx.mark_non_differentiable(*output[2:])


def _body_bwd(ctx: Any, g_vertices: Tensor, g_joints: Tensor, *_: Tensor
              ) -> Tuple[Optional[Tensor], ...]:
    betas, pose, expression, *saved = ctx.saved_tensors
    need = ctx.needs_input_grad
    if not (need[1] or need[2] or need[4]):    # transl alone: no kernel
        return None, None, None, g_vertices.sum(1) + g_joints.sum(1), None, None
    gb, gp, gt, ge = _body_vjp(ctx.model, betas, pose, ctx.transl, expression, *saved,
                               g_vertices, g_joints, ctx.threads)
    return (None, gb if need[1] else None, gp if need[2] else None, gt if need[3] else None,
            ge if need[4] else None, None)


_body_fn = differentiable(_body, _body_setup, _body_bwd)
OPERATORS.extend([_body, _body_vjp])       # their CPU kernels: use_torch_kernels turns them off
_vmap.flat_batch(_body)
_vmap.flat_batch(_body_vjp)


def body_forward(model: Union[BodyModel, ModelSet], betas: Optional[Tensor] = None, pose: Optional[Tensor] = None,
                 transl: Optional[Tensor] = None, expression: Optional[Tensor] = None,
                 threads: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """``skinkit.BodyModel.forward`` on tensors of any device, as the differentiable operator
    ``torch.ops.skinkit.body_forward`` (C kernels on the CPU, plain torch elsewhere).

    Parameters
    ----------
    model : skinkit.BodyModel
        Its dtype does not matter: the computation runs in the inputs' dtype (a twin of the
        model in that dtype is built on first use).
    betas : Tensor (..., S), S <= model.num_betas, or None
    pose : Tensor (..., J, 3), axis-angle (radians) of every joint, joint 0 the global
        orientation, or None for the rest pose.
    transl : Tensor (..., 3) or None.
    expression : Tensor (..., E), E <= model.num_expression, or None.
    threads : int or None, the kernels' ``threads=`` (the basis products beside them run on
        torch's BLAS and intra-op threads, ``torch.get_num_threads()``).

    Returns
    -------
    vertices : Tensor (..., V, 3)
    joints : Tensor (..., J, 3)
        In the inputs' floating dtype (float64 when any is float64, float32 when all are; the
        model's dtype without inputs); the batch shape ``...`` is the broadcast of the
        arguments'.  Differentiable in betas, pose, transl and expression (BodyModel.forward_vjp's
        analytic VJP).

    Raises
    ------
    ValueError
        A wrong shape (the message names the argument).
    """
    ms = model_set(model)
    m = ms.model
    given = {k: t for k, t in zip(CORES, (betas, pose, transl, expression)) if t is not None}
    dt = result_dtype(*given.values()) if given else {np.float32: torch.float32}.get(
        np.dtype(m.dtype).type, torch.float64)
    limits = {"betas": m.num_betas, "expression": m.num_expression}
    for k, t in given.items():
        core = t.shape[t.ndim - CORES[k]:] if t.ndim >= CORES[k] else None
        ok = core is not None and (core[-1] <= limits[k] if k in limits else
                                   core == ((m.num_joints, 3) if k == "pose" else (3,)))
        if not ok:
            want = {"betas": f"(..., S) with S <= {m.num_betas}", "transl": "(..., 3)",
                    "expression": f"(..., E) with E <= {m.num_expression}",
                    "pose": f"(..., {m.num_joints}, 3)"}[k]
            raise ValueError(f"{k} must have shape {want} for this {m.kind} model, got "
                             f"{tuple(t.shape)}")
    batch = _batch(given)
    N = math.prod(batch)
    flat = {k: t.to(dt).expand(batch + t.shape[t.ndim - CORES[k]:]).reshape(
        (N,) + t.shape[t.ndim - CORES[k]:]).contiguous() for k, t in given.items()}
    if "pose" not in flat:
        device = next(iter(given.values())).device if given else None
        flat["pose"] = torch.zeros((N, m.num_joints, 3), dtype=dt, device=device)
    out = _body_fn(ms.key, flat.get("betas"), flat["pose"], flat.get("transl"),
                flat.get("expression"), threads)
    return out[0].reshape(batch + out[0].shape[1:]), out[1].reshape(batch + out[1].shape[1:])


def _batch(given: Mapping[str, Tensor]) -> Tuple[int, ...]:
    try:
        return tuple(torch.broadcast_shapes(  # type: ignore[no-untyped-call]  # untyped in torch
            *(t.shape[:t.ndim - CORES[k]] for k, t in given.items())))
    except RuntimeError:
        raise ValueError("the batch shapes of " + ", ".join(
            f"{k} {tuple(t.shape)}" for k, t in given.items()) + " do not broadcast") from None
