"""Work without a bound (issue 31): requests whose size nothing in a file bounds (a viewer page
of a 10^6 s clip or of 10^5 frames, a character bake of a 10^6 s clip or at 10^9 fps, a
retarget of 10^6 keys onto 62 joints, a mesh of 70,000 morph targets) are refused up front,
naming the size and the limit of ``skinkit.limits``, before any frame is posed."""
import re
import time

import numpy as np
import pytest
from gltf_doc import Doc

import skinkit as sk
from skinkit import limits
from skinkit.dataset.sources import Characters

FLOAT, SCALAR, VEC3, VEC4 = 5126, "SCALAR", "VEC3", "VEC4"


def chain_with_clip(path, joints=1, keys=2, duration=1.0, mesh=True):
    """A glTF of a chain of ``joints`` nodes (the first with a one-triangle mesh) and one clip
    rotating the last node over ``keys`` keys from 0 to ``duration`` seconds."""
    doc = Doc()
    j = doc.json
    j["nodes"] = [{"name": f"j{i}", "translation": [0, 0.1, 0], **(
        {"children": [i + 1]} if i + 1 < joints else {})} for i in range(joints)]
    if mesh:
        tri = doc.add(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), FLOAT, VEC3,
                      min=[0, 0, 0], max=[1, 1, 0])
        j["meshes"] = [{"primitives": [{"attributes": {"POSITION": tri}}]}]
        j["nodes"][0]["mesh"] = 0
    t = np.linspace(0.0, duration, keys).astype(np.float32)
    q = np.tile(np.float32([0, 0, 0, 1]), (keys, 1))
    inp = doc.add(t, FLOAT, SCALAR, min=[0.0], max=[float(t[-1])])
    out = doc.add(q, FLOAT, VEC4)
    j["animations"] = [{"name": "clip", "samplers": [{"input": inp, "output": out}],
                        "channels": [{"sampler": 0, "target": {"node": joints - 1,
                                                               "path": "rotation"}}]}]
    j["scenes"], j["scene"] = [{"nodes": [0]}], 0
    return doc.write(path)


def refused_fast(call, pattern):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=pattern):
        call()
    assert time.perf_counter() - t0 < 5.0


@pytest.fixture
def long_clip(tmp_path):
    return sk.load_gltf(chain_with_clip(tmp_path / "long.glb", duration=1e6))


def test_a_view_of_a_clip_of_a_million_seconds_is_refused(long_clip):
    refused_fast(lambda: sk.view(long_clip, clip=0),
                 r"view: 30000001 frames \(clip 'clip' of 1e\+06 s at 30 fps\), more than the "
                 r"limit of 8192 \(skinkit.limits.MAX_VIEW_FRAMES\)")


def test_a_view_of_a_hundred_thousand_frames_is_refused(long_clip):
    refused_fast(lambda: sk.view(long_clip, clip=0, times=np.linspace(0, 1, 10**5)),
                 r"view: 100000 frames \(times\), more than the limit of 8192")
    body = sk.data.body_model(num_vertices=50)
    refused_fast(lambda: sk.apps.viewer.view_body(body, pose=np.zeros((10**4, body.num_joints,
                                                                         3))),
                 r"view: 10000 frames \(pose\), more than the limit of 8192")


def test_a_character_clip_of_a_million_seconds_is_its_sequence_failed(tmp_path):
    """Read by the bake's workers before the store is laid out: the too-long clip is that
    file's failed sequence (30,000,001 frames at 30 fps, past MAX_FRAMES), not a bake that runs
    for hours; a short one of another file is fine."""
    bad = chain_with_clip(tmp_path / "long.glb", duration=1e6)
    good = chain_with_clip(tmp_path / "short.glb", duration=1.0)
    source = Characters(None, ("all",))
    [seq] = source.read(str(bad))
    assert seq.count == 0 and re.search(
        rf"{re.escape(str(bad))}: clip 'clip': 30000001 frames \(1e\+06 s at 30 fps\), more "
        r"than the limit of 1048576 \(skinkit.limits.MAX_FRAMES\)", seq.error), seq.error
    [ok] = source.read(str(good))
    assert ok.error is None and ok.count == 31


@pytest.mark.parametrize("fps", [1e9, 10001.0])
def test_a_bake_at_a_billion_fps_is_refused_before_its_cluster(tmp_path, fps):
    char = chain_with_clip(tmp_path / "c.glb")
    refused_fast(lambda: sk.dataset.bake([str(char)], str(tmp_path / "s.zarr"), clips="all",
                                         fps=fps, workers=1),
                 rf"fps must be in \(0, 10000\] frames per second \(skinkit.limits.MAX_FPS\), "
                 rf"got {fps}")
    assert not (tmp_path / "s.zarr").exists()


def test_a_retarget_of_a_million_keys_onto_62_joints_is_refused(tmp_path):
    source = sk.load_gltf(chain_with_clip(tmp_path / "keys.glb", joints=62, keys=10**6,
                                          duration=100.0))
    refused_fast(lambda: sk.retarget(source, source, mapping={n: n for n in
                                                              source.skeleton.names}),
                 r"retarget: 62000000 joint samples \(1000000 frames of 62 joints\), more than "
                 r"the limit of 16777216 \(skinkit.limits.MAX_SAMPLES\); give times=")


def test_a_mesh_of_more_morph_targets_than_the_limit_is_refused(tmp_path):
    doc = Doc()
    tri = doc.add(np.eye(3, dtype=np.float32), FLOAT, VEC3, min=[0, 0, 0], max=[1, 1, 1])
    n = limits.MAX_MORPH_TARGETS + 1
    doc.json.update(meshes=[{"primitives": [{"attributes": {"POSITION": tri},
                                             "targets": [{"POSITION": tri}] * n}]}],
                    nodes=[{"mesh": 0}], scenes=[{"nodes": [0]}], scene=0)
    path = doc.write(tmp_path / "morphs.glb")
    t0 = time.perf_counter()
    with pytest.raises(sk.GltfError, match=rf"meshes\[0\].primitives\[0\].targets: {n} morph "
                                           rf"targets, more than the limit of {n - 1} "
                                           r"\(skinkit.limits.MAX_MORPH_TARGETS\)"):
        sk.load_gltf(path)
    assert time.perf_counter() - t0 < 5.0
