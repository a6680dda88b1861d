"""Fuzz the NumPy bindings: every public kernel, Clip/Channel and Clip.sample (atheris).

    python fuzz/fuzz_kernels.py [libFuzzer flags] [CORPUS_DIR ...]    e.g. -max_total_time=300
    python fuzz/run.py --minutes 5

The input picks a function, then for each argument a dtype (float32/64, integer types, bool,
float16, complex, object, str, a Python list or scalar, None), a shape (usually the right core
shape with a small batch, sometimes anything, rarely a zero-stride dimension of 2**40 items or
more), a memory layout (strided, Fortran, transposed, reversed, byte-swapped, misaligned,
read-only, zero-stride) and the values (any float bits: NaN, Inf, denormals).  Index arrays
(parents, joints) get values around their valid range; ``out=`` is sometimes given, of the right
or a wrong shape/dtype/layout, or overlapping an input.

Every call must return, or raise TypeError, ValueError or MemoryError.  Any other exception is a
bug (raised here so that libFuzzer reports it), and so is a crash.  Results must have the
documented dtype (float32 or float64).  Run under the sanitizer build (see .ci/sanitize) to also
catch out-of-bounds reads and writes.
"""
import os
import sys
import warnings

import atheris
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_inputs import fuzz_main  # noqa: E402

with atheris.instrument_imports(include=["skinkit"]):
    import skinkit as sk
    from skinkit.kernels.operands import operands

ALLOWED = (TypeError, ValueError, MemoryError)
FLOAT_DTYPES = [np.float64, np.float32]
OTHER_DTYPES = [np.int64, np.int32, np.uint8, np.int16, np.uint64, np.bool_, np.float16,
                np.complex128, object, "U2", np.longdouble]
INDEX_DTYPES = [np.int32, np.int64, np.uint8, np.uint16, np.int8, np.uint32, np.uint64,
                np.int16, np.float64, np.bool_, object]
# zero-stride batch sizes whose materialization cannot fit in memory (so it fails at once); a
# smaller one (2**31) of a valid shape is copied by the bindings before the size is refused
HUGE = [2**40, 2**44, 2**59 // 16]
MAX_ELEMENTS = 512


class Gen:
    def __init__(self, data):
        self.fdp = atheris.FuzzedDataProvider(data)
        # half the calls keep dtypes, shapes and indices valid, to get past the checks and
        # exercise the kernels themselves on hostile values and layouts
        self.valid = self.chance(2)

    def int(self, lo, hi):
        return self.fdp.ConsumeIntInRange(lo, hi)

    def pick(self, seq):
        return seq[self.fdp.ConsumeIntInRange(0, len(seq) - 1)]

    def chance(self, n):
        """True with probability 1/n."""
        return self.fdp.ConsumeIntInRange(0, n - 1) == 0

    def shape(self, core, batch):
        if self.valid:
            return tuple(batch) + tuple(core)
        if self.chance(8):                               # anything
            return tuple(self.int(0, 5) for _ in range(self.int(0, 4)))
        core = tuple(self.int(0, 5) if self.chance(12) else c for c in core)
        return tuple(batch) + core

    def values(self, n, dtype):
        if n == 0:
            return np.zeros(0, dtype)
        style = self.int(0, 3)
        if style == 0:                                   # raw float bits: NaN, Inf, denormals
            raw = self.fdp.ConsumeBytes(8 * n)
            raw += b"\0" * (8 * n - len(raw))
            v = np.frombuffer(raw, np.float64)
        elif style == 1:
            v = np.array([self.fdp.ConsumeRegularFloat() for _ in range(min(n, 16))] or [0.0])
            v = np.resize(v, n)
        else:                                            # small "reasonable" values
            v = np.resize(np.array([self.int(-4, 4) / 2 for _ in range(min(n, 16))] or [0.0]), n)
        with np.errstate(all="ignore"):
            try:
                return v.astype(dtype)
            except (ValueError, TypeError, OverflowError):
                return np.zeros(n, dtype)

    def layout(self, a):
        a = np.asarray(a)
        kind = self.int(0, 9)
        if kind == 0 or a.ndim == 0:
            return a
        if kind == 1:                                    # strided
            big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
            big[..., ::2] = a
            return big[..., ::2]
        if kind == 2:
            return np.asfortranarray(a)
        if kind == 3 and a.ndim >= 2:
            return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
        if kind == 4:
            return np.ascontiguousarray(a[::-1])[::-1]
        if kind == 5 and a.dtype != object:
            return a.astype(a.dtype.newbyteorder("S"))
        if kind == 6 and a.dtype != object and a.size:   # misaligned
            buf = np.zeros(a.nbytes + a.itemsize + 1, np.uint8)
            m = buf[1:1 + a.nbytes].view(a.dtype).reshape(a.shape)
            m[...] = a
            return m
        if kind == 7:
            a = a.copy()
            a.flags.writeable = False
            return a
        if kind == 8:                                    # zero stride on a new axis
            return np.broadcast_to(a, (self.int(0, 3),) + a.shape)
        return a

    def float_array(self, core, batch):
        """A float-ish argument with the given core shape."""
        r = self.int(7, 31) if self.valid else self.int(0, 31)
        if r == 0:
            return None
        if r == 1:
            return self.fdp.ConsumeRegularFloat()
        if r == 2:                                       # nested lists
            return self.values(int(np.prod(core)), np.float64).reshape(core).tolist()
        dtype = self.pick(FLOAT_DTYPES) if r > 6 else self.pick(OTHER_DTYPES)
        shape = self.shape(core, batch)
        n = int(np.prod(shape))
        if n > MAX_ELEMENTS:
            shape, n = core, int(np.prod(core))
        a = self.values(n, np.float64 if dtype == object else dtype).reshape(shape)
        if dtype == object:
            a = a.astype(object)
        a = self.layout(a)
        if self.chance(40):                              # a huge zero-stride batch dimension
            a = np.broadcast_to(a, (self.pick(HUGE),) + np.shape(a)) \
                if a.size and a.nbytes * HUGE[-1] < 2**62 else a
        return a

    def index_array(self, n, lo, hi, extra_dims=0):
        if self.valid:
            return self.valid_indices(n, lo, hi, extra_dims)
        r = self.int(0, 15)
        if r == 0:
            return None
        shape = (n,) + tuple(self.int(0, 3) for _ in range(extra_dims))
        if self.chance(10):
            shape = tuple(self.int(0, 4) for _ in range(self.int(0, 3)))
        size = int(np.prod(shape))
        if size > MAX_ELEMENTS:
            shape, size = (n,), n
        vals = [self.int(lo, hi) if not self.chance(30)
                else self.pick([2**31, 2**32 - 1, 2**63 - 1, -2**31, 255, 65535])
                for _ in range(size)]
        dtype = self.pick(INDEX_DTYPES)
        if r == 1:
            return vals
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                a = np.array(vals, dtype=np.int64 if dtype == object else np.int64)
                a = a.astype(dtype).reshape(shape)
            except (OverflowError, ValueError, TypeError):
                a = np.zeros(shape, np.int32)
        return self.layout(a)

    def valid_indices(self, n, lo, hi, extra_dims, k=None):
        """parents (extra_dims 0): a forest in a random order; joints: indices in [-1, hi)."""
        if extra_dims == 0:
            order = list(range(n))
            for i in range(n - 1, 0, -1):                # Fisher-Yates from the fuzz bytes
                j = self.int(0, i)
                order[i], order[j] = order[j], order[i]
            parents = [-1] * n
            for k in range(1, n):
                parents[order[k]] = order[self.int(0, k - 1)] if not self.chance(4) else -1
            dtype = self.pick([np.int32, np.int64, np.int16, np.int8])
            return self.layout(np.array(parents, dtype=dtype))
        k = self.int(0, 4) if k is None else k
        vals = [self.int(-1, hi - 1) for _ in range(n * k)]
        dtype = self.pick([np.uint8, np.uint16, np.int32, np.int64]) if hi <= 255 and \
            -1 not in vals else self.pick([np.int32, np.int64, np.int16])
        return self.layout(np.array(vals, dtype=np.int64).reshape(n, k).astype(dtype))

    def out_for(self, result, inputs):
        """An out= for a call whose normal result is ``result`` (an array)."""
        r = self.int(0, 9)
        if r <= 3:
            return np.empty_like(result)                 # right
        if r == 4:
            return np.empty(result.shape, self.pick([np.float32, np.float64, np.int64]))
        if r == 5:
            return np.empty(result.shape[:-1] + (result.shape[-1] + 1,), result.dtype) \
                if result.ndim else np.empty(1, result.dtype)
        if r == 6:                                       # overlapping an input
            arrays = [a for a in inputs if isinstance(a, np.ndarray) and a.size
                      and a.dtype == result.dtype and a.flags.writeable]
            if arrays and result.size:
                a = self.pick(arrays)
                base = a.base if a.base is not None and isinstance(a.base, np.ndarray) else a
                flat = base.reshape(-1) if base.flags.c_contiguous else None
                if flat is not None and flat.size >= result.size:
                    return flat[:result.size].reshape(result.shape)
            return np.empty_like(result)
        if r == 7:
            return self.layout(np.empty_like(result))
        if r == 8:
            return result.tolist() if result.ndim else 0.0
        return None


def check_result(res):
    items = res if isinstance(res, tuple) else (res,)
    for r in items:
        if not isinstance(r, np.ndarray) or r.dtype not in (np.float32, np.float64):
            raise AssertionError(f"result is not a float array: {type(r)} {getattr(r, 'dtype', '')}")


def parents_arg(g, size):
    return g.index_array(size["J"], -2, size["J"])


def joints_arg(g, size):
    V, J, K = size["V"], size["J"], size["K"]
    if g.valid:
        return g.valid_indices(V, -1, J, 1, k=K)
    if g.chance(5):
        return g.index_array(V, -2, J, extra_dims=0)
    return g.index_array(V, -1, J, extra_dims=1)


# The operands of a kernel, their order, roles and shapes come from its descriptor
# (skinkit.kernels.operands); what it does not say is here, by operand name: how to make the integer
# operands.  The symbols' sizes are drawn per call.
INDICES = {"parents": parents_arg, "joints": joints_arg}
NUMPY = ("normalize_weights", "limit_influences")   # NumPy code, no descriptor


def kernel_arguments(g, name, size, batch):
    """Keyword arguments for the kernel ``name`` (an optional input given half the time)."""
    kw = {}
    for o in operands(name):
        if o.role == "out" or o.role == "optional" and not g.chance(2):
            continue
        if o.name in INDICES:
            kw[o.name] = INDICES[o.name](g, size)
        else:
            leading = (batch[1:] if g.chance(4) else batch) if o.batched else ()
            kw[o.name] = g.float_array(o.shape(size), leading)
    return kw


def call_kernel(g, name):
    fn = getattr(sk, name)
    batch = tuple(g.int(0, 3) for _ in range(g.int(0, 2)))
    size = {"J": g.int(0, 5), "V": g.int(0, 6), "K": g.int(0, 5)}
    if name == "normalize_weights":
        kw = {"weights": g.float_array((size["V"], size["K"]), ())}
    elif name == "limit_influences":
        kw = {"joints": joints_arg(g, size), "weights": g.float_array((size["V"], size["K"]), ()),
              "k": g.int(-1, 6)}
    else:
        kw = kernel_arguments(g, name, size, batch)
    args = list(kw.values())
    try:
        res = fn(**kw)
    except ALLOWED:
        return
    if name in NUMPY:                                        # same dtype as given
        return
    check_result(res)
    # the same call with out=
    two = isinstance(res, tuple)
    outs = tuple(g.out_for(r, args) for r in res) if two else g.out_for(res, args)
    if (outs is None) or (two and g.chance(5)):
        outs = g.out_for(res[0], args) if two else outs
    try:
        got = fn(**kw, out=outs)
    except ALLOWED:
        return
    check_result(got)


PATHS = ["translation", "rotation", "scale", "weights"]
INTERP = ["LINEAR", "STEP", "CUBICSPLINE", "cubic"]


def call_clip(g):
    channels = []
    for _ in range(g.int(0, 4)):
        path, interp = g.pick(PATHS[:3] if g.valid else PATHS), g.pick(
            INTERP[:3] if g.valid else INTERP)
        nk = g.int(1 if g.valid else 0, 5)
        comps = 4 if path == "rotation" else 3
        times = g.values(nk, np.float64)
        if g.valid or g.chance(2):
            times = np.sort(np.abs(np.nan_to_num(times) % 8)) + np.arange(nk)  # increasing
        rows = nk * (3 if interp == "CUBICSPLINE" else 1)
        values = g.float_array((rows, comps), ()) if g.chance(3) and not g.valid else \
            g.values(rows * comps, np.float64).reshape(rows, comps)
        node = g.int(0, 5) if g.valid else g.int(-1, 5) if not g.chance(20) else \
            g.pick([2**31, 2**63, 1.5, "1", None])
        try:
            channels.append(sk.Channel(node, path, g.layout(times), values, interp))
        except ALLOWED:
            continue
    try:
        clip = sk.Clip(g.pick([None, "c"]), channels, dtype=g.pick(
            [np.float64, np.float32] if g.valid else [np.float64, np.float32, np.float16]))
    except ALLOWED:
        return
    n = g.int(6, 7) if g.valid else g.int(0, 6)
    rest = (g.float_array((n, 3), ()), g.float_array((n, 4), ()), g.float_array((n, 3), ()))
    if g.chance(10) and not g.valid:
        rest = rest[:g.int(0, 3)]
    times = g.float_array((g.int(0, 6),), tuple(g.int(0, 2) for _ in range(g.int(0, 1))))
    try:
        res = clip.sample(times, rest, loop=g.chance(2))
    except ALLOWED:
        return
    check_result(res)
    if res[0].dtype != clip.dtype:
        raise AssertionError(f"sample gave {res[0].dtype} for a {clip.dtype} clip")


NAMES = list(sk.kernels.__all__)


def TestOneInput(data: bytes):
    g = Gen(data)
    which = g.int(0, len(NAMES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if which == len(NAMES):
            call_clip(g)
        else:
            call_kernel(g, NAMES[which])


def main(argv=None):
    np.seterr(all="ignore")
    return fuzz_main(sys.argv if argv is None else argv, TestOneInput)


if __name__ == "__main__":
    main()
