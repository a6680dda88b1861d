"""The materials of a glTF 2.0 file, kept for writing it back (``Model.materials``): the JSON of
``materials``, ``textures`` and ``samplers`` as they are, the images with their bytes as a uint8
array (from a buffer view or a data: URI; an array so that pickling sends it out of band) or,
for a file beside the model, its path, read only by ``write_gltf`` (posing needs no pixels, and a
character's 4K textures are not read to pose it), and the extensions they use (glTF 2.0
sections 3.9 "Materials" and 3.8 "Texture Data").  An image file that is missing or cannot be
named (outside the folder, a URI scheme) is a warning on the ``skinkit`` logger, not a refusal:
the image keeps its ``uri``.  skinkit does not draw them."""
from __future__ import annotations

import base64
import binascii
import copy
import json
import logging
from typing import Any, Dict, Optional, Union

import numpy as np
from numpy.typing import NDArray

from .accessors import Accessors
from .fields import GltfError, Json, int_field, list_field, objects

_log = logging.getLogger(__name__)   # a child of "skinkit"

_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
         ".webp": "image/webp", ".ktx2": "image/ktx2"}


def read_materials(doc: Json, accessors: Accessors, source: str) -> Optional[Dict[str, Any]]:
    """``Model.materials`` of ``doc`` (the file ``source``), or None when it has no
    materials."""
    if not list_field(doc, "materials", ""):
        return None
    out = {key: copy.deepcopy(list_field(doc, key, ""))
           for key in ("materials", "textures", "samplers")}
    out["images"] = [_image(image, path, accessors, source)
                     for _, path, image in objects(doc, "images", "")]
    text = json.dumps([out[k] for k in ("materials", "textures", "samplers")])
    out["extensionsUsed"] = [e for e in list_field(doc, "extensionsUsed", "")
                             if isinstance(e, str) and f'"{e}"' in text]
    return out


def _array(data: Union[bytes, memoryview], path: str, accessors: Accessors) -> NDArray[np.uint8]:
    """A copy of an image's bytes, charged to the file's budget (many images may share one
    buffer view or file)."""
    accessors.charge(len(data), path, f"{len(data)} image bytes")
    return np.frombuffer(bytes(data), dtype=np.uint8)


def _image(image: Json, path: str, accessors: Accessors, source: str) -> Json:
    entry = {k: copy.deepcopy(v) for k, v in image.items() if k not in ("uri", "bufferView")}
    if "bufferView" in image:
        v = int_field(image, "bufferView", path, hi=len(accessors.views))
        entry["data"] = _array(accessors.view_bytes(v), path, accessors)
        return entry
    uri = image.get("uri")
    if not isinstance(uri, str):
        raise GltfError(f"{path}: an image needs a uri or a bufferView")
    if uri[:5].lower() == "data:":
        header, _, payload = uri[5:].partition(",")
        try:
            entry["data"] = _array(base64.b64decode(payload, validate=True), path, accessors)
        except (binascii.Error, ValueError) as e:
            raise GltfError(f"{path}.uri: bad base64 ({e})") from None
        entry.setdefault("mimeType", header.split(";")[0] or "image/png")
        return entry
    suffix = "." + uri.rsplit(".", 1)[-1].lower() if "." in uri else ""
    entry.setdefault("mimeType", _MIME.get(suffix, "image/png"))
    try:
        entry["file"] = str(accessors.file_path(uri, f"{path}.uri")[0])
    except GltfError as e:
        _log.warning("%s: %s; the image is not read (posing needs no pixels)", source, e)
        entry["uri"] = uri
    return entry


def image_bytes(image: Json, where: str) -> Optional[bytes]:
    """The bytes of an image of ``Model.materials``: its ``data``, or its ``file`` read now;
    None for an image whose file was not found when the model was read (it has its ``uri``).
    OSError naming ``where`` when the file cannot be read now."""
    if "data" in image:
        return bytes(np.asarray(image["data"], np.uint8).tobytes())
    if "file" not in image:
        return None
    try:
        with open(image["file"], "rb") as f:
            return f.read()
    except OSError as e:
        raise OSError(e.errno, f"{where}: the image {image['file']} cannot be read: "
                      f"{e.strerror}", image["file"]) from None
