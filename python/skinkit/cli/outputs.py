"""Where posed frames go: the output kinds of ``skinkit pose``, one row each in ``WRITERS``.

An output is made from what posing will give, before any posing (``layout``: array name ->
(shape, dtype), and the triangles of each primitive), so its size is known first (``size``);
``write`` then takes ``PosedMeshes`` blocks (``Model.pose_blocks``) and writes them as they come,
atomically: an existing output is replaced whole or left untouched.  Adding an output kind is
adding a class and a row.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, Mapping, Optional, Type

from numpy.typing import NDArray

from ..io.mesh_files import FORMATS, FrameWriter, atomic_file
from ..io.npz_stream import NpzStream, npz_size
from ..model.posed import Layout, PosedMeshes

if TYPE_CHECKING:
    from ..model.model import Model

__all__ = ["Output", "NpzOutput", "FramesOutput", "GlbOutput", "WRITERS", "writer_for"]

Faces = Mapping[str, Optional[NDArray[Any]]]


class Output:
    """An output of posed frames (a row of ``WRITERS``).

    Parameters
    ----------
    path : str
        Where to write.
    layout : dict name -> (shape, dtype)
        The arrays posing gives (``skinkit.model.pose.layout``): ``times`` (T,), ``positions_<key>``
        (T, V, 3), ``normals_<key>``, ``joints``.
    faces : mapping key -> int array (F, 3) or None
        Triangles of each mesh primitive (for the mesh outputs).
    format : str, optional
        The mesh format of the frames output ("ply" or "obj").
    normals : bool
        Normals were asked for (the layout holds those of the primitives that have them).
    model : Model, optional
        The model posed (the outputs that carry more than positions read it: UVs, materials).
    """

    usage = ""                          # how --out names it
    max_frames: Optional[int] = None    # at most this many frames (None: any number)
    always_normals = False              # carries the normals the primitives have, asked or not

    def __init__(self, path: str, layout: Layout, faces: Faces, format: Optional[str] = None,
                 normals: bool = False, model: Optional[Model] = None):
        self.path, self.layout, self.faces, self.format = path, layout, dict(faces), format
        self.model = model
        self.normals = normals or self.always_normals
        self.frames = next(iter(layout.values()))[0][0]

    def vertices(self) -> Dict[str, int]:
        """key -> V of every primitive the layout poses."""
        return {name[len("positions_"):]: shape[1] for name, (shape, _) in self.layout.items()
                if name.startswith("positions_")}

    def summary(self) -> str:
        """What the summary line adds after the output's name."""
        return ""

    def size(self) -> int:
        """The bytes the output will take (exact for .npz, an estimate for mesh files)."""
        raise NotImplementedError

    def write(self, blocks: Iterable[PosedMeshes]) -> None:
        """Write the blocks (every frame of the layout, in order)."""
        raise NotImplementedError


class NpzOutput(Output):
    """An .npz of every array of the layout, written block by block (``NpzStream``)."""

    usage = "FILE.npz"

    def size(self) -> int:
        return npz_size(self.layout)

    def write(self, blocks: Iterable[PosedMeshes]) -> None:
        with atomic_file(self.path, suffix=".npz") as f:
            stream = NpzStream(f, self.layout)
            for block in blocks:
                arrays = block.arrays()
                for name in self.layout:
                    stream.write(name, block.times if name == "times" else arrays[name])
            stream.finish()


class _MeshOutput(Output):
    def __init__(self, path: str, layout: Layout, faces: Faces, format: Optional[str] = None,
                 normals: bool = False, model: Optional[Model] = None):
        super().__init__(path, layout, faces, format, normals, model)
        if not self.vertices():
            raise ValueError("the model has no mesh primitives to write as meshes")

    def _per_frame(self, vertex: int, triangle: int, header: int) -> int:
        v = sum(self.vertices().values()) * (vertex * (1 + self.normals))
        f = sum(len(f) for f in self.faces.values() if f is not None) * triangle
        return header + v + f


class FramesOutput(_MeshOutput):
    """A folder of one PLY or OBJ mesh per frame (``skinkit.io.mesh_files.FrameWriter``)."""

    usage = "DIR/"

    def __init__(self, path: str, layout: Layout, faces: Faces, format: Optional[str] = None,
                 normals: bool = False, model: Optional[Model] = None):
        super().__init__(path, layout, faces, format, normals, model)
        self.mesh_format: str = format or "ply"
        missing = [k for k in self.vertices() if normals and f"normals_{k}" not in layout]
        if missing:
            raise ValueError(f"--normals: mesh primitive {missing[0]} has no normals")

    def summary(self) -> str:
        s = "s" * (self.frames != 1)
        return f" ({self.frames} {self.mesh_format.upper()} file{s})"

    def size(self) -> int:
        # binary PLY: float32 xyz (and normals), a count byte and 3 int32 per triangle; OBJ:
        # about 40 characters a "v"/"vn" line and 24 an "f" line
        ply = self.mesh_format == "ply"
        return self.frames * (self._per_frame(12, 13, 300) if ply else self._per_frame(40, 24, 60))

    def write(self, blocks: Iterable[PosedMeshes]) -> None:
        keys = list(self.vertices())
        writer = FrameWriter(self.path, {k: self.faces.get(k) for k in keys}, self.frames,
                             self.mesh_format, normals=self.normals)
        with writer:
            for block in blocks:
                writer.write(block.positions, block.normals if self.normals else None)


class GlbOutput(_MeshOutput):
    """One posed frame as a static glTF binary with the model's UVs and materials
    (``skinkit.io.gltf.write.static_model``)."""

    usage = "FILE.glb"
    max_frames = 1
    always_normals = True

    def size(self) -> int:
        return self._per_frame(12, 12, 2048)

    def write(self, blocks: Iterable[PosedMeshes]) -> None:
        from ..io.gltf.write import static_model, write_gltf

        if self.model is None:
            raise ValueError(f"{self.path}: a .glb output needs the model it poses")
        (posed,) = blocks
        write_gltf(static_model(self.model, posed.positions, posed.normals), self.path)


WRITERS: Dict[str, Type[Output]] = {".npz": NpzOutput, ".glb": GlbOutput, "/": FramesOutput}
"""``--out`` suffix -> output kind; "/" is a folder (a trailing slash, or an existing folder)."""


def writer_for(path: str) -> Optional[Type[Output]]:
    """The output kind ``path`` names (``WRITERS``), or None: a folder for a trailing slash,
    else by the suffix, else a folder if one exists there."""
    seps = tuple(s for s in (os.sep, os.altsep) if s)
    if path.endswith(seps):
        return WRITERS["/"]
    kind = WRITERS.get(Path(path).suffix.lower())
    return WRITERS["/"] if kind is None and os.path.isdir(path) else kind


def known_outputs() -> str:
    """The output kinds for a message: ``FILE.npz, FILE.glb, DIR/ (PLY or OBJ frames)``."""
    return ", ".join(w.usage + (f" ({' or '.join(f.upper() for f in FORMATS)} frames)"
                                if w is FramesOutput else "") for w in WRITERS.values())
