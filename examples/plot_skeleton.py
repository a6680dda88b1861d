"""
A skeleton at rest and posed
============================

``skinkit.plot.plot_skeleton`` draws a skin's joints and bones on 3D axes: here CesiumMan's
skeleton in its rest pose and at 1 s into its walk (``Model.world_matrices``: one
``forward_kinematics`` call for the whole hierarchy).
"""
from pathlib import Path

import matplotlib.pyplot as plt

import skinkit
from skinkit.plot import plot_skeleton

# the repository: this file's folder's parent (the gallery runs examples in examples/, no __file__)
ROOT = Path(globals().get("__file__", "plot.py")).resolve().parent.parent
DATA = ROOT / "tests" / "data"
model = skinkit.load_gltf(DATA / "gltf" / "CesiumMan.glb")

fig = plt.figure(figsize=(8, 4))
rest = plot_skeleton(model, ax=fig.add_subplot(1, 2, 1, projection="3d"))
rest.set_title("rest pose")
posed = plot_skeleton(model, model.world_matrices(clip=0, times=[1.0]),
                      ax=fig.add_subplot(1, 2, 2, projection="3d"))
posed.set_title("clip 0 at t = 1 s")
plt.show()
