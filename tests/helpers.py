"""Helpers shared by the tests: seeded random inputs, tolerances and comparisons, unusual memory
layouts, memory measurement.  (The reference math itself is in reference.py.)"""
from __future__ import annotations

import re
import resource
import zlib

import numpy as np
import pytest

import reference as ref

DTYPES = (np.float32, np.float64)
BATCHES = ((), (5,), (2, 3))
JOINT_DTYPES = (np.uint8, np.uint16, np.int32, np.int64)


def each_dtype_and_batch(test):
    """Parametrize ``test(dtype, batch)`` over every dtype and batch shape."""
    for name, values in (("dtype", DTYPES), ("batch", BATCHES)):
        test = pytest.mark.parametrize(name, values)(test)
    return test


def each_skinning_case(test):
    """Parametrize a skinning test ``test(dtype, K, jdtype)`` over every dtype, K = 1, 4 and 8
    influences a vertex and every joint index dtype."""
    for name, values in (("dtype", DTYPES), ("K", (1, 4, 8)), ("jdtype", JOINT_DTYPES)):
        test = pytest.mark.parametrize(name, values)(test)
    return test


def rng_for(*key):
    """A generator seeded by ``key`` (stable across runs, unlike hash())."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def tol(dtype):
    """(rtol, atol) for comparing a kernel result of ``dtype`` with the float64 reference."""
    return (1e-5, 1e-5) if np.dtype(dtype) == np.float32 else (1e-12, 1e-12)


def assert_close(actual, expected, dtype=None, scale=1.0):
    """Compare with the tolerance of ``dtype`` (default: the dtype of ``actual``); ``scale``
    widens the tolerance for long computations (chains, big magnitudes)."""
    actual = np.asarray(actual)
    rtol, atol = tol(actual.dtype if dtype is None else dtype)
    np.testing.assert_allclose(actual, np.asarray(expected, dtype=np.float64),
                               rtol=rtol * scale, atol=atol * scale)


def assert_quat_close(actual, expected, dtype=None, scale=1.0):
    """Compare quaternions up to sign (q and -q are the same rotation)."""
    actual = np.asarray(actual)
    dtype = actual.dtype if dtype is None else dtype
    a64, expected = actual.astype(np.float64), np.asarray(expected, dtype=np.float64)
    sign = np.where(np.sum(a64 * expected, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    assert_close(a64 * sign, expected, dtype=dtype, scale=scale)


def random_quats(rng, shape=(), dtype=np.float64):
    """Uniformly distributed unit quaternions of shape ``shape + (4,)`` with mixed signs of w."""
    q = rng.normal(size=tuple(shape) + (4,))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return q.astype(dtype)


def random_tree(rng, J, depth=None):
    """A random forest of J joints with parents listed in random order (not topological).

    When ``depth`` is given the first ``depth`` joints (before permutation) form a chain, so the
    forest has depth >= depth.  Returns int32 parents (J,).
    """
    parents = np.full(J, -1)
    for i in range(1, J):
        if depth is not None and i < depth:
            parents[i] = i - 1
        else:
            parents[i] = rng.integers(-1, i) if i > 1 else 0
    return _shuffled(parents, rng)


def chain_parents(J, rng=None):
    """A single chain of J joints (depth J), optionally listed in random order."""
    parents = np.arange(-1, J - 1)
    return parents.astype(np.int32) if rng is None else _shuffled(parents, rng)


def _shuffled(parents, rng):
    """The same forest with its joints listed in a random order."""
    perm = rng.permutation(len(parents))     # new index of old joint i is perm[i]
    new = np.full(len(parents), -1)
    for old, p in enumerate(parents):
        new[perm[old]] = -1 if p < 0 else perm[p]
    return new.astype(np.int32)


def depth_of(parents, i):
    d = 0
    while parents[i] >= 0:
        i = parents[i]
        d += 1
    return d


def random_affine(rng, shape=(), scale=(0.5, 2.0)):
    """Well-conditioned 4x4 affine matrices: rotation, positive non-uniform scale, translation."""
    q = random_quats(rng, shape)
    s = rng.uniform(*scale, size=tuple(shape) + (3,))
    t = rng.normal(size=tuple(shape) + (3,))
    m = np.zeros(tuple(shape) + (4, 4))
    m[..., :3, :3] = ref.quat_to_matrix(q) * s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def layouts(a):
    """Copies of ``a`` in unusual memory layouts, all equal in value to ``a``:
    a strided slice, Fortran order, byte-swapped, read-only."""
    a = np.asarray(a)
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],) if a.ndim else (2,), dtype=a.dtype)
    strided = big[..., ::2]
    strided[...] = a
    fortran = np.asfortranarray(a)
    swapped = a.astype(a.dtype.newbyteorder("S"))      # non-native byte order, e.g. '>f8'
    readonly = a.copy()
    readonly.flags.writeable = False
    out = {"strided": strided, "fortran": fortran, "byteswapped": swapped, "readonly": readonly}
    if a.ndim >= 2:
        out["transposed"] = np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    return out


class ArrayOnly:
    """Exposes an array only through ``__array__`` (as pandas, xarray and many wrappers do)."""

    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and np.dtype(dtype) != self._a.dtype:
            if copy is False:
                raise ValueError("a copy would be needed")
            return self._a.astype(dtype)
        return self._a


def peak_rss_growth(fn):
    """Run fn(); return how many bytes the peak resident set grew beyond the resident set at the
    start (Linux: the peak is reset through /proc/self/clear_refs; elsewhere ru_maxrss)."""
    def status(key):
        with open("/proc/self/status") as f:
            return int(re.search(rf"{key}:\s+(\d+) kB", f.read()).group(1)) * 1024
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        start = status("VmRSS")
        fn()
        return status("VmHWM") - start
    except OSError:
        start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        fn()
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - start


def check_results(spec, got, kw, scale=10):
    """Results of a kernel spec (test_api_contract.SPECS) against its reference, shapes and values."""
    expected = spec.expected(kw)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == np.shape(e)
        assert_close(g, e, scale=scale)


def check_kernel(kernel, reference, args, dtype, shape, scale=1.0):
    """``kernel(*args)`` has ``dtype`` and ``shape`` and is close to ``reference(*args)``
    (``assert_close`` with ``scale``); returns the kernel's result."""
    got = kernel(*args)
    assert got.dtype == dtype and got.shape == shape
    assert_close(got, reference(*args), scale=scale)
    return got


def check_kernel_with_normals(kernel, reference, args, dtype, shape, scale, normal_scale):
    """A skinning kernel with normals: ``kernel(*args)`` -> (positions, normals), both of
    ``dtype`` and ``shape``, close to ``reference(*args)`` (``scale``, ``normal_scale``)."""
    pos, nrm = kernel(*args)
    assert pos.dtype == nrm.dtype == dtype and pos.shape == nrm.shape == shape
    epos, enrm = reference(*args)
    assert_close(pos, epos, scale=scale)
    assert_close(nrm, enrm, scale=normal_scale)
    return pos, nrm


def in_file(path, pattern=""):
    """A ``pytest.raises(match=...)`` pattern for a reader's error: the message starts with the
    file, then ``pattern`` (a regular expression: the JSON path or ``line N``)."""
    return "^" + re.escape(str(path)) + ": " + pattern
