"""The continuous 6D rotation representation of Zhou et al. 2019 ("On the Continuity of Rotation
Representations in Neural Networks", CVPR, section 4.2): the first two columns of the rotation
matrix, and back by Gram-Schmidt."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import values

__all__ = ["matrix_to_6d", "matrix_from_6d"]


def matrix_to_6d(matrices: ArrayLike) -> NDArray[np.float64]:
    """6D rotations of rotation matrices: ``(R[:, 0], R[:, 1])`` concatenated, the layout of
    HumanML3D's ``cont6d`` and Zhou et al.'s mapping g_GS^-1.

    Parameters
    ----------
    matrices : (..., 3, 3) rotation matrices (acting on column vectors).

    Returns
    -------
    (..., 6) float64

    Raises
    ------
    TypeError
        for an array of other than real numbers.
    ValueError
        if the last two axes are not (3, 3), or for values not finite or past
        skinkit.limits.MAX_FILE_VALUE.
    """
    m = values(matrices, "matrices")
    if m.shape[-2:] != (3, 3):
        raise ValueError(f"matrices: expected shape (..., 3, 3), got {m.shape}")
    return np.concatenate([m[..., :, 0], m[..., :, 1]], axis=-1)


def matrix_from_6d(six: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrices of 6D rotations (Zhou et al.'s g_GS: the first column is the normalized
    first half, the third the normalized cross product of it and the second half, the second
    completes the right-handed frame).  Any (..., 6) with non-parallel halves maps to a rotation.

    Parameters
    ----------
    six : (..., 6)

    Returns
    -------
    (..., 3, 3) float64

    Raises
    ------
    TypeError
        for an array of other than real numbers.
    ValueError
        if the last axis is not 6, for values not finite or past skinkit.limits.MAX_FILE_VALUE,
        or a 6D rotation whose halves are parallel or zero (no rotation).
    """
    return from_6d(six, "six")


def from_6d(six: ArrayLike, name: str) -> NDArray[np.float64]:
    """``matrix_from_6d`` of the argument called ``name`` in the messages."""
    d = values(six, name)
    if d.shape[-1:] != (6,):
        raise ValueError(f"{name}: expected shape (..., 6), got {d.shape}")
    a, b = d[..., :3], d[..., 3:]
    na = np.linalg.norm(a, axis=-1, keepdims=True)
    x = a / np.where(na > 0, na, 1.0)
    z = np.cross(x, b)
    nz = np.linalg.norm(z, axis=-1, keepdims=True)
    flat = ~((na > 0) & (nz > 1e-12 * np.linalg.norm(b, axis=-1, keepdims=True)))[..., 0]
    if flat.any():
        at = tuple(int(i) for i in np.argwhere(flat)[0])
        raise ValueError(f"{name}: the 6D rotation at index {at}, {d[at]}, has parallel or zero "
                         "halves (no rotation)")
    z = z / nz
    y = np.cross(z, x)
    return np.stack([x, y, z], axis=-1)
