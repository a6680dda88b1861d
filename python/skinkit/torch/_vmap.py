"""vmap rules for the custom operators (``torch.library.register_vmap``).

The kernels broadcast leading batch dimensions, so most rules only line the inputs up: the
vmapped dimension moves to the front (an input without it gets a length-1 dimension there), and
each input's own batch dimensions are padded with length-1 dimensions to the longest, so that
they broadcast as they did outside vmap.  Inputs a kernel takes once per call (parents, joint
indices, skinning weights, blend-shape bases) have no batch dimension: when one of them is
vmapped, the rule calls the operator once per item and stacks the results.

The VJP operators have rules too, so that ``torch.func.vmap`` of a gradient
(``vmap(grad(loss))``, or ``torch.autograd.grad`` over a leading dimension of the cotangents)
runs one kernel call, not one per item (``is_grads_batched=True`` runs torch's older vmap,
which loops over the items).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple, Union

import torch
from torch.library import register_vmap

if TYPE_CHECKING:  # what torch.library.custom_op returns and passes a vmap rule (not in __all__)
    from torch._functorch.autograd_function import VmapInfo
    from torch._library.custom_ops import CustomOpDef

# an operator's result, and the result of a vmap rule: the outputs with their vmapped dimensions
_Outs = Union[torch.Tensor, Tuple[torch.Tensor, ...]]
_Rule = Tuple[_Outs, Union[int, Tuple[Optional[int], ...]]]


def _stack(outs: List[Any]) -> _Rule:
    if isinstance(outs[0], tuple):
        return tuple(torch.stack(o) for o in zip(*outs)), (0,) * len(outs[0])
    return torch.stack(outs), 0


def broadcasting(op: CustomOpDef, cores: Sequence[Optional[int]]) -> None:
    """Register the vmap rule of ``op`` whose i-th argument has ``cores[i]`` core dimensions
    after any leading batch dimensions (None: no batch dimensions, or not a tensor)."""

    def rule(info: VmapInfo, in_dims: Tuple[Optional[int], ...], *args: Any) -> _Rule:
        if any(d is not None and c is None for d, c in zip(in_dims, cores)):
            return _stack([op(*(a.select(d, i) if d is not None else a
                                for a, d in zip(args, in_dims)))
                           for i in range(info.batch_size)])
        own = [a.ndim - c - (d is not None) if c is not None and isinstance(a, torch.Tensor)
               else 0 for a, d, c in zip(args, in_dims, cores)]
        lead = max(own, default=0)
        new = []
        for a, d, c, n in zip(args, in_dims, cores, own):
            if c is None or not isinstance(a, torch.Tensor):
                new.append(a)
                continue
            a = a.movedim(d, 0) if d is not None else a.unsqueeze(0)
            new.append(a.reshape(a.shape[:1] + (1,) * (lead - n) + a.shape[1:]))
        out = op(*new)
        if not isinstance(out, tuple):
            return out, 0
        # a 1-d output is the empty placeholder of an absent result (FK's g_scales without
        # scales): not batched
        return out, tuple(0 if o.ndim > 1 else None for o in out)

    register_vmap(op, rule)


def flat_batch(op: CustomOpDef) -> None:
    """Register the vmap rule of ``op`` whose tensor arguments all have one leading batch
    dimension N of the same length: the vmapped items join it (B N rows), then split again."""

    def rule(info: VmapInfo, in_dims: Tuple[Optional[int], ...], *args: Any) -> _Rule:
        B = info.batch_size
        new = []
        for a, d in zip(args, in_dims):
            if isinstance(a, torch.Tensor):
                a = a.movedim(d, 0) if d is not None else a.expand((B,) + a.shape)
                a = a.reshape((-1,) + a.shape[2:])
            new.append(a)
        out = op(*new)
        # (B, N) given in full: an output may have no element (the body's expression
        # cotangent without expression)
        return tuple(o.reshape((B, o.shape[0] // B) + o.shape[1:]) for o in out), (0,) * len(out)

    register_vmap(op, rule)
