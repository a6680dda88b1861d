"""``skinkit bake --store motion`` against ``--store meshes`` on the same motions, in one run:

* bytes a frame of each store (the motion store's clips with their metadata; the mesh store's
  frame arrays), and each store's total on disk (the motion store's body model arrays
  included);
* each bake's seconds (one worker process; the cluster's start counted in both);
* the motion store's posing rate on the fly (``MotionStore.frames``, 256 frames at a time:
  decoding, conversion to axis-angle and ``BodyModel.forward``) against ``BodyModel.forward``
  of the same frames from the source parameters, one thread: the decoding's share;
* the worst vertex and joint distance of the posed-back frames from the source's.

Each time is the median of ``--repeats`` interleaved runs (the machine may be shared).

    python benchmarks/bake_motion.py                        # SMPL-X (10475 vertices)
    python benchmarks/bake_motion.py --sequences 2 --frames 300 --repeats 1

The motions are AMASS-layout files written here: smooth (sinusoids) poses of every joint, the
body's swinging 0.4 rad, the hands', jaw's and eyes' 0.1 rad, walking at 1 m/s.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import amass_files  # noqa: E402  AMASS-layout motion files
import skinkit  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402


def du(path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def motion(T: int, fps: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    t = np.arange(T)[:, None] / fps
    amp = np.r_[np.full(66, 0.4), np.full(99, 0.1)]          # body 22 joints; jaw, eyes, hands
    poses = amp * np.sin(rng.uniform(0.5, 3, 165) * t + rng.uniform(0, 2 * np.pi, 165))
    return {"root_orient": poses[:, :3], "pose_body": poses[:, 3:66], "pose_jaw": poses[:, 66:69],
            "pose_eye": poses[:, 69:75], "pose_hand": poses[:, 75:],
            "trans": np.concatenate([t, 0.05 * np.sin(4 * t), 0 * t], axis=1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sequences", type=int, default=2)
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--fps", type=float, default=120.0)
    ap.add_argument("--precision", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="bake-motion-"))
    try:
        np.savez(d / "smplx.npz", **synthetic_body_arrays("SMPL-X", seed=3))
        (d / "motions").mkdir()
        for i in range(a.sequences):
            path = amass_files.write_motion_smplx(d / "motions" / f"m{i}.npz", a.frames,
                                                  fps=a.fps, seed=i)
            with np.load(path) as z:
                np.savez(path, **{**dict(z), **motion(a.frames, a.fps, i)})
        N = a.sequences * a.frames
        times: dict = {"meshes": [], "motion": []}
        for r in range(a.repeats):
            for content in ("meshes", "motion") if r % 2 == 0 else ("motion", "meshes"):
                out = d / f"{content}.zarr"
                shutil.rmtree(out, ignore_errors=True)
                s = skinkit.dataset.bake([str(d / "motions")], str(out), body=str(d / "smplx.npz"),
                                         content=content, precision=a.precision, workers=1)
                assert s.ok, s.line()
                times[content].append(s.seconds)
        mesh_frame = sum(du(d / "meshes.zarr" / k) for k in ("vertices", "joints", "frame_time",
                                                           "frame_sequence")) / N
        motion_frame = du(d / "motion.zarr" / "motion") / N
        print(f"{N} frames of {a.sequences} SMPL-X sequences at {a.fps:g} fps, precision "
              f"{a.precision:g} m")
        print(f"bytes a frame: meshes {mesh_frame:.0f}, motion {motion_frame:.1f} "
              f"(ratio {mesh_frame / motion_frame:.0f}); stores on disk: meshes "
              f"{du(d / 'meshes.zarr') / 1e6:.1f} MB, motion {du(d / 'motion.zarr') / 1e6:.1f} MB "
              f"(of it the body model {du(d / 'motion.zarr' / 'body_models') / 1e6:.1f} MB)")
        print(f"bake seconds (median of {a.repeats}, 1 worker): meshes "
              f"{statistics.median(times['meshes']):.2f}, motion "
              f"{statistics.median(times['motion']):.2f}")
        store = skinkit.dataset.open(d / "motion.zarr")
        body = store.models[0]
        meshes = skinkit.dataset.open(d / "meshes.zarr")
        sources = [skinkit.load_amass(d / "motions" / f"m{i}.npz") for i in range(a.sequences)]
        loader, direct = [], []
        for _ in range(a.repeats):
            store._last = None                      # decode again
            t0 = time.perf_counter()
            for lo in range(0, N, 256):
                store.frames(lo, min(lo + 256, N))
            loader.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for m in sources:
                for lo in range(0, a.frames, 256):
                    sl = slice(lo, lo + 256)
                    body.forward(betas=m.betas[:body.num_betas], pose=m.poses[sl],
                                 transl=m.transl[sl], threads=1)
            direct.append(time.perf_counter() - t0)
        lr, dr = N / statistics.median(loader), N / statistics.median(direct)
        print(f"posing rate, one thread: motion store {lr:.0f} frames/s, BodyModel.forward of "
              f"the source {dr:.0f} frames/s (ratio {lr / dr:.2f})")
        verts, joints = meshes.vertices.compute(), meshes.joints.compute()
        f = store.frames(0, N)
        print(f"worst distance from the source (the mesh store's frames): vertices "
              f"{np.linalg.norm(f['vertices'] - verts, axis=-1).max() * 1e3:.3f} mm, joints "
              f"{np.linalg.norm(f['joints'] - joints, axis=-1).max() * 1e3:.4f} mm")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
