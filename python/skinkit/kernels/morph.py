"""Blend shapes (morph targets): a base shape plus a weighted sum of displacements.

glTF 2.0 section 3.7.2.2 "Morph Targets": ``P = base + sum_i w_i * delta_i``; SMPL's shape and
pose correctives have the same form.  The sum is one matrix product, (..., M) weights times
(M, V*C) displacements, done by NumPy's matmul (BLAS).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import check_out, real_array

__all__ = ["blend_shapes"]


def blend_shapes(base: ArrayLike, deltas: ArrayLike, weights: ArrayLike,
                 out: Optional[NDArray[np.floating[Any]]] = None) -> NDArray[np.floating[Any]]:
    """Add weighted displacements to a base shape: ``base + sum_m weights[..., m] deltas[m]``.

    Parameters
    ----------
    base : array (V, C)
        The base shape (rest positions, normals...).
    deltas : array (M, V, C)
        One displacement per blend shape (morph target).
    weights : array (..., M)
        Weights of the blend shapes, any leading batch shape (e.g. one row per frame).
    out : array (..., V, C), optional
        C-contiguous, of the result dtype; written and returned.

    Returns
    -------
    array (..., V, C)
        float32 when every input is float32 (or integer), else float64; the leading shape is
        that of ``weights``.  Units of ``base``.

    Raises
    ------
    TypeError
        An input is not a real number array, or ``out`` has another dtype.
    ValueError
        Shapes that do not match (the message names the argument, the expected and the actual
        shape), or an ``out`` that is not C-contiguous and writeable.

    Notes
    -----
    glTF 2.0 section 3.7.2.2 "Morph Targets".  One ``np.matmul`` of weights (B, M) by deltas
    (M, V*C) into the result, then one addition of ``base``: no (B, M, V, C) temporary.
    """
    base_, deltas_, weights_ = (real_array(x, n) for x, n in ((base, "base"), (deltas, "deltas"),
                                                              (weights, "weights")))
    if base_.ndim != 2:
        raise ValueError(f"base must have shape (V, C), got {base_.shape}")
    v, c = base_.shape
    if deltas_.ndim != 3 or deltas_.shape[1:] != (v, c):
        raise ValueError(f"deltas must have shape (M, {v}, {c}), got {deltas_.shape}")
    m = deltas_.shape[0]
    if weights_.ndim < 1 or weights_.shape[-1] != m:
        raise ValueError(f"weights must have shape (..., {m}), got {weights_.shape}")
    floats = [a.dtype for a in (base_, deltas_, weights_) if a.dtype.kind == "f"]
    dtype = np.dtype(np.float32) if all(d == np.float32 for d in floats) else np.dtype(np.float64)
    batch = weights_.shape[:-1]
    shape = batch + (v, c)
    if out is None:
        out = np.empty(shape, dtype=dtype)
    else:
        check_out(out, dtype, shape, why=" (the dtype of the result)")
    if out.size == 0:
        return out
    flat = out.reshape(-1, v * c)
    w = weights_.reshape(len(flat), m).astype(dtype, copy=False)
    d = deltas_.reshape(m, v * c).astype(dtype, copy=False)
    if len(flat) == 1:
        # NumPy gives one row to BLAS's gemv, which rounds otherwise than gemm: as two rows, a
        # frame gets the same bits whatever the batch it is posed in (Model.pose_blocks)
        flat[:] = np.matmul(np.repeat(w, 2, axis=0), d)[:1]
    else:
        np.matmul(w, d, out=flat)
    base_row: NDArray[np.floating[Any]] = base_.reshape(1, v * c).astype(dtype, copy=False)
    flat += base_row
    return out
