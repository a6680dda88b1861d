"""BLAS threads bounded by skinkit's ``threads=``: NumPy's BLAS (OpenBLAS, MKL...) keeps its own
pool of threads beside the kernels' threads, and both at the machine's size oversubscribe the
CPUs (SMPL-X forward at B = 64 ran 3x slower on two threads than on one).  Around each BLAS
product, threadpoolctl limits the BLAS libraries loaded in the process to the same number of
threads as the kernels.  The controller (which lists the loaded libraries, ~1 ms) is made once;
each limit then costs ~10 us."""
from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from .. import _core

_controller = None


@contextlib.contextmanager
def blas_threads(threads: Optional[int]) -> Iterator[None]:
    """Within the block, BLAS uses at most ``threads`` threads (None: skinkit's default, the
    ``SKINKIT_NUM_THREADS`` environment variable or the number of CPUs)."""
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController
        _controller = ThreadpoolController()
    with _controller.limit(limits=int(threads or _core.default_threads()), user_api="blas"):
        yield
