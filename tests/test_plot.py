"""skinkit.apps.plot (matplotlib, Agg backend): skeletons, meshes and clip animations."""
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.animation import FuncAnimation  # noqa: E402

import skinkit  # noqa: E402
from skinkit.apps import plot  # noqa: E402
from skinkit.model.default_model import default_model  # noqa: E402
from conftest import GLTF

CESIUM = GLTF / "CesiumMan.glb"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def view(p):
    """glTF Y-up -> matplotlib Z-up, as skinkit.apps.plot shows points: (x, -z, y)."""
    p = np.asarray(p)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)


def joints_drawn(ax):
    (line,) = [ln for ln in ax.lines if ln.get_marker() == "o"]
    return np.stack(line.get_data_3d(), axis=-1)


def test_import_skinkit_needs_no_optional_library():
    code = ("import sys, skinkit, skinkit.apps.plot, skinkit.io.mesh_files, skinkit.cli.main\n"
            "bad = [m for m in ('matplotlib', 'trimesh', 'tqdm') if m in sys.modules]\n"
            "assert not bad, bad\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.shared
def test_plot_skeleton_of_a_model_draws_the_skin_joints():
    m = skinkit.load_gltf(CESIUM)
    world = m.world_matrices(0, [0.75])
    ax = plot.plot_skeleton(m, world)
    joints = np.unique(m.skins[0].joints)
    np.testing.assert_allclose(joints_drawn(ax), view(world[0, joints, :3, 3]))
    ax.figure.canvas.draw()
    (bones,) = ax.collections
    assert len(bones.get_segments()) == len(joints) - 1        # a tree over the 19 joints
    assert ax.get_box_aspect() is not None


def test_plot_skeleton_rest_pose_of_a_bare_skeleton():
    m = default_model()
    ax = plot.plot_skeleton(m.skeleton)   # every node; rest pose by forward kinematics
    np.testing.assert_allclose(joints_drawn(ax)[:, 2], [0, 0, 8 / 3, 16 / 3, 8], atol=1e-12)
    ax.figure.canvas.draw()
    assert len(ax.collections[0].get_segments()) == 3          # bone0-bone1-bone2-bone3
    ax2 = plot.plot_skeleton(m, m.world_matrices("bend", [0.5])[0], up="z", nodes=[1, 4])
    np.testing.assert_allclose(joints_drawn(ax2), m.world_matrices("bend", [0.5])[0, [1, 4], :3, 3])
    ax2.figure.canvas.draw()
    assert len(ax2.collections[0].get_segments()) == 1         # 4 joined to its drawn ancestor 1


def test_plot_skeleton_errors():
    m = default_model()
    with pytest.raises(ValueError, match="world"):
        plot.plot_skeleton(m, np.zeros((2, 5, 4, 4)))
    with pytest.raises(ValueError, match="up"):
        plot.plot_skeleton(m, up="x")
    with pytest.raises(ValueError, match="nodes"):
        plot.plot_skeleton(m, nodes=[7])
    with pytest.raises(TypeError):
        plot.plot_skeleton(np.zeros(3))
    with pytest.raises(ValueError, match="3D"):
        plot.plot_skeleton(m, ax=plt.figure().add_subplot())


def test_plot_mesh_on_shared_axes():
    m = default_model()
    prim = m.primitives[0]
    posed = m.pose("bend", [1.5])[prim.key]
    ax = plot.plot_skeleton(m, m.world_matrices("bend", [1.5]))
    assert plot.plot_mesh(posed, prim.faces, ax=ax) is ax
    ax.figure.canvas.draw()
    (poly,) = [c for c in ax.collections if type(c).__name__ == "Poly3DCollection"]
    assert len(poly.get_paths()) == len(prim.faces)
    # without faces: the vertices as points
    ax = plot.plot_mesh(posed[0])
    (points,) = ax.lines
    np.testing.assert_allclose(np.stack(points.get_data_3d(), axis=-1), view(posed[0]))
    with pytest.raises(ValueError, match="shape"):
        plot.plot_mesh(posed[0, :, :2])


def test_plot_body_draws_the_posed_mesh_and_the_tree():
    body = skinkit.data.body_model(num_vertices=300)
    pose = np.random.default_rng(3).normal(scale=0.3, size=(body.num_joints, 3))
    ax = plot.plot_body(body, pose, betas=np.ones(10))
    ax.figure.canvas.draw()
    vertices, joints = body.forward(betas=np.ones(10), pose=pose)
    (poly,) = [c for c in ax.collections if type(c).__name__ == "Poly3DCollection"]
    assert len(poly.get_paths()) == len(body.faces)
    np.testing.assert_allclose(joints_drawn(ax), view(joints))
    (bones,) = [c for c in ax.collections if type(c).__name__ == "Line3DCollection"]
    assert len(bones.get_segments()) == body.num_joints - 1


def test_animate_default_model():
    m = default_model()
    anim = plot.animate(m, "bend", fps=5)
    assert isinstance(anim, FuncAnimation)
    times = skinkit.frame_times(m.clips[0], 5)
    world = m.world_matrices("bend", times)
    ax = anim._fig.axes[0]
    for i in (0, 7, len(times) - 1):
        anim._func(i)
        np.testing.assert_allclose(joints_drawn(ax), view(world[i, 1:, :3, 3]), atol=1e-12)
        assert ax.get_title() == f"t = {times[i]:.3f} s"
    html = anim.to_jshtml()
    assert "<script" in html and html.count("frames[") >= len(times)


@pytest.mark.shared
def test_animate_cesium_man_in_a_notebook_style():
    m = skinkit.load_gltf(CESIUM)
    anim = plot.animate(m, 0, times=[0.0, 0.5, 1.0], close=True)
    assert not plt.get_fignums()          # closed: only the animation would be shown
    html = anim.to_jshtml()               # still renders
    assert html.count("frames[") >= 3 and "data:image/png;base64" in html


def test_animate_rest_pose_and_options():
    m = default_model()
    ax = plt.figure().add_subplot(projection="3d")
    anim = plot.animate(m, None, skeleton=False, title=False, ax=ax)   # one frame
    assert anim._fig is ax.figure
    assert len(ax.lines) == 0 and ax.get_title() == ""
    assert len(ax.collections) == 1                                      # the mesh only
    assert anim.to_jshtml().count("frames[") >= 1
