"""File formats, one room each: every reader is a pure function from a path to skinkit's data
model (:mod:`skinkit.io.gltf`, :mod:`skinkit.io.fbx`, :mod:`skinkit.io.bvh.read`,
:mod:`skinkit.io.body`); :mod:`skinkit.io.formats` tells them apart by content and :mod:`skinkit.io.load` dispatches (``load_model``)."""
