"""The packed clip table (skinkit.model.clip.ClipTable, sk_clip in src/skinkit.h): every corruption of
its ranges is refused by sk_check_clip / sk_check_clip_output before sampling, and every message
says in words which field or channel is wrong (no NumPy type numbers)."""
import numpy as np
import pytest

import skinkit as sk
from skinkit import _core


def clip(dtype=np.float64):
    t = np.array([0.0, 1.0, 2.0])
    return sk.Clip("c", [
        sk.Channel(0, "translation", t, np.arange(9.0).reshape(3, 3)),
        sk.Channel(1, "rotation", t, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), "STEP"),
        sk.Channel(1, "scale", t, np.ones((9, 3)), "CUBICSPLINE"),
    ], dtype)


def call(table, dtype=np.float64, times=(0.5, 1.5), out_offset=None, out_stride=None, nout=None):
    n, times = 2, np.asarray(times, dtype)
    ncomp = table.ncomp.astype(np.int64)
    base = np.array([0, 3 * n * times.size, 7 * n * times.size], np.int64)
    oo = base[table.path] + table.node * ncomp if out_offset is None else out_offset
    os = n * ncomp if out_stride is None else out_stride
    out = np.zeros(10 * n * times.size if nout is None else nout, dtype)
    _core.sample_channels(table, oo, os, times, out)
    return out


def test_a_good_table_samples_as_the_clip_does():
    c = clip()
    rest = (np.zeros((2, 3)), np.tile([0.0, 0, 0, 1], (2, 1)), np.ones((2, 3)))
    tr, ro, sc = c.sample([0.5, 1.5], rest)
    out = call(c._table)
    assert np.array_equal(out[:12].reshape(2, 2, 3)[:, 0], tr[:, 0])
    assert np.array_equal(out[12:28].reshape(2, 2, 4)[:, 1], ro[:, 1])


def test_channels_with_the_same_key_times_share_them():
    """The three channels have the same key times: the table holds them once (the sampler then
    finds a block's key intervals once for the three), and samples as the clip does."""
    table = clip()._table
    assert table.key_times.tolist() == [0.0, 1.0, 2.0] and table.key_offset.tolist() == [0, 0, 0]
    other = sk.Clip("c", [sk.Channel(0, "translation", np.array([0.0, 1.5]), np.zeros((2, 3))),
                          sk.Channel(1, "scale", np.array([0.0, 1.5]), np.ones((2, 3))),
                          sk.Channel(1, "rotation", np.array([0.0, 2.0]),
                                     np.tile([0.0, 0, 0, 1], (2, 1)))])._table
    assert other.key_times.tolist() == [0.0, 1.5, 0.0, 2.0]
    assert other.key_offset.tolist() == [0, 2, 0]        # ordered by path: t, r, s


@pytest.mark.parametrize("field, value, words", [
    ("nkeys", [3, 0, 3], "channel 1 has no keys"),
    ("key_offset", [0, 0, 1], "channel 2 has no keys, or its keys lie outside key_times"),
    ("nkeys", [3, 3, 4], "channel 2 has no keys, or its keys lie outside key_times"),
    ("ncomp", [3, 3, 3], "channel 1 has ncomp < 1 (or not 4 for a rotation)"),
    ("ncomp", [0, 4, 3], "channel 0 has ncomp < 1"),
    ("ncomp", [3, 4, 2**31 - 1], "channel 2 has its values outside the values array"),
    ("interp", [1, 0, 3], "channel 2 has an unknown interpolation"),
    ("value_offset", [0, 9, 22], "channel 2 has its values outside the values array"),
    ("value_offset", [-1, 9, 21], "channel 0 has its values outside"),
])
def test_a_corrupt_table_is_refused_in_words(field, value, words):
    c = clip()
    dtype = c._table._asdict()[field].dtype
    table = c._table._replace(**{field: np.array(value, dtype)})
    with pytest.raises(ValueError, match=r"^clip table: " + words.replace("(", r"\(")
                       .replace(")", r"\)").replace(".", r"\.")):
        call(table)


@pytest.mark.parametrize("oo, os, nout, channel", [
    ([0, 12, 28], [3, 4, 3], 33, 2),         # the last scale runs one value past out
    ([-1, 12, 28], [6, 8, 6], None, 0),
    ([0, 12, 28], [6, -8, 6], None, 1),
    ([0, 12, 2**62], [6, 8, 6], None, 2),
    ([0, 12, 28], [6, 2**62, 6], None, 1),
])
def test_outputs_outside_out_are_refused(oo, os, nout, channel):
    table = clip()._table
    with pytest.raises(ValueError, match=rf"^sample_channels: channel {channel} writes outside out"):
        call(table, out_offset=np.array(oo, np.int64), out_stride=np.array(os, np.int64),
             nout=nout)


def test_no_times_write_nothing_anywhere():
    table = clip()._table
    assert call(table, times=np.zeros(0), out_offset=np.full(3, 2**62, np.int64)).size == 0


@pytest.mark.parametrize("field, bad", [
    ("key_offset", lambda a: a.astype(np.int32)),
    ("ncomp", lambda a: a.astype(np.int64)),
    ("values", lambda a: a.astype(np.float32)),
    ("nkeys", lambda a: a[::-1][::-1].reshape(1, -1)),
    ("rotation", lambda a: list(a)),
])
def test_fields_of_the_wrong_kind_are_named_in_words(field, bad):
    c = clip()
    table = c._table._replace(**{field: bad(getattr(c._table, field))})
    with pytest.raises(TypeError, match=rf"^clip table {field} must be a one-dimensional, native, "
                                        r"aligned, C-contiguous (int32|int64|float64) array"):
        call(table)


def test_per_channel_fields_must_agree_in_length():
    c = clip()
    with pytest.raises(ValueError, match="clip table interp must have one entry per channel"):
        call(c._table._replace(interp=c._table.interp[:2]))


def test_out_must_be_a_writeable_float_array():
    table = clip()._table
    out = np.zeros(40)
    out.flags.writeable = False
    for bad in (out, np.zeros(40, np.float16), [0.0] * 40):
        with pytest.raises(TypeError, match="^out must be a one-dimensional"):
            _core.sample_channels(table, np.zeros(3, np.int64), np.zeros(3, np.int64),
                                  np.zeros(1), bad)
