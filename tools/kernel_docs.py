"""The prose of every kernel's docstring, written once: tools/generate_surface.py puts each
operand's shape (from the kernel's descriptor in src/bind_table.c) into the Parameters and
Returns entries that name it, and writes the wrappers of python/skinkit/_kernels.py with them.

A docstring without a Parameters section gets Parameters and Returns sections listing the
operands.  In one with them, an entry that names operands (``q0, q1``; ``scales``) gets
`` : <shape>`` (`` or None`` for an optional input; names of different shapes need an entry
each), and the Returns entry ``out`` (the kernel's only result) becomes its bare shape.
"""

DOCS = {
    "quat_multiply": """Hamilton product ``a * b`` (apply b, then a) of quaternions (x, y, z, w).""",
    "quat_conjugate": """Conjugate (-x, -y, -z, w); the inverse of a unit quaternion.""",
    "quat_inverse": """Inverse ``conj(q) / |q|^2`` of any non-zero quaternion; a zero quaternion gives
    non-finite values.""",
    "quat_normalize": """Unit quaternion ``q / |q|``; a zero quaternion gives the identity (0, 0, 0, 1).""",
    "quat_rotate": """Rotate vectors v: ``q v q*`` for unit quaternions q.""",
    "quat_to_matrix": """Rotation matrix of a unit quaternion (``R @ v`` rotates v).

    The quaternion is used as given (not normalized), as glTF engines do.""",
    "quat_from_matrix": """Unit quaternion with w >= 0 of a rotation matrix.

    Shepperd's method (J. Guidance and Control 1(3), 1978): branches on the largest of
    w^2, x^2, y^2, z^2 for accuracy at every angle.""",
    "quat_from_rotvec": """Unit quaternion of a rotation vector (axis times angle in radians).

    This is how SMPL and SciPy's ``Rotation.from_rotvec`` give rotations; accurate near zero
    (uses sin(a/2)/a by series for small angles).""",
    "slerp": """Spherical linear interpolation on the shortest path.

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
        through sinc, so the result is accurate when q0 ~ q1 and when q0 ~ -q1.""",
    "forward_kinematics": """World transforms from local TRS: ``M_i = M_parent(i) @ T(t_i) @ R(q_i) @ S(s_i)``.

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
    matrix is the parent's world matrix times its local matrix.""",
    "rigid_forward_kinematics": """Joint-centred rigid FK, as libigl's ``forward_kinematics``.

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
    function follows libigl's recursion, which is right at every depth.""",
    "skinning_matrices": """Skinning matrices ``world_j @ inverse_bind_j``.

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
        ``world @ inverse_bind``, one matrix per joint.""",
    "matrix_inverse": """Inverse of each 4x4 matrix, e.g. the inverse bind matrices of bind-pose world matrices.

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
        A singular matrix (the message gives its batch index, e.g. ``matrices[2, 1]``).""",
    "linear_blend_skinning": """Linear blend skinning: ``v'_i = sum_k w_ik M_{j_ik} v_i`` (Magnenat-Thalmann 1988;
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
        match.""",
    "quat_to_matrix_vjp": """Cotangent of q from the cotangent g of ``quat_to_matrix(q)``.

    The matrix is the polynomial I + 2w[u]x + 2[u]x^2 of q = (u, w) (used as given), so
    ``d<g, R>/dw = 2 a.u`` and ``d<g, R>/du = 2 w a + 2 (g + g^T) u - 4 tr(g) u`` with
    ``a = (g21 - g12, g02 - g20, g10 - g01)``.""",
    "quat_from_rotvec_vjp": """Cotangent of rotvec from the cotangent g of ``quat_from_rotvec(rotvec)``.

    With ``a = |r|`` and ``q = (sin(a/2)/a r, cos(a/2))``:
    ``g_r = k g_u + ((g_u.r) k'(a)/a - g_w k/2) r`` where k = sin(a/2)/a; k'(a)/a is taken from its Taylor series for a < 0.3, so the result is
    accurate at and near the zero rotation.""",
    "rigid_forward_kinematics_vjp": """Cotangents of rest_positions and rotations from the cotangents g_rotations (of the world
    rotations Q) and g_translations (of t) of ``rigid_forward_kinematics``.

    Reverse mode through libigl's recursion ``Q_i = Q_p q_i``, ``t_i = t_p + Q_p x_i - Q_i x_i``
    (roots ``t_i = x_i - Q_i x_i``), children before parents, in C; ``out`` an optional pair.
    A root's rest position gets the cotangent of every joint below it.""",
    "linear_blend_skinning_vjp": """Cotangents of vertices and skinning_matrices from the cotangent g of the positions of
    ``linear_blend_skinning`` (weights are constants here).

    With ``A_i = sum_k w_ik M_{j_ik}``: ``g_v_i = A_i[:3, :3]^T g_i`` and
    ``g_M_j = sum_{i,k: j_ik = j} w_ik g_i [v_i, 1]^T``, summed over a pose's vertices in C
    (threads split the batch by poses); row 3 of each matrix cotangent is 0.  ``out`` an
    optional pair.""",
    "linear_blend_skinning_weights_vjp": """Cotangent of the weights of ``linear_blend_skinning`` from the cotangent g of its
    positions, one per pose (sum over the batch for the weights' own cotangent):
    ``g_w_ik = dot(g_i, M_{j_ik} [v_i; 1])``, 0 for a slot with joint -1 (src/lbs_weights_vjp.c).
    The weights' values are not read (the positions are linear in them).""",
}
