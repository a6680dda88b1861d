"""``skinkit.dataset.bake``: motion files through a body model (or glTF/FBX characters' clips)
to a Zarr store, on Dask.

The run: read every file on the workers (the plan: frame counts, and the malformed files
found before anything is laid out), lay the store out, then one task per run of chunks of whole
frames not yet written (``task_chunks``); each task poses a chunk's frames (``BodyModel.forward``
or ``skinkit.model.pose.run``, one BLAS and one skinkit thread: the input kind is a
``skinkit.dataset.sources.Source``) while a second thread writes the chunk before it as whole
Zarr chunks, then that chunk's done mark.  A rerun with the
same arguments submits only the chunks without a mark; Dask reruns the tasks of a worker that
died.  Every chunk's bytes depend only on the inputs, so a resumed or repaired bake equals an
uninterrupted one bit for bit.
"""
from __future__ import annotations

import contextlib
import logging
import math
import os
import shutil
import signal
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import (Any, ContextManager, Dict, Iterator, List, Optional, Sequence as Seq, Tuple,
                    Union)

import numpy as np
from numpy.typing import NDArray

from .. import limits
from ..body.workspace import Workspace
from ..kernels._optional import require
from . import motion_store, opening, store
from .schema import COMMON_FRAMES
from .plan import Piece, Plan, Sequence
from .sources import Characters, Layout, Motions, Source


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


# chunks per task: at most MAX_TASK_CHUNKS (the work a killed worker loses), and at least
# TASKS_PER_WORKER tasks a worker where there are chunks enough (the tail's balance)
MAX_TASK_CHUNKS, TASKS_PER_WORKER = 16, 4


def task_chunks(todo: List[int], workers: int) -> List[List[int]]:
    """``todo`` (the chunks to bake, in order) cut into the chunk lists of the bake's tasks:
    runs of consecutive entries, as long as ``MAX_TASK_CHUNKS`` and ``TASKS_PER_WORKER``
    allow for ``workers`` worker threads."""
    n = max(1, min(MAX_TASK_CHUNKS, len(todo) // (TASKS_PER_WORKER * max(workers, 1))))
    return [todo[i:i + n] for i in range(0, len(todo), n)]


def pose_chunk(jobs: List[Tuple[Sequence, str, Piece]], source: Source,
               buffers: Dict[str, NDArray[Any]], workspace: Workspace) -> Dict[str, NDArray[Any]]:
    """The frame arrays of one chunk, posed into ``buffers`` (name -> (frames per chunk, ...)
    arrays of the store's frame arrays, ``ChunkWriter.arrays``): their first rows.  ``jobs``
    are (sequence, model file, piece) in row order, posed by ``source`` (in the calling
    thread's BLAS and skinkit threads, its temporaries from ``workspace``)."""
    rows = sum(p.stop - p.first for _, _, p in jobs)
    out = {name: a[:rows] for name, a in buffers.items()}
    for seq, model, p in jobs:
        dst = slice(p.row, p.row + p.stop - p.first)
        out["frame_time"][dst] = source.pose(seq, model, p, {
            name: a[dst] for name, a in out.items() if name not in COMMON_FRAMES}, workspace)
        out["frame_sequence"][dst] = p.sequence
    return out


def bake_chunks(chunks: List[int], jobs: List[List[Tuple[Sequence, str, Piece]]], *,
                source: Source, out: str) -> int:
    """Pose and write the chunks ``chunks`` (a Dask task; ``jobs[i]``: chunk ``chunks[i]``'s
    (sequence, model file, piece) in row order, posed by ``source``): each chunk is posed
    while the one before it is encoded and written (``ChunkWriter.write``: arrays, then the
    done mark) by a second thread.  The store is opened once, and the task's chunks are posed
    into two sets of frame arrays in turn (one posed while the other is written) with one
    ``Workspace``: nothing large is allocated after the first two chunks.  Returns the frames
    written (chunks already marked done are skipped)."""
    threadpoolctl = require("threadpoolctl", "dataset", "skinkit bake")
    # an interrupted bake (Ctrl-C) closes the cluster under this task: the worker's warning that
    # it cancelled it would reach the terminal beside the bake's one line
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)
    target = store.ChunkWriter(out)
    K, workspace = target.frames_per_chunk, Workspace()
    buffers: List[Dict[str, NDArray[Any]]] = []
    written = 0
    with threadpoolctl.threadpool_limits(1), ThreadPoolExecutor(1) as writer:
        pending: Optional[Future[None]] = None
        for chunk, job in zip(chunks, jobs):
            if target.done(chunk):
                continue
            if len(buffers) < 2:       # the second set, first posed into
                buffers.insert(0, {name: np.empty((K,) + a.shape[1:], a.dtype)
                                   for name, a in target.arrays.items()})
            # buffers[0]: new, or the set the chunk before last was written from (ended)
            arrays = pose_chunk(job, source, buffers[0], workspace)
            if pending is not None:
                pending.result()
            pending = writer.submit(target.write, chunk, arrays)
            buffers.reverse()
            written += len(arrays["frame_time"])
        if pending is not None:
            pending.result()
    return written


@contextlib.contextmanager
def _client(workers: Optional[int], scheduler: Optional[str]) -> Iterator[Any]:
    """A distributed Client: of the cluster at ``scheduler``, or of a LocalCluster of
    ``workers`` single-threaded processes (default: one per core) with no dashboard: the
    scheduler's HTTP server (which distributed starts even without one, on port 8787) on a free
    port of localhost.  The worker processes start with SIGINT ignored, so that Ctrl-C at a
    terminal (sent to the whole process group) interrupts the bake, which closes the cluster,
    rather than every worker printing its traceback."""
    distributed = require("distributed", "dataset", "skinkit bake")
    if scheduler is not None:
        with distributed.Client(scheduler) as client:
            yield client
        return
    n = workers or os.cpu_count() or 1
    with _sigint_ignored():
        cluster = distributed.LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
            scheduler_kwargs={"dashboard": False, "dashboard_address": "localhost:0"})
    with cluster, distributed.Client(cluster) as client:
        yield client


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored in the block (and so in the processes it starts: an ignored signal stays
    ignored across exec, and Python then installs no KeyboardInterrupt handler), where this is
    the main thread; its handler restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


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


def _check_arguments(source: Source, fps: Optional[float], frames_per_chunk: int, dtype: str,
                     compression: str, workers: Optional[int], scheduler: Optional[str]) -> None:
    if fps is not None and not (math.isfinite(fps) and 0 < fps <= limits.MAX_FPS):
        raise ValueError(f"fps must be in (0, {limits.MAX_FPS:g}] frames per second "
                         f"(skinkit.limits.MAX_FPS), got {fps}")
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
    source.check()


CONTENTS = ("meshes", "motion")


def _check_content(source: Source, content: str, precision: float) -> None:
    if content not in CONTENTS:
        raise ValueError(f"content must be one of {', '.join(CONTENTS)}, got {content!r}")
    if content == "motion" and not isinstance(source, Motions):
        raise ValueError("a motion store keeps AMASS motions (body and body_dir); glTF/FBX "
                         "characters bake to meshes")
    if not (isinstance(precision, (int, float)) and math.isfinite(precision) and precision > 0):
        raise ValueError(f"precision must be a finite number of metres > 0, got {precision!r}")


def compress_sequence(sequence: int, seq: Sequence, model: str, *, fps: Optional[float],
                      precision: float, out: str) -> Tuple[int, int]:
    """Compress one sequence's motion into the motion store at ``out`` (a Dask task):
    ``motion_store.encode`` of the motion read (and resampled) as a mesh bake reads it, posed
    by its body model, then ``motion_store.write``.  Returns (frames, bytes written)."""
    from .sources import _body_model, _motion
    data = motion_store.encode(_motion(seq.source, fps), _body_model(model), precision)
    motion_store.write(out, sequence, data)
    return seq.count, len(data)


def _bake_motions(client: Any, out: str, plan: Plan, models: List[str], model_paths: List[str],
                  source: Source, resumed: Optional[Dict[str, Any]], attributes: Dict[str, Any],
                  precision: float, progress: bool, t0: float) -> BakeSummary:
    """A motion store: laid out (or resumed), one task a sequence not yet written and not
    failed (``compress_sequence``), then the statuses."""
    distributed = require("distributed", "dataset", "skinkit bake")
    if resumed is None:
        motion_store.create(out, plan, source.columns(plan.sequences), models, model_paths,
                            {**attributes, "body_models": source.layout(models)
                             .attributes["body_models"]})
    else:
        store.check_layout(out, plan)
        store.discard_partial_writes(out)
    done = motion_store.done_sequences(out)
    todo = [i for i, s in enumerate(plan.sequences) if s.error is None and not done[i]]
    futures = {client.submit(compress_sequence, i, plan.sequences[i], model_paths[i],
                             fps=source.fps, precision=precision, out=out, pure=False): i
               for i in todo}
    baked = nbytes = 0
    errors: List[Tuple[str, str]] = []
    with _progress(sum(plan.sequences[i].count for i in todo), progress) as bar:
        for future in distributed.as_completed(futures):
            seq = plan.sequences[futures[future]]
            try:
                frames, n = future.result()
            except Exception as exc:   # noqa: BLE001 - reported per sequence, the others go on
                errors.append((seq.source, f"sequence {futures[future]} ({seq.source}): "
                                           f"{type(exc).__name__}: {exc}"))
                continue
            baked, nbytes = baked + frames, nbytes + n
            if bar is not None:
                bar.update(frames)
    motion_store.finish(out)
    failed = tuple((s.source, s.error) for s in plan.sequences if s.error) + tuple(errors)
    return BakeSummary(out, plan.frames, len(plan.sequences), baked, time.perf_counter() - t0,
                       nbytes, failed)


def _source(body: Optional[str], body_dir: Optional[str], clips: Union[str, Seq[str], None],
            fps: Optional[float]) -> Source:
    """Characters (``clips`` given) or motions (``body`` or ``body_dir``)."""
    if clips is None:
        return Motions(fps, body, body_dir)
    if body is not None or body_dir is not None:
        raise ValueError("clips are for glTF/FBX characters, body and body_dir for AMASS "
                         "motions: give one kind")
    names = clips.split(",") if isinstance(clips, str) else list(clips)
    return Characters(fps, tuple(n.strip() if isinstance(n, str) else n for n in names))


def _lay_out(out: str, plan: Plan, source: Source, layout: Layout, dtype: str,
             compression: str, attributes: Dict[str, Any]) -> None:
    """A new store for ``plan``, with ``layout`` (of the models that pose it)."""
    store.create(out, plan, layout.frames, layout.static, source.columns(plan.sequences), dtype,
                 compression, {**attributes, **layout.attributes})


def _run(client: Any, out: str, plan: Plan, model_paths: List[str], source: Source,
         frame_bytes: int, progress: bool
         ) -> Tuple[int, List[int], List[Tuple[str, str]]]:
    """One task per run of chunks not yet marked done (``task_chunks``), once the disk is seen to have room for them
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
    tasks = task_chunks(todo, sum(client.nthreads().values()))
    jobs = [[[(plan.sequences[p.sequence], model_paths[p.sequence], p) for p in plan.pieces(c)]
             for c in chunks] for chunks in tasks]
    futures = dict(zip(client.map(bake_chunks, tasks, jobs, out=out, source=source, pure=False),
                       tasks))
    baked, failed_chunks, errors = 0, [], []
    with _progress(todo_frames, progress) as bar:
        for future in distributed.as_completed(futures):
            chunks = futures[future]
            try:
                n = future.result()
            except Exception as exc:   # noqa: BLE001 - reported per task, the others go on
                failed_chunks += chunks
                srcs = ", ".join(sorted({os.path.basename(files[p.sequence])
                                         for c in chunks for p in plan.pieces(c)}))
                where = f"chunk {chunks[0]}" if len(chunks) == 1 else \
                    f"chunks {chunks[0]}-{chunks[-1]}"
                errors.append((srcs, f"{where} ({srcs}): {type(exc).__name__}: {exc}"))
                continue
            baked += n
            if bar is not None:
                bar.update(n)
    return baked, failed_chunks, errors


def bake(motions: Seq[str], out: str, *, body: Optional[str] = None,
         body_dir: Optional[str] = None, clips: Union[str, Seq[str], None] = None,
         fps: Optional[float] = None, frames_per_chunk: int = 256, dtype: str = "float32",
         compression: str = "none", content: str = "meshes", precision: float = 1e-4,
         workers: Optional[int] = None, scheduler: Optional[str] = None,
         progress: bool = False) -> BakeSummary:
    """Pose AMASS motions with a body model (or glTF/FBX characters' clips) into a Zarr
    store, on Dask distributed.

    Parameters
    ----------
    motions : sequence of str
        Motion files (AMASS .npz, read by ``skinkit.load_amass``), folders or glob patterns;
        the store's order is theirs (see ``skinkit.dataset.plan.motion_files``).  With
        ``clips``: glTF/FBX/USD characters (``skinkit.load_model``; folders give their files of
        ``skinkit.dataset.plan.CHARACTER_SUFFIXES``).
    out : str
        The store's folder.  If it holds a bake made with the same arguments, that bake is
        resumed: only the chunks not yet written are posed.
    body : str, a body model file for every motion; or
    body_dir : str, a folder of models laid out as ``smplx.create`` expects
        (``DIR/smplx/SMPLX_FEMALE.npz``, ...), picked by each motion's type and gender; or
    clips : "all", "NAME,NAME" or a sequence of names, for characters
        The clips of each character to bake, each (file, clip) pair one sequence (the
        ``clip`` column of ``sequences``): names, or indices for unnamed clips; "all" for every
        clip of each file.  A file without one of them has that sequence failed.  Every
        character must have the same primitives (vertex and face counts, faces) and joints:
        the store holds ``vertices/<primitive key>`` (N, V_p, 3), ``faces/<primitive key>``
        and ``joints`` (N, J, 3), the world position of every node.
    fps : float, optional
        Resample every motion at ``fps`` (slerp of joint rotations, see ``BodyMotion.resample``);
        default: each motion's own frame rate.  For characters, the frames are at ``k / fps``
        up to the clip's duration, both ends included (``skinkit.frame_times``); default 30.
    frames_per_chunk : int
        Frames per Zarr chunk and per task (default 256).
    dtype : "float32" or "float16"
        Precision of the stored vertices and joints (posing is float32).
    compression : "none" or "zstd"
        The frame arrays' codec: none (default), or Zstandard level 1, which keeps 0.92 of
        the bytes of float32 vertex coordinates (0.91 of float16) and costs 0.7 of the posing
        time on one core (none: 0.1; a byte shuffle before zstd keeps 0.83-0.89 for about the
        posing time again: ``benchmarks/bake.py``).
    content : "meshes" or "motion"
        What the store keeps: the posed frames (default), or for AMASS motions each
        sequence's compressed motion and the body models' arrays, posed back on the fly by
        ``skinkit.dataset.open`` (``skinkit.dataset.motion_store``; frames_per_chunk and dtype
        are then the reader's batch and output dtype, compression unused).
    precision : float
        For ``content="motion"``: the largest object-space error of the compressed joints,
        metres (``skinkit.compress`` at a 3 cm shell; default 1e-4).
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
        (skinkit.BodyModelError), body models of different sizes, characters of different
        layouts (the message names the file), or ``out`` holding something else than this bake
        (the message says which argument differs).
    FileExistsError
        ``out`` (or the folder beside it that a new store is laid out in, ``out.creating``)
        is a symbolic link, dangling or not (before anything is written).
    OSError
        ``body`` cannot be read.
    """
    t0 = time.perf_counter()
    source = _source(body, body_dir, clips, fps)
    _check_arguments(source, fps, frames_per_chunk, dtype, compression, workers, scheduler)
    _check_content(source, content, precision)
    for path in (out, f"{out}.creating"):   # never a link: it could lead the store elsewhere
        if os.path.islink(path):
            raise FileExistsError(17, "is a symbolic link: a store is never written through "
                                  "one", path)
    out = str(Path(out).resolve())
    files = source.files([str(m) for m in motions])
    from .._core import __version__
    arguments = {"characters" if isinstance(source, Characters) else "motions": files,
                 "fps": fps, "frames_per_chunk": frames_per_chunk, "dtype": dtype,
                 "compression": compression, **source.arguments()}
    if content == "motion":
        arguments.update(store="motion", precision=float(precision))
    resumed = opening.existing(out, arguments)
    with _client(workers, scheduler) as client:
        read = client.gather(client.map(source.read, files, pure=False))
        seqs, model_paths = source.models([s for file_seqs in read for s in file_seqs])
        plan = Plan(tuple(seqs), frames_per_chunk)
        models = sorted(set(p for p in model_paths if p))
        if content == "motion":
            return _bake_motions(client, out, plan, models, model_paths, source, resumed,
                                 {"version": __version__, "arguments": arguments},
                                 float(precision), progress, t0)
        layout = source.layout(models)
        if resumed is None:
            _lay_out(out, plan, source, layout, dtype, compression,
                     {"version": __version__, "arguments": arguments})
        else:
            store.check_layout(out, plan)
            store.discard_partial_writes(out)
        # the frame arrays, frame_sequence and frame_time
        frame_bytes = layout.frame_values * np.dtype(dtype).itemsize + 12
        baked, failed_chunks, errors = _run(client, out, plan, model_paths, source, frame_bytes,
                                            progress)
    store.finish(out, failed_chunks)
    failed = tuple((s.source, s.error) for s in plan.sequences if s.error) + tuple(errors)
    return BakeSummary(out, plan.frames, len(plan.sequences), baked, time.perf_counter() - t0,
                       baked * frame_bytes, failed)
