"""skinkit.load_model picks the reader by content, and a reader given another format says what
the file looks like and which function reads it."""
import re
import shutil

import numpy as np
import pytest

import skinkit
from conftest import DATA

GLB = DATA / "gltf" / "RiggedSimple.glb"
GLTF = DATA / "gltf" / "SimpleSkin.gltf"
FBX_BINARY = DATA / "fbx" / "maya_split_pivot_7700_binary.fbx"
FBX_ASCII = DATA / "fbx" / "maya_blend_shape_cube_7700_ascii.fbx"
BVH = next((DATA / "bvh").glob("*.bvh"))


@pytest.mark.parametrize("path, loader", [(GLB, skinkit.load_gltf), (GLTF, skinkit.load_gltf),
                                          (FBX_BINARY, skinkit.load_fbx),
                                          (FBX_ASCII, skinkit.load_fbx), (BVH, skinkit.load_bvh)])
def test_load_model_picks_by_content(tmp_path, path, loader):
    """Renamed to .dat, each file still reaches its reader: the same skeleton as the reader's."""
    renamed = tmp_path / "model.dat"
    shutil.copyfile(path, renamed)
    model = skinkit.load_model(renamed)
    direct = loader(path)
    assert list(model.skeleton.names) == list(direct.skeleton.names)
    np.testing.assert_array_equal(model.skeleton.parents, direct.skeleton.parents)


NPZ = DATA / "body" / "tiny_mano.npz"
PKL = DATA / "body" / "tiny_mano_chumpy_py2.pkl"
# each file: what a reader of another format says it looks like, and the function it names
LOOKS = {GLB: ("a binary glTF (GLB) file", "skinkit.load_gltf"),
         GLTF: ("a glTF JSON file", "skinkit.load_gltf"),
         FBX_BINARY: ("an FBX file", "skinkit.load_fbx"),
         FBX_ASCII: ("an FBX file", "skinkit.load_fbx"),
         BVH: ("a BVH motion file", "skinkit.load_bvh"),
         NPZ: ("a NumPy .npz archive", "skinkit.load_body_model"),
         PKL: ("a Python pickle", "skinkit.load_body_model")}
# each loader: the files it reads itself (an AMASS motion is an .npz too: its own errors)
READS = {skinkit.load_gltf: {GLB, GLTF}, skinkit.load_fbx: {FBX_BINARY, FBX_ASCII},
         skinkit.load_bvh: {BVH}, skinkit.load_body_model: {NPZ, PKL}, skinkit.load_amass: {NPZ}}


@pytest.mark.parametrize("loader, path", [(loader, path) for loader, own in READS.items()
                                          for path in LOOKS if path not in own],
                         ids=lambda x: getattr(x, "__name__", None) or x.name)
def test_other_format_is_named(loader, path):
    """Every loader given a file of another format names the file, what it looks like and the
    function that reads it, in the loader's own error (a ValueError)."""
    looks_like, reader = LOOKS[path]
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


def test_gltf_texcoord_0():
    """Primitive.uvs: TEXCOORD_0 of the glTF (RiggedFigure has none, Fox has one)."""
    fox = skinkit.load_gltf(DATA / "gltf" / "Fox.glb")
    uvs = fox.primitives[0].uvs
    assert uvs.shape == (len(fox.primitives[0].positions), 2)
    assert 0.0 <= uvs.min() and uvs.max() <= 1.0 and np.ptp(uvs) > 0.5
    assert skinkit.load_gltf(DATA / "gltf" / "RiggedSimple.glb").primitives[0].uvs is None
