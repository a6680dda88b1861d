"""AMASS motion files: both layouts as AMASS ships them, resampling against SciPy's Slerp of the
source frames, and hostile files (each a BodyModelError naming the file and the key)."""
import re

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

import skinkit as sk
from amass_files import write_motion
from npz_craft import npy_bytes, write_npz


def smplh_members(T=40, rng=None, gender=np.array("female"), fps=120.0):
    """An AMASS SMPL+H file's members (the original release: poses (T, 156), trans, betas (16),
    gender a 0-d string, mocap_framerate, dmpls (T, 8))."""
    rng = rng or np.random.default_rng(0)
    return {"trans": rng.normal(size=(T, 3)), "gender": gender,
            "mocap_framerate": np.array(fps), "betas": rng.normal(size=16),
            "dmpls": rng.normal(size=(T, 8)), "poses": rng.normal(scale=1.2, size=(T, 156))}


def smplx_members(T=40, rng=None):
    """An AMASS SMPL-X file's members (the SMPL-X release), with its extra keys: poses (T, 165)
    in smplx's order, num_betas, markers_latent, latent_labels (a str array) and an object
    array (which np.load would need allow_pickle for)."""
    rng = rng or np.random.default_rng(1)
    parts = {"root_orient": 3, "pose_body": 63, "pose_hand": 90, "pose_jaw": 3, "pose_eye": 6}
    m = {k: rng.normal(scale=0.8, size=(T, n)) for k, n in parts.items()}
    m.update(gender=np.array("neutral"), surface_model_type=np.array("smplx"),
             mocap_frame_rate=np.array(60.0), mocap_time_length=np.array(T / 60),
             trans=rng.normal(size=(T, 3)), betas=rng.normal(size=16), num_betas=np.array(16),
             markers_latent=rng.normal(size=(41, 3)), latent_labels=np.array(["C7", "CLAV"]),
             poses=np.concatenate([m["root_orient"], m["pose_body"], m["pose_jaw"],
                                   m["pose_eye"], m["pose_hand"]], axis=1),
             markers_latent_vids=np.array({"C7": 3832}, dtype=object))
    return m


def test_smplh_layout(tmp_path):
    m = smplh_members()
    path = tmp_path / "walk_poses.npz"
    write_npz(path, m, compress=True)
    mo = sk.load_amass(path)
    assert (mo.model_type, mo.gender, mo.fps, mo.source) == ("smplh", "female", 120.0, str(path))
    np.testing.assert_array_equal(mo.poses, m["poses"].reshape(-1, 52, 3))
    np.testing.assert_array_equal(mo.transl, m["trans"])
    np.testing.assert_array_equal(mo.betas, m["betas"])
    assert mo.expression is None and mo.poses.dtype == np.float64
    np.testing.assert_allclose(mo.times, np.arange(40) / 120.0, rtol=0, atol=0)


@pytest.mark.parametrize("gender", [np.array(b"male"), np.array("male"), np.array(" Male ")])
def test_gender_as_bytes_or_text(tmp_path, gender):
    write_npz(tmp_path / "m.npz", smplh_members(gender=gender))
    assert sk.load_amass(tmp_path / "m.npz").gender == "male"


def test_smplx_layout_in_smplx_joint_order(tmp_path):
    """Joints: global, body 21, jaw, left eye, right eye, hands 30: the order of AMASS's own
    ``poses`` (T, 165) and of smplx's full_pose; the object array is never read."""
    m = smplx_members()
    write_npz(tmp_path / "m.npz", m)
    mo = sk.load_amass(tmp_path / "m.npz")
    assert (mo.model_type, mo.gender, mo.fps) == ("smplx", "neutral", 60.0)
    np.testing.assert_array_equal(mo.poses, m["poses"].reshape(-1, 55, 3))
    np.testing.assert_array_equal(mo.poses[:, 22], m["pose_jaw"])
    np.testing.assert_array_equal(mo.poses[:, 25:].reshape(40, -1), m["pose_hand"])


def _rotation_error(a, b):
    """Largest angle (radians) between the rotations of rotation vectors a and b."""
    return (Rotation.from_rotvec(a.reshape(-1, 3)).inv()
            * Rotation.from_rotvec(b.reshape(-1, 3))).magnitude().max()


@pytest.mark.parametrize("fps", [30.0, 50.0, 120.0, 500.0, 7.3])
def test_resample_against_scipy_slerp(tmp_path, fps):
    """Every joint against scipy's Slerp of the source frames (a shortest-path slerp of each
    interval); translation against np.interp.  The source has rotations near pi and
    neighbouring frames with q0 . q1 < 0, where a lerp of axis-angle goes the long way."""
    rng = np.random.default_rng(2)
    m = smplh_members(T=25, rng=rng, fps=60.0)
    axis = rng.normal(size=(25, 52, 3))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    m["poses"] = (axis * rng.uniform(2.6, np.pi, size=(25, 52, 1))).reshape(25, -1)
    write_npz(tmp_path / "m.npz", m)
    src = sk.load_amass(tmp_path / "m.npz")
    got = src.resample(fps)
    n = int(np.floor(24 / 60 * fps + 1e-9)) + 1
    assert got.poses.shape == (n, 52, 3) and got.fps == fps
    np.testing.assert_allclose(got.times, np.arange(n) / fps)
    worst = 0.0
    for j in range(52):
        ref = Slerp(src.times, Rotation.from_rotvec(src.poses[:, j]))(got.times).as_rotvec()
        worst = max(worst, _rotation_error(ref, got.poses[:, j]))
    assert worst < 1e-12, worst
    assert np.linalg.norm(got.poses, axis=-1).max() <= np.pi + 1e-12
    for c in range(3):
        np.testing.assert_allclose(got.transl[:, c], np.interp(got.times, src.times,
                                                               src.transl[:, c]), atol=1e-13)
    lerp = src.poses[:-1] + 0.5 * (src.poses[1:] - src.poses[:-1])   # the wrong way
    mid = src.resample(120.0).poses[1::2][:24]
    assert _rotation_error(lerp, mid) > 0.5                           # differs from a lerp


def test_resample_keeps_source_frames_and_expression(tmp_path):
    m = smplx_members(T=11)
    m["expression"] = np.random.default_rng(3).normal(size=(11, 10))
    write_npz(tmp_path / "m.npz", m)
    src = sk.load_amass(tmp_path / "m.npz")
    same = src.resample(src.fps)
    assert _rotation_error(same.poses, src.poses) < 1e-12
    half = src.resample(30.0)
    assert half.poses.shape[0] == 6
    np.testing.assert_allclose(half.expression, src.expression[::2], atol=1e-14)
    np.testing.assert_allclose(half.transl, src.transl[::2], atol=1e-14)
    np.testing.assert_array_equal(half.betas, src.betas)


@pytest.mark.parametrize("fps", [0, -1, float("nan"), float("inf"), 1e308, "x"])
def test_resample_refuses_bad_fps(tmp_path, fps):
    write_npz(tmp_path / "m.npz", smplh_members(T=3))
    with pytest.raises(ValueError, match="fps must be"):
        sk.load_amass(tmp_path / "m.npz").resample(fps)


def _huge(key, shape):
    """A member whose header declares ``shape`` of float64 and holds 8 bytes."""
    return npy_bytes(header={"descr": "<f8", "fortran_order": False, "shape": shape},
                     data=b"\0" * 8)


HOSTILE = {   # name -> (edit of the SMPL+H members, the key the message names, its pattern)
    "poses wrong width": ({"poses": np.zeros((4, 150))}, "poses", r"shape \(T, 156\)"),
    "poses 3-D": ({"poses": np.zeros((4, 52, 3))}, "poses", r"shape \(T, 156\)"),
    "trans other T": ({"trans": np.zeros((5, 3))}, "trans", r"shape \(4, 3\)"),
    "NaN pose": ({"poses": np.full((4, 156), np.nan)}, "poses", "not finite"),
    "inf trans": ({"trans": np.full((4, 3), np.inf)}, "trans", "not finite"),
    "poses of 1e300": ({"poses": np.full((4, 156), 1e300)}, "poses",
                       r"poses\[0, 0\] = 1e\+300 is not finite or past the limit of 1e\+30"),
    "trans past float32": ({"trans": np.full((4, 3), -1e39)}, "trans", "past the limit"),
    # 1.3 million frames (1.6 GB of float64, under MAX_ARRAY_BYTES; a compressed npz of zeros
    # takes 1.6 MB): refused from the header, before the member is read
    "1.3 million frames": ({"poses": _huge("poses", (1_300_000, 156))}, "poses",
                           r"1300000 frames, more than the limit of 1048576 "
                           r"\(skinkit.limits.MAX_FRAMES\)"),
    "T = 0": ({"poses": np.zeros((0, 156)), "trans": np.zeros((0, 3))}, "poses", "no frames"),
    "huge declared T": ({"poses": _huge("poses", (10**9, 156))}, "poses",
                        r"asks for 1248000000000 bytes, more than the limit"),
    "declared T off the data": ({"poses": _huge("poses", (4, 156))}, "poses",
                                r"declares shape \(4, 156\).*holds 8"),
    "fps 0": ({"mocap_framerate": np.array(0.0)}, "mocap_framerate", r"in \(0, 10000\]"),
    "fps negative": ({"mocap_framerate": np.array(-30.0)}, "mocap_framerate", "in"),
    "fps 1e308": ({"mocap_framerate": np.array(1e308)}, "mocap_framerate", "1e\\+308"),
    "fps NaN": ({"mocap_framerate": np.array(np.nan)}, "mocap_framerate", "nan"),
    "fps two numbers": ({"mocap_framerate": np.zeros(2)}, "mocap_framerate", "one number"),
    "no fps": ({"mocap_framerate": None}, "mocap_framerate", "missing key"),
    "no poses": ({"poses": None}, "poses", "missing key"),
    "no trans": ({"trans": None}, "trans", "missing key"),
    "no betas": ({"betas": None}, "betas", r"shape \(B,\)"),
    "betas 2-D": ({"betas": np.zeros((1, 16))}, "betas", r"shape \(B,\)"),
    "no gender": ({"gender": None}, "gender", "must be one of"),
    "gender unknown": ({"gender": np.array("robot")}, "gender", "'robot'"),
    "gender object": ({"gender": np.array("male", dtype=object)}, "gender",
                      "expected a 0-d string"),
    "poses object": ({"poses": np.array([[1.0]] * 4, dtype=object)}, "poses",
                     "object or structured array"),
    "poses strings": ({"poses": np.full((4, 156), "a")}, "poses", "not a numeric dtype"),
    "poses complex": ({"poses": np.zeros((4, 156), complex)}, "poses", "not a numeric dtype"),
    "poses structured": ({"poses": np.zeros(4, dtype=[("a", "f8")])}, "poses",
                         "object or structured"),
    "surface smpl": ({"surface_model_type": np.array("smpl")}, "surface_model_type",
                     "is not 'smplx'"),
    "not npy": ({"poses": b"\x93NUMPY\x09\x00junk"}, "poses", r"format version \(9, 0\)"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_amass_files(tmp_path, case):
    edit, key, pattern = HOSTILE[case]
    m = smplh_members(T=4)
    for k, v in edit.items():
        if v is None:
            del m[k]
        else:
            m[k] = v
    path = tmp_path / "hostile.npz"
    write_npz(path, m)
    with pytest.raises(sk.BodyModelError) as e:
        sk.load_amass(path)
    msg = str(e.value)
    assert msg.startswith(str(path)) and key in msg and re.search(pattern, msg), msg


def test_ignored_zip_bomb_member_is_never_opened_and_needed_one_refused(tmp_path):
    """dmpls (ignored) declares 4.29 GB uncompressed: never decompressed.  poses declaring
    as much is refused from the zip's header, before any decompression."""
    path = tmp_path / "bomb.npz"
    write_npz(path, smplh_members(T=4), declared_sizes={"dmpls": 2**32 - 16})
    assert sk.load_amass(path).poses.shape == (4, 52, 3)
    write_npz(path, smplh_members(T=4), declared_sizes={"poses": 2**32 - 16})
    with pytest.raises(sk.BodyModelError, match=r"poses: the member is 4294967280 bytes "
                                                r"uncompressed, more than the limit"):
        sk.load_amass(path)


def test_not_a_zip_and_missing_file(tmp_path):
    p = tmp_path / "x.npz"
    p.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(sk.BodyModelError, match="x.npz: not a readable .npz"):
        sk.load_amass(p)
    with pytest.raises(OSError):
        sk.load_amass(tmp_path / "missing.npz")


def test_find_body_model_layouts(tmp_path):
    from skinkit.io.body import find_body_model
    (tmp_path / "smplh" / "male").mkdir(parents=True)
    (tmp_path / "smplx").mkdir()
    amass = tmp_path / "smplh" / "male" / "model.npz"
    amass.write_bytes(b"")
    assert find_body_model(tmp_path, "smplh", "male") == amass
    pkl = tmp_path / "smplh" / "SMPLH_MALE.pkl"
    pkl.write_bytes(b"")
    assert find_body_model(tmp_path, "smplh", "male") == pkl      # smplx.create's name first
    npz = tmp_path / "smplx" / "SMPLX_FEMALE.npz"
    npz.write_bytes(b"")
    assert find_body_model(tmp_path, "smplx", "female") == npz
    with pytest.raises(FileNotFoundError, match=r"no neutral smplx model in .*SMPLX_NEUTRAL\.npz"
                                                r".*SMPLX_NEUTRAL\.pkl.*neutral/model\.npz"):
        find_body_model(tmp_path, "smplx", "neutral")
    with pytest.raises(ValueError, match="model_type must be one of"):
        find_body_model(tmp_path, "smpl-x", "male")


def test_a_motion_given_as_a_body_model_is_named(tmp_path):
    write_npz(tmp_path / "m.npz", smplh_members(T=3))
    with pytest.raises(sk.BodyModelError, match="looks like an AMASS motion .skinkit.load_amass"):
        sk.load_body_model(tmp_path / "m.npz")


def test_resample_from_any_start_time(tmp_path):
    """``resample(fps, start, frames)``: frame k at start + k / fps (SciPy's slerp between the
    neighbouring source frames), at most ``frames``; a start outside the motion is refused."""
    motion = sk.load_amass(write_motion(tmp_path / "m.npz", 40, fps=59.9999885, seed=5))
    start, fps = 0.1234, 23.0
    crop = motion.resample(fps, start, 7)
    assert len(crop.poses) == 7
    times = start + np.arange(7) / fps
    for j in (0, 17, 51):
        slerp = Slerp(motion.times, Rotation.from_rotvec(motion.poses[:, j]))
        got = Rotation.from_rotvec(crop.poses[:, j])
        assert (got.inv() * slerp(times)).magnitude().max() < 1e-12
    np.testing.assert_allclose(crop.transl, np.stack(
        [np.interp(times, motion.times, motion.transl[:, a]) for a in range(3)], 1), atol=1e-12)
    rest = motion.resample(fps, start)
    assert len(rest.poses) == int(np.floor((motion.times[-1] - start) * fps)) + 1
    with pytest.raises(ValueError, match="start must be in"):
        motion.resample(fps, motion.times[-1] + 0.1)
    with pytest.raises(ValueError, match="frames must be at least 1"):
        motion.resample(fps, 0.0, 0)
