"""Type stubs for ``skinkit._core``, the NumPy C-API binding of the C kernels (src/bind_table.c).

Every argument is positional only, as the binding parses ``*args``.  ``out`` takes None, an
array, or (kernels with several results) a tuple of arrays or None.  Inputs take anything NumPy
converts (arrays, sequences, ``__array__``, the buffer protocol) and objects with ``__dlpack__``
(PyTorch CPU tensors, JAX arrays); ``out`` arguments take a NumPy array or None.  Results are NumPy
arrays of float32 or float64 (see ``skinkit.kernels`` for the conventions).
"""
from os import PathLike
from typing import (Any, Callable, Dict, Literal, Optional, Sequence, Tuple, Type, TypeVar,
                    Union, overload)

import numpy as np
from numpy.typing import NDArray

from .kernels._generated import Float, Input, Out

# the operands of every kernel descriptor: name -> ((operand, "(..., J, 4)", "in" | "optional" |
# "out"), ...); skinkit.kernels and tests/test_binding_table.py read it
_shapes: Dict[str, Tuple[Tuple[str, str, str], ...]]
__version__: str   # SKINKIT_VERSION of src/skinkit.h

# -- clip sampling: a clip table (skinkit.model.clip.ClipTable) sampled into ``out``; returns None

def sample_channels(table: Any, out_offset: NDArray[np.int64], out_stride: NDArray[np.int64],
                    times: NDArray[np.floating[Any]],
                    out: Union[NDArray[np.floating[Any]], Tuple[NDArray[np.floating[Any]], ...]],
                    threads: Optional[int] = None, /) -> None: ...
def prepare_clip(table: Any, /) -> NDArray[np.floating[Any]]: ...

def quantize_codes(unit: NDArray[np.float64], widths: NDArray[np.uint8], per: int, /
                   ) -> bytes: ...
def rate_bounds(unit: NDArray[np.float64], widths: NDArray[np.uint8],
                ranges: NDArray[np.float64], per: int, row0: int, step: int,
                src: NDArray[np.float64], lever: NDArray[np.float64],
                dropped: NDArray[np.int32], rotation: bool, want: NDArray[np.uint8], /
                ) -> NDArray[np.float64]: ...
def unit_rotations(values: NDArray[np.float64], /
                   ) -> Tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]: ...
def rate_layout(values: NDArray[np.float64], ranges: NDArray[np.float64],
                extent: NDArray[np.float64], per: int, rates: NDArray[np.uint8], /
                ) -> Tuple[NDArray[np.float64], NDArray[np.uint8], NDArray[np.int64]]: ...
def track_bounds(src: NDArray[np.float64], keys: NDArray[np.float64],
                 constants: NDArray[np.float64], rest: NDArray[np.float64],
                 lever: NDArray[np.float64], dropped: Optional[NDArray[np.int32]],
                 rotation: bool, /) -> NDArray[np.float64]: ...
def shell_check(parents: NDArray[np.int32], order: NDArray[np.int32],
                rot: NDArray[np.float64], trans: NDArray[np.float64],
                scale: NDArray[np.float64], reference: NDArray[np.float64],
                shells: NDArray[np.float64], world: NDArray[np.float64],
                errors: NDArray[np.float64], start: int, count: int, limit: float, /
                ) -> Tuple[int, int, bool]: ...
def shell_refine(parents: NDArray[np.int32], order: NDArray[np.int32],
                 rot: NDArray[np.float64], trans: NDArray[np.float64],
                 scale: NDArray[np.float64], reference: NDArray[np.float64],
                 shells: NDArray[np.float64], world: NDArray[np.float64],
                 errors: NDArray[np.float64], limit: float,
                 tries: Sequence[Tuple[int, int, int, NDArray[np.float64], NDArray[np.float64],
                                       bool]], /) -> Tuple[int, bool]: ...
def subtree_reach(parents: NDArray[np.int32], size: NDArray[np.int64],
                  world: NDArray[np.float64], shell: float, /
                  ) -> Tuple[NDArray[np.float64], NDArray[np.float64]]: ...

def fill_rows(out: NDArray[np.floating[Any]], row: NDArray[np.floating[Any]],
              threads: Optional[int] = None, /) -> None: ...

_Player = TypeVar("_Player", bound="ClipPlayer")

class ClipPlayer:   # subclassed by skinkit.model.clip.Playback
    def __new__(cls: Type[_Player], table: Any, out_offset: NDArray[np.int64],
                out_stride: NDArray[np.int64], out: Tuple[NDArray[np.floating[Any]], ...],
                threads: Optional[int], duration: float, pose: Any,
                convert: Callable[[Any], Any], /) -> _Player: ...
    def sample(self, time: float) -> Any: ...

_CPlayer = TypeVar("_CPlayer", bound="CompressedPlayer")

class CompressedDecoder:
    def __new__(cls, tracks: NDArray[np.int64], key_times: NDArray[np.floating[Any]],
                ranges: NDArray[np.float32], bytes: NDArray[np.uint8],
                widths: NDArray[np.uint8], seg_bits: NDArray[np.int64], /
                ) -> "CompressedDecoder": ...
    def decode(self, out_stride: NDArray[np.int64], times: NDArray[np.floating[Any]],
               out: Tuple[NDArray[np.floating[Any]], ...], threads: Optional[int] = None,
               fill: Optional[Tuple[NDArray[Any], ...]] = None, /) -> None: ...

class CompressedPlayer:   # subclassed by skinkit.model.compressed_clip.CompressedPlayback
    def __new__(cls: Type[_CPlayer], decoder: CompressedDecoder, out_stride: NDArray[np.int64],
                out: Tuple[NDArray[Any], ...], duration: float, pose: Any, batch: int, /
                ) -> _CPlayer: ...
    def sample(self, time: Any, /) -> Any: ...

# -- FBX (src/fbx_read.c over the vendored ufbx; skinkit.io.fbx assembles the Model)

def fbx_read(path: Union[str, "PathLike[str]"], file_axes: bool, max_memory: int,
             max_bytes: float, max_targets: int, /) -> Dict[str, Any]: ...
def ufbx_version() -> str: ...

# -- build information

def simd() -> Literal["avx512", "avx2", "baseline"]: ...
def default_threads() -> int: ...

# -- the kernels of the descriptor table (src/bind_table.c)

# ---- generated by tools/generate_surface.py from the descriptors: do not edit below ----

def quat_multiply(a: Input, b: Input, out: Out = None, threads: Optional[int] = None, /
                 ) -> Float: ...
def quat_conjugate(q: Input, out: Out = None, threads: Optional[int] = None, /) -> Float: ...
def quat_inverse(q: Input, out: Out = None, threads: Optional[int] = None, /) -> Float: ...
def quat_normalize(q: Input, out: Out = None, threads: Optional[int] = None, /) -> Float: ...
def quat_rotate(q: Input, v: Input, out: Out = None, threads: Optional[int] = None, /
               ) -> Float: ...
def quat_to_matrix(q: Input, out: Out = None, threads: Optional[int] = None, /) -> Float: ...
def quat_from_matrix(m: Input, out: Out = None, threads: Optional[int] = None, /) -> Float: ...
def quat_from_rotvec(rotvec: Input, out: Out = None, threads: Optional[int] = None, /
                    ) -> Float: ...
def slerp(q0: Input, q1: Input, t: Input, out: Out = None, threads: Optional[int] = None, /
         ) -> Float: ...
def forward_kinematics(parents: Input, rotations: Input, translations: Input,
                       scales: Optional[Input] = None, out: Out = None,
                       threads: Optional[int] = None, /) -> Float: ...
def rigid_forward_kinematics(parents: Input, rest_positions: Input, rotations: Input,
                             out: Optional[Tuple[Out, Out]] = None, threads: Optional[int] = None,
                             /) -> Tuple[Float, Float]: ...
def skinning_matrices(world: Input, inverse_bind: Input, out: Out = None,
                      threads: Optional[int] = None, /) -> Float: ...
def matrix_inverse(matrices: Input, out: Out = None, threads: Optional[int] = None, /
                  ) -> Float: ...
@overload
def linear_blend_skinning(vertices: Input, joints: Input, weights: Input, skinning_matrices: Input,
                          normals: None = None, out: Out = None, threads: Optional[int] = None, /
                         ) -> Float: ...
@overload
def linear_blend_skinning(vertices: Input, joints: Input, weights: Input, skinning_matrices: Input,
                          normals: Input, out: Optional[Tuple[Out, Out]] = None,
                          threads: Optional[int] = None, /) -> Tuple[Float, Float]: ...
@overload
def linear_blend_skinning(vertices: Input, joints: Input, weights: Input, skinning_matrices: Input,
                          normals: Optional[Input] = None,
                          out: Union[Out, Optional[Tuple[Out, Out]]] = None,
                          threads: Optional[int] = None, /
                         ) -> Union[Float, Tuple[Float, Float]]: ...
def quat_to_matrix_vjp(q: Input, g: Input, out: Out = None, threads: Optional[int] = None, /
                      ) -> Float: ...
def quat_from_rotvec_vjp(rotvec: Input, g: Input, out: Out = None, threads: Optional[int] = None, /
                        ) -> Float: ...
def rigid_forward_kinematics_vjp(parents: Input, rest_positions: Input, rotations: Input,
                                 g_rotations: Input, g_translations: Input,
                                 out: Optional[Tuple[Out, Out]] = None,
                                 threads: Optional[int] = None, /) -> Tuple[Float, Float]: ...
@overload
def _forward_kinematics_vjp(parents: Input, rotations: Input, translations: Input, world: Input,
                            g: Input, scales: None = None, out: Optional[Tuple[Out, Out]] = None,
                            threads: Optional[int] = None, /) -> Tuple[Float, Float]: ...
@overload
def _forward_kinematics_vjp(parents: Input, rotations: Input, translations: Input, world: Input,
                            g: Input, scales: Input, out: Optional[Tuple[Out, Out, Out]] = None,
                            threads: Optional[int] = None, /) -> Tuple[Float, Float, Float]: ...
@overload
def _forward_kinematics_vjp(parents: Input, rotations: Input, translations: Input, world: Input,
                            g: Input, scales: Optional[Input] = None,
                            out: Union[Optional[Tuple[Out, Out]], Optional[Tuple[Out, Out, Out]]] = None,
                            threads: Optional[int] = None, /
                           ) -> Union[Tuple[Float, Float], Tuple[Float, Float, Float]]: ...
def linear_blend_skinning_vjp(vertices: Input, joints: Input, weights: Input,
                              skinning_matrices: Input, g: Input,
                              out: Optional[Tuple[Out, Out]] = None, threads: Optional[int] = None,
                              /) -> Tuple[Float, Float]: ...
def linear_blend_skinning_weights_vjp(vertices: Input, joints: Input, weights: Input,
                                      skinning_matrices: Input, g: Input, out: Out = None,
                                      threads: Optional[int] = None, /) -> Float: ...
def _skinning_dual_quaternions(skinning_matrices: Input, out: Out = None,
                               threads: Optional[int] = None, /) -> Float: ...
@overload
def _dual_quaternion_skinning(vertices: Input, joints: Input, weights: Input,
                              dual_quaternions: Input, normals: None = None, out: Out = None,
                              threads: Optional[int] = None, /) -> Float: ...
@overload
def _dual_quaternion_skinning(vertices: Input, joints: Input, weights: Input,
                              dual_quaternions: Input, normals: Input,
                              out: Optional[Tuple[Out, Out]] = None, threads: Optional[int] = None,
                              /) -> Tuple[Float, Float]: ...
@overload
def _dual_quaternion_skinning(vertices: Input, joints: Input, weights: Input,
                              dual_quaternions: Input, normals: Optional[Input] = None,
                              out: Union[Out, Optional[Tuple[Out, Out]]] = None,
                              threads: Optional[int] = None, /
                             ) -> Union[Float, Tuple[Float, Float]]: ...
def _dual_quaternion_skinning_vjp(vertices: Input, joints: Input, weights: Input,
                                  dual_quaternions: Input, g: Input,
                                  out: Optional[Tuple[Out, Out, Out]] = None,
                                  threads: Optional[int] = None, /
                                 ) -> Tuple[Float, Float, Float]: ...
def _skinning_dual_quaternions_vjp(skinning_matrices: Input, g: Input, out: Out = None,
                                   threads: Optional[int] = None, /) -> Float: ...
def _blend_poses(rotations: Input, translations: Input, scales: Input, weights: Input,
                 threshold: Input, rest_rotations: Optional[Input] = None,
                 rest_translations: Optional[Input] = None, rest_scales: Optional[Input] = None,
                 out: Optional[Tuple[Out, Out, Out]] = None, threads: Optional[int] = None, /
                ) -> Tuple[Float, Float, Float]: ...
def _pose_delta(reference_rotations: Input, reference_translations: Input, reference_scales: Input,
                rotations: Input, translations: Input, scales: Input,
                out: Optional[Tuple[Out, Out, Out]] = None, threads: Optional[int] = None, /
               ) -> Tuple[Float, Float, Float]: ...
def _additive_pose(rotations: Input, translations: Input, scales: Input, delta_rotations: Input,
                   delta_translations: Input, delta_scales: Input, weight: Input,
                   out: Optional[Tuple[Out, Out, Out]] = None, threads: Optional[int] = None, /
                  ) -> Tuple[Float, Float, Float]: ...
def _ik_two_bone(start: Input, mid: Input, end: Input, target: Input, pole_vector: Input,
                 mid_axis: Input, weight: Input, soften: Input, twist_angle: Input,
                 out: Optional[Tuple[Out, Out, Out]] = None, threads: Optional[int] = None, /
                ) -> Tuple[Float, Float, Float]: ...
def _ik_aim(joint: Input, target: Input, forward: Input, up: Input, offset: Input,
            pole_vector: Input, twist_angle: Input, weight: Input,
            out: Optional[Tuple[Out, Out]] = None, threads: Optional[int] = None, /
           ) -> Tuple[Float, Float]: ...
def _ik_ccd(base: Input, translations: Input, rotations: Input, target: Input, rotation_min: Input,
            rotation_max: Input, iterations: Input, tolerance: Input, out: Out = None,
            threads: Optional[int] = None, /) -> Float: ...
def _ik_fabrik(base: Input, translations: Input, rotations: Input, target: Input, max_angle: Input,
               iterations: Input, tolerance: Input, out: Out = None, threads: Optional[int] = None,
               /) -> Float: ...
def _retarget_rotations(parents: Input, source_world: Input, offsets: Input, mapped: Input,
                        rest_rotations: Input, out: Optional[Tuple[Out, Out]] = None,
                        threads: Optional[int] = None, /) -> Tuple[Float, Float]: ...
def _shell_error_fk(parents: Input, rotations: Input, translations: Input, scales: Input,
                    reference: Input, shell: Input, mask: Input,
                    out: Optional[Tuple[Out, Out]] = None, threads: Optional[int] = None, /
                   ) -> Tuple[Float, Float]: ...
