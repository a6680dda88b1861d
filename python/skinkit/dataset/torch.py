"""torch datasets: ``BakedDataset`` (a baked store as a map-style Dataset of frames) with its
``ChunkGroupedSampler``, and ``MotionDataset`` (crops of AMASS motions posed on the fly, an
IterableDataset sharded over DataLoader workers and torch.distributed ranks)."""
from __future__ import annotations

import os
import dataclasses
from typing import Any, Dict, Iterator, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
import torch

from ..kernels._types import PathLike
from ..motion._checks import integer
from . import store as _store
from .motion_store import MotionStore
from .motions import MotionCrops
from .opening import open_store


class BakedDataset(torch.utils.data.Dataset[Dict[str, torch.Tensor]]):
    """The frames of a store written by ``skinkit.dataset.bake``, one item per frame.

    Item ``i`` is a dict of CPU tensors: ``vertices`` (V, 3) (for a store of characters
    ``vertices/<primitive key>`` (V_p, 3) of each primitive) and ``joints`` (J, 3) in the
    store's dtype (float32 or float16), ``frame_sequence`` () int32 and ``frame_time`` ()
    float64 (seconds); a motion store's frames are posed on the fly, ``frames_per_chunk`` at a
    time (``MotionStore.frames``).  The store is opened lazily in each process (so the Dataset pickles to
    DataLoader workers as its path) and read a chunk at a time: the last chunk read is kept,
    so that sequential or chunk-grouped sampling reads each chunk once.

    Parameters
    ----------
    store : str or os.PathLike, the store's folder.

    Raises
    ------
    skinkit.dataset.StoreError (a ValueError)
        ``store`` is not a skinkit bake store (checked as ``skinkit.dataset.open`` does), or a
        chunk file cannot be read (the message names the array and the chunk).
    IndexError
        An item outside ``0 .. len - 1``.
    """

    def __init__(self, store: PathLike) -> None:
        self.store = os.fspath(store)
        s = open_store(self.store)
        self.faces: Any = ({k: torch.from_numpy(f) for k, f in s.faces.items()}
                           if isinstance(s.faces, dict) else torch.from_numpy(s.faces))
        self._len = len(s)
        self._motion = isinstance(s, MotionStore)
        self.frames_per_chunk = (s.frames_per_chunk if isinstance(s, MotionStore) else
                                 int(s.frame_time.chunks[0][0]))
        # the store's zarr group (or the MotionStore), opened in each worker process
        self._group: Any = None
        self._chunk: Optional[Tuple[int, Dict[str, NDArray[Any]]]] = None

    def __len__(self) -> int:
        return self._len

    def __getstate__(self) -> Dict[str, Any]:
        return {**self.__dict__, "_group": None, "_chunk": None}

    def __getitem__(self, index: int) -> Dict[str, torch.Tensor]:
        i = int(index)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"frame {index} outside 0..{self._len - 1}")
        if self._group is None:
            self._group = (open_store(self.store) if self._motion else
                           _store._group(self.store, "r"))
        K = self.frames_per_chunk
        if self._chunk is None or not self._chunk[0] <= i < self._chunk[0] + K:
            lo = i // K * K
            self._chunk = ((lo, self._group.frames(lo, min(lo + K, self._len))) if self._motion
                           else _store.frame_arrays(self._group, i // K))
        lo, arrays = self._chunk
        return {k: torch.from_numpy(np.array(a[i - lo])) for k, a in arrays.items()}


class ChunkGroupedSampler(torch.utils.data.Sampler[int]):
    """Shuffled frame indices of a ``BakedDataset`` a chunk at a time: the chunks in a random
    order, the frames of each in a random order, so that each chunk is read once per epoch per
    DataLoader worker (a batch size dividing the chunk's frames keeps a batch in one chunk),
    where uniform shuffling reads a chunk for nearly every frame.

    Parameters
    ----------
    dataset : BakedDataset (or anything with ``len`` and ``frames_per_chunk``).
    seed : the shuffles' seed, an integer >= 0; ``set_epoch`` draws another epoch's.

    Raises
    ------
    TypeError, ValueError
        a seed or an epoch that is not an integer >= 0, a dataset's frames_per_chunk that is not
        an integer >= 1.
    """

    def __init__(self, dataset: Any, seed: int = 0) -> None:
        self.frames = len(dataset)
        self.chunk = integer(dataset.frames_per_chunk, "dataset.frames_per_chunk", 1)
        self.seed, self.epoch = integer(seed, "seed"), 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = integer(epoch, "epoch")

    def __len__(self) -> int:
        return self.frames

    def __iter__(self) -> Iterator[int]:
        rng = np.random.default_rng([self.seed, self.epoch])
        for c in rng.permutation(-(-self.frames // self.chunk)):
            frames = np.arange(c * self.chunk, min((c + 1) * self.chunk, self.frames))
            yield from rng.permutation(frames).tolist()


class MotionDataset(torch.utils.data.IterableDataset[Dict[str, torch.Tensor]]):
    """Crops of AMASS motions posed on the fly (``skinkit.dataset.MotionCrops``) as tensors,
    sharded by motion file over the DataLoader's workers and the torch.distributed ranks
    (shard ``rank * workers + worker`` of ``world_size * workers``): deterministic for a seed,
    a worker count and a world size, the crops the same for any of them.  Batch with
    ``DataLoader(dataset, batch_size=B, num_workers=W)``.

    Parameters
    ----------
    crops : MotionCrops (its ``shard`` is replaced by the process's); TypeError for another
        type.
    """

    def __init__(self, crops: MotionCrops) -> None:
        if not isinstance(crops, MotionCrops):
            raise TypeError(f"crops: expected a skinkit.dataset.MotionCrops, got "
                            f"{type(crops).__name__}")
        self.crops = crops

    def set_epoch(self, epoch: int) -> None:
        self.crops = self.crops.with_epoch(epoch)

    def shard(self) -> Tuple[int, int]:
        """This process's (index, count)."""
        info = torch.utils.data.get_worker_info()
        worker, workers = (0, 1) if info is None else (info.id, info.num_workers)
        dist = torch.distributed
        rank, world = ((dist.get_rank(), dist.get_world_size())
                       if dist.is_available() and dist.is_initialized() else (0, 1))
        return rank * workers + worker, world * workers

    def __iter__(self) -> Iterator[Dict[str, torch.Tensor]]:
        for item in dataclasses.replace(self.crops, shard=self.shard()):
            yield {k: torch.from_numpy(np.asarray(v)) for k, v in item.items()}
