"""Hostile Zarr stores (issue 17): copies of one tiny baked store, each broken in one way (its
folder, its zarr.json, an array's presence, dtype, shape or chunks, sizes past skinkit.limits,
the sequences table, links and special files), opened by ``skinkit.dataset.open``, by
``skinkit.torch.BakedDataset`` and by a bake resuming onto it; and a store of characters (its
arrays per mesh primitive, its attribute ``primitives`` naming them).  Each must be one
StoreError (a ValueError) naming the store and what is wrong, raised before anything is read or
started (the resumed bake: before its cluster)."""
import json
import os
import pickle
import re
import shutil

import numpy as np
import pytest
from conftest import DATASET_HOW, GLTF, TORCH_HOW, need_shared, optional_import

optional_import("zarr", DATASET_HOW, "dataset")
import zarr  # noqa: E402
from numcodecs.zstd import Zstd  # noqa: E402

from amass_files import write_motion  # noqa: E402

import skinkit as sk  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402
from skinkit.dataset import StoreError  # noqa: E402
from skinkit.dataset.chunks import ZSTD_MAGIC  # noqa: E402

K, V, J = 4, 24, 52          # frames a chunk, vertices, joints
N, C = 12, 3                 # frames (motions of 5 and 7), chunks
FRAME_ARRAYS = ("vertices", "joints", "frame_sequence", "frame_time")


@pytest.fixture(scope="module")
def baked(tmp_path_factory):
    """(motions folder, body model, store): two motions baked by one worker, the frame arrays
    with zstd (a codec to feed broken frames to; the default stores them raw)."""
    d = tmp_path_factory.mktemp("hostile-store")
    np.savez(d / "body.npz", **synthetic_body_arrays("SMPL+H", seed=3, num_vertices=V))
    (d / "motions").mkdir()
    for i, T in enumerate((5, 7)):
        write_motion(d / "motions" / f"m{i}.npz", T, seed=i, gender="female")
    s = sk.dataset.bake([str(d / "motions")], str(d / "ref.zarr"), body=str(d / "body.npz"),
                        frames_per_chunk=K, compression="zstd", workers=1)
    assert s.ok and s.frames == N
    return d / "motions", d / "body.npz", d / "ref.zarr"


# --- ways of breaking a store -----------------------------------------------------------------


def edit(store, array, **fields):
    """Change fields of an array's (or, for ".", the root's) zarr.json; ``chunks`` is the chunk
    shape."""
    path = store / array / "zarr.json"
    meta = json.loads(path.read_text())
    for key, value in fields.items():
        if key == "chunks":
            meta["chunk_grid"]["configuration"]["chunk_shape"] = value
        else:
            meta[key] = value
    path.write_text(json.dumps(meta))


def arguments(store, **changes):
    meta = json.loads((store / "zarr.json").read_text())
    meta["attributes"]["skinkit"]["arguments"].update(changes)
    (store / "zarr.json").write_text(json.dumps(meta))


def attributes(store, **changes):
    """Change (a value) or remove (None) skinkit attributes of the store."""
    meta = json.loads((store / "zarr.json").read_text())
    skinkit = meta["attributes"]["skinkit"]
    for key, value in changes.items():
        if value is None:
            del skinkit[key]
        else:
            skinkit[key] = value
    (store / "zarr.json").write_text(json.dumps(meta))


def write(store, array, index, value):
    zarr.open_group(str(store), mode="r+")[array][index] = value


def replace(path, make):
    """``path`` (a file or folder) replaced by what ``make(path)`` creates."""
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    make(path)


def frames(store, n, chunk=K):
    """Every frame array (and chunk_done, and the arguments) declaring ``n`` frames in chunks
    of ``chunk``, consistently."""
    for a in FRAME_ARRAYS:
        tail = json.loads((store / a / "zarr.json").read_text())["shape"][1:]
        edit(store, a, shape=[n] + tail, chunks=[chunk] + tail)
    edit(store, "chunk_done", shape=[-(-n // chunk)])
    arguments(store, frames_per_chunk=chunk)


def zstd_frame(content_size, block=b"\x01\x00\x00"):
    """A Zstandard frame header declaring ``content_size`` bytes (single segment, 8-byte
    Frame_Content_Size, RFC 8878 3.1.1.1), then ``block`` (default: one empty raw block)."""
    return ZSTD_MAGIC + b"\xe0" + content_size.to_bytes(8, "little") + block


def vlen(*items, count=None):
    """A vlen-utf8 buffer (numcodecs' layout: uint32 count, then each uint32 length, bytes)."""
    out = (len(items) if count is None else count).to_bytes(4, "little")
    for item in items:
        data = item if isinstance(item, bytes) else item.encode()
        out += len(data).to_bytes(4, "little") + data
    return out


class Payload:
    """What a pickle codec would run on decoding: it creates a file."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def sequences(store, n):
    """Every sequences column declaring ``n`` rows, consistently."""
    for column in (store / "sequences").iterdir():
        if column.is_dir():
            meta = json.loads((column / "zarr.json").read_text())
            shape = [n] + meta["shape"][1:]
            edit(store, f"sequences/{column.name}", shape=shape, chunks=shape)


def column_chunk(store, column, data, compressed=True):
    """Column ``column``'s one chunk replaced by ``data`` (zstd-compressed, or stored raw with
    the zstd codec removed)."""
    if not compressed:
        meta = json.loads((store / "sequences" / column / "zarr.json").read_text())
        edit(store, f"sequences/{column}", codecs=meta["codecs"][:1])
    (store / "sequences" / column / "c").mkdir(exist_ok=True)
    (store / "sequences" / column / "c" / "0").write_bytes(Zstd().encode(data) if compressed
                                                            else data)


OUTSIDE = "outside.bin"      # a file beside the store, the target of links out of it
CHUNK = "vertices/c/1/0/0"   # one chunk file of the frame arrays

# (case, how the copy is broken, what the message says after the store's path)
CASES = [
    ("no such folder", lambda s: shutil.rmtree(s), "no such folder"),
    ("a file", lambda s: replace(s, lambda p: p.write_text("{}")), "not a folder"),
    ("an empty folder", lambda s: replace(s, os.mkdir), "not a Zarr v3 store"),
    ("zarr.json not JSON", lambda s: (s / "zarr.json").write_text("{nope"),
     r"not a Zarr v3 store \(JSONDecodeError"),
    ("zarr.json a list", lambda s: (s / "zarr.json").write_text("[]"), "not a Zarr v3 store"),
    ("zarr.json an array's", lambda s: shutil.copy(s / "faces" / "zarr.json", s / "zarr.json"),
     "not a Zarr v3 store"),
    ("a Zarr v2 group", lambda s: ((s / "zarr.json").unlink(),
                                   (s / ".zgroup").write_text('{"zarr_format": 2}')),
     "not a Zarr v3 store"),
    ("no attributes", lambda s: edit(s, ".", attributes={}), "not a skinkit bake store"),
    ("other attributes", lambda s: edit(s, ".", attributes={"skinkit": {"version": "1"}}),
     "not a skinkit bake store"),
    ("frames_per_chunk a string", lambda s: arguments(s, frames_per_chunk="4"),
     "frames_per_chunk '4'"),
    ("dtype float64", lambda s: arguments(s, dtype="float64"), "dtype 'float64'"),
    ("dtype float16 over float32 arrays", lambda s: arguments(s, dtype="float16"),
     "vertices: dtype float32, expected float16"),
    ("no vertices", lambda s: shutil.rmtree(s / "vertices"), "no array vertices"),
    ("no faces", lambda s: shutil.rmtree(s / "faces"), "no array faces"),
    ("no sequences", lambda s: shutil.rmtree(s / "sequences"), "no array sequences/source"),
    ("no sequences/count", lambda s: shutil.rmtree(s / "sequences" / "count"),
     "no array sequences/count"),
    ("vertices a group", lambda s: replace(s / "vertices", lambda p: zarr.open_group(
        str(p), mode="w", zarr_format=3)), "vertices is a Group, not an array"),
    ("vertices int32", lambda s: edit(s, "vertices", data_type="int32"),
     "vertices: dtype int32, expected float32"),
    ("vertices an unknown dtype", lambda s: edit(s, "vertices", data_type="float99"),
     "vertices: unreadable metadata .*float99"),
    ("vertices a negative shape", lambda s: edit(s, "vertices", shape=[-1, V, 3]),
     "vertices: unreadable metadata"),
    ("vertices (N, 3 V)", lambda s: edit(s, "vertices", shape=[N, 3 * V], chunks=[K, 3 * V],
                                         dimension_names=None),
     rf"vertices: shape \({N}, {3 * V}\), expected \(N, V, 3\)"),
    ("vertices (N, V, 4)", lambda s: edit(s, "vertices", shape=[N, V, 4], chunks=[K, V, 4]),
     rf"vertices: shape \({N}, {V}, 4\), expected \(N, V, 3\)"),
    ("joints of another frame count", lambda s: edit(s, "joints", shape=[N + 1, J, 3]),
     rf"joints: shape \({N + 1}, {J}, 3\), expected \(N={N}, J, 3\)"),
    ("joints float16", lambda s: edit(s, "joints", data_type="float16"),
     "joints: dtype float16, expected float32"),
    ("frame_sequence float64", lambda s: edit(s, "frame_sequence", data_type="float64"),
     "frame_sequence: dtype float64, expected int32"),
    ("frame_time float32", lambda s: edit(s, "frame_time", data_type="float32"),
     "frame_time: dtype float32, expected float64"),
    ("frame_time (N, 1)", lambda s: edit(s, "frame_time", shape=[N, 1], chunks=[K, 1],
                                         dimension_names=None),
     rf"frame_time: shape \({N}, 1\), expected \(N={N}\)"),
    ("faces (F, 4)", lambda s: edit(s, "faces", shape=[48, 4], chunks=[48, 4]),
     r"faces: shape \(48, 4\), expected \(F, 3\)"),
    ("faces float32", lambda s: edit(s, "faces", data_type="float32"),
     "faces: dtype float32, expected int32"),
    ("a face past the vertices", lambda s: write(s, "faces", (3, 1), V),
     rf"faces: an index outside 0..{V - 1}"),
    ("a negative face index", lambda s: write(s, "faces", (0, 0), -1),
     rf"faces: an index outside 0..{V - 1}"),
    ("faces in one-row chunks", lambda s: edit(s, "faces", chunks=[1, 3]),
     r"faces: chunks of \(1, 3\), expected \(48, 3\)"),
    ("10^12 frames", lambda s: frames(s, 10**12),
     r"1000000000000 frames in chunks of 4 make 250000000000 chunks, more than the limit of "
     r"4194304 \(skinkit.limits.MAX_CHUNKS\)"),
    ("chunks of 10^12 frames", lambda s: edit(s, "vertices", chunks=[10**12, V, 3]),
     rf"vertices: chunks of \({10**12}, {V}, 3\), expected \(4, {V}, 3\)"),
    ("chunks of 10^9 frames, consistently", lambda s: frames(s, N, 10**9),
     rf"vertices: a chunk of \({10**9}, {V}, 3\) takes {10**9 * V * 12} bytes, more than the "
     r"limit of 2147483648 \(skinkit.limits.MAX_ARRAY_BYTES\)"),
    ("chunk_done too long", lambda s: edit(s, "chunk_done", shape=[C + 1]),
     rf"chunk_done: {C + 1} marks, expected {C} \(one for each chunk of {K} of the {N} frames"),
    ("chunk_done in one chunk", lambda s: edit(s, "chunk_done", chunks=[C]),
     rf"chunk_done: chunks of \({C},\), expected \(1,\)"),
    ("sequences/status a row more", lambda s: edit(s, "sequences/status", shape=[3], chunks=[3]),
     r"sequences/status: shape \(3,\), expected \(S=2\)"),
    ("sequences/count of 10^12 rows", lambda s: edit(s, "sequences/count", shape=[10**12]),
     r"sequences/count: shape \(1000000000000,\), expected \(S=2\)"),
    ("sequences/start float64", lambda s: edit(s, "sequences/start", data_type="float64"),
     "sequences/start: dtype float64, expected int64"),
    ("a negative count", lambda s: write(s, "sequences/count", 0, -5),
     rf"sequences/count: the counts \[-5, 7\] do not add up to the {N} frames"),
    ("counts short of the frames", lambda s: write(s, "sequences/count", 1, 6),
     rf"sequences/count: the counts \[5, 6\] do not add up to the {N} frames"),
    ("counts wrapping past int64", lambda s: write(s, "sequences/count", slice(None),
                                                   [2**62, 2**62]),
     rf"do not add up to the {N} frames"),
    ("a start past the frames", lambda s: write(s, "sequences/start", 1, 10**9),
     "sequences/start: sequence 1 starts at frame 1000000000, expected 5"),
    ("sequences overlapping", lambda s: write(s, "sequences/start", 1, 4),
     "sequences/start: sequence 1 starts at frame 4, expected 5"),
    ("an unknown status", lambda s: write(s, "sequences/status", 0, "bogus"),
     "sequences/status: sequence 0 is 'bogus', expected one of pending, done, failed"),
    ("a chunk linked out of the store", lambda s: replace(
        s / CHUNK, lambda p: p.symlink_to(s.parent / OUTSIDE)),
     f"{CHUNK} is a symbolic link, FIFO, socket or device"),
    ("a chunk linked to /dev/zero", lambda s: replace(s / CHUNK,
                                                      lambda p: p.symlink_to("/dev/zero")),
     f"{CHUNK} is a symbolic link"),
    ("an array folder linked out of the store", lambda s: (
        shutil.move(s / "joints", s.parent / f"{s.name}-joints"),
        (s / "joints").symlink_to(s.parent / f"{s.name}-joints")), "joints is a symbolic link"),
    ("a chunk a FIFO", lambda s: replace(s / CHUNK, os.mkfifo),
     f"{CHUNK} is a symbolic link, FIFO"),
    # decompression and size bombs (issue 31): each chunk's decoded size checked first
    ("10^8 sequences", lambda s: sequences(s, 10**8),
     r"sequences: 100000000 rows, more than the limit of 1048576 "
     r"\(skinkit.limits.MAX_SEQUENCES\)"),
    ("a column's frame declaring 6 GB", lambda s: (s / "sequences/fps/c/0").write_bytes(
        zstd_frame(6 << 30)), rf"sequences/fps: chunk c/0: a Zstandard frame of {6 << 30} "
     r"bytes, expected 16"),
    ("a text column's frame declaring 3 GB", lambda s: (s / "sequences/path/c/0").write_bytes(
        zstd_frame(3 << 30)), rf"sequences/path: chunk c/0: a Zstandard frame of {3 << 30} "
     rf"bytes, expected at most {4 + 2 * (4 + 65536)}"),
    ("a streamed text frame", lambda s: (s / "sequences/path/c/0").write_bytes(
        ZSTD_MAGIC + b"\x00\x58\x01\x00\x00"),
     "sequences/path: chunk c/0: not a Zstandard frame declaring its content size"),
    ("a 3 GB vlen string", lambda s: column_chunk(
        s, "source", (2).to_bytes(4, "little") + (3 << 30).to_bytes(4, "little") + b"x"),
     rf"sequences/source: chunk c/0: vlen-utf8 item 0 of {3 << 30} bytes"),
    ("a garbage text chunk (2^32 - 1 items)", lambda s: column_chunk(
        s, "source", vlen("a", "b", count=2**32 - 1)),
     "sequences/source: chunk c/0: a vlen-utf8 chunk of 4294967295 items, expected 2"),
    ("a truncated vlen chunk", lambda s: column_chunk(s, "source", vlen("m0.npz", "m1.npz")[:-3]),
     r"sequences/source: chunk c/0: vlen-utf8 item 1 of 6 bytes at byte 14 of 21"),
    ("a raw vlen chunk with bytes after its items", lambda s: column_chunk(
        s, "status", vlen("done", "done") + b"!!", compressed=False),
     r"sequences/status: chunk c/0: 2 bytes after the last vlen-utf8 item"),
    ("a text cell not UTF-8", lambda s: column_chunk(s, "status", vlen(b"\xff", b"done")),
     r"sequences/status: UnicodeDecodeError"),
    ("a raw chunk of the wrong size", lambda s: column_chunk(s, "start", bytes(24),
                                                             compressed=False),
     r"sequences/start: chunk c/0: 24 bytes, expected 16 \(the chunk's \(2,\) items of 8 bytes\)"),
    ("the gzip codec", lambda s: edit(s, "sequences/fps", codecs=[
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "gzip", "configuration": {"level": 1}}]),
     "sequences/fps: the codecs bytes, gzip; a bake writes only bytes; bytes, zstd; "
     "vlen-utf8; vlen-utf8, zstd"),
    ("a transposed array", lambda s: edit(s, "faces", codecs=[
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "bytes", "configuration": {"endian": "little"}}]),
     "faces: the codecs transpose, bytes"),
    # an array read whole without its chunk file: zarr would make it of the fill value
    ("faces without a chunk file", lambda s: shutil.rmtree(s / "faces" / "c"),
     r"faces: 1 of its 1 chunks \(of \(48, 3\), shape \(48, 3\)\) have no chunk file, 576 "
     "bytes that zarr would make of the fill value; a bake writes every chunk of it"),
    ("1.5e8 faces without a chunk file", lambda s: (
        edit(s, "faces", shape=[150_000_000, 3], chunks=[150_000_000, 3]),
        shutil.rmtree(s / "faces" / "c")),
     r"faces: 1 of its 1 chunks .* 1800000000 bytes that zarr would make of the fill value"),
    ("2 x 2e7 betas without a chunk file", lambda s: (
        edit(s, "sequences/betas", shape=[2, 20_000_000], chunks=[2, 20_000_000]),
        shutil.rmtree(s / "sequences" / "betas" / "c")),
     r"sequences/betas: 1 of its 1 chunks .* 320000000 bytes that zarr would make of the fill "
     r"value; more than the limit of 268435456 bytes \(skinkit.limits.DECODED_FLOOR\)"),
    ("a sharded array", lambda s: edit(s, "faces", codecs=[
        {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [48, 3], "codecs": [{"name": "bytes"}],
            "index_codecs": [{"name": "bytes"}, {"name": "crc32c"}]}}]),
     "faces: (the codecs sharding_indexed|chunks of)"),
]


def open_store(store, baked):
    return sk.dataset.open(store)


def torch_dataset(store, baked):
    optional_import("torch", TORCH_HOW)
    from skinkit.torch import BakedDataset
    return BakedDataset(store)


def resumed_bake(store, baked):
    """The same bake as the store's (its arguments), which resumes onto it."""
    motions, body, _ = baked
    return sk.dataset.bake([str(motions)], str(store), body=str(body), frames_per_chunk=K,
                           workers=1)


@pytest.fixture
def broken(baked, tmp_path):
    """A copy of the baked store (and a file beside it), to break."""
    store = tmp_path / "s.zarr"
    shutil.copytree(baked[2], store)
    (tmp_path / OUTSIDE).write_bytes(b"\x28\xb5\x2f\xfd" + bytes(60))
    return store


def assert_one_store_error(broken, corrupt, opening, message):
    """``corrupt(broken)``, then ``opening()`` raises one StoreError: the store's path, then a
    message matching ``message``."""
    corrupt(broken)
    with pytest.raises(StoreError) as info:
        opening()
    text = str(info.value)
    assert text.startswith(f"{broken}: "), text
    assert re.search(message, text[len(str(broken)) + 2:]), text


OPENERS = {"open": open_store, "BakedDataset": torch_dataset, "resumed bake": resumed_bake}
# every case through every opener but one: with no folder at all, a bake is a new one, not resumed
BROKEN = [pytest.param(c, OPENERS[o], id=f"{c[0]}-{o}") for c in CASES for o in OPENERS
          if not (o == "resumed bake" and c[0] == "no such folder")]


@pytest.mark.parametrize("case, opener", BROKEN)
def test_a_broken_store_is_one_store_error(baked, broken, case, opener):
    _, corrupt, message = case
    assert_one_store_error(broken, corrupt, lambda: opener(broken, baked), message)


@pytest.mark.parametrize("opener", [open_store, torch_dataset], ids=["open", "BakedDataset"])
def test_the_untouched_copy_opens(baked, broken, opener):
    assert len(opener(broken, baked)) == N


def test_a_resume_with_other_arguments_names_them(baked, broken):
    motions, body, _ = baked
    with pytest.raises(ValueError, match=r"fps \(None in the store, 10.0 now\); "
                                         r"frames_per_chunk \(4 in the store, 5 now\)"):
        sk.dataset.bake([str(motions)], str(broken), body=str(body), frames_per_chunk=5,
                        fps=10.0, workers=1)


# (case, the bytes of vertices' chunk 1, what the StoreError says of it)
FRAME_CHUNKS = [
    ("garbage", b"not zstd", r"not a Zstandard frame declaring its content size"),
    ("a frame declaring 2^40 bytes", zstd_frame(1 << 40),
     rf"a Zstandard frame of {1 << 40} bytes, expected {K * V * 12}"),
    ("a streamed frame (no content size)", ZSTD_MAGIC + b"\x00\x58\x01\x00\x00",
     "not a Zstandard frame declaring its content size"),
    ("a frame of the wrong size", Zstd().encode(bytes(100)),
     rf"a Zstandard frame of 100 bytes, expected {K * V * 12}"),
    ("a frame whose blocks do not decode", zstd_frame(K * V * 12, block=b"\x05\x00\x00"),
     r"RuntimeError: Zstd"),
]


@pytest.mark.parametrize("case, chunk, message", FRAME_CHUNKS, ids=[c[0] for c in FRAME_CHUNKS])
def test_a_frame_chunk_that_does_not_decode(baked, broken, case, chunk, message):
    """A store that opens but one of whose frame chunks is garbage, or declares more bytes
    than its chunk holds (checked before zarr decodes it): BakedDataset and the dask arrays
    raise the store's error naming the store, the array and the chunk; chunk 0 reads."""
    (broken / CHUNK).write_bytes(chunk)
    pattern = rf"^{re.escape(str(broken))}: vertices: chunk 1 cannot be read \(.*{message}"
    vertices = sk.dataset.open(broken).vertices
    assert vertices[:K].compute().shape == (K, V, 3)
    with pytest.raises(StoreError, match=pattern):
        vertices.compute()
    optional_import("torch", TORCH_HOW)
    from skinkit.torch import BakedDataset
    ds = BakedDataset(broken)
    assert ds[0]["vertices"].shape == (V, 3)
    with pytest.raises(StoreError, match=pattern):
        ds[K]


def test_a_codec_that_runs_code_is_refused_before_a_chunk_is_read(baked, broken, tmp_path):
    """numcodecs' pickle named as a column's codec, and as the codec of the same column in a
    consolidated copy of the metadata (which open ignores): the payload never runs."""
    marker = tmp_path / "ran"
    payload = pickle.dumps(Payload(str(marker)))
    edit(broken, "sequences/source", codecs=[{"name": "numcodecs.pickle",
                                              "configuration": {"protocol": 5}}])
    (broken / "sequences/source/c/0").write_bytes(payload)
    for opener in OPENERS.values():
        with pytest.raises(StoreError, match=r"sequences/source: (the codecs numcodecs.pickle|"
                                             r"unreadable metadata)"):
            opener(broken, baked)
    assert not marker.exists()


def test_a_consolidated_copy_of_the_metadata_is_ignored(baked, broken, tmp_path):
    marker = tmp_path / "ran"
    meta = json.loads((broken / "sequences/source/zarr.json").read_text())
    meta["codecs"] = [{"name": "numcodecs.pickle", "configuration": {"protocol": 5}}]
    root = json.loads((broken / "zarr.json").read_text())
    root["consolidated_metadata"] = {"kind": "inline", "must_understand": False,
                                     "metadata": {"sequences/source": meta}}
    (broken / "zarr.json").write_text(json.dumps(root))
    (broken / "sequences/source/c/0").write_bytes(pickle.dumps(Payload(str(marker))))
    with pytest.raises(StoreError, match=r"sequences/source: chunk c/0: not a Zstandard frame"):
        sk.dataset.open(broken)
    assert not marker.exists()


def test_a_bake_past_the_chunk_limit_is_refused_before_laying_out(baked, tmp_path,
                                                                   monkeypatch):
    """The rule open holds a store to holds a new bake: 12 frames in chunks of 4 are 3 chunks,
    past a limit lowered to 2."""
    from skinkit import limits
    monkeypatch.setattr(limits, "MAX_CHUNKS", 2)
    motions, body, _ = baked
    with pytest.raises(ValueError, match=r"12 frames in chunks of 4 make 3 chunks, more than "
                                         r"the limit of 2 \(skinkit.limits.MAX_CHUNKS\)"):
        sk.dataset.bake([str(motions)], str(tmp_path / "new.zarr"), body=str(body),
                        frames_per_chunk=K, workers=1)
    assert not (tmp_path / "new.zarr").exists()


# --- a store of characters: one vertices and faces array per mesh primitive -----------------

RIGGED = GLTF / "RiggedSimple.glb"
KEY, VP, NC = "2_0", 160, 10   # its one primitive: key, vertices; frames of its clip at 4 fps


def character_bake(store):
    need_shared()
    return sk.dataset.bake([str(RIGGED)], str(store), clips="all", fps=4.0, frames_per_chunk=K,
                           workers=1)


@pytest.fixture(scope="module")
def character_store(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile-characters") / "ref.zarr"
    s = character_bake(out)
    assert s.ok and s.frames == NC
    return out


CHARACTER_CASES = [
    ("no vertices/<key>", lambda s: shutil.rmtree(s / "vertices" / KEY),
     f"no array vertices/{KEY}"),
    ("no faces/<key>", lambda s: shutil.rmtree(s / "faces" / KEY), f"no array faces/{KEY}"),
    ("no clip column", lambda s: shutil.rmtree(s / "sequences" / "clip"),
     "no array sequences/clip"),
    ("vertices/<key> int32", lambda s: edit(s, f"vertices/{KEY}", data_type="int32"),
     f"vertices/{KEY}: dtype int32, expected float32"),
    ("vertices/<key> of another frame count", lambda s: edit(s, f"vertices/{KEY}",
                                                             shape=[NC + 1, VP, 3]),
     rf"joints: shape \({NC}, 5, 3\), expected \(N={NC + 1}, J, 3\)"),
    ("faces/<key> (F, 4)", lambda s: edit(s, f"faces/{KEY}", shape=[188, 4], chunks=[188, 4]),
     rf"faces/{KEY}: shape \(188, 4\), expected \(F\[{KEY}\], 3\)"),
    ("a face past its primitive's vertices", lambda s: write(s, f"faces/{KEY}", (5, 2), VP),
     rf"faces/{KEY}: an index outside 0..{VP - 1} \(the vertex rows of vertices/{KEY}\)"),
    ("primitives naming a missing array", lambda s: attributes(s, primitives=[KEY, "7_0"]),
     "no array vertices/7_0"),
    ("primitives a path", lambda s: attributes(s, primitives=["../../../etc"]),
     r"the attribute primitives \['../../../etc'\] is not a list of distinct primitive keys"),
    ("primitives a string", lambda s: attributes(s, primitives=KEY),
     f"the attribute primitives '{KEY}' is not a list"),
    ("primitives twice the key", lambda s: attributes(s, primitives=[KEY, KEY]),
     "is not a list of distinct primitive keys"),
    ("no primitives attribute: a store of motions", lambda s: attributes(s, primitives=None),
     "vertices is a Group, not an array"),
]


def resumed_character_bake(store, baked):
    return character_bake(store)


@pytest.mark.parametrize("case,corrupt,message", CHARACTER_CASES,
                         ids=[c[0] for c in CHARACTER_CASES])
@pytest.mark.parametrize("opener", [open_store, torch_dataset, resumed_character_bake],
                         ids=["open", "BakedDataset", "resumed bake"])
def test_a_broken_character_store_is_one_store_error(character_store, tmp_path, case, corrupt,
                                                     message, opener):
    broken = tmp_path / "s.zarr"
    shutil.copytree(character_store, broken)
    assert_one_store_error(broken, corrupt, lambda: opener(broken, None), message)


@pytest.mark.parametrize("opener", [open_store, torch_dataset], ids=["open", "BakedDataset"])
def test_the_untouched_character_copy_opens(character_store, tmp_path, opener):
    shutil.copytree(character_store, tmp_path / "s.zarr")
    assert len(opener(tmp_path / "s.zarr", None)) == NC
    assert list(sk.dataset.open(tmp_path / "s.zarr").vertices) == [KEY]


def test_skinkit_info_describes_a_store(baked, broken, capsys):
    """Issue 31: ``skinkit info`` refused .zarr stores; a broken one is its StoreError line."""
    from cli_run import run
    code, out, err = run(["info", baked[2]], capsys)
    assert code == 0, err
    assert f"frames: {N} in chunks of {K} (float32, zstd)" in out
    assert "sequences: 2 (2 done, 0 pending, 0 failed)" in out
    assert f"vertices: ({N}, {V}, 3) float32" in out
    sequences(broken, 10**8)
    code, _, err = run(["info", broken], capsys)
    assert code == 1 and "MAX_SEQUENCES" in err and err.count("\n") == 1
