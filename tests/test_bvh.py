"""The BVH loader: the three fixture files against facts read from their text here (independently of
skinkit.io.bvh.read), the CMU file against three.js 0.187.0, channel orders against SciPy, a 180-degree
wrap, hostile files that must raise BvhError naming the line, the README example and the CLI."""
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import helpers
import skinkit
from skinkit import BvhError, load_bvh
from skinkit.io.bvh.read import BvhModel, parse_bvh
from cli_run import run
from conftest import BVH, BVH_THREEJS, need_shared, shared_files, shared_json

ROOT = Path(__file__).resolve().parents[1]
THREE = shared_json(BVH_THREEJS / "cmu_01_03_first300.json", {})
BVH_FILES = [p.name for p in shared_files(BVH, "*.bvh")]
CMU = BVH / "cmu_01_03_first300.bvh"


def up_to_sign(a, b):
    """Largest component difference of quaternions (..., 4), each row compared up to sign."""
    a, b = np.reshape(a, (-1, 4)), np.reshape(b, (-1, 4))
    return float(np.minimum(np.abs(a - b).max(axis=1), np.abs(a + b).max(axis=1)).max())


# --- an independent reading of a BVH file (regular expressions and a brace stack) -------------


def read_facts(text):
    """Joints in pre-order (names, parents, offsets, End Site flags, channel lists), Frames,
    the Frame Time text and the motion block, read without skinkit."""
    names, parents, offsets, ends, channels = [], [], [], [], []
    stack, pending = [], None
    head, motion = re.split(r"^\s*MOTION\s*$", text, maxsplit=1, flags=re.M)
    for line in head.splitlines():
        tok = line.split()
        if not tok:
            continue
        if tok[0] in ("ROOT", "JOINT") or tok[:2] == ["End", "Site"]:
            pending = len(names)
            names.append(None if tok[0] == "End" else tok[1])
            parents.append(stack[-1] if stack else -1)
            ends.append(tok[0] == "End")
            channels.append([])
        elif tok[0] == "{":
            stack.append(pending)
        elif tok[0] == "}":
            stack.pop()
        elif tok[0] == "OFFSET":
            offsets.append([float(x) for x in tok[1:4]])
        elif tok[0] == "CHANNELS":
            channels[-1] = tok[2:2 + int(tok[1])]
    frames = int(re.search(r"^Frames:\s*(\d+)\s*$", motion, re.M).group(1))
    m = re.search(r"^Frame Time:\s*(\S+)\s*$", motion, re.M)
    data = np.array(motion[m.end():].split(), dtype=float).reshape(frames, -1)
    return dict(names=names, parents=parents, offsets=np.array(offsets), ends=ends,
                channels=channels, frames=frames, frame_time_text=m.group(1), motion=data)


def expected_local_pose(facts):
    """Local translations (F, N, 3) and rotations (F, N, 4) from the facts, rotations by SciPy
    (uppercase = intrinsic: 'ZXY' is Rz Rx Ry)."""
    F, N = facts["frames"], len(facts["names"])
    t = np.broadcast_to(facts["offsets"], (F, N, 3)).copy()
    q = np.zeros((F, N, 4))
    q[..., 3] = 1
    col = 0
    for j, chans in enumerate(facts["channels"]):
        order, angles = "", []
        for c in chans:
            values = facts["motion"][:, col]
            col += 1
            if c.endswith("position"):
                t[:, j, "XYZ".index(c[0])] += values
            else:
                order += c[0]
                angles.append(values)
        if order:
            q[:, j] = Rotation.from_euler(order, np.stack(angles, axis=1),
                                          degrees=True).as_quat()
    assert col == facts["motion"].shape[1]
    return t, q


# --- the fixtures ------------------------------------------------------------------------------


@pytest.mark.shared
@pytest.mark.parametrize("name", BVH_FILES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fixture_matches_its_text(name, dtype):
    facts = read_facts((BVH / name).read_text())
    model = load_bvh(BVH / name, dtype=dtype)
    assert isinstance(model, skinkit.Model) and isinstance(model, BvhModel)
    sk = model.skeleton
    n = len(facts["names"])
    assert sk.count == n and model.end_sites.tolist() == facts["ends"]
    assert sk.parents.dtype == np.int32 and sk.parents.tolist() == facts["parents"]
    for j, x in enumerate(facts["names"]):
        assert sk.names[j] == (x if x is not None else f"{facts['names'][sk.parents[j]]}_end")
    assert len(set(sk.names)) == n
    for a, width in ((sk.translations, 3), (sk.rotations, 4), (sk.scales, 3)):
        assert a.shape == (n, width) and a.dtype == dtype
    np.testing.assert_array_equal(sk.translations, facts["offsets"].astype(dtype))
    np.testing.assert_array_equal(sk.rotations, np.tile([0, 0, 0, 1], (n, 1)))
    np.testing.assert_array_equal(sk.scales, 1)
    assert model.skins == [] and model.primitives == []
    assert model.name == Path(name).stem

    F, dt = facts["frames"], float(facts["frame_time_text"])
    assert model.frame_count == F and model.frame_time == dt
    np.testing.assert_array_equal(model.motion, facts["motion"])
    assert [c for _, c in model.channels] == [c for cs in facts["channels"] for c in cs]
    (clip,) = model.clips
    assert clip.dtype == dtype and clip.interpolations == ["LINEAR"]
    assert clip.duration == pytest.approx((F - 1) * dt, rel=1e-6)
    for ch in clip.channels:
        assert ch.times.shape == (F,)
        np.testing.assert_allclose(ch.times, np.arange(F) * dt, rtol=1e-12)
    animated = {j for j, cs in enumerate(facts["channels"]) for c in cs if "rotation" in c}
    assert {ch.node for ch in clip.channels if ch.path == "rotation"} == animated

    # every frame: local TRS = OFFSET + positions, R = R_c1 R_c2 R_c3 (SciPy), world = FK
    times = np.arange(F) * dt
    t_ref, q_ref = expected_local_pose(facts)
    t, q, s = model.local_pose(0, times)
    tol = 1e-12 if dtype == np.float64 else 1e-6
    assert up_to_sign(q, q_ref) < (1e-13 if dtype == np.float64 else 1e-6)
    np.testing.assert_allclose(t, t_ref, atol=tol * np.abs(t_ref).max())
    np.testing.assert_array_equal(s, 1)
    world = model.world_matrices(0, times)
    assert world.shape == (F, n, 4, 4) and np.all(np.isfinite(world))


@pytest.mark.shared
def test_fixture_notes():
    """The counts LICENSES.md gives for each file."""
    counts = {"cmu_01_03_first300.bvh": (31, 7, 300, 120), "animdrawings_fair1_dab.bvh":
              (27, 7, 339, 30), "makehuman_benchmark_pose.bvh": (163, 49, 1, 24)}
    for name, (joints, ends, frames, fps) in counts.items():
        m = load_bvh(BVH / name)
        assert (m.skeleton.count - m.end_sites.sum(), m.end_sites.sum()) == (joints, ends)
        assert m.frame_count == frames and round(1 / m.frame_time) == fps


@pytest.mark.shared
def test_makehuman_positions_are_added_to_offset():
    """The root's position channels nearly cancel its OFFSET (LICENSES.md): added, not
    substituted.  134 joints have 6 channels (LICENSES.md says 134 non-root ones, but the count
    includes the root: 133 + 1 + 29 three-channel joints = 163)."""
    m = load_bvh(BVH / "makehuman_benchmark_pose.bvh")
    world = m.world_matrices(0, [0.0])[0]
    np.testing.assert_allclose(world[0, :3, 3], np.array([-0.057191, 0.610814, 6.314334])
                               + [0, -0.641280, -6.317400], atol=1e-12)
    movers = {j for j, c in m.channels if c.endswith("position")}
    assert len(movers) == 134 and 0 in movers
    assert len(m.clips[0].channels) == 134 + 163  # translations + one rotation per joint


@pytest.mark.shared
def test_mixed_orders_and_z_up():
    m = load_bvh(BVH / "animdrawings_fair1_dab.bvh")
    orders = {}
    for j, c in m.channels:
        if c.endswith("rotation"):
            orders[m.skeleton.names[j]] = orders.get(m.skeleton.names[j], "") + c[0]
    assert orders["RightHandThumb1"] == orders["LeftHandThumb1"] == "YXZ"
    assert set(orders.values()) == {"XYZ", "YXZ"}
    world = m.world_matrices(0, [0.0])[0]
    head, hips = m.skeleton.names.index("Head"), 0
    assert world[head, 2, 3] - world[hips, 2, 3] > 10  # Z-up, kept as it is


# --- three.js -----------------------------------------------------------------------------------


def three_times(dt):
    """Sample times on our key grid: (frame + alpha) * dt (three's keys are float32 times)."""
    need_shared()
    return np.array([(s["frame"] + s["alpha"]) * dt for s in THREE["samples"]])


@pytest.mark.shared
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cmu_matches_threejs(dtype):
    m = load_bvh(CMU, dtype=dtype)
    assert m.skeleton.parents.tolist() == THREE["parent_indices"]
    assert m.end_sites.tolist() == THREE["is_end_site"]
    assert [x for x, e in zip(m.skeleton.names, m.end_sites) if not e] == \
        [x for x, e in zip(THREE["bone_names"], THREE["is_end_site"]) if not e]
    assert m.frame_count == THREE["frame_count"] and m.frame_time == THREE["frame_time"]
    np.testing.assert_allclose(m.skeleton.translations, THREE["rest_local_position"], atol=1e-6)

    times = three_times(m.frame_time)
    world = m.world_matrices(0, times).astype(np.float64)
    t, q, _ = m.local_pose(0, times)
    size = THREE["world_extent_bbox_diagonal"]
    # README: a correct reader matches three to ~1e-7 of the skeleton's size (float64); float32
    # keys and FK add a few float32 epsilons along a chain
    pos_tol = (1e-7 if dtype == np.float64 else 5e-7) * size
    between = np.array([s["kind"] == "between" for s in THREE["samples"]])
    assert between.sum() == 3 and (~between).sum() == 8
    wp = np.asarray(THREE["world_position"])
    wq = np.asarray(THREE["world_quaternion_xyzw"])
    err = np.abs(world[..., :3, 3] - wp).max(axis=(1, 2))
    assert err.max() <= pos_tol, err / size
    np.testing.assert_allclose(t, THREE["local_position"], atol=pos_tol)
    q_world = skinkit.quat_from_matrix(world[..., :3, :3])
    q_tol = 1e-7 if dtype == np.float64 else 5e-7
    assert up_to_sign(q_world[~between], wq[~between]) <= q_tol
    assert up_to_sign(q[~between], np.asarray(THREE["local_quaternion_xyzw"])[~between]) <= q_tol
    # between frames three normalised-lerps keys whose dot is >= 0.9995 instead of slerping;
    # the two differ by at most 5.1e-7 (angle of nlerp vs slerp at cos = 0.9995), see below
    assert up_to_sign(q_world[between], wq[between]) <= 1e-6 + q_tol
    assert up_to_sign(q[between], np.asarray(THREE["local_quaternion_xyzw"])[between]) \
        <= 1e-6 + q_tol


@pytest.mark.shared
def test_cmu_between_frames_is_three_interpolation():
    """Between frames, three's own rule (slerp, normalised lerp when dot >= 0.9995) applied to
    our keys reproduces three to 1e-7: the only difference from our slerp is that switch."""
    m = load_bvh(CMU)
    dt = m.frame_time
    Omega = np.arccos(0.9995)
    t = np.linspace(0, 1, 1001)
    nlerp_vs_slerp = np.abs(np.arctan2(t * np.sin(Omega), 1 - t + t * np.cos(Omega)) - t * Omega)
    assert nlerp_vs_slerp.max() < 5.1e-7
    for i, s in enumerate(THREE["samples"]):
        if s["kind"] != "between":
            continue
        _, (q0, q1), _ = m.local_pose(0, [s["frame"] * dt, (s["frame"] + 1) * dt])
        dot = np.sum(q0 * q1, axis=-1, keepdims=True)
        q1 = np.where(dot < 0, -q1, q1)
        dot = np.abs(dot)
        a = s["alpha"]
        lerp = q0 + a * (q1 - q0)
        nlerp = lerp / np.linalg.norm(lerp, axis=-1, keepdims=True)
        slerped = skinkit.slerp(q0, q1, np.full(len(q0), a))
        three_rule = np.where(dot >= 0.9995, nlerp, slerped)
        _, ours, _ = m.local_pose(0, [(s["frame"] + a) * dt])
        ref = np.asarray(THREE["local_quaternion_xyzw"][i])
        assert up_to_sign(three_rule, ref) < 1e-7
        assert up_to_sign(ours[0], ref) < 1e-6
        assert up_to_sign(ours[0], slerped) < 1e-12


@pytest.mark.shared
def test_outside_the_clip_holds_the_end_frames():
    m = load_bvh(CMU)
    last = (m.frame_count - 1) * m.frame_time
    w = m.world_matrices(0, [-1.0, 0.0, last, last + 5])
    np.testing.assert_array_equal(w[0], w[1])
    np.testing.assert_array_equal(w[2], w[3])


# --- channel orders, wraps, syntax variants ----------------------------------------------------


def one_joint_file(channels, rows, offset=(1.0, 2.0, 3.0), frame_time="0.5"):
    body = "\n".join(" ".join(f"{v:.17g}" for v in row) for row in rows)
    return (f"HIERARCHY\nROOT a\n{{\n  OFFSET {' '.join(map(str, offset))}\n"
            f"  CHANNELS {len(channels)} {' '.join(channels)}\n"
            f"  End Site\n  {{\n    OFFSET 0 0 10\n  }}\n}}\n"
            f"MOTION\nFrames: {len(rows)}\nFrame Time: {frame_time}\n{body}\n")


ORDERS = ["".join(p) for k in (1, 2, 3) for p in itertools.permutations("XYZ", k)]


@pytest.mark.parametrize("order", ORDERS)
def test_channel_order_matches_scipy_intrinsic(order):
    rng = np.random.default_rng(len(order) * 100 + sum(map(ord, order)))
    angles = rng.uniform(-360, 360, size=(20, len(order)))
    # the position channels go in the middle and in a shuffled order: only rotations compose
    channels = [f"{a}rotation" for a in order]
    channels[1:1] = ["Zposition", "Xposition", "Yposition"]
    pos = rng.uniform(-5, 5, size=(20, 3))
    rows = np.concatenate([angles[:, :1], pos, angles[:, 1:]], axis=1)
    m = parse_bvh(one_joint_file(channels, rows))
    expected = Rotation.from_euler(order, angles, degrees=True)
    times = np.arange(20) * 0.5
    t, q, _ = m.local_pose(0, times)
    assert up_to_sign(q[:, 0], expected.as_quat()) < 1e-14
    np.testing.assert_allclose(t[:, 0], np.array([1.0, 2.0, 3.0]) + pos[:, [1, 2, 0]],
                               rtol=1e-15)
    # the End Site: world = T(offset + p) R (0, 0, 10)
    world = m.world_matrices(0, times)
    np.testing.assert_allclose(world[:, 1, :3, 3], t[:, 0] + expected.apply([0, 0, 10]),
                               atol=1e-12)


def test_zxy_is_rz_rx_ry():
    rz, rx, ry = 30.0, -50.0, 70.0
    m = parse_bvh(one_joint_file(["Zrotation", "Xrotation", "Yrotation"], [[rz, rx, ry]]))
    R = skinkit.quat_to_matrix(m.local_pose(0, [0.0])[1][0, 0])

    def axis(a, deg):
        return Rotation.from_rotvec(np.radians(deg) * np.eye(3)["XYZ".index(a)]).as_matrix()

    np.testing.assert_allclose(R, axis("Z", rz) @ axis("X", rx) @ axis("Y", ry), atol=1e-15)


def test_180_degree_wrap_takes_the_short_way():
    # Z goes -179 -> 179: two degrees the short way (through 180), not 358 the long way
    m = parse_bvh(one_joint_file(["Zrotation"], [[-179.0], [179.0]], offset=(0, 0, 0)))
    (ch,) = m.clips[0].channels
    assert np.dot(ch.values[0], ch.values[1]) < 0  # the keys have opposite signs: fine
    for a in (0.25, 0.5, 0.75):
        q = m.local_pose(0, [a * 0.5])[1][0, 0]
        expected = Rotation.from_euler("Z", -179.0 - 2 * a, degrees=True).as_quat()
        assert up_to_sign(q, expected) < 1e-14


@pytest.mark.shared
def test_animdrawings_hips_wrap():
    """LICENSES.md: between frames 161 and 162 the Hips Z angle wraps from -179.54 to 177.80."""
    m = load_bvh(BVH / "animdrawings_fair1_dab.bvh")
    z = [c for c, (j, name) in enumerate(m.channels) if j == 0 and name == "Zrotation"][0]
    assert m.motion[161, z] == pytest.approx(-179.54, abs=0.01)
    assert m.motion[162, z] == pytest.approx(177.80, abs=0.01)
    dt = m.frame_time
    _, q, _ = m.local_pose(0, np.array([161, 161.5, 162]) * dt)
    q0, qm, q1 = (Rotation.from_quat(x[0]) for x in q)
    step = (q0.inv() * q1).magnitude()
    assert step < np.radians(5)
    assert (q0.inv() * qm).magnitude() == pytest.approx(step / 2, rel=1e-9)
    assert (qm.inv() * q1).magnitude() == pytest.approx(step / 2, rel=1e-9)


SMALL = """HIERARCHY
ROOT Hips
{
  OFFSET 0 1 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 2 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 3 0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.1
0 0 0 0 0 0 10 20 30
1 2 3 40 50 60 -10 -20 -30
4 5 6 70 80 90 1 2 3
"""


def world_of(text, **kw):
    m = parse_bvh(text, **kw)
    return m, m.world_matrices(0, [0.0, 0.05, 0.1, 0.15, 0.2])


def test_line_endings_tabs_and_layout_do_not_matter():
    ref_model, ref = world_of(SMALL)
    variants = [
        SMALL.replace("\n", "\r\n"),
        SMALL.replace("\n", "\r"),
        SMALL.replace("  ", "\t"),
        SMALL.replace(" ", "\t ").replace("\n", " \t\r\n"),
        "\n\n" + SMALL.replace("\n", "\n\n") + "\n\n",
        SMALL.replace("Frame Time: 0.1", "Frame Time:\t0.1").replace("Frames: 3", "Frames:3"),
        SMALL.replace("End Site", "END SITE").replace("OFFSET", "Offset")
             .replace("rotation", "ROTATION"),
    ]
    for text in variants:
        m, w = world_of(text)
        np.testing.assert_array_equal(w, ref)
        assert m.skeleton.names == ["Hips", "Spine", "Spine_end"] == ref_model.skeleton.names


def test_file_encodings(tmp_path):
    p = tmp_path / "bom.bvh"
    p.write_bytes(b"\xef\xbb\xbf" + SMALL.replace("Spine", "Sp\u00efne").encode("utf-8"))
    assert load_bvh(p).skeleton.names[1] == "Sp\u00efne"
    p = tmp_path / "latin1.bvh"
    p.write_bytes(SMALL.replace("Spine", "Sp\u00efne").encode("latin-1"))
    assert load_bvh(p).skeleton.names[1] == "Sp\u00efne"


def test_several_roots_and_end_site_names():
    text = SMALL.replace("MOTION", """ROOT Spine_end
{
  OFFSET 5 0 0
  CHANNELS 1 Yrotation
  End Site
  {
    OFFSET 1 0 0
  }
}
MOTION""")
    lines = text.splitlines()
    for i in (-3, -2, -1):
        lines[i] += " 90"
    m = parse_bvh("\n".join(lines))
    assert m.skeleton.names == ["Hips", "Spine", "Spine_end2", "Spine_end", "Spine_end_end"]
    assert m.skeleton.parents.tolist() == [-1, 0, 1, -1, 3]
    w = m.world_matrices(0, [0.0])[0]
    np.testing.assert_allclose(w[4, :3, 3], [5, 0, -1], atol=1e-15)


def test_zero_frames_and_one_frame():
    text = SMALL.split("MOTION")[0] + "MOTION\nFrames: 0\nFrame Time: 0.1\n"
    m = parse_bvh(text)
    assert m.clips == [] and m.frame_count == 0 and m.motion.shape == (0, 9)
    np.testing.assert_allclose(m.world_matrices(None, [0.0])[0, 2, :3, 3], [0, 6, 0])
    m = parse_bvh(SMALL.replace("Frames: 3", "Frames: 1").rsplit("\n", 3)[0] + "\n")
    assert m.frame_count == 1 and m.clips[0].duration == 0.0
    np.testing.assert_array_equal(m.world_matrices(0, [0.0]), m.world_matrices(0, [7.0]))


@pytest.mark.shared
def test_dtype_argument():
    with pytest.raises(TypeError):
        parse_bvh(SMALL, dtype=np.int32)
    with pytest.raises(TypeError):
        load_bvh(CMU, dtype=np.float16)


# --- hostile and malformed files ---------------------------------------------------------------


def edit(old, new, count=1):
    assert old in SMALL
    return SMALL.replace(old, new, count)


# (case, text, line, message pattern)
HOSTILE = [
    ("empty file", "", 1, "expected HIERARCHY"),
    ("blank file", "\n\n  \n", 3, "expected HIERARCHY"),
    ("no HIERARCHY", SMALL.replace("HIERARCHY\n", ""), 1, "expected HIERARCHY"),
    ("garbage first", "hello\n" + SMALL, 1, "expected HIERARCHY"),
    ("no ROOT", "HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 1\n", 2, "MOTION before any ROOT"),
    ("ROOT without a name", edit("ROOT Hips", "ROOT"), 2, "without a name"),
    ("brace on the name line", edit("ROOT Hips\n{", "ROOT Hips {"), 2, "line of its own"),
    ("missing open brace", edit("JOINT Spine\n  {\n", "JOINT Spine\n"), 7,
     r"expected '\{' after JOINT 'Spine' \(line 6\)"),
    ("missing open brace of End Site", edit("End Site\n    {\n", "End Site\n"), 11,
     r"expected '\{' after the End Site of 'Spine'"),
    ("missing close brace", edit("    }\n  }\n}\n", "    }\n  }\n"), 15,
     r"MOTION inside ROOT 'Hips' \(line 2\): missing '\}'"),
    ("missing close brace of End Site", edit("      OFFSET 0 3 0\n    }\n", "      OFFSET 0 3 0\n"),
     15, r"MOTION inside ROOT 'Hips' \(line 2\): missing '\}'"),
    ("extra close brace", edit("}\nMOTION", "}\n}\nMOTION"), 16, r"'\}' without a matching"),
    ("file ends in the hierarchy", SMALL.split("  JOINT")[0], 5,
     r"the file ends inside ROOT 'Hips' \(line 2\): missing '\}'"),
    ("file ends before MOTION", SMALL.split("MOTION")[0], 15, "the file ends before MOTION"),
    ("ROOT inside a joint", edit("  JOINT Spine", "  ROOT Spine"), 6, "ROOT inside ROOT 'Hips'"),
    ("unknown statement", edit("  JOINT Spine", "  BONE Spine"), 6, "expected JOINT, End Site"),
    ("End Site with channels", edit("      OFFSET 0 3 0", "      OFFSET 0 3 0\n      CHANNELS 0"),
     13, r"expected '\}' to close the End Site"),
    ("no OFFSET", edit("  OFFSET 0 1 0\n", ""), 4, "expected OFFSET in ROOT 'Hips'"),
    ("OFFSET with 2 numbers", edit("OFFSET 0 2 0", "OFFSET 0 2"), 8, "needs 3 numbers, got 2"),
    ("OFFSET not a number", edit("OFFSET 0 2 0", "OFFSET 0 two 0"), 8, "'two' is not a number"),
    ("OFFSET NaN", edit("OFFSET 0 2 0", "OFFSET 0 nan 0"), 8, "'nan' is not a finite number"),
    ("OFFSET overflow", edit("OFFSET 0 2 0", "OFFSET 0 1e999 0"), 8, "overflows"),
    ("no CHANNELS", edit("    CHANNELS 3 Zrotation Xrotation Yrotation\n", ""), 9,
     "expected CHANNELS in JOINT 'Spine'"),
    ("CHANNELS count not a number", edit("CHANNELS 3 Z", "CHANNELS three Z"), 9,
     "CHANNELS of JOINT 'Spine': 'three' is not a whole number"),
    ("CHANNELS count negative", edit("CHANNELS 3 Z", "CHANNELS -3 Z"), 9,
     "'-3' is not a whole number"),
    ("CHANNELS too few names", edit("CHANNELS 3 Zrotation Xrotation Yrotation",
                                    "CHANNELS 3 Zrotation Xrotation"), 9,
     "declares 3 channels but lists 2"),
    ("CHANNELS too many names", edit("CHANNELS 3 Zrotation", "CHANNELS 2 Zrotation"), 9,
     "declares 2 channels but lists 3"),
    ("unknown channel", edit("CHANNELS 3 Zrotation", "CHANNELS 3 Wrotation"), 9,
     "unknown channel 'Wrotation'"),
    ("scale channel", edit("CHANNELS 3 Zrotation", "CHANNELS 3 Xscale"), 9,
     "unknown channel 'Xscale'"),
    ("repeated channel", edit("Zrotation Xrotation Yrotation\n    End",
                              "Zrotation Xrotation Zrotation\n    End"), 9, "listed twice"),
    ("no Frames", edit("Frames: 3\n", ""), 17, "expected 'Frames: <count>'"),
    ("Frames not a number", edit("Frames: 3", "Frames: three"), 17, "not a whole number"),
    ("Frames negative", edit("Frames: 3", "Frames: -3"), 17, "not a whole number"),
    ("Frames fractional", edit("Frames: 3", "Frames: 2.5"), 17, "not a whole number"),
    ("no Frame Time", edit("Frame Time: 0.1\n", ""), 18, "expected 'Frame Time: <seconds>'"),
    ("Frame Time zero", edit("Frame Time: 0.1", "Frame Time: 0"), 18, "must be positive"),
    ("Frame Time negative", edit("Frame Time: 0.1", "Frame Time: -0.1"), 18,
     "must be positive"),
    ("Frame Time NaN", edit("Frame Time: 0.1", "Frame Time: nan"), 18, "not a finite number"),
    ("Frame Time empty", edit("Frame Time: 0.1", "Frame Time:"), 18, "'' is not a number"),
    ("file ends after MOTION", SMALL.split("Frames")[0], 16, "expected 'Frames: <count>'"),
    ("too few values", edit("1 2 3 40 50 60 -10 -20 -30", "1 2 3 40 50 60 -10 -20"), 20,
     "expected 9 channel values, got 8"),
    ("too many values", edit("4 5 6 70", "4 5 6 7 70"), 21, "expected 9 channel values, got 10"),
    ("frame split over two lines", edit("40 50 60 -10", "40 50 60\n-10"), 20,
     "expected 9 channel values, got 6"),
    ("fewer frames than declared", edit("Frames: 3", "Frames: 4"), 21,
     "the file ends after 3 of the 4 frames declared on line 17"),
    ("more frames than declared", edit("Frames: 3", "Frames: 2"), 21,
     "more frame lines than the 2 declared on line 17"),
    ("non-numeric value", edit("40 50 60", "40 fifty 60"), 20,
     r"value 5 \(Xrotation of 'Hips'\): 'fifty' is not a number"),
    ("decimal comma", edit("4 5 6", "4 5,5 6"), 21, "'5,5' is not a number"),
    ("half a number", edit("70 80 90", "70 8e 90"), 21, "'8e' is not a number"),
    ("two signs", edit("70 80 90", "70 --80 90"), 21, "'--80' is not a number"),
    ("underscore", edit("70 80 90", "70 8_0 90"), 21, "'8_0' is not a number"),
    ("NaN value", edit("-10 -20 -30", "-10 NaN -30"), 20,
     r"value 8 \(Xrotation of 'Spine'\): 'NaN' is not a finite number"),
    ("Inf value", edit("4 5 6", "4 -inf 6"), 21, "'-inf' is not a finite number"),
    ("overflowing value", edit("4 5 6", "4 5e400 6"), 21, "'5e400' overflows"),
    ("data without channels", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\n"
     "Frames: 1\nFrame Time: 1\n5\n", 10, "declares no channels"),
]


@pytest.mark.parametrize("case,text,line,pattern", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_file(case, text, line, pattern, tmp_path):
    with pytest.raises(BvhError) as info:
        parse_bvh(text)
    assert isinstance(info.value, ValueError)
    assert info.value.line == line, str(info.value)
    assert str(info.value).startswith(f"line {line}: ")
    assert re.search(pattern, str(info.value)), str(info.value)
    # the same through a file, with CRLF line endings
    p = tmp_path / "bad.bvh"
    p.write_bytes(text.replace("\n", "\r\n").encode())
    with pytest.raises(BvhError, match=helpers.in_file(p, f"line {line}: ")) as info:
        load_bvh(p)
    assert (info.value.line, info.value.file) == (line, str(p))


def test_small_file_is_valid():
    m = parse_bvh(SMALL)
    assert m.frame_count == 3 and m.skeleton.count == 3


# --- docs and CLI -----------------------------------------------------------------------------


def test_readme_example(monkeypatch):
    text = (ROOT / "docs" / "posing.md").read_text()
    section = text.split("## Mocap (BVH)", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(ROOT)
    scope = {}
    exec(compile(code, "docs/posing.md: Mocap (BVH)", "exec"), scope)
    assert scope["joints"].shape == (301, 27, 3)



@pytest.mark.shared
def test_cli_info(capsys):
    code, out, err = run(["info", CMU], capsys)
    assert code == 0, err
    assert "skeleton: 38 nodes" in out and "LeftToeBase_end" in out
    assert "meshes: 0 (0 primitive instances, 0 skinned)" in out
    assert re.search(r"clips: 1\n  0: cmu_01_03_first300: 2\.4916\d* s, 32 channels, LINEAR",
                     out), out


@pytest.mark.shared
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cli_pose_writes_joint_positions(capsys, tmp_path, dtype):
    out = tmp_path / "cmu.npz"
    times = [0.0, 0.004, 1.0, 2.5]
    code, _, err = run(["pose", CMU, "--times", *times, "--dtype", dtype, "--out", out], capsys)
    assert code == 0, err
    with np.load(out) as d:
        assert sorted(d.files) == ["joints", "times"]
        assert d["times"].dtype == dtype and d["joints"].dtype == dtype
        np.testing.assert_array_equal(d["times"], np.array(times, dtype=dtype))
        expected = load_bvh(CMU, dtype=dtype).world_matrices(0, times)[..., :3, 3]
        np.testing.assert_array_equal(d["joints"], expected)
        assert d["joints"].shape == (4, 38, 3)


@pytest.mark.shared
def test_cli_pose_fps_and_rest(capsys, tmp_path):
    out = tmp_path / "a.npz"
    assert run(["pose", BVH / "animdrawings_fair1_dab.bvh", "--fps", "30", "--out", out],
               capsys)[0] == 0
    with np.load(out) as d:
        assert d["joints"].shape == (339, 34, 3)
    assert run(["pose", BVH / "makehuman_benchmark_pose.bvh", "--rest", "--out", out],
               capsys)[0] == 0
    m = load_bvh(BVH / "makehuman_benchmark_pose.bvh")
    with np.load(out) as d:
        np.testing.assert_array_equal(d["joints"], m.world_matrices(None, [0.0])[..., :3, 3])


def test_cli_bad_bvh_file(capsys, tmp_path):
    p = tmp_path / "bad.bvh"
    p.write_text(SMALL.replace("4 5 6", "4 5"))
    for argv in (["info", p], ["pose", p, "--out", tmp_path / "x.npz"]):
        code, out, err = run(argv, capsys)
        assert code == 1
        # the file named once: by the reader, not again by the CLI
        assert err == f"skinkit: error: {p}: line 21: expected 9 channel values, got 8\n", err
    assert not (tmp_path / "x.npz").exists()
