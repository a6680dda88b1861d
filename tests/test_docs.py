"""The documentation's Python examples run: every ``.. code-block:: python`` of the user guides
and pages in docs/ (one namespace per page, in order, in an empty folder as after ``pip install``
unless the page names the repository's test data, tests/data, as tests/test_readme.py does for
the Markdown pages), except blocks that need Blender's bpy, which must compile.  The Sphinx
build itself (-W) and the docstrings' doctests run in CI (nox -s docs)."""
import re
import tempfile
import textwrap
from pathlib import Path

import pytest
from conftest import extras_optional

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("**/*.rst"))
BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:[ \t]+.*\n|[ \t]*\n)+)", re.MULTILINE)


def blocks(page):
    return [textwrap.dedent(m.group(1)) for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


PAGES_WITH_CODE = [p for p in PAGES if blocks(p)]


def test_the_guides_have_python_examples():
    names = {p.relative_to(ROOT / "docs").as_posix() for p in PAGES_WITH_CODE}
    assert {"getting-started.rst", "guide/notebook.rst", "guide/ml.rst",
            "guide/dcc.rst"} <= names, names


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_examples_run(page, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT if any("tests/data" in code for code in blocks(page)) else tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pytest.importorskip("matplotlib").use("Agg")
    namespace = {"__name__": "__docs__"}
    for code in blocks(page):
        compiled = compile(code, str(page), "exec")
        if re.search(r"^import bpy", code, re.MULTILINE):
            continue                                     # Blender only: compiled above
        with extras_optional():
            exec(compiled, namespace)
    import matplotlib.pyplot as plt
    plt.close("all")
