"""skinkit.load_model picks the reader by content, and a reader given another format says what
the file looks like and which function reads it."""
import re
import shutil

import numpy as np
import pytest

import skinkit
from conftest import DATA, GLTF, need_shared

# each kind of file: where it comes from -- this project's body models, the shared fixtures
# (folder, name), or Blender (the blender_files fixture: its FBX, and that FBX as ASCII)
OWN = {"npz": DATA / "body" / "tiny_mano.npz", "pkl": DATA / "body" / "tiny_mano_chumpy_py2.pkl"}
SHARED_FILES = {"glb": ("gltf", "RiggedSimple.glb"), "gltf": ("gltf", "SimpleSkin.gltf"),
                "bvh": ("bvh", "cmu_01_03_first300.bvh")}
LOADERS = {"glb": skinkit.load_gltf, "gltf": skinkit.load_gltf, "fbx-binary": skinkit.load_fbx,
           "fbx-ascii": skinkit.load_fbx, "bvh": skinkit.load_bvh}


@pytest.fixture
def path_of(request, tmp_path):
    """kind -> the path of a file of that kind (skips without the shared data or Blender)."""
    def get(kind):
        if kind in OWN:
            return OWN[kind]
        if kind in SHARED_FILES:
            folder, name = SHARED_FILES[kind]
            return need_shared() / folder / name
        fbx = request.getfixturevalue("blender_files") / "rig.fbx"
        if kind == "fbx-binary":
            return fbx
        from fbx_transcode import parse, to_ascii
        path = tmp_path / "rig-ascii.fbx"
        path.write_text(to_ascii(parse(fbx.read_bytes())))
        return path
    return get


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_load_model_picks_by_content(tmp_path, path_of, kind):
    """Renamed to .dat, each file still reaches its reader: the same skeleton as the reader's."""
    path = path_of(kind)
    renamed = tmp_path / "model.dat"
    shutil.copyfile(path, renamed)
    model = skinkit.load_model(renamed)
    direct = LOADERS[kind](path)
    assert list(model.skeleton.names) == list(direct.skeleton.names)
    np.testing.assert_array_equal(model.skeleton.parents, direct.skeleton.parents)


# each kind: what a reader of another format says it looks like, and the function it names
LOOKS = {"glb": ("a binary glTF (GLB) file", "skinkit.load_gltf"),
         "gltf": ("a glTF JSON file", "skinkit.load_gltf"),
         "fbx-binary": ("an FBX file", "skinkit.load_fbx"),
         "fbx-ascii": ("an FBX file", "skinkit.load_fbx"),
         "bvh": ("a BVH motion file", "skinkit.load_bvh"),
         "npz": ("a NumPy .npz archive", "skinkit.load_body_model"),
         "pkl": ("a Python pickle", "skinkit.load_body_model")}
# each loader: the kinds it reads itself (an AMASS motion is an .npz too: its own errors)
READS = {skinkit.load_gltf: {"glb", "gltf"}, skinkit.load_fbx: {"fbx-binary", "fbx-ascii"},
         skinkit.load_bvh: {"bvh"}, skinkit.load_body_model: {"npz", "pkl"},
         skinkit.load_amass: {"npz"}}


@pytest.mark.parametrize("loader, kind", [(loader, kind) for loader, own in READS.items()
                                          for kind in LOOKS if kind not in own],
                         ids=lambda x: getattr(x, "__name__", None) or x)
def test_other_format_is_named(path_of, loader, kind):
    """Every loader given a file of another format names the file, what it looks like and the
    function that reads it, in the loader's own error (a ValueError)."""
    path = path_of(kind)
    looks_like, reader = LOOKS[kind]
    with pytest.raises(ValueError) as e:
        loader(path)
    message = str(e.value)
    assert message.startswith(f"{path}: ") and message.count(str(path)) == 1, message
    assert looks_like in message and reader in message, message


def _npz(path, **arrays):
    np.savez(path, **arrays)
    return path


# each reader and a malformed file of its own format (issue 23): what it is wrong about after
# the file's name
MALFORMED = [
    ("load_gltf", "bad.gltf", lambda p: p.write_text('{"asset": {"version": "2.0"}, '
                                                     '"nodes": [{"children": [5]}]}'),
     skinkit.GltfError, r"nodes\[0\]\.children: "),
    ("load_gltf", "bad.glb", lambda p: p.write_bytes(b"glTF\x02\x00\x00\x00\x0c\x00"),
     skinkit.GltfError, r"GLB header"),
    ("load_bvh", "bad.bvh", lambda p: p.write_text("HIERARCHY\nROOT a\n{\nOFFSET 0 0\n}\n"),
     skinkit.BvhError, r"line 4: "),
    ("load_fbx", "bad.fbx", lambda p: p.write_bytes(b"Kaydara FBX Binary  \x00\x1a\x00"),
     skinkit.FbxError, r""),
    ("load_body_model", "bad.npz", lambda p: _npz(p, v_template=np.zeros(3)),
     skinkit.BodyModelError, r""),
    ("load_amass", "bad.npz", lambda p: _npz(p, poses=np.zeros(3)), skinkit.BodyModelError, r""),
]


# each reader directly, and through load_model (but AMASS's: load_model reads an .npz as a body
# model)
NAMING = [pytest.param(*c, through, id=f"{c[0]}-{c[1]}-{through}")
          for through in ("reader", "load_model") for c in MALFORMED
          if not (through == "load_model" and c[0] == "load_amass")]


@pytest.mark.parametrize("reader, name, write, error, where, through", NAMING)
def test_every_reader_names_the_file(tmp_path, reader, name, write, error, where, through):
    """The message starts with the file, once, then what the reader found wrong (the JSON path,
    the line); load_model passes the reader's error on as it is."""
    path = tmp_path / name
    write(path)
    load = getattr(skinkit, reader if through == "reader" else "load_model")
    with pytest.raises(error, match="^" + re.escape(f"{path}: ") + where) as info:
        load(path)
    assert str(info.value).count(str(path)) == 1, str(info.value)


def test_unknown_content(tmp_path):
    p = tmp_path / "x.dat"
    p.write_bytes(b"\x00\x01 nothing known")
    with pytest.raises(ValueError, match="not a format skinkit reads"):
        skinkit.load_model(p)


def test_unknown_content_goes_to_the_suffix_reader(tmp_path):
    p = tmp_path / "x.glb"
    p.write_bytes(b"\x00\x01 nothing known")
    with pytest.raises(skinkit.GltfError, match="GLB header.magic"):
        skinkit.load_model(p)


@pytest.mark.shared
def test_gltf_texcoord_0():
    """Primitive.uvs: TEXCOORD_0 of the glTF (RiggedFigure has none, Fox has one)."""
    fox = skinkit.load_gltf(GLTF / "Fox.glb")
    uvs = fox.primitives[0].uvs
    assert uvs.shape == (len(fox.primitives[0].positions), 2)
    assert 0.0 <= uvs.min() and uvs.max() <= 1.0 and np.ptp(uvs) > 0.5
    assert skinkit.load_gltf(GLTF / "RiggedSimple.glb").primitives[0].uvs is None
