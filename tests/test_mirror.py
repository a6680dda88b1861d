"""Mirroring (skinkit.motion.mirror): the joint permutation from the name presets, the reflected
rotations, and the posed joints of the mirrored motion against the reflection of the original's
(forward kinematics and a symmetric SMPL+H body model)."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import skinkit
from skinkit.body.synthetic import humanoid_smplh_arrays
from skinkit.model.humanoid import humanoid_model
from skinkit.model.joint_names import SMPL_JOINT_NAMES, SMPLH_JOINT_NAMES, SMPLX_JOINT_NAMES
from skinkit.motion.mirror import mirror_permutation, mirror_positions, mirror_rotations
from amass_files import write_motion, write_motion_smplx

BODY_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19]


def hand_parents(wrists, first):
    parents = []
    for wrist in wrists:
        for _ in range(5):
            parents += [wrist, first + len(parents), first + len(parents) + 1]
    return parents


LAYOUTS = {   # names, parents (SMPL's 24, SMPL+H's 52, SMPL-X's 55 as smplx orders them)
    "smpl": (SMPL_JOINT_NAMES, BODY_PARENTS + [20, 21]),
    "smplh": (SMPLH_JOINT_NAMES, BODY_PARENTS + hand_parents((20, 21), 22)),
    "smplx": (SMPLX_JOINT_NAMES, BODY_PARENTS + [15, 15, 15] + hand_parents((20, 21), 25)),
}


def swapped(name):
    return name.replace("left", "@").replace("right", "left").replace("@", "right")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_permutation_of_the_body_layouts(layout):
    names, parents = LAYOUTS[layout]
    perm = mirror_permutation(names)
    assert [names[i] for i in perm] == [swapped(n) for n in names]
    parents = np.array(parents)
    assert (np.where(parents >= 0, perm[np.maximum(parents, 0)], -1) == parents[perm]).all()


def test_permutation_of_a_mixamo_rig():
    names = humanoid_model("mixamo", "T").skeleton.names
    perm = mirror_permutation(names)
    for i, j in enumerate(perm):
        assert names[j] == names[i].replace("Left", "@").replace("Right", "Left").replace(
            "@", "Right")
    assert (perm != np.arange(len(names))).sum() >= 8


def test_permutation_refuses_names_without_sides():
    with pytest.raises(ValueError, match="no left/right joint pairs"):
        mirror_permutation(["a", "b", "c"])


def symmetric_offsets(parents, perm, rng):
    """Rest joint positions symmetric about x = 0, as local offsets."""
    J = len(parents)
    rest = np.zeros((J, 3))
    for j in range(1, J):
        if perm[j] == j:
            rest[j] = [0.0, *rng.normal(size=2)]
        elif perm[j] > j:
            rest[j] = rng.normal(size=3)
            rest[perm[j]] = rest[j] * [-1, 1, 1]
    return rest, rest - np.where(np.array(parents)[:, None] >= 0, rest[np.maximum(parents, 0)], 0)


def world_positions(parents, q, offsets, root):
    t = np.broadcast_to(offsets, q.shape[:-1] + (3,)).copy()
    t[..., 0, :] += root
    return skinkit.forward_kinematics(np.array(parents), q, t)[..., :3, 3]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mirrored_joints_are_the_reflection(layout):
    names, parents = LAYOUTS[layout]
    rng = np.random.default_rng(3)
    perm = mirror_permutation(names)
    _, offsets = symmetric_offsets(parents, perm, rng)
    T = 20
    q = Rotation.random(T * len(names), random_state=4).as_quat().reshape(T, len(names), 4)
    root = rng.normal(size=(T, 3))
    p = world_positions(parents, q, offsets, root)
    q2 = mirror_rotations(q, perm)
    p2 = world_positions(parents, q2, offsets, mirror_positions(root))
    extent = np.ptp(p.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(p2, mirror_positions(p)[:, perm], atol=1e-6 * extent)
    # twice: the identity, bitwise for the permutation
    assert np.array_equal(mirror_rotations(q2, perm), q)


def test_rest_rotated_skeleton():
    """A rig whose rest joints carry arbitrary rotations: the corrected rule keeps the rest pose
    and reflects the posed joints."""
    names, parents = LAYOUTS["smpl"]
    rng = np.random.default_rng(5)
    perm = mirror_permutation(names)
    rest, _ = symmetric_offsets(parents, perm, rng)
    J = len(names)
    rest_world = Rotation.random(J, random_state=6)
    par = np.array(parents)
    parent_world = [Rotation.identity() if p < 0 else rest_world[p] for p in par]
    rest_local = np.array([(parent_world[j].inv() * rest_world[j]).as_quat() for j in range(J)])
    offsets = np.array([parent_world[j].inv().apply(rest[j] - (rest[par[j]] if par[j] >= 0
                                                                else 0)) for j in range(J)])
    args = dict(parents=par, rest_world=rest_world.as_quat())
    np.testing.assert_allclose(np.abs(np.sum(mirror_rotations(rest_local, perm, **args)
                                             * rest_local, -1)), 1.0, atol=1e-12)
    T = 10
    q = Rotation.random(T * J, random_state=7).as_quat().reshape(T, J, 4)
    root = rng.normal(size=(T, 3))
    q2 = mirror_rotations(q, perm, **args)
    p = world_positions(parents, q, offsets, root)
    p2 = world_positions(parents, q2, offsets, mirror_positions(root))
    extent = np.ptp(p.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(p2, mirror_positions(p)[:, perm], atol=1e-6 * extent)
    back = mirror_rotations(q2, perm, **args)
    np.testing.assert_allclose(np.abs(np.sum(back * q, -1)), 1.0, atol=1e-12)


@pytest.mark.parametrize("writer", [write_motion, write_motion_smplx])
def test_mirror_amass_motion_twice_is_bitwise(tmp_path, writer):
    motion = skinkit.load_amass(writer(tmp_path / "m.npz", 12, fps=60.0))
    root = np.array([0.01, 0.9, -0.02])
    twice = skinkit.mirror(skinkit.mirror(motion, root), root)
    np.testing.assert_array_equal(twice.poses, motion.poses)
    np.testing.assert_allclose(twice.transl, motion.transl, rtol=0, atol=1e-15)


def test_mirrored_smplh_body_joints_are_the_reflection(tmp_path):
    """A symmetric SMPL+H body model (a person's T pose at betas 0), moved 5 cm off the mirror
    plane so that the root's rest position matters, posed by an AMASS-like motion and by its
    mirror."""
    arrays = humanoid_smplh_arrays()
    arrays["v_template"] = arrays["v_template"] + [0.05, 0.0, 0.0]
    model = skinkit.BodyModel(arrays)
    perm = mirror_permutation(SMPLH_JOINT_NAMES)
    rest = model(betas=np.zeros(16))[1]
    np.testing.assert_allclose(mirror_positions(rest - [0.05, 0, 0])[perm], rest - [0.05, 0, 0],
                               atol=1e-12)
    motion = skinkit.load_amass(write_motion(tmp_path / "m.npz", 15, fps=120.0))
    _, joints = model(pose=motion.poses, transl=motion.transl)
    m = skinkit.mirror(motion, root=rest[0])
    _, mirrored = model(pose=m.poses, transl=m.transl)
    extent = np.ptp(joints.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(mirrored, mirror_positions(joints)[:, perm], atol=1e-6 * extent)
    _, unpivoted = model(pose=m.poses, transl=skinkit.mirror(motion).transl)
    assert np.abs(unpivoted - mirrored).max() > 0.09          # 2 x 5 cm without the pivot


def test_bad_input(tmp_path):
    perm = mirror_permutation(SMPL_JOINT_NAMES)
    with pytest.raises(ValueError, match="involution"):
        mirror_rotations(np.zeros((24, 4)), np.zeros(24, int))
    with pytest.raises(ValueError, match="axis"):
        mirror_rotations(np.zeros((24, 4)), perm, axis=3)
    with pytest.raises(ValueError, match="parents"):
        mirror_rotations(np.zeros((24, 4)), perm, rest_world=np.zeros((24, 4)))
    motion = skinkit.load_amass(write_motion(tmp_path / "m.npz", 3))
    with pytest.raises(ValueError, match="root"):
        skinkit.mirror(motion, root=[0.0, 1.0])
