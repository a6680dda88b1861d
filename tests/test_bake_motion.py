"""``skinkit bake --store motion``: AMASS-layout motions kept as compressed clips beside the body
model, posed back on the fly by ``skinkit.dataset.open`` (``MotionStore``) and
``skinkit.torch.BakedDataset``; checked against ``BodyModel.forward`` of the source motion
within the bound the compression's precision implies, against a mesh bake of the same motions
(size), on rerun and resumption, and with corrupt entries.

The bound (eps = precision, s = the 3 cm shell; ACL's metric: a joint's three shell vertices
o + s R e_i are each within eps of the source's, in object space).  With dR = R' - R = R (Q - I),
Q a rotation of angle theta, the differences of two shell vertices give |(Q - I)(e_i - e_k)| <=
2 eps / s; for any axis one of the three differences (length sqrt 2, 120 degrees apart) keeps a
component of at least sqrt(3/2) across it, so a := 2 sin(theta / 2) <= 2 eps / (s sqrt(3/2)).
Then the joint's origin is off by at most |e_i - s dR e_i| <= eps + s a = (1 + 2 sqrt(2/3)) eps,
a point at distance r from the joint by at most that plus a r, and each pose-corrective entry
(R_parent^T R_joint - I) by at most 2 sqrt 2 a (its two rotations' Frobenius errors), so a
vertex's corrective offset by ||posedirs_v|| sqrt(J - 1) 2 sqrt 2 a.  A skinned vertex, a convex
blend of its joints' transforms of its corrected rest position, is within the largest of its
joints' bounds plus the corrective change."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import DATASET_HOW, TORCH_HOW, optional_import

optional_import("zarr", DATASET_HOW, "dataset")
optional_import("distributed", DATASET_HOW, "dataset")
from scipy.spatial.transform import Rotation  # noqa: E402

from amass_files import write_motion, write_motion_smplx  # noqa: E402

import skinkit as sk  # noqa: E402
from skinkit.body.synthetic import synthetic_body_arrays  # noqa: E402
from skinkit.dataset import StoreError  # noqa: E402

pytestmark = pytest.mark.integration          # Dask clusters

FRAMES = (37, 61, 18)
EPS, SHELL = 1e-4, 0.03
A = 2 * EPS / (SHELL * np.sqrt(1.5))            # the bound of 2 sin(theta / 2)
ORIGIN = (1 + 2 * np.sqrt(2 / 3)) * EPS         # the bound of a joint origin's error
FLOAT32 = 1e-5                                  # posing in float32 (metres, bodies of ~1 m)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("bake-motion")
    np.savez(d / "body.npz", **synthetic_body_arrays("SMPL+H", seed=3, num_vertices=120))
    (d / "motions").mkdir()
    for i, T in enumerate(FRAMES):
        write_motion(d / "motions" / f"m{i}.npz", T, fps=30.0, seed=i, gender="female",
                     **smooth(T, i))
    return d


def smooth(T, seed):
    """AMASS-like poses and trans: the 22 body joints swinging smoothly (sinusoids of 0.5-3
    rad/s, amplitude 0.4 rad), the hands held in one pose, walking at 1 m/s."""
    rng = np.random.default_rng(seed)
    t = np.arange(T)[:, None] / 30.0
    body = 0.4 * np.sin(rng.uniform(0.5, 3, 66) * t + rng.uniform(0, 2 * np.pi, 66))
    hands = np.broadcast_to(rng.normal(0, 0.3, 90), (T, 90))
    trans = np.concatenate([t, 0.05 * np.sin(4 * t), 0 * t], axis=1)
    return {"poses": np.concatenate([body, hands], axis=1), "trans": trans}


def bake(inputs, out, **kw):
    kw = {"body": str(inputs / "body.npz"), "content": "motion", "workers": 1,
          "frames_per_chunk": 16, **kw}
    return sk.dataset.bake([str(inputs / "motions")], str(out), **kw)


@pytest.fixture(scope="module")
def store(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("motion-store") / "m.zarr"
    s = bake(inputs, out)
    assert s.ok and (s.frames, s.sequences, s.baked) == (sum(FRAMES), 3, sum(FRAMES))
    return out


def source(inputs, i):
    with np.load(inputs / "motions" / f"m{i}.npz") as z:
        return z["poses"].reshape(FRAMES[i], 52, 3), z["trans"], z["betas"]


def world(parents, rest_joints, poses, transl):
    """Plain NumPy forward kinematics: world rotation matrices (T, J, 3, 3) and joint origins
    (T, J, 3) of axis-angle ``poses`` on the skeleton of ``rest_joints``."""
    T, J = poses.shape[:2]
    R = Rotation.from_rotvec(poses.reshape(-1, 3)).as_matrix().reshape(T, J, 3, 3)
    Rw, o = np.empty_like(R), np.empty((T, J, 3))
    for j, p in enumerate(parents):
        if p < 0:
            Rw[:, j], o[:, j] = R[:, j], rest_joints[j] + transl
        else:
            Rw[:, j] = Rw[:, p] @ R[:, j]
            o[:, j] = o[:, p] + Rw[:, p] @ (rest_joints[j] - rest_joints[p])
    return Rw, o


def test_posed_back_within_the_precisions_bound(inputs, store):
    d = sk.dataset.open(store)
    assert type(d).__name__ == "MotionStore" and len(d) == sum(FRAMES)
    assert repr(d) == (f"MotionStore({str(store)!r}: {sum(FRAMES)} frames, 3 sequences, "
                       "1 body model)")
    assert list(d.sequences["status"]) == ["done"] * 3 and d.attributes["format"] == 1
    assert d.attributes["arguments"]["precision"] == EPS
    body = sk.load_body_model(inputs / "body.npz", dtype=np.float32)
    b64 = sk.load_body_model(inputs / "body.npz")
    assert np.array_equal(d.faces, body.faces)
    parents, w = np.asarray(b64.parents), np.asarray(b64.weights)
    pd = np.linalg.norm(np.asarray(b64.posedirs).reshape(b64.num_vertices, -1), axis=1)
    for i in range(3):
        poses, trans, betas = source(inputs, i)
        m = d.motion(i)
        # the pose level, ACL's metric in plain NumPy: every shell vertex within eps
        x = np.asarray(b64.v_template) + np.asarray(b64.shapedirs)[..., :betas.size] @ betas
        rest = np.asarray(b64.J_regressor) @ x
        Rs, os_ = world(parents, rest, poses, trans)
        Rd, od = world(parents, rest, m.poses, m.transl)
        shell = np.linalg.norm(od[..., None] + SHELL * Rd - os_[..., None] - SHELL * Rs, axis=-2)
        assert shell.max() <= EPS * (1 + 1e-9)
        # the posed joints and vertices against the source posed by the same float32 model
        v0, j0 = body.forward(betas, poses, trans)
        v, j = d.pose(i)
        assert np.linalg.norm(j - j0, axis=-1).max() <= ORIGIN + FLOAT32
        f = Rotation.from_rotvec(poses[:, 1:].reshape(-1, 3)).as_matrix() - np.eye(3)
        f = np.linalg.norm(f.reshape(len(poses), -1), axis=1)                  # (T,)
        r = np.linalg.norm(x[:, None] - rest[None], axis=-1)                   # (V, J)
        r = np.where(w > 0, r, 0).max(axis=1)[None] + pd[None] * f[:, None]    # (T, V)
        bound = ORIGIN + A * r + pd * np.sqrt(51) * 2 * np.sqrt(2) * A
        err = np.linalg.norm(v - v0, axis=-1)
        assert (err <= bound + FLOAT32).all()
        assert err.max() > EPS                   # the lever arms are real: not the joints' bound
    frames = d.frames(30, 50)                    # across sequences 0 and 1, as a mesh store lays
    assert list(frames["frame_sequence"]) == [0] * 7 + [1] * 13
    assert np.array_equal(frames["vertices"][7:], d.pose(1, 0, 13)[0])
    assert np.allclose(frames["frame_time"][:7], np.arange(30, 37) / 30.0)


def test_much_smaller_than_the_mesh_store_and_read_by_baked_dataset(inputs, store, tmp_path):
    meshes = tmp_path / "meshes.zarr"
    assert bake(inputs, meshes, content="meshes").ok
    d, n = sk.dataset.open(store), sum(FRAMES)

    def nbytes(folder):
        return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())
    motion = nbytes(store / "motion") / n
    mesh = sum(nbytes(meshes / a) for a in ("vertices", "joints", "frame_time",
                                            "frame_sequence")) / n
    # a 120-vertex body's frame is 2 kB (and the metadata, the last chunk whole); the clips
    # (22 joints moving) and their metadata about a tenth of it
    assert mesh >= (120 + 52) * 3 * 4 + 12 and mesh / motion > 8
    print(f"bytes a frame: meshes {mesh:.0f}, motion {motion:.0f}")
    optional_import("torch", TORCH_HOW)
    from skinkit.torch import BakedDataset
    ds = BakedDataset(store)
    assert len(ds) == n and ds.frames_per_chunk == 16
    item = ds[40]
    assert int(item["frame_sequence"]) == 1 and float(item["frame_time"]) == 3 / 30.0
    # posed with the frames of its chunk (32..47), as ``frames`` poses them
    assert np.array_equal(item["vertices"].numpy(), d.frames(32, 48)["vertices"][40 - 32])
    np.testing.assert_allclose(item["vertices"].numpy(), d.pose(1, 3, 4)[0][0], atol=1e-6)


def files(store):
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(Path(store).rglob("*"))
            if p.is_file()}


def test_rerun_resume_and_other_arguments(inputs, store, tmp_path):
    out = tmp_path / "m.zarr"
    shutil.copytree(store, out)
    s = bake(inputs, out)
    assert s.ok and s.baked == 0 and files(out) == files(store)      # nothing left to do
    # a sequence whose mark and motion are gone (a killed worker) is compressed again, alone
    shutil.rmtree(out / "motion" / "1")
    (out / "motion_done" / "c" / "1").unlink()
    s = bake(inputs, out)
    assert s.ok and s.baked == FRAMES[1] and files(out) == files(store)
    with pytest.raises(ValueError, match=r"precision \(0\.0001 in the store, 0\.001 now\)"):
        bake(inputs, out, precision=1e-3)
    with pytest.raises(ValueError, match=r"store \(None in the store, 'motion' now\)"):
        mesh = tmp_path / "meshes.zarr"
        assert bake(inputs, mesh, content="meshes").ok
        bake(inputs, mesh)
    with pytest.raises(ValueError, match="a motion store keeps AMASS motions"):
        sk.dataset.bake([str(inputs / "motions")], str(tmp_path / "c.zarr"), clips="all",
                        content="motion")
    with pytest.raises(ValueError, match="precision must be a finite number"):
        bake(inputs, tmp_path / "p.zarr", precision=float("nan"))


def broken(store, tmp_path):
    out = tmp_path / "b.zarr"
    shutil.copytree(store, out)
    return out


def test_a_corrupt_motion_is_a_store_error_naming_it(store, tmp_path):
    out = broken(store, tmp_path)
    chunk = out / "motion" / "1" / "c" / "0"
    data = bytearray(chunk.read_bytes())
    data[40] ^= 0xFF
    chunk.write_bytes(bytes(data))
    d = sk.dataset.open(out)                     # opens: each motion is checked when read
    d.pose(0)
    with pytest.raises(StoreError, match=rf"{out}: motion/1: checksum .* damaged"):
        d.pose(1)
    chunk.write_bytes(bytes(data[:-5]))          # shorter than its array says
    with pytest.raises(StoreError, match=rf"{out}: motion/1: chunk c/0: \d+ bytes, expected"):
        d.clip(1)
    meta = json.loads((out / "motion" / "1" / "zarr.json").read_text())
    meta["shape"] = meta["chunk_grid"]["configuration"]["chunk_shape"] = [1 << 40]
    (out / "motion" / "1" / "zarr.json").write_text(json.dumps(meta))
    with pytest.raises(StoreError, match=r"motion/1: 1099511627776 bytes, more than the limit"):
        d.clip(1)


def test_another_sequences_clip_in_its_place_is_refused(store, tmp_path):
    out = broken(store, tmp_path)
    shutil.rmtree(out / "motion" / "1")
    shutil.copytree(out / "motion" / "2", out / "motion" / "1")
    with pytest.raises(StoreError, match=rf"{out}: motion/1: a clip of 52 nodes and key times "
                                         r"\[18\], expected 52 nodes and the 61 frame times"):
        sk.dataset.open(out).clip(1)


@pytest.mark.parametrize("case, change, message", [
    ("format", lambda out: attribute(out, format=2), "motion store format 2, this skinkit reads 1"),
    ("precision", lambda out: attribute(out, arguments={"store": "motion", "precision": "x"}),
     "precision 'x' are not a motion bake's"),
    ("model index", lambda out: column(out, "model", np.array([0, 3, 0])),
     "sequences/model: sequence 1 has model 3, expected 0..0"),
    ("body model", lambda out: body_faces(out), "body_models/0: f must hold integer vertex"),
    ("models", lambda out: attribute(out, body_models=[{}] * 4), "is not a list of at most 3"),
    ("frames", lambda out: column(out, "count", np.array([37, 61, 1 << 21])),
     "sequence 2 has 2097152 frames at 30.0 fps, expected at most 1048576"),
    ("fps", lambda out: column(out, "fps", np.array([30.0, 0.0, 30.0])),
     r"sequence 1 has 61 frames at 0.0 fps, expected .* at a rate in \(0, 10000\]"),
])
def test_a_broken_motion_store_is_one_store_error(store, tmp_path, case, change, message):
    out = broken(store, tmp_path)
    change(out)
    with pytest.raises(StoreError, match=message) as e:
        sk.dataset.open(out)
    assert str(out) in str(e.value)


def attribute(out, **changes):
    meta = json.loads((out / "zarr.json").read_text())
    meta["attributes"]["skinkit"].update(changes)
    (out / "zarr.json").write_text(json.dumps(meta))


def column(out, name, values):
    import zarr
    zarr.open_array(str(out / "sequences" / name), mode="r+")[...] = values


def body_faces(out):
    import zarr
    f = zarr.open_array(str(out / "body_models" / "0" / "f"), mode="r+")
    f[0, 0] = 10_000


def test_a_motion_with_expression_is_named_and_the_others_written(tmp_path):
    d = tmp_path / "motions"
    d.mkdir()
    write_motion_smplx(d / "a.npz", 9, seed=1)
    with np.load(write_motion_smplx(d / "b.npz", 7, seed=2)) as z:
        np.savez(d / "b.npz", **z, expression=np.zeros((7, 10)))
    np.savez(tmp_path / "smplx.npz", **synthetic_body_arrays("SMPL-X", seed=3, num_vertices=90))
    s = sk.dataset.bake([str(d)], str(tmp_path / "m.zarr"), body=str(tmp_path / "smplx.npz"),
                        content="motion", workers=1)
    assert not s.ok and s.baked == 9
    assert "b.npz: expression coefficients: a motion store keeps the joint rotations" in s.line()
    q = sk.dataset.open(tmp_path / "m.zarr").sequences
    assert list(q["status"]) == ["done", "pending"]


def test_the_cli_bakes_a_motion_store_and_info_describes_it(inputs, store, tmp_path):
    import os
    import subprocess
    import sys
    from conftest import SKINKIT_PATH
    env = {**os.environ, "PYTHONPATH": SKINKIT_PATH}

    def skinkit(*args):
        return subprocess.run([sys.executable, "-m", "skinkit", *map(str, args)], env=env,
                              capture_output=True, text=True, timeout=300)
    out = tmp_path / "cli.zarr"
    p = skinkit("bake", inputs / "motions", "--body", inputs / "body.npz", "--store", "motion",
                "--frames-per-chunk", "16", "--workers", "1", "--quiet", "--out", out)
    assert p.returncode == 0, p.stderr
    assert files(out / "motion") == files(store / "motion")      # the API's bytes
    p = skinkit("info", out)
    assert p.returncode == 0, p.stderr
    assert "sequences: 3 (3 done, 0 pending, 0 failed)" in p.stdout
    assert "body model 0: (120, 3) float32" in p.stdout and "precision: 0.0001" in p.stdout
    p = skinkit("bake", inputs / "motions", "--body", inputs / "body.npz", "--store", "motion",
                "--precision", "-1", "--out", tmp_path / "bad.zarr")
    assert p.returncode == 1 and "precision must be a finite number of metres > 0, got -1.0" \
        in p.stderr and "Traceback" not in p.stderr


def test_motion_crops_read_a_motion_store(inputs, store, tmp_path):
    crops = sk.dataset.MotionCrops.from_store(store, frames=8, fps=30.0, crops_per_motion=2,
                                              seed=5)
    assert crops.files == tuple(str(store / "motion" / str(i)) for i in range(3))
    d = sk.dataset.open(store)
    items = list(crops)
    assert len(items) == 6
    for item in items:                 # each crop is the crop of the decoded motion
        i = int(item["sequence"])
        c = [x["start"] for x in items if x["sequence"] == i].index(item["start"])
        want = crops._crop(d.motion(i), i, np.random.default_rng([5, 0, i, c]))
        assert all(np.array_equal(item[k], want[k]) for k in item)
    with pytest.raises(ValueError, match="each file is <store>/motion/<sequence>"):
        sk.dataset.MotionCrops((str(inputs / "motions" / "m0.npz"),), d.models[0],
                               store=str(store))
    meshes = tmp_path / "meshes.zarr"
    assert bake(inputs, meshes, content="meshes").ok
    with pytest.raises(ValueError, match="a store of meshes, not of motions"):
        sk.dataset.MotionCrops.from_store(meshes)
    out = broken(store, tmp_path)              # a damaged motion: named, as a bad file is
    chunk = out / "motion" / "1" / "c" / "0"
    data = bytearray(chunk.read_bytes())
    data[20] ^= 0xFF
    chunk.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=rf"motion 1: StoreError: .*{out}: motion/1: checksum"):
        list(sk.dataset.MotionCrops.from_store(out, frames=8, fps=30.0))
