"""Hostile array inputs to every public function (issue #4), table-driven in the manner of
ozz-animation's JobValidity tests.  Only what ``test_api_contract.py`` (dtypes, wrong last
dimension, empty batch, broadcasting, strided/Fortran/byte-swapped/read-only layouts, bad ``out=``,
NaN/Inf) and the kernel tests (bad parents, joint indices, zero weights, V = 0) do not already
cover: missing (None) arguments, misaligned / reversed / zero-stride layouts, J = 0 and K = 0,
shapes whose byte size overflows, too many dimensions, mismatched symbolic sizes, ``out=`` of the
wrong kind, wide unsigned parents, and the Clip / Channel API (T = 0, N = 0, bad channels and rest
poses, concurrent sampling).

Every case either gives the documented result or raises TypeError / ValueError / MemoryError;
anything else (another exception, a crash) is a bug.
"""
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import skinkit as sk
import helpers
from test_api_contract import SPECS, IDS, JOINTS, specs_where

ALLOWED = (TypeError, ValueError, MemoryError)


def spec_arg_params(select):
    return [pytest.param(s, a, id=f"{s.name}-{a.name}") for s in SPECS for a in select(s)]


def required_args(spec):
    return [a for a in spec.args if not a.optional]


# --------------------------------------------------------------------------- missing arguments


@pytest.mark.parametrize("spec, arg", spec_arg_params(required_args))
def test_none_for_a_required_array_is_a_type_error(spec, arg):
    """None where an array is required: TypeError naming the argument (not a NULL read)."""
    kw = spec.make(helpers.rng_for("none", spec.name), (2,))
    kw[arg.name] = None
    with pytest.raises(TypeError, match=rf"\b{arg.name}\b"):
        spec.call(kw)


# --------------------------------------------------------------------------- memory layouts


def misaligned(a):
    """A copy of ``a`` whose data starts one byte past an aligned address."""
    a = np.asarray(a)
    buf = np.zeros(a.nbytes + a.itemsize + 1, np.uint8)
    m = buf[1:1 + a.nbytes].view(a.dtype).reshape(a.shape)
    m[...] = a
    if a.itemsize > 1 and a.size:
        assert not m.flags.aligned
    return m


def reversed_(a):
    """Negative strides: the array reversed along its first axis, then viewed back."""
    a = np.asarray(a)
    if a.ndim == 0:
        return a
    return np.ascontiguousarray(a[::-1])[::-1]


def zero_stride(a):
    """A read-only view with stride 0 on a new leading axis of size 1 (values unchanged)."""
    return np.broadcast_to(np.asarray(a), np.shape(a))


def misaligned_swapped(a):
    a = np.asarray(a)
    return misaligned(a.astype(a.dtype.newbyteorder("S")))


LAYOUTS = {"misaligned": misaligned, "reversed": reversed_, "zero-stride": zero_stride,
           "misaligned-byteswapped": misaligned_swapped}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", helpers.DTYPES)
@pytest.mark.parametrize("spec, arg", spec_arg_params(lambda s: s.args))
def test_more_memory_layouts(spec, arg, dtype, layout):
    kw = spec.make(helpers.rng_for("layout2", spec.name), (2, 3), dtype)
    kw[arg.name] = LAYOUTS[layout](kw[arg.name])
    got = spec.call(kw)
    assert all(g.dtype == dtype for g in got)
    helpers.check_results(spec, got, kw)


@pytest.mark.parametrize("layout", ["misaligned", "byteswapped", "strided", "fortran"])
@pytest.mark.parametrize("jdtype", [np.uint8, np.uint16, np.int32, np.int64, np.int16])
def test_joints_in_any_layout_and_integer_type(jdtype, layout):
    spec = next(s for s in SPECS if s.name == "linear_blend_skinning")
    kw = spec.make(helpers.rng_for("jlayout"), (2,))
    j = np.where(JOINTS < 0, 0, JOINTS).astype(jdtype)
    kw["joints"] = misaligned(j) if layout == "misaligned" else helpers.layouts(j)[layout]
    helpers.check_results(spec, spec.call(kw), {**kw, "joints": j})


def test_array_likes_that_are_not_arrays():
    """Nested lists, tuples and objects with ``__array__`` are accepted like arrays."""
    q = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]
    want = sk.quat_to_matrix(np.array(q))
    np.testing.assert_array_equal(sk.quat_to_matrix(q), want)
    np.testing.assert_array_equal(sk.quat_to_matrix(tuple(map(tuple, q))), want)
    np.testing.assert_array_equal(sk.quat_to_matrix(helpers.ArrayOnly(np.array(q))), want)
    np.testing.assert_array_equal(
        sk.forward_kinematics(helpers.ArrayOnly(np.array([-1, 0])), q, [[0, 0, 0], [1, 0, 0]]),
        sk.forward_kinematics(np.array([-1, 0]), np.array(q), np.array([[0., 0, 0], [1, 0, 0]])))


# --------------------------------------------------------------------------- empty sizes


def identity_quats(n):
    return np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))


@pytest.mark.parametrize("batch", [(), (2,), (0,)])
def test_zero_joints(batch):
    """J = 0: every skeleton kernel returns empty results of the right shape."""
    p = np.zeros(0, np.int32)
    q, t = np.zeros(batch + (0, 4)), np.zeros(batch + (0, 3))
    m = np.zeros(batch + (0, 4, 4))
    assert sk.forward_kinematics(p, q, t).shape == batch + (0, 4, 4)
    assert sk.forward_kinematics(p, q, t, t).shape == batch + (0, 4, 4)
    Q, tr = sk.rigid_forward_kinematics(p, t, q)
    assert Q.shape == batch + (0, 4) and tr.shape == batch + (0, 3)
    assert sk.skinning_matrices(m, m).shape == batch + (0, 4, 4)
    assert sk.matrix_inverse(m).shape == batch + (0, 4, 4)


def test_zero_joints_in_skinning():
    """J = 0: vertices with only unused slots (-1) skin to zero; any joint index is an error."""
    verts = np.ones((2, 3))
    got = sk.linear_blend_skinning(verts, -np.ones((2, 1), np.int32), np.ones((2, 1)),
                                   np.zeros((0, 4, 4)))
    np.testing.assert_array_equal(got, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"joints\[0, 0\]"):
        sk.linear_blend_skinning(verts, np.zeros((2, 1), np.int32), np.ones((2, 1)),
                                 np.zeros((0, 4, 4)))


@pytest.mark.parametrize("with_normals", [False, True])
def test_zero_influences(with_normals):
    """K = 0: no influence at all, so positions (and normals) are zero."""
    verts = np.ones((3, 3))
    args = (verts, np.zeros((3, 0), np.int32), np.zeros((3, 0)), np.tile(np.eye(4), (2, 1, 1)))
    if with_normals:
        pos, nrm = sk.linear_blend_skinning(*args, normals=verts)
        np.testing.assert_array_equal(nrm, np.zeros((3, 3)))
    else:
        pos = sk.linear_blend_skinning(*args)
    np.testing.assert_array_equal(pos, np.zeros((3, 3)))


@pytest.mark.parametrize("dtype", helpers.DTYPES)
def test_all_zero_weights_with_any_matrices(dtype):
    """All-zero weights give zeros whatever the matrices hold (even NaN in an unused joint)."""
    rng = helpers.rng_for("zero-w")
    mats = helpers.random_affine(rng, (4,)).astype(dtype)
    mats[3] = np.nan
    verts = rng.normal(size=(6, 3)).astype(dtype)
    joints = rng.integers(0, 3, size=(6, 4)).astype(np.int32)
    pos, nrm = sk.linear_blend_skinning(verts, joints, np.zeros((6, 4), dtype), mats, verts)
    assert pos.dtype == dtype and np.all(pos == 0) and np.all(nrm == 0)


def test_normalize_weights_of_a_huge_zero_stride_view_fails_at_once():
    """2**40 weights (a zero-stride view): MemoryError before summing them (which took minutes)."""
    import time
    start = time.perf_counter()
    with pytest.raises(MemoryError):
        sk.normalize_weights(np.broadcast_to(0.5, (2**40,)))
    with pytest.raises(MemoryError):
        sk.normalize_weights(np.broadcast_to(0.5, (2**20, 2**20)))
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("dtype", [np.complex128, object, "U3", "datetime64[s]"])
def test_normalize_weights_refuses_non_real_dtypes(dtype):
    w = np.ones((2, 3)).astype(dtype) if dtype != "datetime64[s]" else \
        np.zeros((2, 3), dtype)
    with pytest.raises(TypeError):
        sk.normalize_weights(w)


def test_empty_weights_in_normalize_and_limit():
    assert sk.normalize_weights(np.zeros((0, 4))).shape == (0, 4)
    np.testing.assert_array_equal(sk.normalize_weights(np.zeros((2, 3))), np.zeros((2, 3)))
    j, w = sk.limit_influences(np.zeros((0, 4), np.int32), np.zeros((0, 4)), 2)
    assert j.shape == (0, 2) and w.shape == (0, 2)


# --------------------------------------------------------------------------- sizes that overflow


def huge(a, n):
    """A zero-stride view of ``a`` with a new leading axis of size n (no memory)."""
    a = np.asarray(a)
    return np.broadcast_to(a, (n,) + a.shape)


# the resident set a refused call may add: 64 MiB, or 256 MiB under the sanitizer build
# (.ci/sanitize sets SKINKIT_SANITIZED), whose quarantine and shadow grew one refused call by
# 147 MiB in a CI run; either is far below the terabytes that the call refuses
RSS_BOUND = 2**28 if os.environ.get("SKINKIT_SANITIZED") else 2**26


def refused_without_memory(spec, kw):
    """The call raises MemoryError or ValueError, and the resident set grows by < RSS_BOUND."""
    def call():
        with pytest.raises((MemoryError, ValueError)):
            spec.call(kw)
    assert helpers.peak_rss_growth(call) < RSS_BOUND


@pytest.mark.parametrize("n", ["2**40", "max"])
@pytest.mark.parametrize("spec, arg", spec_arg_params(lambda s: s.batch_args()))
def test_huge_zero_stride_input_fails_before_allocating(spec, arg, n):
    """A batch dimension whose byte size is beyond memory (2**40 items) or the largest NumPy
    allows (just under 2**63 bytes): MemoryError or ValueError, and no memory is touched."""
    kw = spec.make(helpers.rng_for("huge", spec.name), ())
    a = kw[arg.name]
    n = 2**40 if n == "2**40" else (2**63 - 1) // a.nbytes
    kw[arg.name] = huge(a, n)
    refused_without_memory(spec, kw)


@pytest.mark.parametrize("spec", specs_where(lambda s: len(s.batch_args()) >= 2))
def test_broadcast_result_too_big(spec):
    """Small inputs whose broadcast batch shape has more items than fit in memory or in an
    intp: MemoryError or ValueError, not a wrapped-around size."""
    rng = helpers.rng_for("bigbcast", spec.name)
    args = spec.batch_args()
    kw = spec.make(rng, ())
    n = 2**16      # argument i has shape (1, .., n, .., 1) + core: the batch is n**2 or n**3
    for i, a in enumerate(args):
        shape = [1] * len(args)
        shape[i] = n
        kw[a.name] = np.ascontiguousarray(np.broadcast_to(
            kw[a.name], tuple(shape) + kw[a.name].shape))
    refused_without_memory(spec, kw)


@pytest.mark.parametrize("fn, args", [
    (sk.matrix_inverse, lambda big: (big,)),
    (sk.quat_normalize, lambda big: (big,)),
    (sk.skinning_matrices, lambda big: (np.zeros((2, 4, 4)), big)),
    (sk.forward_kinematics, lambda big: ([-1], big, np.zeros((1, 3)))),
    (sk.slerp, lambda big: (big, np.zeros(4), 0.5)),
])
def test_wrong_shape_is_refused_before_the_input_is_copied(fn, args):
    """A zero-stride view of 2**27 items (1 GiB as float64) with a wrong core shape: ValueError
    before the binding converts it to a contiguous copy (which a 2**31-item view, 16 GiB,
    would make first)."""
    big = np.broadcast_to(np.float32(0.0), (2**27,))

    def call():
        with pytest.raises(ValueError, match="must have shape"):
            fn(*args(big))
    assert helpers.peak_rss_growth(call) < 2**26


def test_non_broadcasting_batch_is_refused_before_the_input_is_copied():
    """t is a zero-stride view of 2**27 items (512 MiB as float32) whose batch shape does not
    broadcast with q0's (0,): ValueError before t is converted to a contiguous copy."""
    big = np.broadcast_to(np.float32(0.5), (2**27,))

    def call():
        with pytest.raises(ValueError, match="broadcast"):
            sk.slerp(np.zeros((0, 4), np.float32), np.zeros(4, np.float32), big)
    assert helpers.peak_rss_growth(call) < 2**26


def test_slerp_three_way_broadcast_overflows_intp():
    """(2**20, 1, 1) x (1, 2**20, 1) x (1, 1, 2**20): 2**60 items of 4 doubles overflow."""
    q = np.zeros((2**20, 1, 1, 4))
    q[..., 3] = 1
    with pytest.raises((ValueError, MemoryError)):
        sk.slerp(q, q.reshape(1, 2**20, 1, 4), np.zeros((1, 1, 2**20)))


@pytest.mark.parametrize("fn, shape", [
    (sk.quat_to_matrix, (4,)),       # (..., 4) -> (..., 3, 3): one more dimension
    (sk.forward_kinematics, None),
])
def test_too_many_dimensions_is_a_value_error(fn, shape):
    maxdims = 64 if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else 32
    if shape is not None:
        q = np.zeros((1,) * (maxdims - 1) + shape)
        with pytest.raises(ValueError, match="dimensions"):
            fn(q)
    else:
        q = np.zeros((1,) * (maxdims - 2) + (1, 4))
        with pytest.raises(ValueError, match="dimensions"):
            fn([-1], q, np.zeros((1, 3)))


def test_clip_sample_huge_times_or_rest_fails_before_allocating():
    clip = sk.Clip("c", [sk.Channel(0, "translation", np.array([0.0, 1.0]), np.zeros((2, 3)))])
    rest = (np.zeros((1, 3)), identity_quats(1), np.ones((1, 3)))
    for times, r in [(np.broadcast_to(0.5, (2**40,)), rest),
                     (0.5, (huge(np.zeros(3), 2**40), huge(identity_quats(1)[0], 2**40),
                            huge(np.ones(3), 2**40))),
                     (np.broadcast_to(0.5, (2**31,)),
                      (huge(np.zeros(3), 2**31), huge(identity_quats(1)[0], 2**31),
                       huge(np.ones(3), 2**31)))]:

        def call():
            with pytest.raises((MemoryError, ValueError)):
                clip.sample(times, r)
        assert helpers.peak_rss_growth(call) < 2**26


# --------------------------------------------------------------------------- sizes that disagree


def lbs_of_shapes(joints=(3, 1), weights=(3, 1), matrices=(1, 4, 4), normals=None):
    """linear_blend_skinning of 3 vertices with int32 joints, weights of ones and zero matrices
    (and normals) of these shapes."""
    args = [np.zeros((3, 3)), np.zeros(joints, np.int32), np.ones(weights), np.zeros(matrices)]
    return sk.linear_blend_skinning(*args, *(() if normals is None else (np.zeros(normals),)))


@pytest.mark.parametrize("call, names", [
    (lambda: sk.forward_kinematics([-1, 0, 1], identity_quats(3), np.zeros((2, 3))),
     ("translations", "J=3", "(2, 3)")),
    (lambda: sk.forward_kinematics([-1, 0, 1], identity_quats(3), np.zeros((3, 3)),
                                   np.ones((4, 3))), ("scales", "J=3", "(4, 3)")),
    (lambda: sk.forward_kinematics([-1, 0, 1, 2], identity_quats(3), np.zeros((3, 3))),
     ("rotations", "J=4", "(3, 4)")),
    (lambda: sk.rigid_forward_kinematics([-1, 0], np.zeros((3, 3)), identity_quats(2)),
     ("rest_positions", "J=2", "(3, 3)")),
    (lambda: sk.skinning_matrices(np.zeros((2, 4, 4)), np.zeros((3, 4, 4))),
     ("inverse_bind", "J=2", "(3, 4, 4)")),
    (lambda: sk.skinning_matrices(np.zeros((2, 4, 3)), np.zeros((2, 4, 4))),
     ("world", "(2, 4, 3)")),
    (lambda: sk.matrix_inverse(np.zeros((4, 3))), ("matrices", "(..., 4, 4)", "(4, 3)")),
    (lambda: lbs_of_shapes(joints=(2, 1), weights=(2, 1)), ("joints", "V=3", "(2, 1)")),
    (lambda: lbs_of_shapes(weights=(2, 1)), ("weights", "V=3", "(2, 1)")),
    (lambda: lbs_of_shapes(joints=(3, 2)), ("weights", "K=2", "(3, 1)")),
    (lambda: lbs_of_shapes(normals=(2, 3)), ("normals", "V=3", "(2, 3)")),
    (lambda: lbs_of_shapes(matrices=(1, 3, 4)), ("skinning_matrices", "(1, 3, 4)")),
    (lambda: sk.slerp(identity_quats(2), identity_quats(2), np.zeros((3,))), ("t", "(3,)")),
])
def test_mismatched_sizes_name_argument_expected_and_actual(call, names):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    for n in names:
        assert n in msg, msg


def test_zero_dimensional_inputs_name_the_argument():
    with pytest.raises(ValueError, match=r"^q must have shape \(\.\.\., 4\), got \(\)"):
        sk.quat_normalize(np.float64(1.0))
    with pytest.raises(ValueError, match="parents"):
        sk.forward_kinematics(np.int64(-1), identity_quats(1), np.zeros((1, 3)))
    with pytest.raises(ValueError, match="joints"):
        sk.linear_blend_skinning(np.zeros((1, 3)), np.int32(0), np.ones((1, 1)),
                                 np.zeros((1, 4, 4)))


def test_ragged_nested_lists_are_value_errors():
    with pytest.raises(ValueError):
        sk.quat_normalize([[0, 0, 0, 1], [0, 0, 1]])
    with pytest.raises(ValueError):
        sk.forward_kinematics([[-1], []], identity_quats(2), np.zeros((2, 3)))


# --------------------------------------------------------------------------- parents


@pytest.mark.parametrize("ptype, bad", [
    (np.uint64, 2**64 - 1),          # wraps to -1 if read as int64
    (np.uint64, 2**63),              # wraps to the most negative int64
    (np.uint32, 2**32 - 1),
    (np.uint8, 255),
    (np.int8, -2),
    (np.int64, 2**40),
    (np.int64, -(2**63)),
])
@pytest.mark.parametrize("fn", ["forward_kinematics", "rigid_forward_kinematics"])
def test_parents_out_of_range_in_every_integer_type(fn, ptype, bad):
    # joint 0's parent is the bad one (unsigned types have no -1: joints 1, 2 hang off 0)
    parents = np.array([bad, 0, 0] if np.dtype(ptype).kind == "u" else [bad, -1, 1], ptype)
    q, t = identity_quats(3), np.zeros((3, 3))
    call = (lambda: sk.forward_kinematics(parents, q, t)) if fn == "forward_kinematics" else \
        (lambda: sk.rigid_forward_kinematics(parents, t, q))
    with pytest.raises(ValueError, match=r"parents\[0\]"):
        call()


@pytest.mark.parametrize("parents", [[1, 2, 0], [0], [0, 1], [2, 2, 3, 1]])
def test_cycles_and_self_parents_in_unsigned_types(parents):
    p = np.array(parents, np.uint16)
    with pytest.raises(ValueError, match="parent|cycle"):
        sk.forward_kinematics(p, identity_quats(len(p)), np.zeros((len(p), 3)))


# --------------------------------------------------------------------------- out=


def test_rigid_fk_out_must_be_a_pair():
    t, q = np.zeros((2, 3)), identity_quats(2)
    for bad in (np.empty((2, 4)), np.empty((1, 2, 4)), (np.empty((2, 4)),), [np.empty((2, 4))],
                np.empty((2, 2, 4))):
        with pytest.raises((TypeError, ValueError)):
            sk.rigid_forward_kinematics([-1, 0], t, q, out=bad)


def test_lbs_with_normals_out_must_be_a_pair():
    args = (np.zeros((2, 3)), np.zeros((2, 1), np.int32), np.ones((2, 1)),
            np.tile(np.eye(4), (1, 1, 1)), np.zeros((2, 3)))
    for bad in (np.empty((2, 3)), (np.empty((2, 3)),), np.empty((2, 2, 3))):
        with pytest.raises((TypeError, ValueError)):
            sk.linear_blend_skinning(*args, out=bad)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_out_that_is_not_an_array(spec):
    kw = spec.make(helpers.rng_for("outlist", spec.name), (2,))
    outs = [np.zeros((2,) + o).tolist() for o in spec.outs]
    with pytest.raises(TypeError):
        spec.call(kw, tuple(outs) if spec.out_pair else outs[0])


@pytest.mark.parametrize("spec", specs_where(lambda s: s.out_pair))
def test_two_outs_that_overlap_each_other(spec):
    kw = spec.make(helpers.rng_for("outpair", spec.name), (2,))
    shapes = [(2,) + o for o in spec.outs]
    buf = np.zeros(max(int(np.prod(s)) for s in shapes))
    outs = tuple(buf[:int(np.prod(s))].reshape(s) for s in shapes)
    with pytest.raises(ValueError, match="overlap"):
        spec.call(kw, outs)


def test_out_that_overlaps_the_joints_or_parents():
    """Integer index inputs share memory with out=: refused, or computed correctly (the index
    arrays are copied before the kernel writes)."""
    mem = np.zeros(64, np.float64)
    joints = mem.view(np.int32)[:2].reshape(2, 1)
    joints[...] = 0
    out = mem[:6].reshape(2, 3)
    try:
        got = sk.linear_blend_skinning(np.ones((2, 3)), joints, np.ones((2, 1)),
                                       np.tile(np.eye(4), (1, 1, 1)), out=out)
    except ValueError:
        return
    np.testing.assert_array_equal(got, np.ones((2, 3)))


# --------------------------------------------------------------------------- Clip and Channel


def channel(**kw):
    base = dict(node=0, path="translation", times=np.array([0.0, 1.0]),
                values=np.array([[0.0, 0, 0], [1, 2, 3]]), interpolation="LINEAR")
    base.update(kw)
    return sk.Channel(**base)


REST1 = (np.zeros((1, 3)), identity_quats(1), np.ones((1, 3)))


@pytest.mark.parametrize("fields, error", [
    (dict(path="weights", values=np.zeros(2)), ValueError),  # weights values are (K, M)
    (dict(path=None), ValueError),
    (dict(interpolation="linear"), ValueError),
    (dict(interpolation=1), ValueError),
    (dict(times=np.zeros((2, 1))), ValueError),
    (dict(times=np.zeros(0), values=np.zeros((0, 3))), ValueError),
    (dict(times=np.array([0.0, np.nan])), ValueError),
    (dict(times=np.array([0.0, np.inf])), ValueError),
    (dict(times=np.array([1.0, 0.0])), ValueError),
    (dict(times=np.array([0.5, 0.5])), ValueError),
    (dict(values=np.zeros((2, 4))), ValueError),
    (dict(values=np.zeros((3, 3))), ValueError),
    (dict(values=np.zeros(6)), ValueError),
    (dict(path="rotation"), ValueError),                  # values are (2, 3), not (2, 4)
    (dict(interpolation="CUBICSPLINE"), ValueError),      # needs (6, 3)
    (dict(times=np.array([0, 1j])), (TypeError, ValueError)),
    (dict(times=np.array(["a", "b"])), (TypeError, ValueError)),
    (dict(times=None), (TypeError, ValueError)),
    (dict(values=None), (TypeError, ValueError)),
    (dict(node=-1), ValueError),
    (dict(node=1.5), (TypeError, ValueError)),
    (dict(node=2**70), (TypeError, ValueError)),
])
def test_bad_channel(fields, error):
    """A bad channel is refused when it is made, or by the Clip or its first sample."""
    with pytest.raises(error):
        sk.Clip("c", [channel(**fields)]).sample(0.5, REST1)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.complex64, object, "U3"])
def test_bad_clip_dtype(dtype):
    with pytest.raises(TypeError):
        sk.Clip("c", [channel()], dtype=dtype)


@pytest.mark.parametrize("times, error", [
    (np.nan, ValueError),
    ([0.0, np.inf], ValueError),
    (-np.inf, ValueError),
    ("abc", (TypeError, ValueError)),
    (np.array([1j]), (TypeError, ValueError)),
    (None, (TypeError, ValueError)),
    ([[0.0, 1.0], [2.0]], ValueError),
])
def test_bad_sample_times(times, error):
    with pytest.raises(error):
        sk.Clip("c", [channel()]).sample(times, REST1)


@pytest.mark.parametrize("rest", [
    (np.zeros((2, 3)), identity_quats(1), np.ones((1, 3))),
    (np.zeros((1, 3)), np.zeros((1, 3)), np.ones((1, 3))),
    (np.zeros((1, 3)), identity_quats(1), np.ones((1, 4))),
    (np.zeros((1, 3, 1)), identity_quats(1), np.ones((1, 3))),
    (np.zeros(3), identity_quats(1), np.ones((1, 3))),
    (np.float64(0.0), identity_quats(1), np.ones((1, 3))),     # 0-d: no node axis at all
    (np.zeros((1, 3)), identity_quats(1)),
    (np.zeros((1, 3)), identity_quats(1), np.ones((1, 3)), np.ones((1, 3))),
    None,
    (np.zeros((0, 3)), identity_quats(0), np.ones((0, 3))),  # channel at node 0 of 0 nodes
    (np.zeros((1, 3), complex), identity_quats(1), np.ones((1, 3))),
    (np.array([["a", "b", "c"]]), identity_quats(1), np.ones((1, 3))),
])
def test_bad_rest_pose(rest):
    with pytest.raises((TypeError, ValueError)):
        sk.Clip("c", [channel()]).sample(0.5, rest)


def test_channel_at_a_node_beyond_the_rest_pose():
    with pytest.raises(ValueError, match="node 5"):
        sk.Clip("c", [channel(node=5)]).sample(0.5, REST1)


@pytest.mark.parametrize("dtype", helpers.DTYPES)
@pytest.mark.parametrize("T", [0, 1, 3])
def test_clip_sample_empty_sizes(dtype, T):
    """T = 0 gives (0, N, c) arrays; a clip without channels and N = 0 give the rest pose or
    empty arrays."""
    times = np.linspace(0, 1, T)
    clip = sk.Clip("c", [channel()], dtype=dtype)
    t, r, s = clip.sample(times, REST1)
    assert (t.shape, r.shape, s.shape) == ((T, 1, 3), (T, 1, 4), (T, 1, 3))
    assert t.dtype == r.dtype == s.dtype == dtype
    empty = sk.Clip("none", [], dtype=dtype)
    assert empty.duration == 0.0
    t, r, s = empty.sample(times, REST1, loop=True)
    np.testing.assert_array_equal(r, np.broadcast_to(REST1[1], (T, 1, 4)))
    t, r, s = empty.sample(times, (np.zeros((0, 3)), np.zeros((0, 4)), np.zeros((0, 3))))
    assert (t.shape, r.shape, s.shape) == ((T, 0, 3), (T, 0, 4), (T, 0, 3))


@pytest.mark.parametrize("layout", ["misaligned", "byteswapped", "strided", "fortran",
                                    "readonly", "list"])
def test_clip_inputs_in_any_layout(layout):
    """Channels, times and rest poses in any layout, or as nested lists, sample as arrays."""
    rng = helpers.rng_for("cliplayout")
    keys = np.array([0.0, 0.4, 1.0])
    values = rng.normal(size=(3, 3))
    quats = helpers.random_quats(rng, (3,))
    rest = (rng.normal(size=(2, 3)), helpers.random_quats(rng, (2,)), rng.uniform(1, 2, (2, 3)))
    times = rng.uniform(-0.5, 1.5, size=(4, 2))

    def lay(a):
        if layout == "list":
            return a.tolist()
        return misaligned(a) if layout == "misaligned" else helpers.layouts(a).get(layout, a)

    def clip(f):
        return sk.Clip("c", [sk.Channel(1, "translation", f(keys), f(values)),
                             sk.Channel(0, "rotation", f(keys), f(quats))])
    want = clip(np.asarray).sample(times, rest)
    got = clip(lay).sample(lay(times), tuple(lay(a) for a in rest))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_clip_sample_from_threads_agrees_with_serial():
    """8 threads sampling one clip at once get the single-threaded results."""
    rng = helpers.rng_for("clipthreads")
    keys = np.sort(rng.uniform(0, 2, 16))
    chans = [sk.Channel(i, "rotation", keys, helpers.random_quats(rng, (16,)), interp)
             for i, interp in enumerate(["LINEAR", "STEP"])]
    chans.append(sk.Channel(2, "translation", keys, rng.normal(size=(48, 3)), "CUBICSPLINE"))
    clip = sk.Clip("c", chans)
    rest = (np.zeros((3, 3)), identity_quats(3), np.ones((3, 3)))
    times = [rng.uniform(-1, 3, size=2000) for _ in range(8)]
    alone = [clip.sample(t, rest) for t in times]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            for a, b in zip(alone, pool.map(lambda t: clip.sample(t, rest), times)):
                for x, y in zip(a, b):
                    np.testing.assert_array_equal(x, y)


def test_channel_arrays_edited_after_the_clip_is_made_do_not_reach_it():
    """The clip packs its keys when made: later edits of the caller's arrays change nothing, and
    cannot make the kernel read outside what was validated."""
    keys, values = np.array([0.0, 1.0]), np.array([[0.0, 0, 0], [1, 2, 3]])
    ch = sk.Channel(0, "translation", keys, values)
    clip = sk.Clip("c", [ch])
    before = clip.sample(0.5, REST1)[0].copy()
    keys[1] = -5.0
    values[...] = np.nan
    ch.times = np.zeros(10**3)
    np.testing.assert_array_equal(clip.sample(0.5, REST1)[0], before)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_threads_sharing_the_same_inputs_agree_with_serial(spec):
    """8 threads call the kernel at once on the very same input arrays (read-only, shared),
    each with its own out= every other call: the serial result every time."""
    kw = spec.make(helpers.rng_for("shared-threads", spec.name), (64,))
    for v in kw.values():
        v.flags.writeable = False
    alone = spec.call(kw)

    def work(i):
        outs = [np.empty_like(a) for a in alone]
        got = spec.call(kw, (tuple(outs) if spec.out_pair else outs[0]) if i % 2 else None)
        return got

    with ThreadPoolExecutor(max_workers=8) as pool:
        for got in pool.map(work, range(64)):
            for a, b in zip(alone, got):
                np.testing.assert_array_equal(a, b)
