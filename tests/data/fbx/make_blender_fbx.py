"""Regenerate the Blender-written FBX fixtures (tests/data/fbx/blender_*.fbx) from the glTF
fixtures: each is imported by Blender's glTF importer and written by Blender's FBX exporter
(binary FBX 7.4, animation baked at every frame without simplification, no leaf bones).  Run with a Python that imports bpy:

    ~/.cache/skinkit/bpy-venv/bin/python tests/data/fbx/make_blender_fbx.py

The sources and their licences are in tests/data/gltf/LICENSES.md; the FBX files carry the same
licences (see LICENSES.md here)."""
from pathlib import Path

import bpy

HERE = Path(__file__).resolve().parent
GLTF = HERE.parent / "gltf"
SOURCES = ["RiggedSimple.glb", "RiggedSimple-morph.glb", "RiggedFigure.glb"]


def main():
    for name in SOURCES:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=str(GLTF / name))
        shapes = {pb.custom_shape for ob in bpy.data.objects if ob.pose
                  for pb in ob.pose.bones if pb.custom_shape}
        for ob in shapes:   # the importer's bone display shape (an Icosphere), not the model's
            bpy.data.objects.remove(ob)
        out = HERE / f"blender_{Path(name).stem}.fbx"
        bpy.ops.export_scene.fbx(filepath=str(out), bake_anim=True, add_leaf_bones=False,
                                 bake_anim_use_nla_strips=False, bake_anim_use_all_actions=True,
                                 bake_anim_force_startend_keying=True,
                                 bake_anim_simplify_factor=0.0)
        print(out.name, out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
