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


# --------------------------------------------------------------------------- AMASS motion

from body_models import make_arrays  # noqa: E402
from npz_craft import npy_bytes, write_npz  # noqa: E402
from test_amass import smplh_members, smplx_members  # noqa: E402


@pytest.fixture()
def body_dir(tmp_path):
    """DIR/smplh/male/model.npz (AMASS's layout) and DIR/smplx/SMPLX_NEUTRAL.npz, small."""
    for sub, kind in (("smplh/male/model.npz", "SMPL+H"), ("smplx/SMPLX_NEUTRAL.npz", "SMPL-X")):
        path = tmp_path / "models" / sub
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **make_arrays(kind, V=60, S=16 if kind == "SMPL+H" else 20))
    return tmp_path / "models"


def _motion(tmp_path, members, name="motion.npz"):
    path = tmp_path / name
    write_npz(path, members)
    return path


@pytest.mark.parametrize("fps", [None, 30.0])
def test_pose_motion_writes_times_positions_joints(tmp_path, capsys, body_dir, fps):
    motion = _motion(tmp_path, smplh_members(T=300, gender=np.array("male")))
    model_path = body_dir / "smplh" / "male" / "model.npz"
    out = tmp_path / "posed.npz"
    extra = [] if fps is None else ["--fps", str(fps)]
    code, _, err = run(["pose", model_path, "--motion", motion, *extra, "--out", out], capsys)
    assert code == 0, err
    mo = sk.load_amass(motion)
    mo = mo if fps is None else mo.resample(fps)
    model = sk.load_body_model(model_path)
    v, j = model.forward(mo.betas[:16], mo.poses, mo.transl)
    with np.load(out) as z:
        assert sorted(z.files) == ["joints", "positions_body", "times"]
        np.testing.assert_array_equal(z["times"], mo.times)
        # posed in blocks of frames: BLAS may round the last bit differently from one call
        np.testing.assert_allclose(z["positions_body"], v, rtol=0, atol=1e-13)
        np.testing.assert_allclose(z["joints"], j, rtol=0, atol=1e-13)
    assert f"SMPL+H, {len(mo.poses)} frames, 60 vertices" in err


def test_info_describes_a_motion(tmp_path, capsys):
    """Issue 31: ``skinkit info`` refused AMASS motions (read as body models)."""
    motion = _motion(tmp_path, smplh_members(T=40, gender=np.array("female")))
    code, out, err = run(["info", motion], capsys)
    assert code == 0, err
    m = sk.load_amass(motion)
    assert f"type: AMASS smplh ({m.poses.shape[1]} joints)" in out and "gender: female" in out
    assert f"frames: 40 at {m.fps:g} fps ({39 / m.fps:g} s)" in out


def test_pose_motion_in_float32(tmp_path, capsys, body_dir):
    """Issue 31: --dtype float32 failed ("times: a block of float64 ... for a member of
    float32"); the times are float32 too, the float64 times rounded."""
    motion = _motion(tmp_path, smplh_members(T=40, gender=np.array("male")))
    model_path = body_dir / "smplh" / "male" / "model.npz"
    out = tmp_path / "posed.npz"
    code, _, err = run(["pose", model_path, "--motion", motion, "--dtype", "float32", "--out",
                        out], capsys)
    assert code == 0, err
    with np.load(out) as z:
        assert {z[k].dtype for k in z.files} == {np.dtype(np.float32)}
        np.testing.assert_array_equal(z["times"], sk.load_amass(motion).times.astype(np.float32))


def test_pose_motion_body_dir_picks_type_and_gender(tmp_path, capsys, body_dir):
    motion = _motion(tmp_path, smplx_members(T=5))
    out = tmp_path / "posed.npz"
    code, _, err = run(["pose", "--body-dir", body_dir, "--motion", motion, "--out", out],
                       capsys)
    assert code == 0, err
    assert "SMPLX_NEUTRAL.npz: SMPL-X, 5 frames" in err
    with np.load(out) as z:
        assert z["positions_body"].shape == (5, 60, 3) and z["joints"].shape == (5, 55, 3)


@pytest.mark.parametrize("case, args_of, code, match", [
    ("no model for gender", lambda d, m: ["--body-dir", d, "--motion", m], 1,
     r"no female smplh model in .*SMPLH_FEMALE\.pkl"),
    ("type mismatch", lambda d, m: [d / "smplx" / "SMPLX_NEUTRAL.npz", "--motion", m], 1,
     "a smplh motion .52 joints. cannot pose the SMPL-X model"),
    ("bad fps", lambda d, m: [d / "smplh" / "male" / "model.npz", "--motion", m, "--fps", "0"],
     1, r"fps must be in \(0, 10000\]"),
    ("huge fps", lambda d, m: [d / "smplh" / "male" / "model.npz", "--motion", m, "--fps",
                               "1e6"], 1, r"fps must be in"),
    ("both inputs", lambda d, m: [d / "smplh" / "male" / "model.npz", "--motion", m,
                                  "--params", m], 2, "give one"),
    ("body-dir without motion", lambda d, m: ["--body-dir", d, "--params", m], 2, "give one"),
    ("model and body-dir", lambda d, m: [d / "x.npz", "--body-dir", d, "--motion", m], 2,
     "not both"),
    ("clip flag", lambda d, m: ["--body-dir", d, "--motion", m, "--loop"], 2,
     "--loop do not apply"),
])
def test_pose_motion_errors(tmp_path, capsys, body_dir, case, args_of, code, match):
    motion = _motion(tmp_path, smplh_members(T=4))        # female
    got, _, err = run(["pose", *args_of(body_dir, motion), "--out", tmp_path / "o.npz"], capsys)
    assert got == code and re.search(match, err), err
    assert "Traceback" not in err and not (tmp_path / "o.npz").exists()


@pytest.mark.parametrize("members, match", [
    ({"pose": np.zeros((2, 47))}, "47 columns, not a multiple of 3"),     # issue 17: traceback
    ({"pose": np.zeros((2, 1, 1, 1, 3))}, r"takes one frame axis, got pose \(2, 1, 1, 1, 3\)"),
    ({"pose": np.zeros((2, 16, 3), dtype=object)}, "pose: an object or structured array"),
    ({"pose": npy_bytes(header={"descr": "<f8", "fortran_order": False,
                                "shape": (10**9, 16, 3)}, data=b"")},
     r"asks for 384000000000 bytes, more than the limit"),
])
def test_params_errors_are_one_line(tmp_path, capsys, members, match):
    params = tmp_path / "params.npz"
    write_npz(params, members)
    code, _, err = run(["pose", MANO, "--params", params, "--out", tmp_path / "o.npz"], capsys)
    assert code == 1 and re.search(match, err) and "Traceback" not in err, err


def test_info_describes_a_body_model(capsys, body_dir):
    code, out, err = run(["info", body_dir / "smplx" / "SMPLX_NEUTRAL.npz"], capsys)
    assert code == 0, err
    for line in ("type: SMPL-X (smplx model_type 'smplx')", "vertices (V): 60",
                 "joints (J): 55", "shape components (S): 10", "expression components (E): 10",
                 "pose-corrective components (P): 486"):
        assert line in out, out
    assert re.search(r"^\s+22\s+\d+\s+jaw$", out, re.M), out
    code, out, err = run(["info", MANO], capsys)
    assert code == 0 and "type: MANO" in out and re.search(r"^\s+15\s+\d+\s+thumb3$", out, re.M)
