"""Clip.playback: one time a call (a playback loop) gives the bits of Clip.sample."""
import copy
import gc
import inspect
import pickle
import weakref

import numpy as np
import pytest

from skinkit import Channel, Clip, _core
from skinkit.model.clip import Playback
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
    (None, TypeError, "times must be real numbers"),
    (True, TypeError, "times must be real numbers"),
    (10**400, TypeError, "times must be real numbers"),
    (np.array([]), ValueError, "time must be one number, got 0"),
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


class _Seconds(float):
    """A float of another type: converted by as_times's rule, as any type but float's."""


# every kind of time Playback.sample takes: a float and NumPy's float64, float32 and float16 go
# straight to C; the others through as_times (as Clip.sample converts them)
TIMES = [float, np.float64, np.float32, np.float16, _Seconds, int, np.int32, np.longdouble,
         np.array, lambda t: np.array([t]), lambda t: np.array([[t]], np.float32),
         lambda t: [t]]


@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", range(len(TIMES)))
def test_playback_takes_a_time_of_every_type(kind, dtype, loop):
    """Each kind of time samples the very bits Clip.sample gives for it, in the same arrays."""
    make = TIMES[kind]
    for clip, rest in _clips(dtype):
        play = clip.playback(rest, loop=loop)
        first = play.sample(0.0)
        for t in (0.3, 1.7, 2, -0.45, 3.1, 12.9, 1 / 3):
            time = make(t)
            got = play.sample(time)
            assert got is first
            for g, e in zip(got, clip.sample(time, rest, loop=loop)):
                np.testing.assert_array_equal(g, e.reshape(g.shape))


def _player_args(clip, rest):
    """What Playback gives _core.ClipPlayer, but pose and convert."""
    pose = clip.sample(0.0, rest)
    _, offset, stride = clip._layout(pose[0].shape[0])
    return pose, (clip._table, offset, stride, tuple(o.reshape(-1) for o in pose), None, 0.0)


def _read_only_pose(clip, rest):
    """A rest pose sampled, then read-only (what a player cannot write into)."""
    pose = clip.sample(0.0, rest)
    for p in pose:
        p.flags.writeable = False
    return pose


def test_playback_sample_is_the_c_method():
    """Playback subclasses _core.ClipPlayer and has no sample of its own: the call goes straight
    to C, whose docstring is the documentation; the constructor is Playback's."""
    (clip, rest), _ = _clips(np.float32)
    play = Playback(clip, rest, True, threads=1)
    assert isinstance(play, _core.ClipPlayer)
    assert "sample" not in vars(Playback) and "sample" not in vars(play)
    assert Playback.sample is vars(_core.ClipPlayer)["sample"]
    for words in ("Parameters", "Returns", "TRS", "Raises", "TypeError", "ValueError"):
        assert words in Playback.sample.__doc__
    assert list(inspect.signature(Playback).parameters) == ["clip", "rest", "loop", "threads"]
    assert str(inspect.signature(play.sample)) == "(time)"
    for g, e in zip(play.sample(time=3.3), clip.sample(3.3, rest, loop=True)):
        np.testing.assert_array_equal(g, e)
    for args, kwargs in [((), {}), ((0.1, 0.2), {}), ((0.1,), {"time": 0.2}), ((), {"t": 0.1}),
                         ((), {"time": 0.1, "t": 0.1})]:
        with pytest.raises(TypeError, match="takes one argument: time"):
            play.sample(*args, **kwargs)


def test_a_player_made_otherwise_refuses():
    """Made without its arguments, with wrong ones, or not made at all: an exception, never a
    crash; the converter's errors and results are checked as a time's."""
    (clip, rest), _ = _clips(np.float64)
    pose, args = _player_args(clip, rest)
    with pytest.raises(TypeError):
        _core.ClipPlayer.__new__(_core.ClipPlayer)
    with pytest.raises(TypeError):
        _core.ClipPlayer()
    with pytest.raises(TypeError):
        Playback.__new__(Playback)
    with pytest.raises(TypeError, match="not safe"):
        object.__new__(Playback)
    with pytest.raises(TypeError, match="is not a subtype"):
        _core.ClipPlayer.__new__(int, *args, pose, float)
    with pytest.raises(TypeError, match="positional arguments"):
        _core.ClipPlayer(*args, pose=pose, convert=float)
    with pytest.raises(TypeError, match="arguments"):
        _core.ClipPlayer(*args, pose, float, threads=1)
    with pytest.raises(TypeError, match="convert must be callable"):
        _core.ClipPlayer(*args, pose, None)
    with pytest.raises(AttributeError):
        _core.ClipPlayer(None, *args[1:], pose, float)
    with pytest.raises(TypeError, match="writeable"):
        _core.ClipPlayer(*args[:3], tuple(p.reshape(-1) for p in _read_only_pose(clip, rest)),
                         None, 0.0, pose, float)
    with pytest.raises(ValueError, match="threads"):
        _core.ClipPlayer(*args[:4], 0, 0.0, pose, float)
    with pytest.raises(TypeError, match="descriptor"):
        Playback.sample(object(), 0.3)

    class Unmade(Playback):
        def __new__(cls):
            return object.__new__(cls)

    with pytest.raises(TypeError, match="not safe"):
        Unmade()

    def convert(time):
        if time == "raise":
            raise KeyError(time)
        return time

    player = _core.ClipPlayer(*args, pose, convert)
    assert player.sample(0.25) is pose
    assert player.sample(np.float32(0.25)) is pose
    with pytest.raises(KeyError):
        player.sample("raise")
    with pytest.raises(TypeError):
        player.sample([0.25])                   # converted to itself: not a number
    with pytest.raises(ValueError, match="times must be finite"):
        player.sample(np.longdouble("inf"))
    assert player.sample(1) is pose             # converted to itself: a number
    for g, e in zip(pose, clip.sample(1.0, rest)):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("fail", [False, True])
def test_a_player_found_while_it_is_made_refuses(fail):
    """Reading the table's attributes runs Python code, which can find the player being made
    (gc.get_objects): its sample refuses until the player is made, and for ever if making it
    failed; the one made samples."""
    (clip, rest), _ = _clips(np.float32)
    pose, args = _player_args(clip, rest)

    class Snooped(_core.ClipPlayer):
        pass

    class Table:
        def __init__(self):
            self.found = []

        def __getattr__(self, name):
            if name == "values":
                self.found += [o for o in gc.get_objects() if type(o) is Snooped]
                for o in self.found:
                    with pytest.raises(RuntimeError, match="not made"):
                        o.sample(0.3)
            if fail and name == "rotation":
                raise AttributeError(name)
            return getattr(clip._table, name)

    table = Table()
    if fail:
        with pytest.raises(AttributeError, match="rotation"):
            Snooped(table, *args[1:], pose, float)
        (found,) = table.found
        with pytest.raises(RuntimeError, match="not made"):
            found.sample(0.3)
    else:
        player = Snooped(table, *args[1:], pose, float)
        assert table.found == [player]
        assert player.sample(0.3) is pose
        for g, e in zip(pose, clip.sample(0.3, rest)):
            np.testing.assert_array_equal(g, e)


def test_playback_is_not_pickled_or_copied():
    (clip, rest), _ = _clips(np.float32)
    play = clip.playback(rest)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match="cannot pickle or copy a Playback"):
            pickle.dumps(play, protocol)
    for f in (copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="cannot pickle or copy a Playback"):
            f(play)


def test_a_cycle_through_the_converter_is_collected():
    """The player shows the collector what it holds: a converter that refers back to it does
    not keep it alive."""
    (clip, rest), _ = _clips(np.float32)
    pose, args = _player_args(clip, rest)

    class Player(_core.ClipPlayer):
        pass

    class Convert:
        def __call__(self, time):
            return float(time)

    convert = Convert()
    player = Player(*args, pose, convert)
    convert.player = player
    assert player.sample(1) is pose
    gone = weakref.ref(player)
    del player, convert
    gc.collect()
    assert gone() is None
