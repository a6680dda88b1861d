"""Writers given a primitive of 0 vertices or a clip without channels (a clip of no frames: a
channel holds at least one key) (issue 31, round 4): each writes a file that its reader reads
back as written, or refuses clearly, naming the primitive or the clip, writing nothing."""
import logging

import numpy as np
import pytest

import skinkit as sk
from skinkit.model.clip import Channel, Clip
from skinkit.model.model import Model
from skinkit.model.records import Primitive, Skeleton

SKELETON = Skeleton(["root", "child"], [-1, 0], np.array([[0.0, 0, 0], [0, 1, 0]]),
                    np.tile([0.0, 0, 0, 1], (2, 1)), np.ones((2, 3)))
EMPTY = Clip("empty", [], np.float64)
TURN = Clip("turn", [Channel(1, "rotation", np.array([0.0, 1.0]),
                             np.array([[0.0, 0, 0, 1], [0, np.sqrt(0.5), 0, np.sqrt(0.5)]]))],
            np.float64)


def primitive(vertices):
    faces = np.array([[0, 1, 2]]) if vertices >= 3 else np.zeros((0, 3), np.int32)
    return Primitive(node=1, mesh=0, index=0, skin=None,
                     positions=np.arange(3.0 * vertices).reshape(vertices, 3), faces=faces)


def model(vertices, clips):
    return Model(SKELETON, [], [primitive(vertices)], list(clips), name="m")


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_gltf_refuses_a_primitive_without_vertices(tmp_path, suffix):
    path = tmp_path / f"a{suffix}"
    with pytest.raises(ValueError, match=r"model.primitives\[0\] \('1_0'\) has no vertex; a "
                                         r"glTF accessor holds at least one"):
        sk.write_gltf(model(0, [TURN]), path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_gltf_leaves_out_a_clip_without_channels(tmp_path, suffix, caplog):
    path = tmp_path / f"a{suffix}"
    with caplog.at_level(logging.WARNING, logger="skinkit"):
        sk.write_gltf(model(3, [EMPTY, TURN]), path)
    assert [r.getMessage() for r in caplog.records] == [
        "clip 0 ('empty') has no channel; a glTF animation needs one, so it is left out"]
    back = sk.load_gltf(path)
    assert [c.name for c in back.clips] == ["turn"]
    np.testing.assert_allclose(back.clips[0].channels[0].values, TURN.channels[0].values,
                               atol=1e-7)
    np.testing.assert_allclose(back.primitives[0].positions, primitive(3).positions)
    sk.write_gltf(model(3, [EMPTY]), path)       # only an empty clip: no animation at all
    assert sk.load_gltf(path).clips == []


@pytest.mark.parametrize("vertices", [0, 3])
@pytest.mark.parametrize("clip", [EMPTY, TURN], ids=["empty clip", "clip"])
def test_usd_writes_them_and_reads_them_back(tmp_path, vertices, clip):
    pytest.importorskip("pxr", reason='pip install ".[usd]"')
    path = tmp_path / "a.usda"
    sk.write_usd(model(vertices, [clip]), path)
    back = sk.load_usd(path)
    assert [len(p.positions) for p in back.primitives] == [vertices]
    np.testing.assert_allclose(back.primitives[0].positions, primitive(vertices).positions)
    if clip is EMPTY:    # a stage without samples: no clip
        assert back.clips == []
    else:
        t, r, s = back.local_pose(back.clips[0], [1.0])
        np.testing.assert_allclose(np.abs(r[0, back.skeleton.names.index("child")]), np.abs(TURN.channels[0].values[1]),
                                   atol=1e-6)


def test_bvh_of_a_clip_without_channels_is_the_rest_pose(tmp_path):
    path = tmp_path / "a.bvh"
    sk.write_bvh(model(0, []), EMPTY, path)
    back = sk.load_bvh(path)
    assert back.skeleton.names[:2] == ["root", "child"]
    t, r, s = back.local_pose(back.clips[0], [0.0])
    np.testing.assert_allclose(r[0], np.tile([0.0, 0, 0, 1], (len(back.skeleton.names), 1)),
                               atol=1e-12)
    np.testing.assert_allclose(t[0, :2], SKELETON.translations, atol=1e-12)


def test_compressed_clip_without_channels_round_trips(tmp_path):
    path = tmp_path / "a.skc"
    sk.save_compressed(sk.compress(EMPTY, SKELETON), path)
    back = sk.load_compressed(path)
    assert back.name == "empty" and back.tracks == [] and back.duration == 0.0
    rest = (SKELETON.translations, SKELETON.rotations, SKELETON.scales)
    t, r, s = back.sample([0.0, 0.5], rest)
    assert t.shape == (2, 2, 3)
    np.testing.assert_array_equal(t, np.broadcast_to(SKELETON.translations, (2, 2, 3)))
    np.testing.assert_array_equal(r, np.broadcast_to(SKELETON.rotations, (2, 2, 4)))
