"""``BodyModel.forward(..., out=, workspace=)``: the results written into the caller's arrays
and the temporaries taken from a ``skinkit.body.Workspace`` reused call after call, the same
bits as a plain ``forward`` (which is checked against smplx in test_body.py), for every kind,
both dtypes, batches that grow and shrink, the rest pose and weights that do not sum to 1;
``out`` of the wrong shape, dtype or layout, or overlapping an argument, is refused."""
import numpy as np
import pytest
from body_models import SIZES, make_arrays, random_params

import skinkit as sk
from skinkit.body.workspace import Workspace
from skinkit.kernels._blas import matmul


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def outputs(m, batch):
    return (np.full(batch + (m.num_vertices, 3), np.nan, m.dtype),
            np.full(batch + (m.num_joints, 3), np.nan, m.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", sorted(SIZES))
def test_out_and_workspace_give_the_bits_of_a_plain_forward(kind, dtype):
    m = sk.BodyModel(make_arrays(kind), dtype)
    rng = np.random.default_rng(11)
    ws = Workspace()
    for n in (5, 9, 3, 9):               # the workspace grows, then lends a prefix
        betas, pose, transl, expr = random_params(m, rng, (n,))
        want = m.forward(betas, pose, transl, expr, threads=1)
        out = outputs(m, (n,))
        got = m.forward(betas, pose, transl, expr, threads=1, out=out, workspace=ws)
        assert got[0] is not None and np.shares_memory(got[0], out[0])
        assert np.shares_memory(got[1], out[1])
        for a, b in zip(want, out):
            assert np.array_equal(bits(a), bits(b))
    grown = ws.nbytes
    m.forward(betas[:2], pose[:2], transl[:2], None if expr is None else expr[:2],
              workspace=ws)
    assert ws.nbytes == grown            # a smaller batch takes nothing new
    for kw in ({"betas": betas[0]}, {}):   # the rest pose: the corrective rows left out
        for a, b in zip(m.forward(**kw), m.forward(**kw, workspace=ws)):
            assert np.array_equal(bits(a), bits(b))


def test_weights_that_do_not_sum_to_one_add_the_translation_after_skinning():
    a = make_arrays("SMPL")
    a["weights"] = a["weights"] * 0.9    # transl not folded into the skinning matrices
    m = sk.BodyModel(a)
    assert not m._fold_transl
    rng = np.random.default_rng(12)
    betas, pose, transl, _ = random_params(m, rng, (2, 3))
    want = m.forward(betas, pose, transl)
    out = outputs(m, (2, 3))
    m.forward(betas, pose, transl, out=out, workspace=Workspace())
    for x, y in zip(want, out):
        assert np.array_equal(bits(x), bits(y))


def test_blocked_matmul_into_out_equals_its_own_result():
    rng = np.random.default_rng(13)
    a, b = rng.normal(size=(300, 40)).astype(np.float32), rng.normal(size=(40, 9000))
    b = b.astype(np.float32)
    out = np.empty((300, 9000), np.float32)
    assert matmul(a, b, 2, out=out) is out
    assert np.array_equal(bits(out), bits(matmul(a, b, 1)))


def test_workspace_reuses_its_arrays_below_their_size():
    ws = Workspace()
    a = ws.array("x", (4, 5), np.float32)
    assert a.shape == (4, 5) and a.dtype == np.float32 and a.flags.c_contiguous
    assert np.shares_memory(ws.array("x", (3, 2), np.float32), a)
    assert not np.shares_memory(ws.array("x", (3, 2), np.float64), a)   # another dtype
    assert ws.array("x", (6, 5), np.float64).shape == (6, 5) and ws.nbytes == 240


@pytest.mark.parametrize("make, error, match", [
    (lambda m, v, j: (v,), TypeError, "a pair"),
    (lambda m, v, j: (v.tolist(), j), TypeError, "out vertices must be a NumPy array"),
    (lambda m, v, j: (v.astype(np.float32), j), TypeError, "dtype float64, got float32"),
    (lambda m, v, j: (v[:1], j), ValueError, r"out vertices must be .* shape \(2, "),
    (lambda m, v, j: (v, np.asfortranarray(j)), ValueError, "out joints .* not C-contiguous"),
    (lambda m, v, j: (v, read_only(j)), ValueError, "read-only"),
    (lambda m, v, j: (v, v.reshape(-1)[:j.size].reshape(j.shape)), ValueError,
     "vertices and joints overlap"),
])
def test_bad_out_is_refused_naming_it(make, error, match):
    m = sk.BodyModel(make_arrays("MANO"))
    v, j = outputs(m, (2,))
    with pytest.raises(error, match=match):
        m.forward(pose=np.zeros((2, m.num_joints, 3)), out=make(m, v, j))


def test_out_overlapping_an_argument_is_refused():
    m = sk.BodyModel(make_arrays("MANO"))
    v, j = outputs(m, (2,))
    transl = j[:, 0]                     # a view of the joints' array
    with pytest.raises(ValueError, match="out joints overlaps the memory of transl"):
        m.forward(transl=transl, out=(v, j))
