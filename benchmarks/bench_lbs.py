"""Linear blend skinning: skinkit's C kernel against a plain NumPy (einsum) implementation.

One pose, 4 influences per vertex, float32, J = 64 joints, V = 10k and 100k vertices (1M with
``--large``).  Both implementations run in the same process, interleaved (skinkit, NumPy,
skinkit, NumPy, ...) so that machine noise hits both alike; the table gives the median of each
and the ratio NumPy / skinkit (how many times faster skinkit is).  The results are checked to
agree before timing.

Usage::

    python benchmarks/bench_lbs.py            # V = 10k, 100k
    python benchmarks/bench_lbs.py --large    # also V = 1M
    python benchmarks/bench_lbs.py --quick    # V = 1k, a few repeats (CI smoke run)
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np

import skinkit
from skinkit import kernels


def make_problem(V, J=64, K=4, dtype=np.float32, seed=0):
    """Random bind-pose vertices, K influences per vertex (weights summing to 1), J rigid
    skinning matrices (rotation about a random axis plus a translation)."""
    rng = np.random.default_rng(seed)
    vertices = rng.uniform(-1, 1, (V, 3)).astype(dtype)
    joints = rng.integers(0, J, (V, K)).astype(np.uint16)
    weights = rng.random((V, K))
    weights = (weights / weights.sum(axis=1, keepdims=True)).astype(dtype)
    rotvec = rng.normal(size=(J, 3))
    mats = np.zeros((J, 4, 4))
    mats[:, :3, :3] = kernels.quat_to_matrix(kernels.quat_from_axis_angle(rotvec))
    mats[:, :3, 3] = rng.normal(size=(J, 3))
    mats[:, 3, 3] = 1
    return vertices, joints, weights, mats.astype(dtype)


def lbs_numpy(vertices, joints, weights, mats):
    """Plain NumPy LBS: blend the 3x4 matrices per vertex, then apply them."""
    blended = np.einsum("vk,vkij->vij", weights, mats[joints, :3, :])     # (V, 3, 4)
    return np.einsum("vij,vj->vi", blended[:, :, :3], vertices) + blended[:, :, 3]


def lbs_skinkit(vertices, joints, weights, mats):
    return kernels.linear_blend_skinning(vertices, joints, weights, mats)


def bench(V, repeats, min_time=0.05):
    args = make_problem(V)
    a, b = lbs_skinkit(*args), lbs_numpy(*args)
    assert a.dtype == np.float32 and b.dtype == np.float32
    err = float(np.abs(a - b).max())
    if err > 1e-4:
        raise AssertionError(f"skinkit and NumPy disagree by {err} at V = {V}")
    # calls per timing sample so that one sample lasts >= min_time for skinkit
    t0 = time.perf_counter()
    lbs_skinkit(*args)
    one = max(time.perf_counter() - t0, 1e-7)
    inner = max(1, int(min_time / one))
    times = {"skinkit": [], "numpy": []}
    for _ in range(repeats):
        for name, fn in (("skinkit", lbs_skinkit), ("numpy", lbs_numpy)):
            n = inner if name == "skinkit" else max(1, inner // 20)
            t0 = time.perf_counter()
            for _ in range(n):
                fn(*args)
            times[name].append((time.perf_counter() - t0) / n)
    return {k: statistics.median(v) for k, v in times.items()}, err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="V = 1k, 3 repeats (a smoke run)")
    ap.add_argument("--large", action="store_true", help="also V = 1M")
    ap.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 7)")
    args = ap.parse_args(argv)
    if args.quick:
        sizes, repeats, min_time = [1_000], args.repeats or 3, 0.005
    else:
        sizes = [10_000, 100_000] + ([1_000_000] if args.large else [])
        repeats, min_time = args.repeats or 7, 0.05
    print(f"skinkit {skinkit.__version__}, NumPy {np.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}")
    print("LBS, one pose, K = 4 influences, J = 64 joints, float32; "
          f"median of {repeats} interleaved repeats")
    print(f"{'V':>10} {'skinkit ms':>12} {'NumPy ms':>12} {'NumPy/skinkit':>14} "
          f"{'Mvert/s':>9} {'max |diff|':>11}")
    for V in sizes:
        med, err = bench(V, repeats, min_time)
        sk, npy = med["skinkit"], med["numpy"]
        print(f"{V:>10,} {sk * 1e3:>12.3f} {npy * 1e3:>12.3f} {npy / sk:>13.1f}x "
              f"{V / sk / 1e6:>9.1f} {err:>11.2g}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
