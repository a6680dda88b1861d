"""Pose a Blender armature and its skinned mesh with skinkit, inside Blender.

Reads the armature (bones, rest matrices), the mesh's vertex groups and its shape keys from
``bpy`` data, and poses the mesh either at the pose bones' current transforms (``matrix_basis``)
or at frames of an action whose F-curves are evaluated at those frames -- the work Blender's
shape keys and Armature modifier do, as a few batched skinkit calls for any number of frames.
Importable in Blender's Python (``import skinkit.apps.blender``; bpy is imported only where used).

Run it inside Blender::

    blender -b scene.blend --python-expr "import sys, skinkit.apps.blender as b; sys.exit(b.main())" \
        -- --frames 1 12 24 --out poses.npz

or with the ``bpy`` module (``pip install bpy``, Python 3.11), which also imports a glTF file::

    python -m skinkit.apps.blender model.glb --frames 1 12 24 --out poses.npz

The .npz holds ``frames`` (T,) and ``positions_<mesh object>`` (T, V, 3) in world space.

How Blender poses a bone, and so this script (bone = ``armature.data.bones[i]``)::

    rest_i  = bone.matrix_local                      # armature space, rest
    local_i = rest_parent^-1 @ rest_i @ basis_i      # basis = pose bone's matrix_basis (T R S)
    pose_i  = pose_parent @ local_i                  # forward kinematics
    skin_i  = pose_i @ rest_i^-1                     # skinning matrix, armature space

and a vertex v of the mesh object moves to ``sum_i w_i skin_i v`` (in armature space, weights of
the vertex groups named after deforming bones, divided by their sum; a vertex with no weight
stays put), or with the modifier's "Preserve Volume" to the dual quaternion blend of the
``skin_i`` (``skinkit.dual_quaternion_skinning``).  Connected bones ignore their location, as in
Blender.

Shape keys (relative keys, as Blender evaluates them before the Armature modifier)::

    co = basis + sum_k value_k * mask_k * (key_k - relative_key_k)

with ``value_k`` the key's value (its F-curve evaluated at the frame when the key's action
animates it) clamped to ``[slider_min, slider_max]``, ``mask_k`` the weights of the key's vertex
group (1 without one), muted keys left out.  Not reproduced, and refused with a message naming
what: absolute shape keys, a pinned shape key ("Shape Key Lock"), shape-key and bone drivers, bone
constraints, B-Bone segments, inherit-scale modes other than Full, modifiers before the Armature
modifier.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

import skinkit

if TYPE_CHECKING:   # Blender's modules ship no type information: these are Any to mypy
    from bpy.types import Action, ArmatureModifier, FCurve, Key, Object

__all__ = ["Rig", "main", "pose_mesh", "rig_from_armature", "shape_key_positions",
           "skinned_meshes", "weights_from_vertex_groups"]


# --------------------------------------------------------------------------- armature

@dataclass
class Rig:
    """A Blender armature as skinkit arrays: bones in ``armature.data.bones`` order."""

    names: List[str]
    parents: NDArray[Any]          # (B,) int32, -1 for roots
    rest: NDArray[Any]             # (B, 4, 4) bone.matrix_local (armature space)
    rest_t: NDArray[Any]           # (B, 3) translation of rest_parent^-1 @ rest
    rest_q: NDArray[Any]           # (B, 4) rotation (x, y, z, w) of rest_parent^-1 @ rest
    connected: NDArray[Any]        # (B,) bool, bone.use_connect (location ignored)
    deform: NDArray[Any]           # (B,) bool, bone.use_deform


def rig_from_armature(armature_object: Object) -> Rig:
    """Bones, parents (from ``bone.parent``) and rest matrices (``bone.matrix_local``)."""
    bones = armature_object.data.bones
    names = [b.name for b in bones]
    index = {n: i for i, n in enumerate(names)}
    parents = np.array([index[b.parent.name] if b.parent else -1 for b in bones], np.int32)
    rest = np.array([np.array(b.matrix_local, dtype=np.float64) for b in bones]).reshape(-1, 4, 4)
    parent_rest = np.where(parents[:, None, None] >= 0, rest[parents], np.eye(4))
    rel = np.linalg.solve(parent_rest, rest)               # rest_parent^-1 @ rest
    return Rig(names=names, parents=parents, rest=rest,
               rest_t=rel[:, :3, 3].copy(),
               rest_q=skinkit.quat_normalize(skinkit.quat_from_matrix(rel[:, :3, :3])),
               connected=np.array([b.use_connect for b in bones]),
               deform=np.array([b.use_deform for b in bones]))


def _armature_modifier(armature_object: Object, mesh_object: Object) -> ArmatureModifier:
    return next((m for m in mesh_object.modifiers
                 if m.type == "ARMATURE" and m.object == armature_object), None)


def _check_supported(armature_object: Object, mesh_object: Object) -> None:
    problems = []
    for pb in armature_object.pose.bones:
        if len(pb.constraints):
            problems.append(f"bone {pb.name!r} has constraints")
        if pb.bone.inherit_scale != "FULL" or not pb.bone.use_inherit_rotation:
            problems.append(f"bone {pb.name!r} does not inherit full rotation and scale")
        if pb.bone.bbone_segments > 1:
            problems.append(f"bone {pb.name!r} is a B-Bone")
    mod = _armature_modifier(armature_object, mesh_object)
    if mod is None:
        problems.append(f"{mesh_object.name!r} has no Armature modifier of "
                        f"{armature_object.name!r}")
    else:
        if mod.use_bone_envelopes or not mod.use_vertex_groups:
            problems.append(f"modifier {mod.name!r}: only vertex groups are reproduced")
        before = [m.name for m in mesh_object.modifiers[:list(mesh_object.modifiers).index(mod)]
                  if m.show_render or m.show_viewport]
        if before:
            problems.append(f"modifiers before {mod.name!r}: {', '.join(before)}")
    problems += _shape_key_problems(mesh_object)
    if problems:
        raise ValueError("not reproduced by skinkit.apps.blender: " + "; ".join(problems))


def _shape_key_problems(mesh_object: Object) -> List[str]:
    key = mesh_object.data.shape_keys
    if key is None:
        return []
    problems = []
    if not key.use_relative:
        problems.append(f"shape keys {key.name!r} are absolute (evaluation time), not relative")
    if mesh_object.show_only_shape_key:
        problems.append(f"{mesh_object.name!r} shows one pinned shape key (Shape Key Lock)")
    if key.animation_data and len(key.animation_data.drivers):
        problems.append(f"shape keys {key.name!r} have drivers")
    return problems


# --------------------------------------------------------------------------- mesh

def weights_from_vertex_groups(mesh_object: Object, rig: Rig
                               ) -> Tuple[NDArray[Any], NDArray[Any], bool]:
    """joints (V, K) int32 (-1 for an unused slot) and weights (V, K) float64 from the vertex
    groups named after deforming bones, normalized as Blender does; also whether some vertex has
    no weight at all (Blender leaves it where it is)."""
    bone_of_group = {}
    for g in mesh_object.vertex_groups:
        i = rig.names.index(g.name) if g.name in rig.names else -1
        if i >= 0 and rig.deform[i]:
            bone_of_group[g.index] = i
    rows: List[List[Tuple[int, float]]] = []
    for v in mesh_object.data.vertices:
        rows.append([(bone_of_group[g.group], g.weight) for g in v.groups
                     if g.group in bone_of_group and g.weight > 0])
    k = max((len(r) for r in rows), default=0) or 1
    joints = np.full((len(rows), k), -1, np.int32)
    weights = np.zeros((len(rows), k))
    for vi, r in enumerate(rows):
        for s, (j, w) in enumerate(r):
            joints[vi, s], weights[vi, s] = j, w
    unweighted = bool((weights.sum(axis=1) == 0).any())
    return joints, skinkit.normalize_weights(weights), unweighted


def _coordinates(points: Any) -> NDArray[Any]:
    """(V, 3) ``co`` of a collection of vertices or shape key points."""
    co = np.empty(len(points) * 3, np.float64)
    points.foreach_get("co", co)
    return co.reshape(-1, 3)


def _group_weights(mesh_object: Object, name: str) -> NDArray[Any]:
    """(V,) weights of the vertex group ``name`` (0 where a vertex is not in it)."""
    index = mesh_object.vertex_groups[name].index
    return np.array([next((g.weight for g in v.groups if g.group == index), 0.0)
                     for v in mesh_object.data.vertices])


def _shape_key_values(key: Key, frames: Optional[Sequence[float]]) -> NDArray[Any]:
    """(T, K) the relative keys' values (the first, the basis, included: its value is unused),
    at ``frames`` from the key's action, else as set now (T = 1); clamped to the sliders'
    range, 0 for a muted key."""
    blocks = list(key.key_blocks)
    now = np.array([b.value for b in blocks])
    values = np.broadcast_to(now, (1 if frames is None else len(frames), len(blocks))).copy()
    action = key.animation_data.action if key.animation_data else None
    if frames is not None and action is not None:
        index = {f'key_blocks["{b.name}"].value': i for i, b in enumerate(blocks)}
        for fc in _channelbag_fcurves(key, action):
            if fc.data_path in index and not fc.mute:
                values[:, index[fc.data_path]] = [fc.evaluate(f) for f in frames]
    lo, hi = (np.array([getattr(b, a) for b in blocks]) for a in ("slider_min", "slider_max"))
    muted = np.array([b.mute for b in blocks])
    return np.where(muted, 0.0, np.clip(values, lo, hi))


def shape_key_positions(mesh_object: Object,
                        frames: Optional[Sequence[float]] = None) -> NDArray[Any]:
    """(T, V, 3) object-space positions of the mesh with its relative shape keys applied, at
    ``frames`` (the key's action evaluated there) or as the values are now (T = 1); without
    shape keys, the mesh's vertices.  The blend is ``skinkit.blend_shapes`` (see the module
    docstring for the formula)."""
    key = mesh_object.data.shape_keys
    if key is None:
        return _coordinates(mesh_object.data.vertices)[None]
    problems = _shape_key_problems(mesh_object)
    if problems:
        raise ValueError("not reproduced by skinkit.apps.blender: " + "; ".join(problems))
    blocks = list(key.key_blocks)
    co = np.stack([_coordinates(b.data) for b in blocks])                # (K, V, 3)
    names = {b.name: i for i, b in enumerate(blocks)}
    deltas = np.stack([co[i] - co[names[b.relative_key.name]] for i, b in enumerate(blocks)])
    for i, b in enumerate(blocks):
        if b.vertex_group:
            deltas[i] *= _group_weights(mesh_object, b.vertex_group)[:, None]
    values = _shape_key_values(key, frames)
    values[:, names[key.reference_key.name]] = 0.0                       # the basis itself
    return skinkit.blend_shapes(co[names[key.reference_key.name]], deltas, values)


# --------------------------------------------------------------------------- pose sources

def basis_from_pose(armature_object: Object, rig: Rig
                    ) -> Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The pose bones' current ``matrix_basis`` as (1, B, 3) location, (1, B, 4) rotation and
    (1, B, 3) scale."""
    pose = armature_object.pose.bones
    m = np.array([np.array(pose[n].matrix_basis, np.float64) for n in rig.names]).reshape(-1, 4, 4)
    scale = np.linalg.norm(m[:, :3, :3], axis=1)                  # column norms
    rot = skinkit.quat_from_matrix(m[:, :3, :3] / scale[:, None, :])
    return m[None, :, :3, 3], rot[None], scale[None]


def _channelbag_fcurves(owner: Any, action: Action) -> List[FCurve]:
    """The F-curves of ``action`` that animate ``owner`` (an object or a shape key datablock;
    Blender 4.4+ slotted actions, ``action.fcurves`` on older versions)."""
    if hasattr(action, "layers") and len(action.layers):
        from bpy_extras import anim_utils

        slot = owner.animation_data.action_slot if owner.animation_data else None
        if slot is None and len(action.slots):
            slot = action.slots[0]
        bag = anim_utils.action_get_channelbag_for_slot(action, slot)
        return list(bag.fcurves) if bag else []
    return list(getattr(action, "fcurves", []))


def basis_from_action(armature_object: Object, rig: Rig, action: Action, frames: Sequence[float]
                      ) -> Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Location (T, B, 3), rotation (T, B, 4) and scale (T, B, 3) of every bone at ``frames``,
    from the action's F-curves evaluated by Blender (its own interpolation and extrapolation);
    channels without an F-curve keep the pose bone's current value.  Rotation modes:
    quaternion, axis-angle and the Euler orders."""
    at = np.asarray(frames, np.float64).reshape(-1)
    T, B = at.size, len(rig.names)
    pose = armature_object.pose.bones
    cur = {"location": np.array([tuple(pose[n].location) for n in rig.names]),
           "rotation_quaternion": np.array([tuple(pose[n].rotation_quaternion)
                                            for n in rig.names]),           # (w, x, y, z)
           "rotation_axis_angle": np.array([tuple(pose[n].rotation_axis_angle)
                                            for n in rig.names]),           # (angle, x, y, z)
           "rotation_euler": np.array([tuple(pose[n].rotation_euler) for n in rig.names]),
           "scale": np.array([tuple(pose[n].scale) for n in rig.names])}
    values: Dict[str, NDArray[Any]] = {k: np.broadcast_to(v, (T,) + v.shape).copy()
                                     for k, v in cur.items()}
    index = {n: i for i, n in enumerate(rig.names)}
    for fc in _channelbag_fcurves(armature_object, action):
        path = fc.data_path
        if not path.startswith('pose.bones["') or fc.mute:
            continue
        name, _, prop = path[len('pose.bones["'):].partition('"].')
        if name not in index or prop not in values:
            continue
        values[prop][:, index[name], fc.array_index] = [fc.evaluate(f) for f in at]

    rot = np.empty((T, B, 4))
    for n, b in index.items():
        mode = pose[n].rotation_mode
        if mode == "QUATERNION":
            wxyz = values["rotation_quaternion"][:, b]
            rot[:, b] = np.concatenate([wxyz[:, 1:], wxyz[:, :1]], axis=1)
        elif mode == "AXIS_ANGLE":
            aa = values["rotation_axis_angle"][:, b]
            axis = aa[:, 1:] / np.maximum(np.linalg.norm(aa[:, 1:], axis=1, keepdims=True), 1e-300)
            rot[:, b] = skinkit.quat_from_rotvec(axis * aa[:, :1])
        else:                                         # Euler: 'XYZ' applies X first, then Y, Z
            e = values["rotation_euler"][:, b]
            q = np.array([0.0, 0.0, 0.0, 1.0])
            for axis_name in mode:
                k = "XYZ".index(axis_name)
                rv = np.zeros((T, 3))
                rv[:, k] = e[:, k]
                q = skinkit.quat_multiply(skinkit.quat_from_rotvec(rv), q)
            rot[:, b] = q
    return values["location"], skinkit.quat_normalize(rot), values["scale"]


# --------------------------------------------------------------------------- posing

def local_pose(rig: Rig, location: ArrayLike, rotation: ArrayLike, scale: ArrayLike
               ) -> Tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Local TRS relative to the parent bone: ``rest_parent^-1 @ rest @ basis``."""
    location = np.where(rig.connected[:, None], 0.0, location)    # connected: location ignored
    t = rig.rest_t + skinkit.quat_rotate(rig.rest_q, location)
    q = skinkit.quat_multiply(rig.rest_q, rotation)
    return t, q, np.asarray(scale, np.float64)


def pose_mesh(armature_object: Object, mesh_object: Object,
              frames: Optional[Sequence[float]] = None,
              action: Optional[Action] = None) -> NDArray[Any]:
    """World-space vertex positions (T, V, 3) of ``mesh_object`` deformed by ``armature_object``.

    With ``frames`` the armature's action (or ``action``) and the shape keys' action are
    evaluated at those frames; without, the current pose (pose bones' ``matrix_basis``) and
    shape key values give T = 1.  The object matrices are taken as they are now (an animated
    object transform is not followed frame by frame).

    Raises
    ------
    ValueError
        What Blender would do that this cannot reproduce (the message lists each thing found).
    """
    _check_supported(armature_object, mesh_object)
    rig = rig_from_armature(armature_object)
    if frames is None:
        basis = basis_from_pose(armature_object, rig)
    else:
        if action is None:
            ad = armature_object.animation_data
            action = ad.action if ad else None
        if action is None:
            raise ValueError(f"{armature_object.name!r} has no action to evaluate")
        basis = basis_from_action(armature_object, rig, action, frames)

    t, q, s = local_pose(rig, *basis)
    world = skinkit.forward_kinematics(rig.parents, q, t, s)          # (T, B, 4, 4)
    skin = skinkit.skinning_matrices(world, skinkit.matrix_inverse(rig.rest))
    joints, weights, unweighted = weights_from_vertex_groups(mesh_object, rig)
    if unweighted:     # one identity "bone" holds the vertices no bone deforms
        skin = np.concatenate([skin, np.broadcast_to(np.eye(4), skin.shape[:-3] + (1, 4, 4))],
                              axis=-3)
        none = weights.sum(axis=1) == 0
        joints[none, 0], weights[none, 0] = len(rig.names), 1.0

    A = np.array(armature_object.matrix_world, np.float64)
    M = np.array(mesh_object.matrix_world, np.float64)
    to_arm = np.linalg.solve(A, M)                                   # A^-1 M
    v = shape_key_positions(mesh_object, frames) @ to_arm[:3, :3].T + to_arm[:3, 3]
    skinning = (skinkit.dual_quaternion_skinning
                if _armature_modifier(armature_object, mesh_object).use_deform_preserve_volume
                else skinkit.linear_blend_skinning)
    posed = skinning(vertices=v, joints=joints, weights=weights,    # armature space (T, V, 3)
                     skinning_matrices=skin)
    placed: NDArray[Any] = posed @ A[:3, :3].T + A[:3, 3]
    return placed


def skinned_meshes(armature_object: Object) -> List[Object]:
    """Mesh objects with an Armature modifier that uses ``armature_object``."""
    import bpy

    return [o for o in bpy.data.objects if o.type == "MESH" and any(
        m.type == "ARMATURE" and m.object == armature_object for m in o.modifiers)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command: poses every skinned mesh of an armature, writes an .npz of ``frames`` (T,)
    and ``positions_<mesh object>`` (T, V, 3) in world space."""
    import bpy

    if argv is None:
        argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?", help="a .glb/.gltf to import first (bpy module use)")
    ap.add_argument("--armature", help="armature object name (default: the first)")
    ap.add_argument("--frames", type=float, nargs="+",
                    help="frames of the armature's action (default: the current pose)")
    ap.add_argument("--out", required=True, help="output .npz")
    args = ap.parse_args(argv)
    if args.model:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=args.model)
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"
            and (args.armature is None or o.name == args.armature)]
    if not arms:
        print("no armature found", file=sys.stderr)
        return 1
    arm = arms[0]
    out = {"frames": np.asarray(args.frames if args.frames else
                                [bpy.context.scene.frame_current], np.float64)}
    for mesh in skinned_meshes(arm):
        out[f"positions_{mesh.name}"] = pose_mesh(arm, mesh, args.frames)
    np.savez(args.out, **cast(Dict[str, Any], out))  # numpy's stub: ** could fill allow_pickle
    print(f"{args.out}: {len(out) - 1} meshes x {out['frames'].size} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
