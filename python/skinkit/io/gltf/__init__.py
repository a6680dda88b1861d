"""glTF 2.0 loader: ``.glb`` and ``.gltf`` files to a :class:`~skinkit.model.model.Model`.

Read: every node (one skeleton, joint index = node index, whatever the scenes say), every skin,
every mesh primitive instance of the chosen scene (skinned or rigid, with its morph targets) and
every animation (translation, rotation, scale and morph target weights).  Not read: materials,
textures, cameras, texture coordinates and tangents.

The reader is split by job: this module parses the container and checks the required
extensions; ``accessors`` is the byte layer (buffers, buffer views, accessors, sparse
accessors, normalized and quantized types, with its cache); ``nodes``, ``meshes`` and
``clips`` assemble the model from it, each a function of the document and the byte layer.

The file is untrusted: every index, offset and count is checked against the bytes that exist before
anything is allocated from it, and buffer URIs may only be ``data:`` base64 URIs or relative paths
that stay inside the model's folder.  Every :class:`GltfError` message starts with the file, then
the JSON path of the problem, e.g. ``fox.glb: accessors[3]: ...`` or ``fox.gltf: buffers[0].uri:
...``; problems in the GLB container name ``GLB header.<field>`` or ``GLB chunks[i].<field>``.
The parts of the reader raise with the JSON path; ``load_gltf`` puts the file in front, once.
"""
from __future__ import annotations

import json
import logging
import os
import struct
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

import numpy as np
from numpy.typing import DTypeLike

from ..formats import check_format
from .accessors import Accessors
from .clips import read_clips
from .draco import DRACO, draco_available
from .fields import GltfError, Json, list_field
from .meshes import read_primitives, target_counts
from .materials import read_materials
from .nodes import read_skeleton, read_skins, scene_nodes
from ...model.model import Model
from ...model.records import float_dtype
from ...kernels._types import PathLike

__all__ = ["GltfError", "load_gltf"]

# The container is parsed here with json + struct rather than a glTF library: those open whatever
# path a buffer URI names and check no lengths, and every file is treated as untrusted.

_CHUNK_JSON = 0x4E4F534A
_CHUNK_BIN = 0x004E4942

# Required extensions skinkit honours: KHR_mesh_quantization only widens the component types of
# attributes, which the accessor decoder handles; KHR_draco_mesh_compression is decoded by
# DracoPy (gltf_draco); the others change nothing skinkit reads.
_SUPPORTED_EXTENSION_PREFIXES = ("KHR_mesh_quantization", "KHR_draco_mesh_compression",
                                 "KHR_materials_", "KHR_texture_", "EXT_texture_",
                                 "KHR_lights_punctual")
# No PyPI package decodes EXT_meshopt_compression buffer views and is established enough to rely
# on (checked 2026-11: `meshopt` 0.1 is a first release, `meshoptimizer` 0.2.30a0 an alpha
# binding without a buffer view decoder).
_MESHOPT = "EXT_meshopt_compression"
# Skin weights farther than this from summing to 1 are reported (glTF 2.0 section 3.7.3.3: float
# weights SHOULD sum to 1 as closely as reasonably possible; normalized integers exactly).
_WEIGHT_SUM_TOL = 1e-5

_log = logging.getLogger(__name__)   # a child of "skinkit": what the reader decided


def load_gltf(path: PathLike, dtype: DTypeLike = np.float64,
              scene: Optional[int] = None) -> Model:
    """Load the skeleton, skins, mesh primitive instances and animations of a glTF 2.0 model.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.glb`` file (GLB container: 12-byte header, JSON chunk, optional BIN chunk) or a
        ``.gltf`` JSON file whose buffers are ``data:`` base64 URIs or files inside its folder.
    dtype : float32 or float64
        Precision of every float array of the result.
    scene : int, optional
        The scene whose mesh instances become ``Model.primitives``: default ``doc.scene``, else
        scene 0; every node for a file without scenes.

    Returns
    -------
    Model
        ``skeleton`` over all nodes (glTF 2.0 "Nodes and Hierarchy"; ``matrix`` nodes decomposed
        to TRS), one ``Skin`` per skin ("Skins"), one ``Primitive`` per primitive (with POSITION)
        of the mesh of every node of the scene, in node then primitive order ("Meshes"): skinned
        when the node has a skin and the primitive JOINTS_0 and WEIGHTS_0, rigid otherwise, with
        its morph targets ("Morph Targets") and default morph weights; one ``Clip`` per
        animation ("Animations"); ``name`` is the file name without its suffix; ``materials``
        the file's materials, textures and images, kept for ``write_gltf``.  Primitives that
        instance the same mesh share their arrays.  Positions and key values are in file units,
        key times in seconds; quantized attributes (KHR_mesh_quantization) are decoded to float.

    Raises
    ------
    GltfError
        The file breaks the glTF 2.0 rules skinkit relies on (container, indices, byte ranges,
        hierarchy, accessor types and counts, morph target counts, key times), requires an
        extension skinkit cannot honour (the message names it), a buffer URI leaves the
        model's folder, or the file is of another format (FBX, BVH...: the message names the
        function that reads it).  The message starts with ``<path>: <JSON path>:``.
    OSError
        The file or one of its buffer files cannot be read.
    TypeError
        ``dtype`` is not float32 or float64.

    Notes
    -----
    The ``skinkit`` logger says (INFO, one line each, naming the file) what the reader chose not
    to do: the optional extensions it ignored, and skin weights it used as stored though they
    do not sum to 1.
    """
    dtype = float_dtype(dtype)
    path = Path(path)
    # check_format's message starts with the path, as GltfError's will
    check_format(path, "gltf", lambda m: GltfError.in_file(path, m.removeprefix(f"{path}: ")))
    data = path.read_bytes()
    try:
        model, doc = _read(path, data, dtype, scene)
    except GltfError as e:  # the parts know JSON paths, not files: name the file once, here
        raise GltfError.in_file(path, str(e)) from None
    _log_decisions(path, doc, model)
    return model


def _read(path: Path, data: bytes, dtype: np.dtype[Any],
          scene: Optional[int]) -> Tuple[Model, Json]:
    """The model of the bytes ``data`` of ``path``, and its JSON document."""
    if path.suffix.lower() == ".glb" or data[:4] == b"glTF":
        doc, bin_chunk = _parse_glb(data)
    else:
        doc, bin_chunk = _parse_json(data), None
    accessors = Accessors(doc, bin_chunk, Path(os.path.abspath(path)).parent.resolve(),
                          len(data))
    skeleton = read_skeleton(doc, dtype)
    skins = read_skins(doc, accessors, dtype)
    primitives = read_primitives(doc, accessors, scene_nodes(doc, skeleton, scene), skins, dtype)
    clips = read_clips(doc, accessors, target_counts(doc), dtype)
    model = Model(skeleton, skins, primitives, clips, name=path.stem,
                  materials=read_materials(doc, accessors, os.fspath(path)))
    return model, doc


def _log_decisions(path: Path, doc: Json, model: Model) -> None:
    """Say on the "skinkit" logger (INFO) what the reader chose not to do: the optional
    extensions it ignored (neither applied nor kept in ``Model.materials`` for writing back)
    and the skin weights it used as stored though they do not sum to 1."""
    kept = set(model.materials["extensionsUsed"]) if model.materials else set()
    applied = {"KHR_mesh_quantization", DRACO} if draco_available() else {"KHR_mesh_quantization"}
    ignored = [e for e in list_field(doc, "extensionsUsed", "")
               if isinstance(e, str) and e not in applied and e not in kept]
    if ignored:
        _log.info("%s: optional glTF extensions ignored (the model is read without them): %s",
                  path, ", ".join(ignored))
    for prim in model.primitives:
        if prim.weights is None:
            continue
        off = np.abs(prim.weights.sum(axis=1, dtype=np.float64) - 1.0)
        bad = int(np.count_nonzero(off > _WEIGHT_SUM_TOL))
        if bad:
            _log.info("%s: meshes[%d].primitives[%d]: skin weights of %d of %d vertices do not "
                      "sum to 1 (off by up to %.3g); used as stored, not normalized", path,
                      prim.mesh, prim.index, bad, len(off), float(np.nanmax(off)))


def _parse_glb(data: bytes) -> Tuple[Json, Optional[memoryview]]:
    """Split a GLB file into its JSON document and its BIN chunk (a memoryview, or None)."""
    if len(data) < 12:
        raise GltfError(f"GLB header: the file has {len(data)} bytes, the header needs 12")
    magic, version, length = struct.unpack_from("<4sII", data)
    if magic != b"glTF":
        raise GltfError(f"GLB header.magic: {magic!r} is not b'glTF'")
    if version != 2:
        raise GltfError(f"GLB header.version: {version}, only version 2 is supported")
    if length != len(data):
        raise GltfError(f"GLB header.length: {length} bytes declared, the file has {len(data)}")
    chunks: List[Tuple[int, memoryview]] = []
    offset = 12
    while offset < length:
        where = f"GLB chunks[{len(chunks)}]"
        if length - offset < 8:
            raise GltfError(f"{where}: {length - offset} bytes left, a chunk header needs 8")
        size, kind = struct.unpack_from("<II", data, offset)
        if size > length - offset - 8:
            raise GltfError(f"{where}.chunkLength: {size} bytes, only {length - offset - 8} "
                            "bytes are left in the file")
        chunks.append((kind, memoryview(data)[offset + 8:offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _CHUNK_JSON:
        raise GltfError("GLB chunks[0].chunkType: the first chunk must be JSON")
    bin_chunk = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _CHUNK_BIN else None
    return _parse_json(chunks[0][1]), bin_chunk


def _parse_json(raw: Union[bytes, memoryview]) -> Json:
    """Parse and check the top of a glTF JSON document (an object with a 2.x ``asset.version``)."""
    try:
        doc = json.loads(bytes(raw).decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise GltfError(f"$: invalid UTF-8 JSON ({e})") from None
    if not isinstance(doc, dict):
        raise GltfError(f"$: the glTF JSON must be an object, got {type(doc).__name__}")
    asset = doc.get("asset")
    version = asset.get("version") if isinstance(asset, dict) else None
    if not isinstance(version, str) or version.split(".")[0] != "2":
        raise GltfError(f"asset.version: {version!r:.40}, expected a glTF 2.x version string")
    for i, name in enumerate(list_field(doc, "extensionsRequired", "")):
        if name == _MESHOPT:
            raise GltfError(f"extensionsRequired[{i}]: extension {_MESHOPT!r} is not supported "
                            "(no maintained decoder of its buffer views on PyPI); decompress "
                            "the file first, e.g. with glTF-Transform")
        if not isinstance(name, str) or not name.startswith(_SUPPORTED_EXTENSION_PREFIXES):
            raise GltfError(f"extensionsRequired[{i}]: extension {name!r:.60} is not supported")
    return doc


