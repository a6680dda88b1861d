"""Type stubs for ``skinkit._core``, the NumPy C-API binding of the C kernels (src/bind_table.c).

Every argument is positional only, as the binding parses ``*args``.  ``out`` takes None, an
array, or (kernels with several results) a tuple of arrays or None.  Inputs take anything NumPy
converts (arrays, sequences, ``__array__``, the buffer protocol) and objects with ``__dlpack__``
(PyTorch CPU tensors, JAX arrays); ``out`` arguments take a NumPy array or None.  Results are NumPy
arrays of float32 or float64 (see ``skinkit.kernels`` for the conventions).
"""
from typing import Any, Dict, Literal, Optional, Protocol, Tuple, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

class _SupportsDLPack(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...

_Input = Union[ArrayLike, _SupportsDLPack]
_Float = NDArray[np.floating[Any]]
_Out = Optional[NDArray[np.floating[Any]]]
_Threads = Optional[int]

# the operands of every kernel descriptor: name -> ((operand, "(..., J, 4)", "in" | "optional" |
# "out"), ...); skinkit.kernels and tests/test_binding_table.py read it
_shapes: Dict[str, Tuple[Tuple[str, str, str], ...]]

# -- elementwise quaternion kernels: (..., core) -> (..., core)

def quat_multiply(a: _Input, b: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_conjugate(q: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_inverse(q: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_normalize(q: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_rotate(q: _Input, v: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_to_matrix(q: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_from_matrix(m: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def quat_from_rotvec(rotvec: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...
def slerp(q0: _Input, q1: _Input, t: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...

# -- hierarchy and matrices

def forward_kinematics(parents: _Input, rotations: _Input, translations: _Input,
                       scales: Optional[_Input] = None, out: _Out = None,
                       threads: _Threads = None, /) -> _Float: ...
def rigid_forward_kinematics(parents: _Input, rest_positions: _Input, rotations: _Input,
                             out: Optional[Tuple[_Out, _Out]] = None, threads: _Threads = None, /
                             ) -> Tuple[_Float, _Float]: ...
def skinning_matrices(world: _Input, inverse_bind: _Input, out: _Out = None,
                      threads: _Threads = None, /) -> _Float: ...
def matrix_inverse(matrices: _Input, out: _Out = None, threads: _Threads = None, /) -> _Float: ...

# -- skinning: positions, or (positions, normals) when normals are given

@overload
def linear_blend_skinning(vertices: _Input, joints: _Input, weights: _Input,
                          skinning_matrices: _Input, normals: None = None, out: _Out = None,
                          threads: _Threads = None, /) -> _Float: ...
@overload
def linear_blend_skinning(vertices: _Input, joints: _Input, weights: _Input,
                          skinning_matrices: _Input, normals: _Input,
                          out: Optional[Tuple[_Out, _Out]] = None, threads: _Threads = None, /
                          ) -> Tuple[_Float, _Float]: ...

# -- vector-Jacobian products (body models): cotangents of the forward kernels' inputs

def quat_to_matrix_vjp(q: _Input, g: _Input, out: _Out = None, threads: _Threads = None, /
                       ) -> _Float: ...
def quat_from_rotvec_vjp(rotvec: _Input, g: _Input, out: _Out = None,
                             threads: _Threads = None, /) -> _Float: ...
def rigid_forward_kinematics_vjp(parents: _Input, rest_positions: _Input, rotations: _Input,
                                 g_rotations: _Input, g_translations: _Input,
                                 out: Optional[Tuple[_Out, _Out]] = None,
                                 threads: _Threads = None, /) -> Tuple[_Float, _Float]: ...
def linear_blend_skinning_vjp(vertices: _Input, joints: _Input, weights: _Input,
                              skinning_matrices: _Input, g: _Input,
                              out: Optional[Tuple[_Out, _Out]] = None, threads: _Threads = None, /
                              ) -> Tuple[_Float, _Float]: ...
def linear_blend_skinning_weights_vjp(vertices: _Input, joints: _Input, weights: _Input,
                                      skinning_matrices: _Input, g: _Input, out: _Out = None,
                                      threads: _Threads = None, /) -> _Float: ...

@overload
def _dual_quaternion_skinning(vertices: _Input, joints: _Input, weights: _Input,
                              dual_quaternions: _Input, normals: None = None, out: _Out = None,
                              threads: _Threads = None, /) -> _Float: ...
@overload
def _dual_quaternion_skinning(vertices: _Input, joints: _Input, weights: _Input,
                              dual_quaternions: _Input, normals: _Input,
                              out: Optional[Tuple[_Out, _Out]] = None,
                              threads: _Threads = None, /) -> Tuple[_Float, _Float]: ...
def _skinning_dual_quaternions(skinning_matrices: _Input, out: _Out = None,
                               threads: _Threads = None, /) -> _Float: ...

# -- pose blending, (rotations, translations, scales); skinkit.blending takes tuples

_Pose = Tuple[_Float, _Float, _Float]
_PoseOut = Optional[Tuple[_Out, _Out, _Out]]
def _blend_poses(rotations: _Input, translations: _Input, scales: _Input, weights: _Input,
                 threshold: _Input, rest_rotations: Optional[_Input] = None,
                 rest_translations: Optional[_Input] = None,
                 rest_scales: Optional[_Input] = None, out: _PoseOut = None,
                 threads: _Threads = None, /) -> _Pose: ...
def _pose_delta(reference_rotations: _Input, reference_translations: _Input,
                reference_scales: _Input, rotations: _Input, translations: _Input,
                scales: _Input, out: _PoseOut = None, threads: _Threads = None, /) -> _Pose: ...
def _additive_pose(rotations: _Input, translations: _Input, scales: _Input,
                   delta_rotations: _Input, delta_translations: _Input, delta_scales: _Input,
                   weight: _Input, out: _PoseOut = None, threads: _Threads = None, /
                   ) -> _Pose: ...

# -- clip sampling: a clip table (skinkit.clip.ClipTable) sampled into ``out``; returns None

def sample_channels(table: Any, out_offset: NDArray[np.int64], out_stride: NDArray[np.int64],
                    times: NDArray[np.floating[Any]],
                    out: Union[NDArray[np.floating[Any]], Tuple[NDArray[np.floating[Any]], ...]],
                    threads: _Threads = None, /) -> None: ...
def prepare_clip(table: Any, /) -> NDArray[np.floating[Any]]: ...

# -- build information

def simd() -> Literal["avx512", "avx2", "baseline"]: ...
def default_threads() -> int: ...
