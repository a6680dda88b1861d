"""Fuzz skinkit.load_gltf (atheris / libFuzzer).

    python fuzz/fuzz_gltf.py [libFuzzer flags] [CORPUS_DIR ...]    e.g. -max_total_time=300
    python fuzz/run.py --minutes 5                                 (seeds, corpus, both harnesses)

The first byte of an input picks how the rest is used:
  0x00-0x5f  the rest is a .glb file
  0x60-0x9f  the rest is a .gltf JSON file (beside it: buf.bin, and a symlink leaving the folder)
  0xa0-0xff  structured: edits decoded from the rest are applied to the JSON (and bytes) of a
             valid model (fuzz/seed_model.py), which is then loaded as .glb or .gltf; this
             reaches deep into the validation that raw byte mutations rarely get past.
Loading must give a Model, or raise skinkit.GltfError (a ValueError) whose message starts with the
file and a JSON path; any other exception, a crash, or a hang is a bug.  After a successful load
the model is posed at two times, which must work as well.
"""
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import atheris
import numpy as np

with atheris.instrument_imports(include=["skinkit"]):
    import skinkit
    from skinkit.io.gltf import GltfError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_model  # noqa: E402
from random_inputs import fuzz_main  # noqa: E402

BASE_DOC, BASE_BIN = seed_model.model()
TMP = Path(tempfile.mkdtemp(prefix="skinkit-fuzz-gltf-",
                            dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
FOLDER = TMP / "model"
FOLDER.mkdir()
(FOLDER / "buf.bin").write_bytes(BASE_BIN)
(TMP / "outside.bin").write_bytes(BASE_BIN)
os.symlink(TMP / "outside.bin", FOLDER / "link.bin")
# a GltfError message starts with the file, then a JSON path ($, GLB header..., name[3].key...)
PATH_RE = re.compile(r"(\$|GLB |[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?[.:\[ ])")

INTERESTING_INTS = [0, 1, 2, 3, 4, 5, -1, 7, 8, 12, 16, 28, 255, 256, 5120, 5121, 5122, 5123,
                    5125, 5126, 2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**53, 2**63, -2**31, 10**30]
INTERESTING_STRINGS = ["", "VEC3", "VEC4", "MAT4", "SCALAR", "MAT2", "MAT3", "VEC2", "rotation",
                       "translation", "scale", "weights", "LINEAR", "STEP", "CUBICSPLINE",
                       "buf.bin", "../outside.bin", "link.bin", "/etc/passwd", "http://x/y",
                       "file:///etc/passwd", "data:application/octet-stream;base64,AAAA",
                       "data:,x", "2.0", "1.0", "3.0", "KHR_mesh_quantization",
                       "KHR_draco_mesh_compression", "\udcff", "C:\\x.bin", "buf%2ebin",
                       "nul\x00.bin", "POSITION", "JOINTS_0", "WEIGHTS_0", "JOINTS_1"]


def pick_path(fdp, doc):
    """A random (container, key) inside doc, walking down a random number of levels."""
    parent, key, node = None, None, doc
    for _ in range(fdp.ConsumeIntInRange(1, 7)):
        if isinstance(node, dict) and node:
            keys = sorted(node)
            k = keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]
        elif isinstance(node, list) and node:
            k = fdp.ConsumeIntInRange(0, len(node) - 1)
        else:
            break
        parent, key, node = node, k, node[k]
    return parent, key


def new_value(fdp, doc):
    choice = fdp.ConsumeIntInRange(0, 12)
    if choice == 0:
        return INTERESTING_INTS[fdp.ConsumeIntInRange(0, len(INTERESTING_INTS) - 1)]
    if choice == 1:
        return fdp.ConsumeIntInRange(-3, 40)
    if choice == 2:
        return fdp.ConsumeFloat()                      # includes NaN, inf, -0.0, huge
    if choice == 3:
        return INTERESTING_STRINGS[fdp.ConsumeIntInRange(0, len(INTERESTING_STRINGS) - 1)]
    if choice == 4:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if choice == 5:
        return [fdp.ConsumeIntInRange(-2, 6) for _ in range(fdp.ConsumeIntInRange(0, 5))]
    if choice == 6:
        return [fdp.ConsumeFloat() for _ in range(fdp.ConsumeIntInRange(0, 17))]
    if choice == 7:
        return None
    if choice == 8:
        return fdp.ConsumeBool()
    if choice == 9:
        return {}
    if choice == 10:
        return []
    if choice == 11:                                   # a copy of another part of the document
        parent, key = pick_path(fdp, doc)
        return json.loads(json.dumps(parent[key])) if parent is not None else {}
    return [[0, 0, 0, 1]] * fdp.ConsumeIntInRange(0, 3)


def structured(fdp):
    doc = json.loads(json.dumps(BASE_DOC))
    data = bytearray(BASE_BIN)
    for _ in range(fdp.ConsumeIntInRange(1, 5)):
        op = fdp.ConsumeIntInRange(0, 9)
        if op <= 6:                                    # replace a value
            parent, key = pick_path(fdp, doc)
            if parent is not None:
                parent[key] = new_value(fdp, doc)
        elif op == 7:                                  # delete a key or a list item
            parent, key = pick_path(fdp, doc)
            if parent is not None:
                del parent[key]
        elif op == 8:                                  # add a key to some object
            parent, key = pick_path(fdp, doc)
            target = parent[key] if parent is not None else doc
            if isinstance(target, dict):
                name = ["sparse", "byteStride", "byteOffset", "matrix", "children", "uri",
                        "normalized", "skin", "mesh", "extensionsRequired", "indices", "targets",
                        "inverseBindMatrices", "interpolation", "count", "bufferView"]
                target[name[fdp.ConsumeIntInRange(0, len(name) - 1)]] = new_value(fdp, doc)
            elif isinstance(target, list):
                target.append(new_value(fdp, doc))
        elif data:                                     # overwrite some buffer bytes
            at = fdp.ConsumeIntInRange(0, len(data) - 1)
            chunk = fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 8))
            data[at:at + len(chunk)] = chunk
    as_glb = fdp.ConsumeBool()
    try:
        text = json.dumps(doc, allow_nan=True)
    except (ValueError, TypeError, RecursionError):
        return None
    if as_glb:
        return "m.glb", seed_model.glb(text.encode("utf-8", "surrogatepass"), bytes(data))
    if "buffers" in doc and isinstance(doc["buffers"], list) and doc["buffers"] \
            and isinstance(doc["buffers"][0], dict) and "uri" not in doc["buffers"][0]:
        doc["buffers"][0]["uri"] = "buf.bin"
        (FOLDER / "buf.bin").write_bytes(bytes(data))
        text = json.dumps(doc, allow_nan=True)
    return "m.gltf", text.encode("utf-8", "surrogatepass")


def TestOneInput(data: bytes):
    if not data:
        return
    mode = data[0]
    if mode < 0x60:
        name, body = "m.glb", data[1:]
    elif mode < 0xA0:
        name, body = "m.gltf", data[1:]
    else:
        made = structured(atheris.FuzzedDataProvider(data[1:]))
        if made is None:
            return
        name, body = made
    path = FOLDER / name
    path.write_bytes(body)
    try:
        model = skinkit.load_gltf(path, dtype=[np.float64, np.float32][mode & 1])
    except GltfError as e:
        file = f"{path}: "
        if not str(e).startswith(file) or not PATH_RE.match(str(e), len(file)):
            raise AssertionError(f"GltfError without the file and a JSON path: {e!r}") from None
        return
    finally:
        if (FOLDER / "buf.bin").stat().st_size != len(BASE_BIN) or mode >= 0xA0:
            (FOLDER / "buf.bin").write_bytes(BASE_BIN)
    # a model that loads must pose (rest pose without clips), normals included
    if model.clips:
        model.pose(clip=0, times=[0.0, model.clips[0].duration * 0.37], normals=True)
    else:
        model.pose(normals=True)


def main(argv=None):
    return fuzz_main(sys.argv if argv is None else argv, TestOneInput)


if __name__ == "__main__":
    main()
