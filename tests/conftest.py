"""Where the test data lives: ``tests/data`` in the repository (provenance and licences in
``tests/data/README.md``).  ``DATA`` and its folders ``GLTF``, ``BVH``, ``THREEJS`` are for
module-level use (parametrize lists); the ``data`` fixture hands the same folder to a test."""
import contextlib
import importlib
import importlib.util
import os
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
GLTF, BVH, THREEJS = DATA / "gltf", DATA / "bvh", DATA / "threejs"
# the folder holding the skinkit under test (an installed wheel, or python/ with an in-place
# build): what a child process needs on PYTHONPATH to import the same skinkit
SKINKIT_PATH = str(Path(importlib.util.find_spec("skinkit").origin).resolve().parents[1])


@pytest.fixture(scope="session")
def data() -> Path:
    """The test data folder (``gltf/``, ``bvh/``, ``threejs/``, ``bvh-threejs/``)."""
    return DATA


@pytest.fixture(scope="session")
def shared() -> Path:
    """The project's shared data folder (content other programs wrote, too large or not ours
    to commit): ``SKINKIT_SHARED``, else the first ``shared/`` beside or above the repository;
    a test that needs a file there skips without it (``shared_file``)."""
    env = os.environ.get("SKINKIT_SHARED")
    here = Path(__file__).resolve().parents[1]
    for folder in ([Path(env)] if env else []) + [p / "shared" for p in here.parents]:
        if folder.is_dir():
            return folder
    return here / "shared"


def shared_file(shared: Path, relative: str) -> Path:
    """``shared / relative``, or :func:`missing` (set SKINKIT_SHARED to the folder holding it)."""
    path = shared / relative
    if not path.is_file():
        missing(f"shared/{relative}", "set SKINKIT_SHARED to the shared data folder", "shared")
    return path


# Optional test dependencies: torch (the [torch] extra), Blender's bpy (its own venv) and atheris
# (Linux only).  Without one, its tests skip and say how to get it -- unless it is listed in
# SKINKIT_REQUIRE (comma-separated), where a missing one fails.  Under CI (CI set) the default is
# all three; the nox sessions set the list to what each session installs.
def required() -> set:
    default = "torch,bpy,atheris" if os.environ.get("CI") else ""
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


TORCH_HOW = ('pip install torch==2.13.0 && pip install ".[test,torch]" (the CPU wheel first: '
             '[torch] is torch>=2.4, which pip alone resolves to a CUDA build)')
SMPLX_HOW = 'pip install ".[test]" (smplx is a test requirement, with torch: see TORCH_HOW)'


@contextlib.contextmanager
def torch_optional():
    """Around documentation code (README, docs/) that may import torch: without it, ``missing``."""
    try:
        yield
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        missing("torch", TORCH_HOW)


@pytest.fixture
def no_vmap_fallback():
    """torch.func.vmap raises for an operator without a vmap rule (instead of calling it once
    per item): a test under it shows that the rules run."""
    torch = importlib.import_module("torch")
    torch._C._functorch._set_vmap_fallback_enabled(False)
    yield
    torch._C._functorch._set_vmap_fallback_enabled(True)


USD_HOW = "pip install 'skinkit[usd]' (usd-core)"


@pytest.fixture(scope="session")
def usd_files() -> Path:
    """The USD oracle files (``/work/shared/usd/files``, provenance in its README.md; the
    ``SKINKIT_USD_FILES`` folder instead when set): skips without them."""
    folder = Path(os.environ.get("SKINKIT_USD_FILES", "/work/shared/usd/files"))
    if not (folder / "SHA256SUMS").is_file():
        pytest.skip(f"the USD oracle files are not at {folder} (set SKINKIT_USD_FILES)")
    return folder
