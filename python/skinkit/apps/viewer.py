"""An interactive 3D view in Jupyter: the skinned meshes and the skeleton of a model, playing a clip.

Built on viser (``pip install skinkit[view]``), chosen over the other Jupyter 3D libraries
because its wheel carries its whole three.js client, so a view is one self-contained HTML page: it
works offline, in a saved notebook without a kernel and in a plain browser.  Its skinned meshes
are deformed in the browser by three.js from the joints' transforms, so a clip costs 7 numbers
per joint and frame rather than 3 per vertex and frame: a 3-second clip of the sample character
is under 1 MB, viewer included (k3d animates per-vertex arrays; pythreejs needs a live widget
manager fetched from a CDN and is unmaintained since 2023; pyvista needs a render server).

What is shown: every skinned primitive (three.js keeps the 4 largest influences of a vertex and
takes each joint's rotation and translation, not its scale), every rigid primitive placed by its
node, and the joints of the skins as line segments.  Morph targets are not shown (the rest shape
is).  Body models are shown skinned with their shape (betas) baked in; the pose-corrective blend
shapes are left out (a few millimetres on SMPL), as in a glTF export without correctives.

    >>> import skinkit
    >>> page = skinkit.view(skinkit.data.character(), clip="Walk")   # doctest: +SKIP
    >>> page    # doctest: +SKIP
    (in Jupyter: the player; page.save("character.html") for a browser)
"""
from __future__ import annotations

import contextlib
import html
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import limits
from ..kernels._optional import require
from ..io.mesh_files import write_atomic
from ..model.records import bone_pairs
from ..kernels.wrappers import quat_from_matrix, quat_from_rotvec, quat_to_matrix, rigid_forward_kinematics

if TYPE_CHECKING:
    from ..kernels._types import PathLike
    from ..body.body_model import BodyModel
    from ..model.model import Model
    from ..model.request import ClipLike

__all__ = ["SceneView", "view", "view_body"]

FIELD_OF_VIEW = 45.0
"""Vertical field of view of the initial camera, degrees."""
CAMERA_DIRECTION = np.array([0.6, 0.35, 1.0])
"""From the look-at point to the initial camera (glTF axes: +Y up, the camera in front, +Z)."""


@dataclass(frozen=True)
class SceneView:
    """A recorded 3D scene: ``html`` is a self-contained page (viser's client and the recording).

    Shown inline by Jupyter (``_repr_html_``: an iframe), saved by :meth:`save`.  ``camera`` gives
    the initial camera (position, look-at point, vertical field of view in degrees), in the
    scene's units and glTF axes.
    """

    html: str
    camera: Tuple[Tuple[float, ...], Tuple[float, ...], float]   # position, look-at, fov
    height: int = 400

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" width="100%" '
                f'height="{self.height}" style="border:none"></iframe>')

    def save(self, path: PathLike) -> None:
        """Write the page to ``path`` (atomically: a complete file or none)."""
        data = self.html.encode("utf-8")
        write_atomic(path, lambda f: f.write(data), suffix=".html")


def _wxyz(q: NDArray[Any]) -> NDArray[Any]:
    """(..., 4) x, y, z, w quaternions (skinkit, glTF) as viser's w, x, y, z."""
    return np.asarray(q, dtype=np.float64)[..., [3, 0, 1, 2]]


def _rotation(matrices: NDArray[Any]) -> NDArray[Any]:
    """The rotation of each (..., 4, 4) matrix as a w, x, y, z quaternion (scale divided out)."""
    m = np.asarray(matrices, dtype=np.float64)[..., :3, :3]
    return _wxyz(quat_from_matrix(m / np.linalg.norm(m, axis=-2, keepdims=True)))


def _dense_weights(joints: NDArray[Any], weights: NDArray[Any], count: int) -> NDArray[Any]:
    """(V, K) influences as a (V, count) weight matrix (repeated joints summed)."""
    dense = np.zeros((len(joints), count), np.float32)
    rows = np.repeat(np.arange(len(joints)), joints.shape[1])
    np.add.at(dense, (rows, joints.reshape(-1).astype(np.int64)), weights.reshape(-1))
    return dense


class _Recorder:
    """A viser server that is only recorded, never served to a browser."""

    def __init__(self, points: NDArray[Any], fov: float):
        viser = require("viser", "view", "skinkit.apps.viewer")
        with contextlib.redirect_stdout(io.StringIO()):       # viser's start-up banner
            self.server = viser.ViserServer(port=8100 + np.random.randint(0, 1000), verbose=False)
        self.scene = self.server.scene
        self.scene.set_up_direction("+y")
        self.recording = self.server.get_scene_serializer()
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        lo, hi = p.min(axis=0), p.max(axis=0)
        centre, radius = (lo + hi) / 2, max(float(np.linalg.norm(hi - lo)) / 2, 1e-9)
        distance = 1.15 * radius / np.tan(np.radians(fov) / 2)
        position = centre + distance * CAMERA_DIRECTION / np.linalg.norm(CAMERA_DIRECTION)
        cam = self.server.initial_camera
        cam.fov, cam.near, cam.far = np.radians(fov), distance / 100, distance * 100
        cam.position, cam.look_at = position, centre
        self.camera = (tuple(map(float, position)), tuple(map(float, centre)), float(fov))

    def finish(self, height: int) -> SceneView:
        page = self.recording.as_html()
        self.server.stop()
        return SceneView(page, self.camera, height)


def _bones(rec: _Recorder, name: str, pairs: NDArray[Any], points: NDArray[Any]) -> None:
    """The skeleton at one frame: a segment for each (ancestor, joint) pair of ``points``."""
    if len(pairs):
        rec.scene.add_line_segments(name, points[pairs].astype(np.float32), colors=(220, 40, 40),
                                    thickness=2.0, thickness_units="screen")


def _check_frames(count: int, what: str) -> None:
    """ValueError for a page of more than ``skinkit.limits.MAX_VIEW_FRAMES`` frames."""
    too_many = limits.count_error(count, "MAX_VIEW_FRAMES", f"frames ({what})")
    if too_many is not None:
        raise ValueError(f"view: {too_many}; give times= (or a lower fps) for part of it")


def view(model: Model, clip: ClipLike = None, times: Optional[ArrayLike] = None, *,
         fps: float = 30.0, skeleton: bool = True,
         height: int = 400, fov: float = FIELD_OF_VIEW) -> SceneView:
    """A 3D view of ``model`` playing ``clip``, for Jupyter (or :meth:`SceneView.save`).

    Parameters
    ----------
    model : Model
    clip : str or int or Clip or None
        The clip to play; None shows the rest pose.
    times : array of float (T,) or None
        The frames, seconds; default: the clip's keyframe range at ``fps`` (the rest pose: one
        frame).  Played at ``fps``.
    fps : float
        Playback rate, frames per second.
    skeleton : bool
        Draw the skins' joints as line segments.
    height : int
        The player's height in the notebook, pixels.
    fov : float
        The initial camera's vertical field of view, degrees (the camera frames every vertex).

    Returns
    -------
    SceneView

    Raises
    ------
    ImportError
        viser is not installed (``pip install skinkit[view]``).
    ValueError
        No such clip, ``fps`` not positive, or more than ``skinkit.limits.MAX_VIEW_FRAMES``
        frames (before any is posed).
    """
    from ..model.pose import frame_times
    from ..model.request import frame_count

    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    resolved = None if clip is None else model.clip(clip)
    if times is None and resolved is not None:
        _check_frames(frame_count(resolved.duration, fps),
                      f"clip {resolved.name!r} of {resolved.duration:g} s at {fps:g} fps")
        times = frame_times(resolved, fps)
    elif times is None:
        times = [0.0]
    _check_frames(np.size(times), "times")
    world = np.asarray(model.world_matrices(resolved, times), dtype=np.float64)
    posed = model.pose(resolved, [np.asarray(times, dtype=np.float64)[0]])
    rec = _Recorder(np.concatenate([a[0] for a in posed.values()] or [world[0, :, :3, 3]]), fov)
    frames = []
    for prim in model.primitives:
        name = f"/mesh_{prim.key}"
        faces = prim.faces if prim.faces is not None else np.zeros((0, 3), np.int64)
        if prim.skin is not None and prim.joints is not None and prim.weights is not None:
            skin = model.skins[prim.skin]
            bind = np.linalg.inv(np.asarray(skin.inverse_bind_matrices, np.float64))
            handle = rec.scene.add_mesh_skinned(
                name, prim.positions.astype(np.float32), faces, bone_wxyzs=_rotation(bind),
                bone_positions=bind[:, :3, 3],
                skin_weights=_dense_weights(prim.joints, prim.weights, len(skin.joints)))
            frames.append((handle.bones, world[:, skin.joints]))
        else:
            handle = rec.scene.add_mesh_simple(name, prim.positions.astype(np.float32), faces)
            frames.append(([handle], world[:, [prim.node]]))
    joints = np.unique(np.concatenate([s.joints for s in model.skins])) if model.skins \
        else np.arange(model.skeleton.count)
    pairs = np.searchsorted(joints, bone_pairs(model.skeleton.parents, joints))
    for t in range(len(world)):
        if t:
            rec.recording.insert_sleep(1.0 / fps)
        for handles, matrices in frames:
            q, p = _rotation(matrices[t]), matrices[t, :, :3, 3]
            for i, h in enumerate(handles):
                h.wxyz, h.position = q[i], p[i]
        if skeleton:
            _bones(rec, "/skeleton", pairs, world[t, joints, :3, 3])
    return rec.finish(height)


def view_body(body: BodyModel, pose: Optional[ArrayLike] = None, betas: Optional[ArrayLike] = None,
              transl: Optional[ArrayLike] = None, *, fps: float = 30.0,
              skeleton: bool = True, height: int = 400,
              fov: float = FIELD_OF_VIEW) -> SceneView:
    """A 3D view of an SMPL-family body model playing a motion, for Jupyter.

    The mesh is the template with the shape ``betas`` applied (blend shapes, Loper et al. 2015,
    eq. 2), skinned in the browser by the joints' rigid transforms (eq. 4 without the
    pose-corrective blend shapes).

    Parameters
    ----------
    body : BodyModel
    pose : float array (T, J, 3) or (J, 3) or None
        Axis-angle of every joint, radians, per frame; None: the rest pose.
    betas : float array (S,) or None
        Shape coefficients (the first S of the model's), zero by default.
    transl : float array (T, 3) or (3,) or None
        The root's translation per frame, metres.
    fps, skeleton, height, fov
        As for :func:`view`.

    Returns
    -------
    SceneView
    """
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    J = body.num_joints
    pose = np.zeros((1, J, 3)) if pose is None else np.asarray(pose, dtype=np.float64)
    pose = pose.reshape((-1, J, 3))
    _check_frames(len(pose), "pose")
    beta = np.zeros(0) if betas is None else np.asarray(betas, dtype=np.float64).reshape(-1)
    rest = np.asarray(body.v_template, np.float64) + \
        np.asarray(body.shapedirs[..., :len(beta)], np.float64) @ beta
    joints = np.asarray(body.J_regressor, np.float64) @ rest
    parents = np.asarray(body.parents)
    rot, trans = rigid_forward_kinematics(parents, joints, quat_from_rotvec(pose))
    if transl is not None:
        trans = trans + np.asarray(transl, dtype=np.float64).reshape(-1, 1, 3)
    points = np.einsum("tjab,jb->tja", quat_to_matrix(rot), joints) + trans   # Q_i x_i + t_i
    pairs = bone_pairs(parents, np.arange(J))
    rec = _Recorder(rest, fov)
    handle = rec.scene.add_mesh_skinned(
        "/body", rest.astype(np.float32), np.asarray(body.faces, np.int64),
        bone_wxyzs=np.tile([1.0, 0, 0, 0], (J, 1)), bone_positions=joints,
        skin_weights=np.asarray(body.weights, np.float32))
    for t in range(len(rot)):
        if t:
            rec.recording.insert_sleep(1.0 / fps)
        w = _wxyz(rot[t])
        for i, bone in enumerate(handle.bones):
            bone.wxyz, bone.position = w[i], points[t, i]
        if skeleton:
            _bones(rec, "/skeleton", pairs, points[t])
    return rec.finish(height)

