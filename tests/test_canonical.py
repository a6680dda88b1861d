"""The canonical frame (skinkit.motion.canonical) on AMASS-like SMPL+H motions at 120, 60,
59.9999885 and 50 fps: closed-form walks (headings near 180 degrees) and turns in place, the
floor, the first frame's root and facing, and the body parameters that pose the canonical
joints."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.body.synthetic import humanoid_smplh_arrays
from amass_files import write_motion

RATES = [120.0, 60.0, 59.9999885, 50.0]
Y_TO_Z_UP = Rotation.from_rotvec([np.pi / 2, 0.0, 0.0])   # SMPL's +Y up to AMASS's +Z up


@pytest.fixture(scope="module")
def model():
    return skinkit.BodyModel(humanoid_smplh_arrays())


def amass(tmp_path, root_orient, trans, fps):
    """An AMASS-like file of the rest pose but for the root (rotation vectors (T, 3))."""
    poses = np.zeros((len(trans), 156))
    poses[:, :3] = root_orient
    return skinkit.load_amass(write_motion(tmp_path / "m.npz", len(trans), fps=fps, poses=poses,
                                           trans=trans, betas=np.zeros(16)))


@pytest.mark.parametrize("fps", RATES)
@pytest.mark.parametrize("heading_deg", [179.999, 180.0, -179.999, 30.0])
def test_straight_walk(tmp_path, model, fps, heading_deg):
    """A body facing ``heading`` about +Z walking forward at 1.3 m/s, resampled to 20 fps: in
    the canonical frame its root goes along +Z at k / 20 s exactly, facing +Z."""
    T, speed = int(round(1.5 * fps)), 1.3
    turn = Rotation.from_rotvec([0.0, 0.0, np.radians(heading_deg)]) * Y_TO_Z_UP
    forward = turn.apply([0.0, 0.0, 1.0])
    trans = np.arange(T)[:, None] / fps * speed * forward + [3.0, -2.0, 0.4]
    motion = amass(tmp_path, np.tile(turn.as_rotvec(), (T, 1)), trans, fps)
    canon, joints = skinkit.canonical_motion(motion, model, fps=20.0)
    n = int(np.floor((T - 1) / fps * 20 * (1 + 1e-12))) + 1
    assert canon.fps == 20.0 and joints.shape == (n, 52, 3)
    t = np.arange(n) / 20.0
    rest = model(betas=np.zeros(16))[1]
    np.testing.assert_allclose(joints[:, 0, 0], 0.0, atol=1e-9)
    np.testing.assert_allclose(joints[:, 0, 2], speed * t, atol=1e-9)
    foot = rest[[7, 8, 10, 11], 1].min()
    np.testing.assert_allclose(joints[:, 0, 1], rest[0, 1] - foot, atol=1e-9)
    np.testing.assert_allclose(joints - joints[:, :1],  # the rest pose, unturned: facing +Z
                               np.broadcast_to(rest - rest[0], joints.shape), atol=1e-9)


@pytest.mark.parametrize("fps", RATES)
def test_turn_in_place(tmp_path, model, fps):
    """A turn about +Z at 1 rad/s: frame k is the first frame turned k / 20 rad about +Y."""
    T = int(round(2 * fps))
    start = Rotation.from_rotvec([0.0, 0.0, 2.5]) * Y_TO_Z_UP
    orient = [(Rotation.from_rotvec([0.0, 0.0, k / fps]) * start).as_rotvec() for k in range(T)]
    _, joints = skinkit.canonical_motion(amass(tmp_path, orient, np.zeros((T, 3)), fps), model,
                                         fps=20.0)
    for k in range(len(joints)):
        about_root = Rotation.from_rotvec([0.0, k / 20.0, 0.0]).apply(joints[0] - joints[0, 0])
        np.testing.assert_allclose(joints[k] - joints[k, 0], about_root, atol=1e-9)
    np.testing.assert_allclose(joints[:, 0], np.broadcast_to(joints[0, 0], (len(joints), 3)),
                               atol=1e-12)


@pytest.mark.parametrize("fps", RATES)
def test_parameters_pose_the_canonical_joints(tmp_path, model, fps):
    motion = skinkit.load_amass(write_motion(tmp_path / "m.npz", 40, fps=fps, seed=2))
    for floor in ("clip", "frame"):
        canon, joints = skinkit.canonical_motion(motion, model, fps=30.0, floor=floor)
        _, posed = model(betas=canon.betas, pose=canon.poses, transl=canon.transl)
        np.testing.assert_allclose(posed, joints, atol=1e-9)
        feet = joints[:, [7, 8, 10, 11], 1]
        if floor == "clip":
            assert abs(feet.min()) < 1e-12
        else:
            np.testing.assert_allclose(feet.min(axis=1), 0.0, atol=1e-12)
        np.testing.assert_allclose(joints[0, 0, [0, 2]], 0.0, atol=1e-12)
        side = (joints[0, 2] - joints[0, 1]) + (joints[0, 17] - joints[0, 16])
        forward = np.cross([0.0, 1.0, 0.0], side)
        np.testing.assert_allclose(forward / np.linalg.norm(forward), [0, 0, 1], atol=1e-12)
        # a rigid motion of the resampled joints
        _, original = model(betas=canon.betas, pose=motion.resample(30.0).poses,
                            transl=motion.resample(30.0).transl)
        d = np.linalg.norm(original[:, :, None] - original[:, None], axis=-1)
        np.testing.assert_allclose(np.linalg.norm(joints[:, :, None] - joints[:, None], axis=-1),
                                   d, atol=1e-9)


def test_canonical_joints_of_y_up_input():
    rng = np.random.default_rng(0)
    p = rng.normal(size=(5, 22, 3))
    q = Rotation.from_rotvec([0.0, 1.0, 0.0]).apply(p.reshape(-1, 3)).reshape(p.shape) + [1, 2, 3]
    np.testing.assert_allclose(skinkit.canonical_joints(q, z_up=False),
                               skinkit.canonical_joints(p, z_up=False), atol=1e-12)


def test_bad_input():
    p = np.zeros((3, 22, 3))
    with pytest.raises(ValueError, match="vertical"):
        skinkit.canonical_joints(p)
    with pytest.raises(ValueError, match="floor"):
        skinkit.canonical_joints(np.random.default_rng(0).normal(size=(3, 22, 3)), floor="x")
    with pytest.raises(ValueError, match="feet"):
        skinkit.canonical_joints(np.ones((3, 22, 3)), feet=(30,))
    with pytest.raises(ValueError, match="joints: expected finite"):
        skinkit.canonical_joints(np.full((3, 22, 3), np.nan))
