"""Hostile glTF and BVH files built here: loaders stay linear on deep hierarchies, every count
or size a file asks for is bounded before it is allocated (skinkit.limits), Draco values are
range-checked, and a refusal is one clean error with no NumPy RuntimeWarning before it."""
import json
import time

import numpy as np
import pytest

from gltf_doc import Doc
from helpers import in_file
from skinkit import limits
from skinkit.io.bvh.read import BvhError, parse_bvh
from skinkit.io.gltf import GltfError, load_gltf

# a NumPy RuntimeWarning (overflow or invalid value in a cast of file values) is a failure here
pytestmark = pytest.mark.filterwarnings("error")

BIG = 300_000


def _timed(fn, *args):
    """fn(*args) and the seconds it took."""
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


# --- linear loaders ---------------------------------------------------------------------------


def _scene(n, chain):
    """n nodes: one chain (node i the parent of node i + 1, the scene's root node 0) or flat
    (every node a root of the scene)."""
    nodes = [{"children": [i + 1]} for i in range(n - 1)] + [{}] if chain else [{}] * n
    return {"asset": {"version": "2.0"}, "nodes": nodes,
            "scenes": [{"nodes": [0] if chain else list(range(n))}]}


def _end_sites(n, same_name):
    """n joints with one End Site each: all named "A" (their End Sites A_end, A_end2, ...
    A_end<n>) or each its own name."""
    out = ["HIERARCHY", "ROOT R", "{", "OFFSET 0 0 0", "CHANNELS 0"]
    for i in range(n):
        out += [f"JOINT {'A' if same_name else f'J{i}'}", "{", "OFFSET 0 0 0", "CHANNELS 0",
                "End Site", "{", "OFFSET 0 1 0", "}", "}"]
    return "\n".join(out + ["}", "MOTION", "Frames: 0", "Frame Time: 0.1"]) + "\n"


def test_gltf_chain_loads_as_fast_as_a_flat_scene(tmp_path):
    """Scene membership of a 300,000-node chain took 113 s (one pass per level) against 2 s for
    as many root nodes."""
    paths = {}
    for chain in (False, True):
        paths[chain] = tmp_path / f"{chain}.gltf"
        paths[chain].write_text(json.dumps(_scene(BIG, chain)))
    _, flat = _timed(load_gltf, paths[False])
    model, chain = _timed(load_gltf, paths[True])
    assert model.skeleton.parents[-1] == BIG - 2 and model.skeleton.parents[0] == -1
    assert chain < 3 * flat, (chain, flat)


def test_gltf_scene_of_a_reversed_chain(tmp_path):
    """Parents after their children (node i + 1 the parent of node i): every node reaches the
    scene's root; a second scene's nodes are left out."""
    n = 1000
    nodes = [{}] + [{"children": [i]} for i in range(n - 1)] + [{"mesh": 0}]
    d = Doc()
    d.add([[0, 0, 0], [1, 0, 0], [0, 1, 0]], 5126, "VEC3")
    d.json.update(nodes=[{**x, "mesh": 0} for x in nodes[:n]] + [{"mesh": 0}],
                  meshes=[{"primitives": [{"attributes": {"POSITION": 0}}]}],
                  scenes=[{"nodes": [n - 1]}, {"nodes": [n]}])
    path = d.write(tmp_path / "rev.glb")
    assert [p.node for p in load_gltf(path).primitives] == list(range(n))
    assert [p.node for p in load_gltf(path, scene=1).primitives] == [n]


def test_bvh_end_sites_of_same_named_joints_are_linear():
    """60,000 End Sites under joints of one name took 159 s (A_end, A_end2, ... probed from 1
    for each); 300,000 must cost about what 300,000 distinct names cost."""
    _, distinct = _timed(parse_bvh, _end_sites(BIG, False))
    model, same = _timed(parse_bvh, _end_sites(BIG, True))
    names = model.skeleton.names
    assert names[2] == "A_end" and names[4] == "A_end2" and names[-1] == f"A_end{BIG}"
    assert same < 3 * distinct, (same, distinct)


def test_bvh_end_site_names_skip_names_the_file_took():
    text = _end_sites(3, True).replace("JOINT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd Site",
                                       "JOINT A_end2\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd Site", 1)
    names = parse_bvh(text).skeleton.names
    # A_end2 (a joint) has the End Site A_end2_end; the two A joints' End Sites skip A_end2
    assert names == ["R", "A_end2", "A_end2_end", "A", "A_end", "A", "A_end3"]


# --- BVH counts, times and values -------------------------------------------------------------


SMALL = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  End Site
  {
    OFFSET 0 1 0
  }
}
MOTION
Frames: 3
Frame Time: 0.1
0 0 0 0 0 0
1 2 3 4 5 6
1 2 3 4 5 6
"""


def _edit(old, new, text=SMALL):
    assert old in text
    return text.replace(old, new, 1)


NO_CHANNELS = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\n"

# (case, text, line, message)
BVH_HOSTILE = [
    ("frame time 1e308", _edit("Frame Time: 0.1", "Frame Time: 1e308"), 13,
     "Frame Time: '1e308' is beyond the largest magnitude skinkit reads, 1e\\+30"),
    ("frame time 1e25", _edit("Frame Time: 0.1", "Frame Time: 1e25"), 13,
     "3 frames of 1e\\+25 s: the clip lasts 2e\\+25 s, more than the limit of 1e\\+06 s"),
    ("frame time 1e9", _edit("Frame Time: 0.1", "Frame Time: 1e9"), 13,
     "3 frames of 1e\\+09 s: the clip lasts 2e\\+09 s, more than the limit of 1e\\+06 s"),
    ("10**18 frames without channels", NO_CHANNELS + "Frames: 999999999999999999\n"
     "Frame Time: 0.001\n", 9, "the clip lasts 1e\\+15 s"),
    ("a 5000-digit frame count", _edit("Frames: 3", "Frames: " + "9" * 5000), 12,
     "Frames: '99999.* is not a whole number in \\[0, 10\\*\\*18\\)"),
    ("a 30-digit channel count", _edit("CHANNELS 6", "CHANNELS " + "1" * 30), 5,
     "CHANNELS of ROOT 'Hips': '1111.* is not a whole number"),
    ("OFFSET 1e35", _edit("OFFSET 0 1 0", "OFFSET 0 1e35 0"), 8,
     "OFFSET of the End Site of 'Hips': '1e35' is beyond the largest magnitude skinkit "
     "reads, 1e\\+30"),
    ("position 1e300", _edit("1 2 3 4 5 6\n1", "1 2 1e300 4 5 6\n1"), 15,
     "value 3 \\(Zposition of 'Hips'\\): '1e300' is beyond the largest magnitude"),
    ("angle -1e31", _edit("1 2 3 4 5 6\n\n", "1 2 3 4 5 -1e31\n", SMALL + "\n"), 16,
     "value 6 \\(Yrotation of 'Hips'\\): '-1e31' is beyond"),
]


@pytest.mark.parametrize("case,text,line,message", BVH_HOSTILE, ids=[c[0] for c in BVH_HOSTILE])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hostile_bvh_is_refused_with_its_line(case, text, line, message, dtype):
    with pytest.raises(BvhError, match=f"^line {line}: .*{message}") as info:
        parse_bvh(text, dtype=dtype)
    assert info.value.line == line


def test_frames_without_channels_allocate_nothing():
    """No channels: Frames may be any count (the frame lines are empty); no key times are
    built for them."""
    m = parse_bvh(NO_CHANNELS + "Frames: 999999999999999999\nFrame Time: 1e-15\n")
    assert m.frame_count == 999999999999999999 and m.motion.shape == (m.frame_count, 0)
    assert m.clips[0].channels == [] and m.clips[0].duration == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_largest_values_read_stay_finite(dtype):
    """Values at the limit (1e30 offsets and positions, 1e6 s clips) load and pose without a
    RuntimeWarning and without inf in float32."""
    text = _edit("OFFSET 0 1 0", "OFFSET 0 1e30 0")
    text = _edit("1 2 3 4 5 6\n1", "1 2 -1e30 4 5 6\n1", text)
    text = _edit("Frame Time: 0.1", "Frame Time: 5e5", text)
    m = parse_bvh(text, dtype=dtype)
    assert m.clips[0].duration == 1e6
    world = m.world_matrices(0, [0.0, 5e5, 1e6])
    assert np.all(np.isfinite(world)) and world.dtype == dtype


# --- node counts ------------------------------------------------------------------------------


def test_gltf_nodes_beyond_the_limit_are_refused_before_the_skeleton(tmp_path):
    """2^20 + 1 empty nodes (3 MB of JSON): refused at the count, before the skeleton's
    arrays."""
    path = tmp_path / "nodes.gltf"
    n = limits.MAX_NODES
    path.write_text(json.dumps({"asset": {"version": "2.0"}, "nodes": [{}] * (n + 1)}))
    with pytest.raises(GltfError, match=in_file(path, rf"nodes: {n + 1} nodes, more than the "
                                                      rf"limit of {n} "
                                                      r"\(skinkit.limits.MAX_NODES\)$")):
        load_gltf(path)


def test_bvh_joints_beyond_the_limit_are_refused_at_the_first_one_over(monkeypatch):
    """BVH declares no count: the joint (or End Site) past the limit is refused on its line.
    The limit is lowered to 100 (2^20 joints take the parser seconds); 100 load."""
    monkeypatch.setattr(limits, "MAX_NODES", 100)

    def end_sites(n):   # a root and n - 1 End Sites under it
        return ("HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 0\n"
                + "End Site\n{\nOFFSET 0 1 0\n}\n" * (n - 1)
                + "}\nMOTION\nFrames: 0\nFrame Time: 0.1\n")
    assert parse_bvh(end_sites(100)).skeleton.count == 100
    with pytest.raises(BvhError, match=r"^line 402: the End Site of 'R': 101 joints and End "
                                       r"Sites, more than the limit of 100 "
                                       r"\(skinkit.limits.MAX_NODES\)$"):
        parse_bvh(end_sites(101))


def test_gltf_nodes_at_the_limit_load(tmp_path, monkeypatch):
    """As many nodes as the limit (lowered to 100) load."""
    monkeypatch.setattr(limits, "MAX_NODES", 100)
    path = tmp_path / "nodes.gltf"
    path.write_text(json.dumps({"asset": {"version": "2.0"}, "nodes": [{}] * 100}))
    assert load_gltf(path).skeleton.count == 100


# --- glTF sizes -------------------------------------------------------------------------------


def _keys_doc(channels, keys=1000):
    """One sampler (``keys`` times and translations) shared by ``channels`` channels on as many
    nodes: each channel gets its own copy of the keys."""
    d = Doc()
    d.add(np.arange(keys, dtype=np.float32) / 30, 5126, "SCALAR")
    d.add(np.zeros((keys, 3), np.float32), 5126, "VEC3")
    d.json.update(nodes=[{}] * channels, animations=[{
        "samplers": [{"input": 0, "output": 1}],
        "channels": [{"sampler": 0, "target": {"node": i, "path": "translation"}}
                     for i in range(channels)]}])
    return d


def test_one_sampler_shared_by_many_channels_is_bounded(tmp_path, monkeypatch):
    """Every channel copies the shared keys: 5,000 channels of 1,000 keys ask 64 times more
    than the file's bytes (with the floor lowered to keep the file small); refused before."""
    monkeypatch.setattr(limits, "DECODED_FLOOR", 0)
    path = _keys_doc(5000).write(tmp_path / "shared.glb")
    with pytest.raises(GltfError, match=in_file(path, r"animations\[0\]\.samplers\[0\]: 1000 "
                                                      r"float64 values take 8000 bytes, which "
                                                      r"with the \d+ bytes already read passes "
                                                      r"the limit of \d+ bytes for a \d+-byte "
                                                      r"file")):
        load_gltf(path)
    assert len(load_gltf(_keys_doc(50).write(tmp_path / "fine.glb")).clips[0].channels) == 50


def test_one_position_accessor_shared_by_many_meshes_is_bounded(tmp_path):
    """2,000 meshes whose primitives reuse one 1.2 MB POSITION accessor: each mesh copies it
    (2.4 GB in float64); the file (1.3 MB) is refused at the 256 MB floor, unmonkeypatched."""
    d = Doc()
    d.add(np.zeros((100_000, 3), np.float32), 5126, "VEC3")
    n = 2000
    d.json.update(nodes=[{"mesh": i} for i in range(n)],
                  meshes=[{"primitives": [{"attributes": {"POSITION": 0}, "mode": 0}]}] * n)
    path = d.write(tmp_path / "shared.glb")
    with pytest.raises(GltfError, match=in_file(path, r"meshes\[\d+\]\.primitives\[0\]\."
                                                      r"attributes\.POSITION: 300000 float64 "
                                                      r"values take 2400000 bytes")):
        load_gltf(path)


def test_many_accessors_over_one_view_are_bounded(tmp_path, monkeypatch):
    """Accessors are decoded once each, but 3,000 accessors may all read one buffer view."""
    monkeypatch.setattr(limits, "DECODED_FLOOR", 0)
    d = Doc()
    view = d.view(np.zeros((4000, 3), np.float32).tobytes())
    n = 3000
    for _ in range(n):
        d.accessor(5126, "VEC3", 4000, view)
    d.json.update(nodes=[{"mesh": i} for i in range(n)],
                  meshes=[{"primitives": [{"attributes": {"POSITION": i}, "mode": 0}]}
                          for i in range(n)])
    path = d.write(tmp_path / "views.glb")
    with pytest.raises(GltfError, match=in_file(path, r"(accessors\[\d+\]: 4000 VEC3 elements "
                                                      r"take 48000 bytes|meshes\[\d+\].*"
                                                      r"POSITION: 12000 float64)")):
        load_gltf(path)


def test_limit_follows_the_machine(monkeypatch):
    monkeypatch.setattr(limits, "memory_bytes", lambda: 1 << 30)
    assert limits.decoded_limit(10**9) == 1 << 29
    assert limits.decoded_limit(10) == limits.DECODED_FLOOR
    assert limits.decoded_limit(5 * 10**6) == 64 * 5 * 10**6


@pytest.mark.parametrize("field, value", [("translation", [0, 1e39, 0]),
                                          ("scale", [1, 1, -1e31]),
                                          ("matrix", [1e300] + [0] * 14 + [1])])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_node_values_beyond_the_limit(tmp_path, field, value, dtype):
    """A translation of 1e39 became inf in float32, with an overflow RuntimeWarning."""
    path = tmp_path / "n.gltf"
    path.write_text(json.dumps({"asset": {"version": "2.0"}, "nodes": [{field: value}]}))
    with pytest.raises(GltfError, match=in_file(path, rf"nodes\[0\]\.{field}: expected \d+ "
                                                      r"finite numbers of magnitude at most "
                                                      r"1e\+30")):
        load_gltf(path, dtype=dtype)


@pytest.mark.parametrize("last", [1e9, 3e38])
def test_gltf_clip_longer_than_the_limit(tmp_path, last):
    d = _keys_doc(1, keys=2)
    d.json["accessors"][0] = {**d.json["accessors"][0]}
    d.add([0.0, last], 5126, "SCALAR")
    d.json["animations"][0]["samplers"][0]["input"] = 2
    path = d.write(tmp_path / "long.glb")
    with pytest.raises(GltfError, match=in_file(path, r"animations\[0\]\.samplers\[0\]\.input: "
                                                      r"a key at \S+ s: the clip lasts \S+ s, "
                                                      r"more than the limit of 1e\+06 s")):
        load_gltf(path)


# --- Draco ------------------------------------------------------------------------------------


def _draco_joints(tmp_path, joints, ctype=5121):
    """One Draco primitive: 3 vertices, JOINTS_0 decoded from ``joints`` (a generic attribute)
    into an accessor of ``ctype``."""
    draco = pytest.importorskip("DracoPy")
    positions = np.eye(3, dtype=np.float32)
    data = draco.encode(positions, np.array([[0, 1, 2]]), quantization_bits=0,
                        preserve_order=True,
                        generic_attributes={10: np.asarray(joints),
                                            11: np.full((3, 4), 0.25, np.float32)})
    mesh = draco.decode(data)
    position = next(a["unique_id"] for a in mesh.attributes if a["attribute_type"] == 0)
    generic = [a for a in mesh.attributes if a["attribute_type"] == 4]
    joint_id = next(a["unique_id"] for a in generic if a["data"].dtype.kind in "iu")
    weight_id = next(a["unique_id"] for a in generic if a["data"].dtype.kind == "f")
    d = Doc()
    d.accessor(5126, "VEC3", 3, min=[0, 0, 0], max=[1, 1, 1])
    d.accessor(ctype, "VEC4", 3)
    d.accessor(5126, "VEC4", 3)
    d.accessor(5123, "SCALAR", 3)
    prim = {"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3,
            "extensions": {"KHR_draco_mesh_compression": {
                "bufferView": d.view(data),
                "attributes": {"POSITION": position, "JOINTS_0": joint_id,
                               "WEIGHTS_0": weight_id}}}}
    d.json.update(nodes=[{"mesh": 0, "skin": 0}, {}], meshes=[{"primitives": [prim]}],
                  skins=[{"joints": [1]}], extensionsUsed=["KHR_draco_mesh_compression"],
                  extensionsRequired=["KHR_draco_mesh_compression"])
    return d.write(tmp_path / "draco.glb")


@pytest.mark.parametrize("bad", [256, 257, 65535])
def test_draco_joint_beyond_unsigned_byte(tmp_path, bad):
    """Joint 256 cast to UNSIGNED_BYTE became joint 0, silently."""
    joints = np.zeros((3, 4), np.uint16)
    joints[1, 2] = bad
    path = _draco_joints(tmp_path, joints)
    with pytest.raises(GltfError, match=in_file(path, r"meshes\[0\]\.primitives\[0\]\."
                                                      r"attributes\.JOINTS_0: the decoded "
                                                      rf"values of accessors\[1\]: {bad} is "
                                                      r"out of the range \[0, 255\] of "
                                                      r"UNSIGNED_BYTE")):
        load_gltf(path)


def test_draco_joints_in_range_load(tmp_path):
    joints = np.zeros((3, 4), np.uint16)
    joints[1, 2] = 255
    with pytest.raises(GltfError, match=r"joint 255 is out of range for the 1 joints"):
        load_gltf(_draco_joints(tmp_path, joints))
    joints[1, 2] = 0
    [prim] = load_gltf(_draco_joints(tmp_path, joints)).primitives
    assert prim.joints.dtype == np.uint8 and np.array_equal(prim.joints, joints)


def test_signalling_nan_keys_load_without_a_warning(tmp_path):
    """A float32 signalling NaN (0x7fa00000) raised "invalid value encountered in cast" when
    widened to float64; it is a NaN like any other (here in a translation key)."""
    d = _keys_doc(1, keys=2)
    values = np.zeros((2, 3), np.float32)
    values.view(np.uint32)[1, 1] = 0x7FA00000
    d.add(values, 5126, "VEC3")
    d.json["animations"][0]["samplers"][0]["output"] = 2
    clip = load_gltf(d.write(tmp_path / "snan.glb")).clips[0]
    assert np.isnan(clip.channels[0].values[1, 1]) and clip.channels[0].values.dtype == np.float64
