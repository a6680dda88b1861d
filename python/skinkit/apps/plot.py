"""Quick looks at models in matplotlib: skeletons, posed meshes and clip previews.

Needs matplotlib (the optional extra ``skinkit[plot]``), imported only when a function here runs,
so ``import skinkit`` never needs it.  Everything is drawn on 3D axes; since matplotlib's 3D axes
are Z-up and glTF is Y-up, points are shown with ``up="y"`` as (x, -z, y) (a rotation, so
handedness is kept); pass ``up="z"`` for Z-up data.

    >>> import skinkit
    >>> from skinkit.apps.plot import plot_skeleton, plot_mesh, animate
    >>> model = skinkit.default_model()
    >>> ax = plot_skeleton(model)                          # rest pose
    >>> posed = model.pose(0, [0.5])[model.primitives[0].key][0]
    >>> _ = plot_mesh(posed, model.primitives[0].faces, ax=ax)
    >>> anim = animate(model, clip=0, fps=10)              # matplotlib FuncAnimation
    >>> html = anim.to_jshtml()                            # inline HTML player (notebooks)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..kernels._optional import require
from ..model.records import bone_pairs, one_frame

if TYPE_CHECKING:
    from types import ModuleType

    from matplotlib.animation import FuncAnimation
    from matplotlib.typing import ColorType
    from mpl_toolkits.mplot3d import Axes3D   # no type information: Any

    from ..body.body_model import BodyModel
    from ..model.model import Model
    from ..model.records import Skeleton
    from ..model.request import ClipLike

__all__ = ["plot_skeleton", "plot_mesh", "plot_body", "animate"]

SKELETON_COLOR = "tab:red"
MESH_COLOR = "tab:blue"


def _plt() -> ModuleType:
    return require("matplotlib.pyplot", "plot", "skinkit.apps.plot")


def _view(points: ArrayLike, up: str) -> NDArray[np.float64]:
    """Points (..., 3) in the frame of matplotlib's Z-up 3D axes."""
    p = np.asarray(points, dtype=np.float64)
    if up == "y":
        return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)
    if up == "z":
        return p
    raise ValueError(f"up must be 'y' or 'z', got {up!r}")


def _axes(ax: Optional[Axes3D], figsize: Optional[Tuple[float, float]] = None) -> Axes3D:
    if ax is not None:
        if getattr(ax, "name", None) != "3d":
            raise ValueError("ax must be 3D axes (fig.add_subplot(projection='3d'))")
        return ax
    fig = _plt().figure(figsize=figsize)
    return fig.add_subplot(projection="3d")


def _fit(ax: Axes3D, points: ArrayLike) -> None:
    """Equal-scale limits around ``points`` (..., 3) (already in the view frame)."""
    p: NDArray[Any] = np.asarray(points).reshape(-1, 3)
    p = p[np.all(np.isfinite(p), axis=1)]
    if not len(p):
        return
    lo, hi = p.min(axis=0), p.max(axis=0)
    centre, half = (lo + hi) / 2, max(float((hi - lo).max()) / 2, 1e-9) * 1.05
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1, 1, 1))


def _skeleton_of(model_or_skeleton: Union[Model, Skeleton]) -> Tuple[Skeleton, Optional[Model]]:
    """(skeleton, model or None)."""
    if hasattr(model_or_skeleton, "skeleton"):
        model = cast("Model", model_or_skeleton)   # duck-typed: hasattr does not narrow
        return model.skeleton, model
    if hasattr(model_or_skeleton, "parents"):
        return model_or_skeleton, None
    raise TypeError("expected a Model or a Skeleton, got "
                    f"{type(model_or_skeleton).__name__}")


def _default_nodes(skeleton: Skeleton, model: Optional[Model]) -> NDArray[np.int64]:
    """The joints of the model's skins, or every node (a bare skeleton, a model without skins)."""
    if model is not None and model.skins:
        joints: NDArray[np.int64] = np.unique(np.concatenate(
            [np.asarray(s.joints, dtype=np.int64) for s in model.skins]))
        return joints
    return np.arange(skeleton.count)


def _rest_world(skeleton: Skeleton, model: Optional[Model]) -> NDArray[Any]:
    if model is not None:
        world: NDArray[Any] = model.world_matrices()[0]
        return world
    from ..kernels import wrappers as kernels
    return kernels.forward_kinematics(np.asarray(skeleton.parents), skeleton.rotations,
                                      skeleton.translations, skeleton.scales)


def _draw_skeleton(ax: Axes3D, joints: NDArray[np.float64], bones: NDArray[np.integer[Any]],
                   color: ColorType, marker_size: float, linewidth: float) -> Tuple[Any, Any]:
    """Artists for joints (a Line3D of markers) and bones (a Line3DCollection)."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    (points,) = ax.plot(joints[:, 0], joints[:, 1], joints[:, 2], linestyle="", marker="o",
                        markersize=marker_size, color=color)
    lines = Line3DCollection(joints[bones] if len(bones) else np.zeros((0, 2, 3)),
                             colors=color, linewidths=linewidth)
    ax.add_collection3d(lines)
    return points, lines


def _draw_mesh(ax: Axes3D, verts: NDArray[np.float64], faces: Optional[NDArray[np.integer[Any]]],
               color: ColorType, alpha: float, edgecolor: Optional[ColorType]) -> Any:
    """A Poly3DCollection of the triangles, or a Line3D of points without faces."""
    if faces is None or len(faces) == 0:
        (points,) = ax.plot(verts[:, 0], verts[:, 1], verts[:, 2], linestyle="", marker=".",
                            markersize=1, color=color)
        return points
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    poly = Poly3DCollection(verts[faces], facecolors=color, edgecolors=edgecolor,
                            linewidths=0.1 if edgecolor is not None else 0, alpha=alpha)
    ax.add_collection3d(poly)
    return poly


def plot_skeleton(model_or_skeleton: Union[Model, Skeleton], world: Optional[ArrayLike] = None,
                  ax: Optional[Axes3D] = None, *, nodes: Optional[Sequence[int]] = None,
                  up: str = "y", color: ColorType = SKELETON_COLOR, marker_size: float = 3.0,
                  linewidth: float = 1.5) -> Axes3D:
    """Draw a skeleton: joints as points, bones as segments, from world matrices.

    Parameters
    ----------
    model_or_skeleton : Model or Skeleton
    world : float array (N, 4, 4) or (1, N, 4, 4), optional
        World matrices of every node (``model.world_matrices(clip, [t])``).  Default: the rest
        pose.
    ax : matplotlib 3D axes, optional
        Default: a new figure.
    nodes : sequence of int, optional
        Nodes to draw.  Default: the joints of the model's skins; every node for a bare skeleton
        or a model without skins.  Each drawn node is joined to its nearest drawn ancestor.
    up : {"y", "z"}
        The data's up axis (glTF: "y"), shown upwards.
    color, marker_size, linewidth
        Style of the joints and bones.

    Returns
    -------
    matplotlib 3D axes
    """
    skeleton, model = _skeleton_of(model_or_skeleton)
    w = _rest_world(skeleton, model) if world is None else np.asarray(world)
    if w.ndim == 4 and w.shape[0] == 1:
        w = w[0]
    if w.shape != (skeleton.count, 4, 4):
        raise ValueError(f"world must have shape ({skeleton.count}, 4, 4), got {w.shape}")
    drawn = np.unique(_default_nodes(skeleton, model) if nodes is None
                      else np.asarray(nodes, dtype=np.int64).reshape(-1))
    if len(drawn) and (drawn[0] < 0 or drawn[-1] >= skeleton.count):
        raise ValueError(f"nodes must be in 0..{skeleton.count - 1}")
    ax = _axes(ax)
    joints = _view(w[drawn, :3, 3], up)
    bones = np.searchsorted(drawn, bone_pairs(skeleton.parents, drawn))
    _draw_skeleton(ax, joints, bones, color, marker_size, linewidth)
    _fit(ax, joints)
    return ax


def plot_mesh(positions: ArrayLike, faces: Optional[ArrayLike] = None,
              ax: Optional[Axes3D] = None, *, up: str = "y", color: ColorType = MESH_COLOR,
              alpha: float = 0.35, edgecolor: Optional[ColorType] = None) -> Axes3D:
    """Draw a posed mesh: triangles as a Poly3DCollection, or points without ``faces``.

    Parameters
    ----------
    positions : float array (V, 3) or (1, V, 3)
        E.g. ``model.pose(clip, [t])[prim.key][0]``.
    faces : int array (F, 3), optional
        Triangles (``prim.faces``).  Without them the vertices are drawn as points.
    ax : matplotlib 3D axes, optional
    up : {"y", "z"}
    color, alpha, edgecolor
        Face colour, opacity and edge colour (None: no edges).

    Returns
    -------
    matplotlib 3D axes
    """
    p = one_frame(positions)
    f = None if faces is None else np.asarray(faces, dtype=np.int64)
    ax = _axes(ax)
    verts = _view(p, up)
    _draw_mesh(ax, verts, f, color, alpha, edgecolor)
    _fit(ax, verts)
    return ax


def plot_body(body: BodyModel, pose: Optional[ArrayLike] = None,
              betas: Optional[ArrayLike] = None, expression: Optional[ArrayLike] = None,
              ax: Optional[Axes3D] = None, *, skeleton: bool = True, up: str = "y",
              color: ColorType = MESH_COLOR, alpha: float = 0.35) -> Axes3D:
    """Draw an SMPL-family body model posed once: its mesh and its joints.

    Parameters
    ----------
    body : BodyModel
    pose : float array (J, 3), optional
        Axis-angle of every joint, radians; default: the rest pose.
    betas, expression : float arrays, optional
        Shape and expression coefficients (``BodyModel.forward``'s).
    ax : matplotlib 3D axes, optional
    skeleton : bool
        Draw the joints and the kinematic tree over the mesh.
    up, color, alpha
        As for :func:`plot_mesh`.

    Returns
    -------
    matplotlib 3D axes
    """
    pose = np.zeros((body.num_joints, 3)) if pose is None else pose
    vertices, joints = body.forward(betas=betas, pose=pose, expression=expression)
    ax = plot_mesh(one_frame(vertices), body.faces, ax, up=up, color=color, alpha=alpha)
    if skeleton:
        _draw_skeleton(ax, _view(one_frame(joints, "joints"), up),
                       bone_pairs(body.parents, np.arange(body.num_joints)), SKELETON_COLOR,
                       3.0, 1.5)
    return ax


def animate(model: Model, clip: ClipLike = 0, fps: float = 15.0,
            times: Optional[ArrayLike] = None, *, loop: bool = False, skeleton: bool = True,
            mesh: bool = True, up: str = "y", ax: Optional[Axes3D] = None,
            figsize: Tuple[float, float] = (5, 5), close: bool = False,
            title: bool = True) -> FuncAnimation:
    """A clip preview: the posed mesh and skeleton, frame by frame.

    Parameters
    ----------
    model : Model
    clip : Clip, int, str or None
        As for ``model.pose`` (None: the rest pose, one frame).
    fps : float
        Frames per second: of the sampled times when ``times`` is not given (the whole clip,
        ``skinkit.frame_times``), and of playback.
    times : float array (T,), optional
        Times to show instead.
    loop : bool
        As for ``model.pose``.
    skeleton, mesh : bool
        What to draw (the skins' joints; every skinned primitive).
    up : {"y", "z"}
    ax : matplotlib 3D axes, optional
        Default: a new figure of ``figsize``.
    close : bool
        Close the figure once the animation is built, so that a notebook shows only the
        animation (``to_jshtml`` still renders it).
    title : bool
        Show the time of each frame as the axes title.

    Returns
    -------
    matplotlib.animation.FuncAnimation
        ``anim.to_jshtml()`` gives an inline HTML player; ``anim.save("clip.gif")`` a file.

    Notes
    -----
    The whole clip is posed up front with one ``world_matrices`` and one ``pose`` call; each
    frame only updates the artists.
    """
    from matplotlib.animation import FuncAnimation

    from ..model.pose import frame_times, resolve_clip

    plt = _plt()
    c = resolve_clip(model, clip)
    if times is None:
        times = frame_times(c, fps) if c is not None else np.zeros(1)
    times = np.asarray(times, dtype=np.float64).reshape(-1)
    ax = _axes(ax, figsize)
    fig = ax.figure
    artists: List[Callable[[int], None]] = []
    bounds: List[NDArray[Any]] = []

    if skeleton:
        nodes = _default_nodes(model.skeleton, model)
        joints = _view(model.world_matrices(c, times, loop)[:, nodes][..., :3, 3], up)
        bones = np.searchsorted(nodes, bone_pairs(model.skeleton.parents, nodes))
        points, lines = _draw_skeleton(ax, joints[0], bones, SKELETON_COLOR, 3.0, 1.5)
        bounds.append(joints)

        def draw_skeleton(i: int) -> None:
            points.set_data_3d(joints[i, :, 0], joints[i, :, 1], joints[i, :, 2])
            lines.set_segments(joints[i][bones] if len(bones) else [])
        artists.append(draw_skeleton)

    if mesh and model.primitives:
        posed = model.pose(c, times, loop)
        verts = _view(np.concatenate([posed[p.key] for p in model.primitives], axis=1), up)
        tris, offset = [], 0
        for p in model.primitives:
            if p.faces is not None:
                tris.append(np.asarray(p.faces, dtype=np.int64) + offset)
            offset += len(p.positions)
        faces = np.concatenate(tris) if tris else None
        shape = _draw_mesh(ax, verts[0], faces, MESH_COLOR, 0.25, None)
        bounds.append(verts)

        def draw_mesh(i: int) -> None:
            if faces is None:
                shape.set_data_3d(verts[i, :, 0], verts[i, :, 1], verts[i, :, 2])
            else:
                shape.set_verts(verts[i][faces])
        artists.append(draw_mesh)

    if bounds:
        _fit(ax, np.concatenate([b.reshape(-1, 3) for b in bounds]))

    def update(i: int) -> List[Any]:
        for draw in artists:
            draw(i)
        if title:
            ax.set_title(f"t = {times[i]:.3f} s", fontsize=9)
        return []

    update(0)
    anim = FuncAnimation(fig, update, frames=len(times), interval=1000.0 / fps, blit=False)
    if close:
        plt.close(fig)
    return anim
