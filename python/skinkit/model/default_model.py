"""The built-in model: a cylinder skinned to a chain of four joints, with a "bend" clip.

It is what ``skinkit pose`` and ``skinkit info`` use without a model file, and a small model for
examples and tests.  It is generated in code (vectorized NumPy), after the three.js
``SkinnedMesh`` documentation example: the vertices are bound to the two joints below and above
them, with weights blended linearly by height.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from ..kernels import wrappers as kernels
from .clip import Channel, Clip
from .model import Model
from .records import Primitive, Skeleton, Skin, float_dtype

__all__ = ["default_model"]

RADIUS = 0.5
HEIGHT = 8.0
SEGMENTS = 8      # vertices around
RINGS = 16        # height segments (RINGS + 1 rows of vertices)
JOINTS = 4        # joints along +Y, at y = 0, H/3, 2H/3, H
BEND_DURATION = 2.0
BEND_DEGREES = 30.0
BEND_KEYS = 9


def default_model(dtype: DTypeLike = np.float64) -> Model:
    """Build the default model.

    Parameters
    ----------
    dtype : float32 or float64
        Precision of every float array (and of the clip).

    Returns
    -------
    Model
        Nodes: 0 ``"cylinder"`` (the node instantiating the mesh, a root), 1..4 ``"bone0"`` ..
        ``"bone3"``, a chain along +Y (``bone0`` at the origin, each next one ``HEIGHT / 3`` above
        its parent; units are arbitrary, think metres).  One skin ``"chain"`` with joints
        [1, 2, 3, 4] and inverse bind matrices = inverses of the joints' rest world matrices
        (``kernels.matrix_inverse``), so the rest pose gives the bind-pose mesh.  One
        skinned primitive (key ``"0_0"``): an open cylinder of radius 0.5 from y = 0 to y = 8,
        8 vertices around x 17 rows (136 vertices), outward normals, 256 triangles with
        counter-clockwise (outward) winding, and 2 influences per vertex: the joint below the
        vertex and the next one, weighted ``1 - f`` and ``f`` with ``f`` the fractional height
        within the bone.  One clip ``"bend"``: 2 s, LINEAR rotation keys about +Z on every joint,
        ``30 deg * sin(pi t)`` sampled at 9 keys (a full swing +30 deg, 0, -30 deg, 0 that loops).

    Raises
    ------
    TypeError
        ``dtype`` is not float32 or float64.
    """
    dt = float_dtype(dtype)

    # --- skeleton: node 0 = mesh node, nodes 1..4 = joint chain ---------------------------------
    bone = HEIGHT / (JOINTS - 1)
    n = JOINTS + 1
    parents = np.array([-1, -1] + list(range(1, JOINTS)), dtype=np.int32)
    translations = np.zeros((n, 3))
    translations[2:, 1] = bone
    rotations = np.zeros((n, 4))
    rotations[:, 3] = 1.0
    scales = np.ones((n, 3))
    skeleton = Skeleton(names=["cylinder"] + [f"bone{i}" for i in range(JOINTS)],
                        parents=parents, translations=translations.astype(dt),
                        rotations=rotations.astype(dt), scales=scales.astype(dt))
    joint_nodes = np.arange(1, n, dtype=np.int32)
    bind_world = kernels.forward_kinematics(parents, rotations, translations, scales)[joint_nodes]
    skin = Skin(name="chain", joints=joint_nodes,
                inverse_bind_matrices=kernels.matrix_inverse(bind_world).astype(dt))

    # --- geometry: open cylinder, rows bottom to top ---------------------------------------------
    theta = 2.0 * np.pi * np.arange(SEGMENTS) / SEGMENTS
    y = HEIGHT * np.arange(RINGS + 1) / RINGS
    s, c = np.sin(theta), np.cos(theta)
    positions = np.stack(np.broadcast_arrays(RADIUS * s[None, :], y[:, None], RADIUS * c[None, :]),
                         axis=-1).reshape(-1, 3)
    normals = np.stack(np.broadcast_arrays(s[None, :], np.zeros((RINGS + 1, 1)), c[None, :]),
                       axis=-1).reshape(-1, 3)
    r, k = np.meshgrid(np.arange(RINGS), np.arange(SEGMENTS), indexing="ij")
    a = r * SEGMENTS + k                       # (ring, seg)
    b = r * SEGMENTS + (k + 1) % SEGMENTS      # (ring, seg + 1)
    up_a, up_b = a + SEGMENTS, b + SEGMENTS    # (ring + 1, ...)
    faces = np.concatenate([np.stack([a, b, up_a], -1).reshape(-1, 3),
                            np.stack([b, up_b, up_a], -1).reshape(-1, 3)]).astype(np.int32)

    # --- skin weights: joint below and joint above, blended by height ----------------------------
    h = positions[:, 1] / bone
    lower = np.clip(np.floor(h), 0, JOINTS - 2).astype(np.int64)
    frac = np.clip(h - lower, 0.0, 1.0)
    joints = np.stack([lower, lower + 1], axis=1).astype(np.uint8)
    weights = np.stack([1.0 - frac, frac], axis=1)

    prim = Primitive(node=0, mesh=0, index=0, skin=0, positions=positions.astype(dt),
                     normals=normals.astype(dt), joints=joints, weights=weights.astype(dt),
                     faces=faces)

    # --- clip "bend": every joint swings about +Z -------------------------------------------------
    key_times = np.linspace(0.0, BEND_DURATION, BEND_KEYS)
    angle = np.radians(BEND_DEGREES) * np.sin(2.0 * np.pi * key_times / BEND_DURATION)
    quats = np.zeros((BEND_KEYS, 4))
    quats[:, 2] = np.sin(angle / 2.0)
    quats[:, 3] = np.cos(angle / 2.0)
    channels = [Channel(node=int(j), path="rotation", times=key_times, values=quats,
                        interpolation="LINEAR") for j in joint_nodes]
    clip = Clip("bend", channels, dtype=dt)

    return Model(skeleton=skeleton, skins=[skin], primitives=[prim], clips=[clip],
                 name="default (skinned cylinder)")
