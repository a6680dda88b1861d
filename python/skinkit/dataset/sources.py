"""What a bake reads and poses: its two input kinds behind one interface.

``Motions``: AMASS motion files posed by body models (``BodyModel.forward``); ``Characters``:
glTF/FBX characters, each clip asked for a sequence, posed by skinkit's own posing
(``Model.request``, ``skinkit.model.pose.run``: the stages of ``Model.pose_blocks``).  ``bake`` plans,
lays the store out, schedules chunks, resumes and marks failures the same way for both; a
source says which files its arguments name, reads one file into its sequences (on a worker),
gives each sequence the model that poses it (refusing models that cannot share one store),
lays out its arrays and poses one piece of a chunk.  A source pickles to the workers.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from ..limits import count_error
from .schema import FrameArrays, Schema, sha256
from .plan import (Piece, Sequence, character_files, error_message, motion_files, read_motion,
                   read_sequence)

if TYPE_CHECKING:
    from ..body.body_model import BodyModel
    from ..body.workspace import Workspace
    from ..io.amass import BodyMotion
    from ..model.model import Model

@dataclass(frozen=True)
class Layout:
    """A store's arrays besides the common ones: frame arrays (name -> (one frame's shape,
    dimension names)), static arrays (name -> array: faces) and the root attributes it
    adds."""
    frames: FrameArrays
    static: Dict[str, NDArray[Any]]
    attributes: Dict[str, Any]

    @property
    def frame_values(self) -> int:
        """The numbers one frame of the frame arrays holds."""
        return sum(int(np.prod(tail)) for tail, _ in self.frames.values())


@dataclass(frozen=True)
class Source:
    """The interface ``bake`` uses (see the module's docstring); ``fps`` is the bake's."""
    fps: Optional[float]

    def files(self, arguments: List[str]) -> List[str]:
        raise NotImplementedError

    def arguments(self) -> Dict[str, Any]:
        """The source's own bake arguments (recorded in the store; a resume must match)."""
        raise NotImplementedError

    def check(self) -> None:
        """Raise ValueError for what stops the whole bake, before any cluster."""

    def read(self, path: str) -> List[Sequence]:
        """The sequences of one file (on a worker); a file that cannot be read gives failed
        sequences, never an exception (but ImportError: the worker's environment)."""
        raise NotImplementedError

    def models(self, seqs: List[Sequence]) -> Tuple[List[Sequence], List[str]]:
        """Each sequence's model file ("" for a failed one), sequences without a model that
        fits marked failed.  ValueError when the models cannot share one store."""
        raise NotImplementedError

    def layout(self, models: List[str]) -> Layout:
        """The store's own arrays for these models (the first gives the faces)."""
        raise NotImplementedError

    @staticmethod
    def schema(attributes: Dict[str, Any]) -> Schema:
        """The arrays ``layout`` and ``columns`` give a store, as a store with these
        attributes holds them (by dimension letter): what opening it checks it against.
        ValueError for attributes no bake of this source writes."""
        raise NotImplementedError

    def columns(self, seqs: Tuple[Sequence, ...]) -> Dict[str, NDArray[Any]]:
        """The sequences table's own columns."""
        raise NotImplementedError

    def pose(self, seq: Sequence, model: str, piece: Piece, out: Dict[str, NDArray[Any]],
             workspace: Workspace) -> NDArray[Any]:
        """Pose the frames of ``piece`` into ``out`` (frame array name -> (frames, ...), the
        store's dtype) on a worker, one thread, temporaries from ``workspace``; returns the
        frames' times (seconds)."""
        raise NotImplementedError


@lru_cache(maxsize=4)
def _body_model(path: str) -> BodyModel:
    """A worker's copy of a body model (float32: the computation's precision)."""
    from ..io.body import load_body_model
    return load_body_model(path, dtype=np.float32)


@lru_cache(maxsize=2)
def _motion(path: str, fps: Optional[float]) -> BodyMotion:
    """A worker's last motions (consecutive chunks of a sequence often land on one worker)."""
    return read_motion(path, fps)


@dataclass(frozen=True)
class Motions(Source):
    """AMASS motions posed by ``body`` (a model file) or by the model of ``body_dir`` for each
    motion's type and gender; ``fps`` None keeps each motion's rate."""
    body: Optional[str] = None
    body_dir: Optional[str] = None

    def files(self, arguments: List[str]) -> List[str]:
        return [str(f) for f in motion_files(arguments)]

    def arguments(self) -> Dict[str, Any]:
        return {"body": None if self.body is None else str(Path(self.body).resolve()),
                "body_dir": None if self.body_dir is None else str(Path(self.body_dir).resolve())}

    def check(self) -> None:
        if (self.body is None) == (self.body_dir is None):
            raise ValueError("give exactly one of body (a model file) and body_dir (a folder of "
                             "models as smplx.create lays them out)")
        if self.body_dir is not None and not os.path.isdir(self.body_dir):
            raise ValueError(f"body_dir {self.body_dir}: no such folder")
        if self.body is not None:
            _body_model(str(Path(self.body).resolve()))  # the one model: its errors stop the bake

    def read(self, path: str) -> List[Sequence]:
        return [read_sequence(path, self.fps)]

    def models(self, seqs: List[Sequence]) -> Tuple[List[Sequence], List[str]]:
        from ..io.body import find_body_model
        out, paths = [], []
        for s in seqs:
            path = ""
            if s.error is None:
                try:
                    path = str(Path(self.body).resolve() if self.body is not None else
                               find_body_model(self.body_dir or "", s.model_type, s.gender))
                    m = _body_model(path)
                    if s.joints != m.num_joints or len(s.betas) > m.num_betas or \
                            s.expression > m.num_expression:
                        s = s.failed(f"{s.source}: {s.joints} joints, {len(s.betas)} betas, "
                                     f"{s.expression} expression coefficients do not fit "
                                     f"{path} ({m.kind}: {m.num_joints} joints, {m.num_betas} "
                                     f"betas, {m.num_expression} expression)")
                except (OSError, ValueError) as exc:
                    s = s.failed(f"{s.source}: body model: {exc}")
            out.append(s)
            paths.append(path if s.error is None else "")
        used = sorted(set(p for p in paths if p))
        sizes = {(_body_model(p).num_vertices, _body_model(p).num_joints) for p in used}
        if len(sizes) > 1:
            raise ValueError(f"the body models {', '.join(used)} differ in vertex or joint "
                             "count; one store holds one mesh topology")
        return out, paths

    def layout(self, models: List[str]) -> Layout:
        first = _body_model(models[0]) if models else None
        V, J = (first.num_vertices, first.num_joints) if first else (0, 0)
        return Layout({"vertices": ((V, 3), ("vertex", "xyz")),
                       "joints": ((J, 3), ("joint", "xyz"))},
                      {"faces": np.zeros((0, 3)) if first is None else first.faces},
                      {"body_models": [{"file": os.path.basename(p), "sha256": sha256(p)}
                                       for p in models]})

    @staticmethod
    def schema(attributes: Dict[str, Any]) -> Schema:
        return Schema({"vertices": ("V", 3), "joints": ("J", 3)},
                            {"faces": (("F", 3), "vertices")},
                            {"gender": (("S",), "str"), "betas": (("S", "B"), "float64")})

    def columns(self, seqs: Tuple[Sequence, ...]) -> Dict[str, NDArray[Any]]:
        B = max((len(s.betas) for s in seqs), default=0)
        betas = np.zeros((len(seqs), B))
        for i, s in enumerate(seqs):
            betas[i, :len(s.betas)] = s.betas
        return {"gender": np.array([s.gender for s in seqs], dtype=str), "betas": betas}

    def pose(self, seq: Sequence, model: str, piece: Piece, out: Dict[str, NDArray[Any]],
             workspace: Workspace) -> NDArray[Any]:
        m, body = _motion(seq.source, self.fps), _body_model(model)
        sl = slice(piece.first, piece.stop)
        expression = None if m.expression is None else m.expression[sl]
        # posed in place where the store keeps the model's dtype, else in float32 and rounded
        posed = {k: a if a.dtype == body.dtype else workspace.array(f"posed {k}", a.shape,
                                                                    body.dtype)
                 for k, a in out.items()}
        body.forward(betas=m.betas, pose=m.poses[sl], transl=m.transl[sl],
                     expression=expression, threads=1,
                     out=(posed["vertices"], posed["joints"]), workspace=workspace)
        for k, a in out.items():
            if posed[k] is not a:
                a[...] = posed[k]
        times: NDArray[Any] = m.times[sl]
        return times


@lru_cache(maxsize=4)
def _character(path: str) -> Model:
    """A worker's copy of a character (float32: the computation's precision), checked to be
    a posable model with mesh primitives."""
    from ..io.load import load_model
    from ..model.model import Model
    model = load_model(path, dtype=np.float32)
    if not isinstance(model, Model) or not model.primitives:
        raise ValueError(f"{path}: not a character with mesh primitives (a glTF or FBX scene "
                         "with meshes)")
    return model


def _faces(model: Model) -> Dict[str, NDArray[Any]]:
    """Primitive key -> its triangles (F, 3) int32 ((0, 3) for a primitive without any)."""
    return {p.key: np.zeros((0, 3), np.int32) if p.faces is None else
            np.ascontiguousarray(p.faces, np.int32) for p in model.primitives}


def character_layout(model: Model) -> Tuple[Any, ...]:
    """What characters baked into one store must share: (primitive key, vertex count, face
    count, SHA-256 of the faces) of each primitive, and the node count."""
    faces = _faces(model)
    return tuple((p.key, len(p.positions), len(faces[p.key]),
                  hashlib.sha256(faces[p.key].tobytes()).hexdigest())
                 for p in model.primitives) + (model.skeleton.count,)


# a primitive's key (model.Primitive.key) in a store's attributes, which names its arrays:
# never a path (/, ..)
_KEY = re.compile(r"[0-9]+_[0-9]+")


def _describe(layout: Tuple[Any, ...]) -> str:
    prims = ", ".join(f"{k}: {v} vertices, {f} faces" for k, v, f, _ in layout[:-1])
    return f"primitives {prims}; {layout[-1]} joints"


@dataclass(frozen=True)
class Characters(Source):
    """glTF/FBX characters, each of ``clips`` (names or indices; ``("all",)``: every clip of
    each file) a sequence of frames at ``fps`` (default ``DEFAULT_FPS``, 30) covering the
    clip, posed by ``skinkit.model.pose.run`` with linear blend skinning."""
    clips: Tuple[str, ...] = ("all",)

    @property
    def rate(self) -> float:
        from ..model.request import DEFAULT_FPS
        return DEFAULT_FPS if self.fps is None else float(self.fps)

    def files(self, arguments: List[str]) -> List[str]:
        return [str(f) for f in character_files(arguments)]

    def arguments(self) -> Dict[str, Any]:
        return {"clips": list(self.clips)}

    def check(self) -> None:
        if not self.clips or not all(isinstance(c, str) and c for c in self.clips):
            raise ValueError(f"clips must be clip names (or indices), or 'all', got "
                             f"{list(self.clips)!r}")
        if "all" in self.clips and len(self.clips) > 1:
            raise ValueError("clips: 'all' stands alone (every clip of each character)")

    def read(self, path: str) -> List[Sequence]:
        from ..model.request import frame_count
        label = ",".join(self.clips)
        try:
            model = _character(path)
            layout = character_layout(model)
        except ImportError:        # the environment (a worker without the reader), not the file
            raise
        except Exception as exc:   # noqa: BLE001 - any failure of one file is that file's status
            return [Sequence(path, 0, self.rate, clip=label, error=error_message(path, exc))]
        if self.clips == ("all",):
            if not model.clips:
                return [Sequence(path, 0, self.rate, clip=label,
                                 error=f"ValueError: {path}: the character has no clips")]
            wanted = [str(i) if c.name is None else c.name for i, c in enumerate(model.clips)]
        else:
            wanted = list(self.clips)
        out = []
        for name in wanted:
            try:
                i = self._clip_index(model, name)
                count = frame_count(model.clips[i].duration, self.rate)
                too_many = count_error(count, "MAX_FRAMES", f"frames ({model.clips[i].duration:g}"
                                       f" s at {self.rate:g} fps)")
                if too_many is not None:
                    raise ValueError(f"{path}: clip {name!r}: {too_many}")
            except ValueError as exc:
                out.append(Sequence(path, 0, self.rate, clip=name,
                                    error=error_message(path, exc)))
                continue
            out.append(Sequence(path, count, self.rate, clip=name, clip_index=i, layout=layout))
        return out

    @staticmethod
    def _clip_index(model: Model, name: str) -> int:
        """The clip named ``name``, else (digits) the clip at that index of an unnamed clip."""
        from ..model.request import resolve_clip
        names = [c.name for c in model.clips]
        clip = resolve_clip(model, name if name in names or not name.isdigit() else int(name))
        return next(i for i, c in enumerate(model.clips) if c is clip)   # (ValueError above)

    def models(self, seqs: List[Sequence]) -> Tuple[List[Sequence], List[str]]:
        good = [s for s in seqs if s.error is None]
        for s in good:
            if s.layout != good[0].layout:
                raise ValueError(
                    f"{s.source}: its {_describe(s.layout)} differ from {good[0].source}'s "
                    f"({_describe(good[0].layout)}); characters baked into one store must have "
                    "the same primitives, vertex and face counts, faces and joints")
        return seqs, [s.source if s.error is None else "" for s in seqs]

    def layout(self, models: List[str]) -> Layout:
        first = _character(models[0]) if models else None
        faces = {} if first is None else _faces(first)
        frames: FrameArrays = {
            f"vertices/{k}": ((len(p.positions), 3), (f"vertex_{k}", "xyz"))
            for p in (first.primitives if first else []) for k in [p.key]}
        frames["joints"] = ((first.skeleton.count if first else 0, 3), ("joint", "xyz"))
        return Layout(frames, {f"faces/{k}": f for k, f in faces.items()},
                      {"primitives": list(faces),
                       "characters": [{"file": os.path.basename(p), "sha256": sha256(p)}
                                      for p in models]})

    @staticmethod
    def schema(attributes: Dict[str, Any]) -> Schema:
        keys = attributes["primitives"]
        if not (isinstance(keys, list) and all(isinstance(k, str) and _KEY.fullmatch(k)
                                               for k in keys) and len(set(keys)) == len(keys)):
            raise ValueError(f"the attribute primitives {keys!r:.60} is not a list of distinct "
                             "primitive keys (<node>_<primitive>)")
        frames: Dict[str, Tuple[Any, ...]] = {f"vertices/{k}": (f"V[{k}]", 3) for k in keys}
        frames["joints"] = ("J", 3)
        return Schema(frames,
                            {f"faces/{k}": ((f"F[{k}]", 3), f"vertices/{k}") for k in keys},
                            {"clip": (("S",), "str")})

    def columns(self, seqs: Tuple[Sequence, ...]) -> Dict[str, NDArray[Any]]:
        return {"clip": np.array([s.clip or "" for s in seqs], dtype=str)}

    def pose(self, seq: Sequence, model: str, piece: Piece, out: Dict[str, NDArray[Any]],
             workspace: Workspace) -> NDArray[Any]:
        from ..model.pose import run
        from ..model.request import frame_times
        character = _character(model)
        request = character.request(seq.clip_index, fps=self.rate, joints=True)
        posed = run(character, request, piece.first, piece.stop)
        assert posed.joints is not None                # the request asks for them
        for k, v in posed.positions.items():
            out[f"vertices/{k}"][...] = v
        out["joints"][...] = posed.joints
        return frame_times(character.clips[seq.clip_index], self.rate, piece.first, piece.stop)


def store_schema(attributes: Dict[str, Any]) -> Schema:
    """The schema of a store with these ``skinkit`` attributes: of characters if they list
    ``primitives``, of motions otherwise."""
    return (Characters if "primitives" in attributes else Motions).schema(attributes)
