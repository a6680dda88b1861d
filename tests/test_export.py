"""Mesh export (skinkit.io.mesh_files, ``skinkit pose --out DIR/ | FILE.glb``) and the progress bar of
multi-frame ``skinkit pose``."""
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

import skinkit
from skinkit.io import mesh_files as export
from cli_run import assert_usage_error, run
from skinkit.model.pose import BLOCK_FRAMES
from skinkit.model.default_model import default_model
from conftest import GLTF

trimesh = pytest.importorskip("trimesh")

FIXTURES = GLTF
CESIUM = FIXTURES / "CesiumMan.glb"
FOX = FIXTURES / "Fox.glb"
RECURSIVE = FIXTURES / "RecursiveSkeletons.glb"



def load_mesh(path):
    """A frame file read back with trimesh, vertices in file order."""
    return trimesh.load(str(path), process=False)


def concat(model, positions):
    """Every primitive of one frame one after the other, faces shifted: the frame layout."""
    verts, faces, offset = [], [], 0
    for prim in model.primitives:
        v = positions[prim.key]
        verts.append(v)
        if prim.faces is not None:
            faces.append(prim.faces + offset)
        offset += len(v)
    return np.concatenate(verts), np.concatenate(faces)


def parse_glb(path):
    """(json document, binary chunk) of a GLB, parsed by hand (glTF 2.0 section 4.4)."""
    data = Path(path).read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert magic == b"glTF" and version == 2 and length == len(data)
    jlen, jtype = struct.unpack_from("<I4s", data, 12)
    assert jtype == b"JSON"
    doc = json.loads(data[20:20 + jlen])
    blen, btype = struct.unpack_from("<I4s", data, 20 + jlen)
    assert btype == b"BIN\x00"
    return doc, data[28 + jlen:28 + jlen + blen]


def glb_attribute(doc, binary, mesh_name, attribute):
    (mesh,) = [m for m in doc["meshes"] if m["name"] == mesh_name]
    (prim,) = mesh["primitives"]
    acc = doc["accessors"][prim["attributes"][attribute]]
    assert acc["componentType"] == 5126 and acc["type"] == "VEC3"  # float32 VEC3
    view = doc["bufferViews"][acc["bufferView"]]
    assert view.get("byteStride", 12) == 12
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    return np.frombuffer(binary, dtype="<f4", count=3 * acc["count"], offset=start).reshape(-1, 3)


# --- skinkit.io.mesh_files ----------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["ply", "obj"])
def test_write_frames_api(tmp_path, fmt):
    model = default_model()
    times = np.linspace(0, 2, 7)
    posed = model.pose("bend", times)
    faces = {p.key: p.faces for p in model.primitives}
    paths = export.write_frames(tmp_path / "frames", posed, faces, fmt)
    assert [os.path.basename(p) for p in paths] == [f"frame_{i:04d}.{fmt}" for i in range(7)]
    assert sorted(os.listdir(tmp_path / "frames")) == [os.path.basename(p) for p in paths]
    assert os.listdir(tmp_path) == ["frames"]
    for i, path in enumerate(paths):
        mesh = load_mesh(path)
        assert mesh.vertices.shape == (136, 3) and mesh.faces.shape == (256, 3)
        np.testing.assert_array_equal(mesh.faces, model.primitives[0].faces)
        expected = posed["0_0"][i]
        if fmt == "ply":  # float32 coordinates
            np.testing.assert_array_equal(mesh.vertices, expected.astype(np.float32))
        else:             # 8 decimals
            np.testing.assert_allclose(mesh.vertices, expected, rtol=0, atol=5.1e-9)


def test_frame_names_widen_past_10000_frames():
    assert export.frame_name(0, 10) == "frame_0000.ply"
    assert export.frame_name(9999, 10000, "obj") == "frame_9999.obj"
    assert export.frame_name(7, 10001) == "frame_00007.ply"


def test_write_frames_rejects_bad_input(tmp_path):
    model = default_model()
    posed = model.pose("bend", [0.0, 1.0])
    faces = {"0_0": model.primitives[0].faces}
    with pytest.raises(ValueError, match="format"):
        export.write_frames(tmp_path / "a", posed, faces, "stl")
    with pytest.raises(ValueError, match="outside"):
        export.write_frames(tmp_path / "b", posed, {"0_0": faces["0_0"] + 1}, "ply")
    with pytest.raises(ValueError, match="shape"):
        export.write_frames(tmp_path / "c", {"0_0": posed["0_0"][0]}, faces, "ply")
    assert os.listdir(tmp_path) == []  # nothing left behind, not even a temporary folder


def test_write_frames_into_existing_directory(tmp_path):
    model = default_model()
    faces = {"0_0": model.primitives[0].faces}
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "frame_0000.ply").write_bytes(b"old")
    posed = model.pose("bend", [0.5, 1.5])
    export.write_frames(tmp_path, posed, faces)
    assert sorted(os.listdir(tmp_path)) == ["frame_0000.ply", "frame_0001.ply", "notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "mine"
    np.testing.assert_array_equal(load_mesh(tmp_path / "frame_0000.ply").vertices,
                                  posed["0_0"][0].astype(np.float32))


def test_failed_write_leaves_no_trace(tmp_path, monkeypatch):
    model = default_model()
    faces = {"0_0": model.primitives[0].faces}
    posed = model.pose("bend", np.linspace(0, 2, 5))
    calls = []
    real = export._encode

    def failing(*args):
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(*args)

    monkeypatch.setattr(export, "_encode", failing)
    with pytest.raises(OSError):
        export.write_frames(tmp_path / "new", posed, faces)
    assert os.listdir(tmp_path) == []
    (tmp_path / "frame_0000.ply").write_bytes(b"old")
    calls.clear()
    with pytest.raises(OSError):
        export.write_frames(tmp_path, posed, faces)
    assert os.listdir(tmp_path) == ["frame_0000.ply"]
    assert (tmp_path / "frame_0000.ply").read_bytes() == b"old"


def test_frames_without_triangles_are_point_clouds(tmp_path):
    v = np.random.default_rng(0).random((2, 5, 3))
    (path,) = export.write_frames(tmp_path / "f", {"p": v[:1]}, {"p": None})
    np.testing.assert_array_equal(load_mesh(path).vertices, v[0].astype(np.float32))


# --- skinkit pose --out DIR/ -------------------------------------------------------------------

@pytest.mark.shared
@pytest.mark.parametrize("fmt", ["ply", "obj"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cli_frames_equal_npz(tmp_path, capsys, fmt, dtype):
    common = [CESIUM, "--fps", "12", "--dtype", dtype]
    assert run(["pose", *common, "--out", tmp_path / "c.npz"], capsys)[0] == 0
    code, _, err = run(["pose", *common, "--format", fmt, "--out", f"{tmp_path / 'frames'}/"],
                       capsys)
    assert code == 0, err
    assert err.count("\n") == 1 and f"-> {tmp_path / 'frames'}/ (25 {fmt.upper()} files)" in err
    model = skinkit.load_gltf(CESIUM)
    (prim,) = model.primitives
    with np.load(tmp_path / "c.npz") as d:
        positions = d["positions_2_0"]
    assert positions.shape == (25, 3273, 3)
    names = sorted(os.listdir(tmp_path / "frames"))
    assert names == [f"frame_{i:04d}.{fmt}" for i in range(25)]
    for i in (0, 7, 24):
        mesh = load_mesh(tmp_path / "frames" / names[i])
        assert mesh.vertices.shape == (3273, 3) and mesh.faces.shape == (4672, 3)
        np.testing.assert_array_equal(mesh.faces, prim.faces)
        if fmt == "ply":
            np.testing.assert_array_equal(mesh.vertices, positions[i].astype(np.float32))
        else:
            np.testing.assert_allclose(mesh.vertices, positions[i], rtol=0, atol=5.1e-9)


@pytest.mark.shared
def test_cli_frames_hold_every_primitive(tmp_path, capsys):
    """RecursiveSkeletons: 84 skinned primitives, one mesh per frame."""
    code, _, err = run(["pose", RECURSIVE, "--times", "0", "0.7", "--out", tmp_path / "npz.npz"],
                       capsys)
    assert code == 0, err
    code, _, err = run(["pose", RECURSIVE, "--times", "0", "0.7", "--out", f"{tmp_path}/r/"],
                       capsys)
    assert code == 0, err
    model = skinkit.load_gltf(RECURSIVE)
    assert len(model.primitives) == 84
    with np.load(tmp_path / "npz.npz") as d:
        for i in range(2):
            verts, faces = concat(model, {p.key: d[f"positions_{p.key}"][i]
                                          for p in model.primitives})
            mesh = load_mesh(tmp_path / "r" / f"frame_{i:04d}.ply")
            np.testing.assert_array_equal(mesh.faces, faces)
            np.testing.assert_array_equal(mesh.vertices, verts.astype(np.float32))


def test_cli_frames_existing_directory_and_normals(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("x")
    code, _, err = run(["pose", "--times", "0", "0.5", "1", "--normals", "--out", tmp_path],
                       capsys)
    assert code == 0, err
    assert sorted(os.listdir(tmp_path)) == ["frame_0000.ply", "frame_0001.ply",
                                            "frame_0002.ply", "keep.txt"]
    posed = default_model().pose("bend", [0, 0.5, 1], normals=True)
    mesh = load_mesh(tmp_path / "frame_0002.ply")
    np.testing.assert_array_equal(mesh.vertices, posed.positions["0_0"][2].astype(np.float32))
    np.testing.assert_allclose(mesh.vertex_normals, posed.normals["0_0"][2], atol=1e-6)


@pytest.mark.shared
def test_cli_frames_errors(tmp_path, capsys):
    # Fox has no normals: an input problem, exit 1, nothing written
    code, _, err = run(["pose", FOX, "--normals", "--times", "0", "--out", f"{tmp_path}/f/"],
                       capsys)
    assert code == 1 and err.startswith("skinkit: error: --normals") and err.count("\n") == 1
    # a file where the directory should be
    (tmp_path / "file").write_text("x")
    code, _, err = run(["pose", "--times", "0", "--out", f"{tmp_path / 'file'}/"], capsys)
    assert code == 1 and err.startswith("skinkit: error:") and err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == ["file"]


# --- skinkit pose --out FILE.glb ---------------------------------------------------------------

@pytest.mark.shared
@pytest.mark.parametrize("args, time", [(["--times", "1.25"], 1.25), (["--rest"], None)])
def test_cli_glb_equals_pose(tmp_path, capsys, args, time):
    out = tmp_path / "posed.glb"
    code, _, err = run(["pose", CESIUM, *args, "--out", out], capsys)
    assert code == 0, err
    assert err.count("\n") == 1 and err.rstrip().endswith(f"-> {out}")
    model = skinkit.load_gltf(CESIUM)
    (prim,) = model.primitives
    posed = model.pose(None if time is None else 0, [0.0 if time is None else time],
                       normals=True)
    positions, normals = posed.positions[prim.key], posed.normals[prim.key]
    # read back with trimesh
    scene = trimesh.load(str(out), process=False)
    mesh = scene.geometry[prim.key]
    np.testing.assert_array_equal(mesh.vertices, positions[0].astype(np.float32))
    np.testing.assert_array_equal(mesh.faces, prim.faces)
    # parsed by hand: a plain static glTF 2.0 file, float32 POSITION and NORMAL
    doc, binary = parse_glb(out)
    assert doc["asset"]["version"] == "2.0"
    assert "skins" not in doc and "animations" not in doc
    assert [n["name"] for n in doc["nodes"]] == [prim.key]
    assert all("matrix" not in n and "translation" not in n for n in doc["nodes"])
    np.testing.assert_array_equal(glb_attribute(doc, binary, prim.key, "POSITION"),
                                  positions[0].astype(np.float32))
    np.testing.assert_allclose(glb_attribute(doc, binary, prim.key, "NORMAL"), normals[0],
                               atol=1e-6)
    # and skinkit's own validating loader reads it back as one rigid primitive at that pose
    static = skinkit.load_gltf(out)
    [rigid] = static.primitives
    assert rigid.skin is None and static.skeleton.names[rigid.node] == prim.key
    np.testing.assert_allclose(static.pose().positions[rigid.key][0], positions[0], atol=1e-5)
    assert os.listdir(tmp_path) == ["posed.glb"]


def test_write_glb_api(tmp_path):
    model = default_model(np.float32)
    posed = model.pose("bend", 0.5)
    skinkit.io.mesh_files.write_glb(tmp_path / "m.glb", posed, {"0_0": model.primitives[0].faces},
                             names={"0_0": "cylinder"})
    doc, binary = parse_glb(tmp_path / "m.glb")
    assert [n["name"] for n in doc["nodes"]] == ["cylinder"]
    np.testing.assert_array_equal(glb_attribute(doc, binary, "cylinder", "POSITION"),
                                  posed["0_0"][0])


def test_cli_glb_replaces_existing_file_or_leaves_it(tmp_path, capsys):
    out = tmp_path / "m.glb"
    out.write_bytes(b"old")
    assert run(["pose", "--clip", "walk", "--times", "0", "--out", out], capsys)[0] == 1
    assert out.read_bytes() == b"old"
    assert run(["pose", "--times", "0", "--out", out], capsys)[0] == 0
    assert out.read_bytes()[:4] == b"glTF"
    assert os.listdir(tmp_path) == ["m.glb"]


@pytest.mark.shared
@pytest.mark.parametrize("argv", [
    ["pose", CESIUM, "--out", "m.glb"],                     # every frame of the clip
    ["pose", "--times", "0", "1", "--out", "m.glb"],
    ["pose", "--fps", "10", "--out", "m.GLB"],
    ["pose", "--times", "0", "--format", "obj", "--out", "m.glb"],
    ["pose", "--times", "0", "--format", "ply", "--out", "x.npz"],
    ["pose", "--times", "0", "--out", "x.ply"],             # one file: give a directory
    ["pose", "--times", "0", "--out", "x.obj"],
    ["pose", "--times", "0", "--format", "stl", "--out", "frames/"],
])
def test_export_usage_errors_exit_2(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    assert_usage_error(argv, capsys)


# --- progress ----------------------------------------------------------------------------------

def test_progress_bar_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(["pose", "--fps", "100", "--out", tmp_path / "o.npz"], capsys)
    assert code == 0
    assert "frame" in err and "%|" in err and "/201" in err   # the tqdm bar over 201 frames
    assert err.endswith("\n") and err.rstrip("\n").split("\r")[-1].startswith("skinkit: default")


def test_progress_bar_per_block(tmp_path, capsys, monkeypatch):
    """The bar advances once per block of BLOCK_FRAMES frames, up to every frame."""
    import tqdm

    updates = []
    real = tqdm.tqdm.update
    monkeypatch.setattr(tqdm.tqdm, "update",
                        lambda self, n=1: (updates.append(n), real(self, n))[1])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert run(["pose", "--fps", "100", "--out", f"{tmp_path}/f/"], capsys)[0] == 0
    assert updates == [BLOCK_FRAMES] * 3 + [201 - 3 * BLOCK_FRAMES]


def test_no_progress_bar_without_tqdm(tmp_path, capsys, monkeypatch):
    """tqdm is optional (the ``progress`` extra): without it a terminal gets no bar, the pose is
    written and the summary line printed."""
    monkeypatch.setitem(sys.modules, "tqdm", None)      # import tqdm raises ImportError
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(["pose", "--fps", "100", "--out", tmp_path / "o.npz"], capsys)
    assert code == 0 and (tmp_path / "o.npz").is_file()
    assert "%|" not in err and err.startswith("skinkit: default") and err.count("\n") == 1


@pytest.mark.parametrize("tty, quiet", [(False, False), (True, True), (False, True)])
def test_no_progress_bar_when_redirected_or_quiet(tmp_path, capsys, monkeypatch, tty, quiet):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    code, out, err = run(["pose", "--fps", "100", *(["--quiet"] if quiet else []),
                          "--out", tmp_path / "o.npz"], capsys)
    assert code == 0 and out == ""
    if quiet:
        assert err == ""
    else:  # nothing but the summary line
        assert err.count("\n") == 1 and "\r" not in err and err.startswith("skinkit: default")


def test_no_progress_bar_for_one_frame(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(["pose", "--rest", "--out", tmp_path / "o.npz"], capsys)
    assert code == 0 and err.count("\n") == 1 and "\r" not in err


@pytest.mark.shared
@pytest.mark.parametrize("normals", [False, True])
def test_block_wise_pose_equals_one_pose_call(tmp_path, capsys, normals):
    """Posing in blocks of BLOCK_FRAMES frames gives the bytes of one batched pose() call."""
    times = np.linspace(0, 2, 2 * BLOCK_FRAMES + 5)
    argv = ["pose", CESIUM, "--times", *times, "--out", tmp_path / "o.npz"]
    assert run(argv + (["--normals"] if normals else []), capsys)[0] == 0
    model = skinkit.load_gltf(CESIUM)
    expected = model.pose(0, times, normals=normals)
    with np.load(tmp_path / "o.npz") as d:
        assert list(d) == ["times", "positions_2_0"] + (["normals_2_0"] if normals else [])
        np.testing.assert_array_equal(d["positions_2_0"], expected.positions["2_0"])
        if normals:
            np.testing.assert_array_equal(d["normals_2_0"], expected.normals["2_0"])
        else:
            assert expected.normals == {}
