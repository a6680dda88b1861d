"""KHR_draco_mesh_compression: a Draco-compressed primitive decoded by DracoPy (the optional
extra ``skinkit[draco]``) into the byte layer's accessor cache, so that model assembly reads
its attributes and indices like any other accessor.

The extension (Khronos, glTF 2.0): ``primitive.extensions.KHR_draco_mesh_compression`` names a
bufferView holding the Draco mesh and, for each compressed attribute, the Draco attribute's
unique id; the primitive's accessors keep their count, type and componentType but have no data
of their own (or an uncompressed fallback when the extension is only used, not required).
"""
from __future__ import annotations

import importlib.util

from .accessors import Accessors
from .fields import GltfError, Json, int_field, list_field, obj

DRACO = "KHR_draco_mesh_compression"


def draco_available() -> bool:
    """Whether DracoPy (the ``[draco]`` extra) is installed: without it a Draco primitive is
    read from its uncompressed fallback, when the file has one."""
    return importlib.util.find_spec("DracoPy") is not None


def decode_draco(doc: Json, prim: Json, path: str, accessors: Accessors) -> None:
    """Decode the Draco data of ``prim`` (at JSON path ``path``) into ``accessors``' cache:
    each compressed attribute's accessor and the ``indices`` accessor.

    Without DracoPy: a GltfError naming the extension and the extra when the file requires the
    extension; the uncompressed fallback accessors otherwise.
    """
    epath = f"{path}.extensions.{DRACO}"
    ext = obj(prim["extensions"][DRACO], epath)
    try:
        import DracoPy
    except ImportError:
        if DRACO in list_field(doc, "extensionsRequired", "") or not _has_fallback(prim,
                                                                                  accessors):
            raise GltfError(f"{epath}: the primitive is Draco-compressed ({DRACO}); install "
                            "the extra that decodes it: pip install 'skinkit[draco]'") from None
        return
    v = int_field(ext, "bufferView", epath, hi=len(accessors.views))
    try:
        mesh = DracoPy.decode(bytes(accessors.view_bytes(v)))
    except Exception as e:  # DracoPy raises its own and ValueError/RuntimeError kinds
        raise GltfError(f"{epath}.bufferView: bufferViews[{v}] is not a Draco mesh "
                        f"({e!s:.80})") from None
    apath = f"{path}.attributes"
    attributes = obj(prim.get("attributes"), apath)
    for name, uid in obj(ext.get("attributes"), f"{epath}.attributes").items():
        if name not in attributes:
            raise GltfError(f"{epath}.attributes.{name}: the primitive has no {name} attribute")
        found = mesh.get_attribute_by_unique_id(uid) if type(uid) is int else None
        if found is None:
            raise GltfError(f"{epath}.attributes.{name}: {uid!r:.20} is not an attribute id of "
                            "the Draco mesh")
        accessors.provide(attributes, name, apath, found["data"])
    if "indices" in prim:
        faces = getattr(mesh, "faces", None)
        if faces is None:
            raise GltfError(f"{epath}: the Draco data is a point cloud, the primitive has indices")
        accessors.provide(prim, "indices", path, faces.reshape(-1, 1))


def _has_fallback(prim: Json, accessors: Accessors) -> bool:
    """Whether the primitive's POSITION accessor has data of its own (the uncompressed fallback
    a file that only uses the extension must have), rather than zeros."""
    k = obj(prim.get("attributes"), "").get("POSITION")
    return (type(k) is int and 0 <= k < len(accessors.accessors)
            and isinstance(accessors.accessors[k], dict)
            and "bufferView" in accessors.accessors[k])
