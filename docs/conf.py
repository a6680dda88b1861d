"""Sphinx configuration: `pip install ".[docs]" && sphinx-build -W -b html docs docs/_build/html`.

The API reference is generated from the installed package: ``api.rst`` is written here at build
time from ``skinkit.__all__`` (one section per defining module), and autosummary makes a page per
name, so a name added to ``__all__`` appears without editing the docs.  The gallery runs
``examples/plot_*.py`` at build time (matplotlib, Agg).
"""
import importlib
import os
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import skinkit  # noqa: E402  (the installed package, as a user has it)

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

project = "skinkit"
author = "the skinkit developers"
copyright = "the skinkit developers, MIT licence"
release = skinkit.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinxarg.ext",
    "sphinx_gallery.gen_gallery",
    "myst_parser",          # the Markdown pages (docs/*.md): what the README used to hold
]
myst_heading_anchors = 3
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json"]
html_theme = "pydata_sphinx_theme"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_title = f"skinkit {release}"

autosummary_generate = True
# signatures name classes as their modules import them: a bare BodyModel matches
# skinkit.BodyModel (= skinkit.body.body_model.BodyModel) and skinkit.torch.BodyModel; Sphinx links the first
# and would warn that it had a choice ("ref.python")
suppress_warnings = ["ref.python"]
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False       # autosummary's class template lists them
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": str(DOCS / "auto_examples"),
    "filename_pattern": r"/plot_",             # run these at build time
    # only plot_*.py: the other scripts (fit_smpl.py takes minutes)
    # are command-line tools, shown in the guides
    "ignore_pattern": r"(^|[/\\])(?!plot_)[^/\\]+\.py$",
    "image_scrapers": ("matplotlib",),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}


MODULES = ("skinkit.apps.plot", "skinkit.io.mesh_files", "skinkit.data", "skinkit.apps.blender", "skinkit.dataset",
           "skinkit.torch.ops", "skinkit.torch.body_op", "skinkit.torch.body",
           "skinkit.torch.rotations")
"""The modules whose functions api.rst lists apart (not in ``skinkit.__all__``)."""


def _api_page() -> str:
    """api.rst: every name of ``skinkit.__all__``, grouped by the module that defines it."""
    groups, aliases = {}, {}
    for name in skinkit.__all__:
        obj = getattr(skinkit, name)
        module = getattr(obj, "__module__", "skinkit") or "skinkit"
        if getattr(obj, "__name__", name) != name:        # another name of a documented object
            aliases.setdefault(module, []).append((name, obj.__name__))
            continue
        groups.setdefault(module, []).append(name)
    lines = ["API reference", "=============", "",
             "Every public name of ``skinkit`` (``skinkit.__all__``), by the module that defines it,",
             f"then the modules {', '.join(f'``{m}``' for m in MODULES)}.  This page is",
             "generated from the package when the documentation is built.", "",
             ".. currentmodule:: skinkit", ""]
    for module in sorted(groups):
        doc = (importlib.import_module(module).__doc__ or module).strip().splitlines()[0]
        title = f"``{module}``: {doc}"
        lines += [title, "-" * len(title), "", ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {name}" for name in groups[module]] + [""]
        lines += [f"``{alias}`` is another name of :class:`{target}`." for alias, target in
                  aliases.get(module, [])] + [""]
    for module in MODULES:
        mod = importlib.import_module(module)
        names = list(getattr(mod, "__all__", ())) or [
            n for n, v in vars(mod).items() if callable(v) and not n.startswith("_")
            and getattr(v, "__module__", None) == module]
        title = f"``{module}``: {mod.__doc__.strip().splitlines()[0]}"
        lines += [title, "-" * len(title), "", f".. currentmodule:: {module}", "",
                  ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {n}" for n in sorted(names)] + ["", ".. currentmodule:: skinkit", ""]
    return "\n".join(lines)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


_write_if_changed(DOCS / "api.rst", _api_page())
shutil.rmtree(DOCS / "generated", ignore_errors=True)    # no stub of a name that has gone
os.environ.setdefault("MPLBACKEND", "Agg")
