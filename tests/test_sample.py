"""Clip.sample (the C channel sampler) vs the glTF 2.0 Appendix C reference."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from skinkit import Channel, Clip
import helpers
import reference as ref

DTYPES = helpers.DTYPES
INTERPOLATIONS = ("STEP", "LINEAR", "CUBICSPLINE")
N = 4                                               # nodes in the rest pose
KEY_TIMES = np.array([0.1, 0.4, 0.5, 1.2, 2.0])


def rest_pose(rng):
    return (rng.normal(size=(N, 3)), helpers.random_quats(rng, (N,)),
            rng.uniform(0.5, 2.0, size=(N, 3)))


def key_values(rng, path, interpolation, times=KEY_TIMES):
    """Key values; rotations are unit quaternions whose consecutive dots alternate in sign."""
    K = times.size
    if path == "rotation":
        v = helpers.random_quats(rng, (K,))
        v *= np.sign(np.sum(v[:1] * v, axis=1))[:, None] * (-1.0) ** np.arange(K)[:, None]
    else:
        v = rng.normal(size=(K, 3))
        if path == "scale":
            v = np.abs(v) + 0.5
    if interpolation != "CUBICSPLINE":
        return v
    tangents = rng.normal(size=(K, 2, v.shape[1]))
    return np.concatenate([tangents[:, :1], v[:, None], tangents[:, 1:]], axis=1).reshape(-1,
                                                                                          v.shape[1])


def sample_times(times=KEY_TIMES):
    """Before the first key, at every key, between keys, after the last key."""
    mids = (times[:-1] + times[1:]) / 2
    thirds = times[:-1] + (times[1:] - times[:-1]) / 3
    return np.concatenate([[-1.0, 0.0, times[0] - 1e-9], times, mids, thirds,
                           [times[-1] + 1e-9, times[-1] + 0.5, 100.0]])


def check(clip, channels, times, rest, dtype, loop=False):
    got = clip.sample(times, rest, loop=loop)
    t = np.asarray(times).astype(dtype)                     # the clip samples in its own dtype
    if loop:
        t = np.mod(t, np.dtype(dtype).type(clip.duration))
    keyed = [Channel(c.node, c.path, c.times.astype(dtype), c.values.astype(dtype),
                     c.interpolation) for c in channels]
    expected = ref.sample_clip(keyed, t, rest)
    for g, e in zip(got, expected):
        assert g.dtype == dtype and g.shape == np.shape(times) + e.shape[np.ndim(times):]
        helpers.assert_close(g, e, scale=10)
    return got


@pytest.mark.parametrize("path", ["translation", "rotation", "scale"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_channel(dtype, interpolation, path):
    rng = helpers.rng_for("channel", interpolation, path)
    rest = rest_pose(rng)
    ch = Channel(2, path, KEY_TIMES, key_values(rng, path, interpolation), interpolation)
    got = check(Clip("c", [ch], dtype=dtype), [ch], sample_times(), rest, dtype)
    # the other nodes and the other properties keep the rest pose
    index = ("translation", "rotation", "scale").index(path)
    for which, (g, r) in enumerate(zip(got, rest)):
        nodes = [0, 1, 3] if which == index else [0, 1, 2, 3]
        np.testing.assert_array_equal(g[:, nodes], np.broadcast_to(r[nodes].astype(dtype),
                                                                   g[:, nodes].shape))


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_keys_and_clamping(interpolation):
    """Exact values where the spec leaves no room: at keys, before the first, after the last."""
    rng = helpers.rng_for("keys", interpolation)
    values = key_values(rng, "translation", interpolation)
    v = values[1::3] if interpolation == "CUBICSPLINE" else values
    clip = Clip(None, [Channel(0, "translation", KEY_TIMES, values, interpolation)])
    rest = rest_pose(rng)
    tr = clip.sample(np.concatenate([KEY_TIMES, [-5.0, 0.0, 2.5, 1e6]]), rest)[0][:, 0]
    np.testing.assert_allclose(tr[:5], v, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(tr[5:], v[[0, 0, -1, -1]], rtol=1e-14, atol=1e-14)
    if interpolation == "STEP":     # the previous key is held up to the next key
        t = KEY_TIMES[1:] - 1e-9
        np.testing.assert_array_equal(clip.sample(t, rest)[0][:, 0], v[:-1])


def test_several_channels_and_nodes_without_channels():
    rng = helpers.rng_for("several")
    rest = rest_pose(rng)
    channels = [
        Channel(0, "rotation", KEY_TIMES, key_values(rng, "rotation", "LINEAR"), "LINEAR"),
        Channel(3, "translation", KEY_TIMES[:3],
                key_values(rng, "translation", "CUBICSPLINE", KEY_TIMES[:3]), "CUBICSPLINE"),
        Channel(3, "rotation", KEY_TIMES[1:], key_values(rng, "rotation", "CUBICSPLINE",
                                                         KEY_TIMES[1:]), "CUBICSPLINE"),
        Channel(0, "scale", KEY_TIMES[:2], key_values(rng, "scale", "STEP", KEY_TIMES[:2]),
                "STEP"),
    ]
    clip = Clip("mix", channels)
    assert clip.duration == 2.0
    tr, ro, sc = check(clip, channels, sample_times(), rest, np.float64)
    for node in (1, 2):
        assert np.all(tr[:, node] == rest[0][node]) and np.all(ro[:, node] == rest[1][node])
        assert np.all(sc[:, node] == rest[2][node])


@pytest.mark.parametrize("dtype", DTYPES)
def test_time_shapes(dtype):
    rng = helpers.rng_for("shapes")
    rest = rest_pose(rng)
    ch = Channel(1, "rotation", KEY_TIMES, key_values(rng, "rotation", "LINEAR"), "LINEAR")
    clip = Clip("c", [ch], dtype=dtype)
    for times in (0.7, np.float64(0.7), np.array([0.2, 0.3]), np.linspace(0, 2, 6).reshape(2, 3),
                  np.zeros(0)):
        tr, ro, sc = check(clip, [ch], times, rest, dtype)
        shape = np.shape(times)
        assert tr.shape == shape + (N, 3) and ro.shape == shape + (N, 4)
        assert sc.shape == shape + (N, 3)


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_random_order_times(interpolation):
    rng = helpers.rng_for("order", interpolation)
    rest = rest_pose(rng)
    channels = [Channel(n, p, KEY_TIMES, key_values(rng, p, interpolation), interpolation)
                for n, p in ((0, "translation"), (1, "rotation"), (2, "scale"))]
    clip = Clip("c", channels)
    times = np.sort(rng.uniform(-0.5, 2.5, size=200))
    perm = rng.permutation(times.size)
    for a, b in zip(clip.sample(times, rest), clip.sample(times[perm], rest)):
        np.testing.assert_array_equal(a[perm], b)
    for a, b in zip(clip.sample(times, rest), clip.sample(times[::-1], rest)):
        np.testing.assert_array_equal(a[::-1], b)           # descending
    twice = np.repeat(times[::7], 2)                          # repeated times
    for a, b in zip(clip.sample(times[::7], rest), clip.sample(twice, rest)):
        np.testing.assert_array_equal(np.repeat(a, 2, axis=0), b)
    check(clip, channels, times[perm], rest, np.float64)


@pytest.mark.parametrize("path", ["translation", "rotation"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_single_key(interpolation, path):
    rng = helpers.rng_for("single", interpolation, path)
    times = np.array([0.5])
    values = key_values(rng, path, interpolation, times)
    clip = Clip("one", [Channel(0, path, times, values, interpolation)])
    out = clip.sample(np.array([-1.0, 0.0, 0.5, 0.7, 3.0]), rest_pose(rng))
    value = values[1] if interpolation == "CUBICSPLINE" else values[0]
    got = out[0 if path == "translation" else 1][:, 0]
    np.testing.assert_allclose(got, np.broadcast_to(value, got.shape), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_loop(dtype, interpolation):
    rng = helpers.rng_for("loop", interpolation)
    rest = rest_pose(rng)
    channels = [Channel(0, "translation", KEY_TIMES, key_values(rng, "translation",
                                                                interpolation), interpolation),
                Channel(1, "rotation", KEY_TIMES[:3], key_values(rng, "rotation", interpolation,
                                                                 KEY_TIMES[:3]), interpolation)]
    clip = Clip("loop", channels, dtype=dtype)
    times = np.array([-3.3, -0.25, 0.0, 0.3, 1.9, 2.0, 2.3, 4.45, 13.7])
    check(clip, channels, times, rest, dtype, loop=True)
    # looping differs from clamping past the end: 2.3 plays like 0.3, not like 2.0
    looped = clip.sample(np.array([2.3, 0.3]), rest, loop=True)[0][:, 0]
    helpers.assert_close(looped[0], looped[1], scale=10)
    assert not np.allclose(clip.sample(2.3, rest)[0][0], looped[0])


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_float32_clip_keeps_float32(interpolation):
    rng = helpers.rng_for("f32", interpolation)
    rest = rest_pose(rng)                  # float64 rest pose, float64 times
    ch = Channel(0, "rotation", KEY_TIMES, key_values(rng, "rotation", interpolation),
                 interpolation)
    out = Clip("c", [ch], dtype=np.float32).sample(np.linspace(0, 2, 7), rest)
    assert all(a.dtype == np.float32 for a in out)


def test_linear_rotation_takes_the_shortest_path():
    rng = helpers.rng_for("short")
    q0 = helpers.random_quats(rng)
    q1 = -ref.quat_multiply(q0, [np.sin(0.3), 0.0, 0.0, np.cos(0.3)])   # 0.6 rad, negative dot
    assert q0 @ q1 < 0
    clip = Clip("s", [Channel(0, "rotation", np.array([0.0, 1.0]), np.stack([q0, q1]))])
    t = np.linspace(0, 1, 11)[:-1]       # at t = 1 the last key itself, q1, is returned
    got = clip.sample(t, rest_pose(rng))[1][:, 0]
    expected = ref.quat_multiply(q0, np.stack([[np.sin(0.3 * s), 0, 0, np.cos(0.3 * s)]
                                               for s in t]))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    scipy = Slerp([0.0, 1.0], Rotation.from_quat(np.stack([q0, q1])))(t).as_quat()
    helpers.assert_quat_close(got, scipy)
    np.testing.assert_array_equal(clip.sample(1.0, rest_pose(rng))[1][0], q1)


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_translation_vs_independent_interpolators(interpolation):
    """Cross-check without the reference: STEP = searchsorted, LINEAR = np.interp, CUBICSPLINE
    with equal in/out tangents = SciPy's CubicHermiteSpline (glTF tangents are d/dt)."""
    from scipy.interpolate import CubicHermiteSpline
    rng = helpers.rng_for("independent", interpolation)
    v = rng.normal(size=(KEY_TIMES.size, 3))
    d = rng.normal(size=(KEY_TIMES.size, 3))
    values = (np.stack([d, v, d], axis=1).reshape(-1, 3) if interpolation == "CUBICSPLINE"
              else v)
    clip = Clip("c", [Channel(0, "translation", KEY_TIMES, values, interpolation)])
    t = np.linspace(KEY_TIMES[0], KEY_TIMES[-1], 57)
    got = clip.sample(t, rest_pose(rng))[0][:, 0]
    if interpolation == "STEP":
        expected = v[np.searchsorted(KEY_TIMES, t, side="right") - 1]
    elif interpolation == "LINEAR":
        expected = np.stack([np.interp(t, KEY_TIMES, v[:, c]) for c in range(3)], axis=1)
    else:
        expected = CubicHermiteSpline(KEY_TIMES, v, d)(t)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def _mixed_clip(dtype=np.float64):
    """Channels of every path and interpolation, given out of path order."""
    rng = helpers.rng_for("out")
    channels = [Channel(node, path, KEY_TIMES, key_values(rng, path, interp), interp)
                for node, (path, interp) in enumerate([
                    ("rotation", "LINEAR"), ("scale", "CUBICSPLINE"), ("translation", "LINEAR"),
                    ("rotation", "CUBICSPLINE")])]
    return Clip("mixed", channels, dtype), channels, rest_pose(rng)


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_is_filled_and_returned(dtype):
    clip, channels, rest = _mixed_clip(dtype)
    times = sample_times()
    expected = check(clip, channels, times, rest, dtype)
    out = tuple(np.full(e.shape, np.nan, dtype) for e in expected)
    for _ in range(2):                                     # reused: every value rewritten
        got = clip.sample(times, rest, out=out)
        assert all(g is o for g, o in zip(got, out))
        assert all(np.array_equal(g, e) for g, e in zip(got, expected))
    got = clip.sample(0.7, rest, out=tuple(o[0] for o in out))    # a scalar time: (N, k) each
    assert all(np.array_equal(g, e[0]) for g, e in zip(got, clip.sample([0.7], rest)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_weights_channels_beside_trs_channels(dtype):
    """Morph weights channels (a table of their own, path index 3) leave the TRS samples, out=
    and the slerp constants alone; a LINEAR weights channel of 4 targets is lerped, never
    slerped, though it is as wide as a quaternion."""
    clip, channels, rest = _mixed_clip(dtype)
    w = helpers.rng_for("weights-beside-trs").normal(size=(KEY_TIMES.size, 4))
    both = Clip("mixed+weights", [Channel(1, "weights", KEY_TIMES, w)] + channels
                + [Channel(3, "weights", KEY_TIMES, w[:, :2], "STEP")], dtype)
    times = sample_times()
    expected = clip.sample(times, rest)
    out = tuple(np.full(e.shape, np.nan, dtype) for e in expected)
    assert all(np.array_equal(g, e) for g, e in zip(both.sample(times, rest, out=out), expected))
    t, kt = times.astype(dtype), KEY_TIMES.astype(dtype)
    lerp = np.stack([np.interp(t, kt, w[:, c].astype(dtype)) for c in range(4)], axis=-1)
    weights = both.sample_weights(times)
    assert sorted(weights) == [1, 3]
    helpers.assert_close(weights[1], lerp, dtype, scale=4)


@pytest.mark.parametrize("bad, error, words", [
    (lambda o: list(o), TypeError, "out must be a tuple"),
    (lambda o: o[:2], TypeError, "out must be a tuple"),
    (lambda o: (o[0].astype(np.float32),) + o[1:], TypeError, r"out\[0\] must be a float64"),
    (lambda o: (o[0], o[1][:-1], o[2]), ValueError, r"out\[1\] must have shape"),
    (lambda o: (o[0], o[1], np.asfortranarray(o[2])), ValueError,
     r"out\[2\] must be C-contiguous"),
    (lambda o: (o[0], o[1], o[0]), ValueError, r"out\[0\] and out\[2\] overlap"),
])
def test_bad_out_is_refused(bad, error, words):
    clip, _, rest = _mixed_clip()
    times = sample_times()
    out = tuple(np.zeros(times.shape + (N, k)) for k in (3, 4, 3))
    with pytest.raises(error, match=words):
        clip.sample(times, rest, out=bad(out))


@pytest.mark.parametrize("dtype", DTYPES)
def test_precomputed_slerp_constants_change_no_bit(dtype):
    """The per-key slerp constants (angle, sine, cosine, sign) give the very bits of slerping
    each sample from scratch (a table without them) on the scalar path; float32 with AVX2 slerps
    8 times at once with the constants (sample_avx2.c), within float32 rounding of it (the lane
    groups, which this clip of lone channels forms none of: test_sample_lanes.py)."""
    from skinkit import _core
    clip, _, rest = _mixed_clip(dtype)
    table = clip._table
    assert table.prepared is not None and np.any(table.prepared != 0)
    times = np.linspace(-0.5, 2.5, 301).astype(dtype)
    n, ncomp = N, table.ncomp.astype(np.int64)
    outs = []
    for tab in (table, table._replace(prepared=None)):
        out = tuple(np.zeros(times.size * N * k, dtype) for k in (3, 4, 3))
        _core.sample_channels(tab, table.node * ncomp, n * ncomp, times, out)
        outs.append(out)
    for a, b in zip(*outs):
        if dtype == np.float64 or _core.simd() == "baseline":
            np.testing.assert_array_equal(a, b)
        else:
            helpers.assert_close(a, b, scale=4)
    with pytest.raises(ValueError, match="clip table prepared must have the"):
        _core.sample_channels(table._replace(prepared=table.prepared[:-1]), table.node * ncomp,
                              n * ncomp, times, outs[0])


@pytest.mark.parametrize("width", [1, 4, 5, 8, 52, 300])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_weights_of_any_width(dtype, interpolation, width):
    """A weights channel has one component per morph target, any number of them (a face rig's
    52 blend shapes, a 300-component head model), sampled by the same C sampler as the glTF 2.0
    Appendix C reference; a second, narrower channel beside it keeps its own columns."""
    rng = helpers.rng_for("weights-width", interpolation, width)
    per_key = 3 if interpolation == "CUBICSPLINE" else 1
    wide = rng.normal(size=(per_key * KEY_TIMES.size, width))
    narrow = rng.normal(size=(per_key * 3, 2))
    channels = [Channel(5, "weights", KEY_TIMES, wide, interpolation),
                Channel(0, "weights", KEY_TIMES[1:4], narrow, interpolation)]
    times = sample_times()
    got = Clip("morph", channels, dtype).sample_weights(times)
    assert sorted(got) == [0, 5] and got[5].shape == (times.size, width)
    for ch in channels:
        kt, kv = ch.times.astype(dtype), ch.values.astype(dtype)
        expected = [ref.sample_channel(kt, kv, interpolation, t, False)
                    for t in times.astype(dtype)]
        assert got[ch.node].dtype == dtype
        helpers.assert_close(got[ch.node], expected, scale=10)


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_rotation_keys_not_unit_give_unit_rotations(dtype, interpolation):
    """Rotation keys of any length (files store them off unit by 1e-4, some by far more) give
    the rotations of the normalized keys, as Blender and ozz-animation use them (three.js uses
    them as given): every sample is a unit quaternion, held keys and keys themselves included."""
    rng = helpers.rng_for("non-unit-rotations", interpolation)
    rest = rest_pose(rng)
    values = key_values(rng, "rotation", interpolation)
    values = values * rng.choice([0.5, 1 + 2.4e-4, 1.7, 3.0], size=(values.shape[0], 1))
    ch = Channel(1, "rotation", KEY_TIMES, values, interpolation)
    clip = Clip("c", [ch], dtype)
    rot = check(clip, [ch], sample_times(), rest, dtype)[1][:, 1]
    helpers.assert_close(np.linalg.norm(rot.astype(np.float64), axis=-1), 1.0, dtype, scale=4)
    assert np.array_equal(ch.values, values)       # the channel keeps what it was given


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_sample_has_the_same_bits_alone_or_in_a_batch(dtype):
    """A time's sample does not depend on the other times of the call (the AVX2 slerp takes 8
    times at once and pads a partial group): alone, or at any place of a batch, the same bits."""
    clip, _, rest = _mixed_clip(dtype)
    times = np.linspace(-0.3, 2.3, 53).astype(dtype)
    batch = clip.sample(times, rest)
    for i in (0, 5, 7, 8, 30, 52):
        alone = clip.sample(times[i:i + 1], rest)
        assert all(np.array_equal(a[0], b[i]) for a, b in zip(alone, batch)), i
    shifted = clip.sample(times[3:], rest)
    assert all(np.array_equal(a, b[3:]) for a, b in zip(shifted, batch))
