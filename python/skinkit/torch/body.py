"""``BodyModel``: an ``nn.Module`` with the forward arguments of smplx's SMPL, SMPL+H, SMPL-X
and MANO layers (smplx 0.1.28), computed by skinkit's body operator."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Union

import numpy as np
import torch
from numpy.typing import ArrayLike, NDArray
from torch import Tensor

from ..body import body_model as _body
from ..kernels._types import PathLike
from ..io import body as _io
from ..io.formats import format_of
from ..io.body import pkl as _pkl
from .body_op import ModelSet, body_forward
from .rotations import matrix_from_6d, rotvec_from_matrix

__all__ = ["BodyModel", "BodyOutput"]

# the pose arguments of each kind, in the joint order of the model files (smplx's full_pose)
POSE_PARTS = {
    "SMPL": (("global_orient", 1), ("body_pose", 23)),
    "SMPL+H": (("global_orient", 1), ("body_pose", 21), ("left_hand_pose", 15),
               ("right_hand_pose", 15)),
    "SMPL-X": (("global_orient", 1), ("body_pose", 21), ("jaw_pose", 1), ("leye_pose", 1),
               ("reye_pose", 1), ("left_hand_pose", 15), ("right_hand_pose", 15)),
    "MANO": (("global_orient", 1), ("hand_pose", 15)),
}
# hand PCA: argument -> (components key, mean key) in the model files
HAND_KEYS = {"left_hand_pose": ("hands_componentsl", "hands_meanl"),
             "right_hand_pose": ("hands_componentsr", "hands_meanr"),
             "hand_pose": ("hands_components", "hands_mean")}
# the buffers of the model's own arrays, from which the skinkit model is built
ARRAY_KEYS = ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table",
              "f")


@dataclass
class BodyOutput:
    """What ``BodyModel.forward`` returns (the fields of smplx's output that it computes).

    Attributes
    ----------
    vertices : Tensor (B, V, 3)
    joints : Tensor (B, J + X, 3)
        The model's J joints in smplx's order, then the X vertices of ``extra_vertex_ids``.
    full_pose : Tensor (B, 3 J) axis-angle (hand PCA expanded, hand mean added), or (B, J, 3, 3)
        rotation matrices when the pose was given as matrices or 6D.
    """
    vertices: Tensor
    joints: Tensor
    full_pose: Tensor


def _read(path: PathLike) -> Dict[str, NDArray[Any]]:
    """The model arrays of a file, and its hand PCA arrays when it has them."""
    arrays = _io.read_body_arrays(path)
    keys = [k for pair in HAND_KEYS.values() for k in pair]
    fmt = format_of(path)
    if fmt is not None and fmt.name == "npz":
        extra = _io.read_npz(path, keys)
    else:
        raw = _pkl.read_pickle(path)
        extra = {k: _pkl.to_array(raw[k], k) for k in keys if k in raw}
    arrays.update({k: np.asarray(v, np.float64) for k, v in extra.items()})
    return arrays


class BodyModel(torch.nn.Module):
    """An SMPL, SMPL+H, SMPL-X or MANO model as a ``torch.nn.Module`` that takes smplx's layer
    arguments: a drop-in for ``smplx.create(...)`` (``SMPLLayer``, ``SMPLHLayer``, ``SMPLXLayer``,
    ``MANOLayer``) on any device (``.to(device)`` moves its buffers: the C kernels and their
    analytic gradients on the CPU, plain torch and autograd of it on CUDA and elsewhere).

    Parameters
    ----------
    path : str, os.PathLike or dict
        A model file (.pkl or .npz, as ``skinkit.load_body_model``) or a dict of its arrays.
    dtype : torch.float32 or torch.float64
        Of the buffers (the model's arrays).  Computation runs in the inputs' dtype.
    use_pca : bool
        Hand poses (SMPL+H, SMPL-X, MANO) are ``num_pca_comps`` PCA coefficients (the file's
        ``hands_components*``) rather than 15 axis-angle rotations.
    num_pca_comps : int
        Number of hand PCA coefficients, 1..45.
    flat_hand_mean : bool
        False (as smplx) adds the file's mean hand pose (``hands_mean*``) to the hand poses.
    extra_vertex_ids : sequence of int, optional
        Vertices appended to ``joints`` (as smplx's ``VertexJointSelector``, e.g. finger tips).

    Raises
    ------
    skinkit.BodyModelError
        A file or array that is not a body model (the message names the key); a hand PCA or mean
        the options need but the file lacks.
    ValueError
        num_pca_comps out of range, an extra vertex id out of range.
    """

    v_template: Tensor          # buffers (registered in __init__), typed for mypy
    pose_mean: Tensor
    extra_vertex_ids: Tensor

    def __init__(self, path: Union[PathLike, Dict[str, ArrayLike]],
                 dtype: torch.dtype = torch.float32, use_pca: bool = False,
                 num_pca_comps: int = 6, flat_hand_mean: bool = False,
                 extra_vertex_ids: Optional[Sequence[int]] = None) -> None:
        super().__init__()
        arrays = dict(path) if isinstance(path, dict) else _read(path)
        source = "<arrays>" if isinstance(path, dict) else os.fspath(path)
        model = _body.BodyModel(arrays, dtype=np.float64, source=source)
        self.kind, self.source = model.kind, source
        self.num_betas, self.num_expression = model.num_betas, model.num_expression
        self.num_joints, self.num_vertices = model.num_joints, model.num_vertices
        self.use_pca, self.num_pca_comps = use_pca, int(num_pca_comps)
        if use_pca and not 1 <= self.num_pca_comps <= 45:
            raise ValueError(f"num_pca_comps must be in 1..45, got {num_pca_comps}")
        for k in ARRAY_KEYS:
            a = np.asarray(arrays[k])
            self.register_buffer(k, torch.from_numpy(a.astype(np.int64) if a.dtype.kind in "iub"
                                                     else a.astype(np.float64)).to(
                torch.int64 if a.dtype.kind in "iub" else dtype))
        mean = []
        for name, n in POSE_PARTS[self.kind]:
            m = np.zeros(3 * n)
            if name in HAND_KEYS:
                comps, means = HAND_KEYS[name]
                if use_pca:
                    self.register_buffer(name + "_components", torch.tensor(
                        self._need(arrays, comps)[:self.num_pca_comps], dtype=dtype))
                if not flat_hand_mean:
                    m = self._need(arrays, means).reshape(3 * n)
            mean.append(m)
        self.register_buffer("pose_mean", torch.tensor(np.concatenate(mean), dtype=dtype))
        ids = np.asarray([] if extra_vertex_ids is None else extra_vertex_ids, np.int64)
        if ids.size and (np.min(ids) < 0 or np.max(ids) >= self.num_vertices):
            raise ValueError(f"extra_vertex_ids must be vertex indices 0..{self.num_vertices - 1}"
                             f", got {np.min(ids)}..{np.max(ids)}")
        self.register_buffer("extra_vertex_ids", torch.from_numpy(ids))
        self.model_set = ModelSet(model)      # the skinkit model of the buffers
        if dtype != torch.float64:
            self._rebuild()
        self.register_load_state_dict_post_hook(  # type: ignore[no-untyped-call]  # unannotated
            self._rebuild)

    def _need(self, arrays: Mapping[str, ArrayLike], key: str) -> NDArray[np.float64]:
        if key not in arrays:
            raise _io.BodyModelError(f"{self.source}: missing key {key!r} (the hand PCA and mean "
                                     f"of the {self.kind} layers; or use flat_hand_mean=True and "
                                     "use_pca=False)")
        return np.asarray(arrays[key], np.float64)

    def extra_repr(self) -> str:
        return (f"{self.kind}: {self.num_vertices} vertices, {self.num_joints} joints, "
                f"{self.num_betas} betas, {self.num_expression} expression, "
                f"use_pca={self.use_pca}")

    # the skinkit model follows the buffers: rebuilt after a change of dtype (.to(), .double())
    # and load_state_dict() (built here, not in forward, so that forward holds no NumPy for
    # torch.compile to trace); a move to another device keeps it (the same values)
    def _apply(self, fn: Callable[[Tensor], Tensor], *args: Any, **kwargs: Any) -> BodyModel:
        dtype = self.v_template.dtype
        out: BodyModel = super()._apply(  # type: ignore[no-untyped-call]  # unannotated in torch
            fn, *args, **kwargs)
        if self.v_template.dtype != dtype:
            self._rebuild()
        return out

    def _rebuild(self, *_: object) -> None:
        if self.v_template.device.type == "meta":   # no values to read: the model set stays
            return
        arrays = {k: getattr(self, k).detach().cpu().numpy() for k in ARRAY_KEYS}
        dt = np.float64 if self.v_template.dtype == torch.float64 else np.float32
        self.model_set = ModelSet(_body.BodyModel(arrays, dtype=dt, source=self.source))

    def forward(self, betas: Optional[Tensor] = None, global_orient: Optional[Tensor] = None,
                body_pose: Optional[Tensor] = None, left_hand_pose: Optional[Tensor] = None,
                right_hand_pose: Optional[Tensor] = None, jaw_pose: Optional[Tensor] = None,
                leye_pose: Optional[Tensor] = None, reye_pose: Optional[Tensor] = None,
                expression: Optional[Tensor] = None, transl: Optional[Tensor] = None,
                hand_pose: Optional[Tensor] = None, pose2rot: bool = True,
                threads: Optional[int] = None, **unused: object) -> BodyOutput:
        """Posed vertices and joints, as smplx's layers compute them (exact rotations: smplx
        adds 1e-8 to each rotation vector).

        Parameters
        ----------
        betas : Tensor (B, S), S <= num_betas (the first S shape coefficients; the rest 0).
        global_orient, body_pose, left_hand_pose, right_hand_pose, jaw_pose, leye_pose,
        reye_pose, hand_pose (MANO) : Tensor or None (zero rotations)
            The rotations of the model's parts (see ``POSE_PARTS`` for each kind), n joints each:
            with ``pose2rot=True`` axis-angle (radians) (B, 3 n) or (B, n, 3); with
            ``pose2rot=False`` rotation matrices (B, n, 3, 3) or (B, 9 n), or 6D rotations
            (``rotations.matrix_from_6d``) (B, n, 6) or (B, 6 n).  With ``use_pca=True`` the
            hand poses are (B, num_pca_comps) PCA coefficients.
        expression : Tensor (B, E), E <= num_expression (SMPL-X).
        transl : Tensor (B, 3), added to vertices and joints.
        threads : int or None, the kernels' ``threads=`` (the basis products beside them run on
            torch's BLAS and intra-op threads, ``torch.get_num_threads()``).
        **unused
            smplx's other keywords (``return_verts``, ``return_full_pose``...) are accepted and
            have no effect: everything is returned.

        Returns
        -------
        BodyOutput
            vertices (B, V, 3), joints (B, J + X, 3), full_pose; in the inputs' dtype (float64
            in, float64 out on a float32 model).  B is 1 without inputs, else the largest
            batch of the arguments (others of batch 1 are broadcast).

        Raises
        ------
        ValueError
            An argument of the wrong shape (the message names it and the expected shapes).
        TypeError
            An argument the model kind does not have (``right_hand_pose`` for MANO), as Python
            says of an unexpected keyword (smplx-style code catches it to try another spelling).
        """
        given = dict(global_orient=global_orient, body_pose=body_pose,
                     left_hand_pose=left_hand_pose, right_hand_pose=right_hand_pose,
                     jaw_pose=jaw_pose, leye_pose=leye_pose, reye_pose=reye_pose,
                     hand_pose=hand_pose)
        parts = dict(POSE_PARTS[self.kind])
        for k, v in given.items():
            if v is not None and k not in parts:   # Python's error for an unexpected keyword
                raise TypeError(f"{k} is not an argument of a {self.kind} model (its pose "
                                f"arguments: {', '.join(parts)})")
        tensors = [t for t in (betas, expression, transl, *given.values()) if t is not None]
        dt = (torch.float64 if any(t.dtype == torch.float64 for t in tensors) else
              torch.float32) if tensors else self.v_template.dtype
        B = max([t.shape[0] for t in tensors] + [1])
        rot, mats = [], False
        for name, n in parts.items():
            x = given[name]
            if x is not None and self.use_pca and name in HAND_KEYS:
                comps = getattr(self, name + "_components").to(dt)
                if x.shape[-1] != comps.shape[0]:
                    raise ValueError(f"{name} must have shape (B, {comps.shape[0]}) (PCA "
                                     f"coefficients, num_pca_comps), got {tuple(x.shape)}")
                x = x.to(dt) @ comps
            part = self._rotations(name, x, n, B, dt, pose2rot)
            mats = mats or part.shape[-1] == 9
            rot.append(part)
        if mats:       # rotation matrices, as smplx's layers with pose2rot=False: no hand mean
            full = torch.cat([r if r.shape[-1] == 9 else _matrix(r) for r in rot], 1)
            pose = rotvec_from_matrix(full.reshape(full.shape[:2] + (3, 3)))
            full_pose = full.reshape(full.shape[:2] + (3, 3))
        else:
            full_pose = torch.cat(rot, 1).reshape(-1, 3 * self.num_joints) + self.pose_mean.to(dt)
            pose = full_pose.reshape(-1, self.num_joints, 3)
        v, j = body_forward(self.model_set, _rows(betas, B, dt), pose, _rows(transl, B, dt),
                            _rows(expression, B, dt) if self.num_expression else None,
                            threads=threads)
        if self.extra_vertex_ids.numel():
            j = torch.cat([j, v[:, self.extra_vertex_ids]], 1)
        return BodyOutput(vertices=v, joints=j, full_pose=full_pose)

    def _rotations(self, name: str, x: Optional[Tensor], n: int, B: int, dt: torch.dtype,
                   pose2rot: bool) -> Tensor:
        """One pose argument as (B, n, 3) axis-angle or (B, n, 9) matrices."""
        if x is None:
            return torch.zeros((B, n, 3), dtype=dt, device=self.v_template.device)
        x = x.to(dt)
        forms = {3: "axis-angle"} if pose2rot else {9: "rotation matrices", 6: "6D rotations"}
        per = x[0].numel() // n if x.ndim >= 2 and x.shape[0] else 0
        if per not in forms or x[0].numel() != per * n or (x.ndim == 4 and x.shape[-2:] != (3, 3)):
            want = " or ".join(f"(B, {k * n}) or (B, {n}, {k}) {f}" for k, f in forms.items())
            raise ValueError(f"{name} must have shape {want} (pose2rot={pose2rot}), got "
                             f"{tuple(x.shape)}")
        x = x.reshape(x.shape[0], n, per).expand(B, n, per)
        return matrix_from_6d(x).reshape(B, n, 9) if per == 6 else x


def _matrix(rotvec: Tensor) -> Tensor:
    """(B, n, 3) axis-angle -> (B, n, 9) rotation matrices (skinkit's operators)."""
    from .ops import quat_from_rotvec, quat_to_matrix
    return quat_to_matrix(quat_from_rotvec(rotvec)).reshape(rotvec.shape[:-1] + (9,))


def _rows(x: Optional[Tensor], B: int, dt: torch.dtype) -> Optional[Tensor]:
    return None if x is None else x.to(dt).expand(B, *x.shape[1:])
