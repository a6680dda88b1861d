"""skinkit against usd-core on UsdSkel files: accuracy and skinning time.

    PYTHONPATH=python python benchmarks/usd.py [--files DIR] [--repeats N] [--threads N]

Accuracy: every file of the USD oracle folder (/work/shared/usd/files by default) loaded with
``skinkit.load_usd`` and posed at every time code, against usd-core's ``UsdSkel.BakeSkinning``
(tests/usd_oracle.py): the worst |difference| over the extent, and the seconds each side took.

Time: LBS and DQS of the same meshes, one frame, the skinning matrices given to both:
``UsdSkel.SkinningQuery.ComputeSkinnedPoints`` on each skinned mesh of the file (written by
``write_usd`` with the method set, so that usd-core reads the same points, influences and
method) against ``skinkit.linear_blend_skinning`` / ``dual_quaternion_skinning`` on each
primitive, float32 both; medians of interleaved rounds (benchmarks/harness.py).  The
worker threads of both are capped at ``--threads`` (usd-core: PXR_WORK_THREAD_LIMIT, set before
it is imported).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

ACCURACY = ["openusd/lbs.usda", "openusd/dqs.usda", "openusd/blendshapes.usda",
            "openusd/blendshapesWithNormals.usda", "usdz/RiggedSimple.usdz",
            "usdz/CesiumMan.usdz", "usdz/RiggedFigure.usdz", "usdz/BrainStem.usdz"]
TIMED = ["usdz/CesiumMan.usdz", "usdz/BrainStem.usdz"]


def accuracy(files: Path) -> None:
    import skinkit
    from usd_oracle import baked_world_points, worst_relative
    print("| file | oracle | samples | worst error / extent | skinkit load + pose (s) | "
          "usd-core bake (s) |")
    print("|---|---|---|---|---|---|")
    for name in ACCURACY:
        expected, codes, rate, bake = baked_world_points(files / name)
        start = time.perf_counter()
        model = skinkit.load_usd(files / name, axes="file")
        worst, compared = worst_relative(model, expected, codes, rate,
                                         skip={"/GroundTruth/Mesh"})
        ours = time.perf_counter() - start
        print(f"| {name} | usd-core BakeSkinning ({compared} meshes) | {len(codes)} | "
              f"{worst:.2e} | {ours:.3f} | {bake:.3f} |")


def timing(files: Path, repeats: int, threads: int) -> None:
    import skinkit
    from harness import time_interleaved
    from pxr import Usd, UsdGeom, UsdSkel, Vt
    from skinkit.model import stages
    print("| file | method | meshes | points | skinkit (ms) | usd-core SkinningQuery (ms) | "
          "usd-core / skinkit |")
    print("|---|---|---|---|---|---|---|")
    for name in TIMED:
        model = skinkit.load_usd(files / name, dtype=np.float32)
        for method in ("lbs", "dqs"):
            for p in model.primitives:
                p.skinning = method
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "m.usdc")
                skinkit.write_usd(model, out)
                stage = Usd.Stage.Open(out)
                code = Usd.TimeCode(float(stage.GetStartTimeCode() + stage.GetEndTimeCode()) / 2)
                cache = UsdSkel.Cache()
                root = UsdSkel.Root(stage.GetDefaultPrim())
                cache.Populate(root, Usd.PrimDefaultPredicate)
                jobs = []
                for binding in cache.ComputeSkelBindings(root, Usd.PrimDefaultPredicate):
                    skel = cache.GetSkelQuery(binding.GetSkeleton())
                    xf = skel.ComputeSkinningTransforms(code)
                    for q in binding.GetSkinningTargets():
                        if q.HasJointInfluences():
                            pts = UsdGeom.Mesh(q.GetPrim()).GetPointsAttr().Get(code)
                            jobs.append((q, xf, pts))

                def usd_core():
                    for q, xf, pts in jobs:
                        q.ComputeSkinnedPoints(xf, Vt.Vec3fArray(pts), code)

                times = np.array([code.GetValue() / stage.GetTimeCodesPerSecond()])
                world = model.world_matrices(0, times)
                mats = stages.skinning_matrices(model, world)
                kernel = stages.SKINNING[method]
                prims = [p for p in model.primitives if p.skin is not None]

                def ours():
                    for p in prims:
                        kernel(p.positions, p.joints, p.weights, mats[p.skin], threads=threads)

                got = time_interleaved({"skinkit": ours, "usd-core": usd_core}, repeats, 0.05)
                a, b = got["skinkit"][0], got["usd-core"][0]
                print(f"| {name} | {method} | {len(prims)} | "
                      f"{sum(len(p.positions) for p in prims)} | {a * 1e3:.3f} | {b * 1e3:.3f} | "
                      f"{b / a:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=Path, default=Path("/work/shared/usd/files"))
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    os.environ["PXR_WORK_THREAD_LIMIT"] = str(args.threads)
    accuracy(args.files)
    print()
    timing(args.files, args.repeats, args.threads)


if __name__ == "__main__":
    main()
