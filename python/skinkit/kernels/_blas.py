"""The BLAS products of the body models, with the same bits for any ``threads=`` and under any
number of concurrent callers.

NumPy's BLAS (OpenBLAS, MKL...) splits a product over its own pool of threads, and how it splits
can change the order of a reduction, and so the last bit (OpenBLAS's matrix-vector products sum
partial results per thread): a product on one BLAS thread and on eight differ.  Its thread count
is process-wide (threadpoolctl's limits set it for every caller), so one caller bounding it to
``threads=`` changes what a concurrent caller gets.  Here every product runs on one BLAS thread,
always: the first body-model pass sets NumPy's BLAS to one thread for the process and leaves it
there (restoring the previous count whenever no pass runs, and setting it again at the next,
was measured to change the bits of concurrent callers' passes: 8 Python threads, SMPL-X sized,
4e-16 in the vertices; code that wants BLAS threads for its own products sets them with
threadpoolctl), cut into blocks of a fixed size
(``BLOCK_ROWS`` x ``BLOCK_COLUMNS`` of the result, each one BLAS call over the whole reduction),
and the blocks spread over ``threads`` Python threads (BLAS releases the GIL): each element of
the result comes from the same call on the same operands whatever the thread count.  The
controller (which lists the loaded libraries, ~1 ms) is made once."""
from __future__ import annotations

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

from .. import _core

BLOCK_ROWS = 256        # result rows a BLAS call makes (a body model's basis rows: ~500)
BLOCK_COLUMNS = 4096    # result columns (3 V of SMPL-X: 31,425)

_controller: Any = None
_lock = threading.Lock()
_pool: Optional[ThreadPoolExecutor] = None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within the block (and after it: see the module's docstring) BLAS uses one thread; set
    again at each block, in case other code changed it between."""
    global _controller
    with _lock:
        if _controller is None:
            from threadpoolctl import ThreadpoolController
            _controller = ThreadpoolController()
        if any(lib.num_threads != 1 for lib in _controller.select(user_api="blas").lib_controllers):
            _controller.limit(limits=1, user_api="blas")
    yield


def _forget_after_fork() -> None:
    """In a forked child the pool's threads do not exist."""
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, _core.default_threads()),
                                       thread_name_prefix="skinkit-blas")
        return _pool


def matmul(a: NDArray[Any], b: NDArray[Any], threads: Optional[int] = None,
           out: Optional[NDArray[Any]] = None) -> NDArray[Any]:
    """``a @ b`` (2-D, (M, K) @ (K, P)) in fixed blocks of the result, each one single-threaded
    BLAS call writing its block of the result in place, on at most ``threads`` threads (None:
    skinkit's default): the same bits for any ``threads`` and any concurrent callers.  ``out``:
    the (M, P) C-contiguous result array to fill (None: a new one)."""
    M, P = a.shape[0], b.shape[1]
    if out is None:
        out = np.empty((M, P), dtype=np.result_type(a, b))
    result = out
    blocks: List[Tuple[slice, slice]] = [
        (slice(i, i + BLOCK_ROWS), slice(k, k + BLOCK_COLUMNS))
        for i in range(0, M, BLOCK_ROWS) for k in range(0, P, BLOCK_COLUMNS)]

    def one(block: Tuple[slice, slice]) -> None:
        rows, columns = block
        np.matmul(a[rows], b[:, columns], out=result[rows, columns])

    n = min(len(blocks), int(threads or _core.default_threads()))
    with one_blas_thread():
        if n <= 1:
            for block in blocks:
                one(block)
        else:
            for f in [_executor().submit(one, block) for block in blocks]:
                f.result()
    return result
