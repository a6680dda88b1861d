"""The bounds of skinkit.compress's search (src/compress_encode.c): _core.rate_bounds (four rates
at a time with AVX2 in src/compress_encode_avx2.c), the error a quantized track causes alone at
each bit rate, and _core.track_bounds, at the other levels, and the encoder's other C helpers
(_core.rate_layout, the widths they are bounded at; _core.unit_rotations, a rotation track's
stored keys): against plain NumPy from their definitions, the same bits at every SIMD
level, and their refusals."""
import numpy as np
import pytest

from skinkit import _core

from conftest import at_simd_level


def _case(rng, tracks=3, rows=37, c=3, per=16, rates=5, dropped=True):
    segs = -(-rows // per)
    unit = rng.uniform(-0.05, 1.05, size=(tracks, rows, c))
    widths = rng.integers(0, 14, size=(tracks, rates, segs, c)).astype(np.uint8)
    lo = rng.uniform(-0.6, 0.1, size=(tracks, segs, 1, c))
    ranges = np.concatenate([lo, rng.uniform(0, 0.5, size=(tracks, segs, 1, c))], axis=2)
    full = c + dropped
    src = rng.normal(size=(tracks, rows, full))
    src /= np.linalg.norm(src, axis=-1, keepdims=True)
    lever = rng.uniform(0.1, 2.0, size=(tracks, rows))
    drop = rng.integers(0, c + 1, size=tracks).astype(np.int32) if dropped else \
        np.full(tracks, -1, np.int32)
    return unit, widths, ranges, per, src, lever, drop


def _numpy(unit, widths, ranges, per, src, lever, drop, rotation, want):
    """The bounds from their definition, key by key in float64."""
    tracks, rows, c = unit.shape
    out = np.zeros(want.shape)
    for m in range(tracks):
        for k in range(want.shape[1]):
            if not want[m, k]:
                continue
            worst = 0.0
            for i in range(rows):
                seg = i // per
                scale = (2.0 ** widths[m, k, seg].astype(np.float64)) - 1
                q = np.where(scale > 0, np.rint(np.maximum(unit[m, i] * scale, 0)) /
                             np.where(scale > 0, scale, 1), 0)
                v = ranges[m, seg, 0] + np.minimum(q, 1) * ranges[m, seg, 1]
                if drop[m] >= 0:
                    s = float(np.sum(v * v))
                    v = np.insert(v, drop[m], np.sqrt(1 - s) if s < 1 else 0.0)
                a = src[m, i]
                if rotation:
                    e = np.linalg.norm(a - (1 if a @ v >= 0 else -1) * v)
                else:
                    e = np.abs(a - v).max()
                worst = max(worst, e * lever[m, i])
            out[m, k] = worst
    return out


@pytest.mark.parametrize("c,dropped,rotation", [(3, True, True), (4, False, True),
                                                (3, False, False)])
def test_against_numpy(c, dropped, rotation):
    rng = np.random.default_rng(21 + c)
    unit, widths, ranges, per, src, lever, drop = _case(rng, c=c, dropped=dropped)
    want = (rng.random((3, 5)) < 0.8).astype(np.uint8)
    got = _core.rate_bounds(unit, widths, ranges, per, 0, 1, src, lever, drop, rotation, want)
    exp = _numpy(unit, widths, ranges, per, src, lever, drop, rotation, want)
    np.testing.assert_allclose(got, exp, rtol=1e-12, atol=1e-15)
    assert np.all(got[want == 0] == 0) and float(got.max()) > 1e-3


LEVELS_SCRIPT = """
import sys, numpy as np
from skinkit import _core
d = np.load(sys.argv[1])
got = _core.rate_bounds(d["unit"], d["widths"], d["ranges"], 16, 1, 3, d["src"], d["lever"],
                        d["drop"], True, d["want"])
np.savez(sys.argv[2], got=got, simd=_core.simd())
"""


@pytest.mark.parametrize("cap", ["baseline", "avx2"])
def test_bits_at_every_simd_level(tmp_path, cap):
    """Four rates a register with AVX2: the portable code's bits, over keys rows row0::step,
    five rates (a partial group of four), rates not wanted, fractions outside [0, 1] and a NaN
    lever."""
    rng = np.random.default_rng(22)
    unit, widths, ranges, per, _, _, drop = _case(rng, tracks=4, rows=61)
    keys = len(range(1, 61, 3))
    src = rng.normal(size=(4, keys, 4))
    lever = rng.uniform(0.1, 2.0, size=(4, keys))
    lever[2, 5] = np.nan
    d = {"unit": unit, "widths": widths, "ranges": ranges, "src": src, "lever": lever,
         "drop": drop, "want": np.ones((4, 5), np.uint8)}
    d["want"][0, [1, 4]] = 0
    d["want"][3, :4] = 0
    got = at_simd_level(LEVELS_SCRIPT, d, cap, tmp_path)
    assert str(got["simd"]) == cap or cap == "avx2" and str(got["simd"]) == "baseline"
    here = _core.rate_bounds(unit, widths, ranges, 16, 1, 3, src, lever, drop, True, d["want"])
    assert np.array_equal(here.view(np.uint64), got["got"].view(np.uint64))
    assert np.all(np.isnan(here[2])) and np.isfinite(here[[0, 1, 3]]).all()
    assert np.all(here[d["want"] == 0] == 0) and np.all(here[0, [0, 2, 3]] > 0)


def test_refusals_name_the_argument():
    rng = np.random.default_rng(23)
    unit, widths, ranges, per, src, lever, drop = _case(rng)
    want = np.ones((3, 5), np.uint8)
    with pytest.raises(ValueError, match="want"):
        _core.rate_bounds(unit, widths, ranges, per, 0, 1, src, lever, drop, True, want[:2])
    with pytest.raises(ValueError, match="dropped"):
        _core.rate_bounds(unit, widths, ranges, per, 0, 1, src, lever,
                          np.array([0, -1, 1], np.int32), True, want)
    with pytest.raises(TypeError, match="unit"):
        _core.rate_bounds(unit.astype(np.float32), widths, ranges, per, 0, 1, src, lever, drop,
                          True, want)


def _round24(x):
    """A float32's top 24 bits, rounded to nearest (compressed_clip's 24-bit floats)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x80) >> 8) << 8).astype(np.uint32).view(np.float32).astype(np.float64)


def _track_case(rng, dropped, T=9, M=4):
    src = rng.normal(size=(T, M, 4))
    src /= np.linalg.norm(src, axis=-1, keepdims=True)
    c = 3 if dropped else 4
    drop = rng.integers(0, 4, size=M).astype(np.int32)
    if dropped:      # the source's dropped component >= 0 where it is restored
        for m in range(M):
            src[:, m] = np.where(src[:, m, drop[m]:drop[m] + 1] < 0, -src[:, m], src[:, m])
    near = np.stack([np.delete(src[:, m], drop[m], axis=-1) if dropped else src[:, m]
                     for m in range(M)])                                        # (M, T, c)
    keys = near + rng.normal(scale=1e-3, size=near.shape)
    keys[1, 0] = [0.9, 0.5, 0.4] if dropped else [0.9, 0.5, 0.4, 0.1]          # 1 - sq < 0
    constants = near[:, :2] + rng.normal(scale=1e-2, size=(M, 2, c))
    rest = rng.normal(size=(M, 4))
    rest /= np.linalg.norm(rest, axis=-1, keepdims=True)
    lever = rng.uniform(0.5, 2.0, size=(T, M))
    return src, keys, constants, rest, lever, drop if dropped else None


@pytest.mark.parametrize("dropped", [False, True])
def test_track_bounds_against_numpy(dropped):
    """_core.track_bounds: each track's bound at RAW, CONSTANT, CONSTANT24, KEYS24 (the keys'
    float32s to their top 24 bits) and DEFAULT (the rest pose), a STEP/LINEAR rotation's
    dropped component restored as sqrt(max(1 - the others' squares, 0)); NumPy from the
    definition."""
    rng = np.random.default_rng(24 + dropped)
    src, keys, constants, rest, lever, drop = _track_case(rng, dropped)
    T, M = lever.shape
    got = _core.track_bounds(src, keys, constants, rest, lever, drop, True)
    want = np.zeros((M, 5))
    for t in range(T):
        for m in range(M):
            for k, v in enumerate([keys[m, t], constants[m, 0], constants[m, 1],
                                   _round24(keys[m, t]), rest[m]]):
                if dropped and k < 4:
                    v = np.insert(v, drop[m], np.sqrt(max(1 - float(v @ v), 0)))
                e = np.linalg.norm(src[t, m] - (1 if src[t, m] @ v >= 0 else -1) * v)
                want[m, k] = max(want[m, k], e * lever[t, m])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert float(got.min()) > 1e-4 and not np.array_equal(got[:, 0], got[:, 3])
    with pytest.raises(ValueError, match="dropped"):
        _core.track_bounds(src, keys, constants, rest, lever, np.zeros(M + 1, np.int32), True)
    with pytest.raises(ValueError, match="constants"):
        _core.track_bounds(src, keys, constants[:, :1].copy(), rest, lever, drop, True)


TRACK_SCRIPT = """
import sys, numpy as np
from skinkit import _core
d = np.load(sys.argv[1])
got = [_core.track_bounds(d["src"], d["keys"], d["constants"], d["rest"], d["lever"], d["drop"],
                          True),
       _core.track_bounds(np.ascontiguousarray(d["src"][..., :3]), d["keys"], d["constants"],
                          np.ascontiguousarray(d["rest"][:, :3]), d["lever"], None, False)]
np.savez(sys.argv[2], a=got[0], b=got[1], simd=_core.simd())
"""


@pytest.mark.parametrize("cap", ["baseline", "avx2"])
def test_track_bounds_bits_at_every_simd_level(tmp_path, cap):
    """The first four levels a register with AVX2 (a level a lane): the portable code's bits,
    with a restored component, 1 - the others' squares below 0, and a NaN lever."""
    rng = np.random.default_rng(26)
    src = rng.normal(size=(11, 5, 4))
    keys = rng.normal(scale=0.6, size=(5, 11, 3))
    lever = rng.uniform(0.1, 2.0, size=(11, 5))
    lever[3, 2] = np.nan
    d = {"src": src, "keys": keys, "constants": rng.normal(scale=0.6, size=(5, 2, 3)),
         "rest": rng.normal(size=(5, 4)), "lever": lever,
         "drop": rng.integers(0, 4, size=5).astype(np.int32)}
    got = at_simd_level(TRACK_SCRIPT, d, cap, tmp_path)
    here = [_core.track_bounds(src, keys, d["constants"], d["rest"], lever, d["drop"], True),
            _core.track_bounds(np.ascontiguousarray(src[..., :3]), keys, d["constants"],
                               np.ascontiguousarray(d["rest"][:, :3]), lever, None, False)]
    for a, b in zip(here, (got["a"], got["b"])):
        assert np.array_equal(a.view(np.uint64), b.view(np.uint64))
        assert np.all(np.isnan(a[2])) and np.isfinite(a[[0, 1, 3, 4]]).all()


def test_rate_layout_against_numpy():
    """_core.rate_layout (the fractions, widths and code bits of _Quantizer) against NumPy from
    its definition: fewer bits by floor(log2) of the widest clip extent over a segment's, 1 to
    the rate, none where an extent is 0 (a zero component, a zero segment), the last segment
    what is left; and its refusals."""
    rng = np.random.default_rng(7)
    tracks, rows, c, per = 4, 37, 3, 16
    segs = -(-rows // per)
    values = rng.normal(size=(tracks, rows, c))
    ext = rng.uniform(0.01, 2.0, size=(tracks, c))
    ext[1, 2] = 0.0                                   # a component constant over the clip
    seg_ext = ext[:, None] * rng.uniform(0.001, 1.0, size=(tracks, segs, c))
    seg_ext[2, 1] = 0.0                               # a segment constant in every component
    seg_ext[3, 0, 0] = ext[3].max() / 4               # a power of two below the widest
    ranges = np.stack([rng.normal(size=(tracks, segs, c)), seg_ext], axis=2)
    rates = np.array([3, 8, 23], np.uint8)
    unit, widths, bits = _core.rate_layout(values, ranges, ext, per, rates)
    seg = np.arange(rows) // per
    safe = np.where(seg_ext > 0, seg_ext, 1.0)
    np.testing.assert_array_equal(unit, (values - ranges[:, seg, 0]) / safe[:, seg])
    widest = ext.max(axis=1)[:, None, None]
    fewer = np.floor(np.log2(widest / safe))
    level = rates.astype(np.float64)[:, None, None]
    want = np.where(((seg_ext > 0) & (ext[:, None] > 0))[:, None],
                    np.clip(level - fewer[:, None], 1, level), 0)
    np.testing.assert_array_equal(widths, want)
    assert widths[3, 1, 0, 0] == 8 - 2 and widths[1, 0, :, 2].max() == 0
    count = np.bincount(seg)
    per_seg = (want.sum(axis=3) * count).astype(np.int64)
    np.testing.assert_array_equal(bits[:, :, 1:], np.cumsum(per_seg, axis=2))
    assert np.all(bits[:, :, 0] == 0)
    with pytest.raises(ValueError, match="ranges"):
        _core.rate_layout(values, ranges[:, :2].copy(), ext, per, rates)
    with pytest.raises(ValueError, match="rates 1 to 32"):
        _core.rate_layout(values, ranges, ext, per, np.array([0], np.uint8))
    with pytest.raises(TypeError, match="values"):
        _core.rate_layout(values.astype(np.float32), ranges, ext, per, rates)


def test_unit_rotations_against_numpy():
    """_core.unit_rotations against NumPy from its definition: the keys made unit, the dropped
    component the one whose smallest magnitude is largest (the first of equal), each key's
    sign making it >= 0 (a -0.0 made 0.0), the other three stored in order; and a refusal."""
    rng = np.random.default_rng(8)
    values = rng.normal(size=(5, 9, 4)) * rng.uniform(0.5, 2.0, size=(5, 9, 1))
    values[1, :, 2] = np.where(values[1, :, 2] < 0, -3.0, 3.0)   # component 2 largest, signs
    values[2] = [0.5, 0.5, 0.5, 0.5]                            # all equal: the first, 0
    values[3, 0] = 0.0                                          # |q| = 0: over 1e-300
    values[4, :, 0] = -0.0
    src, stored, dropped = _core.unit_rotations(values)
    n = np.linalg.norm(values, axis=-1, keepdims=True)
    unit = values / np.maximum(n, 1e-300)
    d = np.argmax(np.abs(unit).min(axis=1), axis=1)
    np.testing.assert_array_equal(dropped, d)
    assert dropped[1] == 2 and dropped[2] == 0
    at = np.take_along_axis(unit, d[:, None, None], axis=2)
    want = np.where(at < 0, -unit, unit)
    np.put_along_axis(want, d[:, None, None], np.abs(at), 2)
    np.testing.assert_array_equal(src, want)
    assert not np.signbit(np.take_along_axis(src, d[:, None, None], axis=2)).any()
    keep = np.array([[c for c in range(4) if c != k] for k in d.tolist()])
    np.testing.assert_array_equal(stored, np.take_along_axis(want, keep[:, None], axis=2))
    with pytest.raises(ValueError, match=r"\(M, keys, 4\)"):
        _core.unit_rotations(values[..., :3].copy())
