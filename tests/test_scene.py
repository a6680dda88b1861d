"""The whole glTF scene: every mesh primitive instance (skinned or rigid), morph targets and
their animated weights, against a plain NumPy evaluation of the glTF definitions at key times
(tests/gltf_scene_reference.py, no skinkit), on every shared fixture (and Khronos sample models
of ../shared/corpus also midway between keys, where the reference interpolates), on small documents
built here for the sparse, quantized, instanced and CUBICSPLINE-weights cases; blend_shapes and
weights sampling against NumPy references; hostile morph-target files."""
import json
import re

import numpy as np
import pytest

import helpers
import reference as ref
from cli_run import run
from conftest import GLTF, shared_files
from gltf_doc import Doc, edited, put
from gltf_scene_reference import Document, evaluate, key_times_and_midpoints, scene_times
import skinkit
from skinkit import Channel, Clip, GltfError, blend_shapes, load_gltf

MODEL_FILES = [p.name for p in shared_files(GLTF, "*.gl*")]
# Khronos sample models as published (../shared/corpus/khronos-models.tar.gz, the `khronos`
# fixture): glTF-Sample-Assets/Models/<name>/<variant>/<name>.<ext>
KHRONOS_FILES = [f"{name}/{variant}/{name}.{'glb' if variant == 'glTF-Binary' else 'gltf'}"
                 for name, variant in [("AnimatedTriangle", "glTF-Embedded"),
                                       ("BoxAnimated", "glTF-Embedded"),
                                       ("RiggedSimple", "glTF-Embedded"),
                                       ("SimpleMorph", "glTF-Embedded"),
                                       ("InterpolationTest", "glTF-Binary"),
                                       ("AnimatedMorphCube", "glTF-Binary"),
                                       ("MorphStressTest", "glTF-Binary")]]
ROBOT = GLTF / "RobotExpressive.glb"
TIMES_PER_CLIP = 6


def pick(times, n=TIMES_PER_CLIP):
    """At most n of the times, spread over them, both ends included."""
    return [times[i] for i in sorted(set(np.linspace(0, len(times) - 1, n).round().astype(int)))]


def compare_with_reference(path, dtype=np.float64, scene=None,
                           times_of=lambda doc, a: pick(scene_times(doc, a))):
    """Worst position error / extent and worst normal error of skinkit against the reference,
    over the rest pose and every clip at ``times_of(doc, animation)`` (by default some of the
    times all its channels have a key at); asserts every instance is there."""
    doc = Document(path)
    model = load_gltf(path, dtype=dtype, scene=scene)
    worst_p = worst_n = 0.0
    jobs = [(None, [0.0])] + [(a, times_of(doc, a))
                              for a in range(len(doc.json.get("animations", [])))]
    for animation, times in jobs:
        posed = model.pose(animation, times, normals=True)
        for i, t in enumerate(times):
            expected = evaluate(doc, animation, t, scene)
            assert sorted(expected) == sorted(posed.positions), (animation, t)
            extent = max(np.ptp(p, axis=0).max() for p, _ in expected.values())
            for key, (p, n) in expected.items():
                worst_p = max(worst_p, np.abs(posed.positions[key][i] - p).max() / extent)
                if n is not None:
                    worst_n = max(worst_n, np.abs(posed.normals[key][i] - n).max())
    return worst_p, worst_n


@pytest.mark.shared
@pytest.mark.parametrize("name", MODEL_FILES)
def test_fixture_scene_matches_reference(name):
    worst_p, worst_n = compare_with_reference(GLTF / name)
    assert worst_p <= 2e-5, worst_p
    assert worst_n <= 1e-4, worst_n


@pytest.mark.shared
@pytest.mark.parametrize("name", ["RobotExpressive.glb", "RiggedSimple-morph.glb"])
def test_fixture_scene_matches_reference_float32(name):
    worst_p, worst_n = compare_with_reference(GLTF / name, np.float32)
    assert worst_p <= 2e-5, worst_p
    assert worst_n <= 1e-3, worst_n


@pytest.mark.shared
@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-9), (np.float32, 2e-6)],
                         ids=["float64", "float32"])
@pytest.mark.parametrize("name", KHRONOS_FILES)
def test_khronos_sample_matches_reference_between_keys(khronos, name, dtype, tolerance):
    """Khronos sample models as published (embedded buffers, GLB): the rest pose and every clip at
    every key time of every channel and midway between neighbouring ones, where the reference
    interpolates (slerp of normalized keys: AnimatedTriangle's keys have |q| = 0.99985)."""
    path = khronos / "glTF-Sample-Assets" / "Models" / name
    worst_p, worst_n = compare_with_reference(path, dtype,
                                              times_of=key_times_and_midpoints)
    assert worst_p <= tolerance, worst_p
    assert worst_n <= 10 * tolerance, worst_n


@pytest.mark.shared
def test_robot_poses_completely_for_every_clip():
    """All 19 meshes (15 rigid under joints, 3 of them with morph targets, 4 skinned hands) for
    every clip, and the morph weights channels become channels, not `unsupported`."""
    model = load_gltf(ROBOT)
    assert len(model.primitives) == 19 and sum(p.skinned for p in model.primitives) == 4
    heads = [p for p in model.primitives if p.target_count]
    assert [(p.node, p.target_names) for p in heads] == [
        (n, ["Angry", "Surprised", "Sad"]) for n in (6, 7, 8)]
    for clip in model.clips:
        assert not clip.unsupported and sorted(clip.weights_nodes) == [6, 7, 8]
        posed = model.pose(clip, [0.0, clip.duration / 2])
        assert len(posed) == 19 and all(np.isfinite(v).all() for v in posed.values())


@pytest.mark.shared
def test_morph_fixture_weights_move_the_mesh():
    """RiggedSimple-morph: the animated weights are not all zero and change the pose."""
    model = load_gltf(GLTF / "RiggedSimple-morph.glb")
    [prim] = model.primitives
    assert prim.target_names == ["Bulge", "Shear"] and prim.morph_weights.tolist() == [0.25, 0]
    clip = model.clips[0]
    times = np.linspace(0, clip.duration, 7)
    weights = clip.sample_weights(times)[prim.node]
    assert weights.shape == (7, 2) and np.ptp(weights) > 0.1
    plain = model.pose(clip, times)[prim.key]
    prim.morph_weights = None                     # drop the morph targets: another pose
    model.clips[0] = Clip(clip.name, [c for c in clip.channels if c.path != "weights"])
    assert np.abs(model.pose(0, times)[prim.key] - plain).max() > 1e-3


# --- small documents: sparse, quantized, instanced, CUBICSPLINE weights -----------------------

def scene_document(weights_interpolation="CUBICSPLINE"):
    """Nodes: 0 root (animated rotation) -> 1 (mesh 0, mirrored non-uniform scale, node.weights)
    and -> 4 (joint, animated translation); 2 (mesh 0 again: a second instance, animated
    weights); 3 (mesh 1, skinned to joints 0 and 4, STEP weights); 5 in scene 1 only (mesh 1
    rigid).  Mesh 0 has two primitives with two morph targets each: float positions with one
    sparse target, and a KHR_mesh_quantization primitive (SHORT positions, normalized BYTE
    normals and deltas)."""
    rng = np.random.default_rng(11)
    d = Doc()
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.5], [0.2, 0.3, 1], [1, 0, 1]])
    nrm = rng.normal(size=(6, 3))
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    faces = d.add([0, 1, 2, 1, 3, 2, 3, 4, 5], 5123, "SCALAR")
    p0 = {"attributes": {"POSITION": d.add(tri, 5126, "VEC3"),
                         "NORMAL": d.add(nrm, 5126, "VEC3")},
          "indices": faces,
          "targets": [{"POSITION": d.accessor(5126, "VEC3", 6, sparse=d.sparse(
                          [1, 4], 5121, [[0.5, 0, 0], [0, -1, 0.25]], 5126))},
                      {"POSITION": d.add(rng.normal(size=(6, 3)) * 0.3, 5126, "VEC3"),
                       "NORMAL": d.add(rng.normal(size=(6, 3)) * 0.2, 5126, "VEC3")}]}
    q_pos = np.zeros((6, 4), np.int16)
    q_pos[:, :3] = (tri * 100).astype(np.int16)
    q_nrm = np.zeros((6, 4), np.int8)
    q_nrm[:, :3] = np.round(nrm * 127).astype(np.int8)
    p1 = {"attributes": {"POSITION": d.accessor(5122, "VEC3", 6, d.view(q_pos.tobytes(), 8)),
                         "NORMAL": d.accessor(5120, "VEC3", 6, d.view(q_nrm.tobytes(), 4),
                                              normalized=True)},
          "targets": [{"POSITION": d.accessor(
                          5120, "VEC3", 6, d.view(np.pad(rng.integers(-127, 128, (6, 3)),
                                                         ((0, 0), (0, 1))).astype(np.int8)
                                                  .tobytes(), 4), normalized=True),
                       "NORMAL": d.accessor(
                          5120, "VEC3", 6, d.view(np.pad(rng.integers(-40, 40, (6, 3)),
                                                         ((0, 0), (0, 1))).astype(np.int8)
                                                  .tobytes(), 4), normalized=True)},
                      {"POSITION": d.accessor(
                          5122, "VEC3", 6, d.view(np.pad(rng.integers(-30, 30, (6, 3)),
                                                         ((0, 0), (0, 1))).astype(np.int16)
                                                  .tobytes(), 8))}]}
    ibm = np.tile(np.eye(4), (2, 1, 1))
    ibm[1, :3, 3] = [0, -1, 0]
    p2 = {"attributes": {"POSITION": d.add(tri + [0, 0.5, 0], 5126, "VEC3"),
                         "NORMAL": d.add(nrm, 5126, "VEC3"),
                         "JOINTS_0": d.add([[0, 1, 0, 0]] * 6, 5121, "VEC4"),
                         "WEIGHTS_0": d.add(np.array([[1, 0, 0, 0], [0.5, 0.5, 0, 0],
                                                      [0, 1, 0, 0]] * 2), 5126, "VEC4")},
          "indices": faces,
          "targets": [{"POSITION": d.add(rng.normal(size=(6, 3)) * 0.2, 5126, "VEC3")}]}
    keys = np.array([0.0, 0.5, 1.25])
    times = d.add(keys, 5126, "SCALAR")
    per_key = 3 if weights_interpolation == "CUBICSPLINE" else 1
    samplers = [
        {"input": times, "output": d.add(helpers.random_quats(rng, (3,)), 5126, "VEC4")},
        {"input": times, "output": d.add(rng.normal(size=(3, 3)), 5126, "VEC3")},
        {"input": times, "output": d.add(rng.normal(size=3 * per_key * 2), 5126, "SCALAR"),
         "interpolation": weights_interpolation},
        {"input": times, "output": d.add(rng.random(3), 5126, "SCALAR"),
         "interpolation": "STEP"}]
    channels = [(0, "rotation"), (4, "translation"), (2, "weights"), (3, "weights")]
    d.json.update(
        extensionsUsed=["KHR_mesh_quantization"], extensionsRequired=["KHR_mesh_quantization"],
        scene=0, scenes=[{"nodes": [0, 2, 3]}, {"nodes": [5]}],
        nodes=[{"children": [1, 4], "translation": [0.5, 0, 0]},
               {"mesh": 0, "weights": [0.5, -0.25], "scale": [-1, 2, 0.5],
                "rotation": [0, 0.6, 0, 0.8], "translation": [0, 1, 0]},
               {"mesh": 0, "translation": [3, 0, 0]},
               {"mesh": 1, "skin": 0, "translation": [100, 100, 100]},
               {"translation": [0, 1, 0]},
               {"mesh": 1, "scale": [2, 2, 2]}],
        meshes=[{"primitives": [p0, p1], "weights": [0.1, 0.2],
                 "extras": {"targetNames": ["a", "b"]}},
                {"primitives": [p2], "weights": [0.3]}],
        skins=[{"joints": [0, 4], "inverseBindMatrices": d.add(
            ibm.transpose(0, 2, 1).reshape(2, 16), 5126, "MAT4")}],
        animations=[{"samplers": samplers, "channels": [
            {"sampler": i, "target": {"node": n, "path": p}}
            for i, (n, p) in enumerate(channels)]}])
    return d


@pytest.mark.parametrize("interpolation", ["CUBICSPLINE", "LINEAR", "STEP"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_small_scene_matches_reference(tmp_path, interpolation, dtype):
    path = scene_document(interpolation).write(tmp_path / "scene.glb")
    model = load_gltf(path, dtype=dtype)
    assert [(p.key, p.skinned, p.target_count) for p in model.primitives] == [
        ("1_0", False, 2), ("1_1", False, 2), ("2_0", False, 2), ("2_1", False, 2),
        ("3_0", True, 1)]
    assert model.primitives[0].positions is model.primitives[2].positions   # instances share
    assert model.primitives[0].morph_weights.tolist() == [0.5, -0.25]
    assert model.primitives[2].morph_weights.tolist() == pytest.approx([0.1, 0.2])
    worst_p, worst_n = compare_with_reference(path, dtype)
    assert worst_p <= (2e-5 if dtype == np.float64 else 2e-5), worst_p
    assert worst_n <= (1e-9 if dtype == np.float64 else 1e-4), worst_n


def test_small_scene_other_scene(tmp_path, capsys):
    path = scene_document().write(tmp_path / "scene.glb")
    model = load_gltf(path, scene=1)
    assert [(p.key, p.skinned) for p in model.primitives] == [("5_0", False)]
    worst_p, _ = compare_with_reference(path, scene=1)
    assert worst_p <= 2e-5
    code, _, err = run(["pose", str(path), "--scene", "1", "--out", str(tmp_path / "s.npz")],
                       capsys)
    assert code == 0, err
    with np.load(tmp_path / "s.npz") as z:
        assert sorted(z) == ["positions_5_0", "times"]
    with pytest.raises(GltfError, match=helpers.in_file(path, r"scenes\[2\]")):
        load_gltf(path, scene=2)


# --- blend_shapes and weights sampling against NumPy references ------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [(), (5,), (2, 3)])
def test_blend_shapes_reference(dtype, batch):
    rng = np.random.default_rng(len(batch))
    base = rng.normal(size=(7, 3)).astype(dtype)
    deltas = rng.normal(size=(4, 7, 3)).astype(dtype)
    weights = rng.normal(size=batch + (4,)).astype(dtype)
    got = blend_shapes(base, deltas, weights)
    assert got.shape == batch + (7, 3) and got.dtype == dtype
    helpers.assert_close(got, ref.blend_shapes(base, deltas, weights), dtype)
    out = np.empty_like(got)
    assert blend_shapes(base, deltas, weights, out=out) is out
    np.testing.assert_array_equal(out, got)


def test_blend_shapes_errors():
    base, deltas = np.zeros((5, 3)), np.zeros((2, 5, 3))
    with pytest.raises(ValueError, match=r"deltas must have shape \(M, 5, 3\)"):
        blend_shapes(base, np.zeros((2, 4, 3)), np.zeros(2))
    with pytest.raises(ValueError, match=r"weights must have shape \(\.\.\., 2\)"):
        blend_shapes(base, deltas, np.zeros(3))
    with pytest.raises(ValueError, match=r"base must have shape \(V, C\)"):
        blend_shapes(np.zeros(5), deltas, np.zeros(2))
    with pytest.raises(TypeError, match="weights must be a real number array"):
        blend_shapes(base, deltas, np.array(["a", "b"]))
    with pytest.raises(TypeError, match="out must be a float64"):
        blend_shapes(base, deltas, np.zeros(2), out=np.zeros((5, 3), np.float32))
    with pytest.raises(ValueError, match=r"out must have shape \(5, 3\)"):
        blend_shapes(base, deltas, np.zeros(2), out=np.zeros((4, 3)))
    assert blend_shapes(base, np.zeros((0, 5, 3)), np.zeros((3, 0))).shape == (3, 5, 3)


@pytest.mark.parametrize("interpolation", ["STEP", "LINEAR", "CUBICSPLINE"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weights_sampling_reference(interpolation, dtype):
    """Clip.sample_weights (the C sampler) against the Appendix C reference, between keys
    too: plain lerp (no normalisation) for LINEAR, the Hermite spline for CUBICSPLINE."""
    rng = np.random.default_rng(3)
    keys = np.array([0.1, 0.4, 0.5, 1.2, 2.0])
    per_key = 3 if interpolation == "CUBICSPLINE" else 1
    channels = [Channel(2, "weights", keys, rng.normal(size=(per_key * 5, m)), interpolation)
                for m in (1, 3)] + [Channel(0, "rotation", keys, np.tile([0, 0, 0, 1.0], (5, 1)))]
    channels[1].node = 5
    clip = Clip("w", channels, dtype=dtype)
    times = np.concatenate([[-1.0, 3.0], keys, rng.uniform(0, 2.1, 35)])
    got = clip.sample_weights(times)
    assert sorted(got) == [2, 5]
    for ch in channels[:2]:
        expected = np.array([ref.sample_channel(ch.times, ch.values, interpolation, t, False)
                             for t in times.astype(dtype)])
        assert got[ch.node].shape == (len(times), ch.values.shape[1])
        assert got[ch.node].dtype == dtype
        helpers.assert_close(got[ch.node], expected, dtype, scale=4)
    wrapped = clip.sample_weights(times.reshape(6, 7) + 2.0, loop=True)[5]
    assert wrapped.shape == (6, 7, 3)
    np.testing.assert_allclose(wrapped.reshape(-1, 3),
                               clip.sample_weights(np.mod(times + 2.0, 2.0))[5], atol=1e-5)


# --- hostile morph target files --------------------------------------------------------------

def hostile(change):
    """A .glb of scene_document() after ``change(doc)``."""
    return edited(scene_document, change)


def targets(d, mesh=0, prim=0):
    return d.json["meshes"][mesh]["primitives"][prim]["targets"]


def bad_target_accessor(what, attribute, shape, component_type, kind):
    """A row of HOSTILE: ``attribute`` of the second morph target of mesh 0's first primitive
    becomes an accessor of zeros (``shape``, ``component_type``, ``kind``) of ``what``."""
    def change(d):
        put(targets(d)[1], **{attribute: d.add(np.zeros(shape), component_type, kind)})
    return (f"target accessor of {what}", hostile(change),
            f"meshes[0].primitives[0].targets[1].{attribute}")


HOSTILE = [
    ("target counts differ between primitives", hostile(lambda d: targets(d, 0, 1).pop()),
     "meshes[0].primitives[1].targets"),
    ("weights output not a multiple of N", hostile(lambda d: put(
        d.json["animations"][0]["samplers"][3], output=d.add([0.1] * 4, 5126, "SCALAR"))),
     "animations[0].samplers[3].output"),
    bad_target_accessor("the wrong count", "POSITION", (5, 3), 5126, "VEC3"),
    bad_target_accessor("the wrong type", "NORMAL", (6, 2), 5126, "VEC2"),
    bad_target_accessor("a wrong component type", "POSITION", (6, 3), 5125, "VEC3"),
    ("weights channel on a node without a mesh", hostile(lambda d: put(
        d.json["animations"][0]["channels"][3]["target"], node=4)),
     "animations[0].channels[3].target"),
    ("node.weights of the wrong length", hostile(lambda d: put(d.json["nodes"][1], weights=[1])),
     "nodes[1].weights"),
    ("mesh.weights of the wrong length", hostile(lambda d: put(d.json["meshes"][1],
                                                               weights=[1, 2])),
     "meshes[1].weights"),
    ("targetNames of the wrong length", hostile(lambda d: put(d.json["meshes"][0],
                                                              extras={"targetNames": ["a"]})),
     "meshes[0].extras.targetNames"),
    ("skinned node, primitive without JOINTS_0", hostile(lambda d: [
        d.json["meshes"][1]["primitives"][0]["attributes"].pop(k)
        for k in ("JOINTS_0", "WEIGHTS_0")]), "meshes[1].primitives[0].attributes"),
    ("empty morph target", hostile(lambda d: (targets(d, 1).append({}),
                                              put(d.json["meshes"][1], weights=[0, 0]),
                                              put(d.json["animations"][0], channels=[]))),
     "meshes[1].primitives[0].targets[1]"),
    ("scene root with a parent", hostile(lambda d: put(d.json["scenes"][0], nodes=[1])),
     "scenes[0].nodes"),
    ("unknown required extension", hostile(lambda d: d.json["extensionsRequired"].append(
        "EXT_unheard_of")), "extensionsRequired[1]"),
]


@pytest.mark.parametrize("build, where", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_morph_targets_raise_gltf_error(tmp_path, build, where):
    path = build(tmp_path)
    with pytest.raises(GltfError, match=helpers.in_file(path, re.escape(where))):
        load_gltf(path)


def test_morph_targets_far_larger_than_the_file(tmp_path, monkeypatch):
    """Many targets reusing one accessor would expand a few bytes into M x V x 3 floats: past
    the limit (64 times the file's bytes and a floor, both lowered here to keep the file small:
    a target of this 6-vertex mesh costs more JSON than 1/64 of its deltas) the file is refused
    before anything is allocated."""
    from skinkit import limits

    monkeypatch.setattr(limits, "DECODED_FLOOR", 0)
    monkeypatch.setattr(limits, "EXPANSION", 1)
    m = 100
    while True:
        d = scene_document()
        put(d.json["meshes"][1], weights=[0.0] * m)
        targets(d, 1).extend([targets(d, 1)[0]] * (m - 1))
        d.json["animations"][0]["channels"].pop()          # the STEP weights channel of node 3
        path = d.write(tmp_path / "big.glb")
        if m * 6 * 3 * 8 > path.stat().st_size + len(d.bin):
            break
        m *= 2
    with pytest.raises(GltfError, match=helpers.in_file(
            path, rf"meshes\[1\]\.primitives\[0\]\.targets: {m} morph target POSITIONs of 6 "
                  r"vertices take \d+ bytes, .* passes the limit of \d+ bytes")):
        load_gltf(path)
    monkeypatch.setattr(limits, "EXPANSION", 10**9)
    assert load_gltf(path).primitives[-1].target_count == m


def test_unknown_required_extension_is_named(tmp_path):
    with pytest.raises(GltfError, match="'EXT_unheard_of' is not supported"):
        load_gltf(hostile(lambda d: d.json["extensionsRequired"].append("EXT_unheard_of"))(
            tmp_path))


def test_unknown_optional_extension_is_ignored(tmp_path):
    def change(d):
        d.json["extensionsUsed"].append("EXT_unheard_of")
        d.json["meshes"][0]["primitives"][0]["extensions"] = {"EXT_unheard_of": {"x": 1}}
    assert len(load_gltf(hostile(change)(tmp_path)).primitives) == 5


# --- the command ------------------------------------------------------------------------------

@pytest.mark.shared
def test_cli_robot_writes_every_instance(tmp_path, capsys):
    out = tmp_path / "wave.npz"
    code, _, err = run(["pose", str(ROBOT), "--clip", "Wave", "--normals", "--out", str(out)],
                       capsys)
    assert code == 0, err
    assert "19 mesh primitives (4 skinned, 7214 vertices)" in err
    model = load_gltf(ROBOT)
    posed = model.pose("Wave", skinkit.frame_times(model.clip("Wave")), normals=True)
    with np.load(out) as z:
        assert sorted(z) == sorted(["times", *posed.arrays()])
        for name, a in posed.arrays().items():
            np.testing.assert_array_equal(z[name], a)


@pytest.mark.shared
def test_cli_info_lists_meshes(capsys):
    code, out, err = run(["info", str(ROBOT)], capsys)
    assert code == 0, err
    assert "meshes: 19 (19 primitive instances, 4 skinned)" in out
    assert re.search(r"mesh 3: 1 instance \(node 6\), 3 morph targets \(Angry, Surprised, Sad\), "
                     r"weights animated by Dance, Death, .*Yes\n", out)
    assert "76_0: node 76, primitive 0, skinned (skin 0, 4 influences per vertex), 256 vertices" \
        in out
    assert "0_0: node 0, primitive 0, rigid, 64 vertices" in out
    assert "unsupported" not in out


@pytest.mark.shared
def test_frames_hold_every_instance(tmp_path, capsys):
    trimesh = pytest.importorskip("trimesh")
    code, _, err = run(["pose", str(ROBOT), "--clip", "Wave", "--times", "0.5",
                        "--out", f"{tmp_path}/f/"], capsys)
    assert code == 0, err
    mesh = trimesh.load(str(tmp_path / "f" / "frame_0000.ply"), process=False)
    model = load_gltf(ROBOT)
    posed = model.pose("Wave", [0.5])
    np.testing.assert_allclose(mesh.vertices, np.concatenate(
        [posed[p.key][0] for p in model.primitives]), atol=1e-5)
    assert len(mesh.faces) == sum(len(p.faces) for p in model.primitives)


@pytest.mark.shared
def test_pose_record_is_stable():
    """One record type whatever the flags: PosedMeshes, positions always, normals on demand."""
    model = load_gltf(GLTF / "Fox.glb")          # Fox has no normals
    plain, with_normals = model.pose(0, [0.1]), model.pose(0, [0.1], normals=True)
    assert type(plain) is type(with_normals) is skinkit.PosedMeshes
    assert plain.normals == {} and with_normals.normals == {}
    assert list(plain) == list(with_normals.positions) == [p.key for p in model.primitives]
    assert json.dumps(sorted(plain.arrays())) == json.dumps(
        sorted(f"positions_{p.key}" for p in model.primitives))


# --- KHR_draco_mesh_compression (DracoPy, the [draco] extra) and EXT_meshopt_compression -------

def draco_pair(tmp_path, required=True, fallback=False):
    """The same skinned mesh as a plain .glb and as a Draco-compressed one (lossless: no
    quantization, vertex order preserved); with ``fallback`` the compressed file's accessors
    also hold the uncompressed data."""
    rng = np.random.default_rng(5)
    positions = rng.normal(size=(9, 3)).astype(np.float32)
    normals = rng.normal(size=(9, 3))
    normals = (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32)
    joints = rng.integers(0, 2, (9, 4)).astype(np.uint8)
    weights = rng.random((9, 4)).astype(np.float32)
    faces = np.arange(9).reshape(3, 3)
    keys = helpers.random_quats(rng, (2,))
    paths = []
    for compressed in (False, True):
        d = Doc()
        arrays = [(positions, 5126, "VEC3"), (normals, 5126, "VEC3"), (joints, 5121, "VEC4"),
                  (weights, 5126, "VEC4"), (faces.reshape(-1), 5123, "SCALAR")]
        for a, ctype, kind in arrays:
            if compressed and not fallback:
                d.accessor(ctype, kind, len(a))
            else:
                d.add(a, ctype, kind)
        prim = {"attributes": {"POSITION": 0, "NORMAL": 1, "JOINTS_0": 2, "WEIGHTS_0": 3},
                "indices": 4}
        if compressed:
            draco = pytest.importorskip("DracoPy")
            data = draco.encode(positions, faces, quantization_bits=0, preserve_order=True,
                                normals=normals.astype(np.float64),
                                generic_attributes={10: joints, 11: weights})
            mesh = draco.decode(data)
            ids = {a["attribute_type"]: a["unique_id"] for a in mesh.attributes
                   if a["attribute_type"] in (0, 1)}
            generic = {a["data"].dtype == np.uint8: a["unique_id"]   # True: joints
                       for a in mesh.attributes if a["attribute_type"] == 4}
            prim["extensions"] = {"KHR_draco_mesh_compression": {
                "bufferView": d.view(data),
                "attributes": {"POSITION": ids[0], "NORMAL": ids[1], "JOINTS_0": generic[True],
                               "WEIGHTS_0": generic[False]}}}
            d.json["extensionsUsed"] = ["KHR_draco_mesh_compression"]
            if required:
                d.json["extensionsRequired"] = ["KHR_draco_mesh_compression"]
        d.add([0.0, 1.0], 5126, "SCALAR")
        d.add(keys, 5126, "VEC4")
        d.json.update(nodes=[{"mesh": 0, "skin": 0}, {"children": [2]}, {}],
                      meshes=[{"primitives": [prim]}], skins=[{"joints": [1, 2]}],
                      animations=[{"samplers": [{"input": 5, "output": 6}], "channels": [
                          {"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}])
        paths.append(d.write(tmp_path / f"{'draco' if compressed else 'plain'}.glb"))
    return paths


def test_draco_primitive_equals_plain(tmp_path):
    plain_path, draco_path = draco_pair(tmp_path)
    plain, draco = load_gltf(plain_path), load_gltf(draco_path)
    [p], [q] = plain.primitives, draco.primitives
    for field in ("positions", "normals", "joints", "weights", "faces"):
        np.testing.assert_array_equal(getattr(q, field), getattr(p, field), err_msg=field)
    times = [0.0, 0.3, 1.0]
    np.testing.assert_array_equal(draco.pose(0, times)[q.key], plain.pose(0, times)[p.key])


def test_draco_without_the_extra(tmp_path, monkeypatch):
    _, required = draco_pair(tmp_path)
    monkeypatch.setitem(__import__("sys").modules, "DracoPy", None)   # import fails
    with pytest.raises(GltfError, match=helpers.in_file(
            required, r"meshes\[0\]\.primitives\[0\]\.extensions\.KHR_draco_mesh_compression: "
                      r".*skinkit\[draco\]")):
        load_gltf(required)


def test_draco_used_not_required_without_the_extra(tmp_path, monkeypatch):
    """Only used, not required: without DracoPy the uncompressed fallback is read; a file that
    has no fallback (accessors without data) is refused, never read as zeros."""
    plain_path, _ = draco_pair(tmp_path, required=False)
    (tmp_path / "draco.glb").rename(tmp_path / "no_fallback.glb")
    _, with_fallback = draco_pair(tmp_path, required=False, fallback=True)
    decoded = load_gltf(with_fallback).primitives[0]             # with DracoPy: decoded
    monkeypatch.setitem(__import__("sys").modules, "DracoPy", None)
    with pytest.raises(GltfError, match=r"skinkit\[draco\]"):
        load_gltf(tmp_path / "no_fallback.glb")
    read = load_gltf(with_fallback).primitives[0]                # without: the fallback
    plain = load_gltf(plain_path).primitives[0]
    for field in ("positions", "normals", "joints", "weights", "faces"):
        np.testing.assert_array_equal(getattr(read, field), getattr(plain, field))
        np.testing.assert_array_equal(getattr(decoded, field), getattr(plain, field))


def test_meshopt_required_is_named(tmp_path):
    d = scene_document()
    d.json["extensionsRequired"].append("EXT_meshopt_compression")
    path = d.write(tmp_path / "m.glb")
    with pytest.raises(GltfError, match=helpers.in_file(path, r"extensionsRequired\[1\]: "
                                                        r"extension 'EXT_meshopt_compression' "
                                                        r"is not supported")):
        load_gltf(path)


@pytest.mark.shared
def test_weights_channel_width_must_match_the_mesh():
    """A hand-made clip whose weights channel has 2 weights for a 3-target head is refused."""
    model = load_gltf(ROBOT)
    bad = Clip("bad", [Channel(6, "weights", np.array([0.0, 1.0]), np.zeros((2, 2)))])
    with pytest.raises(ValueError, match="weights channel of node 6 has 2 weights, its mesh "
                                         "has 3 morph targets"):
        model.pose(bad, [0.5])


@pytest.mark.shared
def test_rigid_node_scaled_to_zero_stays_finite():
    """A rigid node scaled to zero: positions collapse to its origin, normals become zero
    (nothing to divide by), no NaN."""
    model = load_gltf(ROBOT)
    head = next(p for p in model.primitives if p.node == 6)
    flat = Clip("flat", [Channel(6, "scale", np.zeros(1), np.zeros((1, 3)))])
    posed = model.pose(flat, [0.0], normals=True)
    world = model.world_matrices(flat, [0.0])[0, 6]
    np.testing.assert_allclose(posed[head.key][0], np.broadcast_to(world[:3, 3], (302, 3)),
                               atol=1e-12)
    assert np.all(posed.normals[head.key] == 0)
