"""Where a bake worker's time goes: ``skinkit.dataset.bake`` on a LocalCluster of N worker
processes, sampled by py-spy (``pip install py-spy``) in every process, the samples of the
worker processes' busy threads summed by what they were doing (posing, zstd, zarr's write
path, Dask's own work), and the top functions by own time.

    python benchmarks/bake_profile.py                       # 1 worker, zstd, SMPL+H
    python benchmarks/bake_profile.py --workers 2 --compression none

The motions are AMASS-layout files written here (random poses; tests/amass_files.py).
"""
from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import amass_files  # noqa: E402  AMASS-layout motion files

# (what, substrings of a stack's frames): the first that matches a sample names it
CATEGORIES = (
    ("posing (BodyModel.forward: BLAS, LBS, FK)", ("body_model.py",)),
    ("zstd encode", ("ZSTD_", "HUF_", "zstd")),
    ("zarr: scan for the fill value", ("all_equal",)),
    ("zarr: file write, rename", ("local.py", "write (libc", "rename")),
    ("zarr: metadata (open_group, chunk_done)", ("open_group", "chunk_done", "metadata")),
    ("motion read (load_amass)", ("read_motion", "load_amass")),
    ("zarr: codec pipeline, indexing, copies", ("zarr/",)),
    ("bake task: chunk arrays, waits", ("bake.py",)),
    ("Dask worker: comms, serialisation, scheduling", ("distributed/", "tornado", "pickle")),
)


def bake_child(work: Path, workers: int, compression: str) -> None:
    """The bake py-spy samples (run in a child process: ``--child``)."""
    import functools

    from distributed import LocalCluster

    import skinkit
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        bake = functools.partial(skinkit.dataset.bake, body=str(work / "body.npz"),
                                 compression=compression, scheduler=cluster.scheduler_address)
        bake([str(work / "motions" / "m0.npz")], str(work / "warm.zarr"))   # models loaded
        s = bake([str(work / "motions")], str(work / "s.zarr"))
    print(f"bake, {compression}, {workers} worker(s): {s.baked / s.seconds:.1f} meshes/s")


def summarise(raw: str, top: int) -> None:
    """Print the worker processes' samples by CATEGORIES, then the top own-time frames."""
    cats: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    for line in raw.splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        # a worker's stack: the bake's process, then the spawned worker process
        if len(frames) < 3 or "multiprocessing" not in frames[1]:
            continue
        frames = frames[2:]
        if not any("bake.py" in f or "zarr/" in f for f in frames):
            continue                    # the worker's idle event loop, its heartbeats
        name = next((c for c, keys in CATEGORIES if any(k in f for f in frames for k in keys)),
                    "other")
        cats[name] += int(n)
        leaves[re.sub(r"\(/\S*/", "(", frames[-1])] += int(n)
    total = sum(cats.values()) or 1
    print(f"worker threads busy with the bake: {total} samples")
    for name, n in cats.most_common():
        print(f"  {n / total:6.1%}  {name}")
    print("top own time:")
    for name, n in leaves.most_common(top):
        print(f"  {n / total:6.1%}  {name[:100]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=1024, help="frames per motion (4 motions)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--compression", default="zstd")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        bake_child(Path(args.child), args.workers, args.compression)
        return 0
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(py_spy).exists():
        raise SystemExit("py-spy is not installed: pip install py-spy")
    from skinkit.body.synthetic import synthetic_body_arrays
    work = Path(tempfile.mkdtemp(prefix="skinkit-bake-profile-"))
    try:
        np.savez(work / "body.npz", **synthetic_body_arrays("SMPL+H"))
        (work / "motions").mkdir()
        for i in range(4):
            amass_files.write_motion(work / "motions" / f"m{i}.npz", args.frames, seed=i)
        raw = work / "profile.txt"
        subprocess.run([py_spy, "record", "--subprocesses", "--native", "--rate", "200",
                        "--format", "raw", "--output", str(raw), "--", sys.executable,
                        __file__, "--child", str(work), "--workers", str(args.workers),
                        "--compression", args.compression], check=True,
                       stderr=subprocess.DEVNULL)
        summarise(raw.read_text(), args.top)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
