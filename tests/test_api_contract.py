"""The conventions every public kernel shares (module docstring of skinkit.kernels), table-driven:
dtypes, shapes and broadcasting, memory layouts, ``out=``, NaN propagation.

Each row of ``SPECS`` says how to build valid arguments for one kernel (with any batch shape and
dtype), what the result's core shape is, and how the NumPy reference computes it.  The rows are
made from the descriptor table (``skinkit._core._shapes``, read through skinkit.kernels.operands): the
operands, their order, roles and shapes; what it does not say is keyed by operand name (VALUES,
INDICES) or kernel name (the reference: reference.py's function of the same name, called with
the same keywords).
"""
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import numpy as np
import pytest

import skinkit as sk
from skinkit import _core
from skinkit.kernels.operands import SAME_AS, operands
import helpers
import reference as ref

J, V, K = 3, 5, 2
PARENTS = np.array([1, -1, 1, 0], dtype=np.int32)[:J]       # joint 0's parent comes after it
JOINTS = np.array([[0, 2], [1, -1], [2, 0], [0, 1], [-1, 2]], dtype=np.int32)


# --------------------------------------------------------------------------- value generators
# gen(rng, shape, integer) -> float64 array of the full shape (batch + core); integer=True gives
# integer values (valid for the kernel, e.g. invertible matrices).


def g_quat(rng, shape, integer):
    if integer:
        q = rng.integers(-2, 3, size=shape).astype(np.float64)
        q[..., 3] += 3
        return q
    return helpers.random_quats(rng, shape[:-1])


def g_numbers(ints, uniform=None):
    """A generator of integers in [ints[0], ints[1]), else uniform in ``uniform`` (None: normal)."""
    def gen(rng, shape, integer):
        if integer:
            return rng.integers(*ints, size=shape).astype(np.float64)
        return rng.normal(size=shape) if uniform is None else rng.uniform(*uniform, size=shape)
    return gen


g_vec = g_numbers((-3, 4))
g_scale = g_numbers((1, 3), (0.5, 2.0))
g_t = g_numbers((0, 2), (0.0, 1.0))
g_weights = g_numbers((0, 3), (0.1, 1.0))


def g_rotmat(rng, shape, integer):
    if integer:
        return np.broadcast_to([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                               shape).copy()
    return ref.quat_to_matrix(helpers.random_quats(rng, shape[:-2]))


def g_affine(rng, shape, integer):
    if integer:   # strictly diagonally dominant, so invertible
        return 5 * np.eye(4) + rng.integers(-1, 2, size=shape)
    return helpers.random_affine(rng, shape[:-2])


# the knowledge of an operand that its descriptor does not hold, by the operand's NAME: the
# values of a float operand, the fixed array of an integer one; and the symbols' sizes
VALUES = {"a": g_quat, "b": g_quat, "q": g_quat, "q0": g_quat, "q1": g_quat,
          "rotations": g_quat, "m": g_rotmat, "t": g_t, "scales": g_scale, "weights": g_weights,
          **dict.fromkeys(["v", "rotvec", "translations", "rest_positions", "vertices",
                           "normals"], g_vec),
          **dict.fromkeys(["world", "inverse_bind", "matrices", "skinning_matrices"], g_affine)}
INDICES = {"parents": PARENTS, "joints": JOINTS}
SIZES = {"J": J, "V": V, "K": K}


@dataclass
class Arg:
    name: str
    gen: Optional[Callable] = None       # None: a fixed index array (parents, joints)
    core: Tuple[int, ...] = ()
    batch: bool = True                   # takes the leading batch dimensions
    free_last: bool = False              # last size a symbol, bound by another operand (K)
    fixed: Optional[np.ndarray] = None
    optional: bool = False               # the kernel takes None for it

    @property
    def is_float(self):
        return self.gen is not None


@dataclass
class Spec:
    name: str                             # the kernel, "+x" when its optional input x is given
    args: List[Arg]                       # in the descriptor's order
    outs: List[Tuple[int, ...]]           # core shapes of the results
    reference: Callable                   # reference.py's function of the same name

    @property
    def kernel(self):
        return self.name.split("+")[0]

    @property
    def fn(self):
        return getattr(sk, self.kernel)

    @property
    def out_pair(self):                   # out= is a tuple (one array per result)
        return len(self.outs) > 1

    def make(self, rng, batch=(), dtype=np.float64, integer=False):
        kw = {}
        for a in self.args:
            if a.is_float:
                shape = (tuple(batch) if a.batch else ()) + a.core
                kw[a.name] = a.gen(rng, shape, integer).astype(dtype)
            else:
                kw[a.name] = a.fixed.copy()
        return kw

    def call(self, kw, out=None):
        res = self.fn(**kw) if out is None else self.fn(**kw, out=out)
        return tuple(res) if len(self.outs) > 1 else (res,)

    def expected(self, kw):
        res = self.reference(**kw)
        return tuple(res) if len(self.outs) > 1 else (res,)

    def float_args(self):
        return [a for a in self.args if a.is_float]

    def batch_args(self):
        return [a for a in self.args if a.is_float and a.batch]


def arg_of(o):
    """The Arg of input operand ``o`` of a descriptor."""
    if o.name in INDICES:
        assert INDICES[o.name].shape == o.shape(SIZES), o
        return Arg(o.name, fixed=INDICES[o.name], core=o.shape(SIZES), batch=o.batched)
    return Arg(o.name, VALUES[o.name], o.shape(SIZES), o.batched,
               free_last=bool(o.core) and isinstance(o.core[-1], str),
               optional=o.role == "optional")


def specs_of(kernel):
    """The specs of a kernel, from its descriptor (skinkit.kernels.operands): without its optional
    inputs, then, if it has some, with them (and the results that exist only then)."""
    ops = operands(kernel)
    optional = [o.name for o in ops if o.role == "optional"]
    specs = []
    for given in [[]] + [optional] * bool(optional):
        args = [arg_of(o) for o in ops
                if o.role == "in" or o.role == "optional" and o.name in given]
        outs = [o.shape(SIZES) for o in ops
                if o.role == "out" and (o.if_given is None or o.if_given in given)]
        specs.append(Spec("+".join([kernel] + given), args, outs, getattr(ref, kernel)))
    return specs


KERNELS = [n for n in sk.kernels.__all__ if n in _core._shapes or n in SAME_AS]
SPECS = [s for kernel in KERNELS for s in specs_of(kernel)]
IDS = [s.name for s in SPECS]


def test_every_public_kernel_is_in_the_table():
    """The public kernels of the table, and the NumPy functions that have no descriptor."""
    assert set(sk.kernels.__all__) - set(KERNELS) == {"normalize_weights", "limit_influences"}


def specs_where(keep):
    """The specs for which keep(spec) holds, as parameters named after their kernel."""
    return [pytest.param(s, id=s.name) for s in SPECS if keep(s)]


def spec_arg_params(select):
    return [pytest.param(s, a, id=f"{s.name}-{a.name}") for s in SPECS for a in select(s)]


# --------------------------------------------------------------------------- dtypes


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_integer_inputs_become_float64(spec):
    rng = helpers.rng_for("int", spec.name)
    kw_int = spec.make(rng, (2,), np.int64, integer=True)
    kw_f = {k: (v.astype(np.float64) if k in {a.name for a in spec.float_args()} else v)
            for k, v in kw_int.items()}
    got = spec.call(kw_int)
    for g, e in zip(got, spec.call(kw_f)):
        assert g.dtype == np.float64
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("spec", specs_where(lambda s: len(s.float_args()) > 1))
def test_mixed_float32_float64_gives_float64(spec):
    rng = helpers.rng_for("mixed", spec.name)
    kw = spec.make(rng, (2,), np.float64)
    # not a rotation quaternion: float32 rounding would make it non-unit, and the kernels (as
    # documented) assume unit rotations where the reference does not
    pick = [a for a in spec.float_args() if a.gen is not g_quat] or spec.float_args()
    kw[pick[-1].name] = kw[pick[-1].name].astype(np.float32)
    got = spec.call(kw)
    assert all(g.dtype == np.float64 for g in got)
    helpers.check_results(spec, got, kw)


BAD_DTYPES = {
    "bool": lambda a: a != 0,
    "complex": lambda a: a.astype(np.complex128),
    "float16": lambda a: a.astype(np.float16),
    "object": lambda a: a.astype(object),
    "str": lambda a: a.astype(str),
}


@pytest.mark.parametrize("bad", list(BAD_DTYPES))
@pytest.mark.parametrize("spec, arg", spec_arg_params(Spec.float_args))
def test_unsupported_dtype_is_a_type_error(spec, arg, bad):
    kw = spec.make(helpers.rng_for("bad", spec.name), (2,))
    kw[arg.name] = BAD_DTYPES[bad](kw[arg.name])
    with pytest.raises(TypeError):
        spec.call(kw)


# --------------------------------------------------------------------------- shapes


def with_core_args(spec):
    return [a for a in spec.float_args() if a.core and not a.free_last]


@pytest.mark.parametrize("spec, arg", spec_arg_params(with_core_args))
def test_wrong_last_dimension(spec, arg):
    kw = spec.make(helpers.rng_for("lastdim", spec.name), (2,))
    a = kw[arg.name]
    bad = np.ones(a.shape[:-1] + (a.shape[-1] + 1,), a.dtype)
    kw[arg.name] = bad
    with pytest.raises(ValueError) as info:
        spec.call(kw)
    msg = str(info.value)
    assert re.search(rf"\b{arg.name}\b", msg), msg
    assert str(bad.shape) in msg, msg


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_empty_batch(spec):
    kw = spec.make(helpers.rng_for("empty", spec.name), (0,))
    got = spec.call(kw)
    assert [g.shape for g in got] == [(0,) + o for o in spec.outs]
    assert all(g.dtype == np.float64 for g in got)


@pytest.mark.parametrize("spec", specs_where(lambda s: len(s.batch_args()) > 1))
def test_non_broadcastable_batch(spec):
    rng = helpers.rng_for("nobcast", spec.name)
    kw = spec.make(rng, (2,))
    second = spec.batch_args()[1]
    kw[second.name] = spec.make(rng, (3,))[second.name]
    with pytest.raises(ValueError):
        spec.call(kw)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_batch_broadcasting(spec):
    """(2, 1) against (3,) gives (2, 3) for every pair of batched arguments."""
    rng = helpers.rng_for("bcast", spec.name)
    kw = spec.make(rng, (2, 1))
    for a in spec.batch_args()[1:]:
        kw[a.name] = spec.make(rng, (3,))[a.name]
    got = spec.call(kw)
    batch = (2, 3) if len(spec.batch_args()) > 1 else (2, 1)
    assert [g.shape for g in got] == [batch + o for o in spec.outs]
    helpers.check_results(spec, got, kw)


# --------------------------------------------------------------------------- memory layouts


def all_array_args(spec):
    return spec.args


@pytest.mark.parametrize("layout", ["strided", "fortran", "byteswapped", "readonly",
                                    "transposed"])
@pytest.mark.parametrize("dtype", helpers.DTYPES)
@pytest.mark.parametrize("spec, arg", spec_arg_params(all_array_args))
def test_any_memory_layout(spec, arg, dtype, layout):
    kw = spec.make(helpers.rng_for("layout", spec.name), (2, 3), dtype)
    variants = helpers.layouts(kw[arg.name])
    if layout not in variants:          # 1-d: "transposed" is the array itself
        variants[layout] = kw[arg.name]
    kw[arg.name] = variants[layout]
    got = spec.call(kw)
    assert all(g.dtype == dtype for g in got)
    helpers.check_results(spec, got, kw)


# --------------------------------------------------------------------------- out=


def make_out(spec, shape_batch, dtype):
    return [np.empty(shape_batch + o, dtype) for o in spec.outs]


def pass_out(spec, outs):
    return tuple(outs) if spec.out_pair else outs[0]


@pytest.mark.parametrize("dtype", helpers.DTYPES)
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_out(spec, dtype):
    kw = spec.make(helpers.rng_for("out", spec.name), (2, 3), dtype)
    outs = make_out(spec, (2, 3), dtype)
    got = spec.call(kw, pass_out(spec, outs))
    assert all(g is o for g, o in zip(got, outs))
    helpers.check_results(spec, got, kw)


BAD_OUTS = {
    "shape": lambda o: np.empty((1,) + o.shape, o.dtype),
    "core-shape": lambda o: np.empty(o.shape[:-1] + (o.shape[-1] + 1,), o.dtype),
    "broadcastable-shape": lambda o: np.empty((1,) + o.shape[1:], o.dtype),
    "non-contiguous": lambda o: np.empty(o.shape[:-1] + (2 * o.shape[-1],), o.dtype)[..., ::2],
    "fortran": lambda o: np.asfortranarray(np.empty(o.shape, o.dtype)),
    "read-only": lambda o: np.lib.stride_tricks.as_strided(np.empty(o.shape, o.dtype),
                                                           writeable=False),
}


@pytest.mark.parametrize("bad", list(BAD_OUTS))
@pytest.mark.parametrize("spec, which", [pytest.param(s, i, id=f"{s.name}-out{i}")
                                         for s in SPECS for i in range(len(s.outs))])
def test_bad_out_is_a_value_error(spec, which, bad):
    kw = spec.make(helpers.rng_for("badout", spec.name), (2, 3))
    outs = make_out(spec, (2, 3), np.float64)
    outs[which] = BAD_OUTS[bad](outs[which])
    with pytest.raises(ValueError):
        spec.call(kw, pass_out(spec, outs))


@pytest.mark.parametrize("out_dtype", [np.float32, np.int64, np.complex128])
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_out_of_wrong_dtype_is_a_type_error(spec, out_dtype):
    kw = spec.make(helpers.rng_for("dtypeout", spec.name), (2, 3))
    outs = make_out(spec, (2, 3), np.float64)
    outs[-1] = outs[-1].astype(out_dtype)
    with pytest.raises(TypeError):
        spec.call(kw, pass_out(spec, outs))


@pytest.mark.parametrize("spec, arg", spec_arg_params(Spec.float_args))
def test_out_overlapping_an_input_is_a_value_error(spec, arg):
    kw = spec.make(helpers.rng_for("overlap", spec.name), (2, 3))
    outs = make_out(spec, (2, 3), np.float64)
    a = kw[arg.name]
    buf = np.zeros(max(a.size, outs[0].size))
    view = buf[:a.size].reshape(a.shape)
    view[...] = a
    kw[arg.name] = view
    outs[0] = buf[:outs[0].size].reshape(outs[0].shape)
    with pytest.raises(ValueError):
        spec.call(kw, pass_out(spec, outs))


# --------------------------------------------------------------------------- NaN


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_nan_and_inf_propagate(spec, value):
    """A non-finite input gives non-finite values in the items it touches, finite elsewhere, and
    never an exception."""
    kw = spec.make(helpers.rng_for("nan", spec.name), (2,))
    first = spec.float_args()[0].name
    kw[first][(0,) * kw[first].ndim] = value
    got = spec.call(kw)
    assert any(not np.isfinite(g).all() for g in got)
    assert all(np.isfinite(g[1:]).all() for g in got if spec.float_args()[0].batch)


# --------------------------------------------------------------------------- threads


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_concurrent_calls_agree(spec):
    """The GIL is released while a kernel runs: calls from several threads at once must give
    the single-threaded results (no shared scratch state)."""
    rng = helpers.rng_for("threads", spec.name)
    kws = [spec.make(rng, (64,)) for _ in range(8)]
    alone = [spec.call(kw) for kw in kws]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(5):
            together = list(pool.map(spec.call, kws))
            for a, b in zip(alone, together):
                for x, y in zip(a, b):
                    np.testing.assert_array_equal(x, y)
