"""The plain-torch kernels of skinkit.torch (skinkit.torch.generic: what CUDA and every device
but the CPU run) against the C kernels on the CPU (``use_torch_kernels`` switches the CPU to
them): every operator's values within 1e-6 (float32) / 1e-12 (float64) of the result's extent,
gradients by gradcheck and against the C VJPs, torch.compile, vmap, errors, the body operator
and ``BodyModel.to(device)``.  The tests marked ``cuda`` run the same comparisons on a CUDA
device and skip without one."""
import pytest

from conftest import TORCH_HOW, optional_import

torch = optional_import("torch", TORCH_HOW)

import helpers  # noqa: E402
import skinkit as sk  # noqa: E402
import skinkit.torch as skt  # noqa: E402
from test_torch_ops import OPS, PARENTS, _inputs, _pipeline  # noqa: E402

TOL = {torch.float32: 1e-6, torch.float64: 1e-12}
cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


def _outs(o):
    return o if isinstance(o, tuple) else (o,)


def _close(got, want, dtype):
    """Within TOL of the extent (the largest magnitude of the reference)."""
    for g, w in zip(_outs(got), _outs(want)):
        assert g.shape == w.shape and g.dtype == w.dtype and g.device == w.device
        extent = max(float(w.abs().max()), 1.0) if w.numel() else 1.0
        err = float((g.cpu() - w.cpu()).abs().max()) if w.numel() else 0.0
        assert err <= TOL[dtype] * extent, (err, extent)


def _on(args, device):
    return [a.to(device) if a is not None else None for a in args]


def _loss_grads(fn, args, seed):
    """The gradients of <out, c> (c random) with respect to the floating inputs."""
    leaves = [a.detach().clone().requires_grad_(a.is_floating_point()) for a in args]
    outs = _outs(fn(*leaves))
    rng = helpers.rng_for("generic-cot", seed)
    loss = sum((o * torch.tensor(rng.normal(size=o.shape), dtype=o.dtype, device=o.device)).sum()
               for o in outs)
    wrt = [a for a in leaves if a.requires_grad]
    return torch.autograd.grad(loss, wrt)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", OPS)
def test_values_and_gradients_equal_the_c_kernels(name, dtype):
    fn, keys = OPS[name]
    args = [_inputs(21, dtype)[k] for k in keys]
    want, want_g = fn(*args), _loss_grads(fn, args, name)
    with skt.use_torch_kernels():
        got, got_g = fn(*args), _loss_grads(fn, args, name)
    _close(got, want, dtype)
    # gradients: float64 to 1e-10 of the extent (autograd of plain torch against the C VJPs'
    # closed forms); float32 to 1e-4
    for g, w in zip(got_g, want_g):
        extent = max(float(w.abs().max()), 1.0)
        assert float((g - w).abs().max()) <= (1e-10 if dtype == torch.float64 else 1e-4) * extent


@pytest.mark.parametrize("name", OPS)
def test_gradcheck_float64_through_the_torch_kernels(name):
    """The registered backward on the torch kernels: the VJP operators' torch.func.vjp
    (fast mode: random projections of the Jacobian, seconds instead of minutes for DQS)."""
    fn, keys = OPS[name]
    inputs = _inputs(22)
    args = [inputs[k].clone().requires_grad_(inputs[k].is_floating_point()) for k in keys]
    with skt.use_torch_kernels():
        assert torch.autograd.gradcheck(fn, args, fast_mode=True)


def test_compile_fullgraph_and_vmap_through_the_torch_kernels():
    x = _inputs(23)
    args = [x["rotvec"], x["trans"], x["scales"], x["weights"], x["coeffs"][0], x["base"],
            x["deltas"]]
    want = _pipeline(*args)
    with skt.use_torch_kernels():
        got = torch.compile(_pipeline, fullgraph=True, backend="aot_eager")(*args)
        fn, keys = OPS["forward_kinematics"]
        x2 = _inputs(24, batch=(3, 2))
        batched = torch.func.vmap(fn, in_dims=(0, 0, None))(*(x2[k] for k in keys))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    loop = torch.stack([fn(x2["q"][i], x2["trans"][i], x2["scales"]) for i in range(3)])
    torch.testing.assert_close(batched, loop, rtol=1e-12, atol=1e-12)


def test_torch_kernels_raise_as_the_c_kernels():
    x = _inputs(25)
    bad_joints = x["joints"].clone()
    bad_joints[4, 1] = J_OUT = 99
    with skt.use_torch_kernels():
        with pytest.raises(ValueError, match=r"weights must have shape \(V, K\)"):
            skt.linear_blend_skinning(x["vertices"], x["joints"], x["weights"][:, :2], x["mats"])
        with pytest.raises(ValueError, match=rf"joints\[4, 1\] = {J_OUT}"):
            skt.linear_blend_skinning(x["vertices"], bad_joints, x["weights"], x["mats"])
        with pytest.raises(ValueError, match="cycle"):
            skt.forward_kinematics(torch.tensor([1, 2, 0]), x["q"][:, :3], x["trans"][:, :3])
        with pytest.raises(ValueError, match="do not broadcast"):
            skt.forward_kinematics(PARENTS, x["q"], torch.zeros(3, 8, 3, dtype=torch.float64))
    # the C kernels refuse the same calls (their own messages)
    with pytest.raises(ValueError):
        skt.linear_blend_skinning(x["vertices"], bad_joints, x["weights"], x["mats"])
    with pytest.raises(ValueError):
        skt.forward_kinematics(torch.tensor([1, 2, 0]), x["q"][:, :3], x["trans"][:, :3])


@pytest.mark.parametrize("kind", ["SMPL", "SMPL-X"])
def test_body_forward_and_gradients_equal_the_c_path(kind):
    m = sk.synthetic_body_model(kind, num_vertices=300)
    rng = helpers.rng_for("generic-body", kind)
    t = lambda *s: torch.tensor(rng.normal(size=s) * 0.3, dtype=torch.float64)  # noqa: E731
    args = dict(betas=t(2, 5), pose=t(2, m.num_joints, 3), transl=t(2, 3),
                expression=t(2, 4) if m.num_expression else None)

    def run():
        leaves = {k: a.clone().requires_grad_() for k, a in args.items() if a is not None}
        v, j = skt.body_forward(m, **leaves)
        grads = torch.autograd.grad((v ** 2).sum() + (j ** 3).sum(), list(leaves.values()))
        return (v, j), grads

    want, want_g = run()
    with skt.use_torch_kernels():
        got, got_g = run()
    _close(tuple(o.detach() for o in got), tuple(o.detach() for o in want), torch.float64)
    for g, w in zip(got_g, want_g):
        assert float((g - w).abs().max()) <= 1e-10 * max(float(w.abs().max()), 1.0)


def test_body_model_moves_with_to_meta_and_back():
    """``.to("meta")`` moves every buffer and leaves a working module (it raised a NumPy
    TypeError half-way before); back on the CPU with real values it computes again."""
    arrays = sk.synthetic_body_arrays("SMPL", num_vertices=200)
    body = skt.BodyModel(arrays)
    want = body(body_pose=torch.full((1, 69), 0.1)).vertices
    body.to("meta")
    assert all(b.device.type == "meta" for b in body.buffers())
    out = body(body_pose=torch.full((1, 69), 0.1, device="meta"))
    assert out.vertices.device.type == "meta" and out.vertices.shape == want.shape
    body.to_empty(device="cpu")
    body.load_state_dict(skt.BodyModel(arrays).state_dict())
    torch.testing.assert_close(body(body_pose=torch.full((1, 69), 0.1)).vertices, want)


@pytest.mark.cuda
@cuda
@pytest.mark.parametrize("name", OPS)
def test_cuda_values_and_gradients_equal_the_c_kernels(name):
    fn, keys = OPS[name]
    for dtype in (torch.float32, torch.float64):
        args = [_inputs(26, dtype)[k] for k in keys]
        want, want_g = fn(*args), _loss_grads(fn, args, name)
        dev = _on(args, "cuda")
        got, got_g = fn(*dev), _loss_grads(fn, dev, name)
        _close(tuple(o.cpu() for o in _outs(got)), want, dtype)
        for g, w in zip(got_g, want_g):
            tol = 1e-10 if dtype == torch.float64 else 1e-4
            assert float((g.cpu() - w).abs().max()) <= tol * max(float(w.abs().max()), 1.0)


@pytest.mark.cuda
@cuda
def test_cuda_body_model_trains_on_the_device():
    body = skt.BodyModel(sk.synthetic_body_arrays("SMPL-X", num_vertices=500),
                         dtype=torch.float64)
    pose = torch.full((2, 63), 0.1, dtype=torch.float64)
    want = body(body_pose=pose).vertices
    body.to("cuda")
    p = pose.cuda().requires_grad_()
    out = body(body_pose=p)
    out.vertices.square().sum().backward()
    assert p.grad is not None and p.grad.device.type == "cuda"
    _close(out.vertices.detach().cpu(), want, torch.float64)
    compiled = torch.compile(body, fullgraph=True)
    _close(compiled(body_pose=pose.cuda()).vertices.cpu(), want, torch.float64)


def test_torch_kernels_take_joint_indices_of_any_integer_dtype():
    """uint8 indices (skinkit's body models store them so) compare as integers, -1 unused."""
    x = _inputs(27)
    j8 = x["joints"].clamp_min(0).to(torch.uint8)
    want = skt.linear_blend_skinning(x["vertices"], j8, x["weights"], x["mats"])
    with skt.use_torch_kernels():
        got = skt.linear_blend_skinning(x["vertices"], j8, x["weights"], x["mats"])
    _close(got, want, torch.float64)
