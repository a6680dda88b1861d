"""Models and clips pickle small and fast, for multiprocessing, Dask and Ray workers.

"Small" is measured against the bytes of the arrays the object holds (skeleton, skins,
primitives, clip channels): a pickle is that plus names and structure.
"""
import dataclasses
import pickle
import time

import numpy as np
import pytest

import skinkit as sk
from conftest import GLTF, need_shared

MODELS = ["CesiumMan.glb", "Fox.glb", "RiggedFigure.glb", "RiggedSimple.glb"]


def array_bytes(obj) -> int:
    """Bytes of the data arrays: dataclass fields, lists, dicts (materials' images), and a Clip's
    channels."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (list, tuple)):
        return sum(array_bytes(o) for o in obj)
    if isinstance(obj, dict):
        return sum(array_bytes(o) for o in obj.values())
    if isinstance(obj, sk.Clip):
        return array_bytes(obj.channels)
    if dataclasses.is_dataclass(obj):
        return sum(array_bytes(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    return 0


def assert_same(a, b, where="model"):
    """Structural equality: same types, same values, arrays with the same dtype and shape."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, sk.Clip):
        assert (a.name, a.dtype, a.duration, a.unsupported) == (b.name, b.dtype, b.duration,
                                                                 b.unsupported), where
        assert_same(a.channels, b.channels, f"{where}.channels")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    else:
        assert a == b, where


def load(name, dtype=np.float64):
    need_shared()
    return sk.load_gltf(GLTF / name, dtype=dtype)


def without_clips(model):
    return dataclasses.replace(model, clips=[])


def assert_same_poses(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


@pytest.fixture(params=[(name, dtype) for name in MODELS for dtype in (np.float32, np.float64)],
                ids=lambda p: f"{p[0]}-{p[1].__name__}")
def model(request):
    """Each model of MODELS, loaded in each precision."""
    return load(*request.param)


def pickled_size(obj) -> int:
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def test_model_round_trips_and_poses_the_same(model):
    back = pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    assert_same(model, back)
    clip = 0 if model.clips else None
    times = np.linspace(0, model.clips[0].duration if model.clips else 0, 7)
    assert_same_poses(model.pose(clip=clip, times=times), back.pose(clip=clip, times=times))
    np.testing.assert_array_equal(model.world_matrices(clip, times), back.world_matrices(clip, times))


def test_default_model_round_trips():
    model = sk.default_model()
    back = pickle.loads(pickle.dumps(model))
    assert_same(model, back)
    assert_same_poses(model.pose(clip=0), back.pose(clip=0))


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_model_without_clips_pickles_close_to_its_array_bytes(name):
    model = without_clips(load(name))
    nbytes = array_bytes(model)
    size = pickled_size(model)
    assert nbytes <= size <= 1.05 * nbytes + 4096, (size, nbytes)


def test_model_pickles_close_to_its_array_bytes(model):
    """Clips included: each channel adds its node, path and interpolation (~100 bytes)."""
    nbytes = array_bytes(model)
    channels = sum(len(c.channels) for c in model.clips)
    size = pickled_size(model)
    assert nbytes <= size <= 1.05 * nbytes + 4096 + 128 * channels, (size, nbytes, channels)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_arrays_travel_out_of_band(name):
    """With protocol 5 (what Dask's and Ray's serializers use) every array is a buffer: the
    pickle stream itself holds only names and structure."""
    model = load(name)
    buffers = []
    stream = pickle.dumps(model, protocol=5, buffer_callback=buffers.append)
    assert len(stream) < 16384 + 200 * sum(len(c.channels) for c in model.clips)
    assert sum(b.raw().nbytes for b in buffers) >= array_bytes(model)
    back = pickle.loads(stream, buffers=buffers)
    assert_same(model, back)


def test_pickling_cesium_man_is_fast():
    model = load("CesiumMan.glb")
    start = time.perf_counter()
    for _ in range(20):
        back = pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    per_round_trip = (time.perf_counter() - start) / 20
    assert per_round_trip < 0.05, per_round_trip        # measured ~1 ms
    assert_same(model, back)


@pytest.mark.parametrize("name", ["CesiumMan.glb", "Fox.glb", "RiggedFigure-cubic.glb"])
def test_clip_round_trips_and_samples_the_same(name):
    model = load(name)
    sk_rest = (model.skeleton.translations, model.skeleton.rotations, model.skeleton.scales)
    for clip in model.clips:
        back = pickle.loads(pickle.dumps(clip))
        assert_same(clip, back, clip.name or "clip")
        times = np.linspace(-0.1, clip.duration + 0.1, 11)
        for x, y in zip(clip.sample(times, sk_rest), back.sample(times, sk_rest)):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", ["CesiumMan.glb", "Fox.glb"])
def test_clip_pickles_close_to_its_channel_bytes(name):
    clips = load(name).clips
    nbytes = array_bytes(clips)
    size = pickled_size(clips)
    assert size <= 1.25 * nbytes + 4096, (size, nbytes)
