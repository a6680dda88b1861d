"""``skinkit bake`` at scale, measured against its own limits in one run:

* meshes/s of ``skinkit.dataset.bake`` on 1 and 2 worker processes, with zstd and without
  compression (an existing LocalCluster whose workers have loaded the body model, so that
  neither is counted; the planning pass and the store's layout are)
  against the single-process rate of ``BodyModel.pose_blocks`` in blocks of the same frames
  per chunk, one BLAS and one skinkit thread (the per-worker limit; goal: >= 0.9 of it per worker);
* bytes/s the bake wrote (the arrays before compression, and the store's bytes on disk)
  against the disk's own rate: a plain sequential write of the same volume (with and without
  fsync) to the same folder.

    python benchmarks/bake.py                    # SMPL+H (6890 vertices), 4 x 1024 frames
    python benchmarks/bake.py --frames 256 --quick

The motions are AMASS-layout files written here (random poses; tests/amass_files.py).
"""
from __future__ import annotations

import argparse
import functools
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from distributed import LocalCluster  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import amass_files  # noqa: E402  AMASS-layout motion files
import skinkit  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402


def du(path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def pose_blocks_rate(model, motion, K, repeats=3) -> float:
    """Frames/s of BodyModel.pose_blocks over the motion in blocks of K frames, 1 thread (the
    single-process rate a bake worker is measured against)."""
    best = np.inf
    with threadpool_limits(1):
        for _ in range(repeats):
            t = time.perf_counter()
            for _block in model.pose_blocks(motion.betas, motion.poses, motion.transl, frames=K,
                                            threads=1):
                pass
            best = min(best, time.perf_counter() - t)
    return len(motion.poses) / best


def encode_write_seconds(model, motion, K, folder, repeats=3) -> float:
    """Seconds to write one chunk of K frames' vertices with the store's codec (zstd), 1
    thread: the part of a bake task that is not posing."""
    import zarr
    v, _ = model.forward(motion.betas, motion.poses[:K], motion.transl[:K])
    a = zarr.create_array(str(Path(folder) / "codec.zarr"), shape=v.shape, chunks=v.shape,
                          dtype=v.dtype, compressors=skinkit.dataset.store._compressors())
    best = np.inf
    with threadpool_limits(1):
        for _ in range(repeats):
            t = time.perf_counter()
            a[...] = v
            best = min(best, time.perf_counter() - t)
    shutil.rmtree(Path(folder) / "codec.zarr")
    return best


def disk_rate(folder, nbytes, fsync) -> float:
    """Bytes/s of one sequential write of nbytes (random bytes: nothing to compress away)."""
    block = np.random.default_rng(0).integers(0, 256, 1 << 24, dtype=np.uint8).tobytes()
    path = Path(folder) / "plain.bin"
    t = time.perf_counter()
    with open(path, "wb") as f:
        left = nbytes
        while left > 0:
            f.write(block[:min(left, len(block))])
            left -= len(block)
        if fsync:
            f.flush()
            os.fsync(f.fileno())
    rate = nbytes / (time.perf_counter() - t)
    path.unlink()
    return rate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=1024, help="frames per motion (4 motions)")
    ap.add_argument("--frames-per-chunk", type=int, default=256)
    ap.add_argument("--vertices", type=int, default=None, help="default: SMPL+H's 6890")
    ap.add_argument("--quick", action="store_true", help="a tiny model (CI smoke)")
    ap.add_argument("--dir", default=None, help="where the stores go (default: a temp folder)")
    args = ap.parse_args(argv)
    K = args.frames_per_chunk
    V = 200 if args.quick else args.vertices
    work = Path(tempfile.mkdtemp(prefix="skinkit-bake-", dir=args.dir))
    try:
        np.savez(work / "body.npz", **synthetic_body_arrays("SMPL+H", num_vertices=V))
        (work / "motions").mkdir()
        for i in range(4):
            amass_files.write_motion(work / "motions" / f"m{i}.npz", args.frames, seed=i)
        model = skinkit.load_body_model(work / "body.npz", dtype=np.float32)
        motion = skinkit.load_amass(work / "motions" / "m0.npz")
        single = pose_blocks_rate(model, motion, K)
        print(f"model: {model}; {4 * args.frames} frames, {K} frames per chunk")
        print(f"pose_blocks, 1 process, 1 thread: {single:10.1f} meshes/s")
        enc = encode_write_seconds(model, motion, K, work)
        print(f"zstd encode + write of a {K}-frame chunk: {enc * 1e3:.0f} ms = "
              f"{enc * single / K:.2f} of posing it; bound for a worker: "
              f"{1 / (1 + enc * single / K):.2f} of pose_blocks")
        nbytes = stored = 0
        for compression, n in ((c, n) for c in ("zstd", "none") for n in (1, 2)):
            out = work / f"w{n}-{compression}.zarr"
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster:
                bake = functools.partial(skinkit.dataset.bake, body=str(work / "body.npz"),
                                         frames_per_chunk=K, compression=compression,
                                         scheduler=cluster.scheduler_address)
                # warm-up: every worker loads the body model once (a worker keeps it)
                bake([str(work / "motions" / "m0.npz")], str(work / "warm.zarr"))
                shutil.rmtree(work / "warm.zarr")
                s = bake([str(work / "motions")], str(out))
            rate = s.baked / s.seconds
            nbytes, stored = s.bytes, du(out)
            print(f"bake, {compression:4s}, {n} worker(s):  {rate:10.1f} meshes/s = "
                  f"{rate / n / single:.2f} of pose_blocks per worker; arrays "
                  f"{nbytes / s.seconds / 1e6:.1f} MB/s, on disk {stored / s.seconds / 1e6:.1f} "
                  f"MB/s ({stored / nbytes:.2f} of the arrays' bytes on disk)")
            shutil.rmtree(out)
        for fsync in (False, True):
            r = disk_rate(work, stored, fsync)
            print(f"disk, plain sequential write of {stored / 1e6:.0f} MB"
                  f"{' + fsync' if fsync else ''}: {r / 1e6:10.1f} MB/s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
