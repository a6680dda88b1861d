"""HumanML3D's 263-dim features (skinkit.motion.humanml3d) against the repository's published pair
012314 (shared/humanml3d: its joints and features), SciPy's Gaussian filter, and closed-form
motions: a straight walk, a turn in place, headings near 180 degrees, feet at the threshold."""
import numpy as np
import pytest
from scipy.ndimage import gaussian_filter1d
from scipy.spatial.transform import Rotation

from conftest import shared_file
import skinkit
from skinkit.motion import humanml3d as h

STORED = "humanml3d/HumanML3D/{}/012314.npy"


@pytest.fixture(scope="module")
def published(shared):
    joints = np.load(shared_file(shared, STORED.format("new_joints")))
    features = np.load(shared_file(shared, STORED.format("new_joint_vecs")))
    return joints, features


def full_motion(joints, features):
    """The published motion: its T - 1 stored frames and the last one, which only the last row's
    joint velocities hold (turned back by the integrated heading)."""
    angle = features[:-1, 0].astype(np.float64).sum()
    unturn = Rotation.from_rotvec([0.0, -2.0 * angle, 0.0])
    last = joints[-1] + unturn.apply(features[-1, 193:259].reshape(22, 3).astype(np.float64))
    return np.concatenate([joints.astype(np.float64), last[None]])


def test_joints_of_the_published_features(published):
    joints, features = published
    got = skinkit.humanml3d_joints(features)
    assert got.shape == joints.shape == (170, 22, 3)
    np.testing.assert_allclose(got, joints, rtol=0, atol=1e-5)
    batched = skinkit.humanml3d_joints(np.stack([features, features]))
    np.testing.assert_array_equal(batched[1], got)


@pytest.mark.parametrize("preprocess", [True, False])
def test_features_of_the_published_motion(published, preprocess):
    """The preprocessed motion of 171 frames gives the 170 stored rows; preprocessing it again
    changes nothing it measures (it is on the uniform skeleton, floor and facing already)."""
    joints, features = published
    motion = full_motion(joints, features)
    if preprocess:
        motion = skinkit.humanml3d_preprocess(motion)
        np.testing.assert_allclose(motion, full_motion(joints, features), atol=2e-6)
    got = skinkit.humanml3d_features(motion)
    assert got.shape == features.shape == (170, 263)
    np.testing.assert_allclose(got, features, rtol=0, atol=1e-5)
    np.testing.assert_array_equal(got[:, 259:], features[:, 259:])  # contacts, 0 or 1
    # the smoothed facing of every frame but the first would turn the first row by 0.1 rad
    assert abs(features[0, 0] - features[1, 0]) > 0.05


def test_gaussian_smoothing_is_scipys():
    x = np.random.default_rng(0).normal(size=(300, 3)).cumsum(0)
    np.testing.assert_allclose(h._gaussian_smooth(x, 20.0),
                               gaussian_filter1d(x, 20.0, axis=0, mode="nearest"), atol=1e-12)
    short = x[:30]  # shorter than the kernel's radius (80 frames)
    np.testing.assert_allclose(h._gaussian_smooth(short, 20.0),
                               gaussian_filter1d(short, 20.0, axis=0, mode="nearest"), atol=1e-12)



@pytest.fixture(scope="module")
def pose(published):
    """One pose (22, 3) on the uniform skeleton facing +Z, root at the origin."""
    return skinkit.humanml3d_preprocess(published[0][:1])[0]


def walk(pose, frames, step, heading=0.0):
    """Straight walk: the pose translated by ``step`` metres a frame along its facing, which is
    ``heading`` radians about +Y from +Z."""
    turn = Rotation.from_rotvec([0.0, heading, 0.0])
    forward = turn.apply([0.0, 0.0, step])
    return turn.apply(pose)[None] + np.arange(frames)[:, None, None] * forward


@pytest.fixture(scope="module")
def rest():
    """The uniform skeleton's rest pose (bones along their rest directions, arms down), whose
    hips and shoulders lie along X: both of HumanML3D's facings are +Z."""
    return h._chain_positions(np.tile([0.0, 0.0, 0.0, 1.0], (1, 22, 1)), np.zeros((1, 3)),
                              h.HUMANML3D_BONE_LENGTHS)[0]


def test_rest_pose_by_plain_sums(rest):
    expected = np.zeros((22, 3))
    for j, parent in enumerate(h.HUMANML3D_PARENTS[1:], 1):
        expected[j] = expected[parent] + h.DIRECTIONS[j] * h.HUMANML3D_BONE_LENGTHS[j]
    np.testing.assert_allclose(rest, expected, atol=1e-15)


def test_straight_walk(rest):
    T, step = 60, 0.05
    f = skinkit.humanml3d_features(walk(rest, T, step))
    np.testing.assert_allclose(f[:, 0], 0.0, atol=1e-12)          # no turn
    np.testing.assert_allclose(f[:, 1:3], [[0.0, step]] * (T - 1), atol=1e-12)
    np.testing.assert_allclose(f[:, 3], rest[0, 1], atol=1e-12)
    np.testing.assert_allclose(f[:, 193:259].reshape(T - 1, 22, 3),
                               np.broadcast_to([0.0, 0.0, step], (T - 1, 22, 3)), atol=1e-12)
    np.testing.assert_array_equal(f[:, 259:], 0.0)  # each foot's squared step 0.0025 > 0.002
    ric = f[:, 4:67].reshape(T - 1, 21, 3)
    np.testing.assert_allclose(ric, np.broadcast_to(rest[1:], ric.shape), atol=1e-12)
    six = f[:, 67:193].reshape(T - 1, 21, 6)                          # no bone turned
    np.testing.assert_allclose(six, np.broadcast_to([1.0, 0, 0, 0, 1, 0], six.shape), atol=1e-12)


def test_first_row_turns_from_the_identity(pose):
    """On a real pose facing +Z, the features' own facing (hips left to right, shoulders right
    to left) is not +Z: the first row's turn is half the angle from it (plain trigonometry)."""
    side = (pose[1] - pose[2]) + (pose[17] - pose[16])
    forward = np.cross([0.0, 1.0, 0.0], side)
    f = skinkit.humanml3d_features(walk(pose, 10, 0.01))
    np.testing.assert_allclose(f[0, 0], -np.arctan2(forward[0], forward[2]) / 2, atol=1e-12)
    np.testing.assert_allclose(f[1:, 0], 0.0, atol=1e-12)


@pytest.mark.parametrize("heading_deg", [179.999, 180.0, -179.999, 90.0])
def test_headings_near_half_a_turn(pose, heading_deg):
    """Preprocessing turns any heading to +Z (at 180 degrees exactly, HumanML3D's qbetween gives
    NaN); the features after the first row do not depend on the heading or the place (the first
    row's facing is the identity, as HumanML3D's is), but for the bone rotations: a chain's first
    bone turns the shortest way from its rest direction, which does not turn with the body."""
    heading = np.radians(heading_deg)
    moved = walk(pose, 30, 0.03, heading) + [1.5, 0.0, -2.0]
    pre = skinkit.humanml3d_preprocess(moved)
    np.testing.assert_allclose(pre, walk(pose, 30, 0.03), atol=1e-9)
    kept = np.r_[0:67, 193:263]
    np.testing.assert_allclose(skinkit.humanml3d_features(moved)[1:, kept],
                               skinkit.humanml3d_features(walk(pose, 30, 0.03))[1:, kept],
                               atol=1e-9)


def test_turn_in_place(rest):
    """A constant turn of w radians a frame: away from the ends (four sigmas of the smoothing),
    the first feature is -w / 2 (HumanML3D's arcsin of the y of the world-to-facing turn) but
    where the heading passes half a turn, where HumanML3D's sign flips (``continuous=False``,
    the published features); the root-relative positions are those of the pose."""
    T, w = 240, 0.02
    motion = np.stack([Rotation.from_rotvec([0.0, w * t, 0.0]).apply(rest) for t in range(T)])
    published = skinkit.humanml3d_features(motion)
    f = skinkit.humanml3d_features(motion, continuous=True)
    middle = slice(82, T - 82)
    np.testing.assert_allclose(f[middle, 0], -w / 2, atol=1e-9)
    half_turn = int(np.pi / w)                       # the heading passes pi after this frame
    flipped = np.flatnonzero(np.abs(published[:, 0] - f[:, 0]) > 1e-9)
    np.testing.assert_array_equal(flipped, [half_turn])
    np.testing.assert_allclose(published[half_turn, 0], w / 2, atol=1e-9)
    np.testing.assert_array_equal(np.delete(published, half_turn, 0)[:, 1:],
                                  np.delete(f, half_turn, 0)[:, 1:])
    ric = f[middle, 4:67].reshape(-1, 21, 3)
    np.testing.assert_allclose(ric, np.broadcast_to(rest[1:], ric.shape), atol=1e-9)
    np.testing.assert_allclose(skinkit.humanml3d_joints(f), motion[:-1], atol=1e-9)


def test_inverse_of_forward(published):
    """recover_from_ric gives back the preprocessed motion (one frame fewer)."""
    joints, features = published
    motion = skinkit.humanml3d_preprocess(full_motion(joints, features))
    back = skinkit.humanml3d_joints(skinkit.humanml3d_features(motion))
    np.testing.assert_allclose(back, motion[:-1], atol=1e-9)


def test_feet_at_the_contact_threshold(pose):
    """A foot joint's squared step just below 0.002 is a contact, just above is not."""
    T = 5
    motion = np.repeat(pose[None], T, 0)
    below, above = np.sqrt(0.002 * (1 - 1e-9)), np.sqrt(0.002 * (1 + 1e-9))
    for t in range(T):
        motion[t, 7, 0] += below * t    # left ankle: contact
        motion[t, 10, 0] += above * t   # left toe: none
        motion[t, 8, 2] += above * t    # right ankle: none
    f = skinkit.humanml3d_features(motion)
    np.testing.assert_array_equal(f[:, 259:], [[1, 0, 0, 1]] * (T - 1))
    f = skinkit.humanml3d_features(motion, foot_threshold=0.003)
    np.testing.assert_array_equal(f[:, 259:], 1)


def test_bad_input(pose):
    with pytest.raises(ValueError, match=r"joints: expected shape \(T >= 2, 22, 3\)"):
        skinkit.humanml3d_features(pose[None])
    with pytest.raises(ValueError, match="joints: expected finite"):
        skinkit.humanml3d_features(np.full((3, 22, 3), np.nan))
    with pytest.raises(ValueError, match="features: expected shape"):
        skinkit.humanml3d_joints(np.zeros((4, 262)))
    with pytest.raises(ValueError, match="bone_lengths"):
        skinkit.humanml3d_preprocess(pose[None], bone_lengths=np.zeros(22))


@pytest.mark.parametrize("fps", [120.0, 60.0, 59.9999885, 50.0])
def test_inverse_of_forward_on_amass_motions(tmp_path, fps):
    """An AMASS-like SMPL+H motion at ``fps``, resampled to HumanML3D's 20 fps (exact times,
    where its integer stride would take 3, 3, 2 and 2 frames), canonical, preprocessed: the
    features give its joints back, one frame fewer."""
    from skinkit.body.synthetic import humanoid_smplh_arrays
    from amass_files import write_motion
    model = skinkit.BodyModel(humanoid_smplh_arrays(num_vertices=100))
    motion = skinkit.load_amass(write_motion(tmp_path / "m.npz", int(3 * fps), fps=fps, seed=3))
    canon, joints = skinkit.canonical_motion(motion, model, fps=20.0)
    assert len(joints) == int(np.floor((int(3 * fps) - 1) / fps * 20 * (1 + 1e-12))) + 1
    motion22 = skinkit.humanml3d_preprocess(joints[:, :22])
    parents = list(h.HUMANML3D_PARENTS[1:])
    lengths = np.linalg.norm(motion22[:, 1:] - motion22[:, parents], axis=-1)
    np.testing.assert_allclose(lengths, np.broadcast_to(h.HUMANML3D_BONE_LENGTHS[1:],
                                                        lengths.shape), atol=1e-9)
    f = skinkit.humanml3d_features(motion22, continuous=True)  # random turns may pass pi
    np.testing.assert_allclose(skinkit.humanml3d_joints(f), motion22[:-1], atol=1e-9)
