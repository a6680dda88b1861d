"""End to end against three.js: load glTF, sample the clip, FK, skinning; compare with the
reference poses three.js 0.187 computed (tests/data/threejs, see its README.md).

Tolerance (README, "Tolerances that hold for a correct implementation"): 2e-5 x the model's
extent (the bounding-box diagonal of the reference positions), except SimpleSkin at times strictly
inside its clip, whose slightly non-unit rotation keys three.js uses unnormalised (README item 4):
1e-3 absolute there.

The worst errors are printed at the end of the module (``pytest -s``) and, when the environment
variable SKINKIT_THREEJS_SUMMARY names a file, written there as JSON.
"""
import json
import os
from pathlib import Path

import numpy as np
import pytest

from conftest import GLTF, THREEJS, need_shared, shared_files, shared_json
from skinkit.cli.main import main
from skinkit.io.gltf import load_gltf
from skinkit.model.pose import pose, world_matrices

INDEX = shared_json(THREEJS / "index.json", {"models": [{"dir": "absent", "records": [
    {"record": "absent"}]}]})
MODELS = INDEX["models"]
CASES = [(m, r) for m in MODELS for r in m["records"]]
CASE_IDS = [f"{m['dir']}-{r['record']}" for m, r in CASES]
SIMPLESKIN = "SimpleSkin.gltf"
pytestmark = pytest.mark.shared          # three.js records of the shared fixtures
REL_TOL = 2e-5
SIMPLESKIN_INTERIOR_TOL = 1e-3

# (model dir, record) -> worst errors; printed at the end of the module
WORST = {}

_models = {}


def load(model_file, dtype=np.float64):
    need_shared()
    key = (model_file, np.dtype(dtype).name)
    if key not in _models:
        _models[key] = load_gltf(GLTF / model_file, dtype=dtype)
    return _models[key]


def read_record(model, record):
    """The record's JSON header and a function giving each array of its .bin."""
    need_shared()
    header = json.loads((THREEJS / model["dir"] / record["json"]).read_text())
    raw = (THREEJS / model["dir"] / header["bin_file"]).read_bytes()

    def array(spec):
        assert spec["dtype"] == "<f8"
        a = np.frombuffer(raw, dtype="<f8", count=spec["count"], offset=spec["offset"])
        return a.reshape(spec["shape"])

    return header, array


def column_major(m16):
    """(..., 16) column-major (three.js / glTF) -> (..., 4, 4) row-major."""
    return np.swapaxes(m16.reshape(m16.shape[:-1] + (4, 4)), -1, -2)


def matrix_errors(got, ref):
    """Worst error of the 3x3 part (divided by its size when > 1) and of the translation, over
    the matrices three.js computed (NaN marks a node outside the loaded scene)."""
    assert got.shape == ref.shape, (got.shape, ref.shape)
    ok = np.isfinite(ref).all(axis=(-1, -2))
    got, ref = got[ok], ref[ok]
    if ref.size == 0:
        return 0.0, 0.0
    scale = np.maximum(1.0, np.abs(ref[:, :3, :3]).max(axis=(-1, -2)))
    lin = (np.abs(got[:, :3, :3] - ref[:, :3, :3]).max(axis=(-1, -2)) / scale).max()
    trans = np.abs(got[:, :3, 3] - ref[:, :3, 3]).max()
    return float(lin), float(trans)


def pose_args(header, record):
    """(clip, times) to pose a record: the rest record is clip None at one time."""
    if record["record"] == "rest":
        return None, None
    return record["clip_index"], np.asarray(header["times"], dtype=np.float64)


def tolerances(model, header, record, extent):
    """Per-time tolerance (T,) for positions."""
    if record["record"] == "rest":
        return np.array([REL_TOL * extent])
    t = np.asarray(header["times"], dtype=np.float64)
    tol = np.full(t.shape, REL_TOL * extent)
    if model["model_file"] == SIMPLESKIN:
        interior = (t > 0) & (t < record["duration"])
        tol[interior] = np.maximum(tol[interior], SIMPLESKIN_INTERIOR_TOL)
    return tol


def extent_of(header, array):
    pts = np.concatenate([array(sm["positions"]).reshape(-1, 3)
                          for sm in header["skinned_meshes"]])
    return float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))


def note(model, record, **values):
    WORST.setdefault((model["dir"], record["record"]), {}).update(values)


@pytest.fixture(scope="module", autouse=True)
def summary():
    yield
    if not WORST:
        return
    lines = ["", "worst error vs three.js (max vertex distance; extent = bbox diagonal)",
             f"{'model':<22}{'record':<7}{'extent':>8}{'positions':>11}{'/extent':>9}"
             f"{'float32':>10}{'world*':>10}{'cli':>10}",
             "(world*: worst of the 3x3 part and the translation / extent)"]
    nan = float("nan")
    for (name, rec), v in sorted(WORST.items()):
        lines.append(f"{name:<22}{rec:<7}{v.get('extent', nan):>8.4g}"
                     f"{v.get('positions', nan):>11.3g}"
                     f"{v.get('positions', nan) / v.get('extent', nan):>9.2g}"
                     f"{v.get('positions_f32', nan):>10.3g}"
                     f"{v.get('world', nan):>10.3g}{v.get('cli', nan):>10.3g}")
    print("\n".join(lines))
    path = os.environ.get("SKINKIT_THREEJS_SUMMARY")
    if path:
        Path(path).write_text(json.dumps(
            [{"model": k[0], "record": k[1], **v} for k, v in sorted(WORST.items())], indent=1))


def check_positions(model, record, header, array, result, what):
    extent = extent_of(header, array)
    tol = tolerances(model, header, record, extent)
    worst = 0.0
    for sm in header["skinned_meshes"]:
        key = f"{sm['node_index']}_{sm['primitive_index']}"
        assert key in result, f"{what}: no skinned primitive {key}; got {sorted(result)}"
        ref = array(sm["positions"])
        got = np.asarray(result[key], dtype=np.float64)
        assert got.shape == ref.shape, (what, key)
        err = np.linalg.norm(got - ref, axis=-1).max(axis=-1)  # (T,)
        worst = max(worst, float(err.max()))
        bad = np.nonzero(err > tol)[0]
        when = np.asarray(header["times"])[bad]
        assert bad.size == 0, (f"{model['dir']} {record['record']} {what} {key}: error "
                               f"{err[bad]} > tolerance {tol[bad]} at times {when}")
    return extent, worst


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("model, record", CASES, ids=CASE_IDS)
def test_positions_match_threejs(model, record, dtype):
    m = load(model["model_file"], dtype)
    header, array = read_record(model, record)
    clip, times = pose_args(header, record)
    result = pose(m, clip, times)
    assert len(result) == len(header["skinned_meshes"])
    assert all(v.dtype == dtype for v in result.values())
    extent, worst = check_positions(model, record, header, array, result,
                                    f"pose() {dtype.__name__}")
    if dtype == np.float64:
        note(model, record, extent=extent, positions=worst)
    else:
        note(model, record, positions_f32=worst)


@pytest.mark.parametrize("model, record", CASES, ids=CASE_IDS)
def test_world_matrices_match_threejs(model, record):
    m = load(model["model_file"])
    header, array = read_record(model, record)
    clip, times = pose_args(header, record)
    world = world_matrices(m, clip, times)
    ref = column_major(array(header["nodes"]["world"]))
    assert world.shape == ref.shape
    extent = extent_of(header, array)
    # the linear part is compared absolutely (relative to its size when > 1), the translation
    # relative to the model's extent
    lin_tol, trans_tol = REL_TOL, REL_TOL * extent
    if model["model_file"] == SIMPLESKIN and record["record"] == "clip":
        lin_tol = trans_tol = SIMPLESKIN_INTERIOR_TOL
    lin_err, trans_err = matrix_errors(world, ref)
    note(model, record, world=max(lin_err, trans_err / extent))
    assert lin_err <= lin_tol and trans_err <= trans_tol, (lin_err, trans_err)
    for sm in header["skinned_meshes"]:
        prim = next(p for p in m.primitives
                    if p.node == sm["node_index"] and p.index == sm["primitive_index"])
        assert prim.skin == sm["skin_index"]
        joints = np.asarray(m.skins[prim.skin].joints)
        np.testing.assert_array_equal(joints, sm["joint_node_indices"])
        jw = column_major(array(sm["joint_world"]))
        lin_err, trans_err = matrix_errors(world[:, joints], jw)
        assert lin_err <= lin_tol and trans_err <= trans_tol, (lin_err, trans_err)
        assert len(prim.positions) == sm["vertex_count"]


@pytest.mark.parametrize("model", MODELS, ids=[m["dir"] for m in MODELS])
def test_cli_pose_matches_threejs(model, tmp_path, capsys):
    """``skinkit pose MODEL --times ...`` (and ``--rest``) writes the same positions."""
    m = load(model["model_file"])
    path = str(GLTF / model["model_file"])
    for record in model["records"]:
        header, array = read_record(model, record)
        out = tmp_path / f"{record['record']}.npz"
        if record["record"] == "rest":
            argv = ["pose", path, "--rest", "--out", str(out)]
        else:
            argv = ["pose", path, "--clip", str(record["clip_index"]), "--times",
                    *[repr(float(t)) for t in header["times"]], "--out", str(out)]
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 0, err
        clip, times = pose_args(header, record)
        expected = pose(m, clip, times)
        with np.load(out) as d:
            assert sorted(d.files) == sorted(["times"] + [f"positions_{k}" for k in expected])
            np.testing.assert_array_equal(d["times"], [0.0] if times is None else times)
            result = {k: d[f"positions_{k}"] for k in expected}
        for k in expected:
            np.testing.assert_array_equal(result[k], expected[k])
        _, w = check_positions(model, record, header, array, result, "skinkit pose")
        note(model, record, cli=w)


ALL_GLTF = [p.name for p in shared_files(GLTF, "*.gl*")]


@pytest.mark.parametrize("name", ALL_GLTF)
def test_every_fixture_model_poses(name):
    """Every glTF fixture loads and poses at 3 times of its first clip: finite, right shapes."""
    m = load(name)
    assert m.primitives, "no mesh primitive"
    assert m.clips, "no clip"
    clip = m.clips[0]
    times = np.linspace(0.0, clip.duration, 3)
    n = m.skeleton.count
    world = world_matrices(m, 0, times)
    assert world.shape == (3, n, 4, 4) and np.isfinite(world).all()
    for loop in (False, True):
        result = m.pose(0, times, loop=loop, normals=True)
        assert sorted(result) == sorted(p.key for p in m.primitives)
        assert sorted(result.normals) == sorted(p.key for p in m.primitives
                                                if p.normals is not None)
        for prim in m.primitives:
            pos, nrm = result[prim.key], result.normals.get(prim.key)
            assert pos.shape == (3, len(prim.positions), 3)
            assert np.isfinite(pos).all(), prim.key
            if prim.normals is not None:
                assert nrm.shape == pos.shape and np.isfinite(nrm).all()
    # the rest pose too
    rest = m.pose()
    for prim in m.primitives:
        assert rest[prim.key].shape == (1, len(prim.positions), 3)
        assert np.isfinite(rest[prim.key]).all()
