"""The kernels: quaternions, forward kinematics, skinning.  Thin wrappers over ``skinkit._core``.

Conventions (all functions)
---------------------------
- Quaternions are (x, y, z, w), Hamilton product, as glTF and SciPy.  Matrices are row-major
  NumPy arrays that act on column vectors (v' = M @ v).
- Leading batch dimensions ``...`` broadcast against each other as in NumPy.
- dtype: float32 inputs give float32 results computed in float32; float64 gives float64; mixed
  float32/float64 gives float64; integer inputs are converted to float64.  bool, complex,
  float16 and object arrays raise TypeError.
- Any array-like is accepted: NumPy arrays in any memory layout (non-contiguous, Fortran
  order, byte-swapped, read-only; copied only when not C-contiguous, aligned and native),
  objects with ``__dlpack__`` such as PyTorch CPU tensors (read in place through
  ``numpy.from_dlpack``), objects with ``__array__``, and nested sequences.  Results are NumPy
  arrays.
- ``out=`` takes a C-contiguous, writeable array of exactly the result's shape and dtype that does
  not overlap an input; otherwise ValueError (TypeError for a wrong dtype).
- The GIL is released while a kernel runs.
- ``threads=`` (every kernel): at most this many threads, None for the default (the environment
  variable ``SKINKIT_NUM_THREADS`` read at import, else the number of online CPUs).  Threads
  start only when each gets enough work (about 50 us), are created per call (no pool, so
  ``fork`` is safe), and split the batch so that results are bitwise identical whatever the
  thread count.
- NaN and Inf propagate to the result; they never crash.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

from . import _core

__all__ = [
    "quat_multiply", "quat_conjugate", "quat_inverse", "quat_normalize", "quat_rotate",
    "quat_to_matrix", "quat_from_matrix", "quat_from_rotvec", "slerp",
    "forward_kinematics", "rigid_forward_kinematics", "skinning_matrices", "matrix_inverse",
    "linear_blend_skinning", "dual_quaternion_skinning", "normalize_weights", "limit_influences",
]   # and the deprecated aliases quat_from_axis_angle, inverse_bind_matrices (until 0.3)


def _shapes(fn):
    """Writes the shapes of kernel ``fn`` into its docstring from its descriptor
    (``_core._shapes``, src/bind_table.c), where they are written once.

    A docstring without a Parameters section gets Parameters and Returns sections listing the
    operands.  In one with them, an entry that names operands (``q0, q1``; ``scales``) gets
    `` : <shape>`` (`` or None`` for an optional input; names of different shapes need an
    entry each), and the Returns entry ``out`` (the kernel's only result) becomes its bare
    shape."""
    ops = _core._shapes[fn.__name__]
    doc = inspect.cleandoc(fn.__doc__ or "")
    if "\nParameters\n" not in doc:
        params = "\n".join(name for name, _, role in ops if role != "out")
        returns = "\n".join(name for name, _, role in ops if role == "out")
        doc = f"{doc}\n\nParameters\n----------\n{params}\n\nReturns\n-------\n{returns}\n"
    shapes = {"Parameters": {n: s + " or None" * (role == "optional")
                             for n, s, role in ops if role != "out"},
              "Returns": {n: s for n, s, role in ops if role == "out"}}
    lines = doc.split("\n")
    section: dict = {}
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and set(lines[i + 1]) == {"-"}:
            section = shapes.get(line, {})
        names = line.split(", ")
        if (line and not line[0].isspace() and all(n in section for n in names)
                and len({section[n] for n in names}) == 1):
            shape = section[names[0]]
            lines[i] = shape if line == "out" else f"{line} : {shape}"
    fn.__doc__ = "\n".join(lines)
    return fn


def _asarray(x) -> np.ndarray:
    """An array-like as an ndarray as the binding reads it: ``__dlpack__`` objects through
    ``numpy.from_dlpack`` (no copy), the rest through ``np.asarray``."""
    if not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


@_shapes
def quat_multiply(a, b, out=None, threads=None):
    """Hamilton product ``a * b`` (apply b, then a) of quaternions (x, y, z, w)."""
    return _core.quat_multiply(a, b, out, threads)


@_shapes
def quat_conjugate(q, out=None, threads=None):
    """Conjugate (-x, -y, -z, w); the inverse of a unit quaternion."""
    return _core.quat_conjugate(q, out, threads)


@_shapes
def quat_inverse(q, out=None, threads=None):
    """Inverse ``conj(q) / |q|^2`` of any non-zero quaternion; a zero quaternion gives
    non-finite values."""
    return _core.quat_inverse(q, out, threads)


@_shapes
def quat_normalize(q, out=None, threads=None):
    """Unit quaternion ``q / |q|``; a zero quaternion gives the identity (0, 0, 0, 1)."""
    return _core.quat_normalize(q, out, threads)


@_shapes
def quat_rotate(q, v, out=None, threads=None):
    """Rotate vectors v: ``q v q*`` for unit quaternions q."""
    return _core.quat_rotate(q, v, out, threads)


@_shapes
def quat_to_matrix(q, out=None, threads=None):
    """Rotation matrix of a unit quaternion (``R @ v`` rotates v).

    The quaternion is used as given (not normalized), as glTF engines do."""
    return _core.quat_to_matrix(q, out, threads)


@_shapes
def quat_from_matrix(m, out=None, threads=None):
    """Unit quaternion with w >= 0 of a rotation matrix.

    Shepperd's method (J. Guidance and Control 1(3), 1978): branches on the largest of
    w^2, x^2, y^2, z^2 for accuracy at every angle."""
    return _core.quat_from_matrix(m, out, threads)


@_shapes
def quat_from_rotvec(rotvec, out=None, threads=None):
    """Unit quaternion of a rotation vector (axis times angle in radians).

    This is how SMPL and SciPy's ``Rotation.from_rotvec`` give rotations; accurate near zero
    (uses sin(a/2)/a by series for small angles)."""
    return _core.quat_from_rotvec(rotvec, out, threads)


@_shapes
def slerp(q0, q1, t, out=None, threads=None):
    """Spherical linear interpolation on the shortest path.

    Parameters
    ----------
    q0, q1
        Unit quaternions.
    t
        Interpolation parameter, 0 gives q0, 1 gives q1 (or -q1 when q0 . q1 < 0).

    Returns
    -------
    out
        ``q0 (q0^-1 q1')^t`` with ``q1' = sign(q0 . q1) q1`` (Shoemake 1985).  The angle is taken
        as ``2 atan2(|q0 - q1'|, |q0 + q1'|)`` and the weights as sin(s a)/sin(a) computed
        through sinc, so the result is accurate when q0 ~ q1 and when q0 ~ -q1.
    """
    return _core.slerp(q0, q1, t, out, threads)


@_shapes
def forward_kinematics(parents, rotations, translations, scales=None, out=None, threads=None):
    """World transforms from local TRS: ``M_i = M_parent(i) @ T(t_i) @ R(q_i) @ S(s_i)``.

    Parameters
    ----------
    parents
        Integer array: the parent of each joint, -1 for a root; any order (a topological order
        is computed once per call).
    rotations
        Local rotations (x, y, z, w), used as given (unit expected).
    translations
        Local translations.
    scales
        Local scales, None for 1.

    Returns
    -------
    world
        World (model-space) matrices; the batch shape is the broadcast of the inputs'.

    Raises
    ------
    ValueError
        A parent index out of range, a joint that is its own parent, or a cycle (the message
        names the joint); shapes that do not match.
    TypeError
        parents not an integer array, or a float argument of an unsupported dtype.

    Notes
    -----
    glTF 2.0 section 3.5.3 "Transformations": a node's matrix is T * R * S, a child's world
    matrix is the parent's world matrix times its local matrix.
    """
    return _core.forward_kinematics(parents, rotations, translations, scales, out, threads)


@_shapes
def rigid_forward_kinematics(parents, rest_positions, rotations, out=None, threads=None):
    """Joint-centred rigid FK, as libigl's ``forward_kinematics``.

    Each joint i rotates by ``q_i`` about its rest position ``x_i``, relative to its parent p:
    ``Q_i = Q_p q_i`` and ``t_i = t_p + Q_p x_i - Q_i x_i`` (roots: ``Q_i = q_i``,
    ``t_i = x_i - q_i x_i``), so that a rest-pose point v attached to joint i moves to
    ``Q_i v + t_i``.

    Parameters
    ----------
    parents
        Integer array, -1 for roots, any order.
    rest_positions
        Rest positions of the joints (model space).
    rotations
        Relative rotations (x, y, z, w).
    out : optional tuple (rotations_out, translations_out).

    Returns
    -------
    rotations
        World rotations ``Q_i``.
    translations
        World translations ``t_i``.

    Raises
    ------
    ValueError, TypeError as ``forward_kinematics``.

    Notes
    -----
    The closed form t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p of the seed article ("Implementing
    forward kinematics for linear blend skinning") equals this only when p is a root; this
    function follows libigl's recursion, which is right at every depth.
    """
    return _core.rigid_forward_kinematics(parents, rest_positions, rotations, out, threads)


@_shapes
def skinning_matrices(world, inverse_bind, out=None, threads=None):
    """Skinning matrices ``world_j @ inverse_bind_j``.

    glTF 2.0 section 3.7.3 "Skins": the skinning matrix (glTF's "joint matrix") is the joint's
    world transform times its inverse bind matrix.

    Parameters
    ----------
    world
        World matrices of the skin's joints.
    inverse_bind
        Their inverse bind matrices.

    Returns
    -------
    out
        ``world @ inverse_bind``, one matrix per joint.
    """
    return _core.skinning_matrices(world, inverse_bind, out, threads)


@_shapes
def matrix_inverse(matrices, out=None, threads=None):
    """Inverse of each 4x4 matrix, e.g. the inverse bind matrices of bind-pose world matrices.

    General 4x4 inverse by cofactors, as three.js's ``Matrix4.invert`` (used by
    ``Skeleton.calculateInverses``).

    Parameters
    ----------
    matrices
        Invertible 4x4 matrices.

    Returns
    -------
    out
        Their inverses.

    Raises
    ------
    ValueError
        A singular matrix (the message gives its batch index, e.g. ``matrices[2, 1]``).
    """
    return _core.matrix_inverse(matrices, out, threads)


def _deprecated(old: str, new):
    def alias(*args, **kwargs):
        warnings.warn(f"skinkit.{old} is deprecated and will be removed in skinkit 0.3; use "
                      f"{new.__module__}.{new.__name__}", DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)
    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated alias of ``{new.__name__}`` (removed in skinkit 0.3)."
    return alias


quat_from_axis_angle = _deprecated("quat_from_axis_angle", quat_from_rotvec)
inverse_bind_matrices = _deprecated("inverse_bind_matrices", matrix_inverse)


@_shapes
def linear_blend_skinning(vertices, joints, weights, skinning_matrices, normals=None, out=None,
                          threads=None):
    """Linear blend skinning: ``v'_i = sum_k w_ik M_{j_ik} v_i`` (Magnenat-Thalmann 1988;
    glTF 2.0 section 3.7.3 "Skins").

    Parameters
    ----------
    vertices
        Rest (bind-pose) positions.
    joints
        Joint indices of any integer type (uint8, uint16 and int32 are read without a copy),
        checked once per call; any K, e.g. glTF's JOINTS_0 and JOINTS_1 side by side.  -1 marks
        an unused slot.
    weights
        Weights, used as given (see ``normalize_weights``).
    skinning_matrices
        From ``skinning_matrices``.
    normals
        Normals are transformed by the inverse transpose of each vertex's blended 3x3 (computed
        as its cofactor matrix times the sign of its determinant), so they stay perpendicular to
        the surface under non-uniform scale and keep their side under mirroring, then
        renormalized; a degenerate (zero) result stays zero.
    out : optional (..., V, 3) array, or a pair of them when normals are given.

    Returns
    -------
    positions
        Posed positions.
    normals
        Posed normals, only when normals are given: then the result is the pair (positions,
        normals).

    Raises
    ------
    ValueError
        A joint index < -1 or >= J (the message gives the vertex and slot), shapes that do not
        match.
    """
    return _core.linear_blend_skinning(vertices, joints, weights, skinning_matrices, normals, out,
                                       threads)


def dual_quaternion_skinning(vertices, joints, weights, skinning_matrices, normals=None, out=None,
                             threads=None):
    """Dual quaternion skinning (Kavan, Collins, Zara and O'Sullivan, "Geometric Skinning with
    Approximate Dual Quaternion Blending", ACM TOG 27(4), 2008, Algorithm 1): no candy-wrapper
    collapse where joints twist, no loss of volume where they bend.

    Parameters
    ----------
    vertices, joints, skinning_matrices, out
        As for ``linear_blend_skinning``: (..., V, 3), (V, K) with -1 for an unused slot,
        (..., J, 4, 4), and an array or a pair of arrays.
    weights : (V, K).  Their sum does not matter for rigid skinning matrices (the blend is
        normalized); a vertex whose weights are all zero keeps its rest position and normal.
    normals : (..., V, 3) or None.  Rotated by the blended rotation and renormalized.

    Returns, Raises
        As ``linear_blend_skinning``.

    Notes
    -----
    Each skinning matrix's rotation becomes a unit quaternion q_k and its translation t_k the
    dual part 1/2 (t_k, 0) q_k.  Per vertex the dual quaternions are summed with its weights,
    each q_k first put in the hemisphere of the vertex's first influence (the first slot with a
    joint and a non-zero weight: a matrix gives q or -q, so this is not optional), divided by
    the norm of the rotation part, and applied to the position.  (Blender and libigl compare
    with the running sum instead; the two choices differ only for influences whose rotations
    spread over more than a half turn.)

    Skinning matrices with scale or shear (3x3 part A not a rotation to 128 epsilons of the
    dtype, or det A <= 0) are handled as Blender's armature modifier does with "Preserve
    Volume" (``mat4_to_dquat``, ``add_weighted_dq_dq_pivot``, ``mul_v3m3_dq``): the matrix
    splits into a rigid part (Q, t), Q the rotation nearest A (the polar factor with det +1),
    applied after a scale matrix S = Q^T A.  The scale matrices are blended linearly (divided by
    the sum of the weights) and applied before the blended rigid part, with Blender's pivot at
    the vertex: the translation a scale matrix gives the vertex moves into its dual quaternion,
    so that each influence alone takes the vertex exactly where its matrix does, and the
    blended scale acts only on the normals (by its inverse transpose).  Blender takes the
    rotation by Gram-Schmidt along the bone's Y axis instead of the polar factor; the two agree
    unless a joint's world matrix shears.  Rigid matrices give exactly Kavan's result.
    """
    m = _asarray(skinning_matrices)
    f32 = [_asarray(a).dtype.char == "f" for a in (m, vertices, weights, normals) if a is not None]
    if f32[0] and not all(f32):            # computed in float64, as linear_blend_skinning
        m = m.astype(np.float64)
    for o in out if isinstance(out, (tuple, list)) else (out,):
        if isinstance(o, np.ndarray) and np.may_share_memory(o, m):
            raise ValueError("out overlaps the memory of skinning_matrices")
    dq = _core._skinning_dual_quaternions(m, None, threads)
    return _core._dual_quaternion_skinning(vertices, joints, weights, dq, normals, out, threads)


def normalize_weights(weights):
    """Scale each row of ``weights`` (V, K) to sum to 1 (L1, as glTF requires and three.js does).

    Rows that sum to 0 are left as zeros.  Returns a new float array of the same dtype
    (float64 for integer input).
    """
    w = _asarray(weights)
    if w.dtype.kind not in "biuf":
        raise TypeError(f"weights must be a real number array, got dtype {w.dtype}")
    # the result first: a huge zero-stride view fails here at once, not after summing it
    out = np.zeros(w.shape, w.dtype if w.dtype.kind == "f" else np.float64)
    if w.dtype.kind != "f":
        w = w.astype(np.float64)
    s = np.sum(w, axis=-1, keepdims=True)
    return np.divide(w, s, out=out, where=s != 0)


def limit_influences(joints, weights, k):
    """Keep the ``k`` largest influences of each vertex and renormalize, as exporters do for
    4-influence renderers.

    Parameters
    ----------
    joints : (V, K) integer array.  weights : (V, K) float array.  k : int >= 1.

    Returns
    -------
    joints (V, k) same dtype, weights (V, k) renormalized; when K < k the rows are padded with
    joint 0 and weight 0.  Ties keep the earlier slot.
    """
    j = _asarray(joints)
    w = _asarray(weights)
    if j.shape != w.shape or j.ndim != 2:
        raise ValueError(f"joints and weights must both be (V, K); got {j.shape} and {w.shape}")
    if int(k) < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    k = int(k)
    if j.shape[1] < k:
        pad = ((0, 0), (0, k - j.shape[1]))
        j, w = np.pad(j, pad), np.pad(w, pad)
    order = np.argsort(-w, axis=1, kind="stable")[:, :k]
    return (np.take_along_axis(j, order, axis=1),
            normalize_weights(np.take_along_axis(w, order, axis=1)))
