"""The pose request (skinkit.model.request), the stages' TRS, and posing block by block
(Model.pose_blocks, BodyModel.pose_blocks): the same bytes as one pose() call, memory that does
not grow with the clip."""
import dataclasses
import logging
import tracemalloc

import numpy as np
import pytest

import skinkit
from skinkit import TRS, blend_poses
from skinkit import default_model
from skinkit.model.pose import BLOCK_FRAMES, frame_times, layout, pose, pose_blocks

from conftest import GLTF, need_shared



def _concat(blocks):
    blocks = list(blocks)
    out = {"times": np.concatenate([b.times for b in blocks])}
    for name in blocks[0].arrays():
        out[name] = np.concatenate([b.arrays()[name] for b in blocks])
    return out, blocks


def _whole(posed):
    return {"times": posed.times, **posed.arrays()}


# --- the request --------------------------------------------------------------------------------

def test_request_is_resolved_and_frozen():
    m = default_model()
    r = m.request("bend", fps=10, normals=True, skinning="dqs")
    assert r.clip is m.clips[0] and r.count == 21 and r.fps == 10 and r.skinning == "dqs"
    assert r.normals and not r.joints and not r.loop and r.dtype == np.float64
    np.testing.assert_array_equal(r.times, frame_times(m.clips[0], 10))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.count = 3
    assert "21 times at 10 fps" in repr(r) and "dqs" in repr(r)
    mine = np.array([0.5, 0.25])
    held = m.request(0, mine)
    assert held.fps is None and not held.times.flags.writeable
    mine[0] = 1.0                       # the request keeps its own copy; the caller's stays theirs
    assert held.times[0] == 0.5 and mine.flags.writeable
    assert m.request().count == 1 and m.request().clip is None


@pytest.mark.parametrize("duration, fps", [(2.0, 30), (1.05, 10), (0.1, 30), (0.0, 30),
                                           (2.0, 499.5), (3.7, 7.3)])
def test_frame_times_by_block_equal_the_whole(duration, fps):
    whole = frame_times(duration, fps)
    for start, stop in [(0, None), (0, 1), (1, 5), (len(whole) - 1, None), (3, 1000),
                        (len(whole), None)]:
        np.testing.assert_array_equal(frame_times(duration, fps, start, stop), whole[start:stop])


@pytest.mark.parametrize("kwargs, match", [
    (dict(clip="bend", skinning="cubic"), "skinning"),
    (dict(clip="bend", times=[0.1], fps=10), "times or fps"),
    (dict(clip="bend", blend=[("bend", 1.0)]), "clip or blend"),
    (dict(clip="bend", times=[]), "at least one"),
    (dict(clip="bend", times=[0.0, np.inf]), "finite"),
    (dict(clip="bend", fps=0), "fps"),
    (dict(clip="bend", fps=1e308), "frames"),
    (dict(clip="walk"), "bend"),
    (dict(blend=[]), "pairs"),
    (dict(blend=[("bend", [1.0, 0.5])], times=[0.0, 0.1, 0.2]), "3 weights"),
])
def test_request_refuses_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        default_model().request(**kwargs)


def test_times_outside_the_clip_warn_once(caplog):
    m = default_model()
    with caplog.at_level(logging.WARNING, logger="skinkit"):
        m.pose("bend", [-1.0, 0.5, 2.5, 3.0])
    assert len(caplog.records) == 1 and "clamped" in caplog.records[0].getMessage()
    assert "'bend'" in caplog.records[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="skinkit"):
        clamped = m.pose("bend", [2.5, 3.0], loop=False)["0_0"]       # asked for: no warning
        m.pose("bend", [2.5, 3.0], loop=True)
        m.pose("bend", [0.0, 2.0])                                     # inside: no warning
        blocks = list(m.pose_blocks(m.request("bend", fps=1000)))      # frames: always inside
    assert caplog.records == []
    np.testing.assert_array_equal(clamped, m.pose("bend", [2.0, 2.0], loop=False)["0_0"])
    assert len(blocks) == -(-2001 // BLOCK_FRAMES)


def test_pose_takes_a_request():
    m = default_model()
    r = m.request("bend", [0.3, 0.9], normals=True)
    a, b = pose(m, r), m.pose("bend", [0.3, 0.9], normals=True)
    for name, x in _whole(a).items():
        np.testing.assert_array_equal(x, _whole(b)[name])
    with pytest.raises(TypeError, match="request"):
        m.pose(r, normals=True)
    with pytest.raises(TypeError, match="request"):
        m.pose(r, np.array([0.3, 0.9]))
    with pytest.raises(TypeError, match="PoseRequest"):
        next(iter(m.pose_blocks("bend")))
    with pytest.raises(ValueError, match="frames"):
        m.pose_blocks(r, frames=0)


# --- TRS, one order -----------------------------------------------------------------------------

def test_trs_named_tuple_everywhere():
    m = default_model()
    local = m.local_pose("bend", [0.25, 0.5])
    assert isinstance(local, TRS) and local._fields == ("translations", "rotations", "scales")
    assert local.rotations.shape == (2, 5, 4) and local.translations.shape == (2, 5, 3)
    sampled = m.clips[0].sample([0.25, 0.5], skinkit.model.stages.rest_pose(m))
    assert isinstance(sampled, TRS)
    # blending reads a TRS by name: the same as the positional (rotations, translations, scales)
    layers = TRS(*(np.stack([a, a[::-1]], axis=1) for a in local))
    rest = skinkit.model.stages.rest_pose(m)
    w = np.array([[0.3, 0.7], [0.9, 0.1]])
    by_name = blend_poses(layers.rotations, layers.translations, layers.scales, w, rest=rest)
    by_position = blend_poses(layers.rotations, layers.translations, layers.scales, w,
                              rest=(rest.rotations, rest.translations, rest.scales))
    for x, y in zip(by_name, by_position):
        np.testing.assert_array_equal(x, y)


# --- blocks: the same bytes as one call ---------------------------------------------------------

@pytest.mark.parametrize("name, kwargs", [
    ("CesiumMan.glb", dict(clip=0, fps=60, normals=True)),
    ("RiggedSimple-morph.glb", dict(clip=0, fps=45, normals=True)),
    ("RobotExpressive.glb", dict(clip="Dance", fps=20, skinning="dqs", joints=True)),
    ("RobotExpressive.glb", dict(blend=[("Walking", np.linspace(0, 1, 50)), ("Running", 0.5)],
                                 times=np.linspace(0, 0.9, 50), normals=True)),
    (None, dict(clip="bend", times=np.linspace(-1, 5, 300), loop=True, normals=True)),
    (None, dict()),
])
@pytest.mark.parametrize("frames", [1, 7, BLOCK_FRAMES])
def test_blocks_equal_one_pose_call(name, kwargs, frames):
    m = default_model() if name is None else skinkit.load_gltf(need_shared(GLTF) / name)
    r = m.request(**kwargs)
    got, blocks = _concat(m.pose_blocks(r, frames=frames))
    want = _whole(pose(m, r))
    assert list(got) == list(want) and len(blocks) == -(-r.count // frames)
    assert all(len(b.times) <= frames for b in blocks)
    for key, x in want.items():
        assert got[key].dtype == x.dtype and got[key].shape == x.shape, key
        np.testing.assert_array_equal(got[key], x, err_msg=key)
    # the layout known before posing names every array with its shape and dtype
    assert {k: (v.shape, v.dtype) for k, v in want.items()} == layout(m, r)


def test_pose_blocks_memory_does_not_grow_with_the_clip():
    """tracemalloc's peak while posing T = 6,000 and 16 T frames of a clip block by block (each
    block dropped when the next comes): the same to the noise of NumPy's own allocations
    (+-10%), and about one block's worth; even 8 bytes a frame (a times array) would make the
    second 2.2 times the first."""
    m = default_model()
    prim = m.primitives[0]
    block_bytes = BLOCK_FRAMES * len(prim.positions) * 3 * 8 * 2      # positions and normals

    def peak(count):
        r = m.request("bend", fps=(count - 1) / 2, normals=True)
        assert r.count == count
        tracemalloc.start()
        frames = 0
        for block in pose_blocks(m, r):
            frames += len(block.times)
            del block
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert frames == count
        return top

    peak(200)   # warm-up: imports, caches
    small, large = peak(6000), peak(96000)
    assert large < 1.3 * small, (small, large)
    assert small < 3 * block_bytes, (small, block_bytes)
    # the whole pose at once holds the clip
    tracemalloc.start()
    m.pose("bend", frame_times(2.0, 5999 / 2), normals=True)
    whole = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert whole > 20 * small


# --- body models ---------------------------------------------------------------------------------

def test_body_pose_blocks_equal_forward():
    from body_models import random_params

    body = skinkit.synthetic_body_model(num_vertices=300)
    rng = np.random.default_rng(5)
    all_betas, pose_, transl, _ = random_params(body, rng, batch=(70,))
    betas = all_betas[0]                        # one shape for every frame
    vertices, joints = body.forward(betas, pose_, transl)
    blocks = list(body.pose_blocks(betas, pose_, transl, frames=32))
    assert [len(b.times) for b in blocks] == [32, 32, 6]
    # to rounding: BLAS blocks the blend-shape product by the batch's size
    np.testing.assert_allclose(np.concatenate([b["body"] for b in blocks]), vertices, rtol=0,
                               atol=1e-13)
    np.testing.assert_allclose(np.concatenate([b.joints for b in blocks]), joints, rtol=0,
                               atol=1e-13)
    np.testing.assert_array_equal(np.concatenate([b.times for b in blocks]), np.arange(70))
    assert list(blocks[0].arrays()) == ["positions_body", "joints"]
    (one,) = body.pose_blocks(betas)
    assert one["body"].shape == (1, body.num_vertices, 3)
    with pytest.raises(ValueError, match="frame axes differ"):
        body.pose_blocks(all_betas[:3], pose_)
    with pytest.raises(ValueError, match="one frame axis"):
        body.pose_blocks(pose=pose_.reshape(7, 10, -1, 3))
