"""
A clip's channels over time
===========================

``Clip.sample`` samples every channel of a clip at many times in one call (glTF 2.0 Appendix C:
LINEAR with shortest-path slerp here).  Plotted: the rotation angle of the six joints that turn most,
relative to their rest rotation, and the translation of the node that moves most, over the character's "Run" clip, with the keyframe times of
one channel marked.
"""
import matplotlib.pyplot as plt
import numpy as np

import skinkit

model = skinkit.data.character()                  # the sample character (procedural)
clip = next(c for c in model.clips if c.name == "Run")
sk = model.skeleton
times = np.linspace(0.0, clip.duration, 400)
t, r, s = clip.sample(times, rest=(sk.translations, sk.rotations, sk.scales))  # (T, N, 3|4|3)

# angle between the sampled and the rest rotation of each node: 2 acos(|q_rest^-1 q|)
rel = skinkit.quat_multiply(skinkit.quat_conjugate(sk.rotations), r)
angle = np.degrees(2 * np.arccos(np.clip(np.abs(rel[..., 3]), 0.0, 1.0)))
moving = np.argsort(np.ptp(angle, axis=0))[::-1][:6]          # the six widest ranges
name = [n or f"node {i}" for i, n in enumerate(sk.names)]

fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for n in moving:
    top.plot(times, angle[:, n], linewidth=1, label=name[n])
top.set_ylabel("rotation from rest (degrees)")
top.set_title(f'character, clip "{clip.name}"')
top.legend(fontsize=7, ncol=3)
root = int(np.argmax(np.ptp(t, axis=0).max(axis=1)))          # the node that moves most
for c, axis in enumerate("xyz"):
    bottom.plot(times, t[:, root, c], label=f"{name[root]} {axis}")
keys = clip.channels[0].times
bottom.plot(keys, np.full_like(keys, t[:, root].min() - 3), "|", color="k", markersize=8,
            label=f"keyframes of channel 0 ({len(keys)})")
bottom.set_xlabel("time (s)")
bottom.set_ylabel("translation")
bottom.legend(fontsize=7)
fig.tight_layout()
plt.show()
