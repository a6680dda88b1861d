"""Names from files through the writers added this turn (issue 31, round 4): write_usd and the
.skc container keep hostile names as written (escaped where the format needs it) and refuse a
name UTF-8 cannot encode with a ValueError naming it (they raised UnicodeEncodeError); no writer
follows a symbolic link out of its folder."""
import dataclasses
import os

import numpy as np
import pytest

import skinkit as sk
from skinkit.model.clip import Channel, Clip
from skinkit.model.model import Model
from skinkit.model.records import Primitive, Skeleton

HOSTILE = ["../../evil", "a/b", "<script>alert(1)</script>", 'q"uote', "new\nline", "Épaule",
           "手", "a b", "root"]


def model(names, name="m"):
    J = len(names)
    skeleton = Skeleton(names, [-1] + [0] * (J - 1), np.arange(3.0 * J).reshape(J, 3),
                        np.tile([0.0, 0, 0, 1], (J, 1)), np.ones((J, 3)))
    prim = Primitive(node=1, mesh=0, index=0, skin=None, positions=np.eye(3),
                     faces=np.array([[0, 1, 2]]))
    clip = Clip("</script><b>x", [Channel(1, "rotation", np.array([0.0, 1.0]),
                                         np.tile([0.0, 0, 0, 1], (2, 1)))], np.float64)
    return Model(skeleton, [], [prim], [clip], name=name)


@pytest.mark.parametrize("suffix", [".usda", ".usdz"])
def test_usd_keeps_hostile_names_inside_its_folder(tmp_path, suffix):
    pytest.importorskip("pxr", reason='pip install ".[usd]"')
    out = tmp_path / "out"
    out.mkdir()
    sk.write_usd(model(HOSTILE, name="../../<m>"), out / f"a{suffix}")
    back = sk.load_usd(out / f"a{suffix}")
    names = list(back.skeleton.names)
    start = names.index(HOSTILE[0])
    assert names[start:start + len(HOSTILE)] == HOSTILE
    assert sorted(os.listdir(tmp_path)) == ["out"] and os.listdir(out) == [f"a{suffix}"]


@pytest.mark.parametrize("where", ["model", "joint", "clip"])
def test_usd_refuses_a_name_utf8_cannot_encode(tmp_path, where):
    pytest.importorskip("pxr", reason='pip install ".[usd]"')
    m = model(HOSTILE + (["\ud800"] if where == "joint" else []),
              name="\udfff" if where == "model" else "m")
    if where == "clip":
        m.clips[0] = Clip("x\ud800", m.clips[0].channels, np.float64)
    what = {"model": r"the model's name '\\udfff'",
            "joint": rf"joint {len(HOSTILE)}'s name '\\ud800'",
            "clip": r"the clip's name 'x\\ud800'"}[where]
    with pytest.raises(ValueError, match=rf"write_usd: {what} is not UTF-8 \(a lone surrogate\)"):
        sk.write_usd(m, tmp_path / "a.usda")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["</script>", "\x00nul", "x" * 100_000, "Épaule 手", None])
def test_compressed_container_keeps_names(tmp_path, name):
    m = model(HOSTILE)
    cc = dataclasses.replace(sk.compress(m.clips[0], m.skeleton), name=name)
    sk.save_compressed(cc, tmp_path / "a.skc")
    assert sk.load_compressed(tmp_path / "a.skc").name == name


def test_compressed_container_refuses_a_lone_surrogate(tmp_path):
    m = model(HOSTILE)
    cc = dataclasses.replace(sk.compress(m.clips[0], m.skeleton), name="a\ud800")
    with pytest.raises(ValueError, match=r"the clip's name 'a\\ud800' is not UTF-8"):
        sk.save_compressed(cc, tmp_path / "a.skc")
    assert list(tmp_path.iterdir()) == []


WRITERS = {
    "a.usda": lambda m, p: sk.write_usd(m, p),
    "a.usdz": lambda m, p: sk.write_usd(m, p),
    "a.glb": lambda m, p: sk.write_gltf(m, p),
    "a.gltf": lambda m, p: sk.write_gltf(m, p),
    "a.bvh": lambda m, p: sk.write_bvh(m, m.clips[0], p),
    "a.skc": lambda m, p: sk.save_compressed(sk.compress(m.clips[0], m.skeleton), p),
}


@pytest.mark.parametrize("target", ["a dangling link", "a link to a file"])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_no_writer_follows_a_link_out_of_its_folder(tmp_path, name, target):
    if name.startswith("a.usd"):
        pytest.importorskip("pxr", reason='pip install ".[usd]"')
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / f"outside-{name}"
    if target == "a link to a file":
        outside.write_bytes(b"keep")
    (out / name).symlink_to(outside)
    with pytest.raises(FileExistsError, match="is a symbolic link, not a regular file"):
        WRITERS[name](model(["root", "child"]), out / name)
    assert (outside.read_bytes() == b"keep") if outside.exists() else target == "a dangling link"
    assert os.listdir(out) == [name] and os.path.islink(out / name)
