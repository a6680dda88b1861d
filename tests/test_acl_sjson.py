"""The reader of ACL's sjson clips, on acl-test-data's files (/work/shared) and hostile ones."""
import tarfile
from pathlib import Path

import numpy as np
import pytest

from skinkit.io.acl_sjson import SjsonError, load_acl_sjson

TAR = Path("/work/shared/acl-test-data/acl-test-data-47bfa3c-cmu18.tar.xz")


@pytest.fixture(scope="module")
def clip_104_30(tmp_path_factory):
    if not TAR.exists():
        pytest.skip(f"acl-test-data is not at {TAR}")
    out = tmp_path_factory.mktemp("acl")
    with tarfile.open(TAR) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("104_30.acl.sjson"))
        tar.extractall(out, members=[member], filter="data")
    return next(out.rglob("104_30.acl.sjson"))


def test_reads_acl_test_data(clip_104_30):
    a = load_acl_sjson(clip_104_30)
    assert (a.num_samples, a.sample_rate, a.error_threshold) == (273, 24.0, 0.01)
    assert a.skeleton.count == 44 and a.skeleton.names[1] == "hip"
    assert np.all(a.skeleton.parents[1:] < np.arange(1, 44)) and a.skeleton.parents[0] == -1
    assert np.all(a.vertex_distance == 3.0)
    rot = [ch for ch in a.clip.channels if ch.path == "rotation"]
    assert len(rot) == 44 and rot[0].times.size == 273
    np.testing.assert_allclose(rot[1].times[1], 1 / 24)
    np.testing.assert_allclose(np.linalg.norm(rot[5].values, axis=1), 1, atol=1e-6)
    # the first key of the root rotation is the one the file lists first
    np.testing.assert_allclose(rot[0].values[0], [-0.7071067811865475, 0, 0, 0.7071067811865476])


@pytest.mark.parametrize("text, message", [
    ("clip = { num_samples = 2 sample_rate = 30 } bones = [ { name = \"a\" parent = \"b\" } ]",
     "not a bone before it"),
    (("clip = { num_samples = 2 sample_rate = 30 } bones = [ { name = \"a\" } ] tracks = "
      "[ { name = \"a\" rotations = [ [ 0, 0, 0, 1 ] ] } ]"), "has 1 samples"),
    (("clip = { num_samples = 1 sample_rate = 30 } bones = [ { name = \"a\" } ] tracks = "
      "[ { name = \"a\" rotations = [ [ 0, 0, nan, 1 ] ] } ]"), "finite"),
    ("clip = { num_samples = -3 sample_rate = 30 } bones = []", "out of range"),
    ("clip = { num_samples = 1", "ends inside"),
    ("bones = [ ]", "expected 'clip'"),
])
def test_hostile_files_are_refused(tmp_path, text, message):
    p = tmp_path / "bad.acl.sjson"
    p.write_text(text)
    with pytest.raises(SjsonError, match=message):
        load_acl_sjson(p)

