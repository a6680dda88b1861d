"""dual_quaternion_skinning_vjp (src/dqs_vjp.c): against central differences of the forward
kernel in float64 (rigid, scaled, sheared and mirrored skinning matrices), against torch
autograd through a plain transcription of Kavan et al. 2008's DLB (rigid), the rest-position
vertex, batches, float32, errors, and the same bits for any thread count.

The data keep away from the two places where the derivative does not exist: every influence's
quaternion is at least 0.05 from the hemisphere boundary of its vertex's pivot (checked), and
the scaled matrices have distinct singular values (random), so that the nearest rotation is
unique."""
import numpy as np
import pytest
from conftest import TORCH_HOW, optional_import

import helpers
import skinkit as sk
from skinkit import _core
from skinkit.kernels.gradients import dual_quaternion_skinning_vjp as vjp
from test_dqs import rigid, sheared

J, V, K = 6, 14, 3


def _matrices(rng, kind, shape):
    return {"rigid": lambda: rigid(rng, shape),
            "scaled": lambda: helpers.random_affine(rng, shape),
            "sheared": lambda: sheared(rng, shape),
            "mirrored": lambda: sheared(rng, shape) @ np.diag([-1.0, 1, 1, 1])}[kind]()


def _rig(rng, kind, batch=(2,)):
    """Vertices of each pose, joints with unused slots (-1), weights with a zero in a slot after
    the pivot, matrices of ``kind`` (drawn again until every influence is 0.05 away from its
    pivot's hemisphere boundary), and the cotangent of the positions."""
    joints = rng.integers(0, J, size=(V, K)).astype(np.int32)
    joints[rng.uniform(size=(V, K)) < 0.2] = -1
    joints[:, 0] = rng.integers(0, J, size=V)
    weights = rng.uniform(0.1, 1.0, size=(V, K))
    weights[3, 1:] = 0
    joints[3, 1:] = (1, 2)
    mats = _matrices(rng, kind, batch + (J,))
    while np.abs(_hemisphere_dots(joints, weights, mats)).min() <= 0.05:
        mats = _matrices(rng, kind, batch + (J,))
    return (rng.normal(size=batch + (V, 3)), joints, weights, mats,
            rng.normal(size=batch + (V, 3)))


def _hemisphere_dots(joints, weights, mats):
    """q_pivot . q_k for every slot with a joint, per pose (the forward's records)."""
    q = _core._skinning_dual_quaternions(mats, None, None)[..., :4]
    dots = []
    for i in range(V):
        used = [k for k in range(K) if joints[i, k] >= 0]
        pivot = next(k for k in used if weights[i, k] != 0)
        dots += [(q[..., joints[i, pivot], :] * q[..., joints[i, k], :]).sum(-1) for k in used]
    return np.array(dots)


@pytest.mark.parametrize("kind", ["rigid", "scaled", "sheared", "mirrored"])
def test_vjp_matches_central_differences(kind):
    """<g, f(x + h d) - f(x - h d)> / 2h against <vjp, d> for random directions d of each
    input.  h = 1e-6: the truncation error h^2 f''' / 6 is below 1e-9 here (3e-6 measured at
    h = 1e-4, so 3e-10 at 1e-6) and the rounding error ~eps |f| / h ~5e-9 (|f| ~ 20): 5e-9 was
    the worst seen, and the bound 1e-7 is 20 times that yet far below a wrong term (~1e-1)."""
    rng = helpers.rng_for("dqs-vjp-fd", kind)
    v, joints, w, m, g = _rig(rng, kind)
    if kind == "rigid":
        assert _hemisphere_dots(joints, w, m).min() < 0     # some influence blended with s = -1
        assert not _core._skinning_dual_quaternions(m, None, None)[..., 29].any()
    gv, gw, gm = vjp(v, joints, w, m, g)
    assert (gv.shape, gw.shape, gm.shape) == (v.shape, (2, V, K), m.shape)
    assert not gm[..., 3, :].any()
    f = lambda v, w, m: np.sum(g * sk.dual_quaternion_skinning(v, joints, w, m))  # noqa: E731
    h = 1e-6
    inputs, grads = [v, w, m], [gv, gw.sum(0), gm]
    for i, x in enumerate(inputs):
        for _ in range(4):
            d = rng.normal(size=x.shape)
            plus = [y + h * d if k == i else y for k, y in enumerate(inputs)]
            minus = [y - h * d if k == i else y for k, y in enumerate(inputs)]
            fd = (f(*plus) - f(*minus)) / (2 * h)
            assert abs(fd - np.sum(grads[i] * d)) < 1e-7 * max(1.0, abs(fd)), (i, fd)


def _torch_dlb(torch, v, joints, w, q, t):
    """Kavan et al. 2008, Algorithm 1 (DLB) for rigid motions (q_j, t_j), written plainly in
    torch: dual parts 1/2 (t, 0) q, signs against each vertex's first influence of non-zero
    weight, the normalized blend c + eps ce, and v' = c v c* + 2 (ce c*)_xyz."""
    def mul(a, b):
        (ax, ay, az, aw), (bx, by, bz, bw) = a.unbind(-1), b.unbind(-1)
        return torch.stack([aw * bx + ax * bw + ay * bz - az * by,
                            aw * by - ax * bz + ay * bw + az * bx,
                            aw * bz + ax * by - ay * bx + az * bw,
                            aw * bw - ax * bx - ay * by - az * bz], -1)

    def conj(a):
        return a * torch.tensor([-1.0, -1, -1, 1], dtype=a.dtype)

    pure = lambda x: torch.cat([x, torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype)], -1)  # noqa
    d = 0.5 * mul(pure(t), q)
    out = []
    for i in range(V):
        used = [k for k in range(K) if joints[i, k] >= 0]   # a zero weight adds 0, not its slope
        first = q[joints[i, next(k for k in used if w[i, k] != 0)]]
        b = e = 0
        for k in used:
            j = joints[i, k]
            s = 1.0 if float(first.detach() @ q[j].detach()) >= 0 else -1.0
            b = b + s * w[i, k] * q[j]
            e = e + s * w[i, k] * d[j]
        c, ce = b / b.norm(), e / b.norm()
        out.append(mul(mul(c, pure(v[i])), conj(c))[:3] + 2 * mul(ce, conj(c))[:3])
    return torch.stack(out)


def test_rigid_vjp_equals_torch_autograd_of_kavan_dlb():
    """Rigid skinning matrices [R(q) | t]: the cotangents of vertices, weights and t equal
    autograd's; that of R, taken back to q by quat_to_matrix_vjp, equals autograd's along the
    unit sphere (the component along q is not defined by a rotation)."""
    torch = optional_import("torch", TORCH_HOW)
    rng = helpers.rng_for("dqs-vjp-torch")
    v, joints, w, _, g = _rig(rng, "rigid", batch=())
    q, t = helpers.random_quats(rng, (J,)), rng.normal(size=(J, 3))
    m = np.zeros((J, 4, 4))
    m[:, :3, :3], m[:, :3, 3], m[:, 3, 3] = sk.quat_to_matrix(q), t, 1
    while np.abs(_hemisphere_dots(joints, w, m)).min() <= 0.05:   # the same q, others
        q = helpers.random_quats(rng, (J,))
        m[:, :3, :3] = sk.quat_to_matrix(q)
    tv, tw, tq, tt = (torch.tensor(a, requires_grad=True) for a in (v, w, q, t))
    pos = _torch_dlb(torch, tv, joints, tw, tq, tt)
    np.testing.assert_allclose(pos.detach().numpy(), sk.dual_quaternion_skinning(v, joints, w, m),
                               rtol=0, atol=1e-13)
    (pos * torch.tensor(g)).sum().backward()
    gv, gw, gm = vjp(v, joints, w, m, g)
    np.testing.assert_allclose(gv, tv.grad.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(gw, tw.grad.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(gm[:, :3, 3], tt.grad.numpy(), rtol=0, atol=1e-12)
    tangent = lambda gq: gq - q * (q * gq).sum(-1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(tangent(sk.quat_to_matrix_vjp(q, gm[:, :3, :3])),
                               tangent(tq.grad.numpy()), rtol=0, atol=1e-12)


def test_a_vertex_without_influence_passes_its_cotangent_through():
    """Zero weights (or only joint -1): the rest position, so g_v = g and nothing else."""
    rng = helpers.rng_for("dqs-vjp-rest")
    v, joints, w, m, _ = _rig(rng, "scaled")
    w[5] = 0
    joints[6, :] = -1
    g = np.zeros_like(v)
    g[:, 5:7] = rng.normal(size=(2, 2, 3))
    gv, gw, gm = vjp(v, joints, w, m, g)
    assert np.array_equal(gv, g)
    assert not gw.any() and not gm.any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batches_broadcast_and_dtype(dtype):
    """Vertices shared by the poses get one cotangent per pose, equal to the call per pose;
    float32 results are within float32 rounding of float64."""
    rng = helpers.rng_for("dqs-vjp-batch", np.dtype(dtype).name)
    v, joints, w, m, g = _rig(rng, "scaled", batch=(3,))
    v, w, m, g = (a.astype(dtype) for a in (v[0], w, m, g))
    got = vjp(v, joints, w, m, g)
    assert [a.shape for a in got] == [(3, V, 3), (3, V, K), (3, J, 4, 4)]
    assert all(a.dtype == dtype for a in got)
    for i in range(3):
        for a, b in zip(got, vjp(v, joints, w, m[i], g[i])):
            np.testing.assert_array_equal(a[i], b)
    if dtype == np.float32:
        want = vjp(*(a.astype(np.float64) if a.dtype == dtype else a
                     for a in (v, joints, w, m, g)))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-4 * np.abs(b).max())


def test_the_same_bits_for_any_thread_count():
    """Each pose's joint cotangents are summed by one thread in vertex order (OP_REDUCE), so two
    threads (4 poses of 20000 vertices: more than one thread's grain) give the same bits."""
    rng = helpers.rng_for("dqs-vjp-threads")
    n = 20000
    joints = rng.integers(0, J, size=(n, 4)).astype(np.int32)
    w = rng.uniform(size=(n, 4))
    v, g = rng.normal(size=(4, n, 3)), rng.normal(size=(4, n, 3))
    m = helpers.random_affine(rng, (4, J))
    one, two = (vjp(v, joints, w, m, g, threads=t) for t in (1, 2))
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_a_joint_out_of_range_is_named():
    v, w, m = np.zeros((2, 3)), np.ones((2, 1)), np.tile(np.eye(4), (3, 1, 1))
    with pytest.raises(ValueError, match=r"joints\[1, 0\] = 3 is out of range for 3 joints"):
        vjp(v, np.array([[0], [3]], np.int32), w, m, np.ones((2, 3)))
