"""``skinkit.torch.BakedDataset``: a baked store as a map-style torch Dataset of frames."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
import torch

from ..kernels._types import PathLike
from . import store as _store



class BakedDataset(torch.utils.data.Dataset[Dict[str, torch.Tensor]]):
    """The frames of a store written by ``skinkit.dataset.bake``, one item per frame.

    Item ``i`` is a dict of CPU tensors: ``vertices`` (V, 3) (for a store of characters
    ``vertices/<primitive key>`` (V_p, 3) of each primitive) and ``joints`` (J, 3) in the
    store's dtype (float32 or float16), ``frame_sequence`` () int32 and ``frame_time`` ()
    float64 (seconds).  The store is opened lazily in each process (so the Dataset pickles to
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
        s = _store.open_store(self.store)
        self.faces: Any = ({k: torch.from_numpy(f) for k, f in s.faces.items()}
                           if isinstance(s.faces, dict) else torch.from_numpy(s.faces))
        self._len = len(s)
        self._group: Any = None   # the store's zarr group, opened in each worker process
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
            self._group = _store._group(self.store, "r")
        K = self._group["frame_time"].chunks[0]
        if self._chunk is None or not self._chunk[0] <= i < self._chunk[0] + K:
            self._chunk = _store.frame_arrays(self._group, i // K)
        lo, arrays = self._chunk
        return {k: torch.from_numpy(np.array(a[i - lo])) for k, a in arrays.items()}
