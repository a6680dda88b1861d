"""Clip.playback: one time a call (a playback loop) gives the bits of Clip.sample."""
import numpy as np
import pytest

from skinkit import Clip
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
    frames = np.concatenate([np.arange(0, 3.5, 1 / 30), [2.5, 0.2, -1.0, 7.25, 1.0]])
    for clip, rest in _clips(dtype):
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
    for t in (1, np.float32(0.3), np.array(0.3), np.array([0.3])):  # any one real number
        expected = clip.sample(np.ravel(t)[0], rest)
        assert all(np.array_equal(p, e) for p, e in zip(play.sample(t), expected))
