"""
A skinned mesh through a walk cycle
===================================

One ``Model.pose`` call poses the mesh at four times of the clip (sampling, forward kinematics,
skinning matrices and linear blend skinning, each one batched call); ``skinkit.apps.plot.plot_mesh``
draws each pose with the skeleton over it.  The model is the sample character
(``skinkit.data``), walking.
"""
import matplotlib.pyplot as plt
import numpy as np

import skinkit
from skinkit.apps.plot import plot_mesh, plot_skeleton

model = skinkit.data.character()
prim = model.primitives[0]
times = np.linspace(0.0, model.clip("Walk").duration, 4, endpoint=False)
positions = model.pose(clip="Walk", times=times)[prim.key]     # (4, V, 3)
world = model.world_matrices(clip="Walk", times=times)         # (4, N, 4, 4)

fig = plt.figure(figsize=(10, 3.2))
for i, t in enumerate(times):
    ax = fig.add_subplot(1, len(times), i + 1, projection="3d")
    plot_mesh(positions[i], prim.faces, ax=ax)
    plot_skeleton(model, world[i:i + 1], ax=ax)
    ax.set_title(f"t = {t:.2f} s")
    ax.set_axis_off()
plt.show()
