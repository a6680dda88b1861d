"""skinkit.kernels.gradients.forward_kinematics_vjp (the VJP of FK with scale, src/fk_vjp.c) against
central finite differences of skinkit.forward_kinematics and against torch autograd of a plain
torch transcription of ``M_i = M_p T(t_i) R(q_i) S(s_i)``; its batch, dtype and thread rules and
its errors."""
import numpy as np
import pytest
from conftest import TORCH_HOW, optional_import

import helpers
import skinkit as sk
from skinkit.kernels.gradients import forward_kinematics_vjp

TREE = np.array([2, -1, 1, 2, 3, 1, -1, 6], dtype=np.int32)   # two roots, listed out of order
J = len(TREE)


def _problem(rng, batch=(3,), dtype=np.float64):
    """Quaternions not unit (the polynomial as given), scales away from 1, a cotangent."""
    q = rng.normal(size=batch + (J, 4)).astype(dtype)
    t = rng.normal(size=batch + (J, 3)).astype(dtype)
    s = rng.uniform(0.5, 2.0, size=batch + (J, 3)).astype(dtype)
    g = rng.normal(size=batch + (J, 4, 4)).astype(dtype)
    return q, t, s, g


@pytest.mark.parametrize("with_scales", [True, False])
def test_matches_central_finite_differences(with_scales):
    """<g, f(x + h d) - f(x - h d)> / 2h = <vjp(g)_x, d> for random directions d of each input
    (float64, f = skinkit.forward_kinematics)."""
    rng = helpers.rng_for("fk-vjp-fd", with_scales)
    q, t, s, g = _problem(rng, batch=(2,))
    inputs = [q, t, s] if with_scales else [q, t]

    def fwd(args):
        return sk.forward_kinematics(TREE, *args, *([] if with_scales else [None]))

    grads = forward_kinematics_vjp(TREE, q, t, s if with_scales else None, fwd(inputs), g)
    assert (grads[2] is None) == (not with_scales)
    h = 1e-6
    for i, x in enumerate(inputs):
        for _ in range(3):
            d = rng.normal(size=x.shape)
            plus = [y + h * d if k == i else y for k, y in enumerate(inputs)]
            minus = [y - h * d if k == i else y for k, y in enumerate(inputs)]
            fd = np.sum(g * (fwd(plus) - fwd(minus))) / (2 * h)
            assert abs(fd - np.sum(grads[i] * d)) < 1e-6 * max(1.0, abs(fd))


def _torch_fk(torch, parents, q, t, s):
    """M_i = M_p T(t_i) R(q_i) S(s_i) in torch, R = I + 2w[u]x + 2[u]x^2 (q as given), joints
    visited parents first."""
    x, y, z, w = q.unbind(-1)
    zero = torch.zeros_like(x)
    K = torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], -1).reshape(q.shape[:-1] + (3, 3))
    R = torch.eye(3, dtype=q.dtype) + 2 * w[..., None, None] * K + 2 * K @ K
    L = torch.zeros(q.shape[:-1] + (4, 4), dtype=q.dtype)
    L[..., :3, :3] = R * s[..., None, :]
    L[..., :3, 3] = t
    L[..., 3, 3] = 1
    world = [None] * len(parents)
    while any(m is None for m in world):
        for j, p in enumerate(parents):
            if world[j] is None and (p < 0 or world[p] is not None):
                world[j] = L[..., j, :, :] if p < 0 else world[p] @ L[..., j, :, :]
    return torch.stack(world, -3)


def test_equals_torch_autograd_with_shared_inputs():
    """Against autograd of the torch transcription, with translations and scales shared by the
    batch (broadcast): their per-item cotangents sum to autograd's gradient."""
    torch = optional_import("torch", TORCH_HOW)
    rng = helpers.rng_for("fk-vjp-torch")
    q, t, s, g = _problem(rng, batch=(4,))
    t, s = t[0], s[0]
    tq, tt, ts = (torch.tensor(a, requires_grad=True) for a in (q, t, s))
    (_torch_fk(torch, TREE, tq, tt, ts) * torch.tensor(g)).sum().backward()
    world = sk.forward_kinematics(TREE, q, t, s)
    gq, gt, gs = forward_kinematics_vjp(TREE, q, t, s, world, g)
    assert gq.shape == q.shape and gt.shape == gs.shape == (4, J, 3)
    np.testing.assert_allclose(gq, tq.grad.numpy(), rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(gt.sum(0), tt.grad.numpy(), rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(gs.sum(0), ts.grad.numpy(), rtol=1e-11, atol=1e-11)


def test_no_scales_is_unit_scales():
    """scales=None gives g_scales None and, bit for bit, the cotangents of scales of ones."""
    q, t, _, g = _problem(helpers.rng_for("fk-vjp-ones"))
    world = sk.forward_kinematics(TREE, q, t)
    gq, gt, gs = forward_kinematics_vjp(TREE, q, t, None, world, g)
    assert gs is None
    ones = forward_kinematics_vjp(TREE, q, t, np.ones_like(t), world, g)
    np.testing.assert_array_equal(gq, ones[0])
    np.testing.assert_array_equal(gt, ones[1])


def test_threads_give_the_same_bits():
    """Enough poses for two threads (each with its own workspace): the same bits as one."""
    q, t, s, g = _problem(helpers.rng_for("fk-vjp-threads"), batch=(6000,))
    world = sk.forward_kinematics(TREE, q, t, s)
    one = forward_kinematics_vjp(TREE, q, t, s, world, g, threads=1)
    two = forward_kinematics_vjp(TREE, q, t, s, world, g, threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_float32_agrees_with_float64_and_dtype_rule():
    """float32 everywhere gives float32 results near the float64 ones; one float64 input makes
    the results float64."""
    q, t, s, g = _problem(helpers.rng_for("fk-vjp-f32"), batch=(5,), dtype=np.float32)
    world = sk.forward_kinematics(TREE, q, t, s)
    got = forward_kinematics_vjp(TREE, q, t, s, world, g)
    want = forward_kinematics_vjp(TREE, *(a.astype(np.float64) for a in (q, t, s, world, g)))
    for a, b in zip(got, want):
        assert a.dtype == np.float32 and b.dtype == np.float64
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-4 * np.abs(b).max())
    mixed = forward_kinematics_vjp(TREE, q, t, s, world, g.astype(np.float64))
    assert all(a.dtype == np.float64 for a in mixed)


def test_batch_shapes_broadcast():
    """Inputs of batch shapes (2, 1), (3,) and () give results of batch shape (2, 3), each item
    the VJP of its own pose."""
    rng = helpers.rng_for("fk-vjp-bcast")
    q, t, s, g = _problem(rng, batch=(2, 3))
    q, t, s = q[:, :1], t[0], s[0, 0]
    world = sk.forward_kinematics(TREE, q, t, s)
    gq, gt, gs = forward_kinematics_vjp(TREE, q, t, s, world, g)
    assert gq.shape == (2, 3, J, 4) and gt.shape == gs.shape == (2, 3, J, 3)
    item = forward_kinematics_vjp(TREE, q[1, 0], t[2], s, world[1, 2], g[1, 2])
    for a, b in zip((gq, gt, gs), item):
        np.testing.assert_array_equal(a[1, 2], b)


@pytest.mark.parametrize("change, message", [
    (dict(g=np.zeros((2, J, 4, 3))),
     r"g must have shape \(\.\.\., J=8, 4, 4\), got \(2, 8, 4, 3\)"),
    (dict(world=np.zeros((2, J - 1, 4, 4))), r"world must have shape \(\.\.\., J=8, 4, 4\)"),
    (dict(scales=np.ones((2, J, 2))), r"scales must have shape \(\.\.\., J=8, 3\)"),
    (dict(translations=np.zeros((5, J, 3))), r"batch shape \(5,\) of translations"),
    (dict(parents=np.array([1, 2, 0, -1, -1, -1, -1, -1])), r"cycle"),
    (dict(parents=np.array([-1, 9, 0, 0, 0, 0, 0, 0])), r"parents"),
])
def test_bad_input_names_the_argument(change, message):
    q, t, s, g = _problem(helpers.rng_for("fk-vjp-bad"), batch=(2,))
    args = dict(parents=TREE, rotations=q, translations=t, scales=s,
                world=sk.forward_kinematics(TREE, q, t, s), g=g)
    args.update(change)
    with pytest.raises(ValueError, match=message):
        forward_kinematics_vjp(**args)


def test_non_float_input_is_a_type_error():
    q, t, s, g = _problem(helpers.rng_for("fk-vjp-type"))
    world = sk.forward_kinematics(TREE, q, t, s)
    with pytest.raises(TypeError, match="g must be a float32 or float64 array"):
        forward_kinematics_vjp(TREE, q, t, s, world, g.astype(np.complex128))
