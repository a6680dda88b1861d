"""Hostile FBX files (issue 17): truncated, fuzzed, huge declared counts, a deflate bomb, bad
indices, cyclic and deep hierarchies, other formats.  Each is loaded, and posed when it loads, in
a child process (a crash there is a failed case with its name, not a dead test run); every
outcome must be a model or an FbxError naming the file, within a memory cap.

The corpus is built from Blender's FBX of the procedural rig (the ``blender_files`` fixture,
tests/blender_scenes.py), in its three encodings (binary 7.4 as written, binary 7.5 and ASCII
from tests/fbx_transcode.py), by byte edits that follow the
FBX layouts: binary FBX 7.x node records (end offset, property count, property list length, name)
and array properties (type, array length, encoding, compressed length: Blender's
io_scene_fbx/encode_bin.py writes the same layout), ASCII FBX's ``Name: *count { a: ... }``.
"""
import json
import random
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

MAX_BYTES = 64 << 20   # the load_fbx limit the corpus runs under

_CHILD = r"""
import json, sys
import numpy as np
import skinkit
out = []
for path in json.loads(sys.argv[1]):
    try:
        model = skinkit.load_fbx(path, max_bytes=int(sys.argv[2]))
        result = "model"
        if model.clips:
            try:
                model.pose(0, np.linspace(0, model.clips[0].duration, 3))
            except ValueError as e:
                result = "model, pose ValueError"
    except skinkit.FbxError as e:
        result = "FbxError" if path in str(e) else "FbxError without the file name: " + str(e)
    except Exception as e:
        result = f"other: {type(e).__name__}: {e}"[:300]
    out.append([path, result])
print(json.dumps(out))
"""


def run_corpus(paths):
    """{path: outcome} from loading (and posing) every file in a child process."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([str(p) for p in paths]),
                           str(MAX_BYTES)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"child died ({proc.returncode}): {proc.stderr[-3000:]}"
    return dict(json.loads(proc.stdout.splitlines()[-1]))


def assert_clean(outcomes):
    print("\n" + "\n".join(f"  {Path(p).name}: {r}" for p, r in sorted(outcomes.items())))
    bad = {p: r for p, r in outcomes.items()
           if r not in ("model", "FbxError", "model, pose ValueError")}
    assert not bad, bad


@pytest.fixture(scope="module")
def fbx(blender_files, tmp_path_factory):
    """{"binary75": FBX 7.5 (64-bit node offsets), "binary74": Blender's FBX 7.4 (32-bit),
    "ascii": ASCII FBX}: the same document, paths."""
    from fbx_transcode import parse, to_ascii, to_binary
    folder = tmp_path_factory.mktemp("fbx")
    doc = parse((blender_files / "rig.fbx").read_bytes())
    (folder / "binary75.fbx").write_bytes(to_binary(doc, 7500))
    (folder / "ascii.fbx").write_text(to_ascii(doc))
    return {"binary75": folder / "binary75.fbx", "binary74": blender_files / "rig.fbx",
            "ascii": folder / "ascii.fbx"}


# ----------------------------------------------------------------- binary FBX record editing

def _node_header(data: bytes, at: int, wide: bool):
    """(end offset, property count, property bytes, name, header size) of the node at ``at``."""
    if wide:
        end, nprops, plen = struct.unpack_from("<QQQ", data, at)
        head = 24
    else:
        end, nprops, plen = struct.unpack_from("<III", data, at)
        head = 12
    n = data[at + head]
    return end, nprops, plen, data[at + head + 1:at + head + 1 + n], head + 1 + n


def array_property(data: bytes, name: bytes) -> int:
    """Offset of the first array property of the first binary node called ``name`` (the node
    name is followed directly by its first property's type code)."""
    at = data.find(bytes([len(name)]) + name)
    assert at > 0, name
    at += 1 + len(name)
    assert data[at:at + 1] in b"fdilb", data[at:at + 1]
    return at


def with_array(data: bytes, name: bytes, wide: bool, values: bytes, count: int, encoding: int):
    """The file with the first array of node ``name`` replaced (raw or deflated ``values``
    declaring ``count`` elements); every end offset after it moved by the size change."""
    at = array_property(data, name)
    kind = data[at:at + 1]
    old_len = struct.unpack_from("<III", data, at + 1)[2]
    new = kind + struct.pack("<III", count, encoding, len(values)) + values
    delta = len(new) - (13 + old_len)
    out = bytearray(data[:at] + new + data[at + 13 + old_len:])
    # fix the end offsets and property-list lengths of every node record: walk the tree
    def walk(pos, limit, shift_from):
        while pos < limit:
            end, nprops, plen, nm, head = _node_header(out, pos, wide)
            if end == 0:
                return
            fmt = "<QQQ" if wide else "<III"
            new_end = end + delta if end > shift_from else end
            new_plen = plen + delta if pos + head <= at < pos + head + plen else plen
            struct.pack_into(fmt, out, pos, new_end, nprops, new_plen)
            walk(pos + head + new_plen, new_end, shift_from)
            pos = new_end
    start = 27   # after the 23-byte magic and the 4-byte version
    walk(start, len(out), at)
    return bytes(out)


# ----------------------------------------------------------------------------- the corpus

def test_truncated(tmp_path, fbx):
    """Each encoding cut at 21 places: clean outcomes; every binary file cut inside its node
    records refused (cut in its footer, it may load; an ASCII file cut between whole nodes
    is a smaller document)."""
    from fbx_transcode import parse
    paths, body = [], {}
    for src in fbx.values():
        data = src.read_bytes()
        end = len(data) - len(parse(data)[2]) if data[:4] == b"Kayd" else 0
        for k, cut in enumerate(sorted({0, 1, 10, 23, 27, 100, *random.Random(1).sample(
                range(28, len(data)), 14), len(data) - 1})):
            p = tmp_path / f"{src.stem}-cut{k}.fbx"
            p.write_bytes(data[:cut])
            paths.append(p)
            body[str(p)] = cut < end
    outcomes = run_corpus(paths)
    assert_clean(outcomes)
    assert all(outcomes[p] == "FbxError" for p, inside in body.items() if inside)
    assert sum(body.values()) >= 36
    print(f"\ntruncated: {len(paths)} files, {sum(r == 'FbxError' for r in outcomes.values())} "
          "refused, the rest loaded")


@pytest.mark.parametrize("encoding", ["binary75", "binary74", "ascii"])
def test_fuzzed_bytes(tmp_path, fbx, encoding):
    src = fbx[encoding]
    data = src.read_bytes()
    rng = random.Random(src.stem)
    paths = []
    for k in range(60):
        b = bytearray(data)
        for _ in range(rng.choice((1, 4, 16, 64))):
            b[rng.randrange(27 if encoding != "ascii" else 0, len(b))] = rng.randrange(256)
        p = tmp_path / f"fuzz{k}.fbx"
        p.write_bytes(bytes(b))
        paths.append(p)
    outcomes = run_corpus(paths)
    assert_clean(outcomes)
    print(f"\nfuzzed {src.name}: {len(paths)} files, "
          f"{sum(r == 'FbxError' for r in outcomes.values())} refused, the rest loaded")


def test_huge_declared_counts(tmp_path, fbx):
    """Arrays declaring 2^31-1 elements (raw, and deflated from a few bytes), and a node
    declaring 2^32-1 properties: refused before anything that size is allocated."""
    data = fbx["binary75"].read_bytes()
    at = array_property(data, b"Vertices")
    raw = bytearray(data)
    struct.pack_into("<I", raw, at + 1, 0x7FFFFFFF)
    deflated = with_array(data, b"Vertices", True, zlib.compress(b"\0" * 64), 0x7FFFFFFF, 1)
    props = bytearray(data)
    struct.pack_into("<Q", props, 27 + 8, 2**32 - 1)
    text = re.sub(rb"Vertices: \*\d+", b"Vertices: *2147483647", fbx["ascii"].read_bytes(), count=1)
    paths = []
    for name, blob in (("raw", raw), ("deflated", deflated), ("props", props),
                       ("ascii", text)):
        p = tmp_path / f"huge-{name}.fbx"
        p.write_bytes(bytes(blob))
        paths.append(p)
    outcomes = run_corpus(paths)
    assert_clean(outcomes)
    for name in ("raw", "deflated"):
        assert outcomes[str(tmp_path / f"huge-{name}.fbx")] == "FbxError"


def test_deflate_bomb_bounded(tmp_path, fbx):
    """A 0.3 MB deflate stream of 2 GB of zeros as the vertex array: refused by ufbx's memory
    cap (the child runs under MAX_BYTES = 64 MB) without inflating it."""
    comp = zlib.compressobj(9)
    chunk = b"\0" * (1 << 24)
    stream = b"".join(comp.compress(chunk) for _ in range(128)) + comp.flush()
    data = with_array(fbx["binary75"].read_bytes(), b"Vertices", True, stream, (2 << 30) // 8, 1)
    p = tmp_path / "bomb.fbx"
    p.write_bytes(data)
    assert p.stat().st_size < 4 << 20
    assert run_corpus([p]) == {str(p): "FbxError"}


def test_memory_cap_names_the_limit(fbx):
    import skinkit
    with pytest.raises(skinkit.FbxError, match=r"Memory limit.*max_bytes=20000") as e:
        skinkit.load_fbx(fbx["binary75"], max_bytes=20000)
    assert str(fbx["binary75"]) in str(e.value)


def test_bad_indices(tmp_path, fbx):
    """A polygon vertex index, a skin cluster index and a UV index out of range: refused (ufbx
    runs with index_error_handling ABORT_LOADING, and fbx_read.c checks cluster indices, which
    ufbx would skip: no clamped or dropped index making a wrong mesh)."""
    text = fbx["ascii"].read_bytes()
    cases = {
        "polygon": re.sub(rb"(PolygonVertexIndex: \*\d+ \{\s*a: )\d+", rb"\g<1>99999", text,
                          count=1),
        "cluster": re.sub(rb'("Cluster" \{[^}]*?Indexes: \*\d+ \{\s*a: )\d+', rb"\g<1>99999",
                          text, count=1),
        "uv": re.sub(rb"(UVIndex: \*\d+ \{\s*a: )\d+", rb"\g<1>99999", text, count=1),
    }
    paths = []
    for name, blob in cases.items():
        assert blob != text, name
        p = tmp_path / f"index-{name}.fbx"
        p.write_bytes(blob)
        paths.append(p)
    outcomes = run_corpus(paths)
    assert_clean(outcomes)
    assert all(r == "FbxError" for r in outcomes.values()), outcomes


def test_cyclic_and_deep_hierarchies(tmp_path, fbx):
    """A bone made the child of its own descendant; a node parented to itself; ASCII nesting
    100,000 deep: clean outcomes, the loaded ones with an acyclic skeleton."""
    text = fbx["ascii"].read_text()
    ids = dict((m.group(2), m.group(1)) for m in
               re.finditer(r'Model: (\d+), "Model::(\w+)", "LimbNode"', text))
    assert {"Root", "Tip"} <= set(ids)
    conn = "Connections:  {\n"
    cycle = text.replace(conn, conn + f'\tC: "OO",{ids["Root"]},{ids["Tip"]}\n', 1)
    self_loop = text.replace(conn, conn + f'\tC: "OO",{ids["Root"]},{ids["Root"]}\n', 1)
    assert cycle != text and self_loop != text
    deep = "; FBX 7.5.0 project file\n" + "A: {\n" * 100_000 + "}\n" * 100_000
    paths = []
    for name, blob in (("cycle", cycle), ("self", self_loop), ("deep", deep)):
        p = tmp_path / f"{name}.fbx"
        p.write_text(blob)
        paths.append(p)
    assert_clean(run_corpus(paths))


def test_not_fbx(tmp_path, blender_files):
    """Empty, header only, header and noise, a GLB and a BVH given to load_fbx."""
    cases = {
        "empty": b"",
        "header": b"Kaydara FBX Binary  \x00\x1a\x00",
        "noise": b"Kaydara FBX Binary  \x00\x1a\x00" + random.Random(3).randbytes(4000),
        "glb": (blender_files / "rig.glb").read_bytes(),
        "bvh": b"HIERARCHY\nROOT a\n{\n}\n",
    }
    paths = []
    for name, blob in cases.items():
        p = tmp_path / f"{name}.fbx"
        p.write_bytes(blob)
        paths.append(p)
    outcomes = run_corpus(paths)
    assert all(r == "FbxError" for r in outcomes.values()), outcomes


def test_nodes_beyond_the_limit(monkeypatch, fbx):
    """The node cap (lowered to 2: the fixture has more) refuses the file, naming it."""
    import skinkit
    from skinkit import limits
    monkeypatch.setattr(limits, "MAX_NODES", 2)
    path = fbx["binary74"]
    with pytest.raises(skinkit.FbxError, match=rf"^{re.escape(str(path))}: \d+ nodes, more "
                                               r"than the limit of 2 \(skinkit.limits.MAX_NODES"):
        skinkit.load_fbx(path)


@pytest.mark.parametrize("limit", [0, 1])
def test_blend_shapes_beyond_the_limit(monkeypatch, fbx, limit):
    """The blend-shape cap (skinkit.limits.MAX_MORPH_TARGETS, as glTF's morph targets are held
    to; lowered to 0: the rig's tube has one shape key, "Bulge") refuses the file before its
    arrays are allocated, naming the file, the mesh node, the count and the limit; at 1 it
    loads, with the one target."""
    import skinkit
    from skinkit import limits
    monkeypatch.setattr(limits, "MAX_MORPH_TARGETS", limit)
    for path in fbx.values():
        if limit == 0:
            with pytest.raises(skinkit.FbxError, match=rf"^{re.escape(str(path))}: mesh node "
                               r"'\w+': 1 blend shapes \(in-between shapes included\), more than "
                               r"the limit of 0 \(skinkit.limits.MAX_MORPH_TARGETS\)"):
                skinkit.load_fbx(path)
        else:
            model = skinkit.load_fbx(path)
            assert [len(p.target_names or ()) for p in model.primitives if p.target_names] == [1]
