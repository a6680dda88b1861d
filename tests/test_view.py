"""skinkit.view in a real headless browser (Chromium from Debian's packages, software WebGL): the
page loads, three.js skins the mesh where skinkit's own LBS puts it (the screenshot against the
silhouette of skinkit's posed triangles seen through the same camera), and the clip plays (two
moments differ).  Sizes: a 3-second clip of the sample character is under 1 MB."""
import shutil
import subprocess

import numpy as np
import pytest

import skinkit
from conftest import missing, optional_import

pytestmark = pytest.mark.integration

optional_import("viser", 'pip install ".[view]"', extra="view")
from skinkit.apps.viewer import view, view_body  # noqa: E402

SIZE = (640, 480)
BANNER = (slice(0, 140), slice(0, 290))     # viser's "Software WebGL rendering" notice
BAR = 45                                    # the player's bar at the bottom, pixels


def _chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        missing("chromium", "apt-get install chromium (Debian)")
    return exe


def _screenshot(page, tmp_path, ms, name="shot"):
    """Chromium's screenshot after ``ms`` of virtual time.  On a loaded machine the software
    renderer may not have drawn the first frame yet: a blank page is taken again (3 tries)."""
    from matplotlib.image import imread

    html, png = tmp_path / f"{name}.html", tmp_path / f"{name}.png"
    page.save(html)
    for _ in range(3):
        subprocess.run([_chromium(), "--headless=new", "--no-sandbox", "--use-angle=swiftshader",
                        "--enable-unsafe-swiftshader", "--hide-scrollbars",
                        f"--window-size={SIZE[0]},{SIZE[1]}", f"--virtual-time-budget={ms}",
                        f"--screenshot={png}", html.as_uri()],
                       check=True, capture_output=True, timeout=120)
        image = imread(png)[..., :3]
        if _drawn(image).any():
            break
    return image


def _drawn(image):
    """Pixels the scene drew on (not the white background), the page's overlays left out."""
    mask = (image < 0.88).any(axis=-1)
    mask[BANNER] = False
    mask[-BAR:] = False
    mask[:50, -50:] = False                 # the share button
    return mask


def _silhouette(points, faces, camera):
    """The triangles' pixels seen by a three.js PerspectiveCamera (look-at, vertical fov)."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    position, target, fov = (np.asarray(c, dtype=np.float64) for c in camera)
    back = position - target
    back /= np.linalg.norm(back)
    right = np.cross([0.0, 1.0, 0.0], back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    rel = points - position
    depth = -rel @ back
    f = 1 / np.tan(np.radians(fov) / 2)
    w, h = SIZE
    x = (rel @ right) / depth * f * h / 2 + w / 2
    y = h / 2 - (rel @ up) / depth * f * h / 2
    fig = Figure(figsize=(w / 100, h / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    ax.axis("off")
    tris = np.stack([x, y], axis=-1)[faces]
    ax.add_collection(matplotlib.collections.PolyCollection(tris, facecolors="k",
                                                            edgecolors="k", linewidths=0.5))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., 0] < 128


def _iou(a, b):
    return (a & b).sum() / (a | b).sum()


def test_the_sample_character_is_skinned_where_skinkit_poses_it(tmp_path):
    model = skinkit.data.character()
    page = view(model, clip="Walk", times=[0.5], skeleton=False)
    shot = _drawn(_screenshot(page, tmp_path, 4000))
    posed = model.pose("Walk", [0.5])
    want = np.logical_or.reduce([_silhouette(posed[p.key][0], p.faces, page.camera)
                                 for p in model.primitives])      # the body and the head
    want[BANNER] = False
    want[-BAR:] = False
    assert want.sum() > 5000                    # the camera frames the character
    assert _iou(shot, want) > 0.9


def test_the_clip_plays(tmp_path):
    page = view(skinkit.data.character(), clip="Run")
    early, late = (_drawn(_screenshot(page, tmp_path, ms, f"t{ms}")) for ms in (1500, 2300))
    assert early.sum() > 5000 and late.sum() > 5000
    assert _iou(early, late) < 0.95             # the legs moved


def test_three_seconds_of_the_character_fit_in_a_megabyte():
    model = skinkit.data.character(np.float32)
    page = view(model, clip="Idle", times=np.arange(0, 3, 1 / 30))
    assert len(page.html.encode()) < 1_000_000
    assert page._repr_html_().startswith("<iframe srcdoc=")


def test_a_body_model_loads_and_draws(tmp_path):
    body = skinkit.data.body_model(num_vertices=400)
    page = view_body(body, pose=np.zeros((2, body.num_joints, 3)), betas=np.ones(10))
    assert _drawn(_screenshot(page, tmp_path, 3000)).sum() > 2000


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="fps"):
        view(skinkit.default_model(), clip=0, fps=0)
    with pytest.raises(ValueError, match="clip"):
        view(skinkit.default_model(), clip="no such clip")
