"""Every ```python block of README.md runs as written, from the repository root (where its
relative paths such as ../shared/fixtures point), each block in a fresh namespace."""
import re
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def python_blocks():
    """(id, code) of every fenced ```python block, the id naming the section it is in."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    section = "top"
    for m in re.finditer(r"^(#+ [^\n]*)$|^```python[ \t]*\n(.*?)^```[ \t]*$", text,
                         re.MULTILINE | re.DOTALL):
        if m.group(1):
            section = re.sub(r"\W+", "-", m.group(1).lstrip("#").strip().lower()).strip("-")
        else:
            blocks.append((f"{section}-{len(blocks)}", m.group(2)))
    return blocks


BLOCKS = python_blocks()


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[i for i, _ in BLOCKS])
def test_readme_block_runs(code, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")            # no display
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # what a block writes goes here
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        pass
    namespace = {"__name__": "__readme__"}
    exec(compile(code, str(README), "exec"), namespace)
    try:
        import matplotlib.pyplot as plt
        plt.close("all")
    except ImportError:
        pass
