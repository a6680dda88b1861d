"""Posing and writing a long clip whole against block by block, with the machine's own write rate.

    python benchmarks/stream.py [MODEL] [--clip NAME] [--frames N] [--repeat R]

Prints, for one clip posed at N frames (normals included): the frames per second of one
``Model.pose`` call and of ``Model.pose_blocks`` at 64 and 256 frames a block (ratios to the
whole call), and the traced peak memory of each (tracemalloc); then the .npz written the old way
(posing everything, then ``np.savez``) against ``skinkit pose``'s way (blocks streamed into
``NpzStream``), both as MB/s of output, against the rate of plain ``os.write`` of as many bytes in
4 MiB pieces into the same folder (the page cache's and the disk's limit, measured in the same
run).  Medians of R runs.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import tracemalloc

import numpy as np
from scene import median_seconds   # benchmarks/scene.py, beside this script

import skinkit
from skinkit.io.mesh_files import write_atomic
from skinkit.model.pose import layout
from skinkit.cli.outputs import NpzOutput

ROBOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "gltf",
                     "RobotExpressive.glb")


def traced_peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def consume(blocks):
    for block in blocks:
        del block


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default=ROBOT)
    parser.add_argument("--clip", default="0")
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    model = skinkit.load_gltf(args.model)
    clip = int(args.clip) if args.clip.isdigit() else args.clip
    duration = model.clip(clip).duration
    request = model.request(clip, fps=(args.frames - 1) / duration, normals=True)
    n = request.count
    print(f"{os.path.basename(args.model)}: clip {model.clip(clip).name!r}, {n} frames, "
          f"{sum(len(p.positions) for p in model.primitives)} vertices, normals; median of "
          f"{args.repeat}")

    runs = {"pose() whole": lambda: model.pose(request)}
    for frames in (64, 256):
        runs[f"pose_blocks({frames})"] = (
            lambda frames=frames: consume(model.pose_blocks(request, frames=frames)))
    whole = None
    for name, fn in runs.items():
        s = median_seconds(fn, args.repeat)
        whole = whole or s
        print(f"  {name:22s} {n / s:10.0f} frames/s  x{whole / s:5.2f}  "
              f"peak {traced_peak(fn) / 1e6:8.1f} MB")

    members = {"times": ((n,), request.dtype), **layout(model, request)}
    with tempfile.TemporaryDirectory(dir=os.getcwd()) as folder:
        out = os.path.join(folder, "o.npz")

        def savez():
            posed = model.pose(request)
            arrays = {"times": posed.times, **posed.arrays()}
            write_atomic(out, lambda f: np.savez(f, **arrays), suffix=".npz")

        def streamed():
            NpzOutput(out, members, {}).write(model.pose_blocks(request))

        size = NpzOutput(out, members, {}).size()
        piece = np.zeros(4 << 20, np.uint8)

        def plain_write():
            fd = os.open(os.path.join(folder, "plain"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            try:
                for _ in range(size // piece.size + 1):
                    os.write(fd, piece)
            finally:
                os.close(fd)

        disk = median_seconds(plain_write, args.repeat)
        print(f"  {'os.write, 4 MiB pieces':22s} {size / disk / 1e6:10.0f} MB/s  (the limit; "
              f"{size / 1e6:.0f} MB)")
        for name, fn in (("pose + np.savez", savez), ("pose_blocks + NpzStream", streamed)):
            s = median_seconds(fn, args.repeat)
            print(f"  {name:22s} {size / s / 1e6:10.0f} MB/s  x{disk / s:5.2f} of the limit  "
                  f"peak {traced_peak(fn) / 1e6:8.1f} MB")


if __name__ == "__main__":
    main()
