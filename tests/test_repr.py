"""Readable reprs: compact ``__repr__`` and ``_repr_html_`` of the data model (no array dumps)."""

import numpy as np
import pytest

import skinkit
from skinkit import Channel, Clip, Model, Primitive, Skeleton, Skin, SkinnedPrimitive
from skinkit.model.default_model import default_model
from conftest import BVH, GLTF



def test_default_model_reprs():
    m = default_model(np.float32)
    assert repr(m.skeleton) == ("Skeleton(5 nodes, 2 roots, names=['cylinder', 'bone0', "
                                "'bone1', 'bone2', 'bone3'])")
    assert repr(m.skins[0]) == "Skin(name='chain', 4 joints, skeleton=None)"
    assert repr(m.primitives[0]) == (
        "Primitive(key='0_0', node=0, mesh=0, index=0, skin=0, 136 vertices, "
        "256 triangles, 2 influences, normals, float32)")
    assert repr(m.clips[0]) == ("Clip(name='bend', duration=2 s, channels=4, "
                                "interpolations=['LINEAR'])")
    assert repr(m.clips[0].channels[0]) == (
        "Channel(node=1, path='rotation', 9 keys, LINEAR, 0-2 s)")
    text = repr(m)
    assert text.startswith("Model(name='default (skinned cylinder)',\n")
    for part in (repr(m.skeleton), repr(m.skins[0]), repr(m.primitives[0]), repr(m.clips[0])):
        assert part in text


@pytest.mark.shared
@pytest.mark.parametrize("name", ["CesiumMan.glb", "Fox.glb", "RecursiveSkeletons.glb",
                                  "RiggedFigure-cubic.glb", "cmu_01_03_first300.bvh",
                                  "animdrawings_fair1_dab.bvh"])
def test_fixture_reprs_are_compact(name):
    """glTF and BVH models alike: one compact summary, no array dumps."""
    m = (skinkit.load_bvh(BVH / name) if name.endswith(".bvh")
         else skinkit.load_gltf(GLTF / name))
    text = repr(m)
    assert "array(" not in text and "\n       [" not in text
    assert len(text) < 3000 and text.count("\n") <= 4 + 3 * 7
    for clip in m.clips:
        assert f"duration={clip.duration:g} s" in text or "more]" in text
        assert all(i in text for i in clip.interpolations) or "more]" in text
    for obj in (m.skeleton, *m.skins, *m.primitives, *m.clips, *m.clips[0].channels):
        r = repr(obj)
        assert "array(" not in r and "\n" not in r and len(r) < 300, r
    html = m._repr_html_()
    assert html.startswith("<div>") and html.count("<table>") == 1 + sum(map(bool, (m.skins, m.primitives, m.clips)))
    assert "array(" not in html and len(html) < 30000


@pytest.mark.shared
def test_cesium_man_details():
    m = skinkit.load_gltf(GLTF / "CesiumMan.glb")
    assert "22 nodes, 1 root" in repr(m.skeleton) and "'Skeleton_torso_joint_1'" in repr(m)
    assert "... 18 more" in repr(m.skeleton)
    assert "Skin(name='Armature', 19 joints, skeleton=3)" in repr(m)
    assert "3273 vertices, 4672 triangles, 4 influences, normals, float64" in repr(m)
    assert "Clip(name=None, duration=2 s, channels=57, interpolations=['LINEAR'])" in repr(m)
    html = m._repr_html_()
    for cell in ("<td>2_0</td>", "<td>3273</td>", "<td>4672</td>", "<td>2 s</td>",
                 "<td>LINEAR</td>", "<td>Armature</td>", "<td>Skeleton_torso_joint_1</td>"):
        assert cell in html


@pytest.mark.shared
def test_long_lists_are_cut():
    m = skinkit.load_gltf(GLTF / "RecursiveSkeletons.glb")
    assert "... 78 more]" in repr(m)            # 84 skins and primitives, 6 shown
    html = m._repr_html_()
    assert "... 64 more" in html                 # 84 rows, 20 shown
    assert "... 904 more" in html                # 924 nodes


def test_html_is_escaped():
    sk = Skeleton(names=["<b>root</b>", None], parents=np.array([-1, 0], dtype=np.int32),
                  translations=np.zeros((2, 3)), rotations=np.tile([0.0, 0, 0, 1], (2, 1)),
                  scales=np.ones((2, 3)))
    clip = Clip("a&b", [Channel(1, "scale", np.array([0.0, 1.0]), np.ones((2, 3)), "STEP")])
    m = Model(sk, clips=[clip], name="<x>")
    for html in (m._repr_html_(), sk._repr_html_(), clip._repr_html_()):
        assert "<b>root</b>" not in html and "<x>" not in html and "a&b" not in html
    assert "&lt;b&gt;root&lt;/b&gt;" in sk._repr_html_() and "a&amp;b" in clip._repr_html_()
    assert "<td>STEP</td>" in clip._repr_html_() and "<td>0-1 s</td>" in clip._repr_html_()
    assert repr(m) == ("Model(name='<x>',\n"
                       "  skeleton=Skeleton(2 nodes, 1 root, names=['<b>root</b>', None]),\n"
                       "  skins=[],\n  primitives=[],\n"
                       "  clips=[Clip(name='a&b', duration=1 s, channels=1, "
                       "interpolations=['STEP'])])")


def test_component_html():
    m = default_model()
    assert "<td>chain</td>" in m.skins[0]._repr_html_()
    assert "<td>1, 2, 3, 4</td>" in m.skins[0]._repr_html_()
    assert "<td>136</td>" in m.primitives[0]._repr_html_()
    assert "<td>bone3</td>" in m.skeleton._repr_html_()


def test_primitive_without_faces_or_normals():
    p = SkinnedPrimitive(node=3, mesh=1, index=2, skin=0, positions=np.zeros((1, 3)),
                         normals=None, joints=np.zeros((1, 4), np.uint8),
                         weights=np.ones((1, 4)) / 4)
    assert repr(p) == ("Primitive(key='3_2', node=3, mesh=1, index=2, skin=0, 1 vertex, "
                       "0 triangles, 4 influences, no normals, float64)")
    rigid = Primitive(node=4, mesh=0, index=0, skin=None, positions=np.zeros((2, 3), np.float32),
                      morph_positions=np.zeros((3, 2, 3)), morph_weights=np.zeros(3))
    assert repr(rigid) == ("Primitive(key='4_0', node=4, mesh=0, index=0, rigid, 2 vertices, "
                           "0 triangles, 3 morph targets, no normals, float32)")
    assert repr(Skin(None, np.array([0]), np.eye(4)[None])) == (
        "Skin(name=None, 1 joint, skeleton=None)")


def test_body_model_reprs():
    body = skinkit.data.body_model("SMPL-X", num_vertices=200)
    assert repr(body) == ("<BodyModel SMPL-X: 200 vertices, 55 joints, 300 betas, 100 expression, "
                          "float64>")
    page = body._repr_html_()
    assert "<td>SMPL-X</td><td>200</td><td>55</td>" in page
    assert page.count("<tr>") == 2 + 1 + 20 + 1           # sizes; tree header, 20 rows, "more"


def test_compressed_clip_reprs():
    """A compressed clip prints counts and levels, not its key times and tracks; names reaching
    HTML are escaped."""
    m = default_model()
    clip = m.clips[0]
    cc = skinkit.compress(Clip("<b>bend</b>", clip.channels, clip.dtype), m.skeleton)
    keyed = sum(t.level > 1 for t in cc.tracks)
    assert repr(cc) == (f"CompressedClip(name='<b>bend</b>', float64, duration=2 s, "
                        f"{len(cc.tracks)} tracks ({keyed} keyed), 5 nodes, "
                        f"{cc.nbytes} bytes of payload)")
    assert 0 < cc.nbytes < sum(np.asarray(ch.values).nbytes for ch in clip.channels)
    html = cc._repr_html_()
    assert "<b>bend</b>" not in html and "&lt;b&gt;bend&lt;/b&gt;" in html
    assert html.count("<tr>") == 2 + 1 + len(cc.tracks) and "<td>rotation</td>" in html
    assert "array(" not in html
