"""The compressed clip container: round trips, and hostile containers refused with a message."""
import re
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

import skinkit
from skinkit.io import skc as cf
from skinkit.model.compress import compress

from test_compress import random_clip


@pytest.fixture(scope="module", params=[np.float32, np.float64])
def compressed(request):
    skel, clip = random_clip(np.random.default_rng(11), request.param)
    return skel, compress(clip, skel, precision=1e-3, shell_distance=0.05)


def test_round_trip_is_bitwise(compressed, tmp_path):
    skel, cc = compressed
    path = tmp_path / "clip.skc"
    skinkit.save_compressed(cc, path)
    back = skinkit.load_compressed(path)
    assert path.stat().st_size == len(cf.dumps(cc)) == len(cf.dumps(back))
    assert back.dtype == cc.dtype and back.name == cc.name
    rest = (skel.translations, skel.rotations, skel.scales)
    t = np.linspace(-0.2, 2.2, 41)
    for a, b in zip(cc.sample(t, rest), back.sample(t, rest)):
        np.testing.assert_array_equal(a, b)
    assert back.sample_weights(t)[5].tobytes() == cc.sample_weights(t)[5].tobytes()
    assert list(tmp_path.iterdir()) == [path]              # no temporary left beside it



def test_a_loaded_clip_holds_about_its_container():
    """Decoding reads the compressed form: what a loaded clip keeps is its container's bytes,
    its key times and a small table per track, not the decoded keys."""
    skel, clip = random_clip(np.random.default_rng(3), np.float32, keys=3000)
    data = cf.dumps(compress(clip, skel, precision=1e-3, shell_distance=0.05))
    raw = sum(np.asarray(ch.values).nbytes for ch in clip.channels)
    times = sum(np.asarray(ch.times).nbytes for ch in clip.channels)
    tracemalloc.start()
    try:
        back = cf.loads(data)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(back.tracks) > 5
    assert held <= 1.1 * len(data) + 4 * times + 4096 * len(back.tracks), (held, len(data))
    assert held < raw / 2


def reseal(data, body=None, **header):
    """``data`` with its body replaced and its header fields overridden, the checksum and length
    made right unless given."""
    magic, version, itemsize, res, _, _ = cf._HEADER.unpack_from(data)
    body = data[cf._HEADER.size:] if body is None else body
    fields = dict(magic=magic, version=version, itemsize=itemsize, res=res, length=len(body),
                  crc=zlib.crc32(body))
    fields.update(header)
    return cf._HEADER.pack(*fields.values()) + body


def test_hostile_containers_are_refused(compressed):
    _, cc = compressed
    good = cf.dumps(cc)
    body = good[cf._HEADER.size:]
    cases = {
        "shorter than the 16-byte header": good[:10],
        "truncated or trailing": good[:-3],
        "not a skinkit compressed clip": reseal(good, magic=b"GLTF"),
        "container version 9": reseal(good, version=9),
        "item size 2": reseal(good, itemsize=2),
        "checksum": reseal(good, crc=zlib.crc32(body) ^ 1),
        "trail the last track": reseal(good, body + b"\0\0"),
    }
    # huge counts: a track count no remaining byte could hold, a node count over the limit,
    # a uniform time array of 2^30 keys
    head = cf._varint(cc.node_count) + cf._varint(len(cc.times))
    rest = body[len(head) + len(cf._varint(len(cc.tracks))):]
    cases["track count"] = reseal(good, head + cf._varint(1 << 32) + rest)
    cases["more than the limit"] = reseal(good, cf._varint(1 << 30) + body[1:])
    # the first track twice (two writers of one output)
    first = len(body) - sum(len(cf.track_bytes(tr, len(cc.times))) for tr in cc.tracks)
    dup = body[first:first + len(cf.track_bytes(cc.tracks[0], len(cc.times)))]
    cases["which an earlier track animates"] = reseal(
        good, head + cf._varint(len(cc.tracks) + 1) + rest + dup)
    uniform = (cf._varint(1) + cf._varint(1) + cf._varint(0) + cf._varint(0) + b"\0"
               + cf._varint(1 << 30) + struct.pack("<dd", 0.0, 30.0))
    cases["times[0] count"] = reseal(good, uniform)
    cases["t0 nan"] = reseal(good, cf._varint(1) + cf._varint(1) + cf._varint(0) + cf._varint(0)
                             + b"\0" + cf._varint(4) + struct.pack("<dd", np.nan, 30.0))
    # a NaN range, an unknown level, a node outside the skeleton: the first quantized track
    pos = len(body) - sum(len(cf.track_bytes(tr, len(cc.times))) for tr in cc.tracks)
    for tr in cc.tracks:
        size = len(cf.track_bytes(tr, len(cc.times)))
        if tr.level in cf.BIT_RATES:
            c = tr.minimum.size
            table = tr.widths.size + tr.seg_codes.size                   # its segments' bytes
            seg = pos + size - len(tr.payload) - table                   # the first segment
            at = seg - len(cf._varint(tr.seg_keys)) - 8 * c              # its range minimum
            cases["not finite"] = reseal(good, body[:at] + np.float32(np.nan).tobytes()
                                         + body[at + 4:])
            cases["level 17"] = reseal(good, body[:pos + 2] + bytes([17]) + body[pos + 3:])
            wide = seg + (2 * c if tr.seg_keys else 0)                   # its first width
            cases["width above its level"] = reseal(good, body[:wide] + bytes([30])
                                                    + body[wide + 1:])
            node = cf._varint(cc.node_count + 5)
            cases["node is"] = reseal(good, body[:pos] + node + body[pos + 1:])
            break
        pos += size
    assert {"not finite", "level 17", "node is", "width above its level"} <= set(cases)
    for message, data in cases.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            cf.loads(data, "hostile.skc")


def test_load_names_the_file(tmp_path):
    p = tmp_path / "bad.skc"
    p.write_bytes(b"SKCC" + b"\0" * 4)
    with pytest.raises(ValueError, match="bad.skc"):
        skinkit.load_compressed(p)
