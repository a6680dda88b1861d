"""Hostile input for the motion features (HumanML3D's, the 272-dim representation, 6D
rotations), the canonical frame, mirroring, foot contacts and the on-the-fly loader
(MotionCrops, MotionDataset, ChunkGroupedSampler) and its folder of AMASS files (issue 31,
round 4): every bad argument gets TypeError or ValueError naming it, with the expected and the
actual value, never NumPy's own error, a warning, a NaN result or a crash."""
import logging
import math
import warnings

import numpy as np
import pytest

import skinkit
from amass_files import write_motion, write_motion_smplx
from skinkit.body.synthetic import humanoid_smplh_arrays
from skinkit.dataset import Augmentation, MotionCrops
from skinkit.motion import (canonical_joints, canonical_transform, foot_contacts, foot_drift,
                            humanml3d_features, humanml3d_joints, humanml3d_preprocess,
                            matrix_from_6d, matrix_to_6d, mirror, mirror_positions,
                            mirror_rotations, rep272_features, rep272_joints, rep272_rotations,
                            transform_motion)

RNG = np.random.default_rng(3)
J22 = RNG.normal(0, 0.3, (6, 22, 3))
ROT = RNG.normal(0, 0.3, (6, 22, 3))
F263 = RNG.normal(0, 0.1, (5, 263))
F272 = RNG.normal(0, 0.1, (5, 272))
SIX = RNG.normal(size=(4, 6))
MATS = np.tile(np.eye(3), (4, 1, 1))
QUATS = np.tile([0.0, 0.0, 0.0, 1.0], (3, 2, 1))
FOOT = RNG.normal(size=(5, 3))
TIMES = np.arange(5.0)

# name -> (call taking one array in place of the argument named, that argument's good value)
ARRAY_ARGS = {
    "humanml3d_features joints": (lambda a: humanml3d_features(a), J22, "joints"),
    "humanml3d_preprocess joints": (lambda a: humanml3d_preprocess(a), J22, "joints"),
    "humanml3d_preprocess bone_lengths": (lambda a: humanml3d_preprocess(J22, a),
                                          np.full(22, 0.1), "bone_lengths"),
    "humanml3d_joints features": (lambda a: humanml3d_joints(a), F263, "features"),
    "rep272_features joints": (lambda a: rep272_features(a, ROT), J22, "joints"),
    "rep272_features rotations": (lambda a: rep272_features(J22, a), ROT, "rotations"),
    "rep272_joints features": (lambda a: rep272_joints(a), F272, "features"),
    "rep272_rotations features": (lambda a: rep272_rotations(a), F272, "features"),
    "matrix_from_6d six": (lambda a: matrix_from_6d(a), SIX, "six"),
    "matrix_to_6d matrices": (lambda a: matrix_to_6d(a), MATS, "matrices"),
    "canonical_transform joints": (lambda a: canonical_transform(a), J22, "joints"),
    "canonical_joints joints": (lambda a: canonical_joints(a), J22, "joints"),
    "mirror_positions positions": (lambda a: mirror_positions(a), FOOT, "positions"),
    "mirror_rotations rotations": (lambda a: mirror_rotations(a, [1, 0]), QUATS, "rotations"),
    "mirror_rotations rest_world": (lambda a: mirror_rotations(QUATS, [1, 0], parents=[-1, -1],
                                                               rest_world=a), QUATS[0],
                                    "rest_world"),
    "foot_contacts positions": (lambda a: foot_contacts(a, TIMES, 0.1, 0.1), FOOT, "positions"),
    "foot_contacts times": (lambda a: foot_contacts(FOOT, a, 0.1, 0.1), TIMES, "times"),
    "foot_drift positions": (lambda a: foot_drift(a, np.ones(5, bool)), FOOT, "positions"),
}


def clean(call, error, match):
    """call() raises ``error`` matching ``match``, with no warning on the way."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error, match=match):
            call()


@pytest.mark.parametrize("case", sorted(ARRAY_ARGS))
def test_arrays_good_values_pass(case):
    """The good values of the table compute, finite (the hostile cases below differ from
    them in one argument only)."""
    call, good, _ = ARRAY_ARGS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = call(good)
    for a in out if isinstance(out, tuple) else (out,):
        assert np.isfinite(np.asarray(a, np.float64)).all()


@pytest.mark.parametrize("case", sorted(ARRAY_ARGS))
@pytest.mark.parametrize("dtype", ["U1", object, complex, bool])
def test_arrays_of_other_than_real_numbers(case, dtype):
    call, good, name = ARRAY_ARGS[case]
    bad = good.astype(dtype) if dtype is not object else good.astype(object)
    clean(lambda: call(bad), TypeError, f"{name} must be a real number array, got dtype")


@pytest.mark.parametrize("case", sorted(ARRAY_ARGS))
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e31, -1e300])
def test_arrays_not_finite_or_huge(case, value):
    call, good, name = ARRAY_ARGS[case]
    bad = np.array(good, np.float64)
    bad.flat[bad.size // 2] = value
    clean(lambda: call(bad), ValueError,
          rf"{name}: expected finite values of magnitude at most 1e\+30 "
          r"\(skinkit.limits.MAX_FILE_VALUE\), got")


@pytest.mark.parametrize("case", sorted(ARRAY_ARGS))
@pytest.mark.parametrize("shape", ["scalar", "flat", "extra axis", "empty", "wrong last"])
def test_arrays_of_wrong_shapes(case, shape):
    call, good, name = ARRAY_ARGS[case]
    bad = {"scalar": lambda g: np.float64(1.0), "flat": lambda g: g.ravel()[:2],
           "extra axis": lambda g: g[..., None], "empty": lambda g: g[:0],
           "wrong last": lambda g: np.concatenate([g, g[..., :1]], axis=-1)}[shape](good)
    if case.startswith("mirror_positions") and shape == "extra axis":
        bad = good[..., :2]      # (..., 3) takes any batch
    if case == "matrix_to_6d matrices" and shape == "empty":
        bad = MATS[:, :2]        # an empty batch is a batch
    if case in ("matrix_from_6d six", "humanml3d_joints features") and shape == "empty":
        bad = good[..., :0]
    if case == "mirror_rotations rotations" and shape == "empty":
        bad = good[..., :0, :]
    if case == "mirror_positions positions" and shape == "empty":
        bad = good[..., :0]
    clean(lambda: call(bad), ValueError, name)


@pytest.mark.parametrize("frames", [0, 1])
def test_too_few_frames(frames):
    """HumanML3D's features need 2 frames (velocities); the others 1, and 1 frame is fine
    (the 272-dim representation's first row has zero velocities)."""
    clean(lambda: humanml3d_features(J22[:frames]), ValueError,
          r"joints: expected shape \(T >= 2, 22, 3\), got")
    if frames == 0:
        for call in (lambda: humanml3d_preprocess(J22[:0]), lambda: rep272_features(
                J22[:0], ROT[:0]), lambda: canonical_transform(J22[:0]),
                     lambda: foot_contacts(FOOT[:0], TIMES[:0], 0.1, 0.1)):
            clean(call, ValueError, r"T >= 1")
    else:
        out = rep272_features(J22[:1], ROT[:1])
        assert out.shape == (1, 272) and (out[0, :2] == 0).all()
        np.testing.assert_allclose(rep272_joints(out), rep272_joints(
            rep272_features(J22[:2], ROT[:2]))[:1], atol=1e-12)


def test_joint_counts():
    clean(lambda: humanml3d_features(J22[:, :21]), ValueError,
          r"joints: expected shape \(T >= 2, 22, 3\), got \(6, 21, 3\)")
    clean(lambda: rep272_features(J22[:, :20], ROT), ValueError,
          r"joints: expected shape \(T >= 1, >= 22, 3\), got \(6, 20, 3\)")
    clean(lambda: rep272_features(J22, ROT[:4]), ValueError, "as many frames, got 6 and 4")
    clean(lambda: canonical_transform(J22[:, :5]), ValueError,
          r"feet: expected joint indices below 5, got \[7, 8, 10, 11\]")


DEGENERATE = {
    "humanml3d zero joints": (lambda: humanml3d_features(np.zeros((4, 22, 3))),
                              "frame 0's hips and shoulders are vertical or coincide"),
    "humanml3d preprocess zero joints": (lambda: humanml3d_preprocess(np.zeros((4, 22, 3))),
                                         "frame 0's hips and shoulders"),
    "humanml3d facing lost at frame 2": (
        lambda: humanml3d_features(np.where(np.arange(6)[:, None, None] == 2,
                                            J22[:, :1], J22)),
        "frame 2's hips and shoulders"),
    "humanml3d a bone of length 0": (
        lambda: humanml3d_features(np.concatenate([J22[:, :15], J22[:, 12:13], J22[:, 16:]],
                                                  axis=1)),
        "frame 0's joint 15 is at its parent's position"),
    "canonical vertical first frame": (
        lambda: canonical_transform(np.where(np.arange(22)[None, :, None] >= 0,
                                             [[0.0, 0.0, 0.0]], 0.0) + np.arange(22)[:, None]
                                    * [0.0, 0.0, 1.0]),
        "frame 0's hips and shoulders are vertical"),
    "6D zero": (lambda: matrix_from_6d(np.zeros(6)), r"six: the 6D rotation at index \(\)"),
    "6D parallel halves": (lambda: matrix_from_6d([[1.0, 2, 3, 2, 4, 6]]),
                           r"index \(0,\), \[1. 2. 3. 2. 4. 6.\], has parallel or zero halves"),
    "rep272 zero turn": (lambda: rep272_joints(np.zeros((3, 272))),
                         r"features\[:, 2:8\]: the 6D rotation"),
    "rep272 zero rotations": (lambda: rep272_rotations(
        np.concatenate([rep272_features(J22, ROT)[:, :140], np.zeros((6, 132))], axis=1)),
        r"features\[:, 140:\] as \(T, 22, 6\)"),
}


@pytest.mark.parametrize("case", sorted(DEGENERATE))
def test_degenerate_geometry(case):
    call, match = DEGENERATE[case]
    clean(call, ValueError, match)


OPTIONS = {
    "foot_threshold nan": (lambda: humanml3d_features(J22, foot_threshold=math.nan), ValueError,
                           r"foot_threshold: expected a number in \[0, 1e\+30\], got nan"),
    "foot_threshold str": (lambda: humanml3d_features(J22, foot_threshold="0.1"), TypeError,
                           "foot_threshold: expected a real number, got str"),
    "foot_threshold negative": (lambda: humanml3d_features(J22, foot_threshold=-1.0),
                                ValueError, "foot_threshold"),
    "continuous a string": (lambda: humanml3d_features(J22, continuous="no"), TypeError,
                            "continuous: expected True or False, got str 'no'"),
    "bone_lengths zero": (lambda: humanml3d_preprocess(J22, np.zeros(22)), ValueError,
                          "bone_lengths: expected .22,. positive lengths"),
    "feet float": (lambda: canonical_transform(J22, feet=(1.5, 2.0)), TypeError,
                   r"feet\[0\]: expected an integer, got float 1.5"),
    "feet negative": (lambda: canonical_transform(J22, feet=(-1,)), ValueError,
                      r"feet\[0\]: expected an integer at least 0, got -1"),
    "feet string": (lambda: canonical_transform(J22, feet="78"), ValueError, "feet"),
    "feet empty": (lambda: canonical_transform(J22, feet=()), ValueError, "feet"),
    "face_joints three": (lambda: canonical_transform(J22, face_joints=(1, 2, 3)), ValueError,
                          "face_joints: expected 4 joints"),
    "z_up string": (lambda: canonical_transform(J22, z_up="no"), TypeError,
                    "z_up: expected True or False, got str 'no'"),
    "floor": (lambda: canonical_transform(J22, floor="ground"), ValueError, "floor: expected"),
    "axis bool": (lambda: mirror_positions(FOOT, axis=True), ValueError, "axis: expected 0, 1"),
    "axis 3": (lambda: mirror_positions(FOOT, axis=3), ValueError, "axis"),
    "permutation floats": (lambda: mirror_rotations(QUATS, [1.0, 0.0]), ValueError,
                           "permutation .J,. integers expected"),
    "permutation out of range": (lambda: mirror_rotations(QUATS, [5, 0]), ValueError,
                                 "permutation: expected an involution"),
    "parents out of range": (lambda: mirror_rotations(QUATS, [1, 0], parents=[-1, 7],
                                                      rest_world=QUATS[0]), ValueError,
                             r"parents: expected indices in \[-1, 2\), got \[-1, 7\]"),
    "parents floats": (lambda: mirror_rotations(QUATS, [1, 0], parents=[-1.0, 0.0],
                                                rest_world=QUATS[0]), ValueError, "parents"),
    "times not increasing": (lambda: foot_contacts(FOOT, np.zeros(5), 0.1, 0.1), ValueError,
                             "times: expected strictly increasing"),
    "height nan": (lambda: foot_contacts(FOOT, TIMES, math.nan, 0.1), ValueError, "height"),
    "speed str": (lambda: foot_contacts(FOOT, TIMES, 0.1, "fast"), TypeError, "speed"),
    "up 5": (lambda: foot_contacts(FOOT, TIMES, 0.1, 0.1, up=5), ValueError,
             "up: expected an integer at least 0 and at most 2, got 5"),
    "contacts length": (lambda: foot_drift(FOOT, np.ones(3, bool)), ValueError,
                        r"contacts \(T,\) expected, got \(5, 3\) and \(3,\)"),
}


@pytest.mark.parametrize("case", sorted(OPTIONS))
def test_options(case):
    call, error, match = OPTIONS[case]
    clean(call, error, match)


@pytest.fixture(scope="module")
def model():
    return skinkit.BodyModel(humanoid_smplh_arrays(num_vertices=120))


@pytest.fixture(scope="module")
def motion(tmp_path_factory):
    path = write_motion(tmp_path_factory.mktemp("one") / "m.npz", 40, fps=30.0, seed=1)
    return skinkit.load_amass(path)


def test_transform_and_mirror_arguments(motion):
    T = len(motion.poses)
    q = np.array([0.0, 0.0, 0.0, 1.0])
    clean(lambda: transform_motion(motion, [0.0, 0.0, 0.0, 2.0], np.zeros(3), np.zeros(3)),
          ValueError, "rotation: expected a unit quaternion")
    clean(lambda: transform_motion(motion, q, np.zeros((T + 1, 3)), np.zeros(3)), ValueError,
          rf"offset: expected shape \({T}, 3\) or \(3,\), got \({T + 1}, 3\)")
    clean(lambda: transform_motion(motion, q, np.zeros(3), [np.nan] * 3), ValueError,
          "rest_root: expected finite values")
    clean(lambda: mirror(motion, root=np.zeros(2)), ValueError, r"root: expected shape \(3,\)")
    clean(lambda: mirror(motion, root=["a"] * 3), TypeError, "root must be a real number")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("amass")
    for i in range(3):
        write_motion(d / f"good{i}.npz", 60, fps=30.0, seed=i)
    write_motion(d / "shape.npz", 60, fps=30.0)    # AMASS's per-subject file: left out
    return d


def loader(folder, model, **kw):
    return MotionCrops.from_folder(folder, model, **{"frames": 8, "fps": 20.0, **kw})


LOADER_OPTIONS = {
    "frames 1": ({"frames": 1}, ValueError, "frames: expected an integer at least 2"),
    "frames float": ({"frames": 8.5}, TypeError, "frames: expected an integer, got float"),
    "frames str": ({"frames": "8"}, TypeError, "frames: expected an integer, got str"),
    "frames 2^40": ({"frames": 1 << 40}, ValueError,
                    r"at most 1048576 \(skinkit.limits.MAX_FRAMES\), got 1099511627776"),
    "a crop past MAX_ARRAY_BYTES": ({"frames": 1 << 20}, ValueError,
                                    "frames: a crop of 1048576 frames of 120 vertices takes"),
    "fps 0": ({"fps": 0.0}, ValueError, r"fps must be in \(0, 10000\] frames per second, got 0"),
    "fps negative": ({"fps": -20.0}, ValueError, "fps must be in"),
    "fps nan": ({"fps": math.nan}, ValueError, "fps must be in"),
    "fps 1e9": ({"fps": 1e9}, ValueError, "got 1000000000.0"),
    "fps str": ({"fps": "fast"}, ValueError, "fps must be a number, got 'fast'"),
    "crops_per_motion 0": ({"crops_per_motion": 0}, ValueError, "crops_per_motion"),
    "crops_per_motion 10^12": ({"crops_per_motion": 10**12}, ValueError,
                               r"crops_per_motion: .* \(skinkit.limits.MAX_FRAMES\)"),
    "seed negative": ({"seed": -1}, ValueError, "seed: expected an integer at least 0, got -1"),
    "seed float": ({"seed": 1.5}, TypeError, "seed: expected an integer, got float 1.5"),
    "seed bool": ({"seed": True}, TypeError, "seed: expected an integer, got True"),
    "epoch negative": ({"epoch": -3}, ValueError, "epoch"),
    "shard past count": ({"shard": (2, 2)}, ValueError, "0 <= index < count, got .2, 2."),
    "shard count 0": ({"shard": (0, 0)}, ValueError, "shard count: expected an integer"),
    "shard floats": ({"shard": (0.5, 2)}, TypeError, "shard index: expected an integer"),
    "shard of three": ({"shard": (0, 1, 2)}, ValueError, r"shard: expected \(index, count\)"),
    "features a string": ({"features": "humanml3d"}, TypeError,
                          "features: expected a sequence of names"),
    "features unknown": ({"features": ("smpl",)}, ValueError, "features: expected names"),
    "bad_files": ({"bad_files": "ignore"}, ValueError, "bad_files: expected one of"),
    "augmentation a dict": ({"augmentation": {"mirror": 0.5}}, TypeError,
                            "augmentation: expected an Augmentation, got dict"),
}


@pytest.mark.parametrize("case", sorted(LOADER_OPTIONS))
def test_loader_options(folder, model, case):
    options, error, match = LOADER_OPTIONS[case]
    clean(lambda: loader(folder, model, **options), error, match)


@pytest.mark.parametrize("options, error, match", [
    ({"betas_sigma": math.nan}, ValueError, "augmentation.betas_sigma: expected a number"),
    ({"betas_sigma": -1.0}, ValueError, "augmentation.betas_sigma"),
    ({"betas_sigma": 1e300}, ValueError, "augmentation.betas_sigma"),
    ({"mirror": math.nan}, ValueError, "augmentation.mirror"),
    ({"mirror": 2.0}, ValueError, "augmentation.mirror: expected a probability, got 2.0"),
    ({"mirror": "yes"}, TypeError, "augmentation.mirror: expected a real number"),
    ({"heading": "yes"}, TypeError, "augmentation.heading: expected True or False"),
])
def test_augmentation_options(options, error, match):
    clean(lambda: Augmentation(**options), error, match)


def test_loader_leaves_out_amass_shape_files(folder, model):
    c = loader(folder, model)
    assert sorted(f.rsplit("/", 1)[1] for f in c.files) == ["good0.npz", "good1.npz",
                                                            "good2.npz"]
    clean(lambda: list(c.batches(0)), ValueError, "size: expected an integer at least 1")
    clean(lambda: list(c.batches(1.5)), TypeError, "size: expected an integer")


def hostile_files(d):
    """A folder of good motions and, between them, one of each hostile kind."""
    write_motion(d / "a_good.npz", 60, fps=30.0, seed=1)
    bad = {
        "b_missing_poses.npz": lambda p: np.savez(p, trans=np.zeros((5, 3)),
                                                  mocap_framerate=30.0, gender="male",
                                                  betas=np.zeros(16)),
        "c_nan_poses.npz": lambda p: write_motion(p, 60, poses=np.full((60, 156), np.nan)),
        "d_huge_poses.npz": lambda p: write_motion(p, 60, poses=np.full((60, 156), 1e300)),
        "e_zero_frames.npz": lambda p: write_motion(p, 0),
        "f_fps_zero.npz": lambda p: write_motion(p, 60, fps=0.0),
        "g_fps_1e9.npz": lambda p: write_motion(p, 60, fps=1e9),
        "h_smplx_for_smplh.npz": lambda p: write_motion_smplx(p, 60),
        "i_not_a_zip.npz": lambda p: p.write_bytes(b"PK\x03\x04 garbage" * 10),
        "j_text.npz": lambda p: p.write_text("poses = 1\n"),
        "k_joint_count.npz": lambda p: write_motion(p, 60, joints=24),
        "l_vertical_first_frame.npz": lambda p: write_motion(
            p, 60, poses=np.tile([0, -np.pi / 2, 0] + [0.0] * 153, (60, 1)),
            trans=np.zeros((60, 3)), betas=np.zeros(16)),
    }
    for name, make in bad.items():
        make(d / name)
    write_motion(d / "z_good.npz", 60, fps=60.0, seed=2)
    return sorted(bad)


def test_folder_of_hostile_files_raise_names_each(tmp_path, model):
    names = hostile_files(tmp_path)
    c = loader(tmp_path, model)
    for name in names:
        i = [f.rsplit("/", 1)[1] for f in c.files].index(name)
        one = MotionCrops((c.files[0], c.files[i]) if i else (c.files[i],), model, frames=8,
                          fps=20.0)
        with pytest.raises(ValueError, match=rf"motion {1 if i else 0}: \w+: .*{name}"):
            list(one)


def test_folder_of_hostile_files_skip(tmp_path, model, caplog):
    names = hostile_files(tmp_path)
    c = loader(tmp_path, model, bad_files="skip", crops_per_motion=2)
    with caplog.at_level(logging.WARNING, logger="skinkit"):
        items = list(c)
    files = [f.rsplit("/", 1)[1] for f in c.files]
    good = {files.index("a_good.npz"), files.index("z_good.npz")}
    assert {int(i["sequence"]) for i in items} == good and len(items) == 4
    skipped = [r.getMessage() for r in caplog.records if r.name == "skinkit.dataset.motions"]
    assert len(skipped) == len(names)
    for name in names:
        assert sum(name in m for m in skipped) == 1, name
    for item in items:
        assert all(np.isfinite(v).all() for v in item.values() if v.dtype.kind == "f")


def test_sampler_and_dataset_arguments(model, folder):
    torch = pytest.importorskip("torch")
    del torch
    from skinkit.torch import ChunkGroupedSampler, MotionDataset

    class Frames:
        frames_per_chunk = 4

        def __len__(self):
            return 10

    clean(lambda: ChunkGroupedSampler(Frames(), seed=-1), ValueError,
          "seed: expected an integer at least 0, got -1")
    clean(lambda: ChunkGroupedSampler(Frames(), seed=0.5), TypeError, "seed")
    sampler = ChunkGroupedSampler(Frames(), seed=2)
    clean(lambda: sampler.set_epoch(-1), ValueError, "epoch")
    assert sorted(sampler) == list(range(10))
    broken = Frames()
    broken.frames_per_chunk = 0
    clean(lambda: ChunkGroupedSampler(broken), ValueError, "dataset.frames_per_chunk")
    clean(lambda: MotionDataset([folder]), TypeError,
          "crops: expected a skinkit.dataset.MotionCrops, got list")
    dataset = MotionDataset(loader(folder, model))
    clean(lambda: dataset.set_epoch(1.5), TypeError, "epoch")


def test_lock_feet_arguments():
    from skinkit.model.humanoid import humanoid_model
    from test_footlock import sliding_walk
    from skinkit.motion import lock_feet
    m = humanoid_model()
    clip, _ = sliding_walk(m)
    for legs, match in (({"left": ("a", "b", "c")}, r"legs\['left'\]: 'a' is not a joint of the "
                                                     "model"),
                        ({"left": ("mixamorig:LeftUpLeg",)}, r"legs\['left'\]: expected \(hip, "
                                                              r"knee, ankle\) joint names")):
        clean(lambda: lock_feet(m, clip, legs=legs), ValueError, match)
    clean(lambda: lock_feet(m, clip, blend=-1), ValueError, "blend: expected an integer at "
          "least 0, got -1")
    clean(lambda: lock_feet(m, clip, times=np.zeros(3)), ValueError,
          "times: expected strictly increasing")
    clean(lambda: lock_feet(m, clip, times=[np.nan]), ValueError, "times: expected finite")
