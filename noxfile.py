"""The versions skinkit claims, tested: every CPython of ``requires-python`` (3.10-3.13), each with
the oldest NumPy it supports there (``.ci/oldest_numpy.py``) and the newest that pip finds for it.

Each session builds a wheel of this tree for its Python (build isolation: against NumPy 2, for
NumPy >= 1.24 at run time), installs the wheel with the ``[test,fuzz]`` extras into a fresh venv -- not
the source tree -- and runs the suite from the project folder.

    nox                           # the whole matrix (.ci/run runs it)
    nox -s "tests-3.12(numpy='oldest')"
    nox -s docs                   # the documentation, warnings as errors, and the doctests

torch: its ``[torch]`` extra is a lower bound, which pip resolves to a CUDA build of several GB;
the 2.13.0 CPU wheel lies on this machine's disk for Python 3.11 only, so the 3.11 sessions
install it first (then ``[test,fuzz,test-torch]`` finds torch satisfied and adds smplx) and the
others install neither and skip the torch tests, saying so.  The
integration tests (Blender, Chromium, Dask clusters: marker ``integration``) run once in
.ci/run, not here.  SKINKIT_REQUIRE tells the tests what a session provides
(tests/conftest.py): what is listed must be there.
"""
import runpy
import shutil
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
TORCH_PYTHONS = {"3.11"}
TORCH_CPU = "torch==2.13.0"    # the CPU wheel on disk (pip's find-links)
OLDEST = runpy.run_path(str(ROOT / ".ci" / "oldest_numpy.py"))["OLDEST"]

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = False

_wheels = {}  # python -> the wheel built in this nox run


def _wheel(session) -> str:
    """A wheel of this tree for the session's Python, built once per nox run."""
    if session.python not in _wheels:
        out = ROOT / ".nox" / "_wheels" / session.python
        shutil.rmtree(out, ignore_errors=True)
        session.run("python", "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT))
        (wheel,) = out.glob("skinkit-*.whl")
        _wheels[session.python] = str(wheel)
    return _wheels[session.python]


@nox.session(python=PYTHONS)
@nox.parametrize("numpy", ["oldest", "newest"])
def tests(session, numpy):
    """The suite on the built wheel, with the oldest or the newest NumPy for this Python."""
    wheel = _wheel(session)
    torch = session.python in TORCH_PYTHONS
    pin = f"numpy=={OLDEST[tuple(map(int, session.python.split('.')))]}" \
        if numpy == "oldest" else "numpy"
    if torch:
        session.install(TORCH_CPU)
        session.install(f"{wheel}[test,fuzz,test-torch]", pin)
    else:
        session.install(f"{wheel}[test,fuzz]", pin)
    session.run("python", "-c", "import sys, numpy, skinkit; print('Python', sys.version.split()[0],"
                " 'NumPy', numpy.__version__, 'skinkit', skinkit.__version__, skinkit.__file__)")
    require = ["atheris"] if sys.platform.startswith("linux") else []
    require += ["torch"] if torch else []
    if not torch:
        session.log(f"torch: not installed for Python {session.python} (its CPU wheel is "
                    "at hand for 3.11 only); the torch tests skip")
    session.chdir(ROOT)
    # a pytest cache of its own (the mypy test keeps its cache there): .ci/run runs sessions at once
    cache = f"cache_dir={session.virtualenv.location}/pytest-cache"
    session.run("python", "-m", "pytest", "-q", "-rs", "-m", "not integration", "-o", cache,
                *session.posargs, env={"SKINKIT_REQUIRE": ",".join(require), "MPLBACKEND": "Agg"})


@nox.session(python="3.11")
def docs(session):
    """README's command: install [docs] from the source tree, sphinx-build -W; then the doctests
    of the installed package's docstrings ([torch] too: collecting them imports skinkit.torch)."""
    session.install(TORCH_CPU)
    session.install(f"{ROOT}[docs,torch]", "pytest")
    session.chdir(ROOT)
    shutil.rmtree(ROOT / "docs" / "_build", ignore_errors=True)
    session.run("sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "docs",
                "docs/_build/html", env={"MPLBACKEND": "Agg"})
    session.run("python", "-m", "pytest", "-q", "--doctest-modules",
                "--pyargs", "skinkit", env={"MPLBACKEND": "Agg"})
