"""Time to pose a whole glTF scene and how it splits between the stages of ``skinkit.pose``.

    python benchmarks/scene.py [MODEL] [--clip NAME] [--frames 1000] [--repeat 5]

Default: RobotExpressive (../shared/fixtures/gltf), clip "Wave", 1,000 frames over the clip,
float64.
Prints the median of ``--repeat`` runs of each stage, timed separately on the same inputs:
sampling (Clip.sample and Clip.sample_weights), forward kinematics, morph targets
(blend_shapes), skinning (skinning matrices and linear blend skinning), rigid instances (one
matrix product per instance), the whole ``Model.pose`` call, and writing the .npz as
``skinkit pose`` does.  A measurement, not a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import skinkit
from skinkit import kernels
from skinkit.io.mesh_files import write_atomic
from skinkit.model.pose import morph_weights, skinning_matrices
from skinkit.model.stages import _morph, _rigid, _skin

HERE = os.path.dirname(os.path.abspath(__file__))
# the project's shared data beside the repository ($SKINKIT_SHARED overrides)
ROBOT = os.path.join(os.environ.get("SKINKIT_SHARED", os.path.join(HERE, "..", "..", "shared")),
                     "fixtures", "gltf", "RobotExpressive.glb")


def median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", nargs="?", default=ROBOT)
    p.add_argument("--clip", default="Wave")
    p.add_argument("--frames", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    args = p.parse_args(argv)

    model = skinkit.load_gltf(args.model, dtype=args.dtype)
    clip = model.clip(args.clip)
    times = np.linspace(0, clip.duration, args.frames)
    sk = model.skeleton
    rest = (sk.translations, sk.rotations, sk.scales)
    trs = clip.sample(times, rest)
    world = kernels.forward_kinematics(sk.parents, trs[1], trs[0], trs[2])
    weights = morph_weights(model, clip, times)
    skinned = [p for p in model.primitives if p.skinned]
    rigid = [p for p in model.primitives if not p.skinned]
    morphed = {p.key: _morph(p, weights.get(p.node), False) for p in model.primitives}
    posed = model.pose(clip, times)

    stages = {
        "sampling (TRS + morph weights)": lambda: (clip.sample(times, rest),
                                                   clip.sample_weights(times)),
        "forward kinematics": lambda: kernels.forward_kinematics(sk.parents, trs[1], trs[0],
                                                                 trs[2]),
        "morph targets (blend_shapes)": lambda: [_morph(p, weights.get(p.node), False)
                                                 for p in model.primitives],
        "skinning (matrices + LBS)": lambda: [
            _skin(p, morphed[p.key][0], None, m[p.skin])
            for m in [skinning_matrices(model, world)] for p in skinned],
        "rigid instances": lambda: [_rigid(world[:, p.node], morphed[p.key][0], None)
                                    for p in rigid],
    }
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "scene.npz")
        arrays = {"times": times, **posed.arrays()}
        stages["writing the .npz"] = lambda: write_atomic(out, lambda f: np.savez(f, **arrays),
                                                           suffix=".npz")
        results = {name: median_seconds(fn, args.repeat) for name, fn in stages.items()}
        whole = median_seconds(lambda: model.pose(clip, times), args.repeat)
    nverts = sum(len(p.positions) for p in model.primitives)
    print(f"{os.path.basename(args.model)}: clip {clip.name!r}, {args.frames} frames, "
          f"{len(model.primitives)} primitive instances ({len(skinned)} skinned, "
          f"{sum(p.target_count > 0 for p in model.primitives)} with morph targets), "
          f"{nverts} vertices, {sk.count} nodes, {args.dtype}; median of {args.repeat}")
    for name, s in results.items():
        print(f"  {name:34s} {s * 1e3:9.2f} ms")
    print(f"  {'Model.pose (all of the above but writing)':34s} {whole * 1e3:9.2f} ms "
          f"({args.frames * nverts / whole / 1e6:.1f} M vertices/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
