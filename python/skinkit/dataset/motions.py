"""Posed meshes on the fly: crops of AMASS motions posed by a body model, with augmentation
(random betas, mirroring, random heading, time crops at any rate), in the canonical frame
(``skinkit.motion.canonical``), with the features of ``skinkit.motion``; deterministic for a
seed, and sharded by motion file (the torch form: ``skinkit.torch.MotionDataset``).

Each crop draws its randomness from its own generator, seeded by (seed, epoch, file, crop), so
the crops do not depend on the sharding: shards of any count give the same crops between them,
and one shard's order is the file order of its epoch."""
from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ..io.amass import BodyMotion, load_amass
from ..kernels import wrappers as kernels
from ..kernels._types import PathLike
from ..motion.canonical import canonical_transform, transform_motion
from ..motion.humanml3d import humanml3d_features, humanml3d_preprocess
from ..motion.mirror import mirror
from ..motion.rep272 import rep272_features

if TYPE_CHECKING:
    from ..body.body_model import BodyModel

__all__ = ["Augmentation", "MotionCrops"]

FEATURES = ("humanml3d", "rep272")


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
    """
    betas_sigma: Optional[float] = None
    mirror: float = 0.0
    heading: bool = False


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", tuple(os.fspath(f) for f in self.files))
        object.__setattr__(self, "features", tuple(self.features))
        unknown = set(self.features) - set(FEATURES)
        if unknown:
            raise ValueError(f"features: expected names from {FEATURES}, got {sorted(unknown)}")
        if self.frames < 2 or self.crops_per_motion < 1:
            raise ValueError(f"frames >= 2 and crops_per_motion >= 1 expected, got "
                             f"{self.frames} and {self.crops_per_motion}")
        index, count = self.shard
        if not 0 <= index < count:
            raise ValueError(f"shard: expected (index, count) with 0 <= index < count, got "
                             f"{self.shard}")
        if not 0.0 <= self.augmentation.mirror <= 1.0:
            raise ValueError(f"augmentation.mirror: expected a probability, got "
                             f"{self.augmentation.mirror}")

    @classmethod
    def from_folder(cls, folder: PathLike, model: "BodyModel", **options: Any) -> "MotionCrops":
        """The ``.npz`` files under ``folder`` (recursively, sorted by path)."""
        root = os.fspath(folder)
        if not os.path.isdir(root):
            raise ValueError(f"folder: {root!r} is not a folder")
        files = sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names
                       if f.endswith(".npz"))
        if not files:
            raise ValueError(f"folder: no .npz motion files under {root!r}")
        return cls(tuple(files), model, **options)

    def with_epoch(self, epoch: int) -> "MotionCrops":
        return dataclasses.replace(self, epoch=int(epoch))

    def with_shard(self, index: int, count: int) -> "MotionCrops":
        return dataclasses.replace(self, shard=(int(index), int(count)))

    def order(self) -> List[int]:
        """This shard's file indices in the epoch's order."""
        order = np.random.default_rng([self.seed, self.epoch]).permutation(len(self.files))
        index, count = self.shard
        return [int(i) for i in order[index::count]]

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        for i in self.order():
            motion = load_amass(self.files[i])
            for c in range(self.crops_per_motion):
                item = self._crop(motion, i, np.random.default_rng([self.seed, self.epoch, i, c]))
                if item is not None:
                    yield item

    def batches(self, size: int) -> Iterator[Dict[str, Any]]:
        """Items stacked ``size`` at a time (the last batch may be smaller)."""
        if size < 1:
            raise ValueError(f"size: expected >= 1, got {size}")
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
