"""glTF images read lazily (issue 31): posing needs no pixels, so an image file beside the model
is not read by load_gltf (only write_gltf reads its bytes), and a missing image, or one whose
URI leaves the model's folder, is a warning on the ``skinkit`` logger, not a refusal (the
glTF-Asset-Generator's Animation_Node models name textures they do not ship)."""
import logging

import numpy as np
import pytest
from gltf_doc import Doc

import skinkit as sk

FLOAT, VEC3 = 5126, "VEC3"


def textured(folder, uri):
    """A .gltf (buffer in a data: URI) of one textured triangle whose image is ``uri``."""
    doc = Doc()
    tri = doc.add(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), FLOAT, VEC3,
                  min=[0, 0, 0], max=[1, 1, 0])
    uv = doc.add(np.array([[0, 0], [1, 0], [0, 1]], np.float32), FLOAT, "VEC2")
    doc.json.update(
        meshes=[{"primitives": [{"attributes": {"POSITION": tri, "TEXCOORD_0": uv},
                                 "material": 0}]}],
        materials=[{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        textures=[{"source": 0}], images=[{"uri": uri}],
        nodes=[{"mesh": 0}], scenes=[{"nodes": [0]}], scene=0)
    return doc.write(folder / "model.gltf")


@pytest.mark.parametrize("uri", ["missing.png", "../outside.png", "https://example.com/a.png"],
                         ids=["missing", "outside the folder", "a URI scheme"])
def test_an_image_that_cannot_be_read_is_a_warning(tmp_path, caplog, uri):
    (tmp_path / "outside.png").write_bytes(b"\x89PNG outside")
    folder = tmp_path / "model"
    folder.mkdir()
    path = textured(folder, uri)
    with caplog.at_level(logging.WARNING, logger="skinkit"):
        model = sk.load_gltf(path)
    [record] = [r for r in caplog.records if r.name.startswith("skinkit")]
    assert record.levelno == logging.WARNING
    assert str(path) in record.getMessage() and "images[0].uri" in record.getMessage()
    assert "posing needs no pixels" in record.getMessage()
    assert model.pose(None, [0.0])[model.primitives[0].key].shape == (1, 3, 3)
    sk.write_gltf(model, tmp_path / "out.glb")           # the reference, as it was
    back = sk.load_gltf(tmp_path / "out.glb")
    assert back.materials["images"][0]["uri"] == uri and "data" not in back.materials["images"][0]


def test_an_image_beside_the_model_is_read_by_write_gltf_only(tmp_path):
    path = textured(tmp_path, "albedo.png")
    (tmp_path / "albedo.png").write_bytes(b"\x89PNG first")
    model = sk.load_gltf(path)
    image = model.materials["images"][0]
    assert "data" not in image and image["mimeType"] == "image/png"
    (tmp_path / "albedo.png").write_bytes(b"\x89PNG second")   # the bytes when written count
    sk.write_gltf(model, tmp_path / "out.glb")
    back = sk.load_gltf(tmp_path / "out.glb")
    assert bytes(back.materials["images"][0]["data"]) == b"\x89PNG second"
    (tmp_path / "albedo.png").unlink()
    with pytest.raises(OSError, match=r"images\[0\]: the image .*albedo.png cannot be read"):
        sk.write_gltf(model, tmp_path / "again.glb")
    assert not (tmp_path / "again.glb").exists()
