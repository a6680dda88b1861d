"""Posed meshes on the fly against a baked store, in one run (meshes/s, SMPL+H's 6890 vertices):

* ``skinkit.dataset.MotionCrops`` in the process, and ``skinkit.torch.MotionDataset`` through
  a DataLoader of 1 and 2 workers (crops of AMASS-like motions posed in the loader, random
  betas, mirroring and heading, resampled to 20 fps), without features and with HumanML3D's;
* the same number of frames read back from a store that ``skinkit.dataset.bake`` wrote of the
  same motions (``BakedDataset``, 2 workers): sequential, shuffled by ``ChunkGroupedSampler``,
  and shuffled uniformly (each frame from another chunk);
* the single-process posing rate: ``BodyModel.pose_blocks``, one thread.

    python benchmarks/motion_loader.py            # 4 motions of 30 s at 120 fps
    python benchmarks/motion_loader.py --quick    # a tiny model (smoke)

The motions are AMASS-layout files written here (random poses; tests/amass_files.py).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import torch  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import amass_files  # noqa: E402  AMASS-layout motion files
import skinkit  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402
from skinkit.dataset import Augmentation, MotionCrops  # noqa: E402
from skinkit.torch import BakedDataset, ChunkGroupedSampler, MotionDataset  # noqa: E402


def rate(loader, frames_of) -> float:
    """Meshes/s of one pass over a DataLoader, from its first batch on (the workers' start
    left out)."""
    batches = iter(loader)
    next(batches)
    t, n = time.perf_counter(), 0
    for batch in batches:
        n += frames_of(batch)
    return n / (time.perf_counter() - t)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="length of each of 4 motions")
    ap.add_argument("--frames", type=int, default=32, help="frames per crop (20 fps)")
    ap.add_argument("--quick", action="store_true", help="a tiny model (smoke)")
    args = ap.parse_args(argv)
    V = 200 if args.quick else None
    work = Path(tempfile.mkdtemp(prefix="skinkit-loader-"))
    try:
        np.savez(work / "body.npz", **synthetic_body_arrays("SMPL+H", num_vertices=V))
        (work / "motions").mkdir()
        for i in range(4):
            amass_files.write_motion(work / "motions" / f"m{i}.npz", int(args.seconds * 120),
                                     fps=120.0, seed=i)
        model = skinkit.load_body_model(work / "body.npz", dtype=np.float32)
        motion = skinkit.load_amass(work / "motions" / "m0.npz").resample(20.0)
        with threadpool_limits(1):
            t = time.perf_counter()
            for _ in model.pose_blocks(motion.betas, motion.poses, motion.transl,
                                       frames=args.frames, threads=1):
                pass
            single = len(motion.poses) / (time.perf_counter() - t)
        print(f"model: {model}; crops of {args.frames} frames at 20 fps")
        print(f"pose_blocks, 1 process, 1 thread:      {single:9.1f} meshes/s")
        crops_per_motion = max(2, int(args.seconds * 20) // args.frames)   # as many frames
        for features in ((), ("humanml3d",)):
            crops = MotionCrops.from_folder(
                work / "motions", model, frames=args.frames, crops_per_motion=crops_per_motion,
                features=features, augmentation=Augmentation(0.5, 0.5, True))
            with threadpool_limits(1):
                t = time.perf_counter()
                n = sum(len(item["vertices"]) for item in crops)
                r = n / (time.perf_counter() - t)
            print(f"MotionCrops, in process, features {list(features)!s:13s}: "
                  f"{r:9.1f} meshes/s = {r / single:.2f} of posing")
            for workers in (1, 2):
                loader = torch.utils.data.DataLoader(MotionDataset(crops), batch_size=4,
                                                     num_workers=workers)
                r = rate(loader, lambda b: b["vertices"].shape[0] * b["vertices"].shape[1])
                print(f"MotionDataset, {workers} worker(s), features {list(features)!s:13s}: "
                      f"{r:9.1f} meshes/s = {r / workers / single:.2f} of posing per worker")
        out = work / "store.zarr"
        s = skinkit.dataset.bake([str(work / "motions")], str(out), body=str(work / "body.npz"),
                                 frames_per_chunk=256, fps=20.0, workers=1)
        ds = BakedDataset(out)
        orders = {"sequential": None, "ChunkGroupedSampler": ChunkGroupedSampler(ds),
                  # a chunk decoded for nearly every frame: 8 batches are enough to see it
                  "uniform shuffle": torch.utils.data.RandomSampler(ds, num_samples=256)}
        for name, sampler in orders.items():
            loader = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=2,
                                                 sampler=sampler)
            r = rate(loader, lambda b: b["vertices"].shape[0])
            print(f"BakedDataset, 2 workers, {name:20s}: {r:9.1f} meshes/s = "
                  f"{r / 2 / single:.2f} of posing per worker ({s.baked} frames)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
