"""Temporary outputs removed when a signal ends the process mid-write.

The writers of ``skinkit.io.mesh_files`` write beside their target and rename into place; an exception
(KeyboardInterrupt included) removes the temporary file or folder.  A signal whose action is the
default one (SIGTERM, SIGHUP; SIGINT when Python's handler was replaced by the default) kills
the process without running any ``except`` or ``finally``: while a temporary exists, those
signals get a handler that removes every registered temporary, puts the previous handlers back
and sends the signal again, so the process still ends as the signal says (same exit status).

Handlers can only be set from the main thread; a temporary registered from another thread is
covered when the main thread has a registration open, and otherwise only by the exception path.
"""
from __future__ import annotations

import os
import shutil
import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Dict, Iterator, Optional, Set

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP")
                 if hasattr(signal, name))
_lock = threading.Lock()
_pending: Set[str] = set()
_previous: Dict[int, object] = {}  # the handlers ours replaced, while they are installed


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def _restore() -> None:
    for signum, handler in _previous.items():
        signal.signal(signum, handler)  # type: ignore[arg-type]
    _previous.clear()


def _on_signal(signum: int, frame: Optional[FrameType]) -> None:
    with _lock:
        for path in list(_pending):
            _remove(path)
        _pending.clear()
        _restore()
    os.kill(os.getpid(), signum)  # the default action now: the process ends as it would have


def track(path: str) -> None:
    """From now until :func:`untrack`, ``path`` (a temporary file or folder) is removed if
    SIGTERM, SIGINT or SIGHUP ends the process with its default action."""
    with _lock:
        _pending.add(path)
        if threading.current_thread() is threading.main_thread() and not _previous:
            for signum in _SIGNALS:
                if signal.getsignal(signum) == signal.SIG_DFL:
                    _previous[signum] = signal.signal(signum, _on_signal)


def untrack(path: str) -> None:
    """Stop covering ``path`` (renamed into place or removed by its writer); the previous
    handlers are back once nothing is covered (from the main thread: a handler left by a last
    registration of another thread only removes nothing and ends the process as before)."""
    with _lock:
        _pending.discard(path)
        if threading.current_thread() is threading.main_thread() and not _pending:
            _restore()


@contextmanager
def removed_on_signal(path: str) -> Iterator[None]:
    """:func:`track` ``path`` for the duration of the block."""
    track(path)
    try:
        yield
    finally:
        untrack(path)
