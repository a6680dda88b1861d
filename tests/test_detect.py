"""skinkit.load_model picks the reader by content, and a reader given another format says what
the file looks like and which function reads it."""
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


@pytest.mark.parametrize("loader, path, looks_like, reader", [
    (skinkit.load_gltf, FBX_BINARY, "an FBX file", "skinkit.load_fbx"),
    (skinkit.load_gltf, FBX_ASCII, "an FBX file", "skinkit.load_fbx"),
    (skinkit.load_gltf, BVH, "a BVH motion file", "skinkit.load_bvh"),
    (skinkit.load_fbx, GLB, "a binary glTF", "skinkit.load_gltf"),
    (skinkit.load_fbx, GLTF, "a glTF JSON file", "skinkit.load_gltf"),
    (skinkit.load_bvh, FBX_BINARY, "an FBX file", "skinkit.load_fbx"),
])
def test_other_format_is_named(loader, path, looks_like, reader):
    with pytest.raises(ValueError) as e:
        loader(path)
    message = str(e.value)
    assert str(path) in message and looks_like in message and reader in message


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
