"""Every ```python block of README.md and of the Markdown pages in docs/ runs as written.

Blocks run in an empty folder (a new user's first hour: only the installed package and its
sample content, ``skinkit.data``), except the docs sections whose code names the repository's
test data (tests/data): those run from the repository root.  Blocks run in order, one namespace
per ``##`` section: a block may use what an earlier block of its section defined.  Files that
blocks create through ``tempfile`` land in pytest's tmp_path; matplotlib draws off screen.
Blocks that cannot run here are fenced with another language (```python-blender needs Blender's
bpy): those must still compile, and every fence language must be a known one, so that a typo
cannot silently drop a block.
"""
import re
import tempfile
from pathlib import Path

import pytest
from conftest import extras_optional

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README] + sorted((ROOT / "docs").glob("**/*.md"))
RUN = "python"
COMPILE_ONLY = {"python-blender"}
NOT_PYTHON = {"bash", "sh", "console", "text", "json", "toml", "c", ""}

FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)


def blocks(page):
    """[(section, language, first line number, code)] of every fenced block, in order."""
    text = page.read_text(encoding="utf-8")
    heads = [(m.start(), m.group(1)) for m in HEADING.finditer(text)]
    out = []
    for m in FENCE.finditer(text):
        section = next((h for pos, h in reversed(heads) if pos < m.start()), "top")
        line = text.count("\n", 0, m.start(2)) + 1
        out.append((section, m.group(1), line, m.group(2)))
    return out


BLOCKS = {page: blocks(page) for page in PAGES}
SECTIONS = [(page, section) for page in PAGES
            for section in dict.fromkeys(s for s, lang, _, _ in BLOCKS[page] if lang == RUN)]


def _name(page):
    return page.relative_to(ROOT).as_posix()


def _compile(page, code, line):
    # the page's line numbers in tracebacks
    return compile("\n" * (line - 1) + code, str(page), "exec")


def test_readme_has_an_example_for_each_kind_of_user():
    sections = {s for page, s in SECTIONS if page == README}
    assert {"In a notebook", "In a machine-learning pipeline", "In a DCC script"} <= sections
    assert any(lang in COMPILE_ONLY for _, lang, _, _ in BLOCKS[README])
    assert len(README.read_bytes()) < 10_000


def test_every_fence_language_is_known():
    unknown = {(_name(page), lang, line) for page in PAGES for _, lang, line, _ in BLOCKS[page]
               if lang != RUN and lang not in COMPILE_ONLY and lang not in NOT_PYTHON}
    assert not unknown, f"fences of unknown language (page, line): {sorted(unknown)}"


@pytest.mark.parametrize("page,line,code", [(page, line, code) for page in PAGES
                                            for _, lang, line, code in BLOCKS[page]
                                            if lang in COMPILE_ONLY],
                         ids=lambda x: _name(x) if isinstance(x, Path) else None)
def test_blocks_that_need_other_software_compile(page, line, code):
    _compile(page, code, line)


@pytest.mark.parametrize("page,section", SECTIONS,
                         ids=lambda x: _name(x) if isinstance(x, Path) else x)
def test_section_runs(page, section, monkeypatch, tmp_path):
    code = "".join(c for s, lang, _, c in BLOCKS[page] if s == section and lang == RUN)
    assert page != README or "tests/data" not in code, "the README runs without the repository"
    monkeypatch.chdir(ROOT if "tests/data" in code else tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")                     # no display
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))     # what a block writes goes here
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        pass
    namespace = {"__name__": "__readme__"}
    try:
        for s, lang, line, code in BLOCKS[page]:
            if s == section and lang == RUN:
                with extras_optional():               # the one dependency not in [test]
                    exec(_compile(page, code, line), namespace)
    finally:
        try:
            import matplotlib.pyplot as plt
            plt.close("all")
        except ImportError:
            pass
