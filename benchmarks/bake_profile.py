"""Where a bake worker's time goes: ``skinkit.dataset.bake`` on a LocalCluster of N worker
processes, each worker process sampled by py-spy (``pip install py-spy``) during the measured
bake only (attached once the cluster is up and the body model loaded by a first bake), the
samples of its threads busy with the bake summed by what they were doing (posing, zstd,
zarr's write path, flushing, waiting on another thread, Dask's own work), and the top frames
by own time (a native frame without a symbol named by its Python caller).

    python benchmarks/bake_profile.py                          # 1 worker, no compression
    python benchmarks/bake_profile.py --workers 2 --compression zstd

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
import time
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
    ("flush to disk, drop from the page cache", ("_flush",)),
    ("zarr: file write, rename", ("local.py", "write (libc", "rename")),
    ("zarr: metadata, chunk marks", ("open_group", "done (", "metadata")),
    ("motion read (load_amass)", ("read_motion", "load_amass")),
    ("zarr: codec pipeline, indexing, copies", ("zarr/",)),
    ("bake task: chunk arrays", ("bake.py",)),
    ("Dask worker: comms, serialisation, scheduling", ("distributed/", "tornado", "pickle")),
)


def bake_child(work: Path, workers: int, compression: str) -> None:
    """The bake py-spy samples (run in a child process: ``--child``): the cluster and a first
    bake that loads the body model, then the worker pids written to ``work/pids``, then (once
    ``work/go`` exists: py-spy attached) the measured bake."""
    import functools

    from distributed import Client, LocalCluster

    import skinkit
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        bake = functools.partial(skinkit.dataset.bake, body=str(work / "body.npz"),
                                 compression=compression, scheduler=cluster.scheduler_address)
        bake([str(work / "motions" / "m0.npz")], str(work / "warm.zarr"))   # models loaded
        pids = client.run(lambda: __import__("os").getpid())
        (work / "pids").write_text(" ".join(str(p) for p in pids.values()))
        while not (work / "go").exists():
            time.sleep(0.05)
        s = bake([str(work / "motions")], str(work / "s.zarr"))
    print(f"bake, {compression}, {workers} worker(s): {s.baked / s.seconds:.1f} meshes/s")


def leaf(frames: list) -> str:
    """A sample's own-time frame, its folders left out; a native frame without a symbol (an
    address in libc: memcpy, memset, page faults, futex waits) named by its Python caller."""
    name = re.sub(r"\(/\S*/", "(", frames[-1])
    if re.match(r"0x[0-9a-f]+ ", name):
        caller = re.sub(r"\(/\S*/", "(", next((f for f in reversed(frames) if ".py:" in f), "?"))
        name = f"{name.split(' ', 1)[1]} in {caller}"
    return name


def summarise(raw: str, top: int) -> None:
    """Print the samples of threads busy with the bake by CATEGORIES, then the top own-time
    frames; samples in a futex wait (py-spy counts them as running) are counted apart."""
    cats: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    waiting = 0
    for line in raw.splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if not any("bake.py" in f or "zarr/" in f for f in frames):
            continue                    # the worker's idle event loop, its heartbeats
        if "Condition.wait" in leaf(frames):
            waiting += int(n)           # the writer waiting on zarr's event loop, or the task on
            continue                    # the writer
        name = next((c for c, keys in CATEGORIES if any(k in f for f in frames for k in keys)),
                    "other")
        cats[name] += int(n)
        leaves[leaf(frames)] += int(n)
    total = sum(cats.values()) or 1
    print(f"worker threads busy with the bake: {total} samples (and {waiting} waiting on "
          "another thread, not counted)")
    for name, n in cats.most_common():
        print(f"  {n / total:6.1%}  {name}")
    print("top own time:")
    for name, n in leaves.most_common(top):
        print(f"  {n / total:6.1%}  {name[:110]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=4096, help="frames per motion (4 motions)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--compression", default="none")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--rate", type=int, default=100, help="py-spy's samples a second")
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
        child = subprocess.Popen([sys.executable, __file__, "--child", str(work), "--workers",
                                  str(args.workers), "--compression", args.compression],
                                 stderr=subprocess.DEVNULL)
        while not (work / "pids").exists() and child.poll() is None:
            time.sleep(0.05)
        spies = [subprocess.Popen([py_spy, "record", "--pid", pid, "--native", "--rate",
                                   str(args.rate), "--format", "raw", "--output",
                                   str(work / f"profile-{pid}.txt")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for pid in (work / "pids").read_text().split()]
        time.sleep(1.0)                 # py-spy attached
        (work / "go").touch()
        if child.wait() != 0:
            raise SystemExit(f"the bake failed (exit status {child.returncode})")
        for spy in spies:               # each ends with its worker, as the cluster closes
            spy.wait(timeout=60)
        summarise("\n".join(p.read_text() for p in work.glob("profile-*.txt")), args.top)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
