"""Lane groups (src/sample.c, sample_lanes.h): runs of LINEAR rotation or 3-vector channels that
share key times, sampled 8 channels side by side (AVX2; float64 also AVX-512).  Checked
against the glTF 2.0 Appendix C reference, against the scalar path (a table without its
prepared buffer: no groups, no AVX2), and for the same bits whatever the threads and the split
of the times or of the channels."""
import numpy as np
import pytest

from skinkit import Channel, Clip, _core
import helpers
import reference as ref
from test_sample import key_values

DTYPES = helpers.DTYPES
KT_A = np.array([0.1, 0.4, 0.5, 1.2, 2.0, 2.1, 3.0])   # the key times most channels share
KT_B = np.array([0.0, 0.7, 1.9, 2.5])


def _channels(rng):
    """Per path, runs of LINEAR channels sharing KT_A (17, 9, 8, 2 long, broken by STEP and
    CUBICSPLINE channels and channels on other key times) and lone ones: groups of 8, 8 and a
    lone one, 8 and 1, 8, a padded 2.  79
    channels: translations 0-23, rotations 24-61 (groups from 24 on), scales 62-78."""
    layout = {"rotation": [("LINEAR", KT_A, 17), ("STEP", KT_A, 1), ("LINEAR", KT_A, 9),
                           ("CUBICSPLINE", KT_A, 1), ("LINEAR", KT_B, 1), ("LINEAR", KT_A, 2)],
              "translation": [("LINEAR", KT_A, 9), ("LINEAR", KT_B, 3), ("LINEAR", KT_A, 8),
                              ("CUBICSPLINE", KT_A, 2), ("LINEAR", KT_A, 2)],
              "scale": [("LINEAR", KT_A, 17)]}
    chans = []
    for path, runs in layout.items():
        node = 0
        for interp, kt, n in runs:
            for _ in range(n):
                chans.append(Channel(node, path, kt, key_values(rng, path, interp, kt), interp))
                node += 1
    return chans


def _sample(table, times, nodes, threads=None):
    """_core.sample_channels into fresh outputs (translations, rotations, scales) per time."""
    ncomp = table.ncomp.astype(np.int64)
    out = tuple(np.full((times.size, nodes, k), np.nan, table.values.dtype) for k in (3, 4, 3))
    _core.sample_channels(table, table.node * ncomp, nodes * ncomp, times,
                          tuple(o.reshape(-1) for o in out), threads)
    return out


def _times(rng, n, sort):
    t = np.concatenate([[-1.0, 0.1, 3.0, 9.0], KT_A, KT_B, rng.uniform(-0.5, 3.5, n - 15)])
    return np.sort(t) if sort else t


def _ulps(a, b):
    """The largest distance of unit quaternions' components in units in the last place of 1
    (a component's own ulp means nothing near 0, where the slerp's sum cancels)."""
    return np.max(np.abs(a.astype(np.float64) - b)) / np.finfo(a.dtype).eps


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_lane_groups_match_the_reference_and_the_scalar_path(dtype, sort):
    """Every channel, grouped or not, within rounding of the Appendix C reference.  Against the
    scalar path: the lerped 3-vectors the very bits (the same operations in the same order, no
    FMA); slerps within 2 ulp of 1 (1 measured: float32 lanes take an 8-lane float sine/cosine
    and FMAs where the scalar path rounds a double one, float64 lanes the scalar path's
    polynomials with FMAs)."""
    rng = helpers.rng_for("lanes", sort)
    chans = _channels(rng)
    clip = Clip("lanes", chans, dtype)
    table = clip._table
    assert table.prepared.size > table.values.size         # the clip forms lane groups
    times = _times(rng, 200, sort).astype(dtype)
    nodes = 40
    got = _sample(table, times, nodes)
    scalar = _sample(table._replace(prepared=None), times, nodes)
    keyed = [Channel(c.node, c.path, c.times.astype(dtype), c.values.astype(dtype),
                     c.interpolation) for c in chans]
    rest = (np.zeros((nodes, 3)), np.tile([0.0, 0, 0, 1], (nodes, 1)), np.ones((nodes, 3)))
    for p, (g, s, e) in enumerate(zip(got, scalar, ref.sample_clip(keyed, times, rest))):
        written = np.unique([c.node for c in chans if c.path == ("translation", "rotation",
                                                                  "scale")[p]])
        g, s, e = g[:, written], s[:, written], e[:, written]
        helpers.assert_close(g, e, scale=10)
        if p != 1 or _core.simd() == "baseline":
            np.testing.assert_array_equal(g, s)
        else:
            assert _ulps(g, s) <= 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_lane_groups_give_the_same_bits_for_any_threads_and_split(dtype):
    """Threads share out the times (many times) or the channels (few: 2 threads split the 79
    channels at 39, inside a group of rotations, and each thread samples its part of it); one
    call or the times cut in two calls at an index that is no multiple of 8: the same bits."""
    rng = helpers.rng_for("lanes-split")
    chans = _channels(rng)
    table = Clip("lanes", chans, dtype)._table
    nodes = 40
    for n in (2000, 500):                                    # times split, channels split
        times = _times(rng, n, True).astype(dtype)
        one = _sample(table, times, nodes, threads=1)
        for a, b in zip(one, _sample(table, times, nodes, threads=2)):
            np.testing.assert_array_equal(a, b)
        cut = 37
        parts = [_sample(table, times[:cut], nodes), _sample(table, times[cut:], nodes)]
        for k, a in enumerate(one):
            np.testing.assert_array_equal(a, np.concatenate([parts[0][k], parts[1][k]]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_calls_stream_the_same_bits(dtype):
    """A call that writes 4 MiB or more (SK_STREAM_BYTES, skinkit.h) samples the lane groups
    whose rows lie side by side row by row and writes them with streaming stores, and
    Clip.sample fills such a rest pose with fill_rows: the bits of calls of 1,000 times (no
    streaming), into outputs at any alignment, with 1 or 2 threads."""
    rng = helpers.rng_for("lanes-stream")
    J = 64
    chans = [Channel(j, path, KT_A, key_values(rng, path, "LINEAR", KT_A))
             for path in ("translation", "rotation") for j in range(J)]
    clip = Clip("stream", chans, dtype)
    times = np.sort(rng.uniform(-0.5, 3.5, 6000)).astype(dtype)
    rest = (rng.normal(size=(J, 3)), helpers.random_quats(rng, (J,)), rng.normal(size=(J, 3)))
    small = [clip.sample(times[i:i + 1000], rest, threads=1) for i in range(0, times.size, 1000)]
    want = [np.concatenate([s[k] for s in small]) for k in range(3)]
    np.testing.assert_array_equal(want[2], np.broadcast_to(rest[2].astype(dtype), want[2].shape))
    for skip in (0, 1, 3):                                   # outputs off 64-byte lines
        buf = np.zeros(skip + times.size * J * 10, dtype)
        out, at = [], skip
        for k in (3, 4, 3):
            out.append(buf[at:at + times.size * J * k].reshape(times.size, J, k))
            at += times.size * J * k
        for threads in (1, 2):
            got = clip.sample(times, rest, threads=threads, out=tuple(out))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
    assert not buf[:skip].any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows", [3, 5000, 30_000])
def test_fill_rows_gives_the_same_bits_on_any_threads(dtype, rows):
    """fill_rows shares the rows out among the threads (GRAIN_FILL values each, bind_clip.c):
    30,000 rows of 192 values are 2 shares, written with streaming stores (SK_STREAM_BYTES,
    skinkit.h); 5,000 rows are one share, 3 rows far less.  Every row is the row, whatever the
    split, and nothing past out is written."""
    row = helpers.rng_for("fill-rows").normal(size=192).astype(dtype)
    for threads in (1, 2, None):
        buf = np.zeros(rows * row.size + 1, dtype)
        _core.fill_rows(buf[:-1], row, threads)
        np.testing.assert_array_equal(buf[:-1].reshape(rows, row.size),
                                      np.broadcast_to(row, (rows, row.size)))
        assert buf[-1] == 0


def test_fill_rows_checks_its_arrays():
    with pytest.raises(ValueError, match="threads"):
        _core.fill_rows(np.zeros(6), np.zeros(3), 0)
    _core.fill_rows(np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError, match="multiple"):
        _core.fill_rows(np.zeros(7), np.zeros(3))
    with pytest.raises(TypeError):
        _core.fill_rows(np.zeros(6, np.float32), np.zeros(3))
