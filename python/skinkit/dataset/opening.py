"""``skinkit.dataset.open``: a store's kind told from its attributes, then its reader (a mesh
store: ``store.open_mesh_store``; a motion store: ``motion_store.open_motion_store``), as
``skinkit.io.load`` sits above the file readers."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

from ..kernels._types import PathLike
from .motion_store import MotionStore, is_motion_store, open_motion_store
from .store import BakedStore, attributes, open_mesh_store


def open_store(store: PathLike) -> Union[BakedStore, MotionStore]:
    """Open a store written by ``skinkit.dataset.bake`` as dask arrays (nothing is read but
    the small arrays: faces and the sequences table); a motion store (``content="motion"``)
    as a ``skinkit.dataset.motion_store.MotionStore``, which poses its frames on the fly.

    Parameters
    ----------
    store : str or os.PathLike, the store's folder (of motions or of characters).

    Returns
    -------
    BakedStore (or MotionStore, checked by ``open_motion_store``).  The arrays carry Zarr v3
    dimension names, so ``xarray.open_zarr(store)``
    reads the same store as a labelled Dataset where xarray is installed.

    Raises
    ------
    StoreError (a ValueError)
        ``store`` is not a skinkit bake store, or is not laid out as a bake lays it out: it is
        checked once here, from its metadata, faces and sequences table (the frames are not
        read): only files and folders (no symbolic link, FIFO or device), every array present
        with its shape, dtype and chunks, sizes within ``skinkit.limits`` (``MAX_CHUNKS``
        chunks, ``MAX_ARRAY_BYTES`` a chunk), faces indexing the vertices, and sequences
        whose ``start`` and ``count`` lay them end to end over the frames.
    """
    path = os.fspath(store)
    if is_motion_store(attributes(path)[1]):
        return open_motion_store(path)
    return open_mesh_store(path)


def existing(out: str, arguments: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The attributes of the store at ``out`` if there is one made with the same
    ``arguments`` (a resumed bake); None if there is no store.

    Raises
    ------
    StoreError
        ``out`` exists but is not a skinkit bake store (see ``open_store``).
    ValueError
        The store was made with other arguments (the message names each argument that
        differs, with both values).
    """
    if not os.path.lexists(out):
        return None
    attrs = open_store(out).attributes
    old = attrs["arguments"]
    diff = [f"{k} ({old.get(k)!r} in the store, {arguments.get(k)!r} now)"
            for k in sorted(set(old) | set(arguments)) if old.get(k) != arguments.get(k)]
    if diff:
        raise ValueError(f"--out {out}: a bake with other arguments is there; it resumes only "
                         f"with the same ones. Different: {'; '.join(diff)}")
    return attrs
