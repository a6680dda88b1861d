"""Which format a file holds, from its first bytes (the readers' shared check; ``load_model`` in
``io/load.py`` dispatches on it).

A reader given a file of another format says what the file looks like and which function
reads it (``check_format``), instead of failing on the first bytes it cannot parse.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from ..kernels._types import PathLike

_HEAD = 4096   # ASCII FBX headers and JSON openings sit well inside this


class Format(NamedTuple):
    name: str        # "gltf", "glb", "fbx", "bvh", "npz", "pickle"
    looks_like: str  # how the message describes it
    reader: str      # the function that reads it


_FORMATS = {
    "glb": Format("glb", "a binary glTF (GLB) file ('glTF' magic)", "skinkit.load_gltf"),
    "gltf": Format("gltf", "a glTF JSON file", "skinkit.load_gltf"),
    "fbx": Format("fbx", "an FBX file", "skinkit.load_fbx"),
    "bvh": Format("bvh", "a BVH motion file ('HIERARCHY')", "skinkit.load_bvh"),
    "npz": Format("npz", "a NumPy .npz archive (zip), such as a body model or an AMASS motion",
                  "skinkit.load_body_model, or skinkit.load_amass for a motion"),
    "pickle": Format("pickle", "a Python pickle, e.g. a body model", "skinkit.load_body_model"),
    "usd": Format("usd", "a USD stage (usda, usdc or usdz)", "skinkit.load_usd"),
}
# a file of no known signature goes to the reader its suffix names (whose error says what is wrong)
_BY_SUFFIX = {".gltf": "gltf", ".glb": "glb", ".fbx": "fbx", ".bvh": "bvh", ".npz": "npz",
              ".pkl": "pickle", ".usd": "usd", ".usda": "usd", ".usdc": "usd", ".usdz": "usd"}
# what each reader reads: its formats, and how a message names them
_READS = {"gltf": (("gltf", "glb"), "glTF"), "fbx": (("fbx",), "FBX"), "bvh": (("bvh",), "BVH"),
          "body": (("npz", "pickle"), "a body model"), "amass": (("npz",), "an AMASS motion"),
          "usd": (("usd",), "USD")}


def sniff(head: bytes) -> Optional[Format]:
    """The format whose signature starts ``head`` (a file's first bytes), or None."""
    if head.startswith(b"glTF"):
        return _FORMATS["glb"]
    if head.startswith(b"Kaydara FBX Binary"):
        return _FORMATS["fbx"]
    if head.startswith(b"PXR-USDC") or head.startswith(b"#usda ") or (   # usdz: a zip whose
            head.startswith(b"PK\x03\x04") and _usdz_first(head)):          # first file is USD
        return _FORMATS["usd"]
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return _FORMATS["npz"]
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return _FORMATS["pickle"]
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"; FBX") or b"FBXHeaderExtension:" in head:
        return _FORMATS["fbx"]
    if text.startswith(b"HIERARCHY"):
        return _FORMATS["bvh"]
    if text.startswith(b"{"):
        return _FORMATS["gltf"]
    return None


def _usdz_first(head: bytes) -> bool:
    n = int.from_bytes(head[26:28], "little")
    return head[30:30 + n].lower().endswith((b".usd", b".usda", b".usdc"))


def format_of(path: PathLike) -> Optional[Format]:
    """The format of ``path`` by its first bytes (``sniff``), or None (OSError if it cannot be
    read)."""
    with open(path, "rb") as f:
        return sniff(f.read(_HEAD))


def check_format(path: PathLike, reader: str,
                 error: Callable[[str], Exception] = ValueError) -> Optional[Format]:
    """Raise ``error`` when ``path`` looks like a format that ``reader`` ("gltf", "fbx", "bvh",
    "body", "amass") does not read, naming what it looks like and the function that reads it;
    otherwise return its format (None for a file of no known signature, left to the reader)."""
    fmt = format_of(path)
    formats, noun = _READS[reader]
    if fmt is not None and fmt.name not in formats:
        raise error(f"{path}: this looks like {fmt.looks_like}, not {noun}; "
                    f"read it with {fmt.reader} (or skinkit.load_model, which picks the reader "
                    "by content)")
    return fmt
