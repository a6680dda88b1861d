"""usd-core's own evaluation of a UsdSkel stage, the oracle of the USD tests and benchmark:
``UsdSkel.BakeSkinning`` into the session layer (the file is not touched; the layer gets the
root layer's timeCodesPerSecond, else its samples land at scaled times), then every Mesh's
points at each time code in world space (the baked points times the mesh's local-to-world
transform), in the file's units and axes."""
import time

import numpy as np


def baked_world_points(path, codes=None):
    """{mesh prim path: (T, V, 3)} at ``codes`` (default: the time codes the baker wrote points
    at, or every whole time code from the stage's start to its end when it wrote none), the
    codes, timeCodesPerSecond and the seconds baking took."""
    from pxr import Usd, UsdGeom, UsdSkel
    stage = Usd.Stage.Open(str(path))
    # the session layer's time codes are scaled by its timeCodesPerSecond against the root's
    stage.GetSessionLayer().timeCodesPerSecond = stage.GetRootLayer().timeCodesPerSecond
    stage.SetEditTarget(stage.GetSessionLayer())
    start = time.perf_counter()
    UsdSkel.BakeSkinning(stage.Traverse())
    seconds = time.perf_counter() - start
    if codes is None:
        written = sorted({c for p in stage.Traverse() if p.IsA(UsdGeom.Mesh)
                          for c in UsdGeom.Mesh(p).GetPointsAttr().GetTimeSamples()})
        codes = written or np.arange(stage.GetStartTimeCode(), stage.GetEndTimeCode() + 1)
    cache = UsdGeom.XformCache()
    out = {}
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.Mesh):
            continue
        frames = []
        for c in codes:
            t = Usd.TimeCode(float(c))
            cache.SetTime(t)
            w = np.array(cache.GetLocalToWorldTransform(prim))
            p = np.array(UsdGeom.Mesh(prim).GetPointsAttr().Get(t), np.float64)
            frames.append(p @ w[:3, :3] + w[3, :3])
        out[str(prim.GetPath())] = np.stack(frames)
    return out, np.asarray(codes, np.float64), stage.GetTimeCodesPerSecond(), seconds


def skinned_world_points(path, codes):
    """{mesh prim path: (T, V, 3)} of the skinned meshes (no blend shapes) at ``codes`` by
    ``UsdSkel.SkinningQuery.ComputeSkinnedPoints`` (in the skeleton's world space), and the
    seconds those calls took."""
    from pxr import Usd, UsdGeom, UsdSkel
    stage = Usd.Stage.Open(str(path))
    cache, xforms = UsdSkel.Cache(), UsdGeom.XformCache()
    out, seconds = {}, 0.0
    for prim in stage.Traverse():
        if not prim.IsA(UsdSkel.Root):
            continue
        cache.Populate(UsdSkel.Root(prim), Usd.PrimDefaultPredicate)
        for binding in cache.ComputeSkelBindings(UsdSkel.Root(prim), Usd.PrimDefaultPredicate):
            skel = cache.GetSkelQuery(binding.GetSkeleton())
            for query in binding.GetSkinningTargets():
                if not query.GetPrim().IsA(UsdGeom.Mesh):
                    continue
                frames = []
                for c in codes:
                    t = Usd.TimeCode(float(c))
                    xforms.SetTime(t)
                    transforms = skel.ComputeSkinningTransforms(t)
                    points = UsdGeom.Mesh(query.GetPrim()).GetPointsAttr().Get(t)
                    start = time.perf_counter()
                    query.ComputeSkinnedPoints(transforms, points, t)
                    seconds += time.perf_counter() - start
                    w = np.array(xforms.GetLocalToWorldTransform(skel.GetPrim()))
                    frames.append(np.array(points, np.float64) @ w[:3, :3] + w[3, :3])
                out[str(query.GetPrim().GetPath())] = np.stack(frames)
    return out, seconds


def worst_relative(model, expected, codes, rate, skip=()):
    """The largest |skinkit - expected| over every primitive named in ``expected`` and every
    time, over the extent (largest side of the bounding box of all the expected points compared,
    at the first time: the character's size); the primitives compared."""
    posed = model.pose(0 if model.clips else None, codes / rate)
    errors, first = [], []
    for p in model.primitives:
        name = model.skeleton.names[p.node]
        if name in skip or name not in expected:
            continue
        errors.append(np.abs(posed.positions[p.key] - expected[name]).max())
        first.append(expected[name][0])
    extent = np.ptp(np.concatenate(first), axis=0).max()
    return float(max(errors) / extent), len(errors)
