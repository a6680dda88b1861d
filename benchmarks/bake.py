"""``skinkit bake`` at scale, measured against its own limits in one run:

* bytes per frame and the seconds to encode and write one chunk of posed vertices with each
  codec (none, zstd, a byte shuffle + zstd, and float16 as the quantization), against posing
  that chunk: the part of a bake task that is not posing;
* meshes/s of ``skinkit.dataset.bake`` on 1 and 2 worker processes, without compression (the
  default) and with zstd (existing LocalClusters whose workers have loaded the body model, so
  that neither is counted; the planning pass and the store's layout are)
  against the single-process rate of ``BodyModel.pose_blocks`` in blocks of the same frames
  per chunk, one BLAS and one skinkit thread (the per-worker limit; goal: >= 0.8 of it per
  worker), and the CPU seconds a mesh took in the worker processes (user + system, every
  thread) against the posing's: what a busy machine's timings cannot hide;
* bytes/s the bake wrote (the arrays before compression, and the store's bytes on disk)
  against the disk's own rate: a plain sequential write of the same volume (with and without
  fsync) to the same folder.

Each figure is the median of ``--repeats`` interleaved runs (the machine may be shared).  The
last line is the goal's figure: 1 worker, no compression, per worker against the posing rate.

    python benchmarks/bake.py                    # SMPL+H (6890 vertices), 4 x 4096 frames
    python benchmarks/bake.py --bakes none:1 --repeats 5 --no-codecs   # the goal's figure only
    python benchmarks/bake.py --frames 256 --quick --repeats 1

The motions are AMASS-layout files written here (random poses; tests/amass_files.py).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from distributed import Client, LocalCluster  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import amass_files  # noqa: E402  AMASS-layout motion files
import skinkit  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402


def du(path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def cpu_seconds() -> float:
    """This process's CPU seconds so far, user + system, every thread."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def pose_blocks_rate(model, motion, K) -> tuple:
    """Frames/s of BodyModel.pose_blocks over the motion in blocks of K frames, 1 thread (the
    single-process rate a bake worker is measured against), and its CPU seconds a frame."""
    with threadpool_limits(1):
        t, cpu = time.perf_counter(), cpu_seconds()
        for _block in model.pose_blocks(motion.betas, motion.poses, motion.transl, frames=K,
                                        threads=1):
            pass
        n = len(motion.poses)
        return n / (time.perf_counter() - t), (cpu_seconds() - cpu) / n


# name -> (dtype, zarr codecs): the bake's own (none, zstd; float16 its quantization) and a
# byte shuffle before zstd (blosc's, which a bake does not write) to see whether it pays
CODECS = {
    "none": ("float32", lambda zarr: None),
    "zstd": ("float32", lambda zarr: skinkit.dataset.store._compressors("zstd")),
    "shuffle+zstd": ("float32", lambda zarr: [zarr.codecs.BloscCodec(
        cname="zstd", clevel=1, shuffle="shuffle", typesize=4)]),
    "float16, none": ("float16", lambda zarr: None),
    "float16, zstd": ("float16", lambda zarr: skinkit.dataset.store._compressors("zstd")),
}


def codec_costs(model, motion, K, folder, repeats):
    """{codec: (bytes per frame of vertices, seconds to write a K-frame chunk)} and the
    seconds to pose it, medians of interleaved runs on 1 thread."""
    import numcodecs
    import zarr
    numcodecs.blosc.set_nthreads(1)
    times = {name: [] for name in ("pose", *CODECS)}
    size = {}
    path = Path(folder) / "codec.zarr"
    with threadpool_limits(1), zarr.config.set({"array.write_empty_chunks": True}):
        for _ in range(repeats):
            t = time.perf_counter()
            v, _ = model.forward(motion.betas, motion.poses[:K], motion.transl[:K], threads=1)
            times["pose"].append(time.perf_counter() - t)
            for name, (dtype, codecs) in CODECS.items():
                a = zarr.create_array(str(path), shape=v.shape, chunks=v.shape, dtype=dtype,
                                      compressors=codecs(zarr), fill_value=0, overwrite=True)
                t = time.perf_counter()
                a[...] = v.astype(dtype, copy=False)
                times[name].append(time.perf_counter() - t)
                size[name] = du(path / "c") / K
    shutil.rmtree(path)
    median = {k: float(np.median(t)) for k, t in times.items()}
    return {k: (size[k], median[k]) for k in CODECS}, median["pose"]


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
    ap.add_argument("--frames", type=int, default=4096, help="frames per motion (4 motions)")
    ap.add_argument("--frames-per-chunk", type=int, default=256)
    ap.add_argument("--vertices", type=int, default=None, help="default: SMPL+H's 6890")
    ap.add_argument("--quick", action="store_true", help="a tiny model (CI smoke)")
    ap.add_argument("--dir", default=None, help="where the stores go (default: a temp folder)")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved runs of each figure")
    ap.add_argument("--bakes", default="none:1,none:2,zstd:1,zstd:2",
                    help="the bakes measured, COMPRESSION:WORKERS,...")
    ap.add_argument("--no-codecs", action="store_true", help="leave the codec table out")
    args = ap.parse_args(argv)
    K = args.frames_per_chunk
    V = 200 if args.quick else args.vertices
    runs = [(c, int(n)) for c, n in (b.split(":") for b in args.bakes.split(","))]
    work = Path(tempfile.mkdtemp(prefix="skinkit-bake-", dir=args.dir))
    try:
        np.savez(work / "body.npz", **synthetic_body_arrays("SMPL+H", num_vertices=V))
        (work / "motions").mkdir()
        for i in range(4):
            amass_files.write_motion(work / "motions" / f"m{i}.npz", args.frames, seed=i)
        model = skinkit.load_body_model(work / "body.npz", dtype=np.float32)
        motion = skinkit.load_amass(work / "motions" / "m0.npz")
        print(f"model: {model}; {4 * args.frames} frames, {K} frames per chunk; medians of "
              f"{args.repeats} interleaved runs; {os.cpu_count()} CPUs")
        if not args.no_codecs:
            costs, pose = codec_costs(model, motion, K, work, args.repeats)
            print(f"posing a {K}-frame chunk: {pose * 1e3:.0f} ms; writing it:")
            for name, (per_frame, seconds) in costs.items():
                print(f"  {name:14s} {per_frame:9.0f} bytes a frame "
                      f"({per_frame / costs['none'][0]:.3f} of float32), "
                      f"{seconds * 1e3:5.1f} ms = {seconds / pose:.2f} of posing it")
        rates = {r: [] for r in runs}
        ratios = {r: [] for r in runs}
        cpus = {r: [] for r in runs}
        singles, single_cpus = [], []
        stored = 0
        with contextlib.ExitStack() as stack:
            clusters = {n: stack.enter_context(LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None))
                for n in sorted({n for _, n in runs})}
            clients = {n: stack.enter_context(Client(c)) for n, c in clusters.items()}
            for n, cluster in clusters.items():  # every worker loads the body model once
                skinkit.dataset.bake([str(work / "motions" / "m0.npz")], str(work / "warm.zarr"),
                                     body=str(work / "body.npz"), frames_per_chunk=K,
                                     scheduler=cluster.scheduler_address)
                shutil.rmtree(work / "warm.zarr")
            for _ in range(args.repeats):
                single, single_cpu = pose_blocks_rate(model, motion, K)
                singles.append(single)
                single_cpus.append(single_cpu)
                for compression, n in runs:
                    out = work / f"w{n}-{compression}.zarr"
                    before = sum(clients[n].run(cpu_seconds).values())
                    s = skinkit.dataset.bake([str(work / "motions")], str(out),
                                             body=str(work / "body.npz"), frames_per_chunk=K,
                                             compression=compression,
                                             scheduler=clusters[n].scheduler_address)
                    cpus[compression, n].append(
                        (sum(clients[n].run(cpu_seconds).values()) - before) / s.baked)
                    rates[compression, n].append(s.baked / s.seconds)
                    ratios[compression, n].append(s.baked / s.seconds / n / single)
                    if compression == "zstd" or not stored:
                        stored = du(out)
                    shutil.rmtree(out)
        single_cpu = np.median(single_cpus)
        print(f"pose_blocks, 1 process, 1 thread: {np.median(singles):10.1f} meshes/s, "
              f"{single_cpu * 1e3:.3f} CPU ms a mesh")
        for compression, n in runs:
            rate, cpu = np.median(rates[compression, n]), np.median(cpus[compression, n])
            print(f"bake, {compression:4s}, {n} worker(s):  {rate:10.1f} meshes/s = "
                  f"{np.median(ratios[compression, n]):.2f} of pose_blocks per worker "
                  f"(runs: {', '.join(f'{r:.2f}' for r in ratios[compression, n])}); "
                  f"{cpu * 1e3:.3f} CPU ms a mesh = {cpu / single_cpu:.2f}x posing's")
        for fsync in (False, True):
            r = disk_rate(work, stored, fsync)
            print(f"disk, plain sequential write of {stored / 1e6:.0f} MB"
                  f"{' + fsync' if fsync else ''}: {r / 1e6:10.1f} MB/s")
        if ("none", 1) in runs:
            print(f"goal (>= 0.8): bake, 1 worker, no compression: "
                  f"{np.median(ratios['none', 1]):.2f} of the single-process posing rate")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
