"""Foot locking (skinkit/footlock.py): contacts from thresholds, and after two-bone IK the feet
stay where their contacts began (drift measured with forward kinematics) while the bones keep
their lengths."""
import numpy as np

import skinkit
from skinkit.motion.footlock import foot_contacts, foot_drift, lock_feet
from skinkit.model.humanoid import humanoid_model


def sliding_walk(model, T=61, fps=30):
    """a walk whose feet slide: legs swing while the hips glide forward at constant speed"""
    names = model.skeleton.names
    t = np.arange(T) / fps
    phase = 2 * np.pi * t / 1.0
    ch = []
    for side, sign in (("Left", 1.0), ("Right", -1.0)):
        hip = names.index(f"mixamorig:{side}UpLeg")
        knee = names.index(f"mixamorig:{side}Leg")
        swing = 0.35 * sign * np.sin(phase)
        bend = 0.4 * np.clip(np.sin(phase + sign * np.pi / 2), 0, None)
        ch.append(skinkit.Channel(hip, "rotation", t, np.stack(
            [np.sin(swing / 2), 0 * t, 0 * t, np.cos(swing / 2)], 1)))
        ch.append(skinkit.Channel(knee, "rotation", t, np.stack(
            [np.sin(bend / 2), 0 * t, 0 * t, np.cos(bend / 2)], 1)))
    root = np.stack([0 * t, 0.93 + 0.01 * np.cos(2 * phase), 0.8 * t], 1)
    ch.append(skinkit.Channel(0, "translation", t, root))
    return skinkit.Clip("walk", ch), t


def feet(model, clip, t):
    w = model.world_matrices(clip, t)[..., :3, 3]
    n = model.skeleton.names
    return {s: w[:, n.index(f"mixamorig:{s.capitalize()}Foot")] for s in ("left", "right")}, w


def test_contacts_follow_the_thresholds():
    t = np.arange(10) / 10
    p = np.zeros((10, 3))
    p[:, 1] = [0, 0, 0.01, 0.2, 0.3, 0.2, 0.01, 0, 0, 0]
    p[7:, 0] = [0, 1, 2]     # slides fast at the end
    c = foot_contacts(p, t, height=0.02, speed=1.5)    # frames 2 and 6: 1.0 per second
    np.testing.assert_array_equal(c, [1, 1, 1, 0, 0, 0, 1, 0, 0, 0])
    d = foot_drift(p, c)
    np.testing.assert_array_equal(d, 0.0)


def test_locked_feet_stay_put():
    model = humanoid_model("mixamo", "A", bone_frames=True)
    clip, t = sliding_walk(model)
    before, wb = feet(model, clip, t)
    locked, contacts = lock_feet(model, clip, height=0.04, speed=2.0, blend=0)
    after, wa = feet(model, locked, t)
    for side in before:
        c = contacts[side]
        assert 5 < c.sum() < len(t) - 5
        drift_before = foot_drift(before[side], c)
        drift_after = foot_drift(after[side], c)
        assert drift_before.max() > 0.1 and drift_after.max() < drift_before.max() / 10
        # where the held point is within the leg's reach, the foot is on it to 1e-6 of the
        # figure's height; beyond (a stretched leg) the IK leaves a straight leg toward it
        n = model.skeleton.names
        hip, knee = (n.index(f"mixamorig:{side.capitalize()}{j}") for j in ("UpLeg", "Leg"))
        leg = (np.linalg.norm(wb[0, knee] - wb[0, hip]) + np.linalg.norm(before[side][0] - wb[0, knee]))
        held = np.array([before[side][a] for a in np.maximum.accumulate(
            np.where(c & ~np.r_[False, c[:-1]], np.arange(len(c)), 0))])
        reach = np.linalg.norm(held - wa[:, hip], axis=1) < 0.999 * leg
        assert (c & reach).sum() > 5
        assert drift_after[c & reach].max() < 1e-6 * 1.75, (side, drift_after[c & reach].max())
        # outside the contacts (blend 0) the pose is unchanged
        np.testing.assert_allclose(after[side][~c], before[side][~c], atol=1e-12)
    # bone lengths are kept
    parents = np.asarray(model.skeleton.parents)
    lb = np.linalg.norm(wb[:, 1:] - wb[:, parents[1:]], axis=-1)
    la = np.linalg.norm(wa[:, 1:] - wa[:, parents[1:]], axis=-1)
    np.testing.assert_allclose(la, lb, atol=1e-12)
