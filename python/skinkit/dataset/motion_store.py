"""Motion stores (``skinkit bake --store motion``): each sequence kept as its compressed motion
(``skinkit.compress`` of the body's joint rotations and root translation, the
``skinkit.io.skc`` container) beside the body models' own arrays, and posed
back on the fly (``MotionStore``): about 60-200 bytes a frame where a posed SMPL-X frame takes
126 KB.

Layout (S sequences, M body models; Zarr v3)::

    motion/<s>            (n_s,) uint8   sequence s's compressed clip (absent until written;
                                         never for a failed sequence)
    motion_done           (S,) uint8     1 once motion/<s> is in
    body_models/<m>/<key> the arrays of body model m's file (``read_body_arrays``: v_template,
                                         shapedirs, posedirs, J_regressor, weights,
                                         kintree_table, f)
    sequences/            source, path, fps, gender, betas (S, B), model (the body model of
                          each, -1 for a failed one), start, count, status, error
    attributes            skinkit: version, format (``FORMAT``), arguments (store "motion",
                          precision, ...), body models (file name, SHA-256)

The clip of a sequence is ``skinkit.body.export.body_clip`` of its (resampled) motion on the
skeleton ``body_skeleton(model, betas)``, compressed with ``precision`` metres of object-space
error at a 3 cm shell: decoded at the frame times ``k / fps``, its local rotations are the
axis-angle poses again and its root translation minus the rest root is ``transl``, posed by
``BodyModel.forward``.  A sequence's motion is checked when it is read (its array's size within
``skinkit.limits`` before it is read, the container's own checks, its node count and key times
against the table).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .. import limits
from ..body.body_model import BodyModel
from ..io.amass import GENDERS, BodyMotion, quat_to_rotvec
from . import store as _store
from .plan import Plan
from .schema import COLUMNS_AFTER, COLUMNS_BEFORE

FORMAT = 1
# the sequences table's own columns (after the common ones: Motions.schema's, and the model)
COLUMNS = {"gender": (("S",), "str"), "betas": (("S", "B"), "float64"),
           "model": (("S",), "int64")}
MODEL_KEYS = ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table",
              "f")
_ARRAYS = {"motion_done": (("S",), "uint8"),
           **{f"sequences/{k}": v for k, v in {**COLUMNS_BEFORE, **COLUMNS, **COLUMNS_AFTER}.items()}}


def is_motion_store(attributes: Dict[str, Any]) -> bool:
    """Whether a store's ``skinkit`` attributes are a motion store's."""
    return bool(attributes["arguments"].get("store") == "motion")


def encode(motion: BodyMotion, body: BodyModel, precision: float) -> bytes:
    """The compressed clip (container bytes) of ``motion`` posed by ``body``: its rotations and
    root translation within ``precision`` metres (``skinkit.compress``, shell 3 cm).  ValueError
    for a motion with expression coefficients (a motion store keeps joints only)."""
    from ..body.export import body_clip, body_skeleton
    from ..model.compress import compress
    from ..io.skc import dumps
    if motion.expression is not None:
        raise ValueError(f"{motion.source}: expression coefficients: a motion store keeps the "
                         "joint rotations and translation only (bake it with --store meshes)")
    betas = motion.betas[:body.num_betas]
    clip = body_clip(body, motion.poses, motion.transl, betas, motion.fps)
    return dumps(compress(clip, body_skeleton(body, betas), precision=precision))


def create(out: str, plan: Plan, columns: Dict[str, NDArray[Any]], models: List[str],
           model_paths: List[str], attributes: Dict[str, Any]) -> None:
    """Lay a motion store out at ``out`` (a new folder) for ``plan``: the marks, the body
    models' arrays (``models``, the files in order; ``model_paths`` each sequence's, "" for a
    failed one), the sequences table (the source's ``columns`` and ``model``) and the
    attributes, in a sibling folder first, checked as ``open_motion_store`` checks a store, and
    renamed into place."""
    import shutil
    from pathlib import Path
    from ..io.body import read_body_arrays
    zarr = _store._zarr()
    tmp = Path(f"{out}.creating")
    shutil.rmtree(tmp, ignore_errors=True)
    g = zarr.open_group(str(tmp), mode="w-", zarr_format=3)
    g.create_array("motion_done", shape=(len(plan.sequences),), chunks=(1,), dtype="uint8",
                   fill_value=0, compressors=None, dimension_names=("sequence",))
    for m, path in enumerate(models):
        for key, a in read_body_arrays(path).items():
            g.create_array(f"body_models/{m}/{key}", data=a,
                           chunks=tuple(max(n, 1) for n in a.shape),
                           compressors=_store._compressors())
    index = {p: m for m, p in enumerate(models)}
    model = np.array([index.get(p, -1) for p in model_paths], np.int64)
    _store.write_sequences(g, plan, {**columns, "model": model})
    g.attrs["skinkit"] = {**attributes, "format": FORMAT}
    open_motion_store(str(tmp))
    os.replace(tmp, out)


def write(out: str, sequence: int, data: bytes) -> None:
    """Sequence ``sequence``'s compressed clip into the store at ``out`` (its chunk flushed to
    the disk), then its mark: a write cut short by a killed process is not marked."""
    zarr = _store._zarr()
    g = _store._group(out, "r+")
    name = f"motion/{sequence}"
    a = g.create_array(name, shape=(len(data),), chunks=(max(len(data), 1),), dtype="uint8",
                       compressors=None, overwrite=True)
    a[...] = np.frombuffer(data, np.uint8)
    _store._flush(_store._rules(out, name, a).path((0,)))
    with zarr.config.set({"array.write_empty_chunks": True}):
        g["motion_done"][sequence] = 1


def done_sequences(out: str) -> NDArray[Any]:
    """(S,) bool: the sequences whose motion is written."""
    done: NDArray[Any] = _store._read_whole(out, _store._group(out, "r"),
                                            "motion_done").astype(bool)
    return done


def finish(out: str) -> None:
    """Status ``done`` for every pending sequence whose motion is written."""
    g = _store._group(out, "r+")
    done = done_sequences(out)
    status = _store._read_whole(out, g, "sequences/status")
    status[(status == _store.STATUS_PENDING) & done] = _store.STATUS_DONE
    if len(status):
        g["sequences/status"][...] = status


@dataclass
class MotionStore:
    """A motion store opened for reading (``skinkit.dataset.open``): its sequences posed on
    the fly.

    Attributes
    ----------
    path : str, the store's folder.
    models : list of BodyModel (float32), the body models, in ``sequences["model"]``'s order.
    faces : (F, 3) int32, the first model's triangles (every model has the same topology).
    sequences : dict of numpy arrays, one row per sequence: source, path, fps, gender, betas
        (S, B), model, start, count, status, error.
    attributes : dict, the store's ``skinkit`` attributes.
    frames_per_chunk : int, the frames ``skinkit.torch.BakedDataset`` poses at a time.
    """
    path: str
    models: List[BodyModel]
    faces: NDArray[Any]
    sequences: Dict[str, NDArray[Any]]
    attributes: Dict[str, Any]
    frames_per_chunk: int
    _group: Any = field(repr=False)
    _last: Optional[Tuple[int, BodyMotion]] = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.sequences["count"].sum())

    def __repr__(self) -> str:      # counts, not the arrays (Jupyter prints it)
        return (f"MotionStore({self.path!r}: {len(self)} frames, "
                f"{self.sequences['status'].size} sequences, {len(self.models)} body "
                f"model{'s' * (len(self.models) != 1)})")

    def clip(self, sequence: int) -> Any:
        """The CompressedClip of sequence ``sequence`` (StoreError naming the store and the
        array for a sequence not done, or a motion array or container that is not a bake's;
        IndexError outside 0..S - 1)."""
        from ..io.skc import loads
        s = self._index(sequence)
        name, status = f"motion/{s}", self.sequences["status"][s]
        if status != _store.STATUS_DONE:
            raise _store.StoreError(f"{self.path}: sequence {s} is {status}: it has no motion")
        a = _store._array(_store._zarr(), self._group, self.path, name)
        _store._check_array(a, self.path, name, ("n",), "uint8", {})
        _whole_chunk(a, self.path, name)
        if a.shape[0] > limits.MAX_ARRAY_BYTES:
            raise _store.StoreError(f"{self.path}: {name}: {a.shape[0]} bytes, more than the "
                                    f"limit of {limits.MAX_ARRAY_BYTES} "
                                    "(skinkit.limits.MAX_ARRAY_BYTES)")
        data = _store._read_whole(self.path, self._group, name, written=True)
        try:
            cc = loads(data.tobytes(), f"{self.path}: {name}")
        except ValueError as exc:
            raise _store.StoreError(str(exc)) from None
        count, fps = int(self.sequences["count"][s]), float(self.sequences["fps"][s])
        J = self.models[int(self.sequences["model"][s])].num_joints
        times = np.arange(count) / fps
        if cc.node_count != J or len(cc.times) != 1 or cc.times[0].shape != times.shape or \
                not np.allclose(cc.times[0], times, rtol=1e-9, atol=1e-9):
            raise _store.StoreError(
                f"{self.path}: {name}: a clip of {cc.node_count} nodes and key times "
                f"{[t.size for t in cc.times]}, expected {J} nodes and the {count} frame times "
                f"k / {fps:g} of sequence {s}")
        return cc

    def motion(self, sequence: int) -> BodyMotion:
        """Sequence ``sequence`` decoded at its frame times ``k / fps``: the axis-angle poses
        (T, J, 3) and ``transl`` (T, 3) that pose it (float64), betas, fps, gender."""
        from ..body.export import body_skeleton
        s = self._index(sequence)
        if self._last is not None and self._last[0] == s:
            return self._last[1]
        cc = self.clip(s)
        body = self.models[int(self.sequences["model"][s])]
        betas = np.asarray(self.sequences["betas"][s], np.float64)[:body.num_betas]
        sk = body_skeleton(body, betas)
        count, fps = int(self.sequences["count"][s]), float(self.sequences["fps"][s])
        trs = cc.sample(np.arange(count) / fps, (sk.translations, sk.rotations, sk.scales))
        m = BodyMotion(poses=quat_to_rotvec(np.asarray(trs.rotations, np.float64)),
                       transl=np.asarray(trs.translations[:, 0], np.float64) - sk.translations[0],
                       betas=betas, expression=None, fps=fps,
                       gender=str(self.sequences["gender"][s]),
                       model_type="smplx" if body.num_joints == 55 else "smplh",
                       source=str(self.sequences["path"][s]))
        self._last = (s, m)
        return m

    def pose(self, sequence: int, first: int = 0, stop: Optional[int] = None,
             threads: Optional[int] = 1) -> Tuple[NDArray[Any], NDArray[Any]]:
        """Frames ``first:stop`` of sequence ``sequence`` posed: vertices (T, V, 3) and joints
        (T, J, 3) float32, metres (``BodyModel.forward`` of ``motion``)."""
        m = self.motion(sequence)
        body = self.models[int(self.sequences["model"][self._index(sequence)])]
        sl = slice(first, stop)
        v, j = body.forward(betas=m.betas, pose=m.poses[sl], transl=m.transl[sl],
                            threads=threads)
        return np.asarray(v), np.asarray(j)

    def frames(self, lo: int, hi: int) -> Dict[str, NDArray[Any]]:
        """Frames ``lo:hi`` of the store (sequences end to end, as a mesh store lays them):
        ``vertices`` (n, V, 3), ``joints`` (n, J, 3) in the bake's dtype, ``frame_sequence``
        (n,) int32, ``frame_time`` (n,) float64 seconds.  IndexError outside 0..len; StoreError
        for a frame of a sequence whose motion is not written (``clip``)."""
        if not 0 <= lo <= hi <= len(self):
            raise IndexError(f"frames {lo}:{hi} outside 0..{len(self)}")
        dtype = self.attributes["arguments"]["dtype"]
        starts, counts = self.sequences["start"], self.sequences["count"]
        out: Dict[str, List[NDArray[Any]]] = {k: [] for k in
                                              ("vertices", "joints", "frame_sequence",
                                               "frame_time")}
        s = int(np.searchsorted(starts + counts, lo, side="right"))
        while s < len(starts) and int(starts[s]) < hi:
            a, b = max(lo, int(starts[s])) - int(starts[s]), min(hi, int(starts[s] + counts[s]))
            b -= int(starts[s])
            if a < b:
                v, j = self.pose(s, a, b)
                out["vertices"].append(v.astype(dtype))
                out["joints"].append(j.astype(dtype))
                out["frame_sequence"].append(np.full(b - a, s, np.int32))
                out["frame_time"].append(np.arange(a, b) / float(self.sequences["fps"][s]))
            s += 1
        if not out["frame_time"]:          # lo == hi
            V, J = (self.models[0].num_vertices, self.models[0].num_joints) if self.models \
                else (0, 0)
            return {"vertices": np.zeros((0, V, 3), dtype), "joints": np.zeros((0, J, 3), dtype),
                    "frame_sequence": np.zeros(0, np.int32), "frame_time": np.zeros(0)}
        return {k: np.concatenate(v) for k, v in out.items()}

    def _index(self, sequence: int) -> int:
        S = len(self.sequences["count"])
        s = int(sequence)
        if not 0 <= s < S:
            raise IndexError(f"sequence {sequence} outside 0..{S - 1}")
        return s


def open_motion_store(path: str) -> MotionStore:
    """Open a motion store (``skinkit.dataset.open`` gives it for one).  StoreError (naming
    the store, the array, the expected and the found) unless it is laid out as ``create`` lays
    it out: the format, the marks and sequences table (shapes, dtypes, whole chunks, limits),
    the body models' arrays (numbers, each within ``skinkit.limits.MAX_ARRAY_BYTES`` before it
    is read, a valid model of one topology) and each sequence's model."""
    zarr = _store._zarr()
    g, attrs = _store.attributes(path)
    if attrs.get("format") != FORMAT:
        raise _store.StoreError(f"{path}: motion store format {attrs.get('format')!r:.40}, "
                                f"this skinkit reads {FORMAT}")
    args = attrs["arguments"]
    K, dtype, precision = (args.get(k) for k in ("frames_per_chunk", "dtype", "precision"))
    if type(K) is not int or K < 1 or dtype not in _store.DTYPES or \
            not (isinstance(precision, float) and math.isfinite(precision) and precision > 0):
        raise _store.StoreError(f"{path}: the attributes' arguments frames_per_chunk {K!r:.40}, "
                                f"dtype {dtype!r:.40} and precision {precision!r:.40} are not a "
                                "motion bake's")
    models = attrs.get("body_models")
    if not isinstance(models, list) or len(models) > len(GENDERS):
        raise _store.StoreError(f"{path}: the attribute body_models {models!r:.60} is not a "
                                f"list of at most {len(GENDERS)} models (one topology, one "
                                "model a gender)")
    sizes: Dict[str, int] = {}
    chunks: Dict[str, Tuple[Tuple[int, ...], int]] = {}
    for name, (dims, dt) in _ARRAYS.items():
        a = _store._array(zarr, g, path, name)
        _store._check_array(a, path, name, dims, dt, sizes)
        _whole_chunk(a, path, name, (1,) if name == "motion_done" else None)
        chunks[name] = (a.chunks, np.dtype(a.dtype).itemsize)
    if sizes["S"] > limits.MAX_SEQUENCES:
        raise _store.StoreError(f"{path}: sequences: {sizes['S']} rows, more than the limit of "
                                f"{limits.MAX_SEQUENCES} (skinkit.limits.MAX_SEQUENCES)")
    too_big = _store._limits_error(1, 1, chunks)
    if too_big is not None:
        raise _store.StoreError(f"{path}: {too_big}")
    sequences = {k.split("/")[1]: _store._read_whole(path, g, k) for k in _ARRAYS
                 if k.startswith("sequences/")}
    counts, fps = sequences["count"], sequences["fps"]
    _store._check_sequences(path, sequences, int(counts.sum()) if (counts >= 0).all() else -1)
    bad = np.flatnonzero((counts > limits.MAX_FRAMES) | ((counts > 0) & ~((fps > 0) & (
        fps <= limits.MAX_FPS))))
    if bad.size:
        i = int(bad[0])
        raise _store.StoreError(f"{path}: sequences: sequence {i} has {counts[i]} frames at "
                                f"{fps[i]} fps, expected at most {limits.MAX_FRAMES} "
                                f"(skinkit.limits.MAX_FRAMES) at a rate in (0, {limits.MAX_FPS:g}]")
    bodies = [_body_model(zarr, g, path, m) for m in range(len(models))]
    if len({(b.num_vertices, b.num_joints) for b in bodies}) > 1:
        raise _store.StoreError(f"{path}: body_models: models of different vertex or joint "
                                "counts; a store holds one mesh topology")
    model = sequences["model"]
    failed = sequences["status"] == _store.STATUS_FAILED
    bad = np.flatnonzero(~failed & ((model < 0) | (model >= len(bodies))))
    if bad.size:
        raise _store.StoreError(f"{path}: sequences/model: sequence {int(bad[0])} has model "
                                f"{int(model[bad[0]])}, expected 0..{len(bodies) - 1}")
    faces = np.zeros((0, 3), np.int32) if not bodies else bodies[0].faces.astype(np.int32)
    return MotionStore(path, bodies, faces, sequences, attrs, K, g)


def _whole_chunk(a: Any, path: str, name: str, want: Optional[Tuple[int, ...]] = None) -> None:
    """StoreError unless the array ``name`` is stored in chunks of ``want`` (default: the whole
    array in one chunk), unsharded."""
    want = tuple(max(n, 1) for n in a.shape) if want is None else want
    if a.chunks != want or a.shards is not None:
        raise _store.StoreError(f"{path}: {name}: chunks of {a.chunks}, expected {want}")


def _body_model(zarr: Any, g: Any, path: str, m: int) -> BodyModel:
    """Body model ``m`` of the store: its arrays, each checked to be numbers in one chunk of
    at most ``MAX_ARRAY_BYTES`` before it is read, made a BodyModel (float32)."""
    arrays = {}
    for key in MODEL_KEYS:
        name = f"body_models/{m}/{key}"
        a = _store._array(zarr, g, path, name)
        kind = np.dtype(a.dtype).kind
        if kind not in "iuf" or a.ndim > 3:
            raise _store.StoreError(f"{path}: {name}: a {a.ndim}-d {np.dtype(a.dtype)} array, "
                                    "expected numbers of at most 3 dimensions")
        _whole_chunk(a, path, name)
        too_big = _store._limits_error(1, 1, {name: (a.chunks, np.dtype(a.dtype).itemsize)})
        if too_big is not None:
            raise _store.StoreError(f"{path}: {too_big}")
        arrays[key] = _store._read_whole(path, g, name, written=True)
    try:
        return BodyModel(arrays, dtype=np.float32, source=f"{path}: body_models/{m}")
    except ValueError as exc:           # BodyModelError
        raise _store.StoreError(str(exc)) from None
