"""Machine-learning inputs: PyTorch CPU tensors, ``__dlpack__`` objects and ``__array__`` objects.

Every public kernel takes them where it takes a NumPy array, returns NumPy arrays, and reads the
caller's memory in place when the dtype and layout allow (float32 or float64, C-contiguous,
native byte order).  "In place" is checked three ways that a copy would change:

- the binding refuses ``out=`` when it overlaps an input; handing it ``out = np.asarray(t)`` for an
  input tensor ``t`` raises only if the array the kernel reads *is* the tensor's memory;
- NumPy reports its buffers to ``tracemalloc``: the kernel's traced peak is the result alone, where
  a converted copy of the input would add its size (a strided tensor does add it: the control);
- writing to the tensor changes the next result.
"""
import tracemalloc

import numpy as np
import pytest

import skinkit as sk
import helpers

from conftest import GLTF, TORCH_HOW, need_shared, optional_import

torch = optional_import("torch", TORCH_HOW)



class DLPackOnly:
    """Exposes an array only through the DLPack protocol (as JAX and CuPy arrays do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def as_torch(a):
    return torch.from_numpy(a)


def as_dlpack(a):
    return DLPackOnly(a)


def as_array_only(a):
    return helpers.ArrayOnly(a)


WRAPPERS = {"torch": as_torch, "dlpack": as_dlpack, "__array__": as_array_only}


# --------------------------------------------------------------------------- one call per kernel

def _quats(rng, *shape, dtype=np.float64):
    q = rng.normal(size=shape + (4,))
    return (q / np.linalg.norm(q, axis=-1, keepdims=True)).astype(dtype)


def _affine(rng, *shape, dtype=np.float64):
    m = np.zeros(shape + (4, 4))
    m[..., :3, :3] = sk.quat_to_matrix(_quats(rng, *shape)) * rng.uniform(0.5, 2, shape + (1, 1))
    m[..., :3, 3] = rng.normal(size=shape + (3,))
    m[..., 3, 3] = 1
    return m.astype(dtype)


def kernel_calls(dtype):
    """name -> (function, positional args as NumPy arrays); integer arrays stay integer."""
    rng = np.random.default_rng(5)
    J, V, K, B = 4, 7, 3, 2
    parents = np.array([-1, 0, 1, 1], dtype=np.int64)
    joints = rng.integers(-1, J, size=(V, K)).astype(np.int32)
    weights = rng.uniform(size=(V, K)).astype(dtype)
    mats = _affine(rng, B, J, dtype=dtype)
    f = lambda *s: rng.normal(size=s).astype(dtype)  # noqa: E731
    return {
        "quat_multiply": (sk.quat_multiply, (_quats(rng, B, 5, dtype=dtype), _quats(rng, 5, dtype=dtype))),
        "quat_conjugate": (sk.quat_conjugate, (_quats(rng, B, 5, dtype=dtype),)),
        "quat_inverse": (sk.quat_inverse, (f(B, 5, 4),)),
        "quat_normalize": (sk.quat_normalize, (f(B, 5, 4),)),
        "quat_rotate": (sk.quat_rotate, (_quats(rng, B, 5, dtype=dtype), f(B, 5, 3))),
        "quat_to_matrix": (sk.quat_to_matrix, (_quats(rng, B, 5, dtype=dtype),)),
        "quat_from_matrix": (sk.quat_from_matrix,
                             (sk.quat_to_matrix(_quats(rng, B, 5, dtype=dtype)),)),
        "quat_from_rotvec": (sk.quat_from_rotvec, (f(B, 5, 3),)),
        "slerp": (sk.slerp, (_quats(rng, B, 5, dtype=dtype), _quats(rng, B, 5, dtype=dtype),
                             rng.uniform(size=(B, 5)).astype(dtype))),
        "forward_kinematics": (sk.forward_kinematics,
                               (parents, _quats(rng, B, J, dtype=dtype), f(B, J, 3),
                                rng.uniform(0.5, 2, (B, J, 3)).astype(dtype))),
        "rigid_forward_kinematics": (sk.rigid_forward_kinematics,
                                     (parents, f(J, 3), _quats(rng, B, J, dtype=dtype))),
        "skinning_matrices": (sk.skinning_matrices, (mats, _affine(rng, J, dtype=dtype))),
        "matrix_inverse": (sk.matrix_inverse, (mats,)),
        "linear_blend_skinning": (sk.linear_blend_skinning,
                                  (f(V, 3), joints, weights, mats, f(V, 3))),
        "dual_quaternion_skinning": (sk.dual_quaternion_skinning,
                                     (f(V, 3), joints, weights, mats, f(V, 3))),
        "normalize_weights": (sk.normalize_weights, (weights,)),
        "limit_influences": (sk.limit_influences, (joints, weights, 2)),
    }


def test_the_table_covers_every_kernel():
    assert sorted(kernel_calls(np.float64)) == sorted(sk.kernels.__all__)


def _flat(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("wrap", sorted(WRAPPERS))
@pytest.mark.parametrize("name", sorted(kernel_calls(np.float64)))
def test_every_kernel_takes_the_object_and_returns_numpy(name, wrap, dtype):
    fn, args = kernel_calls(dtype)[name]
    expected = _flat(fn(*args))
    wrapped = [WRAPPERS[wrap](a) if isinstance(a, np.ndarray) else a for a in args]
    got = _flat(fn(*wrapped))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert type(g) is np.ndarray
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


# --------------------------------------------------------------------------- zero copy

def _cesium_f32():
    need_shared()
    model = sk.load_gltf(GLTF / "CesiumMan.glb", dtype=np.float32)
    prim, skin = model.primitives[0], model.skins[0]
    world = model.world_matrices(clip=0, times=[0.5])
    mats = sk.skinning_matrices(world[:, skin.joints], skin.inverse_bind_matrices)
    return prim, mats


@pytest.mark.parametrize("wrap", sorted(WRAPPERS))
def test_float32_vertices_are_read_in_place_by_skinning(wrap):
    prim, mats = _cesium_f32()
    verts = torch.from_numpy(prim.positions.copy())        # float32, C-contiguous, (3273, 3)
    arg = verts if wrap == "torch" else WRAPPERS[wrap](verts.numpy())
    expected = sk.linear_blend_skinning(prim.positions, prim.joints, prim.weights, mats[0])
    got = sk.linear_blend_skinning(arg, prim.joints, prim.weights, mats[0])
    assert type(got) is np.ndarray and got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)

    # 1. out= may not overlap an input: the binding sees the tensor's own memory.
    with pytest.raises(ValueError, match="overlaps the memory of vertices"):
        sk.linear_blend_skinning(arg, prim.joints, prim.weights, mats[0], out=verts.numpy())

    # 2. NumPy's buffers are traced: the call allocates the result and nothing the input's size.
    extra = _peak_extra(sk.linear_blend_skinning, arg, prim.joints, prim.weights, mats[0])
    assert 0 <= extra < verts.numpy().nbytes // 2

    # 3. Writes to the tensor show in the next call.
    verts[:] = verts * 2.0
    again = sk.linear_blend_skinning(arg, prim.joints, prim.weights, mats[0])
    np.testing.assert_array_equal(again, sk.linear_blend_skinning(
        2.0 * prim.positions, prim.joints, prim.weights, mats[0]))
    assert not np.allclose(again, expected)


def _peak_extra(fn, *args):
    """Bytes NumPy allocated during fn(*args) beyond its result."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        res = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return peak - sum(r.nbytes for r in _flat(res))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("wrap", sorted(WRAPPERS))
def test_no_copy_for_contiguous_float_and_a_copy_otherwise(wrap, dtype):
    q = torch.randn(200_000, 4, dtype=dtype)                 # 3.2 / 6.4 MB
    nbytes = q.numel() * q.element_size()
    make = (lambda t: t) if wrap == "torch" else (lambda t: WRAPPERS[wrap](t.numpy()))
    assert _peak_extra(sk.quat_normalize, make(q)) < nbytes // 4
    with pytest.raises(ValueError, match="overlaps the memory of q"):
        sk.quat_normalize(make(q), out=q.numpy())
    # control: a column-major tensor must be copied to C order, and the tracer sees it
    strided = q.T.contiguous().T
    assert not strided.is_contiguous()
    assert _peak_extra(sk.quat_normalize, make(strided)) >= nbytes
    np.testing.assert_array_equal(sk.quat_normalize(make(strided)), sk.quat_normalize(q.numpy()))


def test_forward_kinematics_reads_torch_pose_in_place():
    J, B = 50, 8
    parents = torch.arange(-1, J - 1)                       # int64 chain
    storage = torch.empty(B * J * 16)                       # rotations live at its start
    rot = storage[:B * J * 4].view(B, J, 4)
    rot[:] = torch.nn.functional.normalize(torch.randn(B, J, 4), dim=-1)
    trans = torch.randn(B, J, 3)
    world = sk.forward_kinematics(parents, rot, trans)
    assert type(world) is np.ndarray and world.dtype == np.float32 and world.shape == (B, J, 4, 4)
    np.testing.assert_array_equal(world, sk.forward_kinematics(parents.numpy(), rot.numpy(),
                                                               trans.numpy()))
    with pytest.raises(ValueError, match="overlaps the memory of rotations"):
        sk.forward_kinematics(parents, rot, trans, out=storage.numpy().reshape(B, J, 4, 4))


def test_tensor_slices_and_batches_share_memory():
    """A contiguous slice of a batch (a DataLoader worker's view) is read where it lies."""
    batch = torch.randn(16, 3273, 3)
    part = batch[4:8]
    assert part.is_contiguous()
    q = torch.tensor([0.0, 0.0, 0.38268343, 0.92387953])
    got = sk.quat_rotate(q, part)
    np.testing.assert_allclose(got, sk.quat_rotate(q.numpy(), batch.numpy()[4:8]), rtol=0, atol=0)
    with pytest.raises(ValueError, match="overlaps the memory of v"):
        sk.quat_rotate(q, part, out=batch[4:8].numpy())


# --------------------------------------------------------------------------- refusals

def test_a_tensor_that_requires_grad_is_refused_with_torch_own_message():
    t = torch.ones(3, 4, requires_grad=True)
    with pytest.raises((BufferError, RuntimeError), match="detach"):
        sk.quat_normalize(t)
    np.testing.assert_array_equal(sk.quat_normalize(t.detach()), np.full((3, 4), 0.5, np.float32))


def test_half_precision_is_refused():
    with pytest.raises(TypeError, match="float32 or float64"):
        sk.quat_normalize(torch.ones(3, 4, dtype=torch.float16))


def test_out_must_be_numpy():
    with pytest.raises(TypeError, match="NumPy array"):
        sk.quat_normalize(torch.ones(3, 4), out=torch.empty(3, 4))


@pytest.mark.shared
def test_model_level_api_with_tensor_times():
    model = sk.load_gltf(GLTF / "CesiumMan.glb", dtype=np.float32)
    t = torch.linspace(0, model.clips[0].duration, 5)
    got = model.pose(clip=0, times=t)
    exp = model.pose(clip=0, times=t.numpy())
    assert got.keys() == exp.keys()
    for k in got:
        assert type(got[k]) is np.ndarray
        np.testing.assert_array_equal(got[k], exp[k])


def test_a_dtype_dlpack_cannot_carry_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match="^q cannot be read as a float32 or float64 array"):
        sk.quat_normalize(torch.ones(3, 4, dtype=torch.bfloat16))
