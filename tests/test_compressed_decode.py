"""The compressed clip's decoder (src/compress_decode.c): its lane groups of LINEAR rotation
tracks (batched over times, with AVX2 for float32) give the bits of one time a call, at every
SIMD level, thread count and place of a track in its group; posing a model with a compressed
clip (``Model.pose``, ``world_matrices``, ``local_pose``) equals posing with its decoded
samples."""
import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

import skinkit
from skinkit import _core
from skinkit.model.compress import compress
from skinkit.io.skc import dumps, loads

import reference as ref
from conftest import GLTF, SKINKIT_PATH

LEVELS = ["baseline", "avx2", "avx512"]


def linear_clip(rng, dtype, n=21, keys=60):
    """n LINEAR rotation channels on one key-time array (a lane group of 21: registers of 8, 8
    and 5 lanes), angles up to about 90 degrees between keys (where the slerp's polynomials meet
    their flip), and a translation channel."""
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n)])
    rest = (rng.normal(0, 0.1, (n, 3)), ref.quat_normalize(rng.normal(size=(n, 4))),
            np.ones((n, 3)))
    times = np.sort(rng.uniform(0, 3, keys))
    rot = ref.quat_from_rotvec(np.cumsum(rng.normal(0, 0.6, (keys, n, 3)), axis=0))
    channels = [skinkit.Channel(j, "rotation", times, rot[:, j].astype(dtype))
                for j in range(n)]
    channels.append(skinkit.Channel(0, "translation", times,
                                    rng.normal(0, 0.2, (keys, 3)).astype(dtype)))
    skel = skinkit.Skeleton([f"j{i}" for i in range(n)], parents, *rest)
    return skel, skinkit.Clip("linear", channels, dtype)


def dense_times(clip):
    k = np.unique(np.concatenate([ch.times for ch in clip.channels]))
    inner = (k[:-1, None] + np.diff(k)[:, None] * (np.arange(4) / 4)).ravel()
    return np.concatenate([[-0.1], inner, k[-1:], [k[-1] + 0.1]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lane_groups_give_the_bits_of_one_time_a_call(dtype):
    rng = np.random.default_rng(11)
    skel, clip = linear_clip(rng, dtype)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    assert sum(t.path == 1 and t.level not in (0, 1) for t in cc.tracks) >= 17
    rest = (skel.translations, skel.rotations, skel.scales)
    t = dense_times(clip)
    batch = cc.sample(t, rest, threads=1)
    for threads in (2, 3):
        for x, y in zip(cc.sample(t, rest, threads=threads), batch):
            assert x.tobytes() == y.tobytes()
    play = cc.playback(rest)
    for i in range(t.size):                   # one time a call: no lane group shares its rows
        for got, want in zip(cc.sample(t[i], rest), batch):
            assert got.tobytes() == want[i].tobytes()
        for got, want in zip(play.sample(float(t[i])), batch):
            assert got.tobytes() == want[i].tobytes()
    shuffled = rng.permutation(t.size)        # unsorted times: other key rows held
    for x, y in zip(cc.sample(t[shuffled], rest), batch):
        assert x.tobytes() == y[shuffled].tobytes()
    # against a dense NumPy evaluation of the source (float64 slerp): within the precision's
    # angle at the shell (a rotation error e moves a vertex at 0.05 by about 0.05 e)
    want = ref.sample_clip(clip.channels, t, rest)
    got_r = np.asarray(batch[1], np.float64)
    dots = np.abs(np.sum(got_r * want[1], axis=-1)).clip(0, 1)
    assert np.max(2 * np.arccos(dots)) * 0.05 <= 2e-3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [10, 17, 33])
def test_a_track_gets_its_bits_in_any_place_of_its_lane_group(dtype, n):
    # the tracks reversed: each lane elsewhere in its group (a group's last 1 or 2 lanes past
    # 8 or 16 take the portable code, the others a register), 33 tracks in groups of 32 and 1
    rng = np.random.default_rng(n)
    skel, clip = linear_clip(rng, dtype, n=n, keys=12)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    lanes = [t for t in cc.tracks if t.path == 1 and t.level not in (0, 1)]
    assert len(lanes) >= n - 2
    back = dataclasses.replace(cc, tracks=cc.tracks[::-1])
    rest = (skel.translations, skel.rotations, skel.scales)
    t = dense_times(clip).astype(dtype)
    for x, y in zip(back.sample(t, rest, threads=1), cc.sample(t, rest, threads=1)):
        assert x.tobytes() == y.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_batch_playback_gives_the_bits_of_sample(dtype):
    rng = np.random.default_rng(5)
    skel, clip = linear_clip(rng, dtype, n=9, keys=20)
    times = clip.channels[0].times
    clip = skinkit.Clip("batch", clip.channels + [                  # a constant track
        skinkit.Channel(2, "scale", times, np.full((times.size, 3), 1.5, dtype))], dtype)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    assert any(t.path == 2 and t.level in (0, 1) for t in cc.tracks)   # stored as a constant
    rest = (skel.translations, skel.rotations, skel.scales)
    t = rng.permutation(dense_times(clip)).astype(dtype)      # unsorted, some out of range
    play = cc.playback(rest, batch=7)
    assert play.pose.rotations.shape == (7, skel.count, 4)
    for a in range(0, t.size - 7, 7):
        got = play.sample(t[a:a + 7])
        assert got is play.pose
        for x, y in zip(got, cc.sample(t[a:a + 7], rest)):
            assert x.tobytes() == y.tobytes()
    # times converted (a list, another dtype, a strided view) and wrapped with loop
    loop = cc.playback(rest, loop=True, batch=5)
    for times in ([-2.5, 0.0, 0.1, 7.25, 1e3], np.linspace(-9, 9, 10)[::2].astype(np.float64),
                  (np.arange(5) * 1.3).astype(np.float32)):
        want = cc.sample(np.asarray(times, dtype), rest, loop=True)
        for x, y in zip(loop.sample(times), want):
            assert x.tobytes() == y.tobytes()
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        loop.sample(np.zeros(4, dtype))
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        loop.sample(np.zeros((5, 1), dtype))
    with pytest.raises(ValueError, match="at index 3 that is not"):
        loop.sample(np.array([0, 1, 2, np.nan, 4], dtype))
    for bad in (0, -3, 2.0, True, "4"):
        with pytest.raises(ValueError, match="batch must be None or an int >= 1"):
            cc.playback(rest, batch=bad)


SCRIPT = """
import sys, numpy as np
from skinkit import _core
from skinkit.io.skc import loads
cc = loads(open(sys.argv[1], "rb").read())
d = np.load(sys.argv[2])
rest = (d["rt"], d["rr"], d["rs"])
out = cc.sample(d["t"], rest, threads=1)
play = cc.playback(rest)
one = [play.sample(float(x))[1].copy() for x in d["t"][:50]]
np.savez(sys.argv[3], t=out[0], r=out[1], s=out[2], one=np.stack(one), simd=_core.simd())
"""


@pytest.mark.parametrize("cap", LEVELS[:-1])
def test_simd_levels_give_the_same_bits(tmp_path, cap):
    skel, clip = linear_clip(np.random.default_rng(4), np.float32)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    t = dense_times(clip).astype(np.float32)
    (tmp_path / "c.skc").write_bytes(dumps(cc))
    rest = (skel.translations, skel.rotations, skel.scales)
    np.savez(tmp_path / "in.npz", t=t, rt=rest[0], rr=rest[1], rs=rest[2])
    env = dict(os.environ, SKINKIT_SIMD=cap, PYTHONPATH=SKINKIT_PATH)
    subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "c.skc"),
                    str(tmp_path / "in.npz"), str(tmp_path / "out.npz")], env=env, check=True)
    base = np.load(tmp_path / "out.npz")
    assert LEVELS.index(str(base["simd"])) <= LEVELS.index(cap)
    here = loads((tmp_path / "c.skc").read_bytes())
    out = here.sample(t, rest, threads=1)
    for x, key in zip(out, "trs"):
        assert x.tobytes() == base[key].tobytes()
    play = here.playback(rest)
    one = np.stack([play.sample(float(x))[1].copy() for x in t[:50]])
    assert one.tobytes() == base["one"].tobytes()
    assert _core.simd() in LEVELS


@pytest.mark.shared
@pytest.mark.parametrize("name", ["CesiumMan.glb", "RiggedFigure.glb"])
def test_posing_with_a_compressed_clip_is_posing_with_its_samples(name):
    model = skinkit.load_gltf(GLTF / name)
    skel, clip = model.skeleton, model.clips[0]
    cc = compress(clip, skel, precision=1e-4, shell_distance=0.03)
    rest = (skel.translations, skel.rotations, skel.scales)
    t = np.linspace(0, clip.duration, 37)
    samples = cc.sample(t, rest)
    local = model.local_pose(cc, t)
    for x, y in zip(local, samples):
        assert x.tobytes() == y.tobytes()
    world = model.world_matrices(cc, t)
    want = ref.forward_kinematics(skel.parents, np.asarray(samples[1], np.float64),
                                  np.asarray(samples[0], np.float64),
                                  np.asarray(samples[2], np.float64))
    np.testing.assert_allclose(world, want, atol=1e-5)
    # its decoded keys as a Clip pose the same meshes up to the two samplers' rounding
    posed, other = model.pose(cc, t), model.pose(cc.to_clip(), t)
    assert set(posed.positions) == set(other.positions) and posed.positions
    for key in posed.positions:
        np.testing.assert_allclose(posed.positions[key], other.positions[key], atol=1e-5)
    blocks = list(model.pose_blocks(model.request(cc, t), frames=10))
    for key in posed.positions:
        got = np.concatenate([b.positions[key] for b in blocks])
        assert got.tobytes() == posed.positions[key].tobytes()
    with pytest.raises(TypeError, match="clip must be"):
        model.pose(object(), t)


def test_decoder_checks_its_table_once_and_each_call_its_outputs():
    skel, clip = linear_clip(np.random.default_rng(8), np.float32)
    cc = compress(clip, skel, precision=1e-3, shell_distance=0.05)
    tracks = cc._tables[0].copy()
    arrays = [a.copy() for a in cc._arrays]
    bad = tracks.copy()
    bad.reshape(-1, 15)[3, 10] = arrays[2].size           # track 3's payload past the bytes
    with pytest.raises(ValueError, match="track 3 has its payload or range outside"):
        _core.CompressedDecoder(bad, *arrays)
    with pytest.raises(TypeError, match="seg_bits"):
        _core.CompressedDecoder(tracks, *arrays[:4], arrays[4].astype(np.int32))
    decoder = _core.CompressedDecoder(tracks, *arrays)
    n = skel.count
    t = dense_times(clip).astype(np.float32)
    stride = np.array([3 * n, 4 * n, 3 * n, 0], np.int64)

    def outputs(times=t.size):
        return tuple(np.zeros(times * k * n, np.float32) for k in (3, 4, 3)) + (
            np.zeros(0, np.float32),)

    want = outputs()
    decoder.decode(stride, t, want)
    # the arrays that say where it reads are the decoder's copies: changed afterwards, they
    # move no access (the same bits)
    tracks.reshape(-1, 15)[:, 10] = 10 ** 12
    arrays[4][:] = 2 ** 40
    got = outputs()
    decoder.decode(stride, t, got, 2)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(got, want))
    with pytest.raises(ValueError, match="writes outside out"):
        decoder.decode(stride, t, outputs(t.size - 1))
    with pytest.raises(ValueError, match="writes outside out"):
        decoder.decode(np.array([3 * n, -1, 3 * n, 0], np.int64), t, outputs())
    with pytest.raises(ValueError, match="4 strides"):
        decoder.decode(stride[:3], t, outputs())
    with pytest.raises(TypeError, match="times"):
        decoder.decode(stride, t.astype(np.float64), outputs())
    with pytest.raises(TypeError, match="out must be a tuple of 4"):
        decoder.decode(stride, t, outputs()[:3])
    with pytest.raises(TypeError):
        _core.CompressedPlayer(tracks, stride, outputs(1), 0.0, None, 0)   # not a decoder
    with pytest.raises(ValueError, match="writes outside out"):     # out of 4 times, batch 5
        _core.CompressedPlayer(decoder, stride, outputs(4), 0.0, None, 5)
    with pytest.raises(ValueError, match="batch must be >= 0"):
        _core.CompressedPlayer(decoder, stride, outputs(4), 0.0, None, -1)
    # fill: runs of rest values at every time before the tracks (scales: no track writes them)
    rest = [np.arange(k * n, dtype=np.float32) + 1 for k in (3, 4, 3)]
    runs = np.array([2, 3, 6, 0, 0, 3 * n], np.int64)       # scales of nodes 1, 2; translations
    got = outputs()
    decoder.decode(stride, t, got, 1, (runs, *rest))
    assert got[1].tobytes() == want[1].tobytes()           # the tracks written after the fill
    scales = got[2].reshape(t.size, n, 3)
    assert (scales[:, 1:3].reshape(t.size, -1) == rest[2][3:9]).all()
    assert not scales[:, 3:].any()
    with pytest.raises(ValueError, match="run 1 .* outside"):
        decoder.decode(stride, t, outputs(), 1, (np.array([2, 0, 3, 1, 1, 4 * n], np.int64),
                                                 *rest))
    with pytest.raises(ValueError, match="outside"):
        decoder.decode(stride, t, outputs(t.size - 1), 1, (runs[:3], *rest))
    with pytest.raises(ValueError, match="triples"):
        decoder.decode(stride, t, outputs(), 1, (runs[:2], *rest))
    with pytest.raises(TypeError, match="fill\\[2\\]"):
        decoder.decode(stride, t, outputs(), 1, (runs, rest[0], rest[1].astype(np.float64),
                                                 rest[2]))
    with pytest.raises(TypeError, match="fill must be"):
        decoder.decode(stride, t, outputs(), 1, (runs,))
