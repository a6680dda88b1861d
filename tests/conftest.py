"""Where the test data lives, the one locator of it.

``DATA`` (``tests/data``) holds only what this project made (``body/``: tiny synthetic body models,
``tests/data/README.md``).  Content other programs wrote comes from the project's shared data,
``../shared`` beside the repository (from a worktree, the nearest ancestor's ``shared/``;
``$SKINKIT_SHARED`` overrides): ``FIXTURES`` (``GLTF``, ``BVH``, ``THREEJS``, ``BVH_THREEJS``) and
``CORPUS``.  A test that reads them is marked ``shared`` (or takes the ``fixtures`` fixture) and
skips, naming the folder, where it is absent -- unless ``SKINKIT_REQUIRE`` lists ``shared``."""
import contextlib
import hashlib
import importlib
import importlib.util
import json
import os
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"


def _shared() -> Path:
    if os.environ.get("SKINKIT_SHARED"):
        return Path(os.environ["SKINKIT_SHARED"])
    for parent in REPO.parents:
        if (parent / "shared").is_dir():
            return parent / "shared"
    return REPO.parent / "shared"


SHARED = _shared()
FIXTURES, CORPUS = SHARED / "fixtures", SHARED / "corpus"
GLTF, BVH, THREEJS, BVH_THREEJS = (FIXTURES / n for n in ("gltf", "bvh", "threejs", "bvh-threejs"))
# where archives of the shared data are extracted, one folder per archive's hash
CACHE = Path(os.environ.get("SKINKIT_CACHE", Path.home() / ".cache" / "skinkit"))
# the folder holding the skinkit under test (an installed wheel, or python/ with an in-place
# build): what a child process needs on PYTHONPATH to import the same skinkit
SKINKIT_PATH = str(Path(importlib.util.find_spec("skinkit").origin).resolve().parents[1])


def need_shared(folder: Path = FIXTURES) -> Path:
    """``folder`` (under ``SHARED``), or :func:`missing` naming it."""
    if not folder.exists():
        missing(f"../shared/{folder.relative_to(SHARED)}",
                f"the project's shared data (looked for {folder}; set SKINKIT_SHARED)", "shared")
    return folder


def shared_files(folder: Path, pattern: str) -> list:
    """``sorted(folder.glob(pattern))`` for a parametrize list; where ``folder`` is absent, one
    placeholder path, so that the (``shared``-marked) test is collected and skips."""
    return sorted(folder.glob(pattern)) if folder.is_dir() else [folder / pattern]


def shared_json(path: Path, absent):
    """The JSON file ``path`` read for module-level use, or the placeholder ``absent`` where it
    is missing (so that the ``shared``-marked tests parametrized by it are collected and skip)."""
    return json.loads(path.read_text()) if path.is_file() else absent


def pytest_runtest_setup(item):
    if item.get_closest_marker("shared"):
        need_shared()


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """``../shared/fixtures`` (``gltf/``, ``bvh/``, ``threejs/``, ``bvh-threejs/``)."""
    return need_shared(FIXTURES)


@pytest.fixture(scope="session")
def khronos() -> Path:
    """The Khronos sample models of ``../shared/corpus/khronos-models.tar.gz``, extracted once
    into the cache (keyed by the archive's SHA-256): the folder holding ``glTF-Sample-Assets``,
    ``glTF-Sample-Models`` ..."""
    return extracted(need_shared(CORPUS / "khronos-models.tar.gz")) / "models"


@pytest.fixture(scope="session")
def blender_files() -> Path:
    """What Blender wrote from tests/blender_scenes.py (``rig.fbx``, ``rig_zup.fbx``,
    ``rig.glb``, ``rig.bvh`` and ``rig.npz``, Blender's own account of the scene), made once
    and cached; without Blender's ``bpy``, :func:`missing`."""
    from blender_mesh import made_by_blender
    return made_by_blender()


@pytest.fixture(scope="session")
def blender_conversions(fixtures) -> Path:
    """Three shared glTF fixtures through Blender's glTF importer and FBX exporter
    (``<stem>.fbx`` and ``<stem>.npz``, tests/blender_scenes.py), made once and cached."""
    from blender_mesh import made_by_blender
    return made_by_blender(*(fixtures / "gltf" / name for name in (
        "RiggedSimple.glb", "RiggedSimple-morph.glb", "RiggedFigure.glb")))


def extracted(archive: Path) -> Path:
    """``archive`` extracted into ``CACHE/<stem>-<sha256[:16]>`` (once; atomically renamed)."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    out = CACHE / f"{archive.name.split('.')[0]}-{digest}"
    if not out.is_dir():
        tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        try:
            tmp.rename(out)
        except OSError:      # another process got there first
            import shutil
            shutil.rmtree(tmp)
    return out


@pytest.fixture(scope="session")
def data() -> Path:
    """This project's own test data (``tests/data``: ``body/``)."""
    return DATA


@pytest.fixture(scope="session")
def shared() -> Path:
    """The project's shared data folder (``SHARED``: content other programs wrote, too large or
    not ours to commit); a test that needs a file there takes it through ``shared_file``."""
    return SHARED


def shared_file(shared: Path, relative: str) -> Path:
    """``shared / relative``, or :func:`missing` naming it."""
    path = shared / relative
    if not path.is_file():
        missing(f"../shared/{relative}",
                f"the project's shared data (looked for {path}; set SKINKIT_SHARED)", "shared")
    return path


# Optional test dependencies: torch and smplx (the [test-torch] extra), Blender's bpy (its own
# venv), atheris (the [fuzz] extra, Linux only), zarr and distributed ([dataset]), ../shared
# ("shared").  Without one, its tests skip and say how to get it -- unless it is listed in
# SKINKIT_REQUIRE (comma-separated), where a missing one fails.  Under CI (CI set) the default is
# torch, bpy, atheris and shared; the nox sessions set the list to what each session installs.
def required() -> set:
    default = "torch,bpy,atheris,shared" if os.environ.get("CI") else ""
    return {n.strip() for n in os.environ.get("SKINKIT_REQUIRE", default).split(",") if n.strip()}


def missing(name: str, how: str, extra: str = "") -> None:
    """Skip (or, if ``extra`` -- else ``name`` -- is required, fail) the calling test or module:
    ``name`` is absent."""
    msg = f"{name} is not available here: {how}"
    if (extra or name) in required():
        pytest.fail(f"{msg} (required: SKINKIT_REQUIRE={','.join(sorted(required()))})",
                    pytrace=False)
    pytest.skip(msg, allow_module_level=True)


def optional_import(name: str, how: str, extra: str = ""):
    """``import name``, or :func:`missing` (``extra``: the requirement it comes with)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(name, how, extra)


TORCH_HOW = ('pip install torch==2.13.0 && pip install ".[test,test-torch]" (the CPU wheel first: '
             '[torch] is torch>=2.4, which pip alone resolves to a CUDA build)')
SMPLX_HOW = ('pip install ".[test,test-torch]" (smplx, the body models\' reference, with torch: '
             'see TORCH_HOW)')
DATASET_HOW = 'pip install ".[test,dataset]" (zarr 3 and a Dask cluster; zarr 3: Python >= 3.11)'


# a module documentation code may import -> (how to get it, the requirement it comes with)
USD_HOW = "pip install 'skinkit[usd]' (usd-core)"
DOC_EXTRAS = {"torch": (TORCH_HOW, ""), "distributed": (DATASET_HOW, "dataset"),
              "pxr": (USD_HOW, "usd")}


@contextlib.contextmanager
def extras_optional():
    """Around documentation code (README, docs/) that may import torch, distributed or usd-core
    (the opt-in extras): without it, ``missing``."""
    try:
        yield
    except ModuleNotFoundError as e:
        if e.name not in DOC_EXTRAS:
            raise
        missing(e.name, *DOC_EXTRAS[e.name])


@pytest.fixture
def no_vmap_fallback():
    """torch.func.vmap raises for an operator without a vmap rule (instead of calling it once
    per item): a test under it shows that the rules run."""
    torch = importlib.import_module("torch")
    torch._C._functorch._set_vmap_fallback_enabled(False)
    yield
    torch._C._functorch._set_vmap_fallback_enabled(True)


@pytest.fixture(scope="session")
def usd_files() -> Path:
    """The USD oracle files (``../shared/usd/files``, provenance in its README.md)."""
    return need_shared(SHARED / "usd" / "files")


def at_simd_level(script: str, inputs: dict, cap: str, folder: Path):
    """The arrays ``script`` saves (its argv: an input .npz of ``inputs``, an output .npz) when
    run in a fresh interpreter at SIMD level ``cap`` (SKINKIT_SIMD): the bits each level gives."""
    import subprocess
    import sys
    import numpy as np
    np.savez(folder / "in.npz", **inputs)
    subprocess.run([sys.executable, "-c", script, str(folder / "in.npz"),
                    str(folder / "out.npz")], env=dict(os.environ, SKINKIT_SIMD=cap), check=True)
    return np.load(folder / "out.npz")
