"""A bake's outputs (issue 31): ``--out`` a symbolic link (dangling or not, or the sibling a new
store is laid out in), the local cluster's HTTP server (no dashboard, never port 8787, no "Port
8787 is already in use" warning), Ctrl-C at a terminal (one line, no Dask traceback), and a
character whose clip is too long among good ones (that one failed, the others baked)."""
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest
from conftest import SKINKIT_PATH, optional_import
from cli_run import run
from test_work_bounds import chain_with_clip

optional_import("zarr", 'pip install ".[dataset]" (zarr 3: Python >= 3.11)', "dataset")
from amass_files import write_motion  # noqa: E402

import skinkit as sk  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402

pytestmark = pytest.mark.integration          # Dask clusters and child processes


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("outputs")
    np.savez(d / "body.npz", **synthetic_body_arrays("SMPL+H", seed=3, num_vertices=24))
    (d / "motions").mkdir()
    for i in range(4):
        write_motion(d / "motions" / f"m{i}.npz", 200, seed=i)
    return d


LINKS = {
    "a dangling link": lambda out, away: out.symlink_to(away / "new.zarr"),
    "a link to a folder": lambda out, away: out.symlink_to(away),
    "a dangling .creating link": lambda out, away: out.with_name(out.name + ".creating")
    .symlink_to(away / "new.zarr"),
}


@pytest.mark.parametrize("case", LINKS)
def test_a_link_as_the_store_is_refused_before_anything_is_written(inputs, tmp_path, case,
                                                                    capsys):
    away = tmp_path / "away"
    away.mkdir()
    out = tmp_path / "store.zarr"
    LINKS[case](out, away)
    link = out if out.is_symlink() else out.with_name(out.name + ".creating")
    with pytest.raises(FileExistsError, match="is a symbolic link: a store is never written "
                                              "through one") as info:
        sk.dataset.bake([str(inputs / "motions")], str(out), body=str(inputs / "body.npz"),
                        workers=1)
    assert info.value.filename == str(link)
    code, _, err = run(["bake", inputs / "motions", "--body", inputs / "body.npz", "--out", out,
                        "--workers", 1], capsys)
    assert code == 1 and err.count("\n") == 1 and str(link) in err and "symbolic link" in err
    assert os.listdir(away) == []


def cli(*args):
    env = {**os.environ, "PYTHONPATH": SKINKIT_PATH}
    return subprocess.Popen([sys.executable, "-m", "skinkit", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def test_no_dashboard_and_port_8787_untouched(inputs, tmp_path):
    """With port 8787 taken, the bake's stderr is its summary line alone."""
    held = socket.socket()
    try:
        held.bind(("", 8787))
        held.listen()
    except OSError:
        pass            # someone holds it already: the same test
    try:
        p = cli("bake", inputs / "motions", "--body", inputs / "body.npz", "--out",
                tmp_path / "s.zarr", "--workers", 1, "--frames-per-chunk", 200)
        _, err = p.communicate(timeout=300)
    finally:
        held.close()
    assert p.returncode == 0, err
    assert "Port" not in err and "already in use" not in err, err
    assert err.count("\n") == 1 and err.startswith("skinkit: "), err


def test_the_local_cluster_serves_no_dashboard():
    """The scheduler's HTTP server (distributed starts one even without a dashboard) listens
    on a free port of localhost and serves no dashboard page."""
    from skinkit.dataset.bake import _client
    with _client(1, None) as client:
        sockets = client.cluster.scheduler.http_server._sockets.values()
        addresses = [s.getsockname() for s in sockets]
        assert addresses and all(a[0] == "127.0.0.1" and a[1] != 8787 for a in addresses)
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"http://127.0.0.1:{addresses[0][1]}/status", timeout=10)


def test_ctrl_c_prints_one_line(inputs, tmp_path):
    """SIGINT to the command's process group (what a terminal's Ctrl-C sends) once chunks are
    being written: exit status 130 and one line, no traceback of Dask's workers."""
    out = tmp_path / "s.zarr"
    p = cli("bake", inputs / "motions", "--body", inputs / "body.npz", "--out", out,
            "--workers", 2, "--frames-per-chunk", 1, "--quiet")
    marks = out / "chunk_done" / "c"
    deadline = time.monotonic() + 120
    while p.poll() is None and time.monotonic() < deadline:
        if marks.is_dir() and len(os.listdir(marks)) >= 3:
            break
        time.sleep(0.01)
    assert p.poll() is None, "the bake ended before it was interrupted"
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert err == (f"skinkit: bake interrupted; run the same command again to resume "
                   f"{out}\n"), err


def test_a_too_long_clip_among_good_characters_is_that_one_failed(tmp_path):
    good = [chain_with_clip(tmp_path / f"good{i}.glb", duration=1.0) for i in range(2)]
    bad = chain_with_clip(tmp_path / "long.glb", duration=1e6)
    s = sk.dataset.bake([str(p) for p in (good[0], bad, good[1])], str(tmp_path / "c.zarr"),
                        clips="all", workers=1)
    assert s.frames == 62 and [os.path.basename(f) for f, _ in s.failed] == ["long.glb"]
    assert "more than the limit of 1048576 (skinkit.limits.MAX_FRAMES)" in s.failed[0][1]
    store = sk.dataset.open(tmp_path / "c.zarr")
    assert list(store.sequences["status"]) == ["done", "failed", "done"]
