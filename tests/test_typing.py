"""Typing: mypy passes on the package; the stubs of the C extension (python/skinkit/_core.pyi)
cover every function and type of ``skinkit._core`` with its parameters (a type: its constructor
and methods); py.typed and the stubs are installed with the package, so that a user's mypy
sees them."""
import ast
import inspect
import re
import textwrap
from pathlib import Path

import mypy.api
import pytest

import skinkit
from skinkit import _core

ROOT = Path(__file__).resolve().parents[1]
STUB = ROOT / "python" / "skinkit" / "_core.pyi"


def run_mypy(request, *args):
    cache = request.config.cache.mkdir("mypy")
    stdout, stderr, status = mypy.api.run(["--cache-dir", str(cache), *args])
    return stdout + stderr, status


@pytest.mark.slow   # mypy --strict on the whole package: minutes
def test_mypy_passes_on_the_package(request, monkeypatch):
    monkeypatch.chdir(ROOT)                       # [tool.mypy] in pyproject.toml, files= there
    out, status = run_mypy(request, "--config-file", str(ROOT / "pyproject.toml"))
    assert status == 0, out
    assert "Success" in out


def _params(a, skip=0):
    """[(parameter, has_default)] of a stub's arguments, the first skip left out (cls, self)."""
    params = a.posonlyargs + a.args
    first_default = len(params) - len(a.defaults)
    return [(p.arg, i >= first_default) for i, p in enumerate(params)][skip:]


def _stub_functions():
    """name -> [(parameter, has_default)] of every function in _core.pyi (first overload), and
    of every class: its ``__new__``'s parameters after cls (its constructor's)."""
    funcs = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.FunctionDef) and node.name not in funcs:
            funcs[node.name] = _params(node.args)
        elif isinstance(node, ast.ClassDef):
            new = [f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__new__"]
            funcs[node.name] = _params(new[0].args, 1) if new else []
    return funcs


def _stub_methods():
    """"Class.method" -> [(parameter, has_default)] after self, of every public method of a
    class in _core.pyi."""
    return {f"{node.name}.{f.name}": _params(f.args, 1)
            for node in ast.parse(STUB.read_text()).body if isinstance(node, ast.ClassDef)
            for f in node.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")}


def _doc_signature(fn):
    """[(parameter, has_default)] from the binding's docstring, "name(a, b, out=None)...", else
    from its ``__text_signature__`` (a public method's, "($self, /, a)", which Python takes out
    of the docstring; not first: Python 3.13 gives a one-argument function "($module, object,
    /)" of its own)."""
    m = re.match(rf"{fn.__name__}\(([^)]*)\)", fn.__doc__ or "")
    if not m and getattr(fn, "__text_signature__", None):
        return [(p.name, p.default is not p.empty)
                for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    assert m, f"{fn.__name__}'s docstring does not start with its signature: {fn.__doc__!r}"
    params = [p.strip() for p in m.group(1).split(",") if p.strip()]
    return [(p.split("=")[0].strip(), "=" in p) for p in params]


# the public functions and the kernels of the table (an internal one is named _x)
FUNCTIONS = sorted({n for n in dir(_core) if not n.startswith("_")} | set(_core._shapes))


def test_the_stub_names_every_function_of_the_extension():
    public = {n for n in FUNCTIONS if callable(getattr(_core, n))}
    assert set(_stub_functions()) - {"_SupportsDLPack"} == public


@pytest.mark.parametrize("name", FUNCTIONS)
def test_stub_parameters_match_the_binding(name):
    stub = _stub_functions()[name]
    assert stub == _doc_signature(getattr(_core, name)), name


def _c_methods():
    """"Class.method" of every public method of the extension's types (ClipPlayer)."""
    return {f"{n}.{m}" for n in FUNCTIONS if isinstance(getattr(_core, n), type)
            for m in vars(getattr(_core, n)) if not m.startswith("_")}


def test_the_stub_names_every_method_of_the_extension():
    assert _c_methods() == set(_stub_methods()) != set()


@pytest.mark.parametrize("name", sorted(_c_methods()))
def test_stub_method_parameters_match_the_binding(name):
    cls, method = name.split(".")
    assert _stub_methods()[name] == _doc_signature(getattr(getattr(_core, cls), method)), name


def test_py_typed_and_stub_are_installed():
    pkg = Path(skinkit.__file__).parent
    assert (pkg / "py.typed").is_file(), pkg
    assert (pkg / "_core.pyi").is_file(), pkg
    assert (pkg / "_core.pyi").read_text() == STUB.read_text()


@pytest.mark.slow
def test_a_user_of_the_installed_package_is_type_checked(request, tmp_path, monkeypatch):
    """mypy run on user code outside the repository finds skinkit's types through py.typed:
    good calls pass and a wrong call into the extension is an error."""
    monkeypatch.chdir(tmp_path)
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent("""
        import numpy as np
        import skinkit
        from skinkit import _core

        model: skinkit.Model = skinkit.default_model()
        positions = model.pose(clip=0, times=np.linspace(0, 1, 5))
        q = _core.quat_normalize(np.ones((3, 4)), None)
        world = _core.forward_kinematics(np.array([-1, 0]), np.ones((2, 4)), np.zeros((2, 3)))
        pos, nrm = _core.linear_blend_skinning(np.zeros((2, 3)), np.zeros((2, 1), np.int32),
                                              np.ones((2, 1)), world, np.zeros((2, 3)))
        total: float = float(q.sum() + pos.sum() + nrm.sum())
        kind: str = _core.simd()
    """))
    out, status = run_mypy(request, "--no-incremental", "--strict", "--follow-imports=silent",
                           str(good))
    assert status == 0, out
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        import numpy as np
        from skinkit import _core

        q = _core.quat_rotate(np.ones((3, 4)))               # v is missing
        n: int = _core.slerp(np.ones(4), np.ones(4), 0.5, None)
    """))
    out, status = run_mypy(request, "--follow-imports=silent", str(bad))
    assert status == 1, out
    assert 'bad.py:5: error: Too few arguments for "quat_rotate"' in out, out
    assert "bad.py:6: error: Incompatible types in assignment" in out, out


def test_mypy_passes_where_matplotlib_is_absent(request, tmp_path, monkeypatch):
    """Issue 31: where the [plot] extra is not installed, mypy --strict reported 2 errors
    (apps/plot.py's matplotlib imports); matplotlib is treated as the other optional
    dependencies are.  The interpreter mypy asks for its search path sees every installed
    package but matplotlib."""
    import os
    import site
    import sys
    packages = tmp_path / "site-packages"
    packages.mkdir()
    for folder in site.getsitepackages():
        for entry in os.listdir(folder):
            if not entry.startswith(("matplotlib", "mpl_toolkits")) and \
                    not (packages / entry).exists():
                (packages / entry).symlink_to(os.path.join(folder, entry))
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\nPYTHONPATH={packages} exec {sys.executable} -S \"$@\"\n")
    python.chmod(0o755)
    monkeypatch.chdir(ROOT)
    out, status = run_mypy(request, "--config-file", str(ROOT / "pyproject.toml"),
                           "--python-executable", str(python), "python/skinkit/apps/plot.py")
    assert status == 0, out
