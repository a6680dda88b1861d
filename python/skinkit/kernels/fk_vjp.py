"""``forward_kinematics_vjp``, exported by ``skinkit.kernels.gradients``: the C kernel
``_forward_kinematics_vjp`` (src/fk_vjp.c), whose optional scales come last, called with the
arguments in the order of ``forward_kinematics``."""
from __future__ import annotations

from typing import Optional, Tuple

from .. import _core
from ._generated import Float, Input

__all__ = ["forward_kinematics_vjp"]


def forward_kinematics_vjp(parents: Input, rotations: Input, translations: Input,
                           scales: Optional[Input], world: Input, g: Input,
                           threads: Optional[int] = None
                           ) -> Tuple[Float, Float, Optional[Float]]:
    """Cotangents of rotations, translations and scales from the cotangent g of the result
    ``world`` of ``forward_kinematics(parents, rotations, translations, scales)``.

    Reverse mode through ``M_i = M_p L_i`` with ``L_i = T(t_i) R(q_i) S(s_i)`` (``R`` the
    polynomial ``quat_to_matrix`` of q as given), children before parents, in C
    (src/fk_vjp.c): ``g_L_i = M_p^T g_M_i`` and ``g_M_p += g_M_i L_i^T``; then
    ``g_t = g_L[:3, 3]``, ``g_s = diag(R^T g_L[:3, :3])`` and ``g_q`` the VJP of
    ``quat_to_matrix`` at ``g_L[:3, :3] S``.  Row 3 of g is ignored (row 3 of a world matrix
    is constant).  The batch shapes of all float inputs broadcast together; results are
    float32 when every float input is, else float64 (the rules of every kernel; no ``out=``).

    Parameters
    ----------
    parents : (J,) int
        Parent of each joint, -1 for a root, in any order (as ``forward_kinematics``).
    rotations : (..., J, 4)
        Local rotations (x, y, z, w).
    translations : (..., J, 3)
    scales : (..., J, 3) or None
    world : (..., J, 4, 4)
        The result of ``forward_kinematics`` for these inputs.
    g : (..., J, 4, 4)
        Cotangent of world.
    threads : int, optional
        As every kernel; results do not depend on it.

    Returns
    -------
    g_rotations : (..., J, 4)
    g_translations : (..., J, 3)
    g_scales : (..., J, 3) or None
        None when scales is None.

    Raises
    ------
    ValueError
        A shape that does not fit (naming the argument, expected and actual shapes), batch
        shapes that do not broadcast, parents out of range or on a cycle.
    TypeError
        An input that is not a float32 or float64 array (integers convert to float64).
    """
    if scales is None:
        g_q, g_t = _core._forward_kinematics_vjp(parents, rotations, translations, world, g,
                                                 None, None, threads)
        return g_q, g_t, None
    return _core._forward_kinematics_vjp(parents, rotations, translations, world, g, scales,
                                         None, threads)
