"""File formats, one room each: every reader is a pure function from a path to skinkit's data
model (:mod:`skinkit.io.gltf`, :mod:`skinkit.io.fbx`, :mod:`skinkit.io.bvh.read`,
:mod:`skinkit.io.body`); :mod:`skinkit.io.detect` tells them apart by content (``load_model``)."""
