"""load_usd and write_usd against usd-core's own UsdSkel evaluation (BakeSkinning), Pixar's
baked baselines and the Khronos glTF originals of the usd-wg USDZ conversions (files under
/work/shared/usd/files: README.md there)."""
import numpy as np
import pytest

from conftest import GLTF, USD_HOW, optional_import

pxr = optional_import("pxr", USD_HOW, "usd")

import skinkit  # noqa: E402
from skinkit.io.usd import UsdError, load_usd, write_usd  # noqa: E402
from usd_oracle import baked_world_points, skinned_world_points, worst_relative  # noqa: E402

TOL = 1e-5   # of the extent (float32 files)
BAKED = ["openusd/lbs.usda", "openusd/dqs.usda", "openusd/blendshapes.usda",
         "openusd/blendshapesWithNormals.usda", "usdz/RiggedSimple.usdz", "usdz/CesiumMan.usdz",
         "usdz/RiggedFigure.usdz"]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", BAKED)
def test_posed_as_usd_core_bakes_them(usd_files, name, dtype):
    model = load_usd(usd_files / name, axes="file", dtype=dtype)
    expected, codes, rate, _ = baked_world_points(usd_files / name)
    worst, compared = worst_relative(model, expected, codes, rate, skip={"/GroundTruth/Mesh"})
    assert compared >= 1
    assert worst < TOL


def test_brainstem_at_a_few_times(usd_files):
    """By SkinningQuery (BakeSkinning over 1309 samples takes long) at four time codes (of
    0-1290.56, 37 a second).  Over all 2129 codes BakeSkinning writes, the worst is 1.6e-5 of
    the extent: the file's rotation samples are off unit length by up to 9.6e-6, which usd-core
    makes into matrices as they are (not orthogonal) and skinkit's clips normalize; with the
    samples normalized in a copy, 4.1e-6 (benchmarks/usd.py prints the all-codes figure)."""
    model = load_usd(usd_files / "usdz/BrainStem.usdz", axes="file", dtype=np.float32)
    codes = np.array([0.0, 1.0, 400.0, 1290.56])
    expected, _ = skinned_world_points(usd_files / "usdz/BrainStem.usdz", codes)
    worst, compared = worst_relative(model, expected, codes, 37.0)
    assert compared == 59 and worst < TOL


@pytest.mark.parametrize("name", ["lbs", "dqs", "blendshapes"])
def test_posed_as_pixars_baked_baselines(usd_files, name):
    """The baseline file (written by Pixar's test) is the oracle: its points are mesh-local,
    the meshes' transforms are those of the input."""
    from pxr import Usd, UsdGeom
    model = load_usd(usd_files / f"openusd/{name}.usda", axes="file")
    stage = Usd.Stage.Open(str(usd_files / f"openusd/{name}.baked.usda"))
    rate = stage.GetTimeCodesPerSecond()
    codes = np.arange(stage.GetStartTimeCode(), stage.GetEndTimeCode() + 1)
    posed = model.pose(0, codes / rate)
    cache = UsdGeom.XformCache()
    checked = 0
    for p in model.primitives:
        prim = stage.GetPrimAtPath(model.skeleton.names[p.node])
        if str(prim.GetPath()) == "/GroundTruth/Mesh":
            continue
        for k, c in enumerate(codes):
            cache.SetTime(Usd.TimeCode(c))
            w = np.array(cache.GetLocalToWorldTransform(prim))
            e = np.array(UsdGeom.Mesh(prim).GetPointsAttr().Get(Usd.TimeCode(c))) @ w[:3, :3] \
                + w[3, :3]
            assert np.abs(posed.positions[p.key][k] - e).max() < TOL * np.ptp(e, axis=0).max()
        checked += 1
    assert checked >= 1


def test_skinning_method_from_the_file(usd_files):
    lbs = load_usd(usd_files / "openusd/lbs.usda")
    dqs = load_usd(usd_files / "openusd/dqs.usda")
    assert {p.skinning for p in lbs.primitives} == {"lbs"}
    assert {p.skinning for p in dqs.primitives} == {"dqs"}
    a, b = lbs.pose(0, [1.0]).positions, dqs.pose(0, [1.0]).positions
    assert any(np.abs(a[k] - b[k]).max() > 1e-4 for k in a)   # the methods differ here


@pytest.mark.parametrize("name, atol", [("CesiumMan", 1e-6), ("RiggedFigure", 1e-6)])
def test_usdz_posed_as_its_gltf_original(usd_files, name, atol):
    usd = load_usd(usd_files / f"usdz/{name}.usdz")
    gltf = skinkit.load_gltf(GLTF / f"{name}.glb")
    times = np.linspace(0, usd.clips[0].channels[0].times[-1], 9)
    a = np.concatenate(list(usd.pose(0, times).positions.values()), axis=1)
    b = np.concatenate(list(gltf.pose(0, times).positions.values()), axis=1)
    assert np.abs(a - b).max() < atol * np.ptp(b[0], axis=0).max()


def test_brainstem_posed_as_its_gltf_original(usd_files):
    usd = load_usd(usd_files / "usdz/BrainStem.usdz")
    gltf = skinkit.load_gltf(usd_files / "gltf/BrainStem.glb")
    times = [0.0, 1.0, 10.0]
    a = np.concatenate(list(usd.pose(0, times).positions.values()), axis=1)
    b = np.concatenate(list(gltf.pose(0, times).positions.values()), axis=1)
    assert a.shape == b.shape
    assert np.abs(a - b).max() < TOL * np.ptp(b[0], axis=0).max()


def test_units_and_up_axis_to_gltf(usd_files):
    """blendshapes.usda: Z up, metersPerUnit unauthored (USD's fallback 0.01)."""
    file = load_usd(usd_files / "openusd/blendshapes.usda", axes="file")
    gltf = load_usd(usd_files / "openusd/blendshapes.usda")
    a = file.pose(0, [0.3]).positions
    b = gltf.pose(0, [0.3]).positions
    for k in a:
        x, y, z = a[k][0].T
        np.testing.assert_allclose(b[k][0], 0.01 * np.stack([x, z, -y], axis=1), atol=1e-12)


def _round_trip(model, tmp_path, suffix):
    out = tmp_path / f"out{suffix}"
    write_usd(model, out)
    return out


@pytest.mark.parametrize("source, suffix", [("CesiumMan.glb", ".usda"),
                                            ("RiggedSimple-morph.glb", ".usdc"),
                                            ("openusd/dqs.usda", ".usdz"),
                                            ("openusd/blendshapes.usda", ".usda")])
def test_write_then_usd_core_then_load_equal_the_source(usd_files, tmp_path, source, suffix):
    model = skinkit.load_model(GLTF / source if source.endswith(".glb") else usd_files / source)
    out = _round_trip(model, tmp_path, suffix)
    # usd-core's evaluation of the written file (at the times it bakes)
    expected, codes, rate, _ = baked_world_points(out)
    times = codes / rate
    posed = model.pose(0, times)
    back = load_usd(out)
    assert worst_relative(back, expected, codes, rate)[0] < TOL
    # and skinkit reading it back: the same posed points and the original node names
    again = back.pose(0, times)
    for p, q in zip(model.primitives, back.primitives):
        assert np.abs(posed.positions[p.key] - again.positions[q.key]).max() \
            < TOL * np.ptp(posed.positions[p.key][0], axis=0).max()
        assert (p.skinning or "lbs") == q.skinning
    assert set(model.skeleton.names) <= set(back.skeleton.names)


@pytest.mark.shared
def test_written_names_escaped_and_given_back(tmp_path):
    model = skinkit.load_gltf(GLTF / "RiggedSimple.glb")
    model.skeleton.names = [f"bone {i}/é:x" for i in range(model.skeleton.count)]
    out = tmp_path / "names.usda"
    write_usd(model, out)
    stage = pxr.Usd.Stage.Open(str(out))
    skel = next(p for p in stage.Traverse() if p.IsA(pxr.UsdSkel.Skeleton))
    tokens = [str(j).split("/")[-1] for j in pxr.UsdSkel.Skeleton(skel).GetJointsAttr().Get()]
    assert all(pxr.Tf.IsValidIdentifier(t) for t in tokens)
    back = load_usd(out)
    assert set(model.skeleton.names) <= set(back.skeleton.names)


def test_written_files_pass_usd_validation(usd_files, tmp_path):
    """usd-core's validators (what usdchecker runs); one of them is shown to fire on a
    mesh that uses skel: properties without SkelBindingAPI."""
    from pxr import Usd, UsdGeom, UsdValidation
    registry = UsdValidation.ValidationRegistry()
    context = UsdValidation.ValidationContext(registry.GetOrLoadAllValidators())
    for source in ("openusd/lbs.usda", "openusd/blendshapes.usda"):
        out = tmp_path / "checked.usda"
        write_usd(load_usd(usd_files / source), out)
        errors = context.Validate(Usd.Stage.Open(str(out)))
        assert [e.GetMessage() for e in errors] == []
    stage = Usd.Stage.Open(str(out))
    mesh = next(p for p in stage.Traverse() if p.IsA(UsdGeom.Mesh))
    mesh.RemoveAPI(pxr.UsdSkel.BindingAPI)
    assert context.Validate(stage)


def test_load_model_and_formats_know_usd(usd_files, tmp_path):
    for name in ("openusd/lbs.usda", "usdz/RiggedSimple.usdz"):
        assert isinstance(skinkit.load_model(usd_files / name), skinkit.Model)
    crate = tmp_path / "lbs.usdc"
    write_usd(load_usd(usd_files / "openusd/lbs.usda"), crate)
    assert isinstance(skinkit.load_model(crate), skinkit.Model)
    with pytest.raises(skinkit.GltfError, match="looks like a USD stage"):
        skinkit.load_gltf(usd_files / "openusd/lbs.usda")
    with pytest.raises(UsdError, match="looks like a binary glTF"):
        load_usd(GLTF / "CesiumMan.glb")


def test_without_usd_core_the_error_names_the_extra(usd_files, monkeypatch):
    import sys
    for name in [m for m in sys.modules if m == "pxr" or m.startswith("pxr.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"skinkit\[usd\]"):
        load_usd(usd_files / "openusd/lbs.usda")


def _baked_equal(path, **kwargs):
    model = load_usd(path, axes="file", **kwargs)
    expected, codes, rate, _ = baked_world_points(path)
    worst, compared = worst_relative(model, expected, codes, rate)
    assert compared >= 1 and worst < TOL, worst
    return model


def test_animation_joint_order_and_mesh_joint_order(tmp_path):
    """The SkelAnimation names [a/b/c, a] (a/b keeps its rest transform); the mesh binds its own
    skel:joints order [a/b/c, a/b, a] with its indices remapped."""
    from usd_craft import box_character
    path = tmp_path / "orders.usda"
    stage = box_character(path, anim_joints=["a/b/c", "a"])
    binding = pxr.UsdSkel.BindingAPI(stage.GetPrimAtPath("/Root/Box"))
    binding.CreateJointsAttr(["a/b/c", "a/b", "a"])
    indices = binding.GetJointIndicesPrimvar()
    indices.Set([2 - i for i in indices.Get()])
    stage.Save()
    model = _baked_equal(path)
    assert [model.skeleton.names[j] for j in model.skins[0].joints] == ["a/b/c", "a/b", "a"]
    animated = {model.skeleton.names[c.node] for c in model.clips[0].channels}
    assert animated == {"a/b/c", "a"}


def test_rigid_influences_geom_bind_and_animated_xforms(tmp_path):
    """Constant influences (one joint, and two blended), a geomBindTransform, an animated
    SkelRoot, and an un-skinned mesh under an animated Xform outside it."""
    from pxr import Gf, UsdGeom, UsdSkel
    from usd_craft import box_character
    path = tmp_path / "rigid.usda"
    stage = box_character(path)
    root = UsdGeom.Xformable(stage.GetPrimAtPath("/Root"))
    root.AddTranslateOp().Set(Gf.Vec3d(0, 1, 0))
    spin = root.AddRotateYOp()
    spin.Set(0.0, 1)
    spin.Set(90.0, 24)
    box = stage.GetPrimAtPath("/Root/Box")
    for name, indices, weights in (("One", [1], [1.0]), ("Two", [0, 2], [0.25, 0.75])):
        copy = UsdGeom.Mesh.Define(stage, f"/Root/{name}")
        for attr in ("points", "faceVertexCounts", "faceVertexIndices"):
            copy.GetPrim().CreateAttribute(attr, box.GetAttribute(attr).GetTypeName()).Set(
                box.GetAttribute(attr).Get())
        binding = UsdSkel.BindingAPI.Apply(copy.GetPrim())
        binding.CreateSkeletonRel().SetTargets(["/Root/Skel"])
        binding.CreateJointIndicesPrimvar(True, len(indices)).Set(indices)
        binding.CreateJointWeightsPrimvar(True, len(indices)).Set(weights)
        binding.CreateGeomBindTransformAttr(Gf.Matrix4d(1).SetRotate(
            Gf.Rotation(Gf.Vec3d(0, 0, 1), 30)).SetTranslateOnly(Gf.Vec3d(0.5, 0, 0)))
    prop = UsdGeom.Xform.Define(stage, "/Prop")
    prop.AddTranslateOp().Set(Gf.Vec3d(3, 0, 0))
    turn = prop.AddRotateXOp()
    turn.Set(0.0, 1)
    turn.Set(-60.0, 24)
    prop.AddScaleOp().Set(Gf.Vec3f(2, 1, 1))
    rigid = UsdGeom.Mesh.Define(stage, "/Prop/Mesh")
    for attr in ("points", "faceVertexCounts", "faceVertexIndices"):
        rigid.GetPrim().CreateAttribute(attr, box.GetAttribute(attr).GetTypeName()).Set(
            box.GetAttribute(attr).Get())
    stage.Save()
    model = load_usd(path, axes="file")
    expected, codes, rate, _ = baked_world_points(path)
    # usd-core bakes the skinned meshes; the rigid one is placed by its transform
    from pxr import Usd
    cache = UsdGeom.XformCache()
    points = np.array(rigid.GetPointsAttr().Get(), np.float64)
    frames = []
    for c in codes:
        cache.SetTime(Usd.TimeCode(c))
        w = np.array(cache.GetLocalToWorldTransform(rigid.GetPrim()))
        frames.append(points @ w[:3, :3] + w[3, :3])
    expected["/Prop/Mesh"] = np.stack(frames)
    worst, compared = worst_relative(model, expected, codes, rate)
    assert compared == 4 and worst < TOL, worst
    assert sum(p.skin is None for p in model.primitives) == 1


def test_skinned_blend_shapes_with_in_betweens_between_samples(tmp_path):
    """A skinned mesh with a sparse blend shape with in-betweens at 0.5 and -0.5 and a dense one,
    ordered differently in the animation; weights -0.25..1.4 cross the in-betweens between
    samples (exact only with the added keys); Z up, 0.01 m a unit."""
    from pxr import Gf, UsdGeom, UsdSkel, Vt
    from usd_craft import box_character
    path = tmp_path / "shapes.usda"
    stage = box_character(path)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 0.01)
    bulge = UsdSkel.BlendShape.Define(stage, "/Root/Box/Bulge")
    bulge.CreateOffsetsAttr(Vt.Vec3fArray([Gf.Vec3f(0, 1, 0), Gf.Vec3f(0, 0, 1)]))
    bulge.CreatePointIndicesAttr([1, 6])
    bulge.CreateInbetween("half").SetWeight(0.5)
    bulge.GetInbetween("half").SetOffsets(Vt.Vec3fArray([Gf.Vec3f(0.8, 0, 0), Gf.Vec3f(0)]))
    bulge.CreateInbetween("neg").SetWeight(-0.5)
    bulge.GetInbetween("neg").SetOffsets(Vt.Vec3fArray([Gf.Vec3f(0, 0, -0.7), Gf.Vec3f(0, 1, 0)]))
    twist = UsdSkel.BlendShape.Define(stage, "/Root/Box/Twist")
    twist.CreateOffsetsAttr(Vt.Vec3fArray([Gf.Vec3f(0.1 * i, 0, -0.05 * i) for i in range(8)]))
    binding = UsdSkel.BindingAPI(stage.GetPrimAtPath("/Root/Box"))
    binding.CreateBlendShapesAttr(["bulge", "twist"])
    binding.CreateBlendShapeTargetsRel().SetTargets(["/Root/Box/Bulge", "/Root/Box/Twist"])
    anim = UsdSkel.Animation(stage.GetPrimAtPath("/Root/Skel/Anim"))
    anim.CreateBlendShapesAttr(["twist", "bulge"])
    weights = anim.CreateBlendShapeWeightsAttr()
    for code, (tw, bu) in zip((1, 8, 16, 24), ((0.0, -0.25), (0.5, 1.4), (1.0, 0.1),
                                               (0.2, 0.9))):
        weights.Set(Vt.FloatArray([tw, bu]), code)
    stage.Save()
    model = _baked_equal(path)
    assert model.primitives[0].target_names == ["bulge", "bulge@0.5", "bulge@-0.5", "twist"]
    # between samples too: usd-core's SkinningQuery + BlendShapeQuery at fractional codes
    codes = np.array([3.3, 9.7, 12.1])
    posed = model.pose(0, codes / 24.0).positions[model.primitives[0].key]
    from pxr import Usd
    query_stage = Usd.Stage.Open(str(path))
    cache = UsdSkel.Cache()
    root = UsdSkel.Root(query_stage.GetPrimAtPath("/Root"))
    cache.Populate(root, Usd.PrimDefaultPredicate)
    binding = cache.ComputeSkelBindings(root, Usd.PrimDefaultPredicate)[0]
    skel, query = cache.GetSkelQuery(binding.GetSkeleton()), binding.GetSkinningTargets()[0]
    shapes = UsdSkel.BlendShapeQuery(UsdSkel.BindingAPI(query.GetPrim()))
    for k, c in enumerate(codes):
        t = Usd.TimeCode(c)
        w = skel.GetAnimQuery().ComputeBlendShapeWeights(t)
        w = query.GetBlendShapeMapper().Remap(w)
        sub = shapes.ComputeSubShapeWeights(w)
        points = query.GetPrim().GetAttribute("points").Get(t)
        shapes.ComputeDeformedPoints(sub[0], sub[1], sub[2], shapes.ComputeBlendShapePointIndices(),
                                     shapes.ComputeSubShapePointOffsets(), points)
        query.ComputeSkinnedPoints(skel.ComputeSkinningTransforms(t), points, t)
        e = np.array(points, np.float64)
        assert np.abs(posed[k] - e).max() < TOL * np.ptp(e, axis=0).max()


def test_cli_info_and_pose_know_usd(usd_files, tmp_path, capsys):
    from cli_run import run
    code, out, _ = run(["info", usd_files / "openusd/dqs.usda"], capsys)
    assert code == 0
    assert "joint1/joint2/joint3" in out and "3 influences per vertex, dqs" in out
    code, _, err = run(["pose", usd_files / "openusd/dqs.usda", "--out", tmp_path / "p.npz",
                        "--times", "0.5"], capsys)
    assert code == 0, err
    posed = load_usd(usd_files / "openusd/dqs.usda").pose(0, [0.5])
    with np.load(tmp_path / "p.npz") as f:
        for key, p in posed.positions.items():
            np.testing.assert_allclose(f[f"positions_{key}"], p, rtol=0, atol=1e-6)


def test_bake_clips_takes_usd_characters(usd_files, tmp_path, capsys):
    optional_import("zarr", 'pip install ".[dataset]"', "dataset")
    import shutil
    from cli_run import run
    for name in ("a.usdz", "b.usdz"):
        shutil.copyfile(usd_files / "usdz/RiggedSimple.usdz", tmp_path / name)
    store = tmp_path / "s.zarr"
    code, _, err = run(["bake", tmp_path / "a.usdz", tmp_path / "b.usdz", "--clips", "all",
                        "--out", store, "--fps", "12"], capsys)
    assert code == 0, err
    d = skinkit.dataset.open(store)
    model = load_usd(usd_files / "usdz/RiggedSimple.usdz")
    (prim,) = model.primitives
    times = skinkit.frame_times(model.clips[0], 12.0)
    verts = d.vertices[prim.key].compute()
    assert list(d.sequences["source"]) == ["a.usdz", "b.usdz"]
    np.testing.assert_allclose(verts[:len(times)], model.pose(0, times).positions[prim.key],
                               rtol=0, atol=1e-5 * np.abs(prim.positions).max())


@pytest.mark.parametrize("name", ["dqs", "blendshapesWithNormals"])
def test_posed_normals_as_usd_core_bakes_them(usd_files, name):
    """Vertex normals (DQS skinned; blend-shape normal offsets with in-betweens) against
    BakeSkinning's.  (LBS normals differ: usd-core blends the inverse transposes of the
    skinning matrices, skinkit's kernel the matrices: 0.075 apart on lbs.usda's scaled joints.)"""
    from pxr import Usd, UsdGeom, UsdSkel
    model = load_usd(usd_files / f"openusd/{name}.usda", axes="file")
    stage = Usd.Stage.Open(str(usd_files / f"openusd/{name}.usda"))
    stage.GetSessionLayer().timeCodesPerSecond = stage.GetRootLayer().timeCodesPerSecond
    stage.SetEditTarget(stage.GetSessionLayer())
    UsdSkel.BakeSkinning(stage.Traverse())
    codes = np.arange(stage.GetStartTimeCode(), stage.GetEndTimeCode() + 1)
    posed = model.pose(0, codes / stage.GetTimeCodesPerSecond(), normals=True)
    cache = UsdGeom.XformCache()
    checked = 0
    for p in model.primitives:
        if p.normals is None:
            continue
        prim = stage.GetPrimAtPath(model.skeleton.names[p.node])
        primvar = UsdGeom.PrimvarsAPI(prim).GetPrimvar("normals")
        attr = primvar.GetAttr() if primvar and primvar.HasAuthoredValue() \
            else UsdGeom.Mesh(prim).GetNormalsAttr()
        for k, c in enumerate(codes):
            cache.SetTime(Usd.TimeCode(c))
            w = np.array(cache.GetLocalToWorldTransform(prim))[:3, :3]
            n = np.array(attr.Get(Usd.TimeCode(c)), np.float64) @ np.linalg.inv(w).T
            n /= np.linalg.norm(n, axis=1, keepdims=True)
            assert np.abs(posed.normals[p.key][k] - n).max() < 1e-5
        checked += 1
    assert checked == 1


@pytest.mark.shared
def test_rest_morph_weights_without_a_clip_are_written(tmp_path):
    model = skinkit.load_gltf(GLTF / "RiggedSimple-morph.glb")
    (prim,) = model.primitives
    prim.morph_weights = np.array([0.3, 0.7])
    out = tmp_path / "rest.usda"
    write_usd(model, out, clips=[])
    expected, codes, rate, _ = baked_world_points(out, [0.0])
    assert worst_relative(load_usd(out), expected, codes, rate)[0] < TOL
    source = model.pose(None).positions[prim.key]
    name = next(iter(expected))
    assert np.abs(expected[name][0] - source[0]).max() < TOL * np.ptp(source[0], axis=0).max()
