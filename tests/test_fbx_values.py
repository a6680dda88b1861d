"""FBX values the glTF and BVH readers refuse (issue 31), in files edited from the ASCII form of
Blender's export of tests/blender_scenes.py (``rig.fbx`` through tests/fbx_transcode.py:
``Name: *count { a: ... }`` arrays) or written whole: clips past MAX_DURATION (key times of 2^62
ticks), skin weights of 1e308, blend-shape indices out of range or negative, values past float32
in a float32 load, empty scenes (version 0, 6100, 7400; an FBX header then zeros saved as .glb).
Each is an FbxError naming the file, the field and the value; and the writers take zero-size
arrays (0 frames, 0 vertices)."""
import io
import re
from pathlib import Path

import numpy as np
import pytest
from fbx_transcode import parse, to_ascii

import skinkit as sk
from skinkit.io.mesh_files import write_frames, write_glb
from skinkit.io.npz_stream import NpzStream

# the first entries of arrays of Blender's rig (a tube of 104 control points skinned to three
# bones, a shape key on it, a rigid box): a key time, a cluster's weight, the shape's index, the
# tube's first control point
KEYS = "KeyTime: *25 {\n\t\t\ta: 0,1924423250,"
WEIGHTS = "Weights: *48 {\n\t\t\ta: 1.0,"
SHAPE = "Indexes: *104 {\n\t\t\ta: 0,1,2,"
VERTICES = "Vertices: *312 {\n\t\t\ta: 0.10000000149011612,"


@pytest.fixture(scope="module")
def rig(blender_files):
    """Blender's rig.fbx as ASCII FBX text."""
    return to_ascii(parse((blender_files / "rig.fbx").read_bytes()))


def edited(text, old, new):
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def binary_header(version):
    """A binary FBX header (magic, 0x1a 0x00, the version) then zeros: no node record."""
    return b"Kaydara FBX Binary  \x00\x1a\x00" + version.to_bytes(4, "little") + bytes(200)


CASES = {   # name -> (file name, its content from the rig's text, load_fbx keywords, the message)
    "key times at 2^62 ticks": (
        "keys.fbx", lambda rig: edited(rig, KEYS, KEYS.replace("1924423250", str(2**62))), {},
        r"animation stack '.*': node \d+ \w+: the clip lasts 9.985e\+07 s, more than the limit "
        r"of 1e\+06 s \(skinkit.limits.MAX_DURATION\)"),
    "skin weights of 1e308": (
        "weights.fbx", lambda rig: edited(rig, WEIGHTS, WEIGHTS.replace("1.0,", "1e308,")), {},
        r"primitive \d+: mesh '.*': the skin weights of control point \d+ sum to 1e\+308, more "
        r"than 1e\+30 \(skinkit.limits.MAX_FILE_VALUE\)"),
    "a blend-shape index past the control points": (
        "shape.fbx", lambda rig: edited(rig, SHAPE, SHAPE.replace("0,1,2,", "0,1,9999,")), {},
        r"mesh '.*': blend shape '.*': Indexes holds 9999, not one of the mesh's 104 control "
        r"points"),
    "a negative blend-shape index": (
        "negative.fbx", lambda rig: edited(rig, SHAPE, SHAPE.replace("0,1,2,", "-1,1,2,")), {},
        r"blend shape '.*': Indexes holds -1, not one of the mesh's 104 control points"),
    "a vertex past float32 in a float32 load": (
        "big.fbx", lambda rig: edited(rig, VERTICES, VERTICES.replace("0.10000000149011612",
                                                                      "1e39")),
        {"dtype": np.float32},
        r"mesh node '.*': positions\[\d+, \d\] = .*e\+\d\d is not finite or past the limit of "
        r"1e\+30 \(skinkit.limits.MAX_FILE_VALUE\)"),
    "a vertex past 1e30 in a float64 load": (
        "big64.fbx", lambda rig: edited(rig, VERTICES, VERTICES.replace("0.10000000149011612",
                                                                        "1e300")), {},
        r"positions\[\d+, \d\] = .*e\+\d\d\d is not finite or past the limit of 1e\+30"),
    "an empty ASCII scene": (
        "empty.fbx", lambda rig: "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n"
                             "\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n", {},
        r"an empty scene \(FBXVersion 7400\): no node to pose"),
    "a binary header of version 0": ("v0.fbx", lambda rig: binary_header(0), {},
                                     r"FBXVersion 0: not an FBX version \(2000 or later\)"),
    "a binary header of version 6100, then zeros": (
        "v6100.fbx", lambda rig: binary_header(6100), {},
        r"an empty scene \(FBXVersion 6100\): no node to pose"),
    "an FBX header then zeros saved as .glb": (
        "character.glb", lambda rig: binary_header(7400), {},
        r"an empty scene \(FBXVersion 7400\): no node to pose"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_value_the_other_readers_refuse_is_refused(tmp_path, rig, case):
    name, content, kw, message = CASES[case]
    path = tmp_path / name
    data = content(rig)
    path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
    for load in (sk.load_fbx, sk.load_model):
        with pytest.raises(sk.FbxError) as info:
            load(path, **kw)
        text = str(info.value)
        assert text.startswith(f"{path}: ") and re.search(message, text), text


def test_the_untouched_rig_loads_in_both_precisions(tmp_path, rig, blender_files):
    """The controls: the rig's own files, binary and ASCII, load (so each refusal above comes
    from its one edit)."""
    (tmp_path / "rig.fbx").write_text(rig)
    for path in (blender_files / "rig.fbx", tmp_path / "rig.fbx"):
        for dtype in (np.float64, np.float32):
            model = sk.load_fbx(path, dtype=dtype)
            assert model.clips and model.primitives and any(p.target_count for p in
                                                              model.primitives)


def test_the_npz_stream_writes_zero_size_members():
    buf = io.BytesIO()
    members = {"frames": ((0, 5, 3), np.dtype(np.float32)),
               "vertices": ((4, 0, 3), np.dtype(np.float64))}
    s = NpzStream(buf, members)
    s.write("frames", np.zeros((0, 5, 3), np.float32))
    s.write("vertices", np.zeros((4, 0, 3)))
    s.finish()
    buf.seek(0)
    with np.load(buf) as z:
        assert z["frames"].shape == (0, 5, 3) and z["vertices"].shape == (4, 0, 3)


@pytest.mark.parametrize("format", ["ply", "obj"])
def test_frame_files_of_zero_frames_or_vertices(tmp_path, format):
    tri = np.array([[0, 1, 2]])
    assert write_frames(tmp_path / "none", {"m": np.zeros((0, 3, 3))}, {"m": tri}, format) == []
    files = write_frames(tmp_path / "empty", {"m": np.zeros((2, 0, 3))},
                         {"m": np.zeros((0, 3), int)}, format)
    assert len(files) == 2 and all(Path(f).is_file() for f in files)


def test_a_glb_leaves_out_primitives_without_vertices(tmp_path):
    pytest.importorskip("trimesh", reason='pip install ".[export]"')
    tri = np.array([[0, 1, 2]])
    write_glb(tmp_path / "a.glb", {"empty": np.zeros((0, 3)), "tri": np.eye(3)},
              {"empty": np.zeros((0, 3), int), "tri": tri})
    model = sk.load_gltf(tmp_path / "a.glb")
    assert [len(p.positions) for p in model.primitives] == [3]
    with pytest.raises(ValueError, match=r"b.glb: no primitive has a vertex"):
        write_glb(tmp_path / "b.glb", {"empty": np.zeros((0, 3))}, {"empty": None})
    assert not (tmp_path / "b.glb").exists()
