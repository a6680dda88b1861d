"""The glTF 2.0 loader: the fixture models against independent facts (three.js records, the
fixture licence notes), a synthetic file covering the accessor encodings, and hostile files that
must raise GltfError naming the JSON path of the problem."""
import json
import os
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import helpers
import reference as ref
from gltf_doc import DTYPES, Doc, edited, put
from skinkit.io.gltf import accessors as gltf_accessors
from skinkit.io.gltf import GltfError, load_gltf
from conftest import GLTF, THREEJS, need_shared, shared_files, shared_json

INDEX = shared_json(THREEJS / "index.json", {"models": [{"dir": "absent"}]})
MODEL_FILES = [p.name for p in shared_files(GLTF, "*.gl*")]
SLICES = {"translation": slice(0, 3), "rotation": slice(3, 7), "scale": slice(7, 10)}


def close_up_to_sign(a, b, atol):
    """Quaternions (..., 4) equal up to sign, row by row."""
    a, b = np.reshape(a, (-1, 4)), np.reshape(b, (-1, 4))
    err = np.minimum(np.abs(a - b).max(axis=1), np.abs(a + b).max(axis=1))
    return bool(np.all(err <= atol))


# --- the fixture models --------------------------------------------------------------------


@pytest.mark.shared
@pytest.mark.parametrize("name", MODEL_FILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fixture_loads_consistently(name, dtype):
    model = load_gltf(GLTF / name, dtype=dtype)
    sk = model.skeleton
    n = sk.count
    assert sk.parents.dtype == np.int32 and np.all((sk.parents >= -1) & (sk.parents < n))
    assert len(sk.names) == n
    for a, width in ((sk.translations, 3), (sk.rotations, 4), (sk.scales, 3)):
        assert a.shape == (n, width) and a.dtype == dtype
    assert np.allclose(np.linalg.norm(sk.rotations, axis=1), 1, atol=1e-3)
    for skin in model.skins:
        assert skin.joints.dtype == np.int32 and np.all(skin.joints < n)
        assert skin.inverse_bind_matrices.shape == (len(skin.joints), 4, 4)
        assert skin.inverse_bind_matrices.dtype == dtype
        assert np.allclose(skin.inverse_bind_matrices[:, 3], [0, 0, 0, 1], atol=1e-6)
    assert any(prim.skinned for prim in model.primitives)
    for prim in model.primitives:
        v = len(prim.positions)
        assert prim.positions.shape == (v, 3) and prim.positions.dtype == dtype
        assert prim.normals is None or prim.normals.shape == (v, 3)
        assert prim.faces.shape[1] == 3 and prim.faces.max() < v
        if prim.skinned:
            assert prim.joints.dtype in (np.uint8, np.uint16) and prim.joints.shape == (v, 4)
            assert np.all(prim.joints < len(model.skins[prim.skin].joints))
            assert prim.weights.shape == (v, 4) and prim.weights.dtype == dtype
            assert np.allclose(prim.weights.sum(axis=1), 1, atol=1e-2)
            assert all(a.dtype.isnative for a in (prim.joints, prim.weights))
        else:
            assert prim.joints is None and prim.weights is None
        m = prim.target_count
        for deltas in (prim.morph_positions, prim.morph_normals):
            assert (deltas is None) if m == 0 else (deltas is None or (
                deltas.shape == (m, v, 3) and deltas.dtype == dtype))
        assert prim.positions.dtype.isnative
    assert model.clips and all(clip.duration > 0 and not clip.unsupported for clip in model.clips)
    for clip in model.clips:
        targets = {p.node: p.target_count for p in model.primitives}
        for ch in clip.channels:
            if ch.path == "weights":
                assert ch.values.shape[1] == targets[ch.node] > 0


@pytest.mark.shared
def test_fixture_facts_from_licence_notes():
    """Joint and clip counts stated in ../shared/fixtures/gltf/LICENSES.md."""
    fox = load_gltf(GLTF / "Fox.glb")
    assert [len(s.joints) for s in fox.skins] == [24]
    assert [c.name for c in fox.clips] == ["Survey", "Walk", "Run"]
    recursive = load_gltf(GLTF / "RecursiveSkeletons.glb")
    assert recursive.skeleton.count == 924 and len(recursive.skins) == 84
    assert len({p.mesh for p in recursive.primitives}) == 1
    assert [len(s.joints) for s in load_gltf(GLTF / "RiggedFigure.glb").skins] == [19]
    assert [len(s.joints) for s in load_gltf(GLTF / "RiggedSimple.glb").skins] == [2]
    simple = load_gltf(GLTF / "SimpleSkin.gltf")
    assert [len(s.joints) for s in simple.skins] == [2]
    assert len(simple.primitives[0].positions) == 10


def read_record(model_dir, json_name):
    need_shared()
    header = json.loads((THREEJS / model_dir / json_name).read_text())
    raw = (THREEJS / model_dir / header["bin_file"]).read_bytes()

    def array(spec):
        return np.frombuffer(raw, "<f8", count=spec["count"], offset=spec["offset"]).reshape(
            spec["shape"])

    return header, array


@pytest.mark.shared
@pytest.mark.parametrize("entry", INDEX["models"], ids=[m["dir"] for m in INDEX["models"]])
def test_against_threejs(entry):
    model = load_gltf(GLTF / entry["model_file"])
    assert len(model.clips) == entry["clip_count"]
    header, array = read_record(entry["dir"], "rest.json")

    # rest TRS of every node, matrix nodes decomposed (three.js decomposes them too)
    trs = array(header["nodes"]["local_trs"])[0]
    sk = model.skeleton
    assert np.allclose(sk.translations, trs[:, :3], atol=1e-6)
    assert np.allclose(sk.scales, trs[:, 7:], atol=1e-6)
    assert close_up_to_sign(sk.rotations, trs[:, 3:7], 1e-6)

    # skinned primitives: identity, counts, joints, and the rest pose skinned with three's joint
    # world matrices: checks POSITION (sparse too), JOINTS, WEIGHTS and the inverse bind matrices
    assert len(header["skinned_meshes"]) == len(entry["skinned_meshes"])
    for mesh, facts in zip(header["skinned_meshes"], entry["skinned_meshes"]):
        key = (mesh["node_index"], mesh["mesh_index"], mesh["primitive_index"], mesh["skin_index"])
        [prim] = [p for p in model.primitives if (p.node, p.mesh, p.index, p.skin) == key]
        skin = model.skins[prim.skin]
        assert skin.joints.tolist() == mesh["joint_node_indices"]
        assert len(skin.joints) == facts["joint_count"]
        assert len(prim.positions) == facts["vertex_count"]
        joint_world = array(mesh["joint_world"])[0].reshape(-1, 4, 4).transpose(0, 2, 1)
        skinning = (joint_world @ skin.inverse_bind_matrices)[prim.joints.astype(np.intp)]
        weights = prim.weights / prim.weights.sum(axis=1, keepdims=True)
        v = np.c_[prim.positions, np.ones(len(prim.positions))]
        skinned = np.einsum("vk,vkij,vj->vi", weights, skinning, v)[:, :3]
        expected = array(mesh["positions"])[0]
        extent = np.ptp(expected, axis=0).max()
        assert np.abs(skinned - expected).max() <= 2e-5 * extent

    # clips: duration, interpolations, and the first and last keys (three.js holds them verbatim
    # before the first and after the last key time)
    for record in entry["records"]:
        if record["record"] != "clip":
            continue
        clip = model.clips[record["clip_index"]]
        assert clip.name == record["clip_name"]
        assert clip.duration == pytest.approx(record["duration"], rel=1e-7)
        assert clip.interpolations == record["interpolations"]
        header, array = read_record(entry["dir"], record["json"])
        trs = array(header["nodes"]["local_trs"])
        first, last = trs[np.argmin(header["times"])], trs[np.argmax(header["times"])]
        for ch in clip.channels:
            cubic = ch.interpolation == "CUBICSPLINE"  # keys are (in-tangent, value, out-tangent)
            start, end = (ch.values[1], ch.values[-2]) if cubic else (ch.values[0], ch.values[-1])
            got = first[ch.node, SLICES[ch.path]], last[ch.node, SLICES[ch.path]]
            if ch.path == "rotation":
                if cubic:
                    start, end = start / np.linalg.norm(start), end / np.linalg.norm(end)
                assert close_up_to_sign(np.array(got), np.array([start, end]), 1e-6)
            else:
                assert np.allclose(got, [start, end], atol=1e-6)


@pytest.mark.shared
def test_sparse_and_quantized_variant():
    """LICENSES.md: the sparse POSITION moves vertices 2, 7, 22, 42, 57, 65, 71, 103, 119, 151;
    WEIGHTS_0 becomes normalized UNSIGNED_BYTE summing to 255."""
    [plain] = load_gltf(GLTF / "RiggedSimple.glb").primitives
    [sparse] = load_gltf(GLTF / "RiggedSimple-sparse.glb").primitives
    moved = np.flatnonzero(np.any(plain.positions != sparse.positions, axis=1))
    assert moved.tolist() == [2, 7, 22, 42, 57, 65, 71, 103, 119, 151]
    assert np.allclose(sparse.weights.sum(axis=1), 1, atol=1e-12)
    assert np.all(np.abs(sparse.weights - plain.weights / plain.weights.sum(1, keepdims=True))
                  <= 1 / 255 + 1e-7)
    assert np.array_equal(sparse.joints, plain.joints)


@pytest.mark.shared
def test_step_and_cubic_variants():
    """LICENSES.md: -step only changes the interpolation; -cubic stores (a_k, v_k, b_k) with the
    original keys as v_k (rotations normalised), a_0 = 0 and b_(n-1) = 0."""
    [linear] = load_gltf(GLTF / "RiggedFigure.glb").clips
    [step] = load_gltf(GLTF / "RiggedFigure-step.glb").clips
    [cubic] = load_gltf(GLTF / "RiggedFigure-cubic.glb").clips
    assert step.interpolations == ["STEP"] and cubic.interpolations == ["CUBICSPLINE"]
    for a, b, c in zip(linear.channels, step.channels, cubic.channels):
        assert (a.node, a.path) == (b.node, b.path) == (c.node, c.path)
        assert np.array_equal(a.times, b.times) and np.array_equal(a.values, b.values)
        assert np.array_equal(a.times, c.times) and c.values.shape[0] == 3 * len(a.times)
        keys = a.values
        if a.path == "rotation":
            keys = keys / np.linalg.norm(keys, axis=1, keepdims=True)
            assert close_up_to_sign(c.values[1::3], keys, 1e-6)
        else:
            assert np.allclose(c.values[1::3], keys, atol=1e-6)
        assert not c.values[0].any() and not c.values[-1].any()


# --- a synthetic file: every component type, strides, normalized ints, sparse, matrices -----


def trs_matrix(t, q, s):
    """glTF node.matrix (column-major list of 16) for translation, rotation, scale."""
    m = np.eye(4)
    q = np.asarray(q, float)
    m[:3, :3] = ref.quat_to_matrix(q / np.linalg.norm(q)) * s
    m[:3, 3] = t
    return m.T.ravel().tolist()


def synthetic():
    """A file covering the accessor encodings; returns the Doc and the expected values."""
    rng = np.random.default_rng(7)
    d = Doc()
    e = {}
    # primitive 0: POSITION and NORMAL interleaved with 4 padding bytes (byteStride 28), two
    # JOINTS/WEIGHTS sets (UNSIGNED_BYTE and UNSIGNED_SHORT), UNSIGNED_INT indices
    vertices = np.zeros(4, dtype=[("p", "<f4", 3), ("n", "<f4", 3), ("pad", "<u4")])
    vertices["p"], vertices["n"] = rng.normal(size=(2, 4, 3))
    vertices["pad"] = 7
    interleaved = d.view(vertices.tobytes(), stride=28)
    e["pos0"], e["nrm0"] = vertices["p"].astype(float), vertices["n"].astype(float)
    j0 = rng.integers(0, 3, (4, 4)).astype(np.uint8)
    j1 = rng.integers(0, 3, (4, 4)).astype(np.uint16)
    w0 = rng.integers(0, 256, (4, 4)).astype(np.uint8)
    w1 = rng.integers(0, 65536, (4, 4)).astype(np.uint16)
    e["joints0"] = np.hstack([j0.astype(np.uint16), j1])
    e["weights0"] = np.hstack([w0 / 255, w1 / 65535])
    prim0 = {"attributes": {
        "POSITION": d.accessor(5126, "VEC3", 4, interleaved),
        "NORMAL": d.accessor(5126, "VEC3", 4, interleaved, byteOffset=12),
        "JOINTS_0": d.add(j0, 5121, "VEC4"), "JOINTS_1": d.add(j1, 5123, "VEC4"),
        "WEIGHTS_0": d.add(w0, 5121, "VEC4", normalized=True),
        "WEIGHTS_1": d.add(w1, 5123, "VEC4", normalized=True)},
        "indices": d.add([0, 1, 2, 2, 1, 3], 5125, "SCALAR")}
    # primitive 1: quantized SHORT POSITION (byteStride 8) with sparse rows 1 and 4, normalized
    # BYTE NORMAL (byteStride 4), non-indexed triangles
    pos1 = np.full((6, 4), -1, np.int16)
    pos1[:, :3] = rng.integers(-1000, 1000, (6, 3))
    nrm1 = np.full((6, 4), 99, np.int8)
    nrm1[:, :3] = rng.integers(-128, 128, (6, 3))
    nrm1[0, :3] = [-128, -127, 127]
    replaced = [[7, 8, 9], [-7, -8, -9]]
    e["pos1"] = pos1[:, :3].astype(float)
    e["pos1"][[1, 4]] = replaced
    e["nrm1"] = np.maximum(nrm1[:, :3] / 127, -1)
    e["weights1"] = rng.random((6, 4)).astype(np.float32)
    j2 = rng.integers(0, 3, (6, 4)).astype(np.uint16)
    e["joints1"] = j2
    prim1 = {"attributes": {
        "POSITION": d.accessor(5122, "VEC3", 6, d.view(pos1.tobytes(), stride=8),
                               sparse=d.sparse([1, 4], 5123, replaced, 5122)),
        "NORMAL": d.accessor(5120, "VEC3", 6, d.view(nrm1.tobytes(), stride=4),
                             normalized=True),
        "JOINTS_0": d.add(j2, 5123, "VEC4"), "WEIGHTS_0": d.add(e["weights1"], 5126, "VEC4")}}
    # primitive 2: LINES (no faces); mesh 1: POINTS without skin attributes, on an unskinned
    # node (a rigid primitive)
    prim2 = {"attributes": {k: prim0["attributes"][k] for k in ("POSITION", "JOINTS_0",
                                                              "WEIGHTS_0")}, "mode": 1}
    prim3 = {"attributes": {"POSITION": prim0["attributes"]["POSITION"]}, "mode": 0}
    # one morph target per primitive of mesh 0: float deltas (shared by primitives 0 and 2) and
    # a sparse SHORT accessor without bufferView (rows 2 and 5) for primitive 1
    e["delta0"] = rng.normal(size=(4, 3)).astype(np.float32)
    e["delta1"] = np.zeros((6, 3))
    e["delta1"][[2, 5]] = [[1, -2, 3], [-4, 5, -6]]
    delta0 = d.add(e["delta0"], 5126, "VEC3")
    prim0["targets"] = [{"POSITION": delta0}]
    prim1["targets"] = [{"POSITION": d.accessor(
        5122, "VEC3", 6, sparse=d.sparse([2, 5], 5121, e["delta1"][[2, 5]], 5122))}]
    prim2["targets"] = [{"POSITION": delta0}]
    # skin: three row-major matrices, stored column-major
    ibm = rng.normal(size=(3, 4, 4)).astype(np.float32)
    ibm[:, 3] = [0, 0, 0, 1]
    e["ibm"] = ibm
    skin = {"joints": [1, 2, 3], "skeleton": 1, "name": "rig",
            "inverseBindMatrices": d.add(ibm.transpose(0, 2, 1).reshape(3, 16), 5126, "MAT4")}
    # nodes: two matrix nodes (the second mirrored: det < 0), one TRS node, one default node
    e["t"] = np.array([[0, 0, 0], [1, 2, 3], [-1, 0.5, 2], [0.1, 0.2, 0.3], [0, 0, 0]])
    e["q"] = np.array([[0, 0, 0, 1], [0.1, 0.2, 0.3, 0.9], [-0.5, 0.1, 0.7, 0.2],
                       [0, 0.6, 0, 0.8], [0, 0, 0, 1]])
    e["q"] /= np.linalg.norm(e["q"], axis=1, keepdims=True)
    e["s"] = np.array([[1, 1, 1], [2, 3, 4], [-2, 0.5, 1.5], [1, 2, 1], [1, 1, 1]])
    e["parents"] = [-1, -1, 1, 2, -1]
    nodes = [{"mesh": 0, "skin": 0, "name": "body"},
             {"matrix": trs_matrix(e["t"][1], e["q"][1], e["s"][1]), "children": [2]},
             {"matrix": trs_matrix(e["t"][2], e["q"][2], e["s"][2]), "children": [3]},
             {"translation": e["t"][3].tolist(), "rotation": e["q"][3].tolist(),
              "scale": e["s"][3].tolist()},
             {"name": "free", "mesh": 1}]
    # animation: BYTE and SHORT normalized rotations, a sparse translation with no bufferView,
    # a CUBICSPLINE scale, and a morph weights channel (1 target, 3 keys)
    times = d.add([0, 0.5, 1.25], 5126, "SCALAR")
    r8 = np.array([[-128, 0, 0, 127], [0, 127, 0, 0], [0, 0, -127, 1]], np.int8)
    r16 = np.array([[0, 0, 0, 32767], [-32768, 0, 0, 0], [0, 23170, 0, 23170]], np.int16)
    e["r8"], e["r16"] = np.maximum(r8 / 127, -1), np.maximum(r16 / 32767, -1)
    e["translation"] = np.array([[0, 0, 0], [1, 2, 3], [0, 0, 0]])
    e["scale"] = rng.random((9, 3)).astype(np.float32)
    samplers = [
        {"input": times, "output": d.add(r8, 5120, "VEC4", normalized=True)},
        {"input": times, "output": d.add(r16, 5122, "VEC4", normalized=True),
         "interpolation": "STEP"},
        {"input": times, "output": d.accessor(5126, "VEC3", 3,
                                              sparse=d.sparse([1], 5121, [[1, 2, 3]], 5126))},
        {"input": times, "output": d.add(e["scale"], 5126, "VEC3"),
         "interpolation": "CUBICSPLINE"},
        {"input": times, "output": times}]
    targets = [(3, "rotation"), (4, "rotation"), (3, "translation"), (4, "scale"), (0, "weights")]
    d.json.update(
        nodes=nodes, skins=[skin],
        meshes=[{"primitives": [prim0, prim1, prim2]}, {"primitives": [prim3]}],
        animations=[{"name": "go", "samplers": samplers, "channels": [
            {"sampler": i, "target": {"node": n, "path": p}} for i, (n, p) in enumerate(targets)]}])
    return d, e


def write_synthetic(tmp_path, container):
    d, e = synthetic()
    if container == "glb":
        return d.write(tmp_path / "s.glb"), e
    if container == "gltf+data":
        return d.write(tmp_path / "s.gltf"), e
    (tmp_path / "sub dir").mkdir()
    (tmp_path / "sub dir" / "s 1.bin").write_bytes(d.bin)
    return d.write(tmp_path / "s.gltf", uri="sub%20dir/../sub%20dir/s%201.bin"), e


@pytest.mark.parametrize("container", ["glb", "gltf+data", "gltf+bin"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_synthetic_decodes(tmp_path, container, dtype):
    path, e = write_synthetic(tmp_path, container)
    model = load_gltf(path, dtype=dtype)
    tol = dict(rtol=1e-6, atol=1e-6)
    assert model.name == "s"

    sk = model.skeleton
    assert sk.names == ["body", None, None, None, "free"]
    assert sk.parents.tolist() == e["parents"]
    assert np.allclose(sk.translations, e["t"], **tol)
    assert np.allclose(sk.scales, e["s"], **tol)
    assert close_up_to_sign(sk.rotations, e["q"], 1e-6)
    assert all(a.dtype == dtype for a in (sk.translations, sk.rotations, sk.scales))

    [skin] = model.skins
    assert (skin.name, skin.skeleton, skin.joints.tolist()) == ("rig", 1, [1, 2, 3])
    assert skin.inverse_bind_matrices.dtype == dtype
    assert np.array_equal(skin.inverse_bind_matrices, e["ibm"].astype(dtype))

    p0, p1, p2, p3 = model.primitives
    assert [(p.node, p.mesh, p.index, p.skin) for p in model.primitives] == [
        (0, 0, 0, 0), (0, 0, 1, 0), (0, 0, 2, 0), (4, 1, 0, None)]
    assert p3.joints is None and p3.weights is None and p3.faces is None
    assert np.array_equal(p3.positions, p0.positions) and p3.morph_positions is None
    assert np.array_equal(p0.morph_positions, e["delta0"][None].astype(dtype))
    assert np.array_equal(p2.morph_positions, p0.morph_positions)
    assert np.array_equal(p1.morph_positions, e["delta1"][None])
    assert all(p.morph_normals is None and p.morph_weights.tolist() == [0] for p in (p0, p1, p2))
    assert np.array_equal(p0.positions, e["pos0"].astype(dtype))
    assert np.array_equal(p0.normals, e["nrm0"].astype(dtype))
    assert p0.joints.dtype == np.uint16 and np.array_equal(p0.joints, e["joints0"])
    assert p0.weights.dtype == dtype and np.allclose(p0.weights, e["weights0"], **tol)
    assert p0.faces.tolist() == [[0, 1, 2], [2, 1, 3]]
    assert np.array_equal(p1.positions, e["pos1"])
    assert np.allclose(p1.normals, e["nrm1"], **tol) and p1.normals.min() == -1
    assert p1.joints.dtype == np.uint16 and np.array_equal(p1.joints, e["joints1"])
    assert np.array_equal(p1.weights, e["weights1"].astype(dtype))
    assert p1.faces.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert p2.faces is None and p2.normals is None and p2.joints.dtype == np.uint8

    [clip] = model.clips
    assert clip.name == "go" and clip.duration == 1.25
    assert clip.unsupported == []
    rot8, rot16, move, scale, weights = clip.channels
    assert [(c.node, c.path, c.interpolation) for c in clip.channels] == [
        (3, "rotation", "LINEAR"), (4, "rotation", "STEP"), (3, "translation", "LINEAR"),
        (4, "scale", "CUBICSPLINE"), (0, "weights", "LINEAR")]
    assert np.array_equal(weights.values, np.array([[0], [0.5], [1.25]], dtype))
    assert np.array_equal(rot8.times, np.array([0, 0.5, 1.25], dtype))
    assert rot8.values.dtype == dtype and rot8.values[0, 0] == -1
    assert np.allclose(rot8.values, e["r8"], **tol) and np.allclose(rot16.values, e["r16"], **tol)
    assert np.array_equal(move.values, e["translation"])
    assert np.array_equal(scale.values, e["scale"].astype(dtype))


@pytest.mark.parametrize("ctype, kind", [(5121, "MAT2"), (5123, "MAT2"), (5120, "MAT3"),
                                         (5122, "MAT3"), (5121, "MAT4"), (5126, "MAT4"),
                                         (5126, "VEC2"), (5125, "SCALAR")])
def test_matrix_columns_start_on_4_byte_boundaries(tmp_path, ctype, kind):
    """glTF 2.0 "Data Alignment": MAT2/MAT3 columns of 1- and 2-byte components are padded."""
    cols, rows = gltf_accessors._TYPES[kind]
    size = np.dtype(DTYPES[ctype]).itemsize
    column = rows * size if cols == 1 else -(-rows * size // 4) * 4
    values = (np.arange(3 * cols * rows) % 50 + 1).reshape(3, cols, rows)
    stored = np.full((3, cols, column // size), 77, DTYPES[ctype])
    stored[:, :, :rows] = values
    d = Doc()
    k = d.add(stored.reshape(3, -1), ctype, kind)
    d.json["buffers"][0]["uri"] = d.data_uri()
    decoded = gltf_accessors.Accessors(d.json, None, tmp_path, 0).get({"a": k}, "a", "", (kind,),
                                                                    None)
    assert decoded.dtype == np.dtype(DTYPES[ctype]).newbyteorder("=")
    assert np.array_equal(decoded, values.reshape(3, cols * rows))


# --- hostile files ---------------------------------------------------------------------------

POS, JOINTS, WEIGHTS, INDICES, IBM, TIMES, ROT = range(7)


def small():
    """A valid skinned triangle: nodes 0 (mesh), 1 -> 2 (joints), one rotation channel."""
    d = Doc()
    d.add([[0, 0, 0], [1, 0, 0], [0, 1, 0]], 5126, "VEC3")
    d.add([[0, 1, 0, 0]] * 3, 5121, "VEC4")
    d.add([[0.5, 0.5, 0, 0]] * 3, 5126, "VEC4")
    d.add([0, 1, 2], 5123, "SCALAR")
    d.add(np.tile(np.eye(4).ravel(), (2, 1)), 5126, "MAT4")
    d.add([0, 1], 5126, "SCALAR")
    d.add([[0, 0, 0, 1], [0, 0, 1, 0]], 5126, "VEC4")
    d.json.update(
        nodes=[{"mesh": 0, "skin": 0}, {"children": [2]}, {}],
        meshes=[{"primitives": [{"attributes": {"POSITION": POS, "JOINTS_0": JOINTS,
                                                "WEIGHTS_0": WEIGHTS}, "indices": INDICES}]}],
        skins=[{"joints": [1, 2], "inverseBindMatrices": IBM}],
        animations=[{"channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}],
                     "samplers": [{"input": TIMES, "output": ROT}]}])
    return d


def test_small_model_is_valid(tmp_path):
    model = load_gltf(small().write(tmp_path / "m.glb"))
    assert model.skeleton.parents.tolist() == [-1, -1, 1] and len(model.primitives) == 1


def edit_json(change):
    """A .glb of small() after ``change(doc)``."""
    return edited(small, change)


def edit_bytes(change):
    """A .glb whose bytes are ``change(bytearray of small())``."""
    def build(tmp_path):
        path = tmp_path / "m.glb"
        path.write_bytes(bytes(change(bytearray(small().glb()))))
        return path
    return build


def glb_json(text, with_bin=True):
    """A .glb whose JSON chunk holds ``text``."""
    def change(data):
        d = small()
        js = text + b" " * (-len(text) % 4)
        body = struct.pack("<II", len(js), 0x4E4F534A) + js
        if with_bin:
            body += struct.pack("<II", len(d.bin), 0x004E4942) + bytes(d.bin)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body
    return edit_bytes(change)


def buffer_uri(uri):
    """A .gltf in tmp/model whose buffer is ``uri(tmp_path)``; tmp/x.bin holds the real data."""
    def build(tmp_path):
        d = small()
        (tmp_path / "model").mkdir()
        (tmp_path / "x.bin").write_bytes(d.bin)
        return d.write(tmp_path / "model" / "m.gltf", uri=uri(tmp_path))
    return build


def symlinks(*links):
    """A buffer URI builder: make each ``(target, name)`` link in tmp/model, return the first
    name (the test is skipped where the system has no symlinks)."""
    def uri(tmp_path):
        try:
            for target, name in links:
                os.symlink(str(target).format(tmp=tmp_path), tmp_path / "model" / name)
        except (OSError, NotImplementedError):  # pragma: no cover - no symlinks on this system
            pytest.skip("symlinks are not available")
        return links[0][1]
    return uri


symlink_out = symlinks(("{tmp}/x.bin", "link.bin"))
symlink_loop = symlinks(("loop-b.bin", "loop-a.bin"), ("loop-a.bin", "loop-b.bin"))


def short_file(tmp_path):
    (tmp_path / "model" / "y.bin").write_bytes(b"12")
    return "y.bin"


def sparse_position(indices):
    return lambda d: put(d.json["accessors"][POS],
                         sparse=d.sparse(indices, 5121, [[0, 0, 1]] * len(indices), 5126))


def attributes(d):
    return d.json["meshes"][0]["primitives"][0]["attributes"]


def sampler(d):
    return d.json["animations"][0]["samplers"][0]


def children(node, kids):
    """A .glb of small() where node ``node`` has the children ``kids``."""
    return edit_json(lambda d: put(d.json["nodes"][node], children=kids))


def unbacked_position(d):
    """POSITION: 2**31 zero vertices (no bufferView), far more than the file's bytes."""
    d.json["accessors"].append({"componentType": 5126, "type": "VEC3", "count": 2**31})
    attributes(d)["POSITION"] = len(d.json["accessors"]) - 1


def truncate_bin_chunk(data):
    data = data[:-4]
    struct.pack_into("<I", data, 8, len(data))
    return data


def overlong_bin_chunk(data):
    json_length = struct.unpack_from("<I", data, 12)[0]
    at = 20 + json_length
    struct.pack_into("<I", data, at, struct.unpack_from("<I", data, at)[0] + 100)
    return data


HOSTILE = [
    ("bad magic", edit_bytes(lambda b: b"glTX" + b[4:]), "GLB header.magic"),
    ("bad version", edit_bytes(lambda b: b[:4] + struct.pack("<I", 1) + b[8:]),
     "GLB header.version"),
    ("header only", edit_bytes(lambda b: b[:6]), "GLB header"),
    ("file cut short", edit_bytes(lambda b: b[:-4]), "GLB header.length"),
    ("truncated chunk", edit_bytes(truncate_bin_chunk), "GLB chunks[1].chunkLength"),
    ("overlong chunk", edit_bytes(overlong_bin_chunk), "GLB chunks[1].chunkLength"),
    ("JSON not an object", glb_json(b"[1, 2]"), "$:"),
    ("JSON syntax", glb_json(b"{\"asset\": "), "$:"),
    ("JSON not UTF-8", glb_json(b"{\"asset\": {\"version\": \"2.0\xff\"}}"), "$:"),
    ("JSON nested too deep", glb_json(b"[" * 100000 + b"]" * 100000), "$:"),
    ("first chunk BIN", edit_bytes(lambda b: b[:16] + struct.pack("<I", 0x004E4942) + b[20:]),
     "GLB chunks[0].chunkType"),
    ("JOINTS_0 of FLOAT", edit_json(lambda d: put(attributes(d), JOINTS_0=d.add(
        [[0, 1, 0, 0]] * 3, 5126, "VEC4"))), "meshes[0].primitives[0].attributes.JOINTS_0"),
    ("WEIGHTS_0 of UNSIGNED_INT", edit_json(lambda d: put(attributes(d), WEIGHTS_0=d.add(
        [[1, 1, 0, 0]] * 3, 5125, "VEC4"))), "meshes[0].primitives[0].attributes.WEIGHTS_0"),
    ("unknown componentType", edit_json(lambda d: put(d.json["accessors"][POS],
                                                      componentType=5124)),
     "accessors[0].componentType"),
    ("no asset", glb_json(b"{}"), "asset.version"),
    ("no BIN chunk", glb_json(json.dumps(small().json).encode(), with_bin=False),
     "buffers[0].uri"),
    ("required meshopt", edit_json(lambda d: put(
        d.json, extensionsRequired=["EXT_meshopt_compression"])), "extensionsRequired[0]"),
    ("accessor past buffer end", edit_json(lambda d: put(d.json["accessors"][POS],
                                                         byteOffset=8)), "accessors[0]"),
    ("bufferView past buffer end", edit_json(lambda d: put(d.json["bufferViews"][0],
                                                           byteLength=10**6)), "bufferViews[0]"),
    ("byteStride too small", edit_json(lambda d: put(d.json["bufferViews"][0], byteStride=8)),
     "bufferViews[0].byteStride"),
    ("count 2**31", edit_json(lambda d: put(d.json["accessors"][POS], count=2**31)),
     "accessors[0]"),
    ("count 2**31 without bufferView", edit_json(unbacked_position), "accessors[7].count"),
    ("sparse index out of range", edit_json(sparse_position([1, 3])),
     "accessors[0].sparse.indices"),
    ("sparse indices not increasing", edit_json(sparse_position([2, 1])),
     "accessors[0].sparse.indices"),
    ("POSITION not VEC3", edit_json(lambda d: put(attributes(d), POSITION=JOINTS)),
     "meshes[0].primitives[0].attributes.POSITION"),
    ("accessor index out of range", edit_json(lambda d: put(attributes(d), NORMAL=99)),
     "meshes[0].primitives[0].attributes.NORMAL"),
    ("URI ../x.bin", buffer_uri(lambda tmp: "../x.bin"), "buffers[0].uri"),
    ("absolute URI", buffer_uri(lambda tmp: str(tmp / "x.bin")), "buffers[0].uri"),
    ("file: URI", buffer_uri(lambda tmp: (tmp / "x.bin").as_uri()), "buffers[0].uri"),
    ("http: URI", buffer_uri(lambda tmp: "http://example.com/x.bin"), "buffers[0].uri"),
    ("symlink out of the folder", buffer_uri(symlink_out), "buffers[0].uri"),
    ("bad base64", buffer_uri(lambda tmp: "data:application/octet-stream;base64,@@"),
     "buffers[0].uri"),
    ("short buffer file", buffer_uri(short_file), "buffers[0].uri"),
    ("NUL in URI", buffer_uri(lambda tmp: "x\x00.bin"), "buffers[0].uri"),
    ("%00 in URI", buffer_uri(lambda tmp: "x%00.bin"), "buffers[0].uri"),
    ("URI name too long", buffer_uri(lambda tmp: "a" * 5000 + ".bin"), "buffers[0].uri"),
    ("symlink loop", buffer_uri(symlink_loop), "buffers[0].uri"),
    ("non-ASCII base64", buffer_uri(lambda tmp: "data:application/octet-stream;base64,\u00e9AAA"),
     "buffers[0].uri"),
    ("node cycle", children(2, [1]), "nodes[2].children"),
    ("node is its own child", children(0, [0]), "nodes[0].children"),
    ("node with two parents", children(0, [2]), "nodes[1].children"),
    ("child out of range", children(1, [3]), "nodes[1].children"),
    ("NaN translation", edit_json(lambda d: put(d.json["nodes"][1], translation=[0, np.nan, 0])),
     "nodes[1].translation"),
    ("accessor type not a string", edit_json(lambda d: put(d.json["accessors"][POS], type=[3])),
     "accessors[0].type"),
    ("matrix and TRS", edit_json(lambda d: put(d.json["nodes"][1], matrix=np.eye(4).ravel()
                                               .tolist(), scale=[1, 1, 1])), "nodes[1].matrix"),
    ("skin joint out of range", edit_json(lambda d: put(d.json["skins"][0], joints=[1, 3])),
     "skins[0].joints"),
    ("JOINTS value out of range", edit_json(lambda d: put(attributes(d), JOINTS_0=d.add(
        [[0, 2, 0, 0]] * 3, 5121, "VEC4"))), "meshes[0].primitives[0].attributes.JOINTS_0"),
    ("WEIGHTS_1 missing", edit_json(lambda d: put(attributes(d), JOINTS_1=JOINTS)),
     "meshes[0].primitives[0].attributes.WEIGHTS_1"),
    ("inverseBindMatrices wrong count", edit_json(lambda d: put(
        d.json["skins"][0], inverseBindMatrices=d.add([np.eye(4).ravel()], 5126, "MAT4"))),
     "skins[0].inverseBindMatrices"),
    ("channel to missing node", edit_json(lambda d: put(
        d.json["animations"][0]["channels"][0]["target"], node=3)),
     "animations[0].channels[0].target.node"),
    ("non-increasing sampler input", edit_json(lambda d: put(
        sampler(d), input=d.add([1, 1], 5126, "SCALAR"))), "animations[0].samplers[0].input"),
    ("NaN in sampler input", edit_json(lambda d: put(
        sampler(d), input=d.add([0, np.nan], 5126, "SCALAR"))), "animations[0].samplers[0].input"),
    ("CUBICSPLINE output count", edit_json(lambda d: put(sampler(d), interpolation="CUBICSPLINE")),
     "animations[0].samplers[0].output"),
    ("unknown interpolation", edit_json(lambda d: put(sampler(d), interpolation="SMOOTH")),
     "animations[0].samplers[0].interpolation"),
    ("rotation output not VEC4", edit_json(lambda d: put(sampler(d), output=POS)),
     "animations[0].samplers[0].output"),
]


@pytest.mark.parametrize("build, where", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_input_raises_gltf_error(tmp_path, build, where):
    path = build(tmp_path)
    with pytest.raises(GltfError, match=helpers.in_file(path, re.escape(where))):
        load_gltf(path)


def huge_sparse(d):
    put(d.json["accessors"][POS], count=2**31,
        sparse=d.sparse([0, 1], 5121, [[0, 0, 1]] * 2, 5126))


HUGE_COUNTS = [
    ("POSITION count 2**31", lambda d: put(d.json["accessors"][POS], count=2**31)),
    ("POSITION count 2**62", lambda d: put(d.json["accessors"][POS], count=2**62)),
    ("unbacked count 2**31", unbacked_position),
    ("unbacked sparse count 2**31", lambda d: (unbacked_position(d), put(
        d.json["accessors"][-1], sparse=d.sparse([0, 1], 5121, [[0, 0, 1]] * 2, 5126)))),
    ("sparse over count 2**31", huge_sparse),
    ("sparse count 2**31", lambda d: put(d.json["accessors"][POS], sparse={
        **d.sparse([0, 1], 5121, [[0, 0, 1]] * 2, 5126), "count": 2**31})),
    ("buffer byteLength 2**40", lambda d: put(d.json["buffers"][0], byteLength=2**40)),
    ("bufferView byteLength 2**40", lambda d: put(d.json["bufferViews"][0], byteLength=2**40)),
    ("IBM count 2**31", lambda d: put(d.json["accessors"][IBM], count=2**31)),
    ("sampler input count 2**31", lambda d: put(d.json["accessors"][TIMES], count=2**31)),
    ("indices count 2**31", lambda d: put(d.json["accessors"][INDICES], count=2**31)),
]


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux peak RSS reset")
@pytest.mark.parametrize("change", [c[1] for c in HUGE_COUNTS], ids=[c[0] for c in HUGE_COUNTS])
def test_huge_declared_counts_fail_fast_in_bounded_memory(tmp_path, change):
    """A file of a few kB that declares 2**31 elements (or a 2**40-byte buffer) is refused with
    GltfError within a second, and the peak RSS stays within 16 MiB: memory is bounded by the
    file's size, not by what it declares."""
    import time
    path = edit_json(change)(tmp_path)
    assert path.stat().st_size < 8192

    def load():
        start = time.perf_counter()
        with pytest.raises(GltfError):
            load_gltf(path)
        assert time.perf_counter() - start < 1.0
    assert helpers.peak_rss_growth(load) < 16 * 2**20
