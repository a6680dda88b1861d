"""The ``skinkit`` command, the default model and the pose helpers (skinkit.pose)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import skinkit
from skinkit import GltfError, kernels
from cli_run import assert_usage_error, run
from skinkit.cli.main import main
from skinkit.model.default_model import default_model
from skinkit.model.pose import frame_times, local_pose, pose, world_matrices

from conftest import BVH, DATA, GLTF



CESIUM_PATH = str(GLTF / "CesiumMan.glb")


def assert_one_line_error(err):
    assert err.startswith("skinkit: error: "), err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err


# --- the default model -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_default_model_geometry(dtype):
    m = default_model(dtype)
    (prim,) = m.primitives
    (skin,) = m.skins
    assert prim.positions.dtype == dtype and prim.weights.dtype == dtype
    assert prim.positions.shape == (136, 3) and prim.faces.shape == (256, 3)
    assert prim.joints.shape == prim.weights.shape == (136, 2)
    p = prim.positions.astype(np.float64)
    np.testing.assert_allclose(np.hypot(p[:, 0], p[:, 2]), 0.5, rtol=1e-6)
    assert p[:, 1].min() == 0 and p[:, 1].max() == 8
    np.testing.assert_allclose(prim.weights.sum(axis=1), 1, rtol=1e-6)
    assert prim.weights.min() >= 0
    assert prim.joints.max() < len(skin.joints) and set(np.unique(prim.joints)) == {0, 1, 2, 3}
    assert prim.faces.min() == 0 and prim.faces.max() == len(p) - 1
    # outward normals and counter-clockwise (outward) winding
    radial = p * [1, 0, 1]
    n = prim.normals.astype(np.float64)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1, rtol=1e-6)
    assert np.all(np.einsum("ij,ij->i", n, radial) > 0)
    a, b, c = (p[prim.faces[:, i]] for i in range(3))
    face_n = np.cross(b - a, c - a)
    centre = (a + b + c) / 3 * [1, 0, 1]
    assert np.all(np.einsum("ij,ij->i", face_n, centre) > 0)
    # weights blend by height: the lower joint of a vertex sits at or below it
    bone = 8 / 3
    lower = prim.joints[:, 0].astype(int)
    assert np.all(lower * bone <= p[:, 1] + 1e-6) and np.all(p[:, 1] <= (lower + 1) * bone + 1e-6)
    assert m.skeleton.names == ["cylinder", "bone0", "bone1", "bone2", "bone3"]
    assert [c.name for c in m.clips] == ["bend"]
    assert m.clips[0].duration == 2.0 and m.clips[0].interpolations == ["LINEAR"]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_default_model_rest_pose_is_bind_pose(dtype):
    m = default_model(dtype)
    prim = m.primitives[0]
    world = world_matrices(m)
    skin = m.skins[0]
    mats = kernels.skinning_matrices(world[:, skin.joints], skin.inverse_bind_matrices)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(mats, np.broadcast_to(np.eye(4), mats.shape), atol=tol)
    posed = pose(m, normals=True)
    pos, nrm = posed.positions["0_0"], posed.normals["0_0"]
    assert pos.shape == (1, 136, 3) and pos.dtype == dtype
    np.testing.assert_allclose(pos[0], prim.positions, atol=tol * 8)
    np.testing.assert_allclose(nrm[0], prim.normals, atol=tol * 8)


def test_default_model_bend_clip():
    m = default_model()
    rest = m.primitives[0].positions
    pos = m.pose("bend", times=[0.0, 0.5, 1.0, 1.5, 2.0])["0_0"]
    np.testing.assert_allclose(pos[[0, 2, 4]], np.broadcast_to(rest, (3,) + rest.shape),
                               atol=1e-12)
    top = rest[:, 1] == 8
    assert np.all(pos[1, top, 0] < -4) and np.all(pos[3, top, 0] > 4)  # swings left, then right
    # every bone keeps its length: the root stays at the origin, vertices stay near their bones
    looped = m.pose("bend", times=[2.5, 3.5], loop=True)["0_0"]
    np.testing.assert_allclose(looped, pos[[1, 3]], atol=1e-12)


def test_local_pose_and_model_methods():
    m = default_model()
    t, r, s = local_pose(m, times=[0, 1, 2])
    assert t.shape == (3, 5, 3) and r.shape == (3, 5, 4) and s.shape == (3, 5, 3)
    np.testing.assert_array_equal(t[2], m.skeleton.translations)
    assert m.clip("bend") is m.clips[0] and m.clip(0) is m.clips[0] and m.clip(-1) is m.clips[0]
    with pytest.raises(ValueError, match="bend"):
        m.clip("walk")
    with pytest.raises(ValueError, match="bend"):
        m.clip(1)
    with pytest.raises(TypeError):
        m.clip(1.5)
    w = m.world_matrices("bend", [0.25, 0.75])
    assert w.shape == (2, 5, 4, 4)
    np.testing.assert_array_equal(w, world_matrices(m, m.clips[0], [0.25, 0.75]))
    a = m.pose(0, [0.25, 0.75])["0_0"]
    np.testing.assert_array_equal(a, pose(m, "bend", np.array([0.25, 0.75]))["0_0"])
    # default times for a clip: the whole clip at 30 fps; a scalar time gives T = 1
    assert m.pose("bend")["0_0"].shape == (61, 136, 3)
    assert m.pose("bend", 0.3)["0_0"].shape == (1, 136, 3)
    with pytest.raises(ValueError):
        m.pose("bend", [0.0, np.nan])


def test_frame_times():
    m = default_model()
    t = frame_times(m.clips[0])
    assert len(t) == 61 and t[0] == 0 and t[-1] == 2.0
    np.testing.assert_allclose(np.diff(t), 1 / 30)
    assert len(frame_times(2.0, 499.5)) == 1000
    np.testing.assert_array_equal(frame_times(0.0), [0.0])
    t = frame_times(0.1, 30)  # 3 frames, then the end of the clip
    np.testing.assert_allclose(t, [0, 1 / 30, 2 / 30, 0.1])
    t = frame_times(1.05, 10)
    assert len(t) == 12 and t[-1] == 1.05 and t[-2] == pytest.approx(1.0)
    for bad in (0, -1, np.inf, np.nan):
        with pytest.raises(ValueError):
            frame_times(1.0, bad)
    with pytest.raises(ValueError):
        frame_times(-1.0)


# --- skinkit pose ---------------------------------------------------------------------------------

def test_pose_default_model(tmp_path, capsys):
    out = tmp_path / "out.npz"
    code, _, err = run(["pose", "--out", out], capsys)
    assert code == 0, err
    assert "default model" in err and "61 frames" in err
    with np.load(out) as d:
        assert sorted(d.files) == ["positions_0_0", "times"]
        assert d["times"].shape == (61,) and d["times"].dtype == np.float64
        assert d["positions_0_0"].shape == (61, 136, 3)
        assert d["positions_0_0"].dtype == np.float64
        np.testing.assert_array_equal(d["times"], frame_times(2.0, 30))
        expected = default_model().pose("bend", d["times"])["0_0"]
        np.testing.assert_array_equal(d["positions_0_0"], expected)
    assert sorted(os.listdir(tmp_path)) == ["out.npz"]  # no temporary file left behind


def test_pose_rest(tmp_path, capsys):
    out = tmp_path / "rest.npz"
    code, _, err = run(["pose", "--rest", "--out", out], capsys)
    assert code == 0, err
    with np.load(out) as d:
        np.testing.assert_array_equal(d["times"], [0.0])
        np.testing.assert_allclose(d["positions_0_0"][0], default_model().primitives[0].positions,
                                   atol=1e-12)


@pytest.mark.parametrize("args, frames", [
    (["--times", "0", "0.5", "1.25"], 3),
    (["--times", "7"], 1),
    (["--fps", "10"], 21),
    (["--fps", "3"], 7),
    (["--fps", "499.5"], 1000),
    ([], 61),
])
def test_pose_times_and_fps(tmp_path, capsys, args, frames):
    out = tmp_path / "p.npz"
    code, _, err = run(["pose", *args, "--out", out], capsys)
    assert code == 0, err
    with np.load(out) as d:
        assert d["times"].shape == (frames,)
        assert d["positions_0_0"].shape == (frames, 136, 3)
        if "--times" in args:
            np.testing.assert_array_equal(d["times"], [float(a) for a in args[1:]])
        else:
            assert d["times"][0] == 0 and d["times"][-1] == 2.0


def test_pose_options(tmp_path, capsys):
    a, b, c, d32 = (tmp_path / f"{n}.npz" for n in "abcd")
    assert run(["pose", "--clip", "bend", "--times", "0.3", "2.3", "--out", a], capsys)[0] == 0
    assert run(["pose", "--clip", "0", "--times", "0.3", "2.3", "--loop", "--normals",
                "--out", b], capsys)[0] == 0
    assert run(["pose", "--times", "0.3", "--dtype", "float32", "--out", d32], capsys)[0] == 0
    with np.load(a) as da, np.load(b) as db, np.load(d32) as dd:
        assert sorted(db.files) == ["normals_0_0", "positions_0_0", "times"]
        np.testing.assert_allclose(db["positions_0_0"][1], da["positions_0_0"][0], atol=1e-12)
        assert not np.allclose(da["positions_0_0"][1], da["positions_0_0"][0])  # no loop: clamped
        np.testing.assert_allclose(np.linalg.norm(db["normals_0_0"], axis=-1), 1, rtol=1e-12)
        assert dd["positions_0_0"].dtype == np.float32 and dd["times"].dtype == np.float32
        np.testing.assert_allclose(dd["positions_0_0"][0], da["positions_0_0"][0], atol=1e-5)


def test_pose_output_equals_pose_call(tmp_path, capsys):
    """The file holds what one pose() call computes, normals included."""
    out = tmp_path / "o.npz"
    code, _, err = run(["pose", "--fps", "7", "--normals", "--loop", "--out", out], capsys)
    assert code == 0, err
    m = default_model()
    posed = m.pose("bend", frame_times(2.0, 7), loop=True, normals=True)
    pos, nrm = posed.positions["0_0"], posed.normals["0_0"]
    with np.load(out) as d:
        np.testing.assert_array_equal(d["times"], frame_times(2.0, 7))
        np.testing.assert_array_equal(d["positions_0_0"], pos)
        np.testing.assert_array_equal(d["normals_0_0"], nrm)
    with np.load(out, mmap_mode="r") as d:  # a plain stored .npz, as np.savez writes
        assert d["positions_0_0"].shape == (15, 136, 3)


def test_info_default_model(capsys):
    code, out, err = run(["info"], capsys)
    assert code == 0, err
    for word in ("cylinder", "bone0", "bone1", "bone2", "bone3", "chain", "bend", "136 vertices",
                 "2 influences", "LINEAR", "4 channels"):
        assert word in out, (word, out)


def test_info_describes_a_compressed_clip(tmp_path, capsys):
    m = default_model()
    cc = skinkit.compress(m.clips[0], m.skeleton)
    path = tmp_path / "bend.skc"
    skinkit.save_compressed(cc, path)
    code, out, err = run(["info", str(path)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    for line in ("name: bend", "dtype: float64", "duration: 2 s", "nodes: 5",
                 f"bytes: {path.stat().st_size}", f"tracks: {len(cc.tracks)}"):
        assert line in lines, (line, out)
    counts = [int(x.rsplit(": ", 1)[1]) for x in lines[lines.index(f"tracks: {len(cc.tracks)}")
                                                         + 1:]]
    assert sum(counts) == len(cc.tracks)
    path.write_bytes(path.read_bytes()[:-3])              # truncated: one line, no traceback
    code, out, err = run(["info", str(path)], capsys)
    assert code == 1 and "bend.skc" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    [],
    ["frobnicate"],
    ["pose"],                                        # --out is required
    ["pose", "--rest", "--clip", "0", "--out", "x.npz"],
    ["pose", "--rest", "--fps", "10", "--out", "x.npz"],
    ["pose", "--times", "0", "--fps", "10", "--out", "x.npz"],
    ["pose", "--times", "abc", "--out", "x.npz"],
    ["pose", "--fps", "--out", "x.npz"],
    ["info", "a.glb", "b.glb"],
])
def test_usage_errors_exit_2(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    assert_usage_error(argv, capsys)


def test_missing_model_exits_1(tmp_path, capsys):
    out = tmp_path / "out.npz"
    for cmd in (["pose", tmp_path / "missing.glb", "--out", out], ["info", tmp_path / "nope.gltf"]):
        code, _, err = run(cmd, capsys)
        assert code == 1
        assert_one_line_error(err)
    assert not out.exists()


@pytest.mark.parametrize("name, content", [
    ("garbage.glb", b"this is not a glb file at all"),
    ("truncated.glb", b"glTF\x02\x00\x00\x00\xff\x00\x00\x00"),
    ("broken.gltf", b'{"asset": {"version": "2.0"}, "nodes": [ {'),
    ("empty.gltf", b""),
    ("model.obj", b"v 0 0 0\n"),
])
def test_corrupt_model_exits_1(tmp_path, capsys, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    for cmd in (["pose", path, "--out", tmp_path / "o.npz"], ["info", path]):
        code, _, err = run(cmd, capsys)
        assert code == 1, err
        assert_one_line_error(err)
    assert sorted(os.listdir(tmp_path)) == [name]


def test_debug_shows_traceback(tmp_path, capsys):
    for argv in (["--debug", "pose", "--clip", "walk", "--out", tmp_path / "o.npz"],
                 ["pose", "--debug", "--clip", "walk", "--out", tmp_path / "o.npz"]):
        code, _, err = run(argv, capsys)
        assert code == 1
        assert "Traceback" in err and err.rstrip().splitlines()[-1].startswith("skinkit: error:")


@pytest.mark.parametrize("argv", [
    ["pose", "--clip", "walk"],                      # unknown clip
    ["pose", "--clip", "3"],                         # index out of range
    ["pose", "--fps", "0"],
    ["pose", "--times", "nan"],
    ["pose", "MISSING.glb"],
])
def test_failed_pose_leaves_existing_output_untouched(tmp_path, capsys, argv):
    out = tmp_path / "out.npz"
    out.write_bytes(b"precious")
    argv = [a.replace("MISSING", str(tmp_path / "missing")) for a in argv]
    code, _, err = run([*argv, "--out", out], capsys)
    assert code == 1
    assert_one_line_error(err)
    if "walk" in argv:
        assert "bend" in err  # lists the available clips
    assert out.read_bytes() == b"precious"
    assert sorted(os.listdir(tmp_path)) == ["out.npz"]


def test_unwritable_output_exits_1(tmp_path, capsys):
    code, _, err = run(["pose", "--out", tmp_path / "no" / "such" / "dir.npz"], capsys)
    assert code == 1
    assert_one_line_error(err)
    # an existing directory is a frame-sequence output now (tests/test_export.py); one whose
    # parent is missing cannot be written
    code, _, err = run(["pose", "--out", f"{tmp_path / 'no' / 'such' / 'frames'}/"], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert os.listdir(tmp_path) == []


def test_successful_pose_replaces_existing_output(tmp_path, capsys):
    out = tmp_path / "out.npz"
    out.write_bytes(b"old")
    assert run(["pose", "--rest", "--out", out], capsys)[0] == 0
    with np.load(out) as d:
        assert d["positions_0_0"].shape == (1, 136, 3)
    assert sorted(os.listdir(tmp_path)) == ["out.npz"]


def test_python_dash_m(tmp_path):
    """The installed command line as a user runs it: ``python -m skinkit``."""
    out = tmp_path / "o.npz"
    r = subprocess.run([sys.executable, "-m", "skinkit", "pose", "--times", "0", "1", "--out",
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with np.load(out) as d:
        assert d["positions_0_0"].shape == (2, 136, 3)
    r = subprocess.run([sys.executable, "-m", "skinkit", "info", str(tmp_path / "missing.glb")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert_one_line_error(r.stderr)
    r = subprocess.run([sys.executable, "-m", "skinkit", "pose", "--bogus"], capture_output=True,
                       text=True)
    assert r.returncode == 2


# --- atomic output under failures (issue #4) -----------------------------------------------------

def test_output_folder_that_cannot_be_written(tmp_path, capsys):
    """A parent that is a file, and a read-only folder: exit 1 with one line, nothing left
    behind, an existing output untouched."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(["pose", "--out", blocker / "o.npz"], capsys)
    assert code == 1
    assert_one_line_error(err)
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "o.npz").write_bytes(b"precious")
    ro.chmod(0o555)
    try:
        if os.access(ro, os.W_OK):     # root writes anyway: nothing to test there
            return
        code, _, err = run(["pose", "--out", ro / "o.npz"], capsys)
        assert code == 1
        assert_one_line_error(err)
    finally:
        ro.chmod(0o755)
    assert (ro / "o.npz").read_bytes() == b"precious" and os.listdir(ro) == ["o.npz"]


@pytest.mark.parametrize("exc", [GltfError, RuntimeError])
def test_pose_failing_mid_way_leaves_old_output_and_no_temp_file(tmp_path, capsys, monkeypatch,
                                                                 exc):
    """Posing fails in the second block of frames: the old output intact, no temporary file left
    in the folder.  An input error (GltfError, any ValueError a file can cause) exits 1 with its
    message; another exception is a bug and propagates."""
    import importlib
    pose_module = importlib.import_module("skinkit.model.pose")
    real, calls = pose_module.run, []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise exc("simulated failure in the second block")
        return real(*args, **kwargs)
    monkeypatch.setattr(pose_module, "run", failing)
    out = tmp_path / "out.npz"
    out.write_bytes(b"precious")
    argv = ["pose", "--fps", "100", "--out", out]                     # 201 frames, 4 blocks
    if exc is RuntimeError:
        with pytest.raises(RuntimeError, match="simulated failure"):
            main([str(a) for a in argv])
    else:
        code, _, err = run(argv, capsys)
        assert code == 1
        assert_one_line_error(err)
        assert "simulated failure" in err
    assert len(calls) == 2
    assert out.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["out.npz"]


@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_write_failing_mid_way_leaves_old_output_and_no_temp_file(tmp_path, capsys, monkeypatch,
                                                                  exc):
    """The disk fills (or the user presses Ctrl-C) while the .npz is being written: the old
    output is intact and the partial temporary file is removed."""
    from skinkit.io.npz_stream import NpzStream
    real = NpzStream.write

    def write(self, name, block):
        real(self, name, block)
        raise exc
    monkeypatch.setattr(NpzStream, "write", write)
    out = tmp_path / "out.npz"
    out.write_bytes(b"precious")
    if isinstance(exc, KeyboardInterrupt):
        with pytest.raises(KeyboardInterrupt):
            main(["pose", "--out", str(out)])
    else:
        code, _, err = run(["pose", "--out", out], capsys)
        assert code == 1
        assert_one_line_error(err)
        assert "No space left" in err
    assert out.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["out.npz"]


# --- the output: its kind, its size, what it may replace (issues 17 and 23) ---------------------

def test_streamed_npz_members_are_np_savez_bytes(tmp_path, monkeypatch):
    """NpzStream, fed block by block in interleaved order, writes the members np.savez writes
    (the same .npy bytes), also with ZIP64 records (forced here by a low threshold); the zip
    passes zipfile's CRC check and its size is npz_size's."""
    import zipfile

    import skinkit.io.npz_stream as npz_stream
    from skinkit.io.npz_stream import NpzStream, npz_size

    rng = np.random.default_rng(3)
    arrays = {"times": rng.random(50), "positions_0_0": rng.random((50, 9, 3)).astype(np.float32),
              "joints": rng.random((50, 4, 3))}
    np.savez(tmp_path / "ref.npz", **arrays)
    for zip64_at in (npz_stream._ZIP64_AT, 100):
        monkeypatch.setattr(npz_stream, "_ZIP64_AT", zip64_at)
        members = {k: (a.shape, a.dtype) for k, a in arrays.items()}
        out = tmp_path / f"streamed{zip64_at}.npz"
        with open(out, "wb") as f:
            stream = NpzStream(f, members)
            for start in range(0, 50, 16):
                for name in reversed(list(arrays)):
                    stream.write(name, arrays[name][start:start + 16])
            stream.finish()
        assert out.stat().st_size == npz_size(members)
        with zipfile.ZipFile(out) as z, zipfile.ZipFile(tmp_path / "ref.npz") as ref:
            assert z.testzip() is None and z.namelist() == ref.namelist()
            for name in ref.namelist():
                assert z.read(name) == ref.read(name), name
            assert all(info.compress_type == zipfile.ZIP_STORED for info in z.infolist())


def test_streamed_npz_refuses_blocks_that_do_not_fit(tmp_path):
    from skinkit.io.npz_stream import NpzStream

    with open(tmp_path / "o.npz", "wb") as f:
        stream = NpzStream(f, {"a": ((4, 3), np.dtype(np.float64))})
        with pytest.raises(ValueError, match="float32"):
            stream.write("a", np.zeros((2, 3), np.float32))
        with pytest.raises(ValueError, match=r"\(4, 3\)"):
            stream.write("a", np.zeros((2, 2)))
        stream.write("a", np.zeros((3, 3)))
        with pytest.raises(ValueError, match="rows"):
            stream.write("a", np.zeros((2, 3)))
        with pytest.raises(ValueError, match="3 of 4 rows"):
            stream.finish()


@pytest.mark.parametrize("fps", ["3e5", "1e6"])
def test_output_larger_than_the_limit_is_refused_before_posing(tmp_path, capsys, monkeypatch,
                                                               fps):
    """--fps 3e5 and 1e6 ask for 2.0 and 6.5 GB of positions: refused with the size and the
    limit, by --max-output or by the free space (a nearly full disk here), before any posing
    or writing."""
    import shutil
    from collections import namedtuple

    import importlib
    pose_module = importlib.import_module("skinkit.model.pose")
    monkeypatch.setattr(pose_module, "run", lambda *a, **k: pytest.fail("posed"))
    out = tmp_path / "o.npz"
    code, _, err = run(["pose", "--fps", fps, "--max-output", "1G", "--out", out], capsys)
    assert code == 1
    assert_one_line_error(err)
    size = {"3e5": "1.96 GB", "1e6": "6.54 GB"}[fps]
    assert size in err and "--max-output (1 GB" in err and "136 vertices" in err
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(24e9, 23e9, 10**9))
    code, _, err = run(["pose", "--fps", fps, "--out", out], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert size in err and "free space" in err and "1 GB" in err
    assert os.listdir(tmp_path) == []


def test_output_size_is_what_is_written(tmp_path, capsys):
    """The size checked before posing is the .npz's size to the byte; --max-output at that size
    passes, one byte less is refused."""
    out = tmp_path / "o.npz"
    assert run(["pose", "--fps", "50", "--normals", "--out", out], capsys)[0] == 0
    size = out.stat().st_size
    out.unlink()
    assert run(["pose", "--fps", "50", "--normals", "--max-output", size, "--out", out],
               capsys)[0] == 0
    code, _, err = run(["pose", "--fps", "50", "--normals", "--max-output", size - 1,
                        "--out", out], capsys)
    assert code == 1 and f"({size} bytes)" in err


@pytest.mark.parametrize("out", ["o.txt", "-", "noext", "o.npz.bak", "o.ply"])
def test_unknown_output_kind_is_a_usage_error(tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["pose", "--out", out], capsys)
    assert code == 2 and "Traceback" not in err and os.listdir() == []
    assert f"--out {out}" in err
    assert ("--format ply" in err) if out == "o.ply" else ("FILE.npz, FILE.glb, DIR/" in err)


def _special_files(tmp_path):
    """Existing --out paths that are not regular files: name -> (path, what it is); those the
    platform and the user can make (FIFOs and devices are POSIX's, device nodes root's,
    symbolic links may need a privilege on Windows)."""
    import stat

    (tmp_path / "target.npz").write_bytes(b"precious")
    (tmp_path / "realdir").mkdir()
    makers = {
        "dir": (tmp_path / "dir.npz", "directory", lambda p: p.mkdir()),
        "fifo": (tmp_path / "fifo.npz", "a FIFO", os.mkfifo),
        "link": (tmp_path / "link.npz", "a symbolic link",
                 lambda p: p.symlink_to(tmp_path / "target.npz")),
        "null": (tmp_path / "null.npz", "a symbolic link",
                 lambda p: p.symlink_to(os.devnull)),
        "dirlink": (tmp_path / "dirlink", "a symbolic link",
                    lambda p: p.symlink_to(tmp_path / "realdir")),
        "device": (tmp_path / "dev.npz", "a character device",
                   lambda p: os.mknod(p, 0o600 | stat.S_IFCHR, os.makedev(1, 3))),
    }
    files = {}
    for name, (path, what, make) in makers.items():
        try:
            make(path)
        except (AttributeError, NotImplementedError, OSError):   # not here, or not allowed
            continue
        files[name] = (f"{path}/" if name == "dirlink" else path, what)
    assert {"dir", "fifo", "link", "null", "dirlink"} <= set(files) or os.name == "nt"
    return files


def test_output_that_is_not_a_regular_file_is_refused(tmp_path, capsys):
    """A FIFO, a symbolic link (to a file, to /dev/null, to a folder for DIR/), a directory for
    an .npz, a device: refused with one line naming it, left as they were."""
    files = _special_files(tmp_path)
    before = {p: os.lstat(tmp_path / p) for p in os.listdir(tmp_path)}
    for name, (path, what) in files.items():
        code, _, err = run(["pose", "--times", "0", "--out", path], capsys)
        assert code == 1, name
        assert_one_line_error(err)
        assert what in err and str(path).rstrip("/") in err, (name, err)
    after = {p: os.lstat(tmp_path / p) for p in os.listdir(tmp_path)}
    assert after.keys() == before.keys()
    assert all((after[p].st_mode, after[p].st_ino, after[p].st_mtime_ns)
               == (before[p].st_mode, before[p].st_ino, before[p].st_mtime_ns) for p in after)
    assert (tmp_path / "target.npz").read_bytes() == b"precious"
    assert os.listdir(tmp_path / "realdir") == []


@pytest.mark.shared
@pytest.mark.parametrize("argv", [
    ["pose", "--fps", "1e300"],
    ["pose", "--fps", "1e15"],
    ["pose", "--fps", "-3"],
    ["pose", "--fps", "nan"],
    ["pose", "--fps", "inf"],
    ["pose", "--times", "inf"],
    ["pose", "--skinning", "dqs", "--times", "1e309"],
    ["pose", "--clip", "99"],
    ["pose", "--clip", "-2"],
    ["pose", "--clip", ""],
    ["pose", "--scene", "0"],
    ["pose", "BODY", "--params", "missing.npz"],
    ["pose", "MODELDIR.glb"],
    ["pose", "MODELDIR/"],
    ["pose", "--normals", "--out", "frames/", "BVH"],
    ["pose", "--out", "one.glb"],
    ["pose", "--out", "no/such/folder/o.npz"],
    ["info", "--scene", "3"],
    ["info", "MODELDIR.glb"],
])
def test_hostile_arguments_give_one_line(tmp_path, capsys, monkeypatch, argv):
    """Each is exit 1 and one 'skinkit: error:' line (exit 2 and the usage for the glb of many
    frames), no traceback, nothing written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "MODELDIR.glb").mkdir()
    files = {"BVH": str(BVH / "cmu_01_03_first300.bvh"),
             "BODY": str(DATA / "body" / "tiny_mano.npz")}
    argv = [files.get(a, a) for a in argv]
    if "--out" not in argv and argv[0] == "pose":
        argv += ["--out", "o.npz"]
    code, _, err = run(argv, capsys)
    if "one.glb" in argv:
        assert code == 2 and "exactly one" in err and "Traceback" not in err
    else:
        assert code == 1, err
        assert_one_line_error(err)
    assert sorted(os.listdir()) == ["MODELDIR.glb"]


@pytest.mark.shared
def test_posing_error_names_the_model(tmp_path, capsys, monkeypatch):
    """A stage refusing the model's data mid-way (a kernel's ValueError names no file) is one
    line that names the model file."""
    import skinkit.model.stages

    def bad(*args, **kwargs):
        raise ValueError("joints[17, 2] = 9 is not a joint of the skin (0..3)")
    monkeypatch.setattr(skinkit.model.stages, "skin", bad)
    code, _, err = run(["pose", CESIUM_PATH, "--out", tmp_path / "o.npz"], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert "CesiumMan.glb: joints[17, 2] = 9" in err and os.listdir(tmp_path) == []


def test_memory_error_is_one_line(tmp_path, capsys, monkeypatch):
    import importlib
    pose_module = importlib.import_module("skinkit.model.pose")

    def no_memory(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(pose_module, "run", no_memory)
    code, _, err = run(["pose", "--out", tmp_path / "o.npz"], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert "out of memory" in err and os.listdir(tmp_path) == []


@pytest.mark.parametrize("flags, warned", [([], True), (["--clamp"], False), (["--loop"], False),
                                           (["--quiet"], False)])
def test_times_outside_the_clip_warn_once(tmp_path, capsys, flags, warned):
    """Times past the clip: clamped with one warning line, silently with --clamp, wrapped with
    --loop; --quiet prints nothing."""
    out = tmp_path / "o.npz"
    code, _, err = run(["pose", "--times", "0.5", "2.5", "3", "-1", *flags, "--out", out], capsys)
    assert code == 0
    lines = err.splitlines()
    warnings = [line for line in lines if line.startswith("skinkit: warning: ")]
    assert len(warnings) == warned and "Traceback" not in err
    if warned:
        assert "'bend'" in warnings[0] and "clamped" in warnings[0] and "--loop" in warnings[0]
    if "--quiet" in flags:
        assert err == ""
    m = default_model()
    with np.load(out) as d:
        expected = m.pose("bend", [0.5, 2.5, 3, -1], loop="--loop" in flags)["0_0"]
        np.testing.assert_array_equal(d["positions_0_0"], expected)
        if "--loop" not in flags:
            np.testing.assert_array_equal(d["positions_0_0"][1], d["positions_0_0"][2])


def test_loop_and_clamp_exclusive(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_usage_error(["pose", "--loop", "--clamp", "--out", "o.npz"], capsys)
    assert_usage_error(["pose", "--max-output", "lots", "--out", "o.npz"], capsys)
    assert_usage_error(["pose", "--quiet", "--verbose", "--out", "o.npz"], capsys)


def test_verbose_says_what_was_decided(tmp_path, capsys):
    code, _, err = run(["pose", "--fps", "10", "--verbose", "--out", tmp_path / "o.npz"], capsys)
    assert code == 0
    info = [line for line in err.splitlines() if line.startswith("skinkit: info: ")]
    assert any("PoseRequest(clip 'bend', 21 times at 10 fps" in line for line in info), err
    size = (tmp_path / "o.npz").stat().st_size
    assert any(f"NpzOutput, {size / 1e3:.3g} kB ({size} bytes)" in line for line in info), err


def test_body_model_output_size_checked_and_streamed(tmp_path, capsys):
    """The body-model branch goes through the same writer: refused past --max-output before
    posing, else the .npz holds forward()'s values."""
    body_file = str(DATA / "body" / "tiny_mano.npz")
    body = skinkit.load_body_model(body_file)
    rng = np.random.default_rng(2)
    pose_ = rng.normal(scale=0.3, size=(150, body.num_joints, 3))
    params = tmp_path / "params.npz"
    np.savez(params, pose=pose_)
    out = tmp_path / "o.npz"
    code, _, err = run(["pose", body_file, "--params", params, "--max-output", "10k",
                        "--out", out], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert "150 frames" in err and "--max-output (10 kB" in err and not out.exists()
    assert run(["pose", body_file, "--params", params, "--out", out], capsys)[0] == 0
    vertices, joints = body.forward(pose=pose_)
    with np.load(out) as d:
        assert d.files == ["positions_body", "joints"]
        np.testing.assert_allclose(d["positions_body"], vertices, rtol=0, atol=1e-13)
        np.testing.assert_allclose(d["joints"], joints, rtol=0, atol=1e-13)
