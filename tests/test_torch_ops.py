"""skinkit.torch's operators (torch.library custom ops): gradcheck in float64 of every floating
input of each, torch.compile(fullgraph=True) against eager, torch.func.vmap (of the operators
and of their backward) against a loop, the
autograd contract (in-place edits of saved inputs raise, outputs in the inputs' dtype, no backward
kernel for an input that needs no gradient) and the meta device."""
import numpy as np
import pytest

from conftest import TORCH_HOW, optional_import

torch = optional_import("torch", TORCH_HOW)

import helpers  # noqa: E402
import skinkit as sk  # noqa: E402
import skinkit.torch as skt  # noqa: E402
from skinkit.kernels import dqs_vjp  # noqa: E402
from skinkit.kernels import gradients  # noqa: E402

PARENTS = torch.tensor([2, -1, 1, 2, 3, 1, -1, 6])    # two roots, listed out of order
J, V, K = 8, 9, 3


def _posed(rng, shape, scale):
    """Skinning matrices whose rotations turn at most 1.4 rad from the identity (so that any two
    are less than pi apart: every quaternion of DQS in the pivot's hemisphere, 0.17 away from
    the flip), times positive scales in ``scale`` (1 for rigid; distinct, so that the nearest
    rotation is unique)."""
    axis = rng.normal(size=shape + (3,))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    m = np.zeros(shape + (4, 4))
    m[..., :3, :3] = sk.quat_to_matrix(sk.quat_from_rotvec(axis * rng.uniform(
        0, 1.4, size=shape + (1,)))) * rng.uniform(*scale, size=shape + (1, 3))
    m[..., :3, 3] = rng.normal(size=shape + (3,))
    m[..., 3, 3] = 1
    return m


def _inputs(seed, dtype=torch.float64, batch=(2,)):
    """Random inputs of every operator (quaternions near unit, matrices affine)."""
    rng = helpers.rng_for("torch-ops", seed)
    t = lambda a: torch.tensor(a, dtype=dtype)  # noqa: E731
    joints = rng.integers(-1, J, size=(V, K))
    joints[:, 0] = rng.integers(0, J, size=V)
    return dict(rigid=t(_posed(rng, batch + (J,), (1, 1))),
                scaled=t(_posed(rng, batch + (J,), (0.5, 2))),
        q=t(helpers.random_quats(rng, batch + (J,))), rotvec=t(rng.normal(size=batch + (J, 3))),
        rest=t(rng.normal(size=(J, 3))), trans=t(rng.normal(size=batch + (J, 3))),
        scales=t(rng.uniform(0.5, 1.5, size=(J, 3))), vertices=t(rng.normal(size=(V, 3))),
        joints=torch.tensor(joints, dtype=torch.int32), weights=t(rng.uniform(size=(V, K))),
        mats=t(helpers.random_affine(rng, batch + (J,))), base=t(rng.normal(size=(V, 3))),
        deltas=t(rng.normal(size=(4, V, 3))), coeffs=t(rng.normal(size=batch + (4,))))


# name -> (function of the floating inputs, their keys in _inputs)
OPS = {
    "quat_to_matrix": (skt.quat_to_matrix, ["q"]),
    "quat_from_rotvec": (skt.quat_from_rotvec, ["rotvec"]),
    "rigid_forward_kinematics": (lambda x, q: skt.rigid_forward_kinematics(PARENTS, x, q),
                                 ["rest", "q"]),
    "forward_kinematics": (lambda q, t, s: skt.forward_kinematics(PARENTS, q, t, s),
                           ["q", "trans", "scales"]),
    "linear_blend_skinning": (lambda v, j, w, m: skt.linear_blend_skinning(v, j, w, m),
                              ["vertices", "joints", "weights", "mats"]),
    "dual_quaternion_skinning": (skt.dual_quaternion_skinning,
                                 ["vertices", "joints", "weights", "rigid"]),
    "dual_quaternion_skinning_scaled": (skt.dual_quaternion_skinning,
                                        ["vertices", "joints", "weights", "scaled"]),
    "blend_shapes": (skt.blend_shapes, ["base", "deltas", "coeffs"]),
}


def _call(name, inputs, grad=()):
    fn, keys = OPS[name]
    args = [inputs[k].clone().requires_grad_(k in grad) for k in keys]
    return fn, args


@pytest.mark.parametrize("name", OPS)
def test_gradcheck_float64_every_floating_input(name):
    inputs = _inputs(1)
    fn, keys = OPS[name]
    floating = [k for k in keys if inputs[k].is_floating_point()]
    fn, args = _call(name, inputs, floating)
    assert torch.autograd.gradcheck(fn, args)


def test_forward_equals_the_numpy_kernels():
    x = _inputs(2)
    np_ = lambda k: x[k].numpy()  # noqa: E731
    pairs = [(skt.quat_to_matrix(x["q"]), sk.quat_to_matrix(np_("q"))),
             (skt.forward_kinematics(PARENTS, x["q"], x["trans"], x["scales"]),
              sk.forward_kinematics(PARENTS.numpy(), np_("q"), np_("trans"), np_("scales"))),
             (skt.linear_blend_skinning(x["vertices"], x["joints"], x["weights"], x["mats"]),
              sk.linear_blend_skinning(np_("vertices"), np_("joints"), np_("weights"),
                                       np_("mats"))),
             (skt.dual_quaternion_skinning(x["vertices"], x["joints"], x["weights"], x["mats"]),
              sk.dual_quaternion_skinning(np_("vertices"), np_("joints"), np_("weights"),
                                          np_("mats"))),
             (skt.blend_shapes(x["base"], x["deltas"], x["coeffs"]),
              sk.blend_shapes(np_("base"), np_("deltas"), np_("coeffs")))]
    for got, want in pairs:
        np.testing.assert_array_equal(got.numpy(), want)


def _pipeline(rotvec, trans, scales, weights, coeffs, base, deltas):
    """A function calling every operator: a character posed from its local rotations."""
    q = skt.quat_from_rotvec(rotvec)
    world = skt.forward_kinematics(PARENTS, q, trans, scales)
    rest = skt.blend_shapes(base, deltas, coeffs)
    Q, t = skt.rigid_forward_kinematics(PARENTS, trans[0], q)
    lbs = skt.linear_blend_skinning(rest, JOINTS, weights, world)
    dqs = skt.dual_quaternion_skinning(rest, JOINTS, weights, world)
    return lbs.square().sum() + dqs.sum() + skt.quat_to_matrix(Q).sum() + t.sum()


JOINTS = torch.tensor(np.arange(V * K).reshape(V, K) % J, dtype=torch.int64)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_fullgraph_matches_eager_with_gradients(backend):
    """aot_eager traces forward and backward through the fake implementations; inductor (the
    default backend) also generates code around the operators."""
    x = _inputs(3)
    args = [x[k] for k in ("rotvec", "trans", "scales", "weights", "coeffs")]
    args = [args[0], args[1], args[2], args[3], args[4][0], x["base"], x["deltas"]]
    eager = [a.clone().requires_grad_() for a in args]
    comp = [a.clone().requires_grad_() for a in args]
    compiled = torch.compile(_pipeline, fullgraph=True, backend=backend)
    want = _pipeline(*eager)
    # no FX graph cache: a graph cached by an earlier build of these operators would be reused
    with torch._inductor.config.patch(fx_graph_cache=False):
        got = compiled(*comp)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=0)
    want.backward()
    with torch._inductor.config.patch(fx_graph_cache=False):
        got.backward()
    for a, b in zip(comp, eager):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", OPS)
def test_vmap_over_a_leading_dimension_equals_a_loop(name):
    x = _inputs(4, batch=(3, 2))          # vmap over the 3, the kernels' batch is the 2
    fn, keys = OPS[name]
    args = [x[k] for k in keys]
    dims = [0 if a.is_floating_point() and a.ndim > x_core(k) + 1 else None
            for a, k in zip(args, keys)]
    got = torch.func.vmap(fn, in_dims=tuple(dims))(*args)
    loop = [fn(*(a[i] if d == 0 else a for a, d in zip(args, dims))) for i in range(3)]
    got = got if isinstance(got, tuple) else (got,)
    loop = [o if isinstance(o, tuple) else (o,) for o in loop]
    for k, g in enumerate(got):
        torch.testing.assert_close(g, torch.stack([o[k] for o in loop]), rtol=0, atol=0)


@pytest.mark.parametrize("name", OPS)
def test_func_grad_and_vmap_of_it_equal_autograd(name, no_vmap_fallback):
    """torch.func.grad of a loss through each operator, and torch.func.vmap of that over a
    leading dimension (through the operators' vmap rules: the fallback is off), equal the
    gradients of a plain backward, item by item."""
    x = _inputs(8, batch=(3, 2))
    fn, keys = OPS[name]
    args = [x[k] for k in keys]
    dims = tuple(0 if a.is_floating_point() and a.ndim > x_core(k) + 1 else None
                 for a, k in zip(args, keys))
    wrt = tuple(i for i, a in enumerate(args) if a.is_floating_point())

    def loss(*a):
        out = fn(*a)
        return sum((o * o).sum() for o in (out if isinstance(out, tuple) else (out,)))

    got = torch.func.vmap(torch.func.grad(loss, argnums=wrt), in_dims=dims)(*args)
    for i in range(3):
        item = [a[i] if d == 0 else a for a, d in zip(args, dims)]
        one = torch.func.grad(loss, argnums=wrt)(*item)
        leaves = [a.clone().requires_grad_(k in wrt) for k, a in enumerate(item)]
        loss(*leaves).backward()
        for g, h, k in zip(got, one, wrt):
            torch.testing.assert_close(h, leaves[k].grad, rtol=1e-12, atol=1e-12)
            torch.testing.assert_close(g[i], h, rtol=1e-12, atol=1e-12)


def x_core(key):
    """Core dimensions of each input in _inputs (the batched ones have 2 dimensions more)."""
    return {"q": 2, "rotvec": 2, "trans": 2, "mats": 3, "rigid": 3, "scaled": 3,
            "coeffs": 1}.get(key, 99)


def test_vmap_of_an_input_without_batch_dimension_loops():
    x = _inputs(5)
    w = torch.stack([x["weights"], 2 * x["weights"]])
    got = torch.func.vmap(lambda w: skt.linear_blend_skinning(x["vertices"], x["joints"], w,
                                                              x["mats"]))(w)
    for i in range(2):
        torch.testing.assert_close(got[i], skt.linear_blend_skinning(
            x["vertices"], x["joints"], w[i], x["mats"]))


@pytest.mark.parametrize("name, scales",
                         [(n, True) for n in OPS] + [("forward_kinematics", False)])
def test_batched_backward_equals_a_loop(name, scales, no_vmap_fallback):
    """torch.func.vmap of autograd.grad over a leading dimension of the cotangents: the VJP
    operators' vmap rules run it (the per-item fallback is off), equal to one backward per
    cotangent; inputs broadcast in the forward get summed cotangents as in a plain backward."""
    x = _inputs(7)
    if not scales:
        x["scales"] = None
    fn, keys = OPS[name]
    args = [x[k].clone().requires_grad_(x[k].is_floating_point()) if x[k] is not None else None
            for k in keys]
    wrt = [a for a in args if a is not None and a.requires_grad]
    out = fn(*args)
    outs = out if isinstance(out, tuple) else (out,)
    rng = helpers.rng_for("batched-backward", name, scales)
    gs = [torch.tensor(rng.normal(size=(3,) + o.shape), dtype=o.dtype) for o in outs]
    got = torch.func.vmap(lambda *g: torch.autograd.grad(outs, wrt, g, retain_graph=True))(*gs)
    for i in range(3):
        want = torch.autograd.grad(outs, wrt, [g[i] for g in gs], retain_graph=True)
        for a, b in zip(got, want):
            torch.testing.assert_close(a[i], b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["quat_to_matrix", "linear_blend_skinning", "forward_kinematics"])
def test_a_saved_input_edited_in_place_raises_at_backward(name):
    fn, keys = OPS[name]
    x = _inputs(6)
    args = [x[k].clone().requires_grad_(x[k].is_floating_point()) for k in keys]
    leaf = [a.clone() if a.is_floating_point() else a for a in args]   # non-leaf: editable
    out = fn(*leaf)
    out = out[0] if isinstance(out, tuple) else out
    with torch.no_grad():
        next(a for a in leaf if a.is_floating_point()).add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("name", OPS)
def test_results_and_gradients_in_the_inputs_dtype(name):
    fn, keys = OPS[name]
    for dtype in (torch.float32, torch.float64):
        x = _inputs(7, dtype)
        args = [x[k].requires_grad_() if x[k].is_floating_point() else x[k] for k in keys]
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        assert all(o.dtype == dtype for o in outs)
        sum(o.sum() for o in outs).backward()
        assert all(a.grad.dtype == dtype and a.grad.shape == a.shape
                   for a in args if a.is_floating_point())


def test_mixed_dtypes_compute_in_float64():
    x = _inputs(8)
    out = skt.linear_blend_skinning(x["vertices"].float(), x["joints"], x["weights"], x["mats"])
    assert out.dtype == torch.float64


def test_inputs_without_requires_grad_cost_no_backward_kernel(monkeypatch):
    calls = []
    for name in ("linear_blend_skinning_vjp", "linear_blend_skinning_weights_vjp"):
        real = getattr(gradients, name)
        monkeypatch.setattr(gradients, name,
                            lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    x = _inputs(9)
    m = x["mats"].requires_grad_()
    skt.linear_blend_skinning(x["vertices"], x["joints"], x["weights"], m).sum().backward()
    assert calls == ["linear_blend_skinning_vjp"]
    calls.clear()
    w = x["weights"].requires_grad_()
    skt.linear_blend_skinning(x["vertices"], x["joints"], w, x["mats"].detach()).sum().backward()
    assert calls == ["linear_blend_skinning_weights_vjp"]


def test_dqs_inputs_without_requires_grad_cost_no_backward_kernel(monkeypatch):
    """DQS: one pass over the vertices gives the cotangents of vertices, weights and joint
    records; the records' kernel runs only for the matrices."""
    calls = []
    for name in ("blend_vjp", "records_vjp"):
        real = getattr(dqs_vjp, name)
        monkeypatch.setattr(dqs_vjp, name, lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    x = _inputs(9)
    for grad, want in (("weights", ["blend_vjp"]), ("vertices", ["blend_vjp"]),
                       ("scaled", ["blend_vjp", "records_vjp"])):
        args = [x[k].clone().requires_grad_(k == grad) for k in ("vertices", "weights", "scaled")]
        skt.dual_quaternion_skinning(args[0], x["joints"], args[1], args[2]).sum().backward()
        assert calls == want, grad
        calls.clear()


def test_a_tensor_on_the_meta_device_gives_shapes():
    """Every device runs the operators (issue 33): on ``meta``, the fake implementations."""
    x = {k: t.to("meta") for k, t in _inputs(10).items()}
    out = skt.linear_blend_skinning(x["vertices"], x["joints"], x["weights"], x["mats"])
    assert out.device.type == "meta" and out.shape == (2, V, 3)
    assert skt.quat_to_matrix(x["q"]).shape == (2, J, 3, 3)


def test_fake_shapes_equal_the_real_ones():
    """The fake implementations (torch.compile's shapes) against the results, broadcast inputs."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    x = _inputs(11, batch=(3, 1))
    x["mats"] = x["mats"][:, :1].expand(3, 2, J, 4, 4)
    for name, (fn, keys) in OPS.items():
        args = [x[k] for k in keys]
        real = fn(*args)
        with FakeTensorMode(allow_non_fake_inputs=True) as mode:   # PARENTS, JOINTS: real
            fake = fn(*(mode.from_tensor(a) for a in args))
        for r, f in zip(*(o if isinstance(o, tuple) else (o,) for o in (real, fake))):
            assert (f.shape, f.dtype) == (r.shape, r.dtype), name
