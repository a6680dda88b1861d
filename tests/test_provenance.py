""".ci/provenance on a repository made here: a tracked copy of a shared file (plain, or a member
of a .tar.gz or .tar.xz archive) and a vendored file without its registry row fail, naming the
file; the files the project wrote and the vendored files whose rows match pass."""
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "provenance"


def archive(path: Path, mode: str, members: dict) -> None:
    with tarfile.open(path, mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is missing (.ci/provenance lists the tracked files with git ls-files)")
    shared = tmp_path / "shared"
    (shared / "fixtures").mkdir(parents=True)
    (shared / "fixtures" / "walk.bvh").write_bytes(b"HIERARCHY walk")
    archive(shared / "models.tar.gz", "w:gz", {"m/Fox.glb": b"glTF fox", "m/empty": b""})
    archive(shared / "clips.tar.xz", "w:xz", {"c/run.sjson": b"clip run"})
    root = tmp_path / "repo"
    (root / ".ci").mkdir(parents=True)
    shutil.copy(SCRIPT, root / ".ci" / "provenance")
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / "vendor" / "lib" / "lib.c").write_bytes(b"int f(void);\n")
    digest = hashlib.sha256(b"int f(void);\n").hexdigest()
    (root / "vendor" / "lib" / "README.md").write_text(
        f"| file | registry | package | version | member | sha256 |\n|---|---|---|---|---|---|\n"
        f"| lib.c | PyPI | lib | 1.0 | lib-1.0/lib.c | {digest} |\n")
    (root / "ours.py").write_bytes(b"HIERARCHY walks")      # same size as no shared file
    (root / "same_size.txt").write_bytes(b"HIERARCHY WALK")  # same size as walk.bvh, other bytes
    (root / "empty").write_bytes(b"")                        # as m/empty: carries nothing
    return root, shared


def check(root, shared, *args):
    for cmd in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *cmd], cwd=root, check=True)
    run = subprocess.run([sys.executable, str(root / ".ci" / "provenance"), "--shared",
                          str(shared), *args], capture_output=True, text=True)
    return run.returncode, run.stdout


def test_what_the_project_wrote_and_registry_files_pass(repo):
    rc, out = check(*repo)
    assert rc == 0, out
    assert "0 problems" in out


@pytest.mark.parametrize("name, data, source", [
    ("tests/walk.bvh", b"HIERARCHY walk", "fixtures/walk.bvh"),
    ("data/fox.glb", b"glTF fox", "models.tar.gz:m/Fox.glb"),
    ("run.json", b"clip run", "clips.tar.xz:c/run.sjson"),
])
def test_a_copy_of_a_shared_file_fails_naming_both(repo, name, data, source):
    root, shared = repo
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(data)
    rc, out = check(root, shared)
    assert rc == 1
    assert f"{name}: the same bytes as {shared / source}" in out
    rc, out = check(root, shared, "--allow", name.split("/")[0])
    assert rc == 0 and f"allowed: {name}" in out


def test_vendored_files_need_their_row_and_hash(repo):
    root, shared = repo
    (root / "vendor" / "lib" / "lib.h").write_bytes(b"#pragma once\n")
    (root / "vendor" / "lib" / "lib.c").write_bytes(b"int f(void); /* edited */\n")
    (root / "vendor" / "other.c").write_bytes(b"int g;\n")
    rc, out = check(root, shared)
    assert rc == 1
    assert "vendor/lib/lib.h: no provenance row in vendor/lib/README.md" in out
    assert "vendor/lib/lib.c: its SHA-256 is not" in out
    assert "vendor/other.c: no provenance row in vendor/README.md" in out


def test_a_row_without_its_file_fails(repo):
    root, shared = repo
    (root / "vendor" / "lib" / "lib.c").unlink()
    rc, out = check(root, shared)
    assert rc == 1 and "a row names lib.c, which is not tracked there" in out


def test_no_shared_folder_is_an_error(repo, tmp_path):
    root, _ = repo
    rc, out = check(root, tmp_path / "none")
    assert rc != 0
