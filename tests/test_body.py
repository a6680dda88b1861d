"""SMPL-family body models: loading (.pkl with and without chumpy objects, .npz), malformed files,
and the forward pass against smplx itself and a torch transcription of smplx.lbs."""
import io
import pickle
import sys
import types

import numpy as np
import pytest
import scipy.sparse
from conftest import DATA, SMPLX_HOW, TORCH_HOW, optional_import

torch = optional_import("torch", TORCH_HOW)  # before body_torch, which needs it

import skinkit as sk
from body_models import SIZES, make_arrays, random_params
from body_torch import body_forward

BODY = DATA / "body"


@pytest.fixture(scope="module")
def arrays():
    return {kind: make_arrays(kind) for kind in SIZES}


@pytest.fixture(scope="module")
def models(arrays):
    return {kind: sk.BodyModel(a) for kind, a in arrays.items()}


def _save_npz(tmp_path, a, name="model.npz"):
    path = tmp_path / name
    np.savez(path, **a)
    return path


def _save_pkl(tmp_path, obj, name="model.pkl"):
    path = tmp_path / name
    path.write_bytes(pickle.dumps(obj, protocol=2))
    return path


# --------------------------------------------------------------------------- loading

@pytest.mark.parametrize("kind, J, S, E", [("SMPL", 24, 10, 0), ("SMPL+H", 52, 16, 0),
                                           ("SMPL-X", 55, 300, 100), ("MANO", 16, 10, 0)])
def test_npz_of_each_kind_loads_with_its_layout(tmp_path, arrays, kind, J, S, E):
    a = arrays[kind]
    m = sk.load_body_model(_save_npz(tmp_path, a))
    V = SIZES[kind][0]
    assert (m.kind, m.num_joints, m.num_vertices, m.num_betas, m.num_expression) == \
        (kind, J, V, S, E)
    assert m.parents.dtype == np.int32 and m.parents[0] == -1
    np.testing.assert_array_equal(m.parents[1:], a["kintree_table"][0, 1:])
    np.testing.assert_array_equal(m.faces, a["f"])
    np.testing.assert_array_equal(m.v_template, a["v_template"])
    np.testing.assert_array_equal(m.shapedirs, a["shapedirs"][:, :, :S])
    np.testing.assert_array_equal(m.exprdirs, a["shapedirs"][:, :, S:S + E])
    np.testing.assert_array_equal(m.posedirs, a["posedirs"])
    assert m.shapedirs.shape == (V, 3, S) and m.exprdirs.shape == (V, 3, E)
    assert not m.posedirs.flags.writeable


def test_smplx_file_with_fewer_columns_has_10_shape_then_expression(tmp_path):
    a = make_arrays("SMPL-X", V=300, S=30)
    m = sk.load_body_model(_save_npz(tmp_path, a))
    assert (m.num_betas, m.num_expression) == (10, 20)
    np.testing.assert_array_equal(m.exprdirs, a["shapedirs"][:, :, 10:])


def test_genuine_chumpy_pickles_read_without_chumpy():
    """Pickles written by chumpy under Python 2.7 and 3.9 (tests/data/body/README.md) give the
    arrays of the plain .npz, and chumpy is not importable here (nothing ran from the file)."""
    with pytest.raises(ImportError):
        import chumpy  # noqa: F401
    ref = sk.load_body_model(BODY / "tiny_mano.npz")
    for name in ("tiny_mano_chumpy_py2.pkl", "tiny_mano_chumpy_py3.pkl"):
        m = sk.load_body_model(BODY / name)
        assert m.kind == "MANO" and m.num_vertices == 12
        for key in ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "faces",
                    "parents"):
            np.testing.assert_array_equal(getattr(m, key), getattr(ref, key), err_msg=key)
    assert np.count_nonzero(ref.J_regressor) == 16 * 4       # it was a sparse matrix


@pytest.mark.parametrize("fmt", ["csc", "csr"])
def test_pkl_with_scipy_sparse_regressor_and_plain_arrays(tmp_path, fmt):
    a = make_arrays("MANO")
    obj = dict(a, J_regressor=getattr(scipy.sparse, f"{fmt}_matrix")(a["J_regressor"]),
               hands_components=np.zeros((45, 45)))
    m = sk.load_body_model(_save_pkl(tmp_path, obj))
    np.testing.assert_array_equal(m.J_regressor, a["J_regressor"])


def test_pkl_and_npz_give_the_same_model(tmp_path, arrays):
    a = arrays["SMPL"]
    p = sk.load_body_model(_save_pkl(tmp_path, a))
    n = sk.load_body_model(_save_npz(tmp_path, a))
    rng = np.random.default_rng(0)
    betas, pose, transl, _ = random_params(n, rng, (2,))
    for x, y in zip(p.forward(betas, pose, transl), n.forward(betas, pose, transl)):
        np.testing.assert_array_equal(x, y)


class Evil:
    def __reduce__(self):
        import os
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("payload, match", [
    ({"v_template": Evil()}, "refused global (posix|os|nt).system"),
    ({"v_template": io.BytesIO}, "refused global _io.BytesIO"),
    ([1, 2], "expected a pickled dict"),
])
def test_pickles_that_need_more_than_arrays_are_refused(tmp_path, payload, match):
    with pytest.raises(sk.BodyModelError, match=match):
        sk.load_body_model(_save_pkl(tmp_path, payload))


def test_chumpy_expression_in_a_required_key_is_named(tmp_path, monkeypatch):
    """A chumpy object without stored values (an expression such as chumpy.ch_ops.add) cannot
    be evaluated without chumpy: the error names the key and the class."""
    fake = types.ModuleType("chumpy.ch_ops")
    add = type("add", (), {"__module__": "chumpy.ch_ops"})
    fake.add = add
    monkeypatch.setitem(sys.modules, "chumpy", types.ModuleType("chumpy"))
    monkeypatch.setitem(sys.modules, "chumpy.ch_ops", fake)
    expr = add()
    expr.a, expr.b = np.zeros(3), np.ones(3)
    path = _save_pkl(tmp_path, dict(make_arrays("MANO"), shapedirs=expr))
    monkeypatch.delitem(sys.modules, "chumpy.ch_ops")
    monkeypatch.delitem(sys.modules, "chumpy")
    with pytest.raises(sk.BodyModelError, match="shapedirs is a chumpy.ch_ops.add object"):
        sk.load_body_model(path)


@pytest.mark.parametrize("key, value, match", [
    ("v_template", np.zeros((778, 2)), r"v_template must have shape \(\?, 3\), got \(778, 2\)"),
    ("shapedirs", np.zeros((778, 10)), r"shapedirs must have shape \(778, 3, \?\)"),
    ("posedirs", np.zeros((778, 3, 134)), r"posedirs must have shape \(778, 3, 135\)"),
    ("weights", np.zeros((778, 15)), r"weights must have shape \(778, 16\)"),
    ("J_regressor", np.zeros((17, 778)), "17 joints; a SMPL-family model has 24"),
    ("kintree_table", np.zeros((16,)), r"kintree_table must have shape \(2, 16\)"),
    ("f", np.full((4, 3), 778), "f must hold integer vertex indices 0..777"),
    ("f", np.zeros((4, 3)), "f must hold integer vertex indices"),
    ("v_template", np.array(["a"] * 3), "v_template: dtype .U1. is not a numeric dtype"),
])
def test_malformed_arrays_are_named_with_the_expected_shape(tmp_path, key, value, match):
    a = dict(make_arrays("MANO"), **{key: value})
    with pytest.raises(sk.BodyModelError, match=match):
        sk.load_body_model(_save_npz(tmp_path, a))


def test_missing_key_and_bad_tree_are_named(tmp_path):
    a = make_arrays("MANO")
    del a["posedirs"]
    with pytest.raises(sk.BodyModelError, match="missing key 'posedirs'"):
        sk.load_body_model(_save_npz(tmp_path, a))
    a = make_arrays("MANO")
    a["kintree_table"][0, 3] = 99
    with pytest.raises(sk.BodyModelError, match=r"kintree_table\[0, 3\] = 99"):
        sk.load_body_model(_save_npz(tmp_path, a))
    a["kintree_table"][0, 1:3] = [2, 1]
    a["kintree_table"][0, 3] = 0
    with pytest.raises(sk.BodyModelError, match="kintree_table.*cycle"):
        sk.load_body_model(_save_npz(tmp_path, a))
    with pytest.raises(TypeError, match="float32 or float64"):
        sk.BodyModel(make_arrays("MANO"), dtype=np.int32)


def test_not_a_model_file(tmp_path):
    for name, content, message in (("x.pkl", b"not a pickle",
                                     "x.pkl: not a readable body model pickle"),
                                    ("x.npz", b"PK\x03\x04 truncated", "not a readable .npz")):
        p = tmp_path / name
        p.write_bytes(content)
        with pytest.raises(sk.BodyModelError, match=message):
            sk.load_body_model(p)
    with pytest.raises(OSError):
        sk.load_body_model(tmp_path / "missing.npz")


# --------------------------------------------------------------------------- forward

def test_forward_matches_smplx_SMPL_class(models, arrays):
    """smplx's own SMPL module (built from the same arrays) against BodyModel.forward: equal up
    to smplx's 1e-8 added to every rotation vector (a few 1e-9 of the model's size here)."""
    smplx = optional_import("smplx", SMPLX_HOW, "torch")
    from smplx.utils import Struct
    m = models["SMPL"]
    ref = smplx.SMPL(model_path="unused", data_struct=Struct(**arrays["SMPL"]), dtype=torch.float64,
                     num_betas=10)
    rng = np.random.default_rng(3)
    betas, pose, transl, _ = random_params(m, rng, (4,))
    out = ref(betas=torch.tensor(betas), global_orient=torch.tensor(pose[:, 0]),
              body_pose=torch.tensor(pose[:, 1:].reshape(4, -1)), transl=torch.tensor(transl))
    v, j = m.forward(betas, pose, transl)
    size = np.ptp(v, axis=1).max()
    assert np.abs(v - out.vertices.detach().numpy()).max() < 1e-7 * size
    assert np.abs(j - out.joints.detach().numpy()[:, :24]).max() < 1e-7 * size


@pytest.mark.parametrize("kind", sorted(SIZES))
def test_forward_matches_smplx_lbs(models, kind):
    smplx_lbs = optional_import("smplx.lbs", SMPLX_HOW, "torch")
    m = models[kind]
    rng = np.random.default_rng(4)
    betas, pose, transl, expr = random_params(m, rng, (3,))
    v, j = m.forward(betas, pose, None, expr)
    coeff = betas if expr is None else np.concatenate([betas, expr], -1)
    dirs = np.concatenate([m.shapedirs, m.exprdirs], -1)
    vt, jt = smplx_lbs.lbs(torch.tensor(coeff), torch.tensor(pose.reshape(3, -1)),
                           torch.tensor(m.v_template), torch.tensor(dirs),
                           torch.tensor(m.posedirs.reshape(-1, m.posedirs.shape[2]).T),
                           torch.tensor(m.J_regressor), torch.tensor(m.parents.astype(np.int64)),
                           torch.tensor(m.weights))
    size = np.ptp(v, axis=1).max()
    assert np.abs(v - vt.numpy()).max() < 1e-7 * size
    assert np.abs(j - jt.numpy()).max() < 1e-7 * size


@pytest.mark.parametrize("kind", sorted(SIZES))
def test_forward_equals_exact_torch_transcription(models, kind):
    m = models[kind]
    rng = np.random.default_rng(5)
    betas, pose, transl, expr = random_params(m, rng, (2,))
    betas = betas[:, :7]                                   # fewer than num_betas
    v, j = m.forward(betas, pose, transl, expr)
    t = lambda a: None if a is None else torch.tensor(a)  # noqa: E731
    vt, jt = body_forward(m, t(betas), t(pose), t(transl), t(expr))
    size = np.ptp(v, axis=1).max()
    np.testing.assert_allclose(v, vt.numpy(), rtol=0, atol=1e-12 * size)
    np.testing.assert_allclose(j, jt.numpy(), rtol=0, atol=1e-12 * size)


def test_rest_pose_defaults_and_missing_coefficients(models):
    m = models["SMPL-X"]
    v, j = m.forward()
    np.testing.assert_allclose(v, m.v_template, atol=1e-12)
    np.testing.assert_allclose(j, m.J_regressor @ m.v_template, atol=1e-12)
    rng = np.random.default_rng(6)
    b = rng.normal(size=5)
    full = np.concatenate([b, np.zeros(m.num_betas - 5)])
    for x, y in zip(m.forward(betas=b), m.forward(betas=full)):
        np.testing.assert_allclose(x, y, atol=1e-12)
    e = rng.normal(size=3)
    v1, _ = m.forward(expression=e)
    np.testing.assert_allclose(v1, m.v_template + m.exprdirs[:, :, :3] @ e, atol=1e-12)


def test_batch_shapes_broadcast(models):
    m = models["MANO"]
    rng = np.random.default_rng(7)
    betas, pose, transl, _ = random_params(m, rng, (2, 3))
    v, j = m.forward(betas[0, 0], pose, transl[:, :1])          # (S,), (2,3,J,3), (2,1,3)
    assert v.shape == (2, 3, m.num_vertices, 3) and j.shape == (2, 3, m.num_joints, 3)
    for a in range(2):
        for b in range(3):
            va, ja = m.forward(betas[0, 0], pose[a, b], transl[a, 0])
            np.testing.assert_allclose(v[a, b], va, atol=1e-13)
            np.testing.assert_allclose(j[a, b], ja, atol=1e-13)


def test_float32_is_native_and_close(arrays):
    m32, m64 = sk.BodyModel(arrays["SMPL"], np.float32), sk.BodyModel(arrays["SMPL"])
    rng = np.random.default_rng(8)
    betas, pose, transl, _ = random_params(m64, rng, (3,))
    v32, j32 = m32.forward(betas, pose, transl)
    v64, j64 = m64.forward(betas, pose, transl)
    assert v32.dtype == j32.dtype == np.float32 and m32.posedirs.dtype == np.float32
    np.testing.assert_allclose(v32, v64, atol=2e-5)
    np.testing.assert_allclose(j32, j64, atol=2e-5)


def test_influences_keep_every_nonzero_weight(models):
    """Every non-zero weight is an influence; shorter rows are padded with (joint k, weight 0)
    in slot k."""
    m = models["SMPL-X"]
    lj, lw = m._influences
    counts = np.count_nonzero(m.weights, axis=1)
    assert lj.dtype == np.uint8 and lj.shape[1] == counts.max() > 4
    dense = np.zeros_like(m.weights)
    np.add.at(dense, (np.repeat(np.arange(len(lj)), lj.shape[1]), lj.ravel()), lw.ravel())
    np.testing.assert_array_equal(dense, m.weights)
    padded = np.arange(lj.shape[1]) >= counts[:, None]
    slot = np.broadcast_to(np.arange(lj.shape[1]), lj.shape)
    assert padded.any() and (lj[padded] == slot[padded]).all() and (lw[padded] == 0).all()


@pytest.mark.parametrize("kw, match", [
    ({"pose": np.zeros((2, 15, 3))}, r"pose must have shape \(\.\.\., 16, 3\)"),
    ({"betas": np.zeros(11)}, r"betas must have shape \(\.\.\., S\) with S <= 10"),
    ({"expression": np.zeros(1)}, r"expression must have shape \(\.\.\., S\) with S <= 0"),
    ({"transl": np.zeros((2, 4))}, r"transl must have shape \(\.\.\., 3\)"),
    ({"transl": np.zeros((2, 3)), "pose": np.zeros((3, 16, 3))}, "do not broadcast"),
    ({"betas": np.array(["x"])}, "betas must be a real number array"),
])
def test_bad_arguments_are_named(models, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        models["MANO"].forward(**kw)


def test_torch_tensors_are_accepted(models):
    m = models["MANO"]
    rng = np.random.default_rng(9)
    betas, pose, transl, _ = random_params(m, rng, (2,))
    got = m.forward(torch.tensor(betas), torch.tensor(pose), torch.tensor(transl))
    for g, e in zip(got, m.forward(betas, pose, transl)):
        assert type(g) is np.ndarray
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("protocol", range(6))
def test_python3_pickles_of_every_protocol(tmp_path, protocol):
    """Protocols 0-5 as NumPy 2 and SciPy pickle arrays (_reconstruct with _codecs.encode or
    bytes, protocol 5's _frombuffer of a bytearray), a Fortran-ordered and a big-endian array
    among them: rebuilt to the same values."""
    a = make_arrays("MANO", V=30)
    obj = dict(a, J_regressor=scipy.sparse.csr_matrix(a["J_regressor"]),
               posedirs=np.asfortranarray(a["posedirs"]),
               weights=a["weights"].astype(">f8"), scalar=np.float64(2.5))
    path = tmp_path / "m.pkl"
    path.write_bytes(pickle.dumps(obj, protocol=protocol))
    m = sk.load_body_model(path)
    for key in ("v_template", "posedirs", "J_regressor", "weights"):
        np.testing.assert_array_equal(getattr(m, key), a[key], err_msg=key)


def test_npz_fortran_and_big_endian_members(tmp_path):
    a = make_arrays("MANO", V=30)
    m = sk.load_body_model(_save_npz(tmp_path, dict(a, posedirs=np.asfortranarray(a["posedirs"]),
                                                    weights=a["weights"].astype(">f8"))))
    np.testing.assert_array_equal(m.posedirs, a["posedirs"])
    np.testing.assert_array_equal(m.weights, a["weights"])


@pytest.mark.parametrize("value, shown", [(np.nan, "nan"), (np.inf, "inf"), (1.5, "1.5")])
def test_a_float_kintree_table_holding_nan_says_so(tmp_path, value, shown):
    """Issue 31: NaN was cast to -9223372036854775808 with NumPy's cast warning on stderr."""
    import warnings
    a = make_arrays("MANO")
    a["kintree_table"] = a["kintree_table"].astype(np.float64)
    a["kintree_table"][0, 2] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # no RuntimeWarning of an invalid cast
        with pytest.raises(sk.BodyModelError, match=rf"kintree_table\[0, 2\] = {shown} is not "
                                                     r"a joint index \(an integer 0\.\.15\)"):
            sk.load_body_model(_save_npz(tmp_path, a))
    a["kintree_table"][0, 2] = 1.0                  # whole floats are indices
    a["kintree_table"][0, 0] = np.nan               # the root's entry is not read
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sk.load_body_model(_save_npz(tmp_path, a)).parents[2] == 1
