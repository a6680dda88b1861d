"""Faults while writing: a signal that ends the process mid-write leaves no temporary output
beside the target (write_atomic and FrameWriter, in child processes killed while they write),
the previous signal handlers are back afterwards, and atomic_file (write_atomic) refuses to
replace anything that is not a regular file (check_output_path)."""
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading

import pytest

from conftest import SKINKIT_PATH
from skinkit.io import mesh_files as export


# the child writes part of its output, says so, then waits to be killed
CHILD = textwrap.dedent("""
    import signal, sys, time
    import numpy as np
    from skinkit.io import mesh_files as export
    target, kind, sigint = sys.argv[1], sys.argv[2], sys.argv[3]
    signal.signal(signal.SIGHUP, signal.SIG_DFL)   # the test's shell may ignore it (nohup)
    if sigint == "default":
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    elif sigint == "raise":
        def stop(signum, frame):
            raise SystemExit(3)
        signal.signal(signal.SIGTERM, stop)

    def hold(*_):
        print("writing", flush=True)
        time.sleep(60)

    if kind == "npz":
        def write(f):
            np.savez(f, a=np.zeros(100000))
            hold()
        export.write_atomic(target, write, suffix=".npz")
    else:
        with export.FrameWriter(target, {"0_0": None}, 3) as w:
            w.write({"0_0": np.zeros((1, 4, 3))})
            hold()
""")


def _kill_mid_write(tmp_path, kind, signum, sigint="python"):
    target = tmp_path / ("out.npz" if kind == "npz" else "frames")
    env = dict(os.environ, PYTHONPATH=SKINKIT_PATH)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(target), kind, sigint],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline() == "writing\n", child.stderr.read()
        # the temporary exists while the child writes
        assert [p.name[:9] for p in tmp_path.iterdir()] == [".skinkit-"]
        child.send_signal(signum)
        child.wait(timeout=60)
    finally:
        child.kill()
        child.wait()
    return child.returncode, sorted(p.name for p in tmp_path.iterdir()), child.stderr.read()


@pytest.mark.parametrize("kind", ["npz", "frames"])
@pytest.mark.parametrize("signum, sigint", [(signal.SIGTERM, "python"),
                                            (signal.SIGINT, "default"),
                                            (signal.SIGHUP, "python")])
def test_signal_with_its_default_action_removes_the_temporary(tmp_path, kind, signum, sigint):
    """SIGTERM (and SIGINT when its action is the default one) killed the process with the
    temporary left beside the output; it still ends the process, with the same status."""
    code, left, err = _kill_mid_write(tmp_path, kind, signum, sigint)
    assert code == -signum, err
    assert left == []


@pytest.mark.parametrize("kind", ["npz", "frames"])
def test_keyboard_interrupt_removes_the_temporary(tmp_path, kind):
    """Python's SIGINT handler raises KeyboardInterrupt: the write's exception path removes the
    temporary (and Python ends the process by SIGINT, as for any uncaught interrupt)."""
    code, left, err = _kill_mid_write(tmp_path, kind, signal.SIGINT)
    assert code == -signal.SIGINT and "KeyboardInterrupt" in err
    assert left == []


def test_a_handler_of_the_program_is_kept(tmp_path):
    """A SIGTERM handler the program set runs (here it raises SystemExit(3)); the exception
    removes the temporary."""
    code, left, err = _kill_mid_write(tmp_path, "npz", signal.SIGTERM, "raise")
    assert code == 3, err
    assert left == []


def test_handlers_are_restored_after_the_write(tmp_path):
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    seen = {}

    def write(f):
        seen.update({s: signal.getsignal(s) for s in before})
        f.write(b"x")

    export.write_atomic(tmp_path / "a.bin", write)
    assert {s: signal.getsignal(s) for s in before} == before
    # SIGTERM and SIGHUP had their default action: covered during the write; SIGINT raises
    # KeyboardInterrupt, which the write's own exception path handles
    assert seen[signal.SIGTERM] not in (signal.SIG_DFL, before[signal.SIGTERM])
    assert seen[signal.SIGINT] == before[signal.SIGINT]
    with pytest.raises(RuntimeError, match="boom"):
        export.write_atomic(tmp_path / "b.bin", lambda f: (_ for _ in ()).throw(
            RuntimeError("boom")))
    assert {s: signal.getsignal(s) for s in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin"]


def test_write_from_another_thread(tmp_path):
    """Handlers are only set from the main thread; another thread's write still works."""
    errors = []

    def run():
        try:
            export.write_atomic(tmp_path / "t.bin", lambda f: f.write(b"y"))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert errors == [] and (tmp_path / "t.bin").read_bytes() == b"y"
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


# --- destinations that are not regular files -------------------------------------------------


def _fifo(path):
    os.mkfifo(path)


def _symlink(path):
    (path.parent / "real.npz").write_bytes(b"keep")
    os.symlink(path.parent / "real.npz", path)


def _socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return s


@pytest.mark.parametrize("make, kind", [(_fifo, "a FIFO"), (_symlink, "a symbolic link"),
                                        (_socket, "a socket")])
def test_write_atomic_refuses_what_is_not_a_regular_file(tmp_path, make, kind):
    target = tmp_path / "out.npz"
    keep = make(target)
    before = os.lstat(target)
    with pytest.raises(FileExistsError, match=rf"exists and is {kind}, not a regular file: not "
                                              rf"replaced: '{target}'"):
        export.write_atomic(target, lambda f: f.write(b"new"))
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".skinkit-")) == []
    if keep is not None:
        keep.close()


def test_write_atomic_refuses_dev_null():
    before = os.lstat("/dev/null")
    with pytest.raises(FileExistsError, match=r"exists and is a character device, not a "
                                              r"regular file: not replaced: '/dev/null'"):
        export.write_atomic("/dev/null", lambda f: f.write(b"new"))
    assert os.lstat("/dev/null").st_ino == before.st_ino


def test_write_atomic_still_replaces_a_regular_file(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    export.write_atomic(target, lambda f: f.write(b"new"))
    assert target.read_bytes() == b"new"
