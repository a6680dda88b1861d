"""SMPL-family body models (SMPL, SMPL+H, SMPL-X, MANO, FLAME): forward pass and analytic VJP.

The model of Loper et al., "SMPL: A Skinned Multi-Person Linear Model" (SIGGRAPH Asia 2015),
with the array layouts and the joint convention of smplx 0.1.28 (``smplx.lbs.lbs``):

1. blend shapes: ``v_posed = v_template + shapedirs . betas + posedirs . (R_j - I)_{j>=1}``
   and rest joints ``x = J_regressor v_shaped``: one BLAS matrix product over a stored basis
   whose rows are the shape (reversed), template, pose-corrective and expression directions, so
   the coefficients of any call select one contiguous block;
2. rotations ``R_j`` of the axis-angle pose, exactly (no epsilon): quat_from_rotvec then
   quat_to_matrix (C kernels);
3. joint-centred rigid FK (C kernel): ``G_j = [Q_j | t_j]``, the transform smplx calls ``A``;
4. linear blend skinning (C kernel) with the model's weights kept sparse (every non-zero);
5. posed joints ``G_p(j) x_j`` (smplx's ``J_transformed``), then the translation.

The VJP runs the same steps backwards with the C VJP kernels (skinkit.kernels.gradients) and the
transposed BLAS product.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Mapping, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .. import _core
from ..kernels import gradients
from ..kernels._blas import matmul, one_blas_thread
from ..kernels._generated import Input
from ..model.summary import table
from ..kernels.wrappers import (_asarray, linear_blend_skinning, quat_from_rotvec, quat_to_matrix,
                      rigid_forward_kinematics)
from ..model.records import float_dtype
from .kinds import KINDS, BodyModelError
from .workspace import Workspace

# a @ b of two 2-D arrays, for the basis products of a forward pass and its VJP
Products = Callable[[NDArray[Any], NDArray[Any]], NDArray[Any]]
if TYPE_CHECKING:
    from ..model.posed import PosedMeshes

SHAPE_SPACE_DIM, EXPRESSION_SPACE_DIM = 300, 100  # smplx's SMPL-X and FLAME shapedirs
# the shape columns, then the most expression columns, smplx takes from a shapedirs with fewer
# than 400 columns (SMPLX: 10, then up to 100; FLAME: 10, then 10)
_FEW_COLUMNS = {"SMPL-X": (10, EXPRESSION_SPACE_DIM), "FLAME": (10, 10)}
CORES = {"betas": 1, "pose": 2, "transl": 1, "expression": 1}  # core dimensions of each argument


def _check_shape(name: str, a: NDArray[Any], want: Tuple[Optional[int], ...]) -> None:
    """ValueError naming the key when ``a`` does not have shape ``want`` (None = any)."""
    if a.ndim != len(want) or any(w is not None and s != w for s, w in zip(a.shape, want)):
        pretty = "(" + ", ".join("?" if w is None else str(w) for w in want) + ")"
        raise BodyModelError(f"{name} must have shape {pretty}, got {a.shape}")


def _sparse_influences(weights: NDArray[Any]) -> Tuple[NDArray[Any], NDArray[Any]]:
    """(V, J) dense weights -> joints (V, K) and weights (V, K) keeping every non-zero (K = the
    largest number of non-zeros of a vertex).  Rows with fewer are padded with weight 0 and
    joint k in slot k, not with the "no influence" index -1: the same sum (0 M_k adds exact
    zeros) and no branch per slot in the skinning loop (4.4x faster LBS on SMPL-sized batches,
    where the number of influences varies from vertex to vertex).  One joint per slot rather
    than joint 0 for all: the skinning VJP's zero updates then go to different matrices, not
    all into M_0's cotangent one after the other (a chain of dependent stores).  uint8 indices
    when J <= 256."""
    nz = weights != 0
    K = max(int(nz.sum(axis=1).max(initial=0)), 1)
    order = np.argsort(~nz, axis=1, kind="stable")[:, :K]    # non-zero columns first
    keep = np.take_along_axis(nz, order, axis=1)
    pad = np.arange(K) % weights.shape[1]                    # joint k in padded slot k
    j = np.where(keep, order, pad).astype(np.uint8 if weights.shape[1] <= 256 else np.int32)
    return j, np.where(keep, np.take_along_axis(weights, order, axis=1), 0)


def _transpose_into(dst: NDArray[Any], src: NDArray[Any]) -> None:
    """dst[:] = src.T in column blocks (a cache-friendly transpose: 4x faster at SMPL-X size)."""
    for i in range(0, src.shape[0], 512):
        dst[:, i:i + 512] = src[i:i + 512].T


class BodyModel:
    """An SMPL / SMPL+H / SMPL-X / MANO / FLAME model from its arrays (``skinkit.load_body_model``
    reads them from the files the authors distribute).

    Attributes
    ----------
    kind : str
        "SMPL", "SMPL+H", "SMPL-X", "MANO" or "FLAME" (from the joint count 24, 52, 55, 16, 5).
    num_joints, num_vertices, num_betas, num_expression : int
        ``num_expression`` is 0 unless SMPL-X or FLAME.
    joint_names : tuple of str, the joints in the model's order (as smplx.joint_names; FLAME's
        global, neck, jaw, left_eye, right_eye as smplx.FLAME concatenates its poses).
    parents : (J,) int32, -1 at the root.
    faces : (F, 3) int64 vertex indices.
    v_template : (V, 3); shapedirs (V, 3, num_betas); exprdirs (V, 3, num_expression);
        posedirs (V, 3, P) with P = 9 (J - 1); J_regressor (J, V) dense; weights (V, J): the
        file's arrays in ``dtype`` (the first four are read-only views of one basis matrix).
    dtype : numpy.float32 or numpy.float64, the precision of every computation.
    """


    def __init__(self, arrays: Mapping[str, ArrayLike], dtype: DTypeLike = np.float64,
                 source: str = "<arrays>") -> None:
        dtype = float_dtype(dtype)
        a = {k: np.asarray(v) for k, v in arrays.items()}
        try:
            self._validate(a)
        except BodyModelError as e:
            raise BodyModelError(f"{source}: {e}") from None
        self.dtype = dtype
        V, J, P = self.num_vertices, self.num_joints, self._P
        S, E, e0 = self.num_betas, self.num_expression, self._expr_start
        sd, pd = a["shapedirs"], a["posedirs"]
        # the basis: rows [shape S-1 .. 0, template, pose 0 .. P-1, expression 0 .. E-1], each a
        # (V, 3) displacement flattened; shapedirs, posedirs and exprdirs are views of it
        basis = np.empty((S + 1 + P + E, 3 * V), dtype)
        sd2 = sd.reshape(3 * V, -1)
        _transpose_into(basis[:S], sd2[:, S - 1::-1] if S else sd2[:, :0])
        basis[S] = a["v_template"].reshape(3 * V)
        _transpose_into(basis[S + 1:S + 1 + P], pd.reshape(3 * V, P))
        _transpose_into(basis[S + 1 + P:], sd2[:, e0:e0 + E])
        basis.flags.writeable = False
        self._basis = basis
        self.shapedirs = basis[S - 1::-1].T.reshape(V, 3, S) if S else basis[:0].T.reshape(V, 3, 0)
        self.v_template = basis[S].reshape(V, 3)
        self.posedirs = basis[S + 1:S + 1 + P].T.reshape(V, 3, P)
        self.exprdirs = basis[S + 1 + P:].T.reshape(V, 3, E)
        jr = a["J_regressor"].astype(np.float64)
        self.J_regressor = jr.astype(dtype)
        self.weights = a["weights"].astype(dtype)
        self.faces = a["f"].astype(np.int64)
        w64 = a["weights"].astype(np.float64)
        self._influences = tuple(x.astype(dtype) if x.dtype.kind == "f" else x
                                 for x in _sparse_influences(w64))
        # weights summing to 1 (to rounding): transl joins the skinning matrices' translation,
        # sum_k w_k (M_k v + transl) = LBS(v) + transl, which saves a pass over the vertices
        self._fold_transl = bool(np.abs(w64.sum(axis=1) - 1).max(initial=0)
                                 <= 4 * np.finfo(dtype).eps)
        # the same rows regressed to joints (pose rows give none: joints come from v_shaped)
        jsd = (jr @ np.asarray(sd.reshape(V, -1), np.float64)).reshape(J, 3, -1)
        jb = np.zeros((S + 1 + P + E, J, 3))
        jb[:S] = jsd[:, :, S - 1::-1].transpose(2, 0, 1) if S else 0
        jb[S] = jr @ a["v_template"].astype(np.float64)
        jb[S + 1 + P:] = jsd[:, :, e0:e0 + E].transpose(2, 0, 1)
        self._joint_basis = jb.reshape(len(jb), 3 * J).astype(dtype)

    def _validate(self, a: Dict[str, NDArray[Any]]) -> None:
        v = a["v_template"]
        _check_shape("v_template", v, (None, 3))
        V = v.shape[0]
        jr = a["J_regressor"]
        _check_shape("J_regressor", jr, (None, V))
        J = jr.shape[0]
        if J not in KINDS:
            known = ", ".join(f"{n} ({k.name})" for n, k in KINDS.items())
            raise BodyModelError(f"J_regressor has {J} joints; a SMPL-family model has {known}")
        self.kind, self.num_vertices, self.num_joints = KINDS[J].name, V, J
        self.joint_names = KINDS[J].joints
        _check_shape("shapedirs", a["shapedirs"], (V, 3, None))
        self._P = 9 * (J - 1)
        _check_shape("posedirs", a["posedirs"], (V, 3, self._P))
        _check_shape("weights", a["weights"], (V, J))
        _check_shape("kintree_table", a["kintree_table"], (2, J))
        _check_shape("f", a["f"], (None, 3))
        cols = a["shapedirs"].shape[2]
        if self.kind in _FEW_COLUMNS and cols >= SHAPE_SPACE_DIM + EXPRESSION_SPACE_DIM:
            self.num_betas, self._expr_start = SHAPE_SPACE_DIM, SHAPE_SPACE_DIM
            self.num_expression = EXPRESSION_SPACE_DIM
        elif self.kind in _FEW_COLUMNS:   # smplx: 10 shape columns, then expression columns
            shape, most = _FEW_COLUMNS[self.kind]
            self.num_betas = self._expr_start = min(cols, shape)
            self.num_expression = min(cols - self.num_betas, most)
        else:
            self.num_betas, self._expr_start = min(cols, SHAPE_SPACE_DIM), 0
            self.num_expression = 0
        table = np.asarray(a["kintree_table"][0])
        if table.dtype.kind == "f" and not (np.isfinite(table[1:]).all()
                                            and (table[1:] == np.round(table[1:])).all()):
            bad = 1 + int(np.flatnonzero(~(np.isfinite(table[1:])
                                           & (table[1:] == np.round(table[1:]))))[0])
            raise BodyModelError(f"kintree_table[0, {bad}] = {table[bad]} is not a joint index "
                                 f"(an integer 0..{J - 1})")
        with np.errstate(invalid="ignore"):    # the root's entry (any value) is not read
            p = table.astype(np.int64)
        p[0] = -1                                   # the root's entry is 2**32 - 1 in the files
        if ((p < -1) | (p >= J)).any():
            bad = int(np.flatnonzero((p < -1) | (p >= J))[0])
            raise BodyModelError(f"kintree_table[0, {bad}] = {p[bad]} is not a joint index "
                                 f"(0..{J - 1})")
        self.parents = p.astype(np.int32)
        try:  # the kernel's own check: no joint its own ancestor
            _core.rigid_forward_kinematics(self.parents, np.zeros((J, 3)), np.zeros((J, 4)))
        except ValueError as e:
            raise BodyModelError(f"kintree_table[0] (the parents): {e}") from None
        f = a["f"]
        if f.dtype.kind not in "iu" or (f.size and (f.min() < 0 or f.max() >= V)):
            raise BodyModelError(f"f must hold integer vertex indices 0..{V - 1}")


    # ------------------------------------------------------------------ inputs

    def _inputs(self, betas: Optional[Input], pose: Optional[Input], transl: Optional[Input],
                expression: Optional[Input]
                ) -> Tuple[Dict[str, NDArray[Any]], Tuple[int, ...], int]:
        """The arguments as (N, ...) arrays of the model's dtype, and the batch shape."""
        J, dt = self.num_joints, self.dtype
        given = {}
        for (name, core), x in zip(CORES.items(), (betas, pose, transl, expression)):
            if x is not None:
                x = _asarray(x)
                if x.dtype.kind not in "iuf":
                    raise TypeError(f"{name} must be a real number array, got dtype {x.dtype}")
                if x.ndim < core:
                    raise ValueError(f"{name} must have at least {core} dimension(s), got shape "
                                     f"{x.shape}")
                given[name] = x.astype(dt, copy=False)
        limits = {"betas": self.num_betas, "expression": self.num_expression}
        for name, lim in limits.items():
            if name in given and given[name].shape[-1] > lim:
                raise ValueError(f"{name} must have shape (..., S) with S <= {lim} for this "
                                 f"{self.kind} model, got {given[name].shape}")
        if "pose" in given and given["pose"].shape[-2:] != (J, 3):
            raise ValueError(f"pose must have shape (..., {J}, 3) (axis-angle per joint, joint 0 "
                             f"the global orientation), got {given['pose'].shape}")
        if "transl" in given and given["transl"].shape[-1] != 3:
            raise ValueError(f"transl must have shape (..., 3), got {given['transl'].shape}")
        try:
            batch = np.broadcast_shapes(*(x.shape[:x.ndim - CORES[k]] for k, x in given.items()))
        except ValueError:
            raise ValueError("the batch shapes of " + ", ".join(
                f"{k} {x.shape}" for k, x in given.items()) + " do not broadcast") from None
        N = int(np.prod(batch))
        flat = {k: np.broadcast_to(x, batch + x.shape[x.ndim - CORES[k]:]).reshape(
                    (N,) + x.shape[x.ndim - CORES[k]:]) for k, x in given.items()}
        return flat, batch, N

    # ------------------------------------------------------------------ forward

    def _forward(self, flat: Dict[str, NDArray[Any]], N: int, threads: Optional[int],
                 products: Optional[Products] = None,
                 out: Optional[Tuple[NDArray[Any], NDArray[Any]]] = None,
                 workspace: Optional[Workspace] = None
                 ) -> Tuple[NDArray[Any], NDArray[Any], Dict[str, Any]]:
        """Steps 1-5 on flat (N, ...) inputs; returns the outputs and what the VJP reuses.
        ``products(a, b)``: a @ b for the basis products (None: NumPy's, its BLAS on at most
        ``threads`` threads); ``out``: (N, V, 3) and (N, J, 3) arrays for the outputs;
        ``workspace``: where the temporaries come from (None: new arrays)."""
        J, V, dt = self.num_joints, self.num_vertices, self.dtype
        ws = Workspace() if workspace is None else workspace
        S = flat["betas"].shape[1] if "betas" in flat else 0
        E = flat["expression"].shape[1] if "expression" in flat else 0
        pose = flat.get("pose")
        pose = np.zeros((N, J, 3), dt) if pose is None else np.ascontiguousarray(pose)
        q = quat_from_rotvec(pose, out=ws.array("q", (N, J, 4), dt), threads=threads)
        R = quat_to_matrix(q, out=ws.array("R", (N, J, 3, 3), dt), threads=threads)
        P = self._P
        lo = self.num_betas - S                           # the block of basis rows used
        c = ws.array("c", (N, S + 1 + P + E), dt)
        if S:
            c[:, :S] = flat["betas"][:, ::-1]
        c[:, S] = 1
        feat = c[:, S + 1:S + 1 + P].reshape(N, J - 1, 3, 3)
        np.subtract(R[:, 1:], np.eye(3, dtype=dt), out=feat)
        if E:
            c[:, S + 1 + P:] = flat["expression"]
        rows = slice(lo, lo + S + 1 + P + E)
        # in the rest pose the pose features are 0: the corrective rows (most of the basis) are
        # left out of the products
        used = slice(None) if "pose" in flat else np.r_[0:S + 1, S + 1 + P:S + 1 + P + E]
        mm = _bounded(threads, products)
        v_posed = mm(c[:, used], self._basis[rows][used],
                     ws.array("v_posed", (N, 3 * V), dt)).reshape(N, V, 3)
        x = mm(c[:, used], self._joint_basis[rows][used], ws.array("x", (N, 3 * J), dt)
               ).reshape(N, J, 3)
        Q, t = rigid_forward_kinematics(self.parents, x, q, threads=threads,
                                        out=(ws.array("Q", (N, J, 4), dt),
                                             ws.array("t", (N, J, 3), dt)))
        A = quat_to_matrix(Q, out=ws.array("A", (N, J, 3, 3), dt), threads=threads)
        transl = flat.get("transl")
        fold = transl is not None and self._fold_transl
        G = ws.array("G", (N, J, 4, 4), dt)
        G[..., :3, :3] = A
        G[..., :3, 3] = t
        if fold and transl is not None:
            G[..., :3, 3] += transl[:, None, :]
        G[..., 3, :3] = 0
        G[..., 3, 3] = 1
        lj, lw = self._influences
        verts = linear_blend_skinning(vertices=v_posed, joints=lj, weights=lw, skinning_matrices=G,
                                      out=None if out is None else out[0], threads=threads)
        joints = np.add(np.matmul(A, x[..., None])[..., 0], G[..., :3, 3],
                        out=None if out is None else out[1])
        if transl is not None and not fold:
            verts += transl[:, None, :]
            joints += transl[:, None, :]
        saved = dict(pose=pose, q=q, x=x, Q=Q, A=A, G=G, v_posed=v_posed, rows=rows, S=S, E=E,
                     fold=fold, transl=transl is not None)
        return verts, joints, saved

    def forward(self, betas: Optional[Input] = None, pose: Optional[Input] = None,
                transl: Optional[Input] = None, expression: Optional[Input] = None,
                threads: Optional[int] = None,
                out: Optional[Tuple[NDArray[Any], NDArray[Any]]] = None,
                workspace: Optional[Workspace] = None) -> Tuple[NDArray[Any], NDArray[Any]]:
        """Posed vertices and joints.

        Parameters
        ----------
        betas : (..., S) shape coefficients, S <= num_betas (missing ones are 0); None for 0.
        pose : (..., J, 3) axis-angle rotation (radians) of every joint relative to its parent,
            joint 0 the global orientation; used as given (no hand PCA or pose mean); None for
            the rest pose.
        transl : (..., 3) translation added to every vertex and joint; None for 0.
        expression : (..., E) SMPL-X or FLAME expression coefficients, E <= num_expression
            (the shapedirs columns from 300 on, as smplx's SMPLX and FLAME); None for 0.
        threads : int or None, the skinkit kernels' threads=, also the threads of the BLAS
            products (fixed blocks, one BLAS thread each: the same bits for any thread count
            and any concurrent callers; skinkit.kernels._blas).
        out : (vertices, joints), optional
            C-contiguous, writeable arrays of the model's dtype, shapes (..., V, 3) and
            (..., J, 3), that the results are written into (and returned); the same bits as
            without.
        workspace : skinkit.body.Workspace, optional
            Where the pass's temporaries come from (about 2.2 times the vertices' bytes),
            kept for the next call: a loop over batches then allocates nothing after its first
            pass (with ``out``).  None: new arrays every call.

        Returns
        -------
        vertices (..., V, 3), joints (..., J, 3) in the model's dtype, the batch shape ``...``
        the broadcast of the arguments'.  Equal to smplx.lbs.lbs's (vertices, J_transformed)
        plus transl, except that smplx adds 1e-8 to the rotation vectors (here exact).

        Raises
        ------
        ValueError naming the argument for a wrong shape, or ``out`` of a wrong shape or
        layout or overlapping an argument; TypeError for a non-numeric dtype, or an ``out``
        that is not a pair of NumPy arrays of the model's dtype.
        """
        flat, batch, N = self._inputs(betas, pose, transl, expression)
        outs = None if out is None else self._outputs(out, batch, N, flat)
        with one_blas_thread():     # every BLAS call of the pass (skinkit.kernels._blas)
            verts, joints, _ = self._forward(flat, N, threads, out=outs, workspace=workspace)
        return verts.reshape(batch + verts.shape[1:]), joints.reshape(batch + joints.shape[1:])

    def _outputs(self, out: Tuple[NDArray[Any], NDArray[Any]], batch: Tuple[int, ...], N: int,
                 flat: Dict[str, NDArray[Any]]) -> Tuple[NDArray[Any], NDArray[Any]]:
        """``forward``'s ``out`` as (N, V, 3) and (N, J, 3) views, once checked."""
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"out must be a pair (vertices, joints) of arrays, got "
                            f"{type(out).__name__}")
        views = []
        for name, a, core in (("vertices", out[0], (self.num_vertices, 3)),
                              ("joints", out[1], (self.num_joints, 3))):
            if not isinstance(a, np.ndarray):
                raise TypeError(f"out {name} must be a NumPy array, got {type(a).__name__}")
            if a.dtype != self.dtype:
                raise TypeError(f"out {name} must have the model's dtype {np.dtype(self.dtype)}, "
                                f"got {a.dtype}")
            if a.shape != batch + core or not a.flags.c_contiguous or not a.flags.writeable:
                raise ValueError(f"out {name} must be a C-contiguous, writeable array of shape "
                                 f"{batch + core}, got shape {a.shape}"
                                 f"{'' if a.flags.c_contiguous else ', not C-contiguous'}"
                                 f"{'' if a.flags.writeable else ', read-only'}")
            for k, x in flat.items():
                if np.may_share_memory(a, x):
                    raise ValueError(f"out {name} overlaps the memory of {k}")
            views.append(a.reshape((N,) + core))
        if np.may_share_memory(views[0], views[1]):
            raise ValueError("out vertices and joints overlap")
        return views[0], views[1]

    __call__ = forward

    def pose_blocks(self, betas: Optional[Input] = None, pose: Optional[Input] = None,
                    transl: Optional[Input] = None, expression: Optional[Input] = None,
                    frames: Optional[int] = None,
                    threads: Optional[int] = None) -> Iterator[PosedMeshes]:
        """``forward`` over a motion block by block, holding one block of posed meshes at a time.

        Parameters
        ----------
        betas, pose, transl, expression
            As for ``forward``, each either per frame, with a leading frame axis of length T
            (betas (T, S), pose (T, J, 3), transl (T, 3), expression (T, E)), or one value for
            every frame (betas (S,), pose (J, 3), ...).
        frames : int, optional
            Frames per block (> 0); default ``skinkit.model.pose.BLOCK_FRAMES``.
        threads : int or None, as for ``forward``.

        Yields
        ------
        PosedMeshes
            ``positions["body"]`` (B, V, 3), ``joints`` (B, J, 3) and ``times`` the frame
            indices (B,) (float64), for frames ``[i, i + frames)`` in order; together the
            values of one ``forward`` call, to rounding (BLAS blocks the blend-shape product by
            the batch's size).  One frame when no argument has a frame axis.

        Raises
        ------
        ValueError
            Frame axes of different lengths, more than one batch axis, ``frames`` not > 0;
            while iterating, as ``forward``.
        """
        import operator

        from ..model.pose import BLOCK_FRAMES
        from ..model.posed import PosedMeshes

        given = {k: _asarray(v) for k, v in zip(CORES, (betas, pose, transl, expression))
                 if v is not None}
        framed = {k: v for k, v in given.items() if v.ndim > CORES[k]}
        if any(v.ndim > CORES[k] + 1 for k, v in framed.items()):
            raise ValueError("pose_blocks takes one frame axis, got " + ", ".join(
                f"{k} {v.shape}" for k, v in framed.items()))
        if len({len(v) for v in framed.values()}) > 1:
            raise ValueError("the frame axes differ: " + ", ".join(
                f"{k} {v.shape}" for k, v in framed.items()))
        count = len(next(iter(framed.values()))) if framed else 1
        frames = BLOCK_FRAMES if frames is None else operator.index(frames)
        if frames <= 0:
            raise ValueError(f"frames must be > 0, got {frames}")

        def blocks() -> Iterator[PosedMeshes]:
            workspace = Workspace()         # the temporaries of one block reused by the next
            for start in range(0, count, frames):
                part = {k: v[start:start + frames] if k in framed else v
                        for k, v in given.items()}
                verts, joints = self.forward(part.get("betas"), part.get("pose"),
                                             part.get("transl"), part.get("expression"),
                                             threads=threads, workspace=workspace)
                yield PosedMeshes(np.arange(start, min(count, start + frames), dtype=np.float64),
                                  {"body": verts.reshape(-1, self.num_vertices, 3)}, {},
                                  joints.reshape(-1, self.num_joints, 3))
        return blocks()

    # ------------------------------------------------------------------ gradients

    def forward_vjp(self, betas: Optional[Input] = None, pose: Optional[Input] = None,
                    transl: Optional[Input] = None, expression: Optional[Input] = None,
                    threads: Optional[int] = None
                    ) -> Tuple[Tuple[NDArray[Any], NDArray[Any]],
                               Callable[..., Tuple[Optional[NDArray[Any]], ...]]]:
        """``forward`` and its vector-Jacobian product, in the style of ``jax.vjp``.

        Returns ``(vertices, joints), vjp`` where ``vjp(g_vertices, g_joints=None)`` returns
        ``(g_betas, g_pose, g_transl)`` (and ``g_expression`` last for an SMPL-X or FLAME
        model): the gradients of ``sum(g_vertices * vertices) + sum(g_joints * joints)`` with
        respect to each argument, in the argument's shape (summed over dimensions it was
        broadcast along), or None for an argument that was not given.  g_vertices may be None (0).

        The VJP is analytic: C kernels (skinkit.kernels.gradients) for skinning, rigid FK, quaternion
        to matrix and axis-angle to quaternion, and the transposed BLAS product for the blend
        shapes.
        """
        args = dict(betas=betas, pose=pose, transl=transl, expression=expression)
        flat, batch, N = self._inputs(betas, pose, transl, expression)
        with one_blas_thread():
            verts, joints, saved = self._forward(flat, N, threads)
        shapes = {k: np.shape(_asarray(v)) for k, v in args.items() if v is not None}
        V, J = self.num_vertices, self.num_joints

        def vjp(g_vertices: Optional[Input],
                g_joints: Optional[Input] = None) -> Tuple[Optional[NDArray[Any]], ...]:
            gv = _cotangent("g_vertices", g_vertices, batch, (V, 3), N, self.dtype)
            gj = _cotangent("g_joints", g_joints, batch, (J, 3), N, self.dtype)
            with one_blas_thread():
                g = self._backward(saved, gv, gj, N, threads)
            out = []
            for k in ("betas", "pose", "transl") + (("expression",) if self.num_expression
                                                   else ()):
                out.append(None if k not in shapes or (gk := g[k]) is None else
                           _unbroadcast(gk.reshape(batch + gk.shape[1:]), shapes[k]))
            return tuple(out)

        return (verts.reshape(batch + (V, 3)), joints.reshape(batch + (J, 3))), vjp

    def _backward(self, s: Dict[str, Any], gv: NDArray[Any], gj: NDArray[Any], N: int,
                  threads: Optional[int], products: Optional[Products] = None
                  ) -> Dict[str, Optional[NDArray[Any]]]:
        """The cotangents of the inputs from those of the outputs; ``products`` as
        ``_forward``'s."""
        J, dt, P = self.num_joints, self.dtype, self._P
        S = s["S"]
        lj, lw = self._influences
        g_vp, g_G = gradients.linear_blend_skinning_vjp(s["v_posed"], lj, lw, s["G"], gv,
                                                        threads=threads)
        g_A = np.ascontiguousarray(g_G[..., :3, :3])
        g_t = np.ascontiguousarray(g_G[..., :3, 3])
        x, A = s["x"], s["A"]
        # posed joints A x + t
        g_A += gj[..., :, None] * x[..., None, :]
        g_t += gj
        g_x = np.matmul(np.swapaxes(A, -1, -2), gj[..., None])[..., 0]
        g_Q = gradients.quat_to_matrix_vjp(s["Q"], g_A, threads=threads)
        g_x2, g_q = gradients.rigid_forward_kinematics_vjp(self.parents, x, s["q"], g_Q, g_t,
                                                           threads=threads)
        g_x += g_x2
        rows = s["rows"]
        # (basis g^T)^T rather than g basis^T: OpenBLAS runs this orientation 10-20% faster
        mm = _bounded(threads, products)
        g_c = mm(self._basis[rows], g_vp.reshape(N, -1).T, None).T
        g_c += mm(g_x.reshape(N, -1), self._joint_basis[rows].T, None)
        g_R = np.zeros((N, J, 3, 3), dt)
        g_R[:, 1:] = g_c[:, S + 1:S + 1 + P].reshape(N, J - 1, 3, 3)
        g_q += gradients.quat_to_matrix_vjp(s["q"], g_R, threads=threads)
        # transl: in the skinning matrices (fold) or added to vertices and joints afterwards
        g_tr = None if not s["transl"] else (g_t.sum(axis=1) if s["fold"] else
                                             gv.sum(axis=1) + gj.sum(axis=1))
        return {"betas": g_c[:, :S][:, ::-1],
                "pose": gradients.quat_from_rotvec_vjp(s["pose"], g_q, threads=threads),
                "transl": g_tr, "expression": g_c[:, S + 1 + P:]}

    def __repr__(self) -> str:
        return (f"<BodyModel {self.kind}: {self.num_vertices} vertices, {self.num_joints} "
                f"joints, {self.num_betas} betas, {self.num_expression} expression, "
                f"{np.dtype(self.dtype).name}>")

    def _repr_html_(self) -> str:
        sizes = table(("type", "vertices", "joints", "betas", "expression", "pose correctives",
                       "faces", "dtype"),
                      [(self.kind, self.num_vertices, self.num_joints, self.num_betas,
                        self.num_expression, self.posedirs.shape[-1], len(self.faces),
                        np.dtype(self.dtype).name)], "Body model")
        joints = table(("joint", "parent"), [(j, int(p)) for j, p in enumerate(self.parents)],
                       "Kinematic tree")
        return f"<div>{sizes}{joints}</div>"


def _bounded(threads: Optional[int], products: Optional[Products]
             ) -> Callable[[NDArray[Any], NDArray[Any], Optional[NDArray[Any]]], NDArray[Any]]:
    """``mm(a, b, out)``: ``products(a, b)`` (which makes its own result), or NumPy's matmul in
    fixed blocks on one BLAS thread each, spread over ``threads`` threads, into ``out`` (None:
    a new array): the same bits for any thread count (skinkit.kernels._blas)."""
    if products is not None:
        return lambda a, b, out: products(a, b)
    return lambda a, b, out: matmul(a, b, threads, out)


def _unbroadcast(g: NDArray[Any], shape: Tuple[int, ...]) -> NDArray[Any]:
    """Sum ``g`` over the leading and length-1 dimensions it gained by broadcasting to its
    shape from ``shape``: the cotangent of an argument of that shape."""
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=ones, keepdims=True) if ones else g


def _cotangent(name: str, g: Optional[Input], batch: Tuple[int, ...], core: Tuple[int, ...],
               N: int, dtype: np.dtype[Any]) -> NDArray[Any]:
    """A cotangent as (N, *core) of the model's dtype (zeros for None)."""
    if g is None:
        return np.zeros((N,) + core, dtype)
    g = _asarray(g)
    if g.shape != batch + core:
        raise ValueError(f"{name} must have the shape of the output, {batch + core}, got "
                         f"{g.shape}")
    return np.ascontiguousarray(g.reshape((N,) + core), dtype=dtype)


__all__ = ["BodyModel"]
