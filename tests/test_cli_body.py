"""``skinkit pose BODY --params PARAMS.npz``: a body model posed frame by frame to an .npz."""
import re

import numpy as np
import pytest

import skinkit as sk
from cli_run import run
from conftest import DATA

MANO = DATA / "body" / "tiny_mano_chumpy_py2.pkl"


def _params(tmp_path, **arrays):
    path = tmp_path / "params.npz"
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("flat", [False, True])
def test_pose_body_writes_positions_and_joints(tmp_path, capsys, flat):
    rng = np.random.default_rng(0)
    betas, pose, transl = rng.normal(size=(5, 10)), rng.normal(size=(5, 16, 3)), rng.normal(size=(5, 3))
    params = _params(tmp_path, betas=betas, pose=pose.reshape(5, -1) if flat else pose,
                     transl=transl)
    out = tmp_path / "posed.npz"
    code, _, err = run(["pose", MANO, "--params", params, "--out", out], capsys)
    assert code == 0, err
    assert "MANO, 5 frames, 12 vertices" in err
    v, j = sk.load_body_model(MANO).forward(betas, pose, transl)
    with np.load(out) as z:
        assert sorted(z.files) == ["joints", "positions_body"]
        np.testing.assert_array_equal(z["positions_body"], v)
        np.testing.assert_array_equal(z["joints"], j)


def test_pose_body_float32_and_quiet(tmp_path, capsys):
    params = _params(tmp_path, pose=np.zeros((2, 16, 3)))
    out = tmp_path / "posed.npz"
    code, _, err = run(["pose", MANO, "--params", params, "--dtype", "float32", "--quiet",
                        "--out", out], capsys)
    assert code == 0 and err == ""
    with np.load(out) as z:
        assert z["positions_body"].dtype == np.float32 and z["positions_body"].shape == (2, 12, 3)


@pytest.mark.parametrize("extra, arrays, code, match", [
    ([], {"pose": np.zeros((2, 16, 3)), "shape": np.zeros((2, 10))}, 1, "unknown arrays shape"),
    ([], {"pose": np.zeros((2, 16, 3)), "betas": np.zeros((3, 10))}, 1,
     "the same leading frame axis"),
    ([], {"pose": np.zeros((2, 15, 3))}, 1, r"pose must have shape \(\.\.\., 16, 3\)"),
    (["--rest"], {"pose": np.zeros((1, 16, 3))}, 2, "--rest do not apply"),
])
def test_pose_body_errors(tmp_path, capsys, extra, arrays, code, match):
    params = _params(tmp_path, **arrays)
    got, _, err = run(["pose", MANO, "--params", params, *extra, "--out", tmp_path / "o.npz"],
                      capsys)
    assert got == code and re.search(match, err), err
    assert not (tmp_path / "o.npz").exists()


def test_pose_body_needs_a_body_model_and_npz_out(tmp_path, capsys):
    params = _params(tmp_path, pose=np.zeros((1, 16, 3)))
    code, _, err = run(["pose", "--params", params, "--out", tmp_path / "o.npz"], capsys)
    assert code == 2 and "needs a body model file" in err
    code, _, err = run(["pose", MANO, "--params", params, "--out", tmp_path / "o.glb"], capsys)
    assert code == 2 and "posed to an .npz file" in err
