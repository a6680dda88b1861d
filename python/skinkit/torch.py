"""PyTorch interface (optional; CPU tensors): call a skinkit body model inside an autograd graph.

    import skinkit, skinkit.torch
    model = skinkit.load_body_model("SMPL_NEUTRAL.pkl", dtype=numpy.float32)
    vertices, joints = skinkit.torch.body_forward(model, betas, pose, transl)
    loss = ((joints - target) ** 2).sum()
    loss.backward()                      # gradients from BodyModel.forward_vjp (analytic, in C)

The tensors are read in place where their dtype is the model's (``numpy.from_dlpack``); results
are tensors of the model's dtype and gradients are returned in each input's dtype.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray
import torch

from .body import BodyModel

__all__ = ["BodyModelFunction", "body_forward"]

_ARGS = ("betas", "pose", "transl", "expression")


def _numpy(name: str, t: Union[torch.Tensor, ArrayLike, None]) -> Optional[NDArray[Any]]:
    if t is None:
        return None
    if not isinstance(t, torch.Tensor):
        return np.asarray(t)
    if t.device.type != "cpu":
        raise ValueError(f"{name} must be a CPU tensor, got device {t.device}")
    array: NDArray[Any] = t.detach().numpy()
    return array


class BodyModelFunction(torch.autograd.Function):
    """``BodyModelFunction.apply(model, betas, pose, transl, expression, threads)`` ->
    (vertices, joints): BodyModel.forward as a torch.autograd.Function whose backward is
    BodyModel.forward_vjp's VJP.  Arguments may be None (as in BodyModel.forward)."""

    @staticmethod
    def forward(ctx: Any, model: BodyModel, betas: Optional[torch.Tensor],
                pose: Optional[torch.Tensor], transl: Optional[torch.Tensor],
                expression: Optional[torch.Tensor], threads: Optional[int] = None
                ) -> Tuple[torch.Tensor, torch.Tensor]:
        args = {k: _numpy(k, t) for k, t in zip(_ARGS, (betas, pose, transl, expression))}
        (v, j), vjp = model.forward_vjp(**args, threads=threads)
        ctx.vjp = vjp
        ctx.dtypes = [t.dtype if isinstance(t, torch.Tensor) else None
                      for t in (betas, pose, transl, expression)]
        return torch.from_numpy(v), torch.from_numpy(j)

    @staticmethod
    def backward(ctx: Any, g_vertices: Optional[torch.Tensor], g_joints: Optional[torch.Tensor]
                 ) -> Tuple[Optional[torch.Tensor], ...]:
        grads = list(ctx.vjp(_numpy("g_vertices", g_vertices), _numpy("g_joints", g_joints)))
        if len(grads) == 3:
            grads.append(None)
        out = [None if g is None or dt is None else torch.from_numpy(np.ascontiguousarray(g)).to(dt)
               for g, dt in zip(grads, ctx.dtypes)]
        return (None, *out, None)


def body_forward(model: BodyModel, betas: Optional[torch.Tensor] = None,
                 pose: Optional[torch.Tensor] = None, transl: Optional[torch.Tensor] = None,
                 expression: Optional[torch.Tensor] = None, threads: Optional[int] = None
                 ) -> Tuple[torch.Tensor, torch.Tensor]:
    """``model.forward`` on CPU tensors, differentiable by torch autograd.

    Parameters and results as ``BodyModel.forward`` (torch tensors instead of arrays).

    Raises
    ------
    ValueError
        A tensor on a device other than the CPU, or the shape errors of BodyModel.forward.
    """
    apply = BodyModelFunction.apply   # torch.autograd.Function.apply is not annotated in torch
    out: Tuple[torch.Tensor, torch.Tensor] = apply(  # type: ignore[no-untyped-call]
        model, betas, pose, transl, expression, threads)
    return out


from .dataset.torch import BakedDataset  # noqa: E402,F401  a baked store's frames
