"""A glTF 2.0 document built in code (JSON plus one binary buffer), for the loader's tests and
the fuzzers' seed model (fuzz/seed_model.py)."""
import base64
import copy
import json
import struct

import numpy as np

DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}


def pack_glb(doc, bin_bytes):
    """A GLB container: ``doc`` (a dict, or JSON bytes as they are) and an optional BIN chunk."""
    js = json.dumps(doc).encode() if isinstance(doc, dict) else doc
    js += b" " * (-len(js) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js
    if bin_bytes is not None:
        b = bytes(bin_bytes) + b"\0" * (-len(bin_bytes) % 4)
        body += struct.pack("<II", len(b), 0x004E4942) + b
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


class Doc:
    """A glTF document under construction: the JSON and one binary buffer."""

    def __init__(self):
        self.json = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": 0}],
                     "bufferViews": [], "accessors": []}
        self.bin = bytearray()

    def view(self, data, stride=None):
        self.bin += b"\0" * (-len(self.bin) % 4)
        view = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            view["byteStride"] = stride
        self.bin += data
        self.json["buffers"][0]["byteLength"] = len(self.bin)
        self.json["bufferViews"].append(view)
        return len(self.json["bufferViews"]) - 1

    def accessor(self, ctype, kind, count, view=None, **fields):
        accessor = {"componentType": ctype, "type": kind, "count": count, **fields}
        if view is not None:
            accessor["bufferView"] = view
        self.json["accessors"].append(accessor)
        return len(self.json["accessors"]) - 1

    def add(self, values, ctype, kind, **fields):
        """An accessor over ``values`` packed tightly in a new buffer view."""
        a = np.asarray(values, dtype=DTYPES[ctype])
        return self.accessor(ctype, kind, len(a), self.view(a.tobytes()), **fields)

    def sparse(self, indices, ctype, values, values_ctype):
        return {"count": len(indices),
                "indices": {"bufferView": self.view(np.asarray(indices, DTYPES[ctype]).tobytes()),
                            "componentType": ctype},
                "values": {"bufferView": self.view(
                    np.asarray(values, DTYPES[values_ctype]).tobytes())}}

    def glb(self, doc=None):
        return pack_glb(self.json if doc is None else doc, self.bin)

    def data_uri(self):
        return "data:application/octet-stream;base64," + base64.b64encode(self.bin).decode()

    def write(self, path, uri=None):
        """Write a .glb, or a .gltf whose buffer has ``uri`` (default: a data: URI)."""
        if path.suffix == ".glb":
            path.write_bytes(self.glb())
        else:
            doc = copy.deepcopy(self.json)
            doc["buffers"][0]["uri"] = uri or self.data_uri()
            path.write_text(json.dumps(doc))
        return path


def put(obj, **fields):
    """Set ``fields`` of a JSON object (for the one-line edits of the hostile file tables)."""
    obj.update(fields)


def edited(make_doc, change, name="m.glb"):
    """``build(tmp_path)``: write ``make_doc()`` changed by ``change(doc)`` as ``tmp_path/name``
    and return its path (a row of a hostile file table)."""
    def build(tmp_path):
        d = make_doc()
        change(d)
        return d.write(tmp_path / name)
    return build
