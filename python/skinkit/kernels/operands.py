"""The kernels' operands as their one description says: the descriptor table of src/bind_table.c,
which the extension exposes as ``skinkit._core._shapes`` (name -> ((operand, shape, role), ...)),
with each gufunc-style shape parsed.  For code that builds calls from the table instead of
restating each kernel's arguments: the contract tests (tests/test_api_contract.py) and the
kernel fuzzer (fuzz/fuzz_kernels.py).
"""
from __future__ import annotations

from typing import Mapping, NamedTuple, Optional, Tuple, Union

from .. import _core

SAME_AS = {"dual_quaternion_skinning": "linear_blend_skinning"}
"""Public functions written in Python over several descriptors, and the descriptor whose
operands they take: dual quaternion skinning takes the skinning matrices (as
``skinkit.kernels.skinning.SkinningKernel`` says) and makes them the joint records of its descriptor
``_dual_quaternion_skinning``."""


class Operand(NamedTuple):
    name: str
    role: str                        # "in", "optional" (an input that may be None) or "out"
    batched: bool                    # takes the broadcast leading dimensions "..."
    core: Tuple[Union[int, str], ...]   # sizes, or symbols ("J") bound by the first operand
    if_given: Optional[str] = None   # an output: the optional input it exists only with

    def shape(self, sizes: Mapping[str, int], batch: Tuple[int, ...] = ()) -> Tuple[int, ...]:
        """The operand's shape for symbol ``sizes`` (and ``batch``, when it takes one)."""
        core = tuple(sizes[d] if isinstance(d, str) else d for d in self.core)
        return (tuple(batch) if self.batched else ()) + core


def operands(name: str) -> Tuple[Operand, ...]:
    """The operands of the public function or kernel ``name``: inputs in the call's order,
    then outputs.  An output ``x`` or ``g_x`` of a kernel with an optional input ``x`` (the
    normals of skinning) exists only when that input is given, as tools/generate_surface.py
    types it."""
    ops = _core._shapes[SAME_AS.get(name, name)]
    optional = {n for n, _, role in ops if role == "optional"}
    parsed = []
    for n, shape, role in ops:
        dims = [d.strip() for d in shape.strip("()").split(",") if d.strip()]
        batched = dims[:1] == ["..."]
        core = tuple(int(d) if d.isdigit() else d for d in dims[batched:])
        stem = n[2:] if n.startswith("g_") else n
        parsed.append(Operand(n, role, batched, core,
                              stem if role == "out" and stem in optional else None))
    return tuple(parsed)
