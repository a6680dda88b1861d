"""``skinkit.dataset.bake``: motion files through a body model to a Zarr store, on Dask.

The run: read every motion on the workers (the plan: frame counts, and the malformed files
found before anything is laid out), lay the store out, then one task per chunk of whole frames
not yet written; each task poses its frames (``BodyModel.forward``, one BLAS and one skinkit
thread) and writes them as whole Zarr chunks, then the chunk's done mark.  A rerun with the
same arguments submits only the chunks without a mark; Dask reruns the tasks of a worker that
died.  Every chunk's bytes depend only on the inputs, so a resumed or repaired bake equals an
uninterrupted one bit for bit.
"""
from __future__ import annotations

import contextlib
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import (TYPE_CHECKING, Any, ContextManager, Dict, Iterator, List, Optional,
                    Sequence as Seq, Tuple)

import numpy as np

from .._optional import require
from . import store
from .plan import Piece, Plan, Sequence, motion_files, read_motion, read_sequence

if TYPE_CHECKING:
    from ..body import BodyModel
    from ..io.amass import BodyMotion


@dataclass(frozen=True)
class BakeSummary:
    """What a bake did.

    Attributes
    ----------
    store : str, the store's folder.
    frames : int, the store's frames; sequences : int, its sequences (failed ones included).
    failed : tuple of (source, message): the motion files that could not be baked.
    baked : int, frames posed and written by this run (fewer than ``frames`` when resumed).
    seconds : float, the run's wall time.
    bytes : int, bytes of arrays written by this run (before compression).
    """
    store: str
    frames: int
    sequences: int
    baked: int
    seconds: float
    bytes: int
    failed: Tuple[Tuple[str, str], ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.failed

    def line(self) -> str:
        """The one-line summary: frames, rates, failures."""
        s = max(self.seconds, 1e-9)
        out = (f"{self.store}: {self.frames} frames of {self.sequences} sequences; baked "
               f"{self.baked} frames in {self.seconds:.1f} s: {self.baked / s:.1f} frames/s, "
               f"{self.bytes / s / 1e6:.1f} MB/s")
        if self.failed:
            out += f"; {len(self.failed)} failed: " + "; ".join(m for _, m in self.failed)
        return out


@lru_cache(maxsize=4)
def _body_model(path: str) -> BodyModel:
    """A worker's copy of a body model (float32: the computation's precision)."""
    from ..body import load_body_model
    return load_body_model(path, dtype=np.float32)


@lru_cache(maxsize=2)
def _motion(path: str, fps: Optional[float]) -> BodyMotion:
    """A worker's last motions (consecutive chunks of a sequence often land on one worker)."""
    return read_motion(path, fps)


def bake_chunk(chunk: int, jobs: List[Tuple[str, str, Piece]], *, out: str,
               frames_per_chunk: int, fps: Optional[float], dtype: str) -> int:
    """Pose and write chunk ``chunk`` (a Dask task): ``jobs`` are (motion file, body model
    file, piece) in row order.  Returns the frames written (0 if the chunk was done)."""
    if store.chunk_done(out, chunk):
        return 0
    threadpoolctl = require("threadpoolctl", "dataset", "skinkit bake")
    rows = sum(p.stop - p.first for _, _, p in jobs)
    first = _body_model(jobs[0][1])
    out_arrays = {"vertices": np.empty((rows, first.num_vertices, 3), dtype),
                  "joints": np.empty((rows, first.num_joints, 3), dtype),
                  "frame_sequence": np.empty(rows, np.int32),
                  "frame_time": np.empty(rows, np.float64)}
    with threadpoolctl.threadpool_limits(1):
        for source, model_path, p in jobs:
            m, body = _motion(source, fps), _body_model(model_path)
            sl, dst = slice(p.first, p.stop), slice(p.row, p.row + p.stop - p.first)
            expression = None if m.expression is None else m.expression[sl]
            v, j = body.forward(betas=m.betas, pose=m.poses[sl], transl=m.transl[sl],
                                expression=expression, threads=1)
            out_arrays["vertices"][dst] = v
            out_arrays["joints"][dst] = j
            out_arrays["frame_sequence"][dst] = p.sequence
            out_arrays["frame_time"][dst] = m.times[sl]
    store.write_chunk(out, chunk, frames_per_chunk, out_arrays)
    return rows


@contextlib.contextmanager
def _client(workers: Optional[int], scheduler: Optional[str]) -> Iterator[Any]:
    """A distributed Client: of the cluster at ``scheduler``, or of a LocalCluster of
    ``workers`` single-threaded processes (default: one per core)."""
    distributed = require("distributed", "dataset", "skinkit bake")
    if scheduler is not None:
        with distributed.Client(scheduler) as client:
            yield client
        return
    n = workers or os.cpu_count() or 1
    with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def _progress(total: int, show: bool) -> ContextManager[Any]:
    """A tqdm bar over frames on stderr, or None."""
    if not show or total == 0:
        return contextlib.nullcontext(None)
    try:
        from tqdm import tqdm
    except ImportError:
        return contextlib.nullcontext(None)
    bar: ContextManager[Any] = tqdm(total=total, unit="frame", desc="skinkit bake",
                                    file=sys.stderr, leave=False, dynamic_ncols=True)
    return bar


def _check_arguments(body: Optional[str], body_dir: Optional[str], fps: Optional[float],
                     frames_per_chunk: int, dtype: str, compression: str,
                     workers: Optional[int], scheduler: Optional[str]) -> None:
    if (body is None) == (body_dir is None):
        raise ValueError("give exactly one of body (a model file) and body_dir (a folder of "
                         "models as smplx.create lays them out)")
    if fps is not None and not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps}")
    if not (isinstance(frames_per_chunk, int) and frames_per_chunk >= 1):
        raise ValueError(f"frames_per_chunk must be a positive integer, got {frames_per_chunk}")
    if dtype not in store.DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(store.DTYPES)}, got {dtype!r}")
    if compression not in store.COMPRESSIONS:
        raise ValueError(f"compression must be one of {', '.join(store.COMPRESSIONS)}, got "
                         f"{compression!r}")
    if workers is not None and scheduler is not None:
        raise ValueError("give workers (a local cluster) or scheduler (an existing one), not both")
    if workers is not None and not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f"workers must be a positive integer, got {workers}")
    if body_dir is not None and not os.path.isdir(body_dir):
        raise ValueError(f"body_dir {body_dir}: no such folder")
    if body is not None:
        _body_model(str(Path(body).resolve()))    # the one model: its errors stop the bake


def _models(plan_seqs: List[Sequence], body: Optional[str], body_dir: Optional[str]
            ) -> Tuple[List[Sequence], List[str]]:
    """Each sequence's body model file (``body``, or the one in ``body_dir`` for its type and
    gender), and the sequences whose model cannot be found or does not fit marked failed."""
    from ..io.body import find_body_model
    seqs, paths = [], []
    for s in plan_seqs:
        path = ""
        if s.error is None:
            try:
                path = str(Path(body).resolve() if body is not None else
                           find_body_model(body_dir or "", s.model_type, s.gender))
                m = _body_model(path)
                if s.joints != m.num_joints or len(s.betas) > m.num_betas or \
                        s.expression > m.num_expression:
                    s = s.failed(f"{s.source}: {s.joints} joints, {len(s.betas)} betas, "
                                 f"{s.expression} expression coefficients do not fit "
                                 f"{path} ({m.kind}: {m.num_joints} joints, {m.num_betas} "
                                 f"betas, {m.num_expression} expression)")
            except (OSError, ValueError) as exc:
                s = s.failed(f"{s.source}: body model: {exc}")
        seqs.append(s)
        paths.append(path if s.error is None else "")
    used = sorted(set(p for p in paths if p))
    sizes = {(_body_model(p).num_vertices, _body_model(p).num_joints) for p in used}
    if len(sizes) > 1:
        raise ValueError(f"the body models {', '.join(used)} differ in vertex or joint count; "
                         "one store holds one mesh topology")
    return seqs, paths


def _lay_out(out: str, plan: Plan, models: List[str], dtype: str, compression: str,
             attributes: Dict[str, Any]) -> None:
    """A new store for ``plan``, posed by ``models`` (files; the first gives the faces)."""
    first = _body_model(models[0]) if models else None
    attributes["body_models"] = [{"file": os.path.basename(p), "sha256": store.sha256(p)}
                                 for p in models]
    store.create(out, plan, np.zeros((0, 3)) if first is None else first.faces,
                 first.num_vertices if first else 0, first.num_joints if first else 0, dtype,
                 compression, attributes)


def _run(client: Any, out: str, plan: Plan, model_paths: List[str], fps: Optional[float],
         dtype: str, frame_bytes: int, progress: bool
         ) -> Tuple[int, List[int], List[Tuple[str, str]]]:
    """One task per chunk not yet marked done, once the disk is seen to have room for them
    (``frame_bytes`` a frame, before compression); returns the frames baked, the chunks whose
    task failed and (sources, message) of each."""
    distributed = require("distributed", "dataset", "skinkit bake")
    done = store.done_chunks(out)
    todo = [c for c in range(plan.chunks) if not done[c]]
    K = plan.frames_per_chunk
    todo_frames = sum(min(K, plan.frames - c * K) for c in todo)
    need, free = todo_frames * frame_bytes, shutil.disk_usage(out).free
    if need > free:
        raise ValueError(f"--out {out}: the bake needs up to {need / 1e9:.2f} GB ({todo_frames} "
                         f"frames of {frame_bytes} bytes before compression) and the disk has "
                         f"{free / 1e9:.2f} GB free")
    files = [s.source for s in plan.sequences]
    jobs = [[(files[p.sequence], model_paths[p.sequence], p) for p in plan.pieces(c)]
            for c in todo]
    futures = dict(zip(client.map(bake_chunk, todo, jobs, out=out, fps=fps, dtype=dtype,
                                  frames_per_chunk=plan.frames_per_chunk, pure=False), todo))
    baked, failed_chunks, errors = 0, [], []
    with _progress(todo_frames, progress) as bar:
        for future in distributed.as_completed(futures):
            c = futures[future]
            try:
                n = future.result()
            except Exception as exc:   # noqa: BLE001 - reported per chunk, the others go on
                failed_chunks.append(c)
                srcs = ", ".join(sorted({os.path.basename(files[p.sequence])
                                         for p in plan.pieces(c)}))
                errors.append((srcs, f"chunk {c} ({srcs}): {type(exc).__name__}: {exc}"))
                continue
            baked += n
            if bar is not None:
                bar.update(n)
    return baked, failed_chunks, errors


def bake(motions: Seq[str], out: str, *, body: Optional[str] = None,
         body_dir: Optional[str] = None, fps: Optional[float] = None,
         frames_per_chunk: int = 256, dtype: str = "float32", compression: str = "zstd",
         workers: Optional[int] = None, scheduler: Optional[str] = None,
         progress: bool = False) -> BakeSummary:
    """Pose AMASS motions with a body model into a Zarr store, on Dask distributed.

    Parameters
    ----------
    motions : sequence of str
        Motion files (AMASS .npz, read by ``skinkit.load_amass``), folders or glob patterns;
        the store's order is theirs (see ``skinkit.dataset.plan.motion_files``).
    out : str
        The store's folder.  If it holds a bake made with the same arguments, that bake is
        resumed: only the chunks not yet written are posed.
    body : str, a body model file for every motion; or
    body_dir : str, a folder of models laid out as ``smplx.create`` expects
        (``DIR/smplx/SMPLX_FEMALE.npz``, ...), picked by each motion's type and gender.
    fps : float, optional
        Resample every motion at ``fps`` (slerp of joint rotations, see ``BodyMotion.resample``);
        default: each motion's own frame rate.
    frames_per_chunk : int
        Frames per Zarr chunk and per task (default 256).
    dtype : "float32" or "float16"
        Precision of the stored vertices and joints (posing is float32).
    compression : "zstd" or "none"
        The frame arrays' codec: Zstandard level 1 (default), or none, which writes faster
        (zstd takes about as long as posing and saves about 8% on vertex coordinates:
        ``benchmarks/bake.py``) and stores more.
    workers : int, optional
        Worker processes of a local cluster (default: one per core), or
    scheduler : str, optional
        The address of a running Dask scheduler (``tcp://HOST:8786``); every worker must see
        ``out``, the motions and the body models at the same paths.
    progress : bool
        Show a progress bar over frames (tqdm, on stderr).

    Returns
    -------
    BakeSummary; ``summary.failed`` names the motion files that could not be read or posed
    (their sequences have status "failed" in the store, every other one is written).

    Raises
    ------
    ValueError
        A bad argument, a motion argument naming no file, a ``body`` that is not a body model
        (skinkit.BodyModelError), body models of different sizes, or ``out`` holding something
        else than this bake (the message says which argument differs).
    OSError
        ``body`` cannot be read.
    """
    t0 = time.perf_counter()
    _check_arguments(body, body_dir, fps, frames_per_chunk, dtype, compression, workers,
                     scheduler)
    out = str(Path(out).resolve())
    files = [str(f) for f in motion_files([str(m) for m in motions])]
    from .. import __version__
    arguments = {"motions": files, "fps": fps, "frames_per_chunk": frames_per_chunk,
                 "dtype": dtype, "compression": compression,
                 "body": None if body is None else str(Path(body).resolve()),
                 "body_dir": None if body_dir is None else str(Path(body_dir).resolve())}
    resumed = store.existing(out, arguments)
    with _client(workers, scheduler) as client:
        seqs = client.gather(client.map(read_sequence, files, fps=fps, pure=False))
        seqs, model_paths = _models(seqs, body, body_dir)
        plan = Plan(tuple(seqs), frames_per_chunk)
        used = sorted(set(p for p in model_paths if p))
        if resumed is None:
            _lay_out(out, plan, used, dtype, compression,
                     {"version": __version__, "arguments": arguments})
        else:
            store.check_layout(out, plan)
            store.discard_partial_writes(out)
        frame_bytes = 0 if not used else (    # vertices, joints, frame_sequence, frame_time
            (_body_model(used[0]).num_vertices + _body_model(used[0]).num_joints) * 3
            * np.dtype(dtype).itemsize + 12)
        baked, failed_chunks, errors = _run(client, out, plan, model_paths, fps, dtype,
                                            frame_bytes, progress)
    store.finish(out, failed_chunks)
    failed = tuple((s.source, s.error) for s in plan.sequences if s.error) + tuple(errors)
    return BakeSummary(out, plan.frames, len(plan.sequences), baked, time.perf_counter() - t0,
                       baked * frame_bytes, failed)
