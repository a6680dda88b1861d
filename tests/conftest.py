"""Where the test data lives: ``tests/data`` in the repository (provenance and licences in
``tests/data/README.md``).  ``DATA`` and its folders ``GLTF``, ``BVH``, ``THREEJS`` are for
module-level use (parametrize lists); the ``data`` fixture hands the same folder to a test."""
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
GLTF, BVH, THREEJS = DATA / "gltf", DATA / "bvh", DATA / "threejs"


@pytest.fixture(scope="session")
def data() -> Path:
    """The test data folder (``gltf/``, ``bvh/``, ``threejs/``, ``bvh-threejs/``)."""
    return DATA
