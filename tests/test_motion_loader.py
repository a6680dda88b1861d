"""Posed meshes on the fly (skinkit.dataset.MotionCrops, skinkit.torch.MotionDataset) over a
folder of AMASS-like SMPL+H motions at 120, 60, 59.9999885 and 50 fps: the crops' invariants,
determinism, shards over DataLoader workers and over 2 torch.distributed ranks (gloo), and the
chunk-grouped sampler of a baked store."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import skinkit
from conftest import SKINKIT_PATH, TORCH_HOW, optional_import
from skinkit.body.synthetic import humanoid_smplh_arrays
from skinkit.dataset import Augmentation, MotionCrops
from amass_files import write_motion

RATES = (120.0, 60.0, 59.9999885, 50.0)
AUGMENT = Augmentation(betas_sigma=0.5, mirror=0.5, heading=True)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("amass")
    for i, fps in enumerate(RATES * 2):
        write_motion(d / f"m{i}.npz", int(1.2 * fps), fps=fps, seed=i)
    write_motion(d / "short.npz", 10, fps=120.0, seed=99)    # shorter than a crop: none
    return d


@pytest.fixture(scope="module")
def model():
    return skinkit.BodyModel(humanoid_smplh_arrays(num_vertices=200))


def crops(folder, model, **kw):
    options = dict(frames=12, fps=20.0, crops_per_motion=2, features=("humanml3d", "rep272"),
                   augmentation=AUGMENT, seed=7)
    return MotionCrops.from_folder(folder, model, **{**options, **kw})


def key(item):
    return int(item["sequence"]), float(item["start"])


def test_items(folder, model):
    items = list(crops(folder, model))
    assert len(items) == 2 * len(RATES) * 2
    assert {bool(i["mirrored"]) for i in items} == {True, False}
    for item in items:
        assert item["vertices"].shape == (12, 200, 3) and item["vertices"].dtype == np.float32
        assert item["joints"].shape == (12, 52, 3)
        assert item["humanml3d"].shape == (11, 263) and item["rep272"].shape == (12, 272)
        joints = item["joints"].astype(np.float64)
        np.testing.assert_allclose(joints[0, 0, [0, 2]], 0.0, atol=1e-6)   # root over origin
        assert abs(joints[:, [7, 8, 10, 11], 1].min()) < 1e-6               # on the floor
        # the parameters pose the meshes
        v, j = model(betas=item["betas"], pose=item["poses"], transl=item["transl"])
        np.testing.assert_allclose(j, joints, atol=2e-5)
        np.testing.assert_allclose(v, item["vertices"], atol=2e-5)


def test_crops_are_the_resampled_motion(folder, model):
    """Without augmentation a crop is the file's motion at start + k / 20 s, canonical."""
    c = crops(folder, model, augmentation=Augmentation(), crops_per_motion=1)
    for item in c:
        motion = skinkit.load_amass(c.files[int(item["sequence"])])
        m = motion.resample(20.0, float(item["start"]), 12)
        _, expected = skinkit.canonical_motion(m, model)
        np.testing.assert_allclose(item["joints"], expected, atol=2e-5)


def same(x, y):
    np.testing.assert_array_equal(x, y)


def test_deterministic_and_sharded(folder, model):
    c = crops(folder, model)
    a, b = list(c), list(c)
    assert [key(i) for i in a] == [key(i) for i in b]
    for x, y in zip(a, b):
        for k in x:
            same(x[k], y[k])
    shards = [list(c.with_shard(i, 3)) for i in range(3)]
    keys = [key(i) for s in shards for i in s]
    assert sorted(keys) == sorted(key(i) for i in a) and len(set(keys)) == len(keys)
    by_key = {key(i): i for i in a}
    for item in shards[1]:
        same(item["vertices"], by_key[key(item)]["vertices"])
    assert [key(i) for i in c.with_epoch(1)] != [key(i) for i in a]


def test_batches(folder, model):
    c = crops(folder, model, crops_per_motion=1, features=())
    batches = list(c.batches(3))
    assert [len(b["vertices"]) for b in batches] == [3, 3, 2]
    assert batches[0]["vertices"].shape == (3, 12, 200, 3)


def test_bad_options(folder, model, tmp_path):
    with pytest.raises(ValueError, match="features"):
        crops(folder, model, features=("nope",))
    with pytest.raises(ValueError, match="shard"):
        crops(folder, model, shard=(2, 2))
    with pytest.raises(ValueError, match="no .npz motion file"):
        MotionCrops.from_folder(tmp_path, model)
    with pytest.raises(ValueError, match="is not a folder"):
        MotionCrops.from_folder(tmp_path / "missing", model)


def torch_or_skip():
    return optional_import("torch", TORCH_HOW)


@pytest.mark.integration   # DataLoader worker processes
def test_dataloader_workers(folder, model):
    """2 workers: worker w takes shard w of 2, the DataLoader alternates their batches."""
    torch = torch_or_skip()
    from skinkit.torch import MotionDataset
    c = crops(folder, model, features=("humanml3d",))
    batches = list(torch.utils.data.DataLoader(MotionDataset(c), batch_size=2, num_workers=2))
    shards = [list(c.with_shard(w, 2)) for w in range(2)]
    expected = [s[i:i + 2] for i in range(0, max(map(len, shards)), 2) for s in shards
                if s[i:i + 2]]
    assert len(batches) == len(expected)
    for got, want in zip(batches, expected):
        assert got["vertices"].shape == (len(want), 12, 200, 3)
        for k in ("vertices", "humanml3d", "poses"):
            np.testing.assert_array_equal(got[k].numpy(), np.stack([w[k] for w in want]))
        assert [int(x) for x in got["sequence"]] == [int(w["sequence"]) for w in want]


RANK_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, torch, torch.distributed as dist
    import skinkit
    from skinkit.body.synthetic import humanoid_smplh_arrays
    from skinkit.dataset import Augmentation, MotionCrops
    from skinkit.torch import MotionDataset
    rank, init, folder, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    model = skinkit.BodyModel(humanoid_smplh_arrays(num_vertices=200))
    c = MotionCrops.from_folder(folder, model, frames=12, crops_per_motion=2, seed=7,
                                augmentation=Augmentation(betas_sigma=0.5, mirror=0.5,
                                                          heading=True))
    items = list(torch.utils.data.DataLoader(MotionDataset(c), batch_size=None))
    np.savez(out, keys=np.array([[int(b["sequence"]), float(b["start"])] for b in items]),
             vertices=np.stack([b["vertices"].numpy() for b in items]))
    dist.barrier()
    dist.destroy_process_group()
""")


@pytest.mark.integration   # two Python processes, a torch.distributed process group
def test_two_ranks_on_gloo(folder, model, tmp_path):
    torch_or_skip()
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    env = {**os.environ, "PYTHONPATH": SKINKIT_PATH}
    init = f"file://{tmp_path / 'init'}"
    procs = [subprocess.Popen([sys.executable, str(script), str(r), init, str(folder),
                               str(tmp_path / f"r{r}.npz")], env=env) for r in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    ranks = [np.load(tmp_path / f"r{r}.npz") for r in range(2)]
    keys = [tuple(k) for r in ranks for k in r["keys"]]
    everything = {key(i): i for i in crops(folder, model, features=())}
    assert sorted(keys) == sorted(everything) and len(set(keys)) == len(keys)
    for r in ranks:
        for k, v in zip(r["keys"], r["vertices"]):
            np.testing.assert_array_equal(v, everything[(int(k[0]), float(k[1]))]["vertices"])


class FakeStore:
    frames_per_chunk = 16

    def __len__(self):
        return 70


def test_chunk_grouped_sampler():
    torch_or_skip()
    from skinkit.torch import ChunkGroupedSampler
    s = ChunkGroupedSampler(FakeStore(), seed=3)
    order = list(s)
    assert sorted(order) == list(range(70)) and len(s) == 70
    chunks = [i // 16 for i in order]
    runs = [c for n, c in enumerate(chunks) if n == 0 or chunks[n - 1] != c]
    assert sorted(runs) == list(range(5))                # each chunk visited once, in one run
    assert order != sorted(order) and list(s) == order   # shuffled, deterministic
    s.set_epoch(1)
    assert list(s) != order


@pytest.mark.integration   # a bake (a Dask worker process)
def test_chunk_grouped_sampler_reads_each_chunk_once(tmp_path):
    """Through a real store: frames_per_chunk comes from the store, and shuffled reading by the
    sampler loads each chunk once, where a uniform shuffle loads nearly one per frame."""
    torch_or_skip()
    optional_import("zarr", 'pip install ".[dataset]"', "dataset")
    from skinkit.body.synthetic import synthetic_body_arrays
    from skinkit.dataset import store
    from skinkit.torch import BakedDataset, ChunkGroupedSampler
    np.savez(tmp_path / "body.npz", **synthetic_body_arrays("SMPL+H", seed=3, num_vertices=50))
    write_motion(tmp_path / "m.npz", 64, fps=30.0)
    out = tmp_path / "s.zarr"
    assert skinkit.dataset.bake([str(tmp_path / "m.npz")], str(out),
                                body=str(tmp_path / "body.npz"), frames_per_chunk=8,
                                workers=1).ok
    ds = BakedDataset(out)
    assert ds.frames_per_chunk == 8
    reads = []
    original = store.frame_arrays

    def counted(group, chunk):
        reads.append(chunk)
        return original(group, chunk)

    store.frame_arrays = counted
    try:
        frames = [ds[i] for i in ChunkGroupedSampler(ds, seed=1)]
        assert sorted(reads) == list(range(8))
        reads.clear()
        _ = [ds[int(i)] for i in np.random.default_rng(1).permutation(len(ds))]
        assert len(reads) > 40
    finally:
        store.frame_arrays = original
    assert len(frames) == 64
