"""``skinkit bake`` / ``skinkit.dataset``: AMASS-layout motions through a small synthetic SMPL+H
model into a Zarr store on Dask, checked against ``BodyModel.forward`` frame by frame; a worker
killed mid-bake, a killed command resumed, a corrupt motion among good ones, float16, arguments
changed on resuming; reading back as dask arrays and as a torch Dataset.

A bake that is repaired or resumed must equal an uninterrupted one bit for bit: the stores'
files are compared byte by byte."""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DATASET_HOW, GLTF, SKINKIT_PATH, TORCH_HOW, need_shared, optional_import

optional_import("zarr", DATASET_HOW, "dataset")
optional_import("distributed", DATASET_HOW, "dataset")
from distributed import Client, LocalCluster  # noqa: E402
from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402

from amass_files import write_motion, write_motion_smplx  # noqa: E402

import skinkit as sk  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402

pytestmark = pytest.mark.integration          # Dask clusters and child processes

FRAMES = (37, 61, 18)                         # three motions; chunks of 16 frames straddle them
K = 16


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("bake")
    np.savez(d / "body.npz", **synthetic_body_arrays("SMPL+H", seed=3, num_vertices=120))
    (d / "motions").mkdir()
    for i, T in enumerate(FRAMES):
        write_motion(d / "motions" / f"m{i}.npz", T, fps=30.0, seed=i, gender="female")
    return d


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as c:
        yield c


def baked(inputs, out, cluster, **kw):
    kw = {"body": str(inputs / "body.npz"), "frames_per_chunk": K, **kw}
    return sk.dataset.bake([str(inputs / "motions")], str(out), scheduler=cluster.scheduler_address,
                           **kw)


@pytest.fixture(scope="module")
def reference(inputs, tmp_path_factory):
    """A bake by one worker process (the serial run the others must equal)."""
    out = tmp_path_factory.mktemp("ref") / "ref.zarr"
    s = sk.dataset.bake([str(inputs / "motions")], str(out), body=str(inputs / "body.npz"),
                        frames_per_chunk=K, workers=1)
    assert s.ok and s.baked == s.frames == sum(FRAMES)
    return out


def files(store):
    """{relative path: bytes} of every file of a store."""
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(Path(store).rglob("*"))
            if p.is_file()}


def assert_same_store(a, b):
    fa, fb = files(a), files(b)
    assert sorted(fa) == sorted(fb)
    assert [k for k in fa if fa[k] != fb[k]] == []


def test_bake_on_a_cluster_equals_forward_frame_by_frame(inputs, reference, cluster, tmp_path):
    out = tmp_path / "s.zarr"
    s = baked(inputs, out, cluster)
    assert s.ok and (s.frames, s.sequences, s.baked) == (sum(FRAMES), 3, sum(FRAMES))
    assert "frames/s" in s.line() and "MB/s" in s.line()
    assert_same_store(out, reference)            # two workers or one: the same bytes
    d = sk.dataset.open(out)
    assert repr(d) == f"BakedStore({sum(FRAMES)} frames, 3 sequences, {len(d.faces)} faces)"
    model = sk.load_body_model(inputs / "body.npz", dtype=np.float32)
    assert d.vertices.chunks[0][0] == K and d.vertices.shape == (sum(FRAMES), 120, 3)
    assert np.array_equal(d.faces, model.faces)
    verts, joints = d.vertices.compute(), d.joints.compute()
    seq, t = d.frame_sequence.compute(), d.frame_time.compute()
    row = 0
    for i, T in enumerate(FRAMES):
        with np.load(inputs / "motions" / f"m{i}.npz") as z:
            poses, trans, betas = z["poses"].reshape(T, 52, 3), z["trans"], z["betas"]
        for k in range(T):                        # frame by frame
            v, j = model.forward(betas, poses[k], trans[k])
            np.testing.assert_allclose(verts[row], v, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(joints[row], j, rtol=1e-6, atol=1e-6)
            assert seq[row] == i and t[row] == k / 30.0
            row += 1
    q = d.sequences
    assert list(q["source"]) == ["m0.npz", "m1.npz", "m2.npz"]
    assert list(q["status"]) == ["done"] * 3 and list(q["gender"]) == ["female"] * 3
    assert list(q["count"]) == list(FRAMES) and list(q["start"]) == [0, 37, 98]
    with np.load(inputs / "motions" / "m1.npz") as z:
        assert np.array_equal(q["betas"][1], z["betas"])
    body = d.attributes["body_models"]
    assert body == [{"file": "body.npz",
                     "sha256": hashlib.sha256((inputs / "body.npz").read_bytes()).hexdigest()}]
    assert d.attributes["version"] == sk.__version__
    assert d.attributes["arguments"]["frames_per_chunk"] == K


def test_stored_frames_are_the_bits_of_posing_each_piece_of_a_chunk(inputs, reference):
    """Bit for bit: every chunk's frames of one motion (the motion's frames cut at the chunk
    boundaries, found here from the sequences' starts) are ``BodyModel.forward`` of those
    frames as one batch (as a bake poses them; on any thread count)."""
    d = sk.dataset.open(reference)
    model = sk.load_body_model(inputs / "body.npz", dtype=np.float32)
    verts, joints = d.vertices.compute(), d.joints.compute()
    pieces = 0
    for i, (start, T) in enumerate(zip(d.sequences["start"], FRAMES)):
        m = sk.load_amass(inputs / "motions" / f"m{i}.npz")
        cuts = sorted({0, T} | {c - start for c in range(0, len(d), K) if 0 < c - start < T})
        for lo, hi in zip(cuts, cuts[1:]):
            v, j = model.forward(m.betas, m.poses[lo:hi], m.transl[lo:hi])
            assert verts[start + lo:start + hi].tobytes() == v.tobytes()
            assert joints[start + lo:start + hi].tobytes() == j.tobytes()
            pieces += 1
    assert pieces == 10                 # 116 frames in 8 chunks, 2 of them holding 2 motions


def test_a_chunk_is_on_disk_and_out_of_the_page_cache_before_its_mark(reference, tmp_path,
                                                                        monkeypatch):
    """``ChunkWriter.write``: each frame array's chunk file fsynced (fdatasync) and dropped
    from the page cache (POSIX_FADV_DONTNEED) while the chunk is still unmarked, then the
    mark; the store the same as before."""
    import importlib
    store = importlib.import_module("skinkit.dataset.store")
    out = tmp_path / "s.zarr"
    shutil.copytree(reference, out)
    writer = store.ChunkWriter(str(out))
    arrays = {k: a[K:2 * K] for k, a in writer.arrays.items()}
    (out / "chunk_done" / "c" / "1").unlink()
    calls = []

    def file_of(fd):
        st = os.fstat(fd)
        return next(str(p.relative_to(out)) for p in out.rglob("*")
                    if p.is_file() and os.stat(p).st_ino == st.st_ino)

    sync = getattr(os, "fdatasync", os.fsync)
    monkeypatch.setattr(os, sync.__name__,
                        lambda fd: calls.append(("sync", file_of(fd), writer.done(1))) or sync(fd))
    if hasattr(os, "posix_fadvise"):
        advise = os.posix_fadvise
        monkeypatch.setattr(os, "posix_fadvise", lambda fd, o, n, a: calls.append(
            ("drop" if (o, n, a) == (0, 0, os.POSIX_FADV_DONTNEED) else "?", file_of(fd),
             writer.done(1))) or advise(fd, o, n, a))
    writer.write(1, arrays)
    names = ["vertices/c/1/0/0", "joints/c/1/0/0", "frame_sequence/c/1", "frame_time/c/1"]
    kinds = ["sync", "drop"] if hasattr(os, "posix_fadvise") else ["sync"]
    assert calls == [(k, n, False) for n in names for k in kinds]
    assert writer.done(1)
    assert_same_store(out, reference)


class KillOnce(WorkerPlugin):
    """SIGKILL the worker's own process when it starts its third bake task, once (a marker
    file says it happened)."""

    def __init__(self, marker):
        self.marker, self.started = marker, 0

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and "bake_chunk" in str(key):
            self.started += 1
            if self.started == 3:
                try:
                    os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
                except FileExistsError:
                    return
                os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_killed_mid_bake_is_replaced_and_the_store_is_identical(inputs, reference,
                                                                          cluster, tmp_path):
    marker = tmp_path / "killed"
    with Client(cluster) as client:
        before = set(client.run(os.getpid).values())
        client.register_plugin(KillOnce(str(marker)), name="kill-once")
        try:
            s = baked(inputs, tmp_path / "s.zarr", cluster)
        finally:
            client.unregister_worker_plugin("kill-once")
        client.wait_for_workers(2, timeout=60)
        after = set(client.run(os.getpid).values())
    assert marker.exists() and before != after      # a worker process did die
    assert s.ok and s.frames == sum(FRAMES)
    assert_same_store(tmp_path / "s.zarr", reference)


def cli(*args, **kw):
    """``skinkit ARGS`` in a child process (its own session)."""
    env = {**os.environ, "PYTHONPATH": SKINKIT_PATH}
    return subprocess.Popen([sys.executable, "-m", "skinkit", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kw)


def test_a_killed_bake_resumes_to_the_same_store(inputs, cluster, tmp_path):
    """Many small chunks, so that the command is killed (with its local cluster) between the
    first chunk and the last; the rerun (on the module's cluster: the arguments that must match
    are those of the bake, not where it runs) poses only the missing frames."""
    motions = tmp_path / "motions"
    motions.mkdir()
    for i in range(4):
        write_motion(motions / f"long{i}.npz", 100, seed=10 + i)
    args = ["bake", motions, "--body", inputs / "body.npz", "--frames-per-chunk", 8]
    ref = tmp_path / "ref.zarr"
    assert sk.dataset.bake([str(motions)], str(ref), body=str(inputs / "body.npz"),
                           frames_per_chunk=8, scheduler=cluster.scheduler_address).ok
    out = tmp_path / "s.zarr"
    p = cli(*args, "--out", out, "--workers", 2, "--quiet")
    marks = out / "chunk_done" / "c"

    def marked():    # chunk marks renamed into place, not Zarr's in-flight "*.partial" files
        return sum(n.isdigit() for n in os.listdir(marks)) if marks.is_dir() else 0

    deadline = time.monotonic() + 120
    while p.poll() is None and time.monotonic() < deadline:
        if marked() >= 3:
            break
        time.sleep(0.002)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    done = marked()
    assert 3 <= done < 50, "the bake was not caught mid-run"
    r = cli(*args, "--out", out, "--scheduler", cluster.scheduler_address)   # resumed
    _, err = r.communicate(timeout=300)
    assert r.returncode == 0, err
    baked = int(err.split("baked ")[1].split()[0])
    assert baked <= 400 - 8 * done                  # only what was missing
    assert_same_store(out, ref)


def test_a_write_cut_short_is_redone_and_its_partial_file_swept(inputs, reference, cluster,
                                                               tmp_path):
    """What a process killed inside Zarr's chunk write leaves: the chunk's data and mark not
    renamed into place, and the ``*.partial`` file it was writing.  Resuming writes that chunk
    only, and the store holds the same files as the uninterrupted bake."""
    out = tmp_path / "s.zarr"
    shutil.copytree(reference, out)
    (out / "chunk_done" / "c" / "1").unlink()
    chunk = out / "vertices" / "c" / "1" / "0" / "0"
    chunk.rename(chunk.with_suffix(".5f0c1e.partial"))
    s = baked(inputs, out, cluster)
    assert s.ok and s.baked == K
    assert_same_store(out, reference)


def test_a_corrupt_motion_is_named_marked_failed_and_the_others_written(inputs, reference,
                                                                        cluster, tmp_path):
    motions = tmp_path / "motions"
    motions.mkdir()
    for i, T in enumerate(FRAMES):
        (motions / f"m{i}.npz").write_bytes((inputs / "motions" / f"m{i}.npz").read_bytes())
    (motions / "m1b.npz").write_bytes((motions / "m1.npz").read_bytes()[:300])   # cut short
    write_motion_smplx(motions / "m1c.npz", 9)           # 55 joints for a 52-joint model
    with np.load(motions / "m2.npz") as z:
        nan = {k: z[k] for k in z.files}
    nan["poses"][3, 7] = np.nan
    np.savez(motions / "m1d.npz", **nan)
    out = tmp_path / "s.zarr"
    p = cli("bake", motions, "--body", inputs / "body.npz", "--frames-per-chunk", K,
            "--scheduler", cluster.scheduler_address, "--out", out)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 1
    assert "3 failed" in err and "Traceback" not in err
    assert all(f"m1{c}.npz" in err for c in "bcd"), err
    d = sk.dataset.open(out)
    assert list(d.sequences["source"]) == [f"m{x}.npz" for x in ("0", "1", "1b", "1c", "1d", "2")]
    assert list(d.sequences["status"]) == ["done", "done", "failed", "failed", "failed", "done"]
    assert list(d.sequences["count"]) == [37, 61, 0, 0, 0, 18]
    error = d.sequences["error"]
    assert "m1b.npz" in error[2] and "55 joints" in error[3] and "nan" in error[4].lower()
    ref = sk.dataset.open(reference)
    assert np.array_equal(d.vertices.compute(), ref.vertices.compute())
    assert np.array_equal(d.joints.compute(), ref.joints.compute())


def test_float16_is_float32_rounded(inputs, reference, cluster, tmp_path):
    s = baked(inputs, tmp_path / "h.zarr", cluster, dtype="float16")
    assert s.ok
    h, ref = sk.dataset.open(tmp_path / "h.zarr"), sk.dataset.open(reference)
    assert h.vertices.dtype == np.float16 and h.joints.dtype == np.float16
    v16, v32 = h.vertices.compute(), ref.vertices.compute()
    assert np.array_equal(v16, v32.astype(np.float16))
    # within half a float16 ulp (relative 2**-11) of the float32 result
    assert (np.abs(v16.astype(np.float64) - v32) <= 2.0**-11 * np.abs(v32) + 2.0**-25).all()


def test_default_chunks_are_the_raw_frames_and_zstd_ones_the_same_frames_smaller(
        inputs, reference, cluster, tmp_path):
    s = baked(inputs, tmp_path / "z.zarr", cluster, compression="zstd")
    assert s.ok
    d, ref = sk.dataset.open(tmp_path / "z.zarr"), sk.dataset.open(reference)
    v = ref.vertices.compute()
    assert np.array_equal(d.vertices.compute(), v)
    first = (Path(reference) / "vertices" / "c" / "0" / "0" / "0").read_bytes()
    assert first == np.ascontiguousarray(v[:K], "<f4").tobytes()    # no codec but the bytes
    assert len((tmp_path / "z.zarr" / "vertices" / "c" / "0" / "0" / "0").read_bytes()) < \
        len(first)
    with pytest.raises(ValueError, match="compression must be one of zstd, none, got 'gzip'"):
        baked(inputs, tmp_path / "x.zarr", cluster, compression="gzip")


def test_resampled_frames_are_the_motion_resampled(inputs, cluster, tmp_path):
    s = baked(inputs, tmp_path / "r.zarr", cluster, fps=20.0)
    d = sk.dataset.open(tmp_path / "r.zarr")
    model = sk.load_body_model(inputs / "body.npz", dtype=np.float32)
    m = sk.load_amass(inputs / "motions" / "m1.npz").resample(20.0)
    a = int(d.sequences["start"][1])
    assert s.ok and d.sequences["count"][1] == len(m.poses) == 41
    assert np.array_equal(d.frame_time[a:a + 41].compute(), np.arange(41) / 20.0)
    v, _ = model.forward(m.betas, m.poses, m.transl)
    np.testing.assert_allclose(d.vertices[a:a + 41].compute(), v, rtol=1e-6, atol=1e-6)


def test_other_arguments_and_a_bad_body_model_are_refused(inputs, reference, tmp_path):
    with pytest.raises(ValueError, match=r"frames_per_chunk \(16 in the store, 8 now\)"):
        sk.dataset.bake([str(inputs / "motions")], str(reference),
                        body=str(inputs / "body.npz"), frames_per_chunk=8)
    with pytest.raises(ValueError, match=r"dtype .*fps \(None in the store, 10.0 now\)"):
        sk.dataset.bake([str(inputs / "motions")], str(reference),
                        body=str(inputs / "body.npz"), frames_per_chunk=K, dtype="float16",
                        fps=10.0)
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="junk.npz"):     # before any cluster or store
        sk.dataset.bake([str(inputs / "motions")], str(tmp_path / "new.zarr"),
                        body=str(tmp_path / "junk.npz"))
    assert not (tmp_path / "new.zarr").exists()
    (tmp_path / "other").mkdir()
    with pytest.raises(ValueError, match="not a"):
        sk.dataset.bake([str(inputs / "motions")], str(tmp_path / "other"),
                        body=str(inputs / "body.npz"))


def test_baked_dataset_reads_frames_for_torch(reference):
    torch = optional_import("torch", TORCH_HOW)
    from skinkit.torch import BakedDataset
    ds, d = BakedDataset(reference), sk.dataset.open(reference)
    assert len(ds) == sum(FRAMES)
    loader = torch.utils.data.DataLoader(ds, batch_size=10, shuffle=False)
    verts = torch.cat([b["vertices"] for b in loader]).numpy()
    assert np.array_equal(verts, d.vertices.compute())
    item = ds[-1]
    assert item["frame_sequence"].item() == 2 and item["frame_time"].item() == 17 / 30.0
    assert np.array_equal(item["joints"].numpy(), d.joints[-1].compute())
    with pytest.raises(IndexError):
        ds[sum(FRAMES)]


def test_body_dir_picks_the_model_by_gender(inputs, reference, cluster, tmp_path):
    """--body-dir: the female motions posed by DIR/smplh/SMPLH_FEMALE.npz (the same model as
    the reference's), a male motion with no male model there failed, naming the gender's
    file."""
    (tmp_path / "models" / "smplh").mkdir(parents=True)
    (tmp_path / "models" / "smplh" / "SMPLH_FEMALE.npz").write_bytes(
        (inputs / "body.npz").read_bytes())
    male = write_motion(tmp_path / "zz_male.npz", 5, gender="male")
    s = sk.dataset.bake([str(inputs / "motions"), str(male)], str(tmp_path / "d.zarr"),
                        body_dir=str(tmp_path / "models"), frames_per_chunk=K,
                        scheduler=cluster.scheduler_address)
    assert [src for src, _ in s.failed] == [str(male)] and "male" in s.failed[0][1].lower()
    d, ref = sk.dataset.open(tmp_path / "d.zarr"), sk.dataset.open(reference)
    assert list(d.sequences["status"]) == ["done"] * 3 + ["failed"]
    assert np.array_equal(d.vertices.compute(), ref.vertices.compute())
    assert d.attributes["body_models"][0]["file"] == "SMPLH_FEMALE.npz"


def test_a_bake_larger_than_the_free_disk_is_refused_before_posing(inputs, cluster, tmp_path,
                                                                     monkeypatch):
    import shutil
    real = shutil.disk_usage
    frame = (120 + 52) * 3 * 4 + 12
    monkeypatch.setattr(shutil, "disk_usage",
                        lambda p: real(p)._replace(free=sum(FRAMES) * frame - 1))
    with pytest.raises(ValueError, match=rf"needs up to .*\({sum(FRAMES)} frames of {frame} "
                                         r"bytes.* 0.00 GB free"):
        baked(inputs, tmp_path / "s.zarr", cluster)
    assert list(sk.dataset.open(tmp_path / "s.zarr").sequences["status"]) == ["pending"] * 3
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real(p)._replace(free=sum(FRAMES) * frame))
    assert baked(inputs, tmp_path / "s.zarr", cluster).baked == sum(FRAMES)   # room: it goes on


# ---- glTF/FBX characters with clips: the second input kind ----------------------------------

FOX = GLTF / "Fox.glb"
CLIPS = {"Walk": 23, "Run": 36}              # frames at 30 fps, both ends of the clip included


@pytest.fixture(scope="module")
def characters(tmp_path_factory):
    """Two copies of the Fox (one layout), and the store of their clips Walk and Run."""
    need_shared()
    d = tmp_path_factory.mktemp("characters")
    for name in ("a.glb", "b.glb"):
        shutil.copyfile(FOX, d / name)
    return d


@pytest.fixture(scope="module")
def fox_store(characters, cluster):
    out = characters / "fox.zarr"
    s = sk.dataset.bake([str(characters / "a.glb"), str(characters / "b.glb")], str(out),
                        clips="Walk,Run", frames_per_chunk=K,
                        scheduler=cluster.scheduler_address)
    assert s.ok and s.frames == s.baked == 2 * sum(CLIPS.values()) and s.sequences == 4
    return out


@pytest.mark.shared
def test_characters_bake_equals_model_pose_frame_by_frame(characters, fox_store):
    d = sk.dataset.open(fox_store)
    model = sk.load_model(FOX)
    (prim,) = model.primitives
    assert list(d.vertices) == [prim.key] == d.attributes["primitives"]
    assert np.array_equal(d.faces[prim.key], prim.faces)
    q = d.sequences
    assert list(q["source"]) == ["a.glb", "a.glb", "b.glb", "b.glb"]
    assert list(q["clip"]) == ["Walk", "Run"] * 2 and list(q["status"]) == ["done"] * 4
    assert list(q["count"]) == list(CLIPS.values()) * 2 and list(q["fps"]) == [30.0] * 4
    assert "gender" not in q and "betas" not in q
    verts, joints = d.vertices[prim.key].compute(), d.joints.compute()
    assert verts.dtype == np.float32 and joints.shape == (len(d), model.skeleton.count, 3)
    seq, t = d.frame_sequence.compute(), d.frame_time.compute()
    scale = np.abs(prim.positions).max()
    for i, (start, clip) in enumerate(zip(q["start"], q["clip"])):
        times = sk.frame_times(model.clip(clip), 30.0)
        rows = slice(int(start), int(start) + len(times))
        assert (seq[rows] == i).all() and np.array_equal(t[rows], times)
        posed = model.pose(clip, times)                   # float64
        world = model.world_matrices(clip, times)
        for k in range(len(times)):                       # frame by frame
            np.testing.assert_allclose(verts[rows][k], posed[prim.key][k], rtol=0,
                                       atol=1e-5 * scale)
            np.testing.assert_allclose(joints[rows][k], world[k, :, :3, 3], rtol=0,
                                       atol=1e-5 * scale)
    assert [c["file"] for c in d.attributes["characters"]] == ["a.glb", "b.glb"]
    assert d.attributes["arguments"]["clips"] == ["Walk", "Run"]


def test_a_character_chunk_whose_mark_is_deleted_is_rebaked_alone(characters, fox_store,
                                                                    cluster, tmp_path):
    out = tmp_path / "s.zarr"
    shutil.copytree(fox_store, out)
    (out / "chunk_done" / "c" / "2").unlink()
    (out / "vertices" / "1_0" / "c" / "2" / "0" / "0").unlink()
    s = sk.dataset.bake([str(characters / "a.glb"), str(characters / "b.glb")], str(out),
                        clips="Walk,Run", frames_per_chunk=K,
                        scheduler=cluster.scheduler_address)
    assert s.ok and s.baked == K
    assert_same_store(out, fox_store)


def test_a_corrupt_character_is_marked_failed_and_the_others_written(characters, fox_store,
                                                                     cluster, tmp_path):
    (tmp_path / "a.glb").write_bytes((characters / "a.glb").read_bytes())
    (tmp_path / "ab.glb").write_bytes((characters / "a.glb").read_bytes()[:5000])  # cut short
    (tmp_path / "b.glb").write_bytes((characters / "b.glb").read_bytes())
    out = tmp_path / "s.zarr"
    p = cli("bake", tmp_path, "--clips", "Walk,Run", "--frames-per-chunk", K,
            "--scheduler", cluster.scheduler_address, "--out", out)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 1, err
    assert "1 failed" in err and "ab.glb" in err and "Traceback" not in err
    d, ref = sk.dataset.open(out), sk.dataset.open(fox_store)
    assert list(d.sequences["source"]) == ["a.glb", "a.glb", "ab.glb", "b.glb", "b.glb"]
    assert list(d.sequences["clip"]) == ["Walk", "Run", "Walk,Run", "Walk", "Run"]
    assert list(d.sequences["status"]) == ["done", "done", "failed", "done", "done"]
    assert "ab.glb" in d.sequences["error"][2]
    assert np.array_equal(d.vertices["1_0"].compute(), ref.vertices["1_0"].compute())
    assert np.array_equal(d.joints.compute(), ref.joints.compute())


@pytest.mark.shared
def test_characters_of_different_layouts_are_refused(characters, cluster, tmp_path):
    rigged = GLTF / "RiggedSimple.glb"
    with pytest.raises(ValueError, match=r"RiggedSimple.glb: its primitives 2_0: 160 vertices"
                                         r".*a.glb's .*1_0: 1728 vertices.*same primitives"):
        sk.dataset.bake([str(characters / "a.glb"), str(rigged)], str(tmp_path / "s.zarr"),
                        clips="all", scheduler=cluster.scheduler_address)
    assert not (tmp_path / "s.zarr").exists()
    with pytest.raises(ValueError, match="clips are for glTF/FBX characters"):
        sk.dataset.bake([str(rigged)], str(tmp_path / "s.zarr"), clips="all", body="x.npz")
    # an unnamed clip is asked for, and named in the store, by its index
    s = sk.dataset.bake([str(rigged)], str(tmp_path / "r.zarr"), clips="all", fps=12.0,
                        scheduler=cluster.scheduler_address)
    q = sk.dataset.open(tmp_path / "r.zarr").sequences
    assert s.ok and list(q["clip"]) == ["0"] and list(q["count"]) == [26]   # 2.083 s at 12 fps


def test_the_cli_refuses_a_character_without_clips(characters, tmp_path):
    p = cli("bake", characters / "a.glb", "--out", tmp_path / "s.zarr")
    _, err = p.communicate(timeout=120)
    assert p.returncode == 2
    assert "a.glb is a glTF/FBX character: give the clips to bake, --clips" in err
    assert not (tmp_path / "s.zarr").exists()


def test_baked_dataset_reads_character_frames(fox_store):
    optional_import("torch", TORCH_HOW)
    from skinkit.torch import BakedDataset
    ds, d = BakedDataset(fox_store), sk.dataset.open(fox_store)
    item = ds[K + 3]
    assert sorted(item) == ["frame_sequence", "frame_time", "joints", "vertices/1_0"]
    assert np.array_equal(item["vertices/1_0"].numpy(), d.vertices["1_0"][K + 3].compute())
    assert np.array_equal(ds.faces["1_0"].numpy(), d.faces["1_0"])
