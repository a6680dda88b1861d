"""Tensors to and from the kernels' NumPy arrays: dtype promotion, and the cotangent of a
broadcast input."""
from __future__ import annotations

from typing import Any, Optional, overload

import numpy as np
import torch
from numpy.typing import ArrayLike, NDArray


def result_dtype(*tensors: object) -> torch.dtype:
    """float64 when any floating tensor is float64, else float32 (the kernels' rule)."""
    return torch.float64 if any(isinstance(t, torch.Tensor) and t.dtype == torch.float64
                                for t in tensors) else torch.float32


@overload
def as_float(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor: ...
@overload
def as_float(t: None, dtype: torch.dtype) -> None: ...
@overload
def as_float(t: Optional[torch.Tensor], dtype: torch.dtype) -> Optional[torch.Tensor]: ...
def as_float(t: Optional[torch.Tensor], dtype: torch.dtype) -> Optional[torch.Tensor]:
    """A tensor of a floating dtype for the kernels (integers and others to ``dtype``)."""
    if t is None or t.dtype in (torch.float32, torch.float64):
        return t
    return t.to(dtype)


@overload
def np_(t: torch.Tensor) -> NDArray[Any]: ...
@overload
def np_(t: None) -> None: ...
@overload
def np_(t: Optional[torch.Tensor]) -> Optional[NDArray[Any]]: ...
def np_(t: Optional[torch.Tensor]) -> Optional[NDArray[Any]]:
    """The NumPy view of a CPU tensor (no copy; None stays None)."""
    return None if t is None else t.detach().numpy()


def tensor(a: ArrayLike) -> torch.Tensor:
    """A tensor over a kernel's result (no copy when C-contiguous)."""
    return torch.from_numpy(np.ascontiguousarray(a))


def cotangent(g: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """The cotangent ``g`` of an input ``like``: summed over the dimensions ``like`` was broadcast
    along, in its dtype."""
    return g.sum_to_size(like.shape).to(like.dtype)
