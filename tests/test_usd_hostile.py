"""Hostile USD files, each built here from usd_craft.box_character with one change: refused
with a UsdError that names the file and what is wrong, never a crash, a hang or a silently
wrong model."""
import math

import pytest

from conftest import USD_HOW, optional_import

pxr = optional_import("pxr", USD_HOW, "usd")

from pxr import Gf, Sdf, UsdSkel, Vt  # noqa: E402

from skinkit.io.usd import UsdError, load_usd  # noqa: E402
from usd_craft import box_character  # noqa: E402


def _refused(path, match, **kwargs):
    with pytest.raises(UsdError, match=match) as e:
        load_usd(path, **kwargs)
    assert str(path) in str(e.value)
    return str(e.value)


def _box(tmp_path, change=None, **kwargs):
    path = tmp_path / "hostile.usda"
    stage = box_character(path, **kwargs)
    if change is not None:
        change(stage)
    stage.Save()
    return path


def _binding(stage):
    return UsdSkel.BindingAPI(stage.GetPrimAtPath("/Root/Box"))


def _skel(stage):
    return UsdSkel.Skeleton(stage.GetPrimAtPath("/Root/Skel"))


def _anim(stage):
    return UsdSkel.Animation(stage.GetPrimAtPath("/Root/Skel/Anim"))


def test_the_control_file_loads(tmp_path):
    model = load_usd(_box(tmp_path))
    assert [p.joints.shape for p in model.primitives] == [(8, 2)]


def test_reference_cycle(tmp_path):
    path = tmp_path / "cycle.usda"
    path.write_text('#usda 1.0\n(\n    defaultPrim = "Root"\n)\n\n'
                    'def Xform "Root" (\n    references = </Rig>\n)\n{\n}\n\n'
                    'def Xform "Rig" (\n    references = </Root>\n)\n{\n}\n')
    _refused(path, "composition error.*[Cc]ycle")


def test_huge_time_sample_count_refused_before_reading(tmp_path):
    def many(stage):
        attr = _anim(stage).GetTranslationsAttr()
        value = Vt.Vec3fArray([Gf.Vec3f(0)] * 3)
        for c in range(3000):
            attr.Set(value, float(c))
    _refused(_box(tmp_path, many), "3000 time samples", max_bytes=100_000)


def test_time_code_far_past_the_duration_limit(tmp_path):
    def late(stage):
        stage.SetEndTimeCode(1e9)
        _anim(stage).GetTranslationsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(0)] * 3), 1e9)
    _refused(_box(tmp_path, late), "MAX_DURATION")


@pytest.mark.parametrize("index", [7, -1])
def test_joint_index_outside_the_joint_order(tmp_path, index):
    def bad(stage):
        attr = _binding(stage).GetJointIndicesPrimvar()
        values = list(attr.Get())
        values[5] = index
        attr.Set(values)
    _refused(_box(tmp_path, bad), f"joint index {index} at \\[5\\] is outside 0..2")


def test_element_size_zero(tmp_path):
    def zero(stage):
        for pv in (_binding(stage).GetJointIndicesPrimvar(),
                   _binding(stage).GetJointWeightsPrimvar()):
            pv.GetAttr().SetMetadata("elementSize", 0)
    _refused(_box(tmp_path, zero), "elementSize")


def test_weights_one_shorter(tmp_path):
    def short(stage):
        attr = _binding(stage).GetJointWeightsPrimvar()
        attr.Set(list(attr.Get())[:-1])
    _refused(_box(tmp_path, short), "jointWeights|joint")


def test_influences_for_seven_points(tmp_path):
    def fewer(stage):
        for pv in (_binding(stage).GetJointIndicesPrimvar(),
                   _binding(stage).GetJointWeightsPrimvar()):
            pv.Set(list(pv.Get())[:14])
    _refused(_box(tmp_path, fewer), "14 values, expected 16")


def test_animation_rotations_for_two_of_three_joints(tmp_path):
    def two(stage):
        attr = _anim(stage).GetRotationsAttr()
        attr.Set(Vt.QuatfArray(list(attr.Get(24))[:2]), 24)
    _refused(_box(tmp_path, two), "2 rotations at time code 24, expected 3")


def test_two_bind_transforms_for_three_joints(tmp_path):
    def two(stage):
        attr = _skel(stage).GetBindTransformsAttr()
        attr.Set(list(attr.Get())[:2])
    _refused(_box(tmp_path, two), "2 bindTransforms .* expected 3")


def test_nan_rest_transform(tmp_path):
    def nan(stage):
        attr = _skel(stage).GetRestTransformsAttr()
        m = list(attr.Get())
        m[1] = Gf.Matrix4d(1).SetTranslate(Gf.Vec3d(math.nan, 0, 0))
        attr.Set(m)
    _refused(_box(tmp_path, nan), "restTransforms .*NaN")


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_non_finite_animation_translation(tmp_path, value):
    def bad(stage):
        _anim(stage).GetTranslationsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(0, value, 0)] * 3), 24)
    _refused(_box(tmp_path, bad), "translations at time code 24 hold NaN or infinity")


def test_zero_bind_transform(tmp_path):
    def zero(stage):
        attr = _skel(stage).GetBindTransformsAttr()
        m = list(attr.Get())
        m[2] = Gf.Matrix4d(0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
        attr.Set(m)
    _refused(_box(tmp_path, zero), r"bindTransforms\[2\] is singular")


def test_duplicate_joint(tmp_path):
    def dup(stage):
        _skel(stage).GetJointsAttr().Set(["a", "a/b", "a/b"])
    _refused(_box(tmp_path, dup), "joint 'a/b' is listed twice")


def _bulge(indices):
    """A change binding one blend shape "bulge" moving the box's points ``indices``."""
    def shape(stage):
        bs = UsdSkel.BlendShape.Define(stage, "/Root/Box/Bulge")
        bs.CreateOffsetsAttr(Vt.Vec3fArray([Gf.Vec3f(0, 1, 0)] * len(indices)))
        bs.CreatePointIndicesAttr(Vt.IntArray(indices))
        _binding(stage).CreateBlendShapesAttr(["bulge"])
        _binding(stage).CreateBlendShapeTargetsRel().SetTargets([Sdf.Path("/Root/Box/Bulge")])
    return shape


def test_blend_shape_point_index_outside_the_mesh(tmp_path):
    _refused(_box(tmp_path, _bulge([3, 99])), r"point indices must be in 0..7, got 3..99")


@pytest.mark.parametrize("limit", [0, 1])
def test_blend_shape_count_against_the_morph_target_limit(tmp_path, monkeypatch, limit):
    """Blend shapes are counted against skinkit.limits.MAX_MORPH_TARGETS (glTF's and FBX's
    cap) before any target is read; one shape within a limit of 1 loads."""
    from skinkit import limits

    path = _box(tmp_path, _bulge([3, 5]))
    monkeypatch.setattr(limits, "MAX_MORPH_TARGETS", limit)
    if limit == 0:
        _refused(path, r"1 blend shapes, more than the limit of 0 "
                       r"\(skinkit.limits.MAX_MORPH_TARGETS\)")
    else:
        assert load_usd(path).primitives[0].morph_positions.shape == (1, 8, 3)


def test_not_usd_at_all(tmp_path):
    path = tmp_path / "broken.usda"
    path.write_bytes(b"#usda 1.0\n(\n def def def {{{{\n")
    _refused(path, "usd-core cannot open it")


def test_a_tiny_budget_refuses_the_control_file(tmp_path):
    _refused(_box(tmp_path), "passes the limit", max_bytes=64)


@pytest.mark.parametrize("kept", [7, Vt.StringArray(["x"]), Vt.IntArray([1, 2, 3]), "abc"])
def test_joint_names_of_the_wrong_kind_are_not_used(tmp_path, kept):
    """write_usd's customData names are used only as a string[] of one name a joint."""
    from skinkit.io.usd.read import JOINT_NAMES

    def names(stage):
        stage.GetPrimAtPath("/Root/Skel").SetCustomDataByKey(JOINT_NAMES, kept)
    model = load_usd(_box(tmp_path, names))
    assert model.skeleton.names[-4:-1] == ["a", "a/b", "a/b/c"]
