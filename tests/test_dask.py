"""Scaling out: 10,000 poses of CesiumMan as a Dask array chunked along the batch (time) axis,
computed by two worker processes of a ``distributed.LocalCluster``, equal to one process's result.

The full result is 10,000 x 3273 x 3 float32 (~390 MB), so the graph reduces it where it is made:
per pose the float64 sum of the vertices (10,000 x 3) and the bounding box, and a handful of
whole poses picked by index.  Each pose depends only on its own time, so chunking changes no bit:
the comparison is exact.
"""
import time

import numpy as np
import pytest

import skinkit as sk

import dask.array as da
from conftest import DATASET_HOW, GLTF, need_shared, optional_import

optional_import("distributed", DATASET_HOW, "dataset")
from distributed import Client, LocalCluster  # noqa: E402

pytestmark = pytest.mark.integration          # a Dask cluster of worker processes

N_POSES, CHUNK = 10_000, 1_000


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="4GiB") as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def model():
    need_shared()
    return sk.load_gltf(GLTF / "CesiumMan.glb", dtype=np.float32)


def test_ten_thousand_poses_on_two_worker_processes(client, model):
    prim = model.primitives[0]
    V = prim.positions.shape[0]
    rng = np.random.default_rng(2024)
    times = rng.uniform(0.0, model.clips[0].duration, N_POSES).astype(np.float32)
    picks = np.array([0, 1, 999, 1000, 4321, 9998, 9999])

    def pose_block(times, model, key):      # nested, so that it travels by value
        """One chunk of times (n,) -> positions (n, V, 3) of one primitive."""
        return model.pose(clip=0, times=times)[key]

    start = time.perf_counter()
    t = da.from_array(times, chunks=CHUNK)
    # the model travels once, as one graph key that every block depends on
    model_key = client.scatter(model, broadcast=True)
    positions = da.map_blocks(pose_block, t, model_key, prim.key, dtype=np.float32,
                              chunks=(t.chunks[0], (V,), (3,)), new_axis=[1, 2])
    assert positions.shape == (N_POSES, V, 3) and positions.numblocks == (N_POSES // CHUNK, 1, 1)
    sums = positions.sum(axis=1, dtype=np.float64)
    lo, hi = positions.min(axis=1), positions.max(axis=1)
    sums, lo, hi, picked = client.compute([sums, lo, hi, positions[picks]], sync=True)
    elapsed = time.perf_counter() - start

    workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2                 # two processes did the work
    assert elapsed < 60, elapsed

    # one process, the same chunks of times, the same reductions
    ref_sums = np.empty((N_POSES, 3))
    ref_lo = np.empty((N_POSES, 3), np.float32)
    ref_hi = np.empty((N_POSES, 3), np.float32)
    for s in range(0, N_POSES, CHUNK):
        p = model.pose(clip=0, times=times[s:s + CHUNK])[prim.key]
        ref_sums[s:s + CHUNK] = p.sum(axis=1, dtype=np.float64)
        ref_lo[s:s + CHUNK], ref_hi[s:s + CHUNK] = p.min(axis=1), p.max(axis=1)
    np.testing.assert_array_equal(sums, ref_sums)
    np.testing.assert_array_equal(lo, ref_lo)
    np.testing.assert_array_equal(hi, ref_hi)
    # and whole poses, against one call over just those times (batch size does not matter)
    assert picked.shape == (len(picks), V, 3) and picked.dtype == np.float32
    np.testing.assert_array_equal(picked, model.pose(clip=0, times=times[picks])[prim.key])
    print(f"\n{N_POSES} poses on 2 worker processes: {elapsed:.1f} s")


def test_the_model_is_shipped_by_pickle_to_workers(client, model):
    """A worker unpickles the model and poses it as this process does."""
    times = np.linspace(0, model.clips[0].duration, 5)
    fut = client.submit(lambda m, t: m.pose(clip=0, times=t), model, times, pure=False)
    got, exp = fut.result(), model.pose(clip=0, times=times)
    assert got.keys() == exp.keys()
    for k in got:
        np.testing.assert_array_equal(got[k], exp[k])
