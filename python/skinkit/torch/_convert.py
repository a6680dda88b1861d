"""Tensors to and from the kernels' NumPy arrays: the device check, dtype promotion, and the
cotangent of a broadcast input."""
from __future__ import annotations

import numpy as np
import torch


def check_cpu(op: str, **tensors) -> None:
    """ValueError naming the argument and its device unless every tensor is on the CPU."""
    for name, t in tensors.items():
        if isinstance(t, torch.Tensor) and t.device.type != "cpu":
            raise ValueError(
                f"skinkit.torch.{op}: {name} is on device '{t.device}', but skinkit's kernels run "
                f"on the CPU only; pass {name}.cpu() (and move the results back with .to(device))")


def result_dtype(*tensors) -> torch.dtype:
    """float64 when any floating tensor is float64, else float32 (the kernels' rule)."""
    return torch.float64 if any(isinstance(t, torch.Tensor) and t.dtype == torch.float64
                                for t in tensors) else torch.float32


def as_float(t, dtype):
    """A tensor of a floating dtype for the kernels (integers and others to ``dtype``)."""
    if t is None or t.dtype in (torch.float32, torch.float64):
        return t
    return t.to(dtype)


def np_(t):
    """The NumPy view of a CPU tensor (no copy; None stays None)."""
    return None if t is None else t.detach().numpy()


def tensor(a) -> torch.Tensor:
    """A tensor over a kernel's result (no copy when C-contiguous)."""
    return torch.from_numpy(np.ascontiguousarray(a))


def cotangent(g, like: torch.Tensor) -> torch.Tensor:
    """The cotangent ``g`` of an input ``like``: summed over the dimensions ``like`` was broadcast
    along, in its dtype."""
    return g.sum_to_size(like.shape).to(like.dtype)
