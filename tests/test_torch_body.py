"""skinkit.torch.BodyModel side by side with smplx.create(...) on the same files (built in
smplx's layouts: SMPL, SMPL+H and MANO pickles, an SMPL-X .npz, with the hand PCA keys) and the
same inputs; the body operator's autograd contract."""
import pickle

import numpy as np
import pytest

from conftest import SMPLX_HOW, TORCH_HOW, optional_import

torch = optional_import("torch", TORCH_HOW)
smplx = optional_import("smplx", SMPLX_HOW, "torch")

import helpers  # noqa: E402
import skinkit as sk  # noqa: E402
import skinkit.torch as skt  # noqa: E402
from body_models import make_arrays  # noqa: E402

B = 3
FILES = {"SMPL": "smpl_test.pkl", "SMPL+H": "smplh_test.pkl", "SMPL-X": "smplx_test.npz",
         "MANO": "mano_test.pkl"}     # smplx.create takes the model type from the name
HANDS = {"SMPL+H": ("l", "r"), "SMPL-X": ("l", "r"), "MANO": ("",)}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """kind -> a model file in the layout smplx reads, with random orthonormal hand PCA
    components and a non-zero hand mean."""
    folder = tmp_path_factory.mktemp("bodies")
    out = {}
    for kind, name in FILES.items():
        a = make_arrays(kind, seed=3)
        rng = helpers.rng_for("torch-body", kind)
        for side in HANDS.get(kind, ()):
            a[f"hands_components{side}"] = np.linalg.qr(rng.normal(size=(45, 45)))[0]
            a[f"hands_mean{side}"] = rng.normal(scale=0.2, size=45)
        path = folder / name
        if name.endswith(".npz"):
            np.savez(path, **a)
        else:
            with open(path, "wb") as f:
                pickle.dump(a, f, protocol=2)
        out[kind] = path
    return out


def _reference(path, kind, dtype, **kw):
    extra = dict(num_expression_coeffs=10) if kind == "SMPL-X" else {}
    return smplx.create(str(path), batch_size=B, dtype=dtype, num_betas=kw.pop("num_betas", 10),
                        ext=str(path).rsplit(".", 1)[1], **extra, **kw)


def _inputs(kind, dtype, use_pca=False, ncomps=6, seed=0):
    rng = helpers.rng_for("torch-body-inputs", kind, seed)
    t = lambda *s, scale=0.5: torch.tensor(rng.normal(scale=scale, size=(B,) + s), dtype=dtype)  # noqa
    parts = dict(skt.body.POSE_PARTS[kind])
    args = {k: t(3 * n) for k, n in parts.items()}
    for k in skt.body.HAND_KEYS:
        if k in args and use_pca:
            args[k] = t(ncomps, scale=1.0)
    args.update(betas=t(10 if kind != "MANO" else 7, scale=1.0), transl=t(3))
    if kind == "SMPL-X":
        args["expression"] = t(10, scale=1.0)
    return args


CASES = [("SMPL", False, True), ("SMPL+H", True, False), ("SMPL+H", False, False),
         ("SMPL-X", False, False), ("SMPL-X", True, True), ("MANO", True, False)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind, use_pca, flat", CASES)
def test_vertices_and_joints_equal_smplx(files, kind, use_pca, flat, dtype):
    """float32 to 1e-6 of the model's extent, float64 to 1e-7 (smplx adds 1e-8 to every
    rotation vector; skinkit's rotations are exact)."""
    kw = dict(use_pca=use_pca, num_pca_comps=6, flat_hand_mean=flat)
    ref = _reference(files[kind], kind, dtype, num_betas=7 if kind == "MANO" else 10,
                     **({} if kind == "SMPL" else kw))
    ours = skt.BodyModel(files[kind], dtype=dtype, **kw)
    args = _inputs(kind, dtype, use_pca)
    want, got = ref(**args, return_full_pose=True), ours(**args)
    J = ours.num_joints
    extent = float(want.vertices.max() - want.vertices.min())
    tol = (1e-6 if dtype == torch.float32 else 1e-7) * extent
    assert got.vertices.dtype == dtype and got.vertices.shape == want.vertices.shape
    assert (got.vertices - want.vertices).abs().max() <= tol
    assert (got.joints[:, :J] - want.joints[:, :J]).abs().max() <= tol
    torch.testing.assert_close(got.full_pose, want.full_pose)


def test_extra_vertex_ids_append_vertices_as_smplx_selector(files):
    ref = _reference(files["SMPL"], "SMPL", torch.float64)
    ids = ref.vertex_joint_selector.extra_joints_idxs
    ours = skt.BodyModel(files["SMPL"], dtype=torch.float64, extra_vertex_ids=ids.tolist())
    args = _inputs("SMPL", torch.float64)
    want, got = ref(**args), ours(**args)
    assert got.joints.shape == want.joints.shape == (B, 24 + len(ids), 3)
    extent = float(want.vertices.max() - want.vertices.min())
    torch.testing.assert_close(got.joints, want.joints, rtol=0, atol=1e-7 * extent)


@pytest.mark.parametrize("form", ["matrices", "flat matrices", "6d"])
def test_pose2rot_false_takes_matrices_and_6d_as_smplx_layers(files, form):
    ref = smplx.build_layer(str(files["SMPL-X"]), batch_size=B, dtype=torch.float64,
                            num_expression_coeffs=10, ext="npz", use_pca=False)
    ours = skt.BodyModel(files["SMPL-X"], dtype=torch.float64)
    args = _inputs("SMPL-X", torch.float64)
    for k, n in skt.body.POSE_PARTS["SMPL-X"]:
        q = sk.quat_from_rotvec(args[k].reshape(B, n, 3).numpy())
        args[k] = torch.from_numpy(sk.quat_to_matrix(q))            # (B, n, 3, 3)
    want = ref(**args)
    conv = {"matrices": lambda m: m, "flat matrices": lambda m: m.reshape(B, -1),
            "6d": lambda m: m[..., :2, :].reshape(B, -1)}[form]
    got = ours(**{k: conv(v) if k in dict(skt.body.POSE_PARTS["SMPL-X"]) else v
                  for k, v in args.items()}, pose2rot=False)
    assert (got.vertices - want.vertices).abs().max() <= 1e-7 * float(
        want.vertices.max() - want.vertices.min())


def test_gradients_equal_smplx_autograd(files):
    """float64: the analytic VJP against torch autograd through smplx."""
    ref = _reference(files["SMPL-X"], "SMPL-X", torch.float64, use_pca=True)
    ours = skt.BodyModel(files["SMPL-X"], dtype=torch.float64, use_pca=True)
    args = _inputs("SMPL-X", torch.float64, use_pca=True)
    target = torch.randn(B, 55, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    grads = []
    for model in (ref, ours):
        leaves = {k: v.clone().requires_grad_() for k, v in args.items()}
        out = model(**leaves)
        (((out.joints[:, :55] - target) ** 2).sum() + out.vertices.square().mean()).backward()
        grads.append({k: v.grad for k, v in leaves.items()})
    for k in args:
        torch.testing.assert_close(grads[1][k], grads[0][k], rtol=1e-6,
                                   atol=1e-6 * float(grads[0][k].abs().max()))


def test_float64_inputs_on_a_float32_model_give_float64(files):
    ours = skt.BodyModel(files["SMPL"], dtype=torch.float32)
    ref64 = skt.BodyModel(files["SMPL"], dtype=torch.float64)
    args = _inputs("SMPL", torch.float64)
    got = ours(**args)
    assert got.vertices.dtype == torch.float64
    # the float32 buffers' values, computed in float64: float32 rounding of the model only
    torch.testing.assert_close(got.vertices, ref64(**args).vertices, rtol=0, atol=1e-5)
    assert ours(**_inputs("SMPL", torch.float32)).vertices.dtype == torch.float32


def test_to_dtype_and_state_dict_drive_the_computation(files):
    m = skt.BodyModel(files["SMPL"], dtype=torch.float32)
    state = m.state_dict()
    assert {"v_template", "shapedirs", "posedirs", "J_regressor", "weights"} <= state.keys()
    m64 = m.to(torch.float64)
    assert m64.v_template.dtype == torch.float64
    args = _inputs("SMPL", torch.float64)
    before = m64(**args).vertices
    state = {k: v.clone() for k, v in m64.state_dict().items()}
    state["v_template"] += 0.25
    m64.load_state_dict(state)
    # (J_regressor rows sum to 1 to float32 rounding: the joints move by 0.25 (1 +- 1e-7))
    torch.testing.assert_close(m64(**args).vertices, before + 0.25, rtol=0, atol=1e-6)


def test_compiled_forward_matches_eager(files):
    ours = skt.BodyModel(files["MANO"], dtype=torch.float64, use_pca=True)
    args = _inputs("MANO", torch.float64, use_pca=True)
    compiled = torch.compile(ours, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(**args).vertices, ours(**args).vertices, rtol=0, atol=0)


def test_bad_arguments_raise_naming_them(files):
    ours = skt.BodyModel(files["SMPL"])
    with pytest.raises(ValueError, match=r"body_pose must have shape \(B, 69\) or \(B, 23, 3\)"):
        ours(body_pose=torch.zeros(2, 68))
    with pytest.raises(TypeError, match="jaw_pose is not an argument of a SMPL model"):
        ours(jaw_pose=torch.zeros(1, 3))
    with pytest.raises(TypeError, match="right_hand_pose is not an argument of a SMPL model"):
        ours(right_hand_pose=torch.zeros(1, 45))      # smplx-style code catches TypeError
    with pytest.raises(ValueError, match="betas must have shape .* S <= 10"):
        ours(betas=torch.zeros(1, 11))


# ------------------------------------------------------------------ the body operator


def test_body_op_gradcheck_float64_every_input():
    m = sk.synthetic_body_model("SMPL-X", num_vertices=60, shape_columns=14)
    rng = helpers.rng_for("body-op-gradcheck")
    t = lambda *s: torch.tensor(rng.normal(scale=0.5, size=s), requires_grad=True)  # noqa: E731
    args = (t(2, 10), t(2, 55, 3), t(2, 3), t(2, 4))
    assert torch.autograd.gradcheck(lambda *a: skt.body_forward(m, *a), args)


def test_body_op_in_place_edit_raises_and_transl_alone_runs_no_kernel(monkeypatch):
    m = sk.synthetic_body_model("SMPL", num_vertices=50)
    pose = torch.zeros(2, 24, 3, dtype=torch.float64, requires_grad=True)
    p = pose * 1
    v, _ = skt.body_forward(m, pose=p)
    with torch.no_grad():
        p.add_(0.1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.sum().backward()
    calls = []
    monkeypatch.setattr(sk.BodyModel, "_backward", lambda *a: calls.append(1))
    tr = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    v, j = skt.body_forward(m, pose=torch.zeros(2, 24, 3, dtype=torch.float64), transl=tr)
    (v.sum() + j.sum()).backward()
    assert calls == [] and torch.equal(tr.grad, torch.full((2, 3), 50.0 + 24.0,
                                                           dtype=torch.float64))


def test_body_op_vmap_equals_loop():
    m = sk.synthetic_body_model("SMPL", num_vertices=50)
    rng = helpers.rng_for("body-op-vmap")
    pose = torch.tensor(rng.normal(scale=0.5, size=(4, 2, 24, 3)))
    betas = torch.tensor(rng.normal(size=(2, 10)))
    got = torch.func.vmap(lambda p: skt.body_forward(m, betas, p)[0])(pose)
    # one call of 8 poses against 4 of 2: NumPy's BLAS may block the shape products of 8 and of
    # 2 rows differently (OpenBLAS with NumPy 1.24 did: 16 of 1200 values 1 ulp apart)
    torch.testing.assert_close(got, torch.stack([skt.body_forward(m, betas, p)[0] for p in pose]),
                               rtol=1e-13, atol=1e-15)


def test_body_op_vmap_of_backward_equals_loop(no_vmap_fallback):
    """torch.func.vmap of autograd.grad over a leading dimension of the cotangents runs the body
    VJP operator's vmap rule, equal to one backward per cotangent."""
    m = sk.synthetic_body_model("SMPL", num_vertices=50)
    rng = helpers.rng_for("body-op-vmap-backward")
    pose = torch.tensor(rng.normal(scale=0.5, size=(2, 24, 3)), requires_grad=True)
    betas = torch.tensor(rng.normal(size=(2, 10)), requires_grad=True)
    outs = skt.body_forward(m, betas, pose)
    gs = [torch.tensor(rng.normal(size=(3,) + o.shape)) for o in outs]
    got = torch.func.vmap(lambda *g: torch.autograd.grad(outs, (betas, pose), g,
                                                         retain_graph=True))(*gs)
    for i in range(3):
        want = torch.autograd.grad(outs, (betas, pose), [g[i] for g in gs], retain_graph=True)
        for a, b in zip(got, want):
            torch.testing.assert_close(a[i], b, rtol=1e-12, atol=1e-12)


def test_body_op_vmap_of_func_grad_equals_loop(no_vmap_fallback):
    """torch.func.grad through the body operator, vmapped over a leading dimension of the pose
    (the operators' vmap rules: the fallback is off), equal to plain backward item by item."""
    m = sk.synthetic_body_model("SMPL", num_vertices=50)
    rng = helpers.rng_for("body-op-func-grad")
    pose = torch.tensor(rng.normal(scale=0.5, size=(3, 2, 24, 3)))
    betas = torch.tensor(rng.normal(size=(2, 10)))

    def loss(b, p):
        v, j = skt.body_forward(m, b, p)
        return v.square().sum() + j.square().sum()

    got = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0))(betas, pose)
    for i in range(3):
        b, p = betas.clone().requires_grad_(), pose[i].clone().requires_grad_()
        loss(b, p).backward()
        torch.testing.assert_close(got[0][i], b.grad, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(got[1][i], p.grad, rtol=1e-12, atol=1e-12)
