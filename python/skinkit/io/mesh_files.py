"""Mesh export: posed meshes as PLY/OBJ frame sequences or as one static glTF binary (GLB).

The writing is done by trimesh (the optional extra ``skinkit[export]``; imported only when a
writer runs, so ``import skinkit`` never needs it).  Every writer is atomic: it writes to a
temporary file or folder beside the target and renames it into place, so a failed or interrupted
write leaves an existing output untouched.

Layout of a frame sequence (``write_frames``, ``skinkit pose --out DIR/``): one file per frame,
``frame_0000.ply``, ``frame_0001.ply``, ... (more digits past 10 000 frames), each holding *one*
mesh with every mesh primitive instance of the model (skinned and rigid): the vertices of the
primitives one after the other, in the order given (``model.primitives``), and their triangles
with indices shifted accordingly.  Primitives without triangles (points, lines) contribute their
vertices only.

Precision: trimesh writes PLY coordinates as float32 (exact for float32 poses) and OBJ
coordinates with 8 decimals; a GLB holds float32, as glTF 2.0 requires.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from types import ModuleType, TracebackType
from typing import (Any, BinaryIO, Callable, Iterator, List, Literal, Mapping, Optional, Sequence,
                    Type)

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _temporaries
from ..kernels._optional import require
from ..kernels._types import PathLike
from ..model.records import one_frame

__all__ = ["FORMATS", "FrameWriter", "atomic_file", "check_output_path", "frame_name",
           "write_frames", "write_glb"]

FORMATS = ("ply", "obj")
_PREFIX = ".skinkit-"


def _trimesh() -> ModuleType:
    return require("trimesh", "export", "mesh export")


def frame_name(index: int, count: int, format: str = "ply") -> str:
    """The file name of frame ``index`` of ``count``: ``frame_0007.ply`` (at least 4 digits,
    more when ``count`` needs them, so the names sort in frame order)."""
    width = max(4, len(str(max(count, 1) - 1)))
    return f"frame_{index:0{width}d}.{format}"


def _check_format(format: str) -> str:
    fmt = str(format).lower()
    if fmt not in FORMATS:
        raise ValueError(f"mesh format must be one of {', '.join(FORMATS)}, got {format!r}")
    return fmt


def _faces(faces: Optional[ArrayLike], nverts: int, key: str) -> Optional[NDArray[Any]]:
    if faces is None:
        return None
    f = np.asarray(faces)
    if f.dtype.kind not in "iu" or f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"faces of {key!r} must be an integer array (F, 3), "
                         f"got {f.dtype} {f.shape}")
    if f.size and (f.min() < 0 or f.max() >= nverts):
        raise ValueError(f"faces of {key!r} index vertices outside 0..{nverts - 1}")
    return f.astype(np.int64, copy=False)


def _frame_geometry(positions: Sequence[NDArray[Any]], faces: Sequence[Optional[NDArray[Any]]],
                    normals: Optional[Sequence[NDArray[Any]]]) -> Any:   # a trimesh geometry
    """One trimesh geometry holding every primitive of one frame (see the module docstring)."""
    trimesh = _trimesh()
    verts = np.concatenate([np.asarray(p, dtype=np.float64) for p in positions])
    tris, offset = [], 0
    for p, f in zip(positions, faces):
        if f is not None:
            tris.append(f + offset)
        offset += len(p)
    if not tris:
        return trimesh.PointCloud(verts)
    kwargs = {}
    if normals is not None:
        kwargs["vertex_normals"] = np.concatenate([np.asarray(n, dtype=np.float64)
                                                   for n in normals])
    return trimesh.Trimesh(vertices=verts, faces=np.concatenate(tris), process=False,
                           validate=False, **kwargs)


def _encode(geometry: Any, format: str, normals: bool) -> bytes:   # a trimesh geometry
    if format == "ply":
        data = geometry.export(file_type="ply", **({"vertex_normal": normals}
                                                   if hasattr(geometry, "faces") else {}))
    else:
        data = geometry.export(file_type="obj", **({"include_normals": normals}
                                                   if hasattr(geometry, "faces") else {}))
    return data.encode("utf-8") if isinstance(data, str) else data


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return ~umask


class FrameWriter:
    """Write a PLY/OBJ frame sequence block by block, then move it into place atomically.

    Parameters
    ----------
    directory : path
        The output folder.  If it does not exist, the frames are written to a temporary folder
        beside it that is renamed to ``directory`` on ``commit`` (the parent must exist).  If it
        exists, they are written to a temporary folder inside it, and ``commit`` moves each file
        into place with ``os.replace``; other files in it are left alone.
    faces_by_prim : mapping key -> int array (F, 3) or None
        Triangles of each primitive; the keys, in order, are the primitives of every frame.
    count : int
        The number of frames to be written (it sets the width of the frame numbers).
    format : {"ply", "obj"}
    normals : bool
        Whether blocks come with vertex normals (written as PLY ``nx ny nz`` / OBJ ``vn``).

    Use as a context manager: on a clean exit the frames are committed (``commit``), on an
    exception they are discarded (``abort``) and the target is untouched.
    """

    def __init__(self, directory: PathLike,
                 faces_by_prim: Mapping[str, Optional[NDArray[Any]]], count: int,
                 format: str = "ply", normals: bool = False) -> None:
        self.directory = os.fspath(directory)
        self.format = _check_format(format)
        self.keys = list(faces_by_prim)
        self._faces = dict(faces_by_prim)
        self.count = int(count)
        self.normals = bool(normals)
        self.written: List[str] = []
        self._done = False
        target = os.path.abspath(self.directory)
        if os.path.exists(target) and not os.path.isdir(target):
            raise NotADirectoryError(20, "Not a directory", self.directory)
        self._exists = os.path.isdir(target)
        self._target = target
        self._tmp = tempfile.mkdtemp(prefix=_PREFIX,
                                     dir=target if self._exists else os.path.dirname(target))
        _temporaries.track(self._tmp)

    def write(self, positions_by_prim: Mapping[str, NDArray[Any]],
              normals_by_prim: Optional[Mapping[str, NDArray[Any]]] = None) -> None:
        """Write the next frames: ``positions_by_prim[key]`` (B, V, 3) for every key (and
        ``normals_by_prim[key]`` (B, V, 3) when the writer was made with ``normals``)."""
        blocks = []
        for key in self.keys:
            p = np.asarray(positions_by_prim[key])
            if p.ndim != 3 or p.shape[2] != 3:
                raise ValueError(f"positions of {key!r} must have shape (T, V, 3), got {p.shape}")
            blocks.append(p)
        nframes = {b.shape[0] for b in blocks}
        if len(nframes) > 1:
            raise ValueError(f"primitives have different frame counts: {sorted(nframes)}")
        nb = nframes.pop() if nframes else 0
        faces = [_faces(self._faces[k], b.shape[1], k) for k, b in zip(self.keys, blocks)]
        nrm = None
        if self.normals:
            if normals_by_prim is None:
                raise ValueError("this writer needs normals")
            nrm = []
            for k, b in zip(self.keys, blocks):
                n = normals_by_prim.get(k)
                if n is None:
                    raise ValueError(f"primitive {k!r} has no normals")
                n = np.asarray(n)
                if n.shape != b.shape:
                    raise ValueError(f"normals of {k!r} have shape {n.shape}, positions {b.shape}")
                nrm.append(n)
        if len(self.written) + nb > self.count:
            raise ValueError(f"more than the {self.count} frames announced")
        for i in range(nb):
            geometry = _frame_geometry([b[i] for b in blocks], faces,
                                       None if nrm is None else [n[i] for n in nrm])
            name = frame_name(len(self.written), self.count, self.format)
            with open(os.path.join(self._tmp, name), "wb") as f:
                f.write(_encode(geometry, self.format, self.normals))
            self.written.append(name)

    def commit(self) -> List[str]:
        """Move the frames into ``directory``; returns their paths."""
        if len(self.written) != self.count:
            raise ValueError(f"{len(self.written)} of {self.count} frames written")
        if self._exists:
            for name in self.written:
                os.replace(os.path.join(self._tmp, name), os.path.join(self._target, name))
            os.rmdir(self._tmp)
        else:
            os.chmod(self._tmp, 0o777 & _default_mode())  # mkdtemp makes 0700
            os.rename(self._tmp, self._target)
        self._done = True
        _temporaries.untrack(self._tmp)
        return [os.path.join(self.directory, name) for name in self.written]

    def abort(self) -> None:
        """Discard the frames written so far."""
        if not self._done:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._done = True
            _temporaries.untrack(self._tmp)

    def __enter__(self) -> FrameWriter:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        if exc_type is None:
            self.commit()
        else:
            self.abort()
        return False


def write_frames(directory: PathLike, positions_by_prim: Mapping[str, NDArray[Any]],
                 faces_by_prim: Mapping[str, Optional[NDArray[Any]]], format: str = "ply",
                 normals_by_prim: Optional[Mapping[str, NDArray[Any]]] = None) -> List[str]:
    """Write one PLY or OBJ file per frame, each with every primitive (see the module docstring).

    Parameters
    ----------
    directory : path
        Output folder (created; or, if it exists, frame files in it are replaced).
    positions_by_prim : mapping key -> float array (T, V, 3)
        Posed positions, e.g. ``model.pose(...)``; every primitive with the same T.
    faces_by_prim : mapping key -> int array (F, 3) or None
        Triangles per primitive (``prim.faces``); its keys, in order, choose the primitives.
    format : {"ply", "obj"}
    normals_by_prim : mapping key -> float array (T, V, 3), optional
        Also write vertex normals (every primitive needs them).

    Returns
    -------
    list of str
        The paths written, ``directory/frame_0000.<format>`` onwards.
    """
    keys = list(faces_by_prim)
    frames = {np.shape(positions_by_prim[k])[0] for k in keys}
    if len(frames) != 1:
        raise ValueError(f"primitives have different frame counts: {sorted(frames)}")
    with FrameWriter(directory, faces_by_prim, frames.pop(), format,
                     normals=normals_by_prim is not None) as w:
        w.write(positions_by_prim, normals_by_prim)
    return [os.path.join(w.directory, name) for name in w.written]


def check_output_path(path: PathLike, directory: bool = False) -> None:
    """Refuse an output path that exists and is not what would be replaced: for a file output
    anything but a regular file (a symbolic link, FIFO, device, socket or directory), for a
    folder output (``directory``) anything but a real directory.  Not following symbolic links,
    so ``--out`` naming a link to ``/dev/null`` never replaces (or writes through) it.

    Raises
    ------
    FileExistsError
        Naming the path and what it is.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    want, ok = ("a directory", stat.S_ISDIR) if directory else ("a regular file", stat.S_ISREG)
    if not ok(mode):
        kinds = [(stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                 (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                 (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
                 (stat.S_ISREG, "a regular file")]
        what = next((name for test, name in kinds if test(mode)), "not a regular file")
        raise FileExistsError(17, f"exists and is {what}, not {want}: not replaced",
                              os.fspath(path))


@contextlib.contextmanager
def atomic_file(path: PathLike, suffix: str = "") -> Iterator[BinaryIO]:
    """A temporary file beside ``path``, open for writing, that replaces ``path`` (``os.replace``)
    when the ``with`` block ends cleanly and is removed otherwise: an existing ``path`` is either
    replaced whole or left untouched.  The file gets the usual mode (0666 & ~umask).  The
    temporary file is removed on an exception and when SIGTERM, SIGHUP or SIGINT ends the
    process (``skinkit.io._temporaries``).

    Raises
    ------
    IsADirectoryError
        ``path`` is a directory.
    FileExistsError
        ``path`` exists and is not a regular file (``check_output_path``: a symbolic link, FIFO,
        socket or device; ``/dev/null`` is never replaced by a file).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "Is a directory", path)
    check_output_path(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=_PREFIX,
                               suffix=suffix)
    try:
        with _temporaries.removed_on_signal(tmp):
            with os.fdopen(fd, "wb") as f:
                yield f
            os.chmod(tmp, 0o666 & _default_mode())  # mkstemp makes 0600
            os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_atomic(path: PathLike, write: Callable[[BinaryIO], object], suffix: str = "") -> None:
    """``write(file)`` into an ``atomic_file(path, suffix)``."""
    with atomic_file(path, suffix) as f:
        write(f)


def write_glb(path: PathLike, positions_by_prim: Mapping[str, NDArray[Any]],
              faces_by_prim: Mapping[str, Optional[NDArray[Any]]],
              normals_by_prim: Optional[Mapping[str, Optional[NDArray[Any]]]] = None,
              names: Optional[Mapping[str, str]] = None) -> None:
    """Write one posed frame as a static glTF 2.0 binary (no skin, no animation).

    Parameters
    ----------
    path : path
        The .glb file (written atomically).
    positions_by_prim : mapping key -> float array (V, 3) or (1, V, 3)
        Posed positions in the world space of the scene.
    faces_by_prim : mapping key -> int array (F, 3) or None
        Triangles per primitive; its keys, in order, choose the primitives.  A primitive without
        triangles becomes a POINTS primitive, one without vertices is left out (a glTF accessor
        holds at least one element); ValueError when every one is.
    normals_by_prim : mapping key -> float array (V, 3) or (1, V, 3) or None, optional
        Vertex NORMALs (skipped for a primitive that has none).
    names : mapping key -> str, optional
        glTF node and mesh names (default: the keys); they must be unique.

    Notes
    -----
    Each primitive becomes one glTF node (identity transform) with one mesh of one primitive,
    named after its key; POSITION (and NORMAL) are float32.  The file is made by trimesh.
    """
    trimesh = _trimesh()
    scene = trimesh.Scene()
    names = dict(names or {})
    used = set()
    for key in faces_by_prim:
        p = one_frame(positions_by_prim[key], f"positions of {key!r}", np.float64)
        f = _faces(faces_by_prim[key], len(p), key)
        n = None if normals_by_prim is None else normals_by_prim.get(key)
        if not len(p):   # glTF accessors hold at least one element (glTF 2.0, 5.1.1 count)
            continue
        if f is None or len(f) == 0:
            geometry = trimesh.PointCloud(p)
        else:
            kwargs = {}
            if n is not None:
                kwargs["vertex_normals"] = np.asarray(n, dtype=np.float64).reshape(p.shape)
            geometry = trimesh.Trimesh(vertices=p, faces=f, process=False, validate=False,
                                       **kwargs)
        name = str(names.get(key, key))
        if name in used:
            raise ValueError(f"duplicate node name {name!r}")
        used.add(name)
        scene.add_geometry(geometry, node_name=name, geom_name=name)
    if not used:
        raise ValueError(f"{os.fspath(path)}: no primitive has a vertex; a glTF file of no mesh "
                         "is not written")
    # include_normals=None: the NORMALs given (trimesh caches them), no computed ones
    data = scene.export(file_type="glb",
                        include_normals=None if normals_by_prim is not None else False)
    write_atomic(path, lambda f: f.write(data))
