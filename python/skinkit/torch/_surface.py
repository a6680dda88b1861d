"""The pieces the generated operators (``_generated.py``, written by tools/generate_surface.py
from the descriptors of src/bind_table.c) are made of: a C kernel's call on CPU tensors, the
plain-torch kernel of every other device (``generic``; a VJP operator's: ``torch.func.vjp`` of
its forward's), the fake implementation that checks the operands' shapes and computes the
results' from the descriptor's shape strings, the backward that wires an operator to its VJP
operators by the operands' names, the public function's argument handling, and
``use_torch_kernels``, the switch that runs the plain-torch kernels on the CPU too.

The names follow the descriptors: a VJP operator takes forward inputs (by name), forward outputs
(``world``), and the cotangents ``g`` (of the only output) or ``g_<output>``; it returns
``g_<input>`` (``out`` for an elementwise kernel's only input), summed here over the dimensions
that input was broadcast along.
"""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import torch
from torch import Tensor

from ._convert import as_float, cotangent, np_, result_dtype, tensor
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


OPERATORS: List["CustomOpDef"] = []
"""The operators with a C kernel for the CPU (``use_torch_kernels`` turns them off)."""


def c_kernel(op: "CustomOpDef", module: Any, kernel: str, outputs: int) -> None:
    """Register as ``op``'s CPU kernel the function ``kernel`` of ``module`` (looked up at each
    call) on the NumPy views of the tensors; its results as tensors, ``outputs`` of them (an
    output that exists only with an absent optional input: an empty placeholder)."""

    def cpu(*args: Optional[Tensor]) -> Any:
        out = getattr(module, kernel)(*(np_(a) for a in args))
        res = list(out) if isinstance(out, tuple) else [out]
        res = [tensor(r) for r in res if r is not None]
        while len(res) < outputs:
            res.append(res[0].new_empty(0))
        return tuple(res) if outputs > 1 else res[0]

    op.register_kernel("cpu")(cpu)
    OPERATORS.append(op)


@contextlib.contextmanager
def use_torch_kernels(enabled: bool = True) -> Iterator[None]:
    """Within the block, the operators of ``skinkit.torch`` run their plain-torch kernels
    (``skinkit.torch.generic``, what CUDA and every other device run) on CPU tensors too, in
    place of the C kernels, forward and backward: to check or compare them without a GPU.
    Process-wide (torch's ``set_kernel_enabled``), restored on exit."""
    with contextlib.ExitStack() as stack:
        for op in OPERATORS:
            stack.enter_context(op.set_kernel_enabled("cpu", not enabled))
        yield


def generic(kernel: Callable[..., Any], shapes: Callable[..., Any], **args: Optional[Tensor]
            ) -> Any:
    """The plain-torch ``kernel`` (``skinkit.torch.generic``) on the operands by name, their
    shapes checked first (``shapes``: the operator's fake)."""
    shapes(*args.values())
    return kernel(**args)


def generic_vjp(forward: Callable[..., Any], shapes: Callable[..., Any], inputs: Sequence[str],
                outputs: Sequence[str], wrt: Sequence[str], **args: Optional[Tensor]) -> Any:
    """A VJP operator's plain-torch kernel: ``torch.func.vjp`` of the plain-torch ``forward``
    (taking ``inputs``, giving ``outputs``) at the operands ``args``, with the cotangents
    ``g`` / ``g_<output>`` among them; the cotangents of ``wrt`` in the shapes of the VJP
    operator's results (``shapes``: its fake), one per batch item as the C kernels give them
    (an absent optional input's: an empty placeholder)."""
    like = shapes(*args.values())
    like = like if isinstance(like, tuple) else (like,)
    present = [n for n in wrt if args[n] is not None]
    at = {n: args[n] for n in inputs}
    primals = [t.expand(o.shape) for n, o in zip(wrt, like) if (t := at[n]) is not None]

    def f(*p: Tensor) -> Tuple[Tensor, ...]:
        out = forward(**{**at, **dict(zip(present, p))})
        return out if isinstance(out, tuple) else (out,)

    outs, pull = torch.func.vjp(f, *primals)[:2]
    cots = [args["g"] if len(outputs) == 1 else args["g_" + n] for n in outputs]
    grads = iter(pull(tuple(c.expand(o.shape) for c, o in zip(cots, outs) if c is not None)))
    res = [next(grads).contiguous() if args[n] is not None else o for n, o in zip(wrt, like)]
    return tuple(res) if len(res) > 1 else res[0]


def fake(name: str, inputs: Sequence[Tuple[str, Shape]],
         outputs: Sequence[Tuple[Shape, Optional[int]]]) -> Callable[..., Any]:
    """The fake implementation of the operator ``name`` whose operands have the descriptor
    shapes ``inputs`` (with their names) and ``outputs`` (each with the index of the optional
    input it exists with); ValueError naming the operand for shapes that do not fit."""

    def impl(*args: Optional[Tensor]) -> Any:
        sizes: Dict[str, int] = {}
        batches = []
        given = [a for a in args if isinstance(a, Tensor)]
        for a, (arg, shape) in zip(args, inputs):
            if a is None:
                continue
            batched, core = _parse(shape)
            got = tuple(a.shape[a.ndim - len(core):]) if a.ndim >= len(core) else None
            want = [sizes.get(s, int(s) if s.isdigit() else None) for s in core]
            if (got is None or (not batched and a.ndim != len(core))
                    or any(w is not None and w != n for w, n in zip(want, got))):
                bound = ", ".join(f"{s} = {sizes[s]}" for s in core if s in sizes)
                raise ValueError(f"skinkit.torch.{name}: {arg} must have shape {shape}"
                                 + (f" ({bound})" if bound else "") + f", got {tuple(a.shape)}")
            sizes.update((s, n) for s, n in zip(core, got) if not s.isdigit())
            if batched:
                batches.append(a.shape[:a.ndim - len(core)])
        try:
            batch = tuple(torch.broadcast_shapes(*batches))  # type: ignore[no-untyped-call]
        except RuntimeError:
            raise ValueError(f"skinkit.torch.{name}: the batch shapes "
                             + ", ".join(map(str, map(tuple, batches)))
                             + " do not broadcast") from None
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


def call(fn: Callable[..., Any], floating: Sequence[str],
         **args: Optional[Tensor]) -> Any:
    """A public function's call of its differentiable operator ``fn``: the ``floating``
    tensors converted to the result dtype (float64 when any is float64, else float32), the
    others (indices) passed as given."""
    dt = result_dtype(*(args[n] for n in floating))
    return fn(*(as_float(t, dt) if n in floating else t for n, t in args.items()))
