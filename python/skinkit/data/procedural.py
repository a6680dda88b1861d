"""The sample character, made in code (no licence needed): the procedural humanoid's skeleton
(:func:`skinkit.model.humanoid.humanoid_model`: 22 joints with Mixamo's names, T pose,
metres, +Y up, facing +Z) with a smoothly skinned body -- a tube around each bone, blending into
the neighbouring bone over the last and first third of its length (two influences where bones
meet) -- a rigid head under the head joint with two morph targets ("Blink", "Puff"), and its own
clips: ``Idle`` (breathing and a blink, 2 s), ``Walk`` (a 1 s cycle) and ``Run`` (a 0.7 s
cycle), keyed at 30 frames a second (LINEAR), and :func:`walk_clip` of any length and rate for
the sample motion.  Deterministic: the same arrays every time."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np
from numpy.typing import NDArray

from ..kernels import wrappers as kernels
from ..model.clip import Channel, Clip
from ..model.humanoid import humanoid_model
from ..model.model import Model
from ..model.records import Primitive, Skeleton, Skin

__all__ = ["CLIPS", "character_model", "walk_clip"]

Array = NDArray[Any]
# canonical bone (joint, child or None for a leaf extended along its parent's bone) -> radius
_BONES: List[Tuple[str, str, float]] = [
    ("hips", "spine", 0.12), ("spine", "spine1", 0.12), ("spine1", "spine2", 0.13),
    ("spine2", "neck", 0.14), ("neck", "head", 0.05),
    *[b for s in ("left", "right") for b in (
        (f"{s}_collar", f"{s}_shoulder", 0.05), (f"{s}_shoulder", f"{s}_elbow", 0.045),
        (f"{s}_elbow", f"{s}_wrist", 0.04), (f"{s}_wrist", "", 0.035),
        (f"{s}_hip", f"{s}_knee", 0.07), (f"{s}_knee", f"{s}_ankle", 0.05),
        (f"{s}_ankle", f"{s}_foot", 0.045), (f"{s}_foot", "", 0.035))],
]
_RINGS, _SIDES, _LEAF = 7, 10, 0.09          # rings and sides of a tube; a leaf bone's length
_HEAD_RADIUS = 0.11
FPS = 30.0


def _canonical() -> Dict[str, int]:
    from ..model.humanoid import _LAYOUT
    return {c: i for i, (c, _, _) in enumerate(_LAYOUT)}


def _frame(axis: Array) -> Tuple[Array, Array]:
    """Two unit vectors perpendicular to ``axis`` and to each other."""
    y = axis / np.linalg.norm(axis)
    x = np.cross(y, [0.0, 0.0, 1.0]) if abs(y[2]) < 0.9 else np.cross(y, [1.0, 0.0, 0.0])
    x /= np.linalg.norm(x)
    return x, np.cross(x, y)


def _body(model: Model, world: Array, index: Dict[str, int], node: int) -> Primitive:
    """The skinned tubes: joints and weights (V, 2), each ring weighted to its bone's joint and,
    over the first and last third, blended linearly into the parent's or the child's joint (half
    and half at the joint itself, so that neighbouring tubes meet)."""
    parents = model.skeleton.parents
    pos: List[Array] = []
    jnt: List[NDArray[Any]] = []
    wts: List[Array] = []
    faces: List[NDArray[Any]] = []
    angles = 2 * np.pi * np.arange(_SIDES) / _SIDES
    for name, child, radius in _BONES:
        j = index[name]
        base = world[j, :3, 3]
        if child:
            c = index[child]
            tip = world[c, :3, 3]
        else:
            c = j
            along = base - world[parents[j], :3, 3]
            tip = base + _LEAF * along / np.linalg.norm(along)
        x, z = _frame(tip - base)
        start = sum(len(p) for p in pos)
        for k in range(_RINGS):
            t = k / (_RINGS - 1)
            ring = base + t * (tip - base) + radius * (np.cos(angles)[:, None] * x +
                                                       np.sin(angles)[:, None] * z)
            if t < 1 / 3 and parents[j] >= 0:
                other, w = int(parents[j]), 0.5 - 1.5 * t
            elif t > 2 / 3:
                other, w = c, 1.5 * t - 1.0
            else:
                other, w = j, 0.0
            pos.append(ring)
            jnt.append(np.tile([j, other], (_SIDES, 1)))
            wts.append(np.tile([1.0 - w, w], (_SIDES, 1)))
        quads = [(start + k * _SIDES + s, start + k * _SIDES + (s + 1) % _SIDES,
                  start + (k + 1) * _SIDES + (s + 1) % _SIDES, start + (k + 1) * _SIDES + s)
                 for k in range(_RINGS - 1) for s in range(_SIDES)]
        faces.append(np.array([t for a, b, d, e in quads for t in ((a, d, b), (a, e, d))]))
    positions = np.concatenate(pos)
    return Primitive(node=node, mesh=0, index=0, skin=0, positions=positions,
                     normals=_vertex_normals(positions, np.concatenate(faces)),
                     joints=np.concatenate(jnt).astype(np.uint8), weights=np.concatenate(wts),
                     faces=np.concatenate(faces).astype(np.int32))


def _vertex_normals(positions: Array, faces: NDArray[Any]) -> Array:
    """Area-weighted sums of the face normals at each vertex, normalized."""
    n = np.cross(positions[faces[:, 1]] - positions[faces[:, 0]],
                 positions[faces[:, 2]] - positions[faces[:, 0]])
    out: Array = np.zeros_like(positions)
    for corner in range(3):
        np.add.at(out, faces[:, corner], n)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def _head(node: int) -> Primitive:
    """A UV sphere on ``node`` (at the head joint, in its space), rigid, with morph targets
    "Blink" (its upper front flattened) and "Puff" (wider cheeks)."""
    rings, sides = 9, 14
    lat = np.linspace(0.0, np.pi, rings)[1:-1]
    lon = 2 * np.pi * np.arange(sides) / sides
    unit = np.array([[np.sin(a) * np.sin(b), np.cos(a), np.sin(a) * np.cos(b)]
                     for a in lat for b in lon] + [[0.0, 1.0, 0.0], [0.0, -1.0, 0.0]])
    top, bottom = len(unit) - 2, len(unit) - 1
    faces = [(top, s, (s + 1) % sides) for s in range(sides)]
    for r in range(len(lat) - 1):
        for s in range(sides):
            a, b = r * sides + s, r * sides + (s + 1) % sides
            faces += [(a, a + sides, b), (b, a + sides, b + sides)]
    last = (len(lat) - 1) * sides
    faces += [(bottom, last + (s + 1) % sides, last + s) for s in range(sides)]
    centre = np.array([0.0, 0.1, 0.02])
    positions = centre + _HEAD_RADIUS * unit
    front_top = np.clip(unit[:, 1], 0.0, None) * np.clip(unit[:, 2], 0.0, None)
    blink = np.zeros_like(positions)
    blink[:, 1] = -0.5 * _HEAD_RADIUS * front_top
    puff = 0.25 * _HEAD_RADIUS * unit * np.array([1.0, 0.0, 0.3]) * (1.0 - unit[:, 1:2] ** 2)
    f = np.array(faces, dtype=np.int32)
    return Primitive(node=node, mesh=1, index=0, skin=None, positions=positions,
                     normals=_vertex_normals(positions, f), faces=f,
                     morph_positions=np.stack([blink, puff]), morph_weights=np.zeros(2),
                     target_names=["Blink", "Puff"])


def _q(axis: Tuple[float, float, float], degrees: Any) -> Array:
    """Quaternions (..., 4) of ``degrees`` about ``axis``."""
    half = np.radians(np.asarray(degrees, dtype=np.float64)) / 2
    return np.concatenate([np.multiply.outer(np.sin(half), axis), np.cos(half)[..., None]],
                          axis=-1)


def _gait(stride: float, knee: float, arm: float, elbow: float, bob: float,
          lean: float) -> Callable[[Array], Dict[str, Array]]:
    """A walking or running cycle: phase (T,) in turns -> {canonical joint: (T, 4) rotation,
    "hips@": (T, 3) hips translation offset}; the legs in antiphase, each arm swinging with
    the other side's leg, arms lowered 70 degrees from the T pose."""
    def motion(phase: Array) -> Dict[str, Array]:
        a = 2 * np.pi * phase
        out: Dict[str, Array] = {}
        for s, sign, shift in (("left", 1.0, 0.0), ("right", -1.0, np.pi)):
            swing = np.sin(a + shift)
            out[f"{s}_hip"] = _q((1, 0, 0), -stride * swing)
            out[f"{s}_knee"] = _q((1, 0, 0), knee * np.clip(np.sin(a + shift - 1.2), 0, None)
                                  + 5.0)
            out[f"{s}_ankle"] = _q((1, 0, 0), -0.3 * stride * swing)
            down = _q((0, 0, 1), -sign * 70.0 * np.ones_like(a))
            out[f"{s}_shoulder"] = kernels.quat_multiply(_q((1, 0, 0), arm * swing), down)
            out[f"{s}_elbow"] = _q((0, 1, 0), sign * (elbow + 0.3 * elbow * swing))
        out["spine"] = _q((1, 0, 0), lean * np.ones_like(a))
        out["spine1"] = _q((0, 1, 0), 4.0 * np.sin(a))
        out["hips@"] = np.stack([np.zeros_like(a), bob * np.cos(2 * a), np.zeros_like(a)], -1)
        return out
    return motion


def _idle(phase: Array) -> Dict[str, Array]:
    """Breathing (the chest), the head turning a little, arms lowered."""
    a = 2 * np.pi * phase
    out = {f"{s}_shoulder": _q((0, 0, 1), -sign * 72.0 + 2.0 * np.sin(a))
           for s, sign in (("left", 1.0), ("right", -1.0))}
    out["spine2"] = _q((1, 0, 0), 2.0 * np.sin(a))
    out["neck"] = _q((0, 1, 0), 10.0 * np.sin(a))
    out["hips@"] = np.stack([np.zeros_like(a), 0.005 * np.sin(2 * a), np.zeros_like(a)], -1)
    return out


# name -> (motion, cycle in seconds, clip length in seconds)
CLIPS: Dict[str, Tuple[Callable[[Array], Dict[str, Array]], float, float]] = {
    "Idle": (_idle, 2.0, 2.0),
    "Walk": (_gait(stride=25.0, knee=45.0, arm=20.0, elbow=15.0, bob=0.02, lean=3.0), 1.0, 1.0),
    "Run": (_gait(stride=40.0, knee=90.0, arm=35.0, elbow=80.0, bob=0.05, lean=12.0), 0.7, 0.7),
}


def _clip(model: Model, name: str, duration: float, fps: float) -> Clip:
    motion, cycle, _ = CLIPS[name]
    index = _canonical()
    times = np.arange(int(round(duration * fps)) + 1) / fps
    keys = motion(times / cycle)
    rest = model.skeleton.translations
    channels = [Channel(index["hips"], "translation", times,
                        rest[index["hips"]] + keys.pop("hips@"))]
    channels += [Channel(index[j], "rotation", times, kernels.quat_multiply(
        model.skeleton.rotations[index[j]], q)) for j, q in keys.items()]
    if name == "Idle":      # a blink at 1 s: the face's morph weights
        blink = np.interp(times, [0.0, 0.9, 1.0, 1.1, duration], [0.0, 0.0, 1.0, 0.0, 0.0])
        channels.append(Channel(model.skeleton.names.index("Face"), "weights", times,
                                np.stack([blink, np.zeros_like(blink)], axis=1)))
    return Clip(name, channels)


def walk_clip(model: Model, duration: float, fps: float) -> Clip:
    """The ``Walk`` cycle for ``duration`` seconds, keyed ``fps`` times a second."""
    return _clip(model, "Walk", duration, fps)


def character_model() -> Model:
    """The character with its clips (float64), before it is written (``skinkit.data``): the 22
    joints, then node "Body" (a root, the skinned mesh's) and node "Face" (the head's rigid mesh,
    a child of the head joint at its origin)."""
    rig = humanoid_model("mixamo", "T", name="skinkit character")
    index = _canonical()
    J = rig.skeleton.count
    world = kernels.forward_kinematics(rig.skeleton.parents, rig.skeleton.rotations,
                                       rig.skeleton.translations, np.ones((J, 3)))
    bone = rig.skeleton
    skeleton = Skeleton(names=[*bone.names, "Body", "Face"],
                        parents=np.append(bone.parents, [-1, index["head"]]).astype(np.int32),
                        translations=np.vstack([bone.translations, np.zeros((2, 3))]),
                        rotations=np.vstack([bone.rotations, [[0.0, 0.0, 0.0, 1.0]] * 2]),
                        scales=np.ones((J + 2, 3)))
    skin = Skin(name="body", joints=np.arange(J, dtype=np.int32),
                inverse_bind_matrices=kernels.matrix_inverse(world))
    model = Model(skeleton=skeleton, skins=[skin],
                  primitives=[_body(rig, world, index, J), _head(J + 1)], clips=[],
                  name="skinkit character")
    model.clips = [_clip(model, name, length, FPS) for name, (_, _, length) in CLIPS.items()]
    return model
