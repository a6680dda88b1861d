"""The loaders say on the ``skinkit`` logger what they decided: one INFO line per decision,
naming the file (optional glTF extensions ignored, glTF skin weights used as stored though they
do not sum to 1; FBX influences dropped, weights normalized, control points without weights)."""
import logging

import numpy as np

import skinkit
from fbx_transcode import parse, to_ascii
from test_gltf import small


def records(caplog):
    return [r.getMessage() for r in caplog.records if r.name.startswith("skinkit")]


def test_gltf_ignored_extensions_and_weights_as_stored(tmp_path, caplog):
    d = small()
    prim = d.json["meshes"][0]["primitives"][0]
    prim["attributes"]["WEIGHTS_0"] = d.add([[0.5, 0.25, 0, 0], [0.5, 0.5, 0, 0],
                                             [0.5, 0.5, 0, 0]], 5126, "VEC4")
    prim["material"] = 0
    d.json["materials"] = [{"extensions": {"KHR_materials_unlit": {}}}]   # kept, not ignored
    d.json["extensionsUsed"] = ["KHR_materials_unlit", "KHR_lights_punctual",
                                "EXT_mesh_gpu_instancing"]
    path = d.write(tmp_path / "m.glb")
    with caplog.at_level(logging.INFO, logger="skinkit"):
        model = skinkit.load_gltf(path)
    extensions, weights = records(caplog)
    assert extensions == (f"{path}: optional glTF extensions ignored (the model is read without "
                          "them): KHR_lights_punctual, EXT_mesh_gpu_instancing")
    assert weights.startswith(f"{path}: meshes[0].primitives[0]: skin weights of 1 of 3 "
                              "vertices do not sum to 1 (off by up to 0.25)")
    np.testing.assert_allclose(model.primitives[0].weights[0], [0.5, 0.25, 0, 0])   # as stored


def test_a_clean_gltf_logs_nothing(caplog):
    with caplog.at_level(logging.DEBUG, logger="skinkit"):
        skinkit.data.character()
    assert records(caplog) == []


def test_fbx_weights_dropped_normalized_and_missing(blender_files, tmp_path, caplog):
    """Blender's FBX of the rig as ASCII, its first cluster's first two weights (1, 1) made 0
    and 0.5: ufbx drops the zero (its control point is left without weights and follows the
    mesh node) and the C reader divides the other by its sum."""
    text = to_ascii(parse((blender_files / "rig.fbx").read_bytes()))
    clean = tmp_path / "rig.fbx"
    clean.write_text(text)
    old = "Weights: *48 {\n\t\t\ta: 1.0,1.0,"
    assert old in text
    path = tmp_path / "edited.fbx"
    path.write_text(text.replace(old, "Weights: *48 {\n\t\t\ta: 0,0.5,", 1))
    with caplog.at_level(logging.INFO, logger="skinkit"):
        model = skinkit.load_fbx(path)
    node = f"{path}: mesh node 'Tube'"
    assert records(caplog) == [
        f"{node}: 1 skin influence(s) dropped (zero, negative or NaN weight)",
        f"{node}: skin weights of 1 of 104 control points normalized to sum 1",
        f"{node}: 1 of 104 control points have no skin weight; they follow the node (weight 1), "
        "as in ufbx and Blender"]
    np.testing.assert_allclose(model.primitives[0].weights.sum(axis=1), 1.0)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="skinkit"):
        skinkit.load_fbx(clean)
    assert records(caplog) == []
