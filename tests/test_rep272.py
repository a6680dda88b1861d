"""MotionStreamer's 272-dim representation (skinkit.motion.rep272): back to SMPL rotations within
1e-6 rad without IK, back to joints, closed-form walks and turns (SciPy's rotations as the
reference), at 120, 60, 59.9999885 and 50 fps."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.body.synthetic import humanoid_smplh_arrays
from amass_files import write_motion

RATES = [120.0, 60.0, 59.9999885, 50.0]


@pytest.fixture(scope="module")
def model():
    return skinkit.BodyModel(humanoid_smplh_arrays())


def unturned(rotvec_root):
    """The yaw about +Y that takes the first frame's root +Z axis to heading 0."""
    z = Rotation.from_rotvec(rotvec_root[0]).apply([0.0, 0.0, 1.0])
    return Rotation.from_rotvec([0.0, -np.arctan2(z[0], z[2]), 0.0])


@pytest.mark.parametrize("fps", RATES)
def test_round_trip_to_smpl_rotations(tmp_path, model, fps):
    motion = skinkit.load_amass(write_motion(tmp_path / "m.npz", 30, fps=fps, seed=4))
    motion = motion.resample(20.0)
    _, joints = model(pose=motion.poses, transl=motion.transl)
    f = skinkit.rep272_features(joints, motion.poses)
    assert f.shape == (len(joints), 272)
    rotations, root = skinkit.rep272_rotations(f)
    turn = unturned(motion.poses[:, 0])
    expected = Rotation.from_rotvec(motion.poses[:, :22].reshape(-1, 3))
    expected = expected.as_matrix().reshape(-1, 22, 3, 3)
    expected[:, 0] = turn.as_matrix() @ expected[:, 0]
    got = Rotation.from_rotvec(rotations.reshape(-1, 3))
    error = (got.inv() * Rotation.from_matrix(expected.reshape(-1, 3, 3))).magnitude()
    assert error.max() < 1e-6
    # the rotations pose the joints that the positions give back (no IK in between)
    floor = joints[..., 1].min()
    expected_joints = turn.apply((joints[:, :22] - joints[0, 0] * [1, 0, 1]).reshape(-1, 3))
    expected_joints = expected_joints.reshape(-1, 22, 3) - [0.0, floor, 0.0]
    np.testing.assert_allclose(skinkit.rep272_joints(f), expected_joints, atol=1e-9)
    rest_root = model(betas=np.zeros(16))[1][0]
    poses = motion.poses.copy()
    poses[:, :22] = rotations
    _, reposed = model(pose=poses, transl=root - rest_root)
    np.testing.assert_allclose(reposed[:, :22], expected_joints, atol=1e-6)


@pytest.mark.parametrize("heading_deg", [179.999, 180.0, -179.999, 45.0])
def test_straight_walk_and_turn(heading_deg):
    """A rigid stick body walking forward at 0.05 m a frame, then turning 0.03 rad a frame."""
    rng = np.random.default_rng(1)
    body = rng.normal(scale=0.3, size=(22, 3))
    body[:, 1] += 1.0
    body[0] = [0.0, 1.0, 0.0]
    T, step, w = 20, 0.05, 0.03
    h = np.radians(heading_deg)
    yaw = np.r_[np.full(T // 2, h), h + w * np.arange(1, T - T // 2 + 1)]
    root = np.zeros((T, 3))
    for t in range(1, T):
        root[t] = root[t - 1] + (Rotation.from_rotvec([0, yaw[t - 1], 0]).apply([0, 0, step])
                                 if t <= T // 2 else 0.0)
    joints = np.stack([Rotation.from_rotvec([0, a, 0]).apply(body - body[0]) + r + body[0]
                       for a, r in zip(yaw, root)])
    rotations = np.zeros((T, 22, 3))
    rotations[:, 0, 1] = yaw
    f = skinkit.rep272_features(joints, rotations)
    np.testing.assert_allclose(f[1:T // 2 + 1, 0:2], [[0.0, step]] * (T // 2), atol=1e-12)
    np.testing.assert_allclose(f[T // 2 + 1:, 0:2], 0.0, atol=1e-12)
    turns = skinkit.matrix_from_6d(f[:, 2:8]).transpose(0, 2, 1)
    expected = [0.0] * (T // 2) + [-w] * (T - T // 2)    # the change of the unturning yaw
    np.testing.assert_allclose(turns, Rotation.from_rotvec(
        np.outer(expected, [0, 1, 0])).as_matrix(), atol=1e-12)
    np.testing.assert_allclose(f[1:, 74:140], 0.0, atol=1e-12)   # rigid body: no local motion
    np.testing.assert_allclose(skinkit.matrix_from_6d(f[:, 140:146]), np.eye(3)[None].repeat(T, 0),
                               atol=1e-12)                       # the root without its heading
    back = skinkit.rep272_joints(f)
    turn = Rotation.from_rotvec([0, -h, 0])
    floor = joints[..., 1].min()
    np.testing.assert_allclose(back, turn.apply((joints - [0, floor, 0]).reshape(-1, 3)).reshape(
        T, 22, 3), atol=1e-9)


def test_bad_input():
    with pytest.raises(ValueError, match=r"joints: expected shape"):
        skinkit.rep272_features(np.zeros((3, 21, 3)), np.zeros((3, 22, 3)))
    with pytest.raises(ValueError, match="as many frames"):
        skinkit.rep272_features(np.zeros((3, 22, 3)), np.zeros((4, 22, 3)))
    with pytest.raises(ValueError, match="features: expected shape"):
        skinkit.rep272_joints(np.zeros((3, 263)))
