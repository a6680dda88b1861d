"""Clip.playback: one time a call (a playback loop) gives the bits of Clip.sample."""
import numpy as np
import pytest

from skinkit import Channel, Clip
import helpers
from test_sample import _mixed_clip
from test_sample_lanes import KT_A, _channels

DTYPES = helpers.DTYPES


def _clips(dtype):
    """The mixed clip (every path and interpolation, nodes with unanimated paths) and the lane
    groups' clip (40 nodes, runs of LINEAR channels sharing key times)."""
    clip, _, rest = _mixed_clip(dtype)
    lanes = Clip("lanes", _channels(helpers.rng_for("playback")), dtype)
    n = 40
    rng = helpers.rng_for("playback-rest")
    lanes_rest = (rng.normal(size=(n, 3)), helpers.random_quats(rng, (n,)),
                  rng.uniform(0.5, 2.0, size=(n, 3)))
    return [(clip, rest), (lanes, lanes_rest)]


@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_playback_gives_the_bits_of_sample(dtype, loop):
    """Frame after frame, forwards, backwards and jumping (a scrubbed timeline), before the
    first key and after the last: each call the very bits of Clip.sample at that time, in the
    same read-only arrays, which keep the rest pose where no channel writes."""
    for clip, rest in _clips(dtype):
        d = clip.duration                                 # wrapped onto 0, just below d...
        frames = np.concatenate([np.arange(0, 3.5, 1 / 30), [2.5, 0.2, -1.0, 7.25, 1.0],
                                 [d, 3 * d, -d, -1e-7, np.nextafter(d, 0), 12345.678]])
        play = clip.playback(rest, loop=loop)
        first = None
        for t in frames:
            got = play.sample(float(t))
            first = first or got
            assert all(g is f for g, f in zip(got, first))
            assert not any(g.flags.writeable for g in got)
            for g, e in zip(got, clip.sample(t, rest, loop=loop)):
                np.testing.assert_array_equal(g, e)
        assert KT_A[-1] < frames.max()                    # held after the last key too


@pytest.mark.parametrize("time, error, words", [
    (float("nan"), ValueError, "times must be finite"),
    (1e39, ValueError, "times must be finite"),           # beyond float32
    (np.float64(-np.inf), ValueError, "times must be finite"),
    (np.inf, ValueError, "times must be finite"),
    ("1.0", TypeError, "times must be real numbers"),
    (1j, TypeError, "times must be real numbers"),
    ([0.1, 0.2], ValueError, "time must be one number, got 2"),
])
def test_playback_refuses_bad_times(time, error, words):
    (clip, rest), _ = _clips(np.float32)
    play = clip.playback(rest)
    before = [p.copy() for p in play.sample(0.3)]
    with pytest.raises(error, match=words):
        play.sample(time)
    assert all(np.array_equal(p, b) for p, b in zip(play.sample(0.3), before))
    for t in (1, np.float32(0.3), np.float16(0.3), np.longdouble(0.3), np.array(0.3),
              np.array([0.3])):                               # any one real number
        expected = clip.sample(np.ravel(t)[0], rest)
        assert all(np.array_equal(p, e) for p, e in zip(play.sample(t), expected))


@pytest.mark.parametrize("dtype", DTYPES)
def test_playback_keeps_its_checked_table(dtype):
    """A Playback checks the clip's table once and keeps copies of the fields that say where
    samples go: scribbling over the clip's own arrays afterwards changes nothing it writes."""
    _, (clip, rest) = _clips(dtype)
    play = clip.playback(rest)
    expected = [p.copy() for p in play.sample(0.7)]
    n = rest[0].shape[0]
    _, offset, stride = clip._layout(n)
    table = clip._table
    for a in (offset, stride, table.key_offset, table.nkeys, table.value_offset, table.node):
        a[:] = 2**40
    for a in (table.ncomp, table.interp, table.rotation):
        a[:] = 7
    assert all(np.array_equal(p, e) for p, e in zip(play.sample(0.7), expected))


@pytest.mark.parametrize("threads", [1, 2])
def test_playback_of_many_channels(threads):
    """A clip of more channels than a call samples holding the GIL, and (33,000 channels) than
    one thread samples alone: the bits of Clip.sample, on one thread and two."""
    rng = helpers.rng_for("playback-many")
    kt = np.linspace(0, 1, 5)
    for n in (1500, 33_000):
        clip = Clip("many", [Channel(i, "translation", kt, v)
                             for i, v in enumerate(rng.normal(size=(n, 5, 3)))], np.float32)
        rest = (np.zeros((n, 3)), np.tile([0, 0, 0, 1.0], (n, 1)), np.ones((n, 3)))
        play = clip.playback(rest, threads=threads)
        for t in (0.33, 0.9, 0.01, 0.5):
            for g, e in zip(play.sample(t), clip.sample(t, rest, threads=1)):
                np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("dtype", DTYPES)
def test_playback_of_a_lane_group_across_two_outputs(dtype):
    """Translations then scales on the same key times (no rotation between them): the sampler
    groups the last translations with the first scales, and each output gets its own lanes."""
    rng = helpers.rng_for("playback-across")
    kt = np.linspace(0, 2, 7)
    chans = [Channel(i, path, kt, rng.uniform(0.5, 2, size=(7, 3)))
             for path, n in (("translation", 5), ("scale", 6)) for i in range(n)]
    clip = Clip("across", chans, dtype)
    rest = (rng.normal(size=(6, 3)), helpers.random_quats(rng, (6,)), np.ones((6, 3)))
    play = clip.playback(rest)
    for t in (0.0, 0.45, 1.99, 2.5, 1.0, -0.1):
        for g, e in zip(play.sample(t), clip.sample(t, rest)):
            np.testing.assert_array_equal(g, e)
