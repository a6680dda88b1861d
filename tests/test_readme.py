"""Every ```python block of README.md runs as written.

Blocks run from the repository root (where relative paths such as tests/data point), in
order, one namespace per ``##`` section: a block may use what an earlier block of its section
defined.  Files that blocks create through ``tempfile`` land in pytest's tmp_path; matplotlib draws
off screen.  Blocks that cannot run here are fenced with another language (```python-blender needs
Blender's bpy): those must still compile, and every fence language must be a known one, so that a
typo cannot silently drop a block.
"""
import re
import tempfile
from pathlib import Path

import pytest
from conftest import torch_optional

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUN = "python"
COMPILE_ONLY = {"python-blender"}
NOT_PYTHON = {"bash", "sh", "console", "text", "json", "toml", "c", ""}

FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)


def blocks():
    """[(section, language, first line number, code)] of every fenced block, in order."""
    text = README.read_text(encoding="utf-8")
    heads = [(m.start(), m.group(1)) for m in HEADING.finditer(text)]
    out = []
    for m in FENCE.finditer(text):
        section = next((h for pos, h in reversed(heads) if pos < m.start()), "top")
        line = text.count("\n", 0, m.start(2)) + 1
        out.append((section, m.group(1), line, m.group(2)))
    return out


BLOCKS = blocks()
SECTIONS = list(dict.fromkeys(s for s, lang, _, _ in BLOCKS if lang == RUN))


def _compile(code, line):
    # README line numbers in tracebacks
    return compile("\n" * (line - 1) + code, str(README), "exec")


def test_readme_has_python_blocks_in_the_user_sections():
    for section in ["The Python API", "Machine learning (PyTorch)", "Scaling out"]:
        assert section in SECTIONS, section
    assert any(lang in COMPILE_ONLY for _, lang, _, _ in BLOCKS)


def test_every_fence_language_is_known():
    unknown = {(lang, line) for _, lang, line, _ in BLOCKS
               if lang != RUN and lang not in COMPILE_ONLY and lang not in NOT_PYTHON}
    assert not unknown, f"fences of unknown language (README line): {sorted(unknown)}"


@pytest.mark.parametrize("line,code", [(line, code) for _, lang, line, code in BLOCKS
                                       if lang in COMPILE_ONLY])
def test_blocks_that_need_other_software_compile(line, code):
    _compile(code, line)


@pytest.mark.parametrize("section", SECTIONS)
def test_readme_section_runs(section, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")                     # no display
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))     # what a block writes goes here
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        pass
    namespace = {"__name__": "__readme__"}
    try:
        for s, lang, line, code in BLOCKS:
            if s == section and lang == RUN:
                with torch_optional():               # the one dependency not in [test]
                    exec(_compile(code, line), namespace)
    finally:
        try:
            import matplotlib.pyplot as plt
            plt.close("all")
        except ImportError:
            pass
