"""An operator's backward registered twice: on the operator (``register_autograd``, for
``torch.ops.skinkit.*`` and ``torch.compile``) and as a ``torch.autograd.Function`` with
``setup_context`` that the public functions call.

``torch.func.grad``, ``vjp``, ``jacrev`` and ``vmap`` of them refuse the Function that
``register_autograd`` generates, which has no ``setup_context`` (pytorch/pytorch#168393,
#179652); this one has it, and ``generate_vmap_rule`` vmaps its forward and backward through
the operators' own vmap rules (``_vmap``).  Both run with gradients off inside: the operators'
results get their gradient from this Function, not from the operators' registration.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import torch

if TYPE_CHECKING:  # what torch.library.custom_op returns (not in __all__)
    from torch._library.custom_ops import CustomOpDef


class _Function(torch.autograd.Function):
    generate_vmap_rule = True


def _no_grad(f: Callable[..., Any]) -> Any:
    def run(*args: Any) -> Any:
        with torch.no_grad():
            return f(*args)
    return staticmethod(run)


def differentiable(op: CustomOpDef, setup_context: Callable[..., None],
                   backward: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``backward`` and ``setup_context`` on ``op``; return a function that calls
    ``op`` through the Function when an input requires grad, else ``op`` itself."""
    op.register_autograd(backward, setup_context=setup_context)
    overload = op._opoverload       # the torch.ops.skinkit.* overload: torch.compile traces it
    function: Any = type(op._qualname, (_Function,),
                         {"forward": _no_grad(overload), "backward": _no_grad(backward),
                          "setup_context": staticmethod(setup_context)})
    apply = function.apply

    def call(*args: Any) -> Any:
        # without a gradient to take, the operator itself (torch.compile's dynamo refuses a
        # Function none of whose inputs requires grad)
        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad
                                           for a in args):
            return apply(*args)
        return overload(*args)
    return call
