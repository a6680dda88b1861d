"""A procedural humanoid: a 22-joint skeleton named after a convention (Mixamo, SMPL, ...),
in a T or A pose, optionally with bone-aligned joint frames (as Mixamo's rig: each joint's +Y
along its bone), and a box per bone skinned rigidly to it.  Generated in code, so it needs no
licence; for examples and tests of retargeting, IK and export."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import NDArray

from ..kernels import wrappers as kernels
from .joint_names import PRESETS
from .model import Model
from .records import Primitive, Skeleton, Skin

__all__ = ["humanoid_model"]

# canonical joint, parent, rest offset from the parent in metres (T pose, +Y up, facing +Z,
# the character's left on +X)
_LAYOUT = [
    ("hips", None, (0.0, 0.95, 0.0)),
    ("spine", "hips", (0.0, 0.10, 0.0)),
    ("spine1", "spine", (0.0, 0.12, 0.0)),
    ("spine2", "spine1", (0.0, 0.12, 0.0)),
    ("neck", "spine2", (0.0, 0.16, 0.0)),
    ("head", "neck", (0.0, 0.10, 0.02)),
    *[j for s, x in (("left", 1.0), ("right", -1.0)) for j in (
        (f"{s}_collar", "spine2", (x * 0.04, 0.12, 0.0)),
        (f"{s}_shoulder", f"{s}_collar", (x * 0.12, 0.0, 0.0)),
        (f"{s}_elbow", f"{s}_shoulder", (x * 0.27, 0.0, 0.0)),
        (f"{s}_wrist", f"{s}_elbow", (x * 0.25, 0.0, 0.0)),
        (f"{s}_hip", "hips", (x * 0.09, -0.05, 0.0)),
        (f"{s}_knee", f"{s}_hip", (0.0, -0.42, 0.0)),
        (f"{s}_ankle", f"{s}_knee", (0.0, -0.40, -0.02)),
        (f"{s}_foot", f"{s}_ankle", (0.0, -0.06, 0.13)))],
]


def _quat_between(a: NDArray[np.floating[Any]],
                  b: NDArray[np.floating[Any]]) -> NDArray[np.floating[Any]]:
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    c = np.cross(a, b)
    q = np.append(c, 1.0 + a @ b)
    if q[3] < 1e-12:
        q = np.array([0.0, 0.0, 1.0, 0.0]) if abs(a[2]) < 0.9 else np.array([1.0, 0.0, 0.0, 0.0])
    q /= np.linalg.norm(q)
    return q


def humanoid_model(convention: str = "mixamo", pose: str = "T", scale: float = 1.0,
                   bone_frames: bool = False, leg_scale: float = 1.0,
                   name: Optional[str] = None) -> Model:
    """Build the humanoid.

    Parameters
    ----------
    convention : a key of ``skinkit.model.joint_names.PRESETS`` ("mixamo", "smpl", "motionbuilder",
        "lafan1"; "cmu" lacks no joint here but names LowerBack as the first spine joint).
    pose : "T" or "A"
        Rest pose: arms horizontal, or lowered 45 degrees (the shoulders' rest rotations).
    scale : overall size factor (1: a 1.75 m figure).
    bone_frames : bool
        Turn every joint's frame so that its +Y points along its bone (Mixamo's convention);
        the rest world positions stay the same.
    leg_scale : factor on the leg bones only (other proportions).

    Returns
    -------
    Model
        22 joints, one skin with the inverse bind matrices of the rest pose, one primitive: a
        box around each bone (8 vertices each), rigidly skinned (one influence) to the bone's
        joint, with normals per vertex (box corners); no clips.
    """
    names = {canon: file for file, canon in PRESETS[convention].items()}
    index = {c: i for i, (c, _, _) in enumerate(_LAYOUT)}
    J = len(_LAYOUT)
    parents = np.array([index[p] if p else -1 for _, p, _ in _LAYOUT], dtype=np.int32)
    offsets = np.array([o for _, _, o in _LAYOUT], dtype=np.float64) * scale
    for j, (c, _, _) in enumerate(_LAYOUT):
        if c.endswith(("_knee", "_ankle")):
            offsets[j] *= leg_scale
    local_rot = np.tile([0.0, 0.0, 0.0, 1.0], (J, 1))
    if pose == "A":
        for s, x in (("left", 1.0), ("right", -1.0)):
            local_rot[index[f"{s}_shoulder"]] = [0.0, 0.0, -x * np.sin(np.pi / 8), np.cos(np.pi / 8)]
    elif pose != "T":
        raise ValueError(f"pose must be 'T' or 'A', got {pose!r}")
    ones = np.ones((J, 3))
    world = kernels.forward_kinematics(parents, local_rot, offsets, ones)
    if bone_frames:
        pos = world[:, :3, 3]
        wrot = kernels.quat_from_matrix(world[:, :3, :3])
        for j in range(J):
            kids = np.flatnonzero(parents == j)
            if kids.size:
                bone = pos[kids[0]] - pos[j]
                wrot[j] = kernels.quat_multiply(_quat_between(np.array([0.0, 1.0, 0.0]),
                                                              bone), [0.0, 0.0, 0.0, 1.0])
            elif parents[j] >= 0:
                wrot[j] = wrot[parents[j]]
        for j in range(J):   # locals from the new world frames, positions unchanged
            p = parents[j]
            if p < 0:
                local_rot[j] = wrot[j]
                continue
            inv = kernels.quat_conjugate(wrot[p])
            local_rot[j] = kernels.quat_multiply(inv, wrot[j])
            offsets[j] = kernels.quat_rotate(inv, pos[j] - pos[p])
        world = kernels.forward_kinematics(parents, local_rot, offsets, ones)
    skeleton = Skeleton(names=[names[c] for c, _, _ in _LAYOUT], parents=parents,
                        translations=offsets, rotations=local_rot, scales=ones.copy())
    skin = Skin(name="humanoid", joints=np.arange(J, dtype=np.int32),
                inverse_bind_matrices=kernels.matrix_inverse(world))
    return Model(skeleton=skeleton, skins=[skin], primitives=[_boxes(parents, world, scale)],
                 clips=[], name=name or f"humanoid ({convention}, {pose} pose)")


def _boxes(parents: NDArray[np.integer[Any]], world: NDArray[np.floating[Any]],
           scale: float) -> Primitive:
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (0, 1) for z in (-1, 1)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    pos, nrm, jnt, faces = [], [], [], []
    for j in range(len(parents)):
        kids = np.flatnonzero(parents == j)
        tip = world[kids[0], :3, 3] if kids.size else world[j, :3, 3] + world[j, :3, 1] * 0.08 * scale
        base = world[j, :3, 3]
        axis = tip - base
        length = np.linalg.norm(axis)
        y = axis / length
        x = np.cross(y, [0.0, 0.0, 1.0]) if abs(y[2]) < 0.9 else np.cross(y, [1.0, 0.0, 0.0])
        x /= np.linalg.norm(x)
        z = np.cross(x, y)
        w = 0.04 * scale
        v = base + corners[:, :1] * w * x + corners[:, 1:2] * length * y + corners[:, 2:] * w * z
        faces.append(tris + 8 * j)
        pos.append(v)
        n = corners - [0.0, 0.5, 0.0]
        nrm.append((n[:, :1] * x + n[:, 1:2] * y + n[:, 2:] * z) /
                   np.linalg.norm(n, axis=1, keepdims=True))
        jnt.append(np.full((8, 1), j))
    return Primitive(node=0, mesh=0, index=0, skin=0, positions=np.concatenate(pos),
                     normals=np.concatenate(nrm), joints=np.concatenate(jnt).astype(np.uint8),
                     weights=np.ones((8 * len(parents), 1)), faces=np.concatenate(faces))
