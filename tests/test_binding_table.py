"""A kernel's shapes are written once, in its descriptor (src/bind_table.c, exposed as
``skinkit._core._shapes``); the Python function's signature and docstring and the stub in
``_core.pyi`` are checked against it here, so they cannot drift apart."""
import ast
import inspect
import re
from pathlib import Path

import pytest

import skinkit as sk
from skinkit import _core
from skinkit.kernels.operands import SAME_AS

STUB = Path(__file__).resolve().parents[1] / "python" / "skinkit" / "_core.pyi"
# a name starting with _ is an internal step of a Python function with other arguments (DQS
# takes skinning matrices and turns them into joint records first; pose blending takes tuples):
# it has a stub, not a public function
KERNELS = sorted(n for n in _core._shapes if not n.startswith("_"))


def section(doc: str, title: str) -> str:
    """The body of a numpydoc section ("Parameters", "Returns") of a docstring."""
    m = re.search(rf"^ *{title}\n *-+\n(.*?)(?=^ *\w+\n *-+\n|\Z)", inspect.cleandoc(doc),
                  re.S | re.M)
    assert m, f"no {title} section"
    return m.group(1)


def test_every_kernel_has_a_python_function_and_a_stub():
    stubs = {n.name for n in ast.parse(STUB.read_text()).body if isinstance(n, ast.FunctionDef)}
    public = set(sk.kernels.__all__) | set(sk.kernels.gradients.__all__)    # kernels and their VJPs
    assert set(KERNELS) <= public and set(KERNELS) <= stubs


@pytest.mark.parametrize("name", KERNELS + sorted(SAME_AS))
def test_python_signature_follows_the_descriptor(name):
    """The generated wrappers, and the Python functions that take a descriptor's operands
    (skinkit.kernels.operands.SAME_AS: dual_quaternion_skinning, written by hand)."""
    inputs = [(n, role) for n, _, role in _core._shapes[SAME_AS.get(name, name)] if role != "out"]
    params = inspect.signature(getattr(sk, name)).parameters
    assert list(params) == [n for n, _ in inputs] + ["out", "threads"]
    for n, role in inputs:
        assert (params[n].default is None) == (role == "optional"), n


@pytest.mark.parametrize("name", KERNELS)
def test_docstring_shapes_are_the_descriptor_shapes(name):
    doc = getattr(sk, name).__doc__
    written = []       # in the docstring's order (tools/kernel_docs.py), which is the call's
    for names, shape in re.findall(r"^([\w, ]+) : (\([^)]*\))", section(doc, "Parameters"), re.M):
        written += [(n, shape) for n in names.split(", ")]
    returns = re.findall(r"^(?:\w+ : )?(\([^)]*\))", section(doc, "Returns"), re.M)
    shapes = _core._shapes[name]
    assert [(n, s) for n, s, role in shapes if role != "out"] == written
    assert [s for _, s, role in shapes if role == "out"] == returns


@pytest.mark.parametrize("name", sorted(_core._shapes))
def test_stub_parameters_follow_the_descriptor(name):
    stub = next(n for n in ast.parse(STUB.read_text()).body
                if isinstance(n, ast.FunctionDef) and n.name == name)
    params = [a.arg for a in stub.args.posonlyargs + stub.args.args]
    assert params == [n for n, _, role in _core._shapes[name] if role != "out"] + ["out", "threads"]


def test_generated_surface_is_fresh():
    """python/skinkit/kernels/_generated.py and the generated part of _core.pyi are what
    tools/generate_surface.py makes of the descriptors now (it exits 1 naming a stale file)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, str(root / "tools" / "generate_surface.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", ["quat_to_matrix", "quat_from_rotvec", "rigid_forward_kinematics",
                                  "forward_kinematics", "linear_blend_skinning"])
def test_torch_signature_follows_the_descriptor(name):
    """skinkit.torch's generated functions take the descriptor's inputs in its order (but an
    optional input that makes an extra output, the normals); their operators' schemas too."""
    from conftest import TORCH_HOW, optional_import

    torch = optional_import("torch", TORCH_HOW)
    import skinkit.torch as skt

    shapes = _core._shapes[name]
    extra = {n for n, _, role in shapes if role == "out"}
    inputs = [(n, role) for n, _, role in shapes
              if role == "in" or (role == "optional" and n not in extra)]
    params = inspect.signature(getattr(skt, name)).parameters
    assert list(params) == [n for n, _ in inputs]
    for n, role in inputs:
        assert (params[n].default is None) == (role == "optional"), n
    schema = getattr(torch.ops.skinkit, name).default._schema
    assert [a.name for a in schema.arguments] == [n for n, _ in inputs]
