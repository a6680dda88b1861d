"""Vector-Jacobian products: the C kernels against their NumPy twins (tests/reference.py), the
twins against central finite differences of the forward kernels, the kernels against torch
autograd, and BodyModel.forward_vjp against torch autograd through the exact transcription of
smplx.lbs (float64, 1e-8 relative) and against finite differences."""
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import TORCH_HOW, optional_import

torch = optional_import("torch", TORCH_HOW)  # before body_torch, which needs it

import helpers
import reference as ref
import skinkit as sk
from body_models import make_arrays, random_params
from body_torch import body_forward

TREE = np.array([2, -1, 1, 2, 3, 1, -1, 6], dtype=np.int32)   # two roots, listed out of order


def _problem(kernel, rng, batch=(3,)):
    """name -> (forward inputs, the forward as a function of the float inputs, VJP call)."""
    J, V, K = len(TREE), 9, 3
    if kernel == "quat_to_matrix":
        q = rng.normal(size=batch + (5, 4))              # not unit: the polynomial as given
        return [q], sk.quat_to_matrix, sk.quat_to_matrix_vjp, ref.quat_to_matrix_vjp
    if kernel == "quat_from_rotvec":
        r = rng.normal(size=batch + (6, 3))
        r[..., 0, :] *= 1e-5                               # the series branch
        r[..., 1, :] *= 0.25
        return [r], sk.quat_from_rotvec, sk.quat_from_rotvec_vjp, \
            ref.quat_from_rotvec_vjp
    if kernel == "rigid_forward_kinematics":
        x, q = rng.normal(size=batch + (J, 3)), helpers.random_quats(rng, batch + (J,))
        fwd = lambda x, q: sk.rigid_forward_kinematics(TREE, x, q)  # noqa: E731
        vjp = lambda x, q, g: sk.rigid_forward_kinematics_vjp(TREE, x, q, *g)  # noqa: E731
        rvjp = lambda x, q, g: ref.rigid_forward_kinematics_vjp(TREE, x, q, *g)  # noqa: E731
        return [x, q], fwd, vjp, rvjp
    joints = rng.integers(-1, J, size=(V, K)).astype(np.int32)
    w = rng.uniform(size=(V, K))
    v, m = rng.normal(size=batch + (V, 3)), helpers.random_affine(rng, batch + (J,))
    fwd = lambda v, m: sk.linear_blend_skinning(v, joints, w, m)  # noqa: E731
    vjp = lambda v, m, g: sk.linear_blend_skinning_vjp(v, joints, w, m, g)  # noqa: E731
    rvjp = lambda v, m, g: ref.linear_blend_skinning_vjp(v, joints, w, m, g)  # noqa: E731
    return [v, m], fwd, vjp, rvjp


KERNELS = ["quat_to_matrix", "quat_from_rotvec", "rigid_forward_kinematics",
           "linear_blend_skinning"]


def _outs(x):
    return list(x) if isinstance(x, tuple) else [x]


def _cotangents(rng, outs):
    return [rng.normal(size=o.shape) for o in outs]


def _call_vjp(vjp, inputs, g):
    return _outs(vjp(*inputs, g if len(g) > 1 else g[0]))


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_vjp_matches_reference(kernel):
    rng = helpers.rng_for("vjp-ref", kernel)
    inputs, fwd, vjp, rvjp = _problem(kernel, rng)
    g = _cotangents(rng, _outs(fwd(*inputs)))
    got, want = _call_vjp(vjp, inputs, g), _call_vjp(rvjp, inputs, g)
    assert len(got) == len(want) == len(inputs)
    for a, b, x in zip(got, want, inputs):
        assert a.shape == x.shape and a.dtype == np.float64
        helpers.assert_close(a, b, scale=10)


@pytest.mark.parametrize("kernel", KERNELS)
def test_reference_vjp_matches_finite_differences(kernel):
    """<g, f(x + h d) - f(x - h d)> / 2h = <vjp(g), d> for random directions d."""
    rng = helpers.rng_for("vjp-fd", kernel)
    inputs, fwd, _, rvjp = _problem(kernel, rng, batch=(2,))
    g = _cotangents(rng, _outs(fwd(*inputs)))
    grads = _call_vjp(rvjp, inputs, g)
    h = 1e-6
    for i, x in enumerate(inputs):
        for _ in range(3):
            d = rng.normal(size=x.shape)
            plus = [y + h * d if k == i else y for k, y in enumerate(inputs)]
            minus = [y - h * d if k == i else y for k, y in enumerate(inputs)]
            fd = sum(np.sum(gg * (a - b)) for gg, a, b in
                     zip(g, _outs(fwd(*plus)), _outs(fwd(*minus)))) / (2 * h)
            assert abs(fd - np.sum(grads[i] * d)) < 1e-6 * max(1.0, abs(fd))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_vjp_dtype_and_broadcast_inputs(dtype):
    """A VJP kernel gives one cotangent per batch item in the compute dtype: an input shared by
    the batch (broadcast) gets per-item cotangents, whose sum is its cotangent."""
    rng = helpers.rng_for("vjp-bcast", dtype)
    x = rng.normal(size=(len(TREE), 3)).astype(dtype)               # shared by the batch
    q = helpers.random_quats(rng, (4, len(TREE)), dtype)
    gQ, gt = rng.normal(size=(4, len(TREE), 4)), rng.normal(size=(4, len(TREE), 3))
    gx, gq = sk.rigid_forward_kinematics_vjp(TREE, x, q, gQ.astype(dtype), gt.astype(dtype))
    assert gx.shape == (4,) + x.shape and gq.shape == q.shape and gx.dtype == gq.dtype == dtype
    wx, wq = ref.rigid_forward_kinematics_vjp(TREE, x, q, gQ.astype(dtype), gt.astype(dtype))
    helpers.assert_close(gx, wx, scale=20)
    helpers.assert_close(gq, wq, scale=20)
    out = (np.empty((4,) + x.shape, dtype), np.empty(q.shape, dtype))
    got = sk.rigid_forward_kinematics_vjp(TREE, x, q, gQ.astype(dtype), gt.astype(dtype), out=out)
    assert got[0] is out[0] and got[1] is out[1]


def test_rotvec_vjp_at_and_near_zero():
    """At r = 0 the exponential map's Jacobian is (I/2 ; 0): continuous across the series
    threshold (|r| = 0.3) and equal to the closed form just above it."""
    g = np.array([0.3, -0.2, 0.5, 0.7])
    np.testing.assert_allclose(sk.quat_from_rotvec_vjp(np.zeros(3), g), g[:3] / 2,
                               rtol=0, atol=1e-17)
    axis = np.array([0.6, 0.0, 0.8])
    below, above = (sk.quat_from_rotvec_vjp(a * axis, g) for a in (0.3 - 1e-9, 0.3 + 1e-9))
    np.testing.assert_allclose(below, above, rtol=0, atol=1e-8)
    for a in (1e-8, 1e-3, 0.1, 0.29, 0.31, 3.0):
        helpers.assert_close(sk.quat_from_rotvec_vjp(a * axis, g),
                         ref.quat_from_rotvec_vjp(a * axis, g), scale=5)


def test_lbs_vjp_bad_joint_index_is_named():
    v, w, m = np.zeros((2, 3)), np.ones((2, 1)), np.tile(np.eye(4), (3, 1, 1))
    with pytest.raises(ValueError, match=r"joints\[1, 0\] = 3 is out of range for 3 joints"):
        sk.linear_blend_skinning_vjp(v, np.array([[0], [3]], np.int32), w, m, np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"joints\[1, 0\] = -2 is out of range"):
        sk.linear_blend_skinning_vjp(v, np.array([[0], [-2]], np.int64), w, m, np.ones((2, 3)))


BASELINE_LBS_VJP = """
import sys, numpy as np, skinkit
from skinkit import _core
d = np.load(sys.argv[1])
gv, gm = skinkit.linear_blend_skinning_vjp(d["v"], d["j"], d["w"], d["m"], d["g"])
np.savez(sys.argv[2], gv=gv, gm=gm, simd=_core.simd())
"""


@pytest.mark.parametrize("K, itype", [(4, np.uint8), (8, np.uint16), (5, np.int32)])
def test_lbs_vjp_float32_simd_matches_portable(tmp_path, K, itype):
    """The float32 LBS VJP compiled with AVX2/FMA (lbs_vjp_avx2.c) and the portable build
    (SKINKIT_SIMD=baseline, in a subprocess: the choice is made at import) agree to float32
    rounding, for the K = 4 and 8 loops, any other K, and each joint index type."""
    rng = helpers.rng_for("lbs-vjp-simd", K)
    J, V = 30, 1001
    m = np.tile(np.eye(4, dtype=np.float32), (3, J, 1, 1))
    m[..., :3, :] += rng.normal(scale=0.3, size=(3, J, 3, 4)).astype(np.float32)
    d = dict(v=rng.normal(size=(3, V, 3)).astype(np.float32), m=m,
             j=rng.integers(0, J, size=(V, K)).astype(itype),
             w=rng.random((V, K)).astype(np.float32),
             g=rng.normal(size=(3, V, 3)).astype(np.float32))
    np.savez(tmp_path / "in.npz", **d)
    subprocess.run([sys.executable, "-c", BASELINE_LBS_VJP, str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npz")], env=dict(os.environ, SKINKIT_SIMD="baseline"),
                   check=True)
    base = np.load(tmp_path / "out.npz")
    assert str(base["simd"]) == "baseline"
    gv, gm = sk.linear_blend_skinning_vjp(d["v"], d["j"], d["w"], d["m"], d["g"])
    np.testing.assert_allclose(gv, base["gv"], rtol=0, atol=2e-5 * np.abs(gv).max())
    np.testing.assert_allclose(gm, base["gm"], rtol=0, atol=2e-5 * np.abs(gm).max())


def test_kernel_vjps_equal_torch_autograd():
    """The same kernels written in torch (rotation via Rodrigues, FK via matrices) and
    differentiated by autograd: the chain quat_from_rotvec -> quat_to_matrix."""
    rng = helpers.rng_for("vjp-torch")
    r = rng.normal(size=(7, 3))
    g = rng.normal(size=(7, 3, 3))
    tr = torch.tensor(r, requires_grad=True)
    from body_torch import rodrigues
    (rodrigues(tr) * torch.tensor(g)).sum().backward()
    q = sk.quat_from_rotvec(r)
    got = sk.quat_from_rotvec_vjp(r, sk.quat_to_matrix_vjp(q, g))
    np.testing.assert_allclose(got, tr.grad.numpy(), rtol=1e-12, atol=1e-13)


# --------------------------------------------------------------------------- body models

@pytest.fixture(scope="module")
def body_models():
    return {kind: sk.BodyModel(make_arrays(kind, V=V)) for kind, V in
            (("SMPL", None), ("SMPL+H", 2000), ("SMPL-X", None), ("MANO", None))}


def seeded_params(m, batch, *key):
    """A generator seeded by ``key``, then random_params(m, rng, batch) drawn from it."""
    rng = helpers.rng_for(*key)
    return (rng, *random_params(m, rng, batch))


def _torch_grads(m, args, gv, gj):
    ts = [None if a is None else torch.tensor(a, requires_grad=True) for a in args]
    v, j = body_forward(m, *ts)
    ((v * torch.tensor(gv)).sum() + (j * torch.tensor(gj)).sum()).backward()
    return v.detach().numpy(), j.detach().numpy(), [None if t is None else t.grad.numpy()
                                                    for t in ts]


@pytest.mark.parametrize("kind", ["SMPL", "SMPL+H", "SMPL-X", "MANO"])
def test_body_vjp_equals_torch_autograd(body_models, kind):
    m = body_models[kind]
    rng, betas, pose, transl, expr = seeded_params(m, (2,), "body-vjp", kind)
    betas = betas[:, :8]
    got = _check_against_torch(m, (betas, pose, transl, expr), rng)
    assert len(got) == (4 if kind == "SMPL-X" else 3)


def _check_against_torch(m, args, rng):
    """forward_vjp's outputs and gradients equal torch autograd's through the transcription;
    returns the gradients."""
    (v, j), vjp = m.forward_vjp(*args)
    gv, gj = rng.normal(size=v.shape), rng.normal(size=j.shape)
    tv, tj, want = _torch_grads(m, args, gv, gj)
    size = np.ptp(v, axis=1).max()
    np.testing.assert_allclose(v, tv, rtol=0, atol=1e-12 * size)
    np.testing.assert_allclose(j, tj, rtol=0, atol=1e-12 * size)
    got = vjp(gv, gj)
    for name, a, b in zip(["betas", "pose", "transl", "expression"], got, want):
        if b is None:
            continue
        assert a.shape == b.shape, name
        assert np.abs(a - b).max() <= 1e-8 * np.abs(b).max(), name
    return got


@pytest.mark.parametrize("scale", [1.0, 1.25])
def test_body_transl_with_and_without_weights_summing_to_one(scale):
    """transl joins the skinning matrices only when every vertex's weights sum to 1; weights
    that do not (scaled rows) take the separate addition, and both equal the transcription."""
    a = make_arrays("MANO", seed=3)
    rows = np.arange(len(a["weights"])) % 3 == 0
    a["weights"] = a["weights"] * np.where(rows, scale, 1)[:, None]
    m = sk.BodyModel(a)
    assert m._fold_transl == (scale == 1.0)
    rng, betas, pose, transl, _ = seeded_params(m, (2,), "body-transl", str(scale))
    _check_against_torch(m, (betas, pose, transl * 10, None), rng)   # transl large


def test_body_vjp_matches_finite_differences(body_models):
    m = body_models["MANO"]
    rng, betas, pose, transl, _ = seeded_params(m, (2,), "body-fd")
    (v, j), vjp = m.forward_vjp(betas, pose, transl)
    gv, gj = rng.normal(size=v.shape), rng.normal(size=j.shape)
    grads = vjp(gv, gj)
    args = [betas, pose, transl]
    h = 1e-6
    for i in range(3):
        d = rng.normal(size=args[i].shape)
        p = [a + h * d if k == i else a for k, a in enumerate(args)]
        q = [a - h * d if k == i else a for k, a in enumerate(args)]
        (vp, jp), (vq, jq) = m.forward(*p), m.forward(*q)
        fd = (np.sum(gv * (vp - vq)) + np.sum(gj * (jp - jq))) / (2 * h)
        assert abs(fd - np.sum(grads[i] * d)) < 1e-6 * abs(fd)


def test_body_vjp_shapes_none_and_broadcast(body_models):
    m = body_models["MANO"]
    rng, betas, pose, _, _ = seeded_params(m, (2, 3), "body-bcast")
    (v, j), vjp = m.forward_vjp(betas=betas[0, 0], pose=pose)        # betas shared
    assert v.shape == (2, 3, m.num_vertices, 3)
    gv = rng.normal(size=v.shape)
    g_betas, g_pose, g_transl = vjp(gv)
    assert g_transl is None and g_betas.shape == (m.num_betas,) and g_pose.shape == pose.shape
    (_, _), vjp1 = m.forward_vjp(betas=np.broadcast_to(betas[0, 0], (2, 3, m.num_betas)), pose=pose)
    np.testing.assert_allclose(g_betas, vjp1(gv)[0].sum(axis=(0, 1)), rtol=1e-12)
    with pytest.raises(ValueError, match=r"g_vertices must have the shape of the output"):
        vjp(gv[0])
    with pytest.raises(ValueError, match=r"g_joints must have the shape of the output"):
        vjp(gv, np.zeros(3))


def test_body_vjp_float32(body_models):
    a = make_arrays("MANO")
    m32, m64 = sk.BodyModel(a, np.float32), sk.BodyModel(a)
    rng, betas, pose, transl, _ = seeded_params(m64, (2,), "body-f32")
    gv = rng.normal(size=(2, m64.num_vertices, 3))
    g32 = m32.forward_vjp(betas, pose, transl)[1](gv)
    g64 = m64.forward_vjp(betas, pose, transl)[1](gv)
    for a32, a64 in zip(g32, g64):
        assert a32.dtype == np.float32
        np.testing.assert_allclose(a32, a64, rtol=1e-4, atol=1e-4 * np.abs(a64).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.uint8, np.uint16, np.int32])
def test_weights_vjp_equals_reference_and_finite_differences(dtype, itype):
    rng = helpers.rng_for("weights-vjp", np.dtype(itype).name)
    J, V, K = len(TREE), 9, 3
    joints = rng.integers(-1 if itype == np.int32 else 0, J, size=(V, K)).astype(itype)
    w = rng.uniform(size=(V, K))
    v, m = rng.normal(size=(V, 3)), helpers.random_affine(rng, (2, J))
    g = rng.normal(size=(2, V, 3))
    got = sk.linear_blend_skinning_weights_vjp(*(a.astype(dtype) if a.dtype.kind == "f" else a
                                                 for a in (v, joints, w, m, g)))
    assert got.dtype == dtype and got.shape == (2, V, K)
    want = ref.linear_blend_skinning_weights_vjp(v, joints, m, g)
    helpers.assert_close(got, want, dtype)
    # the positions are linear in the weights: a difference quotient is exact but for rounding
    e = np.zeros((V, K))
    e[4, 1] = 1
    fd = (sk.linear_blend_skinning(v, joints, w + 1e-3 * e, m)
          - sk.linear_blend_skinning(v, joints, w, m)) / 1e-3
    np.testing.assert_allclose((fd * g).sum((1, 2)), want[:, 4, 1], rtol=1e-6, atol=1e-9)


def test_weights_vjp_refuses_a_joint_out_of_range():
    with pytest.raises(ValueError, match="joints"):
        sk.linear_blend_skinning_weights_vjp(np.zeros((2, 3)), np.array([[0], [5]]),
                                             np.ones((2, 1)), np.tile(np.eye(4), (3, 1, 1)),
                                             np.zeros((2, 3)))


# --------------------------------------------------------------------------- skinkit.torch

def test_torch_function_gradients_equal_autograd_through_transcription(body_models):
    import skinkit.torch as skt
    m = body_models["SMPL"]
    rng, betas, pose, transl, _ = seeded_params(m, (3,), "body-torch")
    ts = [torch.tensor(a, requires_grad=True) for a in (betas, pose, transl)]
    v, j = skt.body_forward(m, *ts)
    target = torch.tensor(rng.normal(size=j.shape))
    loss = ((j - target) ** 2).sum() + (v ** 2).mean()
    loss.backward()
    rs = [torch.tensor(a, requires_grad=True) for a in (betas, pose, transl)]
    tv, tj = body_forward(m, *rs)
    (((tj - target) ** 2).sum() + (tv ** 2).mean()).backward()
    for a, b in zip(ts, rs):
        assert torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-10 * b.grad.abs().max())


def test_torch_function_gradcheck_and_float32():
    import skinkit.torch as skt
    from conftest import DATA
    m = sk.load_body_model(DATA / "body" / "tiny_mano.npz")
    rng = helpers.rng_for("gradcheck")
    args = [torch.tensor(a, requires_grad=True)
            for a in random_params(m, rng, (2,))[:3]]
    assert torch.autograd.gradcheck(lambda b, p, t: skt.body_forward(m, b, p, t), args)
    m32 = sk.load_body_model(DATA / "body" / "tiny_mano.npz", dtype=np.float32)
    b32 = args[0].detach().float().requires_grad_()
    v, _ = skt.body_forward(m32, b32, args[1].detach().float())
    assert v.dtype == torch.float32
    v.sum().backward()
    assert b32.grad.dtype == torch.float32 and b32.grad.shape == b32.shape
