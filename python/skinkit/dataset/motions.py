"""Posed meshes on the fly: crops of AMASS motions posed by a body model, with augmentation
(random betas, mirroring, random heading, time crops at any rate), in the canonical frame
(``skinkit.motion.canonical``), with the features of ``skinkit.motion``; deterministic for a
seed, and sharded by motion file (the torch form: ``skinkit.torch.MotionDataset``).

Each crop draws its randomness from its own generator, seeded by (seed, epoch, file, crop), so
the crops do not depend on the sharding: shards of any count give the same crops between them,
and one shard's order is the file order of its epoch."""
from __future__ import annotations

import dataclasses
import functools
import logging
import os
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ..io.amass import BodyMotion, _check_fps
from ..kernels import wrappers as kernels
from ..kernels._types import PathLike
from ..limits import MAX_ARRAY_BYTES, MAX_FRAMES
from ..motion._checks import flag, integer, number
from ..motion.canonical import canonical_transform, transform_motion
from ..motion.humanml3d import humanml3d_features, humanml3d_preprocess
from ..motion.mirror import mirror
from ..motion.rep272 import rep272_features
from .plan import error_message, motion_files, read_motion

if TYPE_CHECKING:
    from ..body.body_model import BodyModel
    from .motion_store import MotionStore

__all__ = ["Augmentation", "MotionCrops"]


def _sequence(store: str, file: str) -> Optional[int]:
    """The sequence of ``file`` if it is ``<store>/motion/<sequence>``."""
    folder, name = os.path.split(file)
    ok = folder == os.path.join(store, "motion") and name.isdigit() and name == str(int(name))
    return int(name) if ok else None


@functools.lru_cache(maxsize=2)
def _opened(store: str) -> "MotionStore":
    """A process's motion store (ValueError for a mesh store)."""
    from .motion_store import MotionStore
    from .opening import open_store
    s = open_store(store)
    if not isinstance(s, MotionStore):
        raise ValueError(f"store {store}: a store of meshes, not of motions (skinkit bake "
                         "--store motion)")
    return s

FEATURES = ("humanml3d", "rep272")
BAD_FILES = ("raise", "skip")
_log = logging.getLogger(__name__)   # a child of "skinkit": the files a loader skipped


@dataclasses.dataclass(frozen=True)
class Augmentation:
    """What each crop draws.

    Attributes
    ----------
    betas_sigma : None keeps the file's betas; a float draws each crop's betas from
        N(0, betas_sigma^2) (the model's ``num_betas`` of them).
    mirror : the probability of mirroring a crop (``skinkit.mirror``, about the body's rest root).
    heading : True turns each crop by a uniform random yaw about +Y after the canonical frame
        (which faces +Z).

    Raises
    ------
    TypeError, ValueError
        a betas_sigma that is not None or a number in [0, skinkit.limits.MAX_FILE_VALUE], a
        mirror probability outside [0, 1], a heading that is not a bool.
    """
    betas_sigma: Optional[float] = None
    mirror: float = 0.0
    heading: bool = False

    def __post_init__(self) -> None:
        if self.betas_sigma is not None:
            number(self.betas_sigma, "augmentation.betas_sigma")
        if not 0.0 <= number(self.mirror, "augmentation.mirror") <= 1.0:
            raise ValueError(f"augmentation.mirror: expected a probability, got {self.mirror}")
        flag(self.heading, "augmentation.heading")


@dataclasses.dataclass(frozen=True)
class MotionCrops:
    """An iterable of posed crops of the motions in ``files``.

    Item: a dict of NumPy arrays, ``vertices`` (F, V, 3) and ``joints`` (F, J, 3) float32 (metres,
    canonical frame), ``poses`` (F, J, 3) and ``transl`` (F, 3) the parameters that pose them,
    ``betas`` (S,), the requested ``features`` (``humanml3d`` (F - 1, 263) of
    ``humanml3d_preprocess``'d joints, ``rep272`` (F, 272)) float32, and ``sequence`` (index
    into ``files``), ``start`` (seconds), ``mirrored`` scalars.

    Parameters
    ----------
    files : the AMASS files (``from_folder`` lists a folder).
    model : the BodyModel posing them (its joint layout the motions').
    frames : frames per crop, at ``fps``.
    fps : the crops' rate: exact slerp resampling from each file's own rate, the crop's first
        frame at any time (``BodyMotion.resample(fps, start, frames)``).
    crops_per_motion : crops drawn from each file per epoch (motions shorter than a crop give
        none).
    features : names from ``FEATURES``.
    augmentation : Augmentation.
    seed, epoch : the draws (``with_epoch`` for another epoch's).  Posing runs on one thread
        (the share of one loader process: DataLoader workers or ranks give the parallelism).
    shard : (index, count): this shard takes the files ``index::count`` of the epoch's order.
    bad_files : what a file that cannot be read or posed does (a missing key, a non-finite
        value, a joint count other than the model's, a first frame without a facing): "raise"
        (ValueError naming the file), or "skip" (a warning on the ``skinkit`` logger naming
        the file and why; the other files go on).
    store : a motion store (``from_store``): ``files`` are its sequences'
        ``<store>/motion/<s>``, each decoded from the store.

    Raises
    ------
    TypeError, ValueError
        (naming the argument, the expected and the actual value) frames not an integer in
        [2, skinkit.limits.MAX_FRAMES] or a crop's vertices past MAX_ARRAY_BYTES, fps not in
        (0, MAX_FPS], crops_per_motion not in [1, MAX_FRAMES], unknown features, a seed or an
        epoch not a non-negative integer, a shard not two integers 0 <= index < count, an
        unknown bad_files.
    """
    files: Tuple[str, ...]
    model: "BodyModel"
    frames: int = 64
    fps: float = 20.0
    crops_per_motion: int = 1
    features: Tuple[str, ...] = ()
    augmentation: Augmentation = Augmentation()
    seed: int = 0
    epoch: int = 0
    shard: Tuple[int, int] = (0, 1)
    bad_files: str = "raise"
    store: Optional[str] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", tuple(os.fspath(f) for f in self.files))
        if self.store is not None:
            object.__setattr__(self, "store", os.fspath(self.store))
            bad = [f for f in self.files if _sequence(self.store, f) is None]
            if bad:
                raise ValueError(f"files: with a store, each file is <store>/motion/<sequence> "
                                 f"(MotionCrops.from_store), got {bad[0]!r}")
        if isinstance(self.features, str):
            raise TypeError(f"features: expected a sequence of names from {FEATURES}, got the "
                            f"string {self.features!r}")
        object.__setattr__(self, "features", tuple(self.features))
        unknown = set(self.features) - set(FEATURES)
        if unknown:
            raise ValueError(f"features: expected names from {FEATURES}, got {sorted(unknown)}")
        frames = integer(self.frames, "frames", 2, MAX_FRAMES, "MAX_FRAMES")
        crop_bytes = frames * int(self.model.num_vertices) * 3 * 8
        if crop_bytes > MAX_ARRAY_BYTES:
            raise ValueError(f"frames: a crop of {frames} frames of {self.model.num_vertices} "
                             f"vertices takes {crop_bytes} bytes, more than the limit of "
                             f"{MAX_ARRAY_BYTES} (skinkit.limits.MAX_ARRAY_BYTES)")
        object.__setattr__(self, "fps", _check_fps(self.fps, "fps"))
        integer(self.crops_per_motion, "crops_per_motion", 1, MAX_FRAMES, "MAX_FRAMES")
        integer(self.seed, "seed")
        integer(self.epoch, "epoch")
        if not isinstance(self.augmentation, Augmentation):
            raise TypeError(f"augmentation: expected an Augmentation, got "
                            f"{type(self.augmentation).__name__}")
        if isinstance(self.shard, (str, bytes)) or len(self.shard) != 2:
            raise ValueError(f"shard: expected (index, count), got {self.shard!r}")
        index = integer(self.shard[0], "shard index")
        count = integer(self.shard[1], "shard count", 1)
        if not index < count:
            raise ValueError(f"shard: expected (index, count) with 0 <= index < count, got "
                             f"{self.shard}")
        if self.bad_files not in BAD_FILES:
            raise ValueError(f"bad_files: expected one of {BAD_FILES}, got {self.bad_files!r}")

    @classmethod
    def from_store(cls, store: PathLike, model: Optional["BodyModel"] = None,
                   **options: Any) -> "MotionCrops":
        """The done sequences of a motion store (``skinkit bake --store motion``), decoded from
        it (``MotionStore.motion``) instead of read from their files: ``files`` are the
        sequences' arrays ``<store>/motion/<s>``, ``model`` by default the store's first body
        model.  StoreError for a store that is not one (``skinkit.dataset.open``), ValueError
        for a mesh store."""
        path = os.fspath(store)
        s = _opened(path)
        done = np.flatnonzero(s.sequences["status"] == "done")
        return cls(tuple(os.path.join(path, "motion", str(int(i))) for i in done),
                   s.models[0] if model is None else model, store=path, **options)

    @classmethod
    def from_folder(cls, folder: PathLike, model: "BodyModel", **options: Any) -> "MotionCrops":
        """The ``.npz`` files under ``folder`` (recursively, sorted by path; AMASS's per-subject
        ``shape.npz`` and ``*_stagei.npz`` left out, as a bake does).  ValueError when ``folder``
        is not a folder or holds no motion file."""
        root = os.fspath(folder)
        if not os.path.isdir(root):
            raise ValueError(f"folder: {root!r} is not a folder")
        return cls(tuple(str(f) for f in motion_files([root])), model, **options)

    def with_epoch(self, epoch: int) -> "MotionCrops":
        return dataclasses.replace(self, epoch=epoch)

    def with_shard(self, index: int, count: int) -> "MotionCrops":
        return dataclasses.replace(self, shard=(index, count))

    def order(self) -> List[int]:
        """This shard's file indices in the epoch's order."""
        order = np.random.default_rng([self.seed, self.epoch]).permutation(len(self.files))
        index, count = self.shard
        return [int(i) for i in order[index::count]]

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        for i in self.order():
            try:
                yield from self._crops(i)
            except ImportError:        # the environment, not the file
                raise
            except Exception as exc:   # any failure of one file is that file's
                message = error_message(self.files[i], exc)
                if self.bad_files == "raise":
                    raise ValueError(f"motion {i}: {message}") from exc
                _log.warning("skipped motion %d: %s", i, message)

    def _crops(self, i: int) -> Iterator[Dict[str, Any]]:
        """The crops of file ``i`` (its errors not yet named; the file read and checked before
        the first, so that a file skipped for them gives none)."""
        sequence = None if self.store is None else _sequence(self.store, self.files[i])
        motion = (read_motion(self.files[i], None) if sequence is None else
                  _opened(self.store or "").motion(sequence))
        if motion.poses.shape[1] != self.model.num_joints:
            raise ValueError(f"the motion has {motion.poses.shape[1]} joints, the model "
                             f"{self.model.num_joints}")
        for c in range(self.crops_per_motion):
            item = self._crop(motion, i, np.random.default_rng([self.seed, self.epoch, i, c]))
            if item is not None:
                yield item

    def batches(self, size: int) -> Iterator[Dict[str, Any]]:
        """Items stacked ``size`` at a time (the last batch may be smaller)."""
        size = integer(size, "size", 1)
        batch: List[Dict[str, Any]] = []
        for item in self:
            batch.append(item)
            if len(batch) == size:
                yield {k: np.stack([b[k] for b in batch]) for k in batch[0]}
                batch = []
        if batch:
            yield {k: np.stack([b[k] for b in batch]) for k in batch[0]}

    def _crop(self, motion: BodyMotion, sequence: int, rng: np.random.Generator
              ) -> Optional[Dict[str, Any]]:
        span = (self.frames - 1) / self.fps
        duration = (len(motion.poses) - 1) / motion.fps
        if duration < span:
            return None
        aug = self.augmentation
        start = float(rng.uniform(0.0, duration - span))
        betas = (motion.betas[:self.model.num_betas] if aug.betas_sigma is None else
                 rng.normal(0.0, aug.betas_sigma, self.model.num_betas))
        flip = bool(rng.random() < aug.mirror)
        yaw = float(rng.uniform(-np.pi, np.pi)) if aug.heading else 0.0
        rest = np.asarray(self.model(betas=betas, threads=1)[1], np.float64)
        m = motion.resample(self.fps, start, self.frames)
        if len(m.poses) < self.frames:  # the rounding of the last frame's time
            return None
        m = dataclasses.replace(m, betas=np.asarray(betas, np.float64))
        if flip:
            m = mirror(m, rest[0])
        # the posed joints by FK of the rest joints (what the model computes, without the
        # mesh), so that the mesh is posed once, already in the canonical frame
        q = kernels.quat_from_rotvec(m.poses)
        at_rest = np.broadcast_to(rest, q.shape[:-1] + (3,))
        Q, t = kernels.rigid_forward_kinematics(self.model.parents, at_rest, q, threads=1)
        joints = kernels.quat_rotate(Q, at_rest) + t + m.transl[:, None]
        rotation, offset = canonical_transform(np.asarray(joints, np.float64))
        turn = np.array([0.0, np.sin(yaw / 2), 0.0, np.cos(yaw / 2)])
        rotation = np.asarray(kernels.quat_multiply(turn, rotation), np.float64)
        offset = np.asarray(kernels.quat_rotate(np.broadcast_to(turn, offset.shape[:-1] + (4,)),
                                                offset), np.float64)
        m = transform_motion(m, rotation, offset, rest[0])
        vertices, joints = self.model(betas=betas, pose=m.poses, transl=m.transl, threads=1)
        item: Dict[str, Any] = {"vertices": np.asarray(vertices, np.float32),
                                "joints": np.asarray(joints, np.float32)}
        body = item["joints"][:, :22].astype(np.float64)
        if "humanml3d" in self.features:
            item["humanml3d"] = humanml3d_features(humanml3d_preprocess(body)).astype(np.float32)
        if "rep272" in self.features:
            item["rep272"] = rep272_features(body, m.poses).astype(np.float32)
        item.update(poses=m.poses.astype(np.float32), transl=m.transl.astype(np.float32),
                    betas=np.asarray(betas, np.float32), sequence=np.int64(sequence),
                    start=np.float64(start), mirrored=np.bool_(flip))
        return item
