"""The example notebooks run from top to bottom (nbclient, a fresh ipykernel of this Python), in
an empty folder: what they read comes with the package (``skinkit.data``)."""
import json
import sys
from pathlib import Path

import pytest
from conftest import SKINKIT_PATH

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")
pytest.importorskip("trimesh")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


@pytest.fixture
def kernel_name(tmp_path, monkeypatch):
    """A kernelspec for this very interpreter, so that the notebook imports the skinkit under
    test whatever other "python3" kernels the machine has."""
    name = "skinkit-test"
    spec = tmp_path / "kernels" / name
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "skinkit tests", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", SKINKIT_PATH)     # the skinkit under test, from any folder
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    return name


def outputs(nb, kind):
    """Every output of a given MIME type (or stream text for "stream")."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if kind == "stream" and out.get("output_type") == "stream":
                found.append(out["text"])
            elif kind in out.get("data", {}):
                found.append(out["data"][kind])
    return found


def test_there_are_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["quickstart.ipynb"]
    for path in NOTEBOOKS:   # kept without outputs: small diffs, nothing stale
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, kernel_name, tmp_path):
    nb = nbformat.read(path, as_version=4)
    folder = tmp_path / "empty"
    folder.mkdir()
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name=kernel_name,
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()   # raises CellExecutionError with the cell and traceback on any error
    if path.name == "quickstart.ipynb":
        html = "\n".join(outputs(nb, "text/html"))
        assert "<table>" in html and "Mesh primitives" in html           # Model._repr_html_
        assert "<script" in html and "frames[" in html                   # the animation
        assert len(outputs(nb, "image/png")) >= 1                        # the plots
        text = "\n".join(outputs(nb, "stream") + outputs(nb, "text/plain"))
        assert "character.glb" in text and "(4, 1470, 3)" in text
        assert "character_t1.glb" in text and "per loop" in text            # export, %timeit
