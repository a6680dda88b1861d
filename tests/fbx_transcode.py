"""The same FBX document in the other encodings ufbx reads: Blender writes binary FBX 7.4 only
(32-bit node offsets), so the tests make from its files binary FBX 7.5 (64-bit node offsets, as
the FBX SDK writes from 2016 on) and ASCII FBX, node for node and value for value.

The layouts (as Blender's io_scene_fbx/encode_bin.py and parse_fbx.py read and write them):
binary is a 27-byte header (magic, 0x1a 0x00, uint32 version), then node records -- end offset,
property count, property bytes (uint32 each before 7.5, uint64 from 7.5), name length (uint8),
name, properties, children ended by an all-zero record -- ended by an all-zero record, then a
footer.  A property is a type code and its value: ``Y C I F D L`` (int16, bool byte, int32,
float32, float64, int64), ``S R`` (uint32 length, bytes), arrays ``f d l i b`` (uint32 count,
encoding, byte length; zlib-deflated where encoding is 1).  ASCII writes a node as
``Name: value, value {`` children ``}``, an array as ``*count { a: v,v,... }``, and a binary
``name\\x00\\x01class`` string as ``"class::name"``.
"""
import struct
import zlib

MAGIC = b"Kaydara FBX Binary  \x00\x1a\x00"
_SCALARS = {b"Y": "<h", b"C": "<B", b"I": "<i", b"F": "<f", b"D": "<d", b"L": "<q"}
_ARRAYS = {b"f": "f", b"d": "d", b"l": "q", b"i": "i", b"b": "B"}


def parse(data: bytes):
    """(version, nodes, footer): nodes are (name, [(type, value or raw bytes)], children,
    ended) with ``ended``: the record had a child list (ended by a zero record)."""
    assert data[:len(MAGIC)] == MAGIC, "not a binary FBX file"
    version = struct.unpack_from("<I", data, 23)[0]
    wide = version >= 7500
    fmt, size = ("<QQQ", 24) if wide else ("<III", 12)

    def props(at, count):
        out = []
        for _ in range(count):
            t = data[at:at + 1]
            at += 1
            if t in _SCALARS:
                n = struct.calcsize(_SCALARS[t])
                out.append((t, struct.unpack_from(_SCALARS[t], data, at)[0]))
            elif t in (b"S", b"R"):
                n = 4 + struct.unpack_from("<I", data, at)[0]
                out.append((t, data[at + 4:at + n]))
            else:
                length, encoding, nbytes = struct.unpack_from("<III", data, at)
                raw = data[at + 12:at + 12 + nbytes]
                raw = zlib.decompress(raw) if encoding else raw
                out.append((t, list(struct.unpack(f"<{length}{_ARRAYS[t]}", raw))))
                n = 12 + nbytes
            at += n
        return out

    def nodes(at, stop):
        out = []
        while at < stop:
            end, count, plen = struct.unpack_from(fmt, data, at)
            if end == 0:
                return out, at + size + 1
            name = data[at + size + 1:at + size + 1 + data[at + size]].decode()
            start = at + size + 1 + len(name)
            children, ended = [], end > start + plen
            if ended:
                children, _ = nodes(start + plen, end)
            out.append((name, props(start, count), children, ended))
            at = end
        return out, at

    top, at = nodes(27, len(data))
    return version, top, data[at:]


def to_binary(doc, version: int = 7500) -> bytes:
    """``parse``'s document as binary FBX ``version`` (the arrays deflated, as Blender does)."""
    _, top, footer = doc
    wide = version >= 7500
    fmt, zero = ("<QQQ", bytes(25)) if wide else ("<III", bytes(13))

    def prop(t, v):
        if t in _SCALARS:
            return t + struct.pack(_SCALARS[t], v)
        if t in (b"S", b"R"):
            return t + struct.pack("<I", len(v)) + v
        raw = zlib.compress(struct.pack(f"<{len(v)}{_ARRAYS[t]}", *v))
        return t + struct.pack("<III", len(v), 1, len(raw)) + raw

    def record(node, at):
        name, values, children, ended = node
        body = b"".join(prop(t, v) for t, v in values)
        head = struct.calcsize(fmt) + 1 + len(name)
        inner = b""
        for child in children:
            inner += record(child, at + head + len(body) + len(inner))
        if ended:
            inner += zero
        end = at + head + len(body) + len(inner)
        return (struct.pack(fmt, end, len(values), len(body)) + bytes([len(name)])
                + name.encode() + body + inner)

    out = MAGIC + struct.pack("<I", version)
    for node in top:
        out += record(node, len(out))
    return out + zero + footer


def to_ascii(doc) -> str:
    """``parse``'s document as ASCII FBX (floats written with 17 significant digits)."""
    version, top, _ = doc
    lines = [f"; FBX {version // 1000}.{version % 1000 // 100}.0 project file", ""]

    def value(t, v):
        if t == b"S":
            parts = v.split(b"\x00\x01")
            text = "::".join(p.decode() for p in reversed(parts))
            return '"' + text.replace('"', "&quot;") + '"'
        if t == b"R":
            return '"' + v.hex() + '"' if v else '""'
        if t in (b"F", b"D"):
            return repr(float(v))
        return str(int(v))

    def write(node, depth):
        name, values, children, _ = node
        pad = "\t" * depth
        arrays = [(t, v) for t, v in values if t in _ARRAYS]
        if arrays:
            (t, v), = arrays
            items = ",".join(repr(float(x)) if t in (b"f", b"d") else str(int(x)) for x in v)
            lines.extend([f"{pad}{name}: *{len(v)} {{", f"{pad}\ta: {items}", f"{pad}}}"])
            return
        text = ", ".join(value(t, v) for t, v in values)
        if children or not values:
            lines.append(f"{pad}{name}: {text} {{")
            for child in children:
                write(child, depth + 1)
            lines.append(f"{pad}}}")
        else:
            lines.append(f"{pad}{name}: {text}")

    for node in top:
        write(node, 0)
    return "\n".join(lines) + "\n"
