"""skinkit.compress: every decoded sample within the precision of a dense evaluation of the
source (plain NumPy: tests/reference.py's sampler and FK, the shell vertices transformed one by
one), on random clips of every interpolation and on the Khronos and BVH fixtures."""
from dataclasses import replace

import numpy as np
import pytest

import skinkit
from skinkit.model.compress import compress
from skinkit.model.compressed_clip import BIT_RATES, CONSTANTS, RAW
from skinkit.io.skc import dumps

import reference as ref
from conftest import BVH, GLTF


def dense(times, per=4):
    """Every key time and per - 1 times evenly between consecutive ones (4x the sample rate)."""
    k = np.unique(np.concatenate([np.asarray(t, np.float64) for t in times]))
    f = np.arange(per) / per
    inner = (k[:-1, None] + np.diff(k)[:, None] * f).ravel()
    return np.concatenate([inner, k[-1:]])


def shell_errors(parents, rest, source, decoded, t, shell):
    """(T, N) object-space error: three vertices at ``shell`` on each joint's axes, through the
    reference FK of both clips' reference samples."""
    worlds = [ref.forward_kinematics(parents, r, tr, s)
              for tr, r, s in (ref.sample_clip(source, t, rest), ref.sample_clip(decoded, t, rest))]
    verts = np.concatenate([shell * np.eye(3), np.ones((1, 3))])           # (4, 3) homogeneous
    a, b = (w @ verts for w in worlds)                                       # (T, N, 4, 3)
    return np.linalg.norm(a[..., :3, :] - b[..., :3, :], axis=-2).max(axis=-1)


def random_clip(rng, dtype, n=9, keys=40):
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n)])
    rest_t = rng.normal(0, 0.1, (n, 3))
    rest_r = ref.quat_normalize(rng.normal(size=(n, 4)))
    rest = (rest_t, rest_r, np.ones((n, 3)))
    times = np.sort(rng.uniform(0, 2, keys))
    steps = np.cumsum(rng.normal(0, 0.15, (keys, n, 3)), axis=0)
    rot = ref.quat_from_rotvec(steps)
    channels = []
    for j in range(n):
        interp = ("LINEAR", "STEP", "CUBICSPLINE")[j % 3]
        if interp == "CUBICSPLINE":
            v = np.stack([rng.normal(0, 0.3, (keys, 4)), rot[:, j], rng.normal(0, 0.3, (keys, 4))],
                         axis=1).reshape(-1, 4)
        else:
            v = rot[:, j]
        channels.append(skinkit.Channel(j, "rotation", times, v.astype(dtype), interp))
    channels.append(skinkit.Channel(0, "translation", times,
                                    (steps[:, 0] * 0.5).astype(dtype)))
    channels.append(skinkit.Channel(2, "scale", times[:10],
                                    (1 + 0.2 * rng.random((10, 3))).astype(dtype)))
    channels.append(skinkit.Channel(3, "translation", times[:5],                # the rest pose
                                    np.tile(rest_t[3], (5, 1)).astype(dtype)))
    channels.append(skinkit.Channel(4, "translation", times[:5],                # a constant
                                    np.tile([0.1, 0.2, 0.3], (5, 1)).astype(dtype)))
    channels.append(skinkit.Channel(5, "weights", times, rng.random((keys, 3)).astype(dtype)))
    skel = skinkit.Skeleton([f"j{i}" for i in range(n)], parents, *rest)
    return skel, skinkit.Clip("random", channels, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_clip_within_precision_densely(dtype):
    rng = np.random.default_rng(3)
    skel, clip = random_clip(rng, dtype)
    precision, shell = 1e-3, 0.05
    cc = compress(clip, skel, precision=precision, shell_distance=shell, weights_precision=2e-3)
    decoded = cc.to_clip()
    assert decoded.dtype == dtype
    t = dense([ch.times for ch in clip.channels])
    rest = (skel.translations, skel.rotations, skel.scales)
    trs = [ch for ch in clip.channels if ch.path != "weights"]
    err = shell_errors(skel.parents, rest, trs,
                       [ch for ch in decoded.channels if ch.path != "weights"], t, shell)
    # float32 sampling of the two clips may differ by its own rounding, scaled by the lever arms
    slack = 1e-5 if dtype == np.float32 else 1e-9
    assert err.max() <= precision + slack
    assert err.max() > precision / 20          # the budget is spent, not wasted
    w = cc.sample_weights(t)[5]
    src_w = np.array([ref.sample_channel(clip.channels[-1].times, clip.channels[-1].values,
                                         "LINEAR", x, False) for x in t])
    assert np.abs(w - src_w).max() <= 2e-3 + slack
    levels = {(tr.node, skinkit.model.compress.PATH_NAMES[tr.path]): tr.level for tr in cc.tracks}
    assert (3, "translation") not in levels                 # the rest pose: folded away
    assert levels[(4, "translation")] in CONSTANTS
    assert len(dumps(cc)) < sum(np.asarray(ch.values).nbytes for ch in clip.channels) / 2


def test_dense_times_above_the_precision_join_the_search(monkeypatch):
    """Keys 20 s apart with CUBICSPLINE tangents: the tangents' quantization errors scale with
    the interval, so a choice within the precision at the key times (where the search checks
    first) exceeds it between them; the search runs again with those dense times among its
    rows, and its choice holds at every dense time."""
    from skinkit.model import compress as module
    rows = []
    search = module._search
    monkeypatch.setattr(module, "_search",
                        lambda prob, *args: rows.append(prob.t.size) or search(prob, *args))
    rng = np.random.default_rng(0)
    keys = 30
    times = np.arange(keys) * 20.0
    v = np.stack([rng.normal(0, 0.3, (keys, 3)), np.cumsum(rng.normal(0, 0.01, (keys, 3)), axis=0),
                  rng.normal(0, 0.3, (keys, 3))], axis=1).reshape(-1, 3)
    rest = (np.tile([0, 0.1, 0], (3, 1)), np.tile([0, 0, 0, 1.0], (3, 1)), np.ones((3, 3)))
    skel = skinkit.Skeleton(["a", "b", "c"], np.array([-1, 0, 1]), *rest)
    clip = skinkit.Clip("far", [skinkit.Channel(1, "translation", times, v, "CUBICSPLINE")],
                        np.float64)
    precision, shell = 1e-4, 0.03
    cc = compress(clip, skel, precision=precision, shell_distance=shell)
    assert len(rows) >= 2 and rows[0] == keys and rows[-1] > keys
    err = shell_errors(skel.parents, rest, clip.channels, cc.to_clip().channels, dense([times]),
                       shell)
    assert err.max() <= precision + 1e-9
    assert cc.tracks[0].level in BIT_RATES


@pytest.mark.shared
@pytest.mark.parametrize("name", ["RiggedFigure.glb", "RiggedFigure-cubic.glb",
                                  "RiggedFigure-step.glb", "CesiumMan.glb"])
def test_khronos_fixtures_within_precision(name):
    model = skinkit.load_gltf(GLTF / name)
    skel, clip = model.skeleton, model.clips[0]
    cc = compress(clip, skel, precision=1e-4, shell_distance=0.03)
    t = dense([ch.times for ch in clip.channels])
    rest = (skel.translations, skel.rotations, skel.scales)
    err = shell_errors(skel.parents, rest, clip.channels, cc.to_clip().channels, t, 0.03)
    assert err.max() <= 1e-4 + (1e-6 if clip.dtype == np.float32 else 1e-9)


@pytest.mark.shared
def test_bvh_fixture_compresses_within_precision():
    model = skinkit.load_bvh(BVH / "cmu_01_03_first300.bvh")
    skel, clip = model.skeleton, model.clips[0]
    clip = skinkit.Clip(clip.name, clip.channels, np.float64)
    precision = 0.01                                           # the file's units (cm-like)
    cc = compress(clip, skel, precision=precision, shell_distance=3.0)
    t = dense([ch.times for ch in clip.channels])[::7]        # a spread of the dense grid
    rest = (skel.translations, skel.rotations, skel.scales)
    err = shell_errors(skel.parents, rest, clip.channels, cc.to_clip().channels, t, 3.0)
    assert err.max() <= precision + 1e-9
    raw = sum(np.asarray(ch.values).nbytes for ch in clip.channels) / 2   # as float32
    assert len(dumps(cc)) * 4 < raw
    assert any(tr.level in BIT_RATES for tr in cc.tracks)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_is_bitwise_for_threads_batches_and_playback(dtype):
    rng = np.random.default_rng(5)
    skel, clip = random_clip(rng, dtype)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    rest = (skel.translations, skel.rotations, skel.scales)
    t = rng.uniform(-0.5, 2.5, 3000)                        # unsorted, outside the keys too
    one = cc.sample(t, rest, threads=1)
    for threads in (2, 4):
        for x, y in zip(cc.sample(t, rest, threads=threads), one):
            assert x.tobytes() == y.tobytes()
    play = cc.playback(rest)
    for i in list(range(0, 300, 7)) + [3, 2, 1]:
        for got, want in zip(play.sample(float(t[i])), one):
            assert got.tobytes() == want[i].tobytes()
    looped = cc.playback(rest, loop=True)
    wrapped = cc.sample(t[:40], rest, loop=True)
    for i in range(40):
        for got, want in zip(looped.sample(t[i]), wrapped):
            assert got.tobytes() == want[i].tobytes()
    with pytest.raises(ValueError, match="finite"):
        play.sample(float("nan"))
    with pytest.raises(TypeError):
        skinkit._core.CompressedPlayer((1, 2), 0.0, None)
    w = cc.sample_weights(t[:9])[5]
    assert w.tobytes() == cc.sample_weights(t, threads=3)[5][:9].tobytes()
    # the decoded keys as a Clip sample the same up to rounding (its own slerp)
    tol = 2e-6 if dtype == np.float32 else 1e-12
    for x, y in zip(one, cc.to_clip().sample(t, rest)):
        np.testing.assert_allclose(x, y, atol=tol)


def test_sample_checks_like_clip_sample():
    skel, clip = random_clip(np.random.default_rng(2), np.float64)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    rest = (skel.translations, skel.rotations, skel.scales)
    with pytest.raises(ValueError, match="rest must be"):
        cc.sample(0.5, (skel.translations, skel.rotations, skel.scales[:2]))
    with pytest.raises(ValueError, match="rest pose has 2 nodes"):
        cc.sample(0.5, tuple(a[:2] for a in rest))
    with pytest.raises(ValueError, match="finite"):
        cc.sample([0.1, np.nan], rest)
    with pytest.raises(TypeError, match="out"):
        cc.sample(0.5, rest, out=[1, 2, 3])
    assert cc.sample(np.zeros((2, 3)), rest).rotations.shape == (2, 3, skel.count, 4)
    looped = cc.sample(cc.duration + 0.25, rest, loop=True)
    for x, y in zip(looped, cc.sample(0.25, rest)):
        np.testing.assert_allclose(x, y, atol=1e-12)


def test_bad_arguments_are_refused():
    rng = np.random.default_rng(1)
    skel, clip = random_clip(rng, np.float64)
    with pytest.raises(TypeError, match="clip must be"):
        compress("clip", skel)
    with pytest.raises(TypeError, match="skeleton must be"):
        compress(clip, clip)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="precision"):
            compress(clip, skel, precision=bad)
    with pytest.raises(ValueError, match="shell_distance"):
        compress(clip, skel, shell_distance=0)
    small = skinkit.Skeleton(["a"], np.array([-1]), np.zeros((1, 3)),
                             np.array([[0, 0, 0, 1.0]]), np.ones((1, 3)))
    with pytest.raises(ValueError, match="skeleton has 1 nodes"):
        compress(clip, small)


def test_a_tiny_precision_keeps_raw_keys_that_decode_as_the_source():
    skel, clip = random_clip(np.random.default_rng(8), np.float64)
    cc = compress(clip, skel, precision=1e-13, shell_distance=0.05, weights_precision=1e-13)
    assert {tr.level for tr in cc.tracks if tr.path == 1} == {RAW}
    rest = (skel.translations, skel.rotations, skel.scales)
    t = dense([ch.times for ch in clip.channels])
    for x, y in zip(cc.sample(t, rest), clip.sample(t, rest)):
        np.testing.assert_allclose(x, y, atol=1e-13)


@pytest.mark.parametrize("interp", ["LINEAR", "CUBICSPLINE"])
def test_segments_hold_their_own_ranges_and_decode_as_numpy(interp):
    """A track in segments of 16 keys: each key within half a step of its segment's range
    (from the source values, not the codec), the C decoder's keys those of decode_track, and the
    container gives the same track back."""
    from skinkit.io import skc as cf
    from skinkit.model.compress import _cost, _ends, _Quantizer
    from skinkit.model.compressed_clip import CompressedClip, Track, decode_track
    rng = np.random.default_rng(4)
    keys = 45
    rows = keys * (3 if interp == "CUBICSPLINE" else 1)
    values = np.cumsum(rng.normal(0, 0.1, (rows, 3)), axis=0)
    base = Track(0, 0, ["STEP", "LINEAR", "CUBICSPLINE"].index(interp), 0, 3, RAW)
    q = _Quantizer(values[None], [base], 16, _ends(values[None]))
    k = BIT_RATES.index(10)
    tr = q.track(0, k)
    assert q.costs[0][k] == _cost(tr)                    # counted as the packed track's
    assert tr.seg_codes.shape == (3, 6) and tr.widths.size == 9
    per = 16 * rows // keys
    decoded = decode_track(tr, keys, np.dtype(np.float64))
    for s in range(3):
        seg = values[s * per:(s + 1) * per]
        lo, hi = seg.min(axis=0), seg.max(axis=0)
        # the segment's range covers its values, at most 2/255 of the clip's range wider
        rng_lo, rng_ext = tr.segment_ranges()[s].astype(np.float64)
        clip_ext = values.max(axis=0) - values.min(axis=0)
        assert np.all(rng_lo <= lo) and np.all(rng_lo + rng_ext >= hi - 1e-6 * clip_ext)
        assert np.all(rng_ext - (hi - lo) <= 2.01 * clip_ext / 255)
        w = tr.widths.reshape(3, 3)[s]
        step = rng_ext / ((1 << w.astype(np.int64)) - 1)
        assert np.all(np.abs(decoded[s * per:(s + 1) * per] - seg) <= 0.5 * step + 1e-9)
    times = np.linspace(0, 1, keys)
    cc = CompressedClip(None, np.float64, 1, [times], [tr])
    rest = (np.zeros((1, 3)), np.array([[0, 0, 0, 1.0]]), np.ones((1, 3)))
    key_rows = decoded[1::3] if interp == "CUBICSPLINE" else decoded
    np.testing.assert_allclose(cc.sample(times, rest).translations[:, 0], key_rows, atol=1e-12)
    back = cf.loads(cf.dumps(cc))
    assert back.tracks[0].seg_keys == 16
    np.testing.assert_array_equal(back.tracks[0].seg_codes, tr.seg_codes)
    np.testing.assert_array_equal(decode_track(back.tracks[0], keys, np.dtype(np.float64)),
                                  decoded)


def test_24_bit_levels_round_to_nearest_and_decode_in_c():
    """KEYS24 and CONSTANT24 keep the top 24 bits of each float32, rounded to nearest (within
    2^-16 relative, against the values themselves), the same in C and NumPy and through the
    container."""
    from skinkit.io import skc as cf
    from skinkit.model.compress import _constants, _ends
    from skinkit.model.compressed_clip import (CONSTANT24, KEYS24, CompressedClip, Track,
                                                decode_track, round24, to_float24)
    rng = np.random.default_rng(5)
    values = rng.normal(0, 30, (7, 3))
    base = Track(0, 0, 1, 0, 3, RAW)
    keys = replace(base, level=KEYS24, payload=to_float24(values))
    const = replace(base, node=1, level=CONSTANT24,
                    payload=_constants(*_ends(values[None, :1]), False)[CONSTANT24][0])
    got = decode_track(keys, 7, np.dtype(np.float64))
    assert np.all(np.abs(got - values) <= np.abs(values) * 2.0 ** -16)
    np.testing.assert_array_equal(round24(values), got)          # the round trip, at once
    assert not np.array_equal(got, values.astype(np.float32))     # 8 bits fewer than float32
    times = np.linspace(0, 1, 7)
    cc = cf.loads(cf.dumps(CompressedClip(None, np.float64, 2, [times], [keys, const])))
    rest = (np.zeros((2, 3)), np.tile([0, 0, 0, 1.0], (2, 1)), np.ones((2, 3)))
    pose = cc.sample(times, rest).translations
    np.testing.assert_array_equal(pose[:, 0], got)
    c = decode_track(cc.tracks[1], 1, np.dtype(np.float64))[0]
    assert np.all(np.abs(c - values[0]) <= np.abs(values[0]) * 2.0 ** -16)
    np.testing.assert_array_equal(pose[:, 1], np.broadcast_to(c, (7, 3)))
    nan = replace_node(keys, 0)
    nan.payload = b"\xff\xff\x7f" + bytes(keys.payload)[3:]      # 0x7fffff00: a NaN
    with pytest.raises(ValueError, match="not finite"):
        cf.loads(cf.dumps(CompressedClip(None, np.float64, 2, [times], [nan])), "nan.skc")


def replace_node(tr, node):
    return replace(tr, node=node)


def test_two_channels_of_one_target_are_refused():
    skel, clip = random_clip(np.random.default_rng(3), np.float64)
    ch = next(c for c in clip.channels if c.path == "rotation")
    twice = skinkit.Clip(clip.name, list(clip.channels) + [ch], clip.dtype)
    with pytest.raises(ValueError, match=f"rotation of node {ch.node}, which an earlier track"):
        compress(twice, skel, precision=1e-3, shell_distance=0.05)


def chain(n):
    """A skeleton of n joints, each 1 along y from its parent, at rest."""
    return skinkit.Skeleton([f"j{i}" for i in range(n)], np.arange(n) - 1,
                            np.tile([0, 1.0, 0], (n, 1)), np.tile([0, 0, 0, 1.0], (n, 1)),
                            np.ones((n, 3)))


@pytest.mark.parametrize("path, bad", [("translation", np.nan), ("weights", np.inf),
                                       ("scale", 1e300), ("rotation", -np.inf)])
def test_keys_not_finite_or_beyond_float32_are_refused(path, bad):
    """A key compress cannot bound (NaN, infinite, or past the float32 ranges of its levels)
    is refused, naming the channel, before it could be dropped or quantized into NaNs."""
    width = {"rotation": 4, "weights": 2}.get(path, 3)
    values = np.tile([0, 0, 0, 1.0][:width], (5, 1)) + 0.1
    values[3, 0] = bad
    clip = skinkit.Clip("c", [skinkit.Channel(1, path, np.linspace(0, 1, 5), values)], np.float64)
    with pytest.raises(ValueError, match=f"the {path} keys of node 1 must be finite and within"):
        compress(clip, chain(3))


def test_a_zero_rotation_key_compresses_as_the_identity():
    """A LINEAR rotation key of length 0 samples as the identity (Clip's sampler): the decoded
    rotations are those rotations, unit, at every dense time."""
    rng = np.random.default_rng(4)
    q = ref.quat_normalize(rng.normal(size=(12, 4)))
    q[5] = 0
    t = np.linspace(0, 1, 12)
    clip = skinkit.Clip("c", [skinkit.Channel(1, "rotation", t, q)], np.float64)
    skel = chain(3)
    rest = (skel.translations, skel.rotations, skel.scales)
    for precision in (1e-12, 1e-3):
        cc = compress(clip, skel, precision=precision, shell_distance=0.05)
        td = dense([t])
        a, b = clip.sample(td, rest)[1][:, 1], cc.sample(td, rest)[1][:, 1]
        np.testing.assert_allclose(np.linalg.norm(b, axis=1), 1, atol=1e-6)
        np.testing.assert_allclose(np.abs(np.sum(a * b, axis=1)), 1, atol=1e-5)   # q ~ -q


def test_a_hierarchy_past_float64_keeps_its_raw_keys():
    """World matrices that overflow (scales 1e30 down a chain of 30) make every error NaN:
    the checks count NaN as above the precision, so every track keeps its raw keys."""
    n = 30
    t = np.linspace(0, 1, 10)
    clip = skinkit.Clip("c", [skinkit.Channel(j, "scale", t, 1e30 * np.tile(
        np.linspace(1, 2, 10)[:, None], (1, 3))) for j in range(n)], np.float64)
    cc = compress(clip, chain(n))
    assert {tr.level for tr in cc.tracks} == {RAW}
