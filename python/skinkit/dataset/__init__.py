"""Baked datasets: motion files posed by a body model into a Zarr store on Dask distributed
(:func:`bake`), read back as dask arrays (:func:`open`) or a torch Dataset
(``skinkit.torch.BakedDataset``); or posed on the fly (:class:`MotionCrops`,
``skinkit.torch.MotionDataset``).  See docs/guide/dataset.rst."""
from .bake import BakeSummary, bake
from .motions import Augmentation, MotionCrops
from .opening import open_store as open  # noqa: A001 - .open(store)
from .store import BakedStore, StoreError

__all__ = ["Augmentation", "BakeSummary", "BakedStore", "MotionCrops", "StoreError", "bake", "open"]
