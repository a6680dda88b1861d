"""
A skeleton at rest and posed
============================

``skinkit.apps.plot.plot_skeleton`` draws a skin's joints and bones on 3D axes: here the skeleton
of the sample character (``skinkit.data``: a procedural humanoid) in its rest pose and 0.3 s into its
walk (``Model.world_matrices``: one ``forward_kinematics`` call for the whole hierarchy).
"""
import matplotlib.pyplot as plt

import skinkit
from skinkit.apps.plot import plot_skeleton

model = skinkit.data.character()

fig = plt.figure(figsize=(8, 4))
rest = plot_skeleton(model, ax=fig.add_subplot(1, 2, 1, projection="3d"))
rest.set_title("rest pose")
posed = plot_skeleton(model, model.world_matrices(clip="Walk", times=[0.3]),
                      ax=fig.add_subplot(1, 2, 2, projection="3d"))
posed.set_title('"Walk" at t = 0.3 s')
plt.show()
