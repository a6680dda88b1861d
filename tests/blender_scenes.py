"""Content written by Blender for the readers' tests: run in Blender's Python (``bpy``), as

    python blender_scenes.py OUT_DIR [GLTF ...]

it builds a scene from code -- an armature of three bones under a moved and turned object, a
skinned tube (two influences a vertex) with a shape key, a rigid cap parented to the last bone,
two actions of the bones and an animated shape-key value -- and writes it with Blender's own
exporters: ``rig.fbx`` (binary FBX 7.4, Y up, every action a stack), ``rig_zup.fbx`` (the same
scene, Z up), ``rig.glb`` (glTF 2.0: the scene's timeline, action ``Bend``, a clip per object)
and ``rig.bvh`` (the armature, action ``Bend``).  Each ``GLTF`` given (shared fixtures) is
imported by Blender's glTF importer and written by its FBX exporter as ``<stem>.fbx``.

Beside each scene, ``<name>.npz`` says what Blender itself reports about it (its evaluated
depsgraph, in glTF axes: metres, +Y up, (x, y, z) -> (x, z, -y)): for every action ``a`` at
``frames`` (its keys: whole frames, as the exporters bake them) ``v:a:<mesh>`` (T, V, 3) world
vertices, ``w:a:<mesh>`` (T, K) shape-key values, ``j:a:<bone>`` (T, 3) world bone heads,
``a:a:<bone>`` (T, 3) bone heads in the armature's space and Blender's axes (what BVH keeps); and
``t:a`` (T,) the times of those frames in the exported files (each action's stack starts at
its first frame); ``fps``, ``actions``, ``bones``, ``keys:<mesh>`` (shape-key names),
``groups:<mesh>`` (vertex-group names).  tests/blender_mesh.py ``made_by_blender`` runs this
once per content of this file and of its inputs, and caches the folder.
"""
import math
import sys
from pathlib import Path

import numpy as np

BONES = ("Root", "Mid", "Tip")
BONE_LENGTH = 0.5
FPS, LAST = 24, 24
# action -> frame -> bone -> (axis, degrees): keys of the bones' rotations
ACTIONS = {
    "Bend": {0: {"Root": ((1, 0, 0), 0), "Mid": ((1, 0, 0), 0), "Tip": ((0, 1, 0), 0)},
             12: {"Root": ((1, 0, 0), 30), "Mid": ((1, 0, 0), 40), "Tip": ((0, 1, 0), 20)},
             24: {"Root": ((1, 0, 0), -10), "Mid": ((0, 1, 0), 25), "Tip": ((1, 0, 0), 45)}},
    "Twist": {0: {"Root": ((0, 0, 1), 0), "Mid": ((0, 0, 1), 0), "Tip": ((0, 0, 1), 0)},
              24: {"Root": ((0, 0, 1), 90), "Mid": ((1, 0, 0), 45), "Tip": ((0, 0, 1), -30)}},
}
SHAPE_KEYS = {0: 0.0, 12: 1.0, 24: 0.3}      # frame -> value of "Bulge"
FRAMES = [0, 6, 12, 18, 24]                  # where Blender's scene is recorded
FBX_OPTIONS = dict(bake_anim=True, add_leaf_bones=False, bake_anim_use_nla_strips=False,
                   bake_anim_use_all_actions=True, bake_anim_force_startend_keying=True,
                   bake_anim_simplify_factor=0.0)


def _armature(bpy, scene):
    data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    parent = None
    for i, name in enumerate(BONES):
        bone = data.edit_bones.new(name)
        bone.head, bone.tail = (0, 0, BONE_LENGTH * i), (0, 0, BONE_LENGTH * (i + 1))
        bone.parent, bone.use_connect = parent, parent is not None
        parent = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    arm.location, arm.rotation_euler = (0.2, 0.1, 0.0), (0.0, 0.0, math.radians(30))
    return arm


def _tube(bpy, scene, arm, rings=13, sides=8, radius=0.1):
    """A tube along the bones, with UVs, each vertex weighted to the (at most two) bones whose
    middle is within a bone's length, linearly, normalized to sum 1; shape key "Bulge" widens
    its middle."""
    height = BONE_LENGTH * len(BONES)
    angles = [2 * math.pi * s / sides for s in range(sides)]
    verts = [(radius * math.cos(a), radius * math.sin(a), height * k / (rings - 1))
             for k in range(rings) for a in angles]
    faces = [(k * sides + s, k * sides + (s + 1) % sides, (k + 1) * sides + (s + 1) % sides,
              (k + 1) * sides + s) for k in range(rings - 1) for s in range(sides)]
    mesh = bpy.data.meshes.new("Tube")
    mesh.from_pydata(verts, [], faces)
    uv = mesh.uv_layers.new(name="UVMap")    # cylindrical: around, along
    for loop in mesh.loops:
        k, s = divmod(loop.vertex_index, sides)
        uv.data[loop.index].uv = (s / sides, k / (rings - 1))
    tube = bpy.data.objects.new("Tube", mesh)
    scene.collection.objects.link(tube)
    tube.parent = arm
    tube.modifiers.new("Armature", "ARMATURE").object = arm
    weights = np.array([[max(0.0, 1.0 - abs(co[2] - BONE_LENGTH * (i + 0.5)) / BONE_LENGTH)
                         for i in range(len(BONES))] for co in verts])
    weights /= weights.sum(axis=1, keepdims=True)
    for i, name in enumerate(BONES):
        group = tube.vertex_groups.new(name=name)
        for v in np.flatnonzero(weights[:, i]):
            group.add([int(v)], float(weights[v, i]), "REPLACE")
    tube.shape_key_add(name="Basis")
    bulge = tube.shape_key_add(name="Bulge", from_mix=False)
    for v, (x, y, z) in enumerate(verts):
        f = 1.0 + 0.5 * math.exp(-((z - height / 2) / 0.3) ** 2)
        bulge.data[v].co = (x * f, y * f, z)
    for frame, value in SHAPE_KEYS.items():
        bulge.value = value
        bulge.keyframe_insert("value", frame=frame)
    return tube


def _cap(bpy, scene, arm):
    """A rigid box on the last bone (bone parent: it follows the bone's tail)."""
    mesh = bpy.data.meshes.new("Cap")
    s = 0.08
    mesh.from_pydata([(x, y, z) for x in (-s, s) for y in (-s, s) for z in (0, 2 * s)], [],
                     [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4),
                      (1, 5, 7, 3)])
    cap = bpy.data.objects.new("Cap", mesh)
    scene.collection.objects.link(cap)
    cap.parent, cap.parent_type, cap.parent_bone = arm, "BONE", BONES[-1]
    cap.scale = (1.0, 2.0, 1.0)              # a non-uniform scale under the joint
    return cap


def _actions(bpy, arm):
    from mathutils import Quaternion

    arm.animation_data_create()
    for name, keys in ACTIONS.items():
        arm.animation_data.action = bpy.data.actions.new(name)
        for frame, rotations in keys.items():
            for bone, (axis, degrees) in rotations.items():
                pb = arm.pose.bones[bone]
                pb.rotation_mode = "QUATERNION"
                pb.rotation_quaternion = Quaternion(axis, math.radians(degrees))
                pb.keyframe_insert("rotation_quaternion", frame=frame)
    return [bpy.data.actions[name] for name in ACTIONS]


def gltf_axes(p):
    """Blender's +Z up to glTF's +Y up: (x, y, z) -> (x, z, -y)."""
    p = np.asarray(p, dtype=np.float64)
    return np.stack([p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


def record(bpy, scene, arm, actions, frames):
    """What Blender reports about the scene, for each action at ``frames`` (module docstring)."""
    from blender_mesh import each_frame, world_vertices

    meshes = [ob for ob in scene.objects if ob.type == "MESH"]
    fps = scene.render.fps / scene.render.fps_base
    out = {"fps": np.float64(fps), "frames": np.asarray(frames, float),
           "actions": np.array([a.name for a in actions]),
           "bones": np.array([b.name for b in arm.data.bones])}
    for ob in meshes:
        keys = ob.data.shape_keys
        out[f"keys:{ob.name}"] = np.array([k.name for k in keys.key_blocks[1:]] if keys else [])
        out[f"groups:{ob.name}"] = np.array([g.name for g in ob.vertex_groups])
    for action in actions:
        arm.animation_data.action = action
        posed = {ob.name: [] for ob in meshes}
        values = {ob.name: [] for ob in meshes}
        heads = {b.name: [] for b in arm.pose.bones}
        local = {b.name: [] for b in arm.pose.bones}
        for depsgraph in each_frame(scene, frames):
            for ob in meshes:
                posed[ob.name].append(world_vertices(ob, depsgraph))
                keys = ob.data.shape_keys
                values[ob.name].append([k.value for k in keys.key_blocks[1:]] if keys else [])
            M = np.array(arm.evaluated_get(depsgraph).matrix_world)
            for pb in arm.evaluated_get(depsgraph).pose.bones:
                heads[pb.name].append(M[:3, :3] @ np.array(pb.head) + M[:3, 3])
                local[pb.name].append(np.array(pb.head))
        n = action.name
        out[f"t:{n}"] = (np.asarray(frames, float) - action.frame_range[0]) / fps
        out.update({f"v:{n}:{k}": gltf_axes(v) for k, v in posed.items()})
        out.update({f"w:{n}:{k}": np.array(v, float) for k, v in values.items()})
        out.update({f"j:{n}:{k}": gltf_axes(v) for k, v in heads.items()})
        out.update({f"a:{n}:{k}": np.array(v) for k, v in local.items()})
    return out


def make_rig(bpy, out: Path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = FPS, 0, LAST
    arm = _armature(bpy, scene)
    _tube(bpy, scene, arm)
    _cap(bpy, scene, arm)
    actions = _actions(bpy, arm)
    np.savez(out / "rig.npz", **record(bpy, scene, arm, actions, FRAMES))
    arm.animation_data.action = actions[0]
    bpy.ops.export_scene.fbx(filepath=str(out / "rig.fbx"), **FBX_OPTIONS)
    bpy.ops.export_scene.fbx(filepath=str(out / "rig_zup.fbx"), axis_up="Z", axis_forward="Y",
                             **FBX_OPTIONS)
    bpy.ops.export_scene.gltf(filepath=str(out / "rig.glb"), export_animation_mode="SCENE")
    for ob in scene.objects:
        ob.select_set(ob is arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.export_anim.bvh(filepath=str(out / "rig.bvh"), frame_start=0, frame_end=LAST)


def convert_gltf(bpy, source: Path, out: Path):
    """``source`` through Blender's glTF importer and FBX exporter (animation baked at every
    frame, no leaf bones, the importer's bone display shape left out), recorded at the keys of
    the action it assigned."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=str(source))
    scene = bpy.context.scene
    for ob in {pb.custom_shape for ob in bpy.data.objects if ob.pose for pb in ob.pose.bones
               if pb.custom_shape}:
        bpy.data.objects.remove(ob)
    arm = next(ob for ob in scene.objects if ob.type == "ARMATURE")
    action = arm.animation_data.action
    start, end = (int(f) for f in action.frame_range)
    frames = sorted({int(f) for f in np.linspace(start, end, 5)})
    np.savez(out / f"{source.stem}.npz", **record(bpy, scene, arm, [action], frames))
    arm.animation_data.action = action
    bpy.ops.export_scene.fbx(filepath=str(out / f"{source.stem}.fbx"), **FBX_OPTIONS)


if __name__ == "__main__":
    import bpy

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    target = Path(sys.argv[1])
    make_rig(bpy, target)
    for path in sys.argv[2:]:
        convert_gltf(bpy, Path(path), target)
    sys.exit(0)
