"""Hostile Zarr stores (issue 17): copies of one tiny baked store, each broken in one way (its
folder, its zarr.json, an array's presence, dtype, shape or chunks, sizes past skinkit.limits,
the sequences table, links and special files), opened by ``skinkit.dataset.open``, by
``skinkit.torch.BakedDataset`` and by a bake resuming onto it; and a store of characters (its
arrays per mesh primitive, its attribute ``primitives`` naming them).  Each must be one
StoreError (a ValueError) naming the store and what is wrong, raised before anything is read or
started (the resumed bake: before its cluster)."""
import json
import os
import re
import shutil

import numpy as np
import pytest
from conftest import DATASET_HOW, GLTF, TORCH_HOW, need_shared, optional_import

optional_import("zarr", DATASET_HOW, "dataset")
import zarr  # noqa: E402

from amass_files import write_motion  # noqa: E402

import skinkit as sk  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402
from skinkit.dataset import StoreError  # noqa: E402

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


def test_a_chunk_that_does_not_decode(baked, broken):
    """A store that opens but whose chunk file is garbage: BakedDataset names the array and
    the chunk; the dask arrays raise what zarr raises when computed."""
    optional_import("torch", TORCH_HOW)
    from skinkit.torch import BakedDataset
    (broken / CHUNK).write_bytes(b"not zstd")
    ds = BakedDataset(broken)
    assert ds[0]["vertices"].shape == (V, 3)                     # chunk 0 reads
    with pytest.raises(StoreError, match=r"s.zarr: vertices: chunk 1 cannot be read "
                                         r"\(RuntimeError: Zstd"):
        ds[K]
    with pytest.raises(RuntimeError, match="Zstd"):
        sk.dataset.open(broken).vertices.compute()


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
