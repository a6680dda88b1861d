"""
Retargeting a body motion onto a character, foot locking, animated export
==========================================================================

A SMPL+H-style walk (a synthetic body model: the real SMPL+H joint tree with a human joint
layout, random mesh) is retargeted onto a Mixamo-like character with longer legs in an A pose
(``skinkit.retarget``), its feet are pinned during their contacts with two-bone IK
(``skinkit.lock_feet``), and the result is written as an animated glb (``skinkit.write_gltf``)
and a BVH (``skinkit.write_bvh``), both read back to measure the round trip.  Plotted: the
horizontal drift of each foot from where its contact began, before and after the IK.
"""
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import skinkit
from skinkit.body.export import body_clip, body_model_to_model
from skinkit.body.synthetic import humanoid_smplh_arrays
from skinkit.model.humanoid import humanoid_model
from skinkit.model.joint_names import SMPLH_JOINT_NAMES

# %%
# A SMPL+H-style body: the synthetic arrays with SMPL+H's joint tree and the joints where the
# humanoid's are, fingers fanned out from the wrists (skinkit.body.synthetic)
body = skinkit.BodyModel(humanoid_smplh_arrays(seed=1))
source = body_model_to_model(body)

# %%
# An AMASS-style walk: hips, knees and ankles swing, the arms counter-swing, the root glides
# forward at a constant 1.1 m/s (so the feet slide, as generated motion often does)
fps, T = 30, 90
t = np.arange(T) / fps
phase = 2 * np.pi * t / 1.1
pose = np.zeros((T, 52, 3))
for side, sign in (("left", 1.0), ("right", -1.0)):
    n = {j: SMPLH_JOINT_NAMES.index(f"{side}_{j}") for j in ("hip", "knee", "ankle", "shoulder")}
    pose[:, n["hip"], 0] = -0.45 * sign * np.sin(phase)
    pose[:, n["knee"], 0] = 0.2 + 0.6 * np.clip(np.sin(phase + sign * np.pi / 2), 0, None)
    pose[:, n["ankle"], 0] = 0.15 * sign * np.sin(phase)
    pose[:, n["shoulder"], 2] = -sign * 1.2
    pose[:, n["shoulder"], 1] = 0.3 * sign * np.sin(phase)
trans = np.stack([0 * t, -0.04 + 0.015 * np.cos(2 * phase), 1.1 * t], 1)
walk = body_clip(body, pose, trans, fps=fps, name="walk")
source.clips = [walk]

# %%
# Retarget onto the character and lock its feet
character = humanoid_model("mixamo", "A", bone_frames=True, scale=1.05, leg_scale=1.15)
retargeted = skinkit.retarget(source, character, walk, root_scale="hips")
locked, contacts = skinkit.lock_feet(character, retargeted, height=0.05, speed=1.2)
character.clips = [locked]

feet = {s: character.skeleton.names.index(f"mixamorig:{s.capitalize()}Foot")
        for s in ("left", "right")}
before = character.world_matrices(retargeted, t)[..., :3, 3]
after = character.world_matrices(locked, t)[..., :3, 3]
fig, axes = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
for ax, (side, j) in zip(axes, feet.items()):
    c = contacts[side]
    d0 = skinkit.foot_drift(before[:, j], c)
    d1 = skinkit.foot_drift(after[:, j], c)
    ax.fill_between(t, 0, c * max(d0.max(), 1e-3), color="0.9", step="mid", label="contact")
    ax.plot(t, d0, label="retargeted")
    ax.plot(t, d1, label="after foot locking")
    ax.set_ylabel(f"{side} foot drift (m)")
    print(f"{side} foot: {c.sum()} contact frames, drift max {d0.max():.3f} m before, "
          f"{d1.max():.2e} m after (mean {d0[c].mean():.3f} / {d1[c].mean():.2e} m)")
axes[0].legend(loc="upper right")
axes[-1].set_xlabel("time (s)")
fig.suptitle("Foot drift during contacts, SMPL+H walk on a Mixamo-like character")
fig.tight_layout()

# %%
# Write the animated character, and the BVH, then read both back
with tempfile.TemporaryDirectory() as folder:
    glb = Path(folder) / "walk.glb"
    skinkit.write_gltf(character, glb)
    back = skinkit.load_gltf(glb, dtype=np.float32)
    ours = character.pose(0, t)["0_0"]
    theirs = list(back.pose(0, t).values())[0]
    size = np.ptp(ours.reshape(-1, 3), axis=0).max()
    print(f"glb: {glb.stat().st_size} bytes, round trip {np.abs(theirs - ours).max() / size:.1e} "
          "of the character's size (float32)")
    bvh = Path(folder) / "walk.bvh"
    skinkit.write_bvh(character, 0, bvh, frame_time=1 / fps)
    b = skinkit.load_bvh(bvh)
    idx = [b.skeleton.names.index(n) for n in character.skeleton.names]
    wb = b.world_matrices(0, t)[:, idx][..., :3, 3]
    print(f"bvh: round trip {np.abs(wb - after).max() / size:.1e} of the size (float64)")
    # the body itself, with its pose correctives as morph targets
    body_glb = Path(folder) / "body.glb"
    bm = body_model_to_model(body, correctives=True)
    skinkit.write_gltf(bm, body_glb, clips=[body_clip(body, pose, trans, fps=fps,
                                                      correctives=True)])
    got = list(skinkit.load_gltf(body_glb, dtype=np.float32).pose(0, t).values())[0]
    want = body.forward(None, pose, trans)[0]
    bsize = np.ptp(want.reshape(-1, 3), axis=0).max()
    print(f"body glb with correctives: {np.abs(got - want).max() / bsize:.1e} of its size")
