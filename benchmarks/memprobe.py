"""Peak memory of one LBS call, measured in a fresh process (run by the suite's memory group).

    python benchmarks/memprobe.py skinkit|numpy einsum V [--normals]

Prints JSON: rss_before (bytes resident after the inputs are made), rss_increase (peak
resident bytes during the call minus rss_before), tracemalloc_peak (peak of the NumPy-side
allocations traced during the call, which is where a V x K x 16 temporary made with NumPy would
show), and how the peak was taken.

The peak is Linux's VmHWM after resetting it (``echo 5 > /proc/self/clear_refs``), so the
temporaries made while building the inputs do not hide the call's own.  ru_maxrss is not used
for the increase: a child started by vfork inherits its parent's high-water mark in it.
"""
from __future__ import annotations

import json
import os
import resource
import sys
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    impl, V = argv[0], int(argv[1])
    normals = "--normals" in argv
    import peers
    from cases import make_lbs_problem
    from skinkit import kernels

    v, j, w, m, n = make_lbs_problem(V)
    nrm = n if normals else None
    if impl == "skinkit":
        call = lambda: kernels.linear_blend_skinning(  # noqa: E731
            vertices=v, joints=j, weights=w, skinning_matrices=m, normals=nrm)
    elif impl == "numpy einsum":
        call = lambda: peers.np_lbs(v, j, w, m, nrm)  # noqa: E731
    else:
        raise SystemExit(f"unknown implementation {impl!r}")
    small = make_lbs_problem(16)                      # load lazily imported code paths
    if impl == "skinkit":
        kernels.linear_blend_skinning(vertices=small[0], joints=small[1], weights=small[2],
                                      skinning_matrices=small[3],
                                      normals=small[4] if normals else None)
    else:
        peers.np_lbs(*small[:4], small[4] if normals else None)

    try:                          # give freed heap memory back, so that the call's own
        import ctypes             # allocations cannot hide in pages made while building inputs
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    how = "VmHWM reset by /proc/self/clear_refs, after malloc_trim"
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        how = "VmHWM not resettable: an upper bound (includes making the inputs)"
    rss_before = status_kb("VmRSS")
    tracemalloc.start()
    result = call()
    tm_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    hwm = status_kb("VmHWM")
    del result
    print(json.dumps({"impl": impl, "V": V, "normals": normals, "rss_before": rss_before,
                      "rss_increase": hwm - rss_before, "tracemalloc_peak": tm_peak,
                      "ru_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "how": how}))


if __name__ == "__main__":
    main()
