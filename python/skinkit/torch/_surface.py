"""The pieces the generated operators (``_generated.py``, written by tools/generate_surface.py
from the descriptors of src/bind_table.c) are made of: a kernel's call on tensors, the fake
implementation that computes the results' shapes from the descriptor's shape strings, the
backward that wires an operator to its VJP operators by the operands' names, and the public
function's argument handling.

The names follow the descriptors: a VJP operator takes forward inputs (by name), forward outputs
(``world``), and the cotangents ``g`` (of the only output) or ``g_<output>``; it returns
``g_<input>`` (``out`` for an elementwise kernel's only input), summed here over the dimensions
that input was broadcast along.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
from torch import Tensor

from ._convert import as_float, check_cpu, cotangent, np_, result_dtype, tensor
from ._function import differentiable

if TYPE_CHECKING:  # what torch.library.custom_op returns (not in __all__)
    from torch._library.custom_ops import CustomOpDef

Shape = str
"""A descriptor's shape string: ``"(..., V, 3)"`` (leading batch dimensions), ``"(V, K)"``."""


def _parse(shape: Shape) -> Tuple[bool, List[str]]:
    """(whether it has batch dimensions, its core symbols and sizes)."""
    parts = [p.strip() for p in shape.strip("()").split(",") if p.strip()]
    return bool(parts) and parts[0] == "...", [p for p in parts if p != "..."]


def core_dims(shape: Shape) -> Optional[int]:
    """The number of core dimensions of an operand with batch dimensions; None without."""
    batched, core = _parse(shape)
    return len(core) if batched else None


def run(kernel: Callable[..., Any], outputs: int, *args: Optional[Tensor]) -> Any:
    """``kernel`` on the NumPy views of CPU tensors; its results as tensors, ``outputs`` of them
    (an output that exists only with an absent optional input: an empty placeholder)."""
    out = kernel(*(np_(a) for a in args))
    res = list(out) if isinstance(out, tuple) else [out]
    res = [tensor(r) for r in res if r is not None]
    while len(res) < outputs:
        res.append(res[0].new_empty(0))
    return tuple(res) if outputs > 1 else res[0]


def fake(inputs: Sequence[Shape], outputs: Sequence[Tuple[Shape, Optional[int]]]
         ) -> Callable[..., Any]:
    """The fake implementation of an operator whose operands have the descriptor shapes
    ``inputs`` and ``outputs`` (each with the index of the optional input it exists with)."""

    def impl(*args: Optional[Tensor]) -> Any:
        sizes: Dict[str, int] = {}
        batches = []
        given = [a for a in args if isinstance(a, Tensor)]
        for a, shape in zip(args, inputs):
            if a is None:
                continue
            batched, core = _parse(shape)
            for sym, n in zip(core, a.shape[a.ndim - len(core):]):
                sizes.setdefault(sym, n)
            if batched:
                batches.append(a.shape[:a.ndim - len(core)])
        batch = tuple(torch.broadcast_shapes(*batches))  # type: ignore[no-untyped-call]
        dt = result_dtype(*(a for a in given if a.is_floating_point()))
        res = []
        for shape, cond in outputs:
            if cond is not None and args[cond] is None:
                res.append(torch.empty(0, dtype=dt, device=given[0].device))
                continue
            batched, core = _parse(shape)
            dims = batch * batched + tuple(sizes[s] if s in sizes else int(s) for s in core)
            res.append(torch.empty(dims, dtype=dt, device=given[0].device))
        return tuple(res) if len(res) > 1 else res[0]
    return impl


Vjp = Tuple["CustomOpDef", Sequence[str]]
"""A VJP operator and the forward inputs of its results."""


def _arguments(op: "CustomOpDef") -> List[str]:
    """The argument names of an operator's schema (its descriptor's operands)."""
    return [a.name for a in op._opoverload._schema.arguments]


def wire(op: "CustomOpDef", outputs: Sequence[str], *vjps: Vjp) -> Callable[..., Any]:
    """Register the backward of ``op`` (its outputs named as in its descriptor) through its VJP
    operators; return the differentiable call (``_function.differentiable``).  A VJP operator
    runs only when one of the inputs it gives a cotangent for needs one."""
    inputs = _arguments(op)
    # the overloads (torch.ops.skinkit.*): what dynamo traces in a backward
    calls = [(vjp._opoverload, _arguments(vjp), wrt) for vjp, wrt in vjps]
    saved_outputs = any(n in outputs and n not in inputs for _, args, _ in calls for n in args)

    def setup(ctx: Any, args: Tuple[Any, ...], output: Any) -> None:
        outs = output if isinstance(output, tuple) else (output,)
        ctx.save_for_backward(*args, *(outs if saved_outputs else ()))

    def backward(ctx: Any, *grads: Tensor) -> Tuple[Optional[Tensor], ...]:
        saved = ctx.saved_tensors
        values = dict(zip(inputs, saved))
        named = dict(zip(outputs, saved[len(inputs):]))
        cot = {"g": grads[0], **{"g_" + n: g for n, g in zip(outputs, grads)}}
        need = dict(zip(inputs, ctx.needs_input_grad))
        result: Dict[str, Optional[Tensor]] = {}
        for vjp, args, wrt in calls:
            if not any(need[n] and values[n] is not None for n in wrt):
                continue
            got = vjp(*(values[n] if n in values else named[n] if n in named else cot[n]
                        for n in args))
            for n, g in zip(wrt, got if isinstance(got, tuple) else (got,)):
                like = values[n]
                if need[n] and like is not None:
                    result[n] = cotangent(g, like)
        return tuple(result.get(n) for n in inputs)

    return differentiable(op, setup, backward)


def call(name: str, fn: Callable[..., Any], floating: Sequence[str],
         **args: Optional[Tensor]) -> Any:
    """A public function's call of its differentiable operator ``fn``: every tensor checked
    for its device, the ``floating`` ones converted to the result dtype (float64 when any is
    float64, else float32), the others (indices) passed as given."""
    check_cpu(name, **args)
    dt = result_dtype(*(args[n] for n in floating))
    return fn(*(as_float(t, dt) if n in floating else t for n, t in args.items()))
