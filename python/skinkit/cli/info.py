"""``skinkit info MODEL``: the skeleton, skins, meshes and clips of a model (body models:
``cli/body.py``), an AMASS motion's layout and frames, a compressed clip's tracks, a baked
store's frames and sequences."""
from __future__ import annotations

import argparse
import os
from typing import Dict, List

import numpy as np

from ..io.amass import load_amass
from ..model.model import Model

from ..model.records import Primitive
from .body import BODY_SUFFIXES, info_body
from .common import MODEL_ARGS, CliError, is_amass, load, plural

SUMMARY = "describe a model, a body model, a motion, a compressed clip or a baked store"
DESCRIPTION = ("Print the skeleton, skins, meshes and clips of a model; the sizes and joints of "
               "a body model; the layout, frames and rate of an AMASS motion; the tracks of a "
               "compressed clip (.skc); the frames, sequences and arrays of a baked .zarr "
               "store.")
ARGS = MODEL_ARGS


def mesh_lines(model: Model) -> List[str]:
    """``skinkit info``'s mesh section: each mesh, its instances (skinned or rigid), vertex counts,
    morph target names and the clips that animate their weights."""
    meshes: Dict[int, List[Primitive]] = {}
    for prim in model.primitives:
        meshes.setdefault(prim.mesh, []).append(prim)
    out = [f"meshes: {len(meshes)} ({plural(len(model.primitives), 'primitive instance')}, "
           f"{sum(p.skinned for p in model.primitives)} skinned)"]
    for m, prims in meshes.items():
        first = prims[0]
        nodes = list(dict.fromkeys(p.node for p in prims))
        line = (f"  mesh {m}: {plural(len(nodes), 'instance')} (node{'s' * (len(nodes) != 1)} "
                f"{', '.join(map(str, nodes))})")
        if first.target_count:
            names = first.target_names or [str(i) for i in range(first.target_count)]
            animated = [c.name if c.name is not None else str(i)
                        for i, c in enumerate(model.clips) if set(c.weights_nodes) & set(nodes)]
            line += (f", {plural(first.target_count, 'morph target')} ({', '.join(names)}), "
                     f"weights animated by {', '.join(animated) if animated else 'no clip'}")
        out.append(line)
        for prim in prims:
            k = prim.joints.shape[1] if prim.skinned and prim.joints is not None else 0
            how = (f"skinned (skin {prim.skin}, {plural(k, 'influence')} per vertex"
                   f"{', ' + prim.skinning if prim.skinning else ''})" if prim.skinned else "rigid")
            extra = "" if prim.normals is not None else ", no normals"
            out.append(f"    {prim.key}: node {prim.node}, primitive {prim.index}, {how}, "
                       f"{len(prim.positions)} vertices{extra}")
    return out


def motion_lines(path: str) -> List[str]:
    """``skinkit info MOTION.npz``: an AMASS motion's layout, gender, frames, rate, duration
    and the widths of its arrays."""
    try:
        m = load_amass(path)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    return [f"motion: {path}", f"type: AMASS {m.model_type} ({m.poses.shape[1]} joints)",
            f"gender: {m.gender}", f"frames: {len(m.poses)} at {m.fps:g} fps "
            f"({(len(m.poses) - 1) / m.fps:g} s)", f"betas: {len(m.betas)}",
            f"expression: {0 if m.expression is None else m.expression.shape[1]}"]


def compressed_lines(path: str) -> List[str]:
    """``skinkit info CLIP.skc``: a compressed clip's name, dtype, duration, nodes, container
    bytes and its tracks by level."""
    from ..io.skc import load_compressed
    from ..model.compressed_clip import level_name
    try:
        cc = load_compressed(path)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    levels: Dict[int, int] = {}
    for t in cc.tracks:
        levels[t.level] = levels.get(t.level, 0) + 1
    return [f"compressed clip: {path}", f"name: {cc.name if cc.name is not None else '-'}",
            f"dtype: {cc.dtype}", f"duration: {cc.duration:g} s",
            f"nodes: {cc.node_count}", f"bytes: {os.path.getsize(path)}",
            f"tracks: {len(cc.tracks)}"] + [f"  {level_name(k)}: {n}"
                                            for k, n in sorted(levels.items())]


def store_lines(path: str) -> List[str]:
    """``skinkit info STORE.zarr``: a baked store (checked as ``skinkit.dataset.open`` checks
    it): frames, chunks, sequences by status, arrays and the bake's arguments."""
    from ..dataset import open as open_store
    try:
        s = open_store(path)
    except ValueError as exc:          # StoreError
        raise CliError(str(exc)) from exc
    from ..dataset.motion_store import MotionStore
    if isinstance(s, MotionStore):    # no frame arrays: the body models that pose them
        arrays = {f"body model {m}": b.v_template for m, b in enumerate(s.models)}
    else:
        arrays = ({f"vertices/{k}": v for k, v in s.vertices.items()}
                  if isinstance(s.vertices, dict) else {"vertices": s.vertices})
        arrays.update(joints=s.joints, frame_time=s.frame_time)
    status = s.sequences["status"].tolist()
    counts = ", ".join(f"{status.count(k)} {k}" for k in ("done", "pending", "failed"))
    args = s.attributes.get("arguments", {})
    out = [f"store: {path}", f"skinkit version: {s.attributes.get('version')}",
           f"frames: {len(s)} in chunks of {args.get('frames_per_chunk')} ({args.get('dtype')}, "
           f"{args.get('compression')})", f"sequences: {len(status)} ({counts})"]
    out += [f"  {name}: {tuple(a.shape)} {a.dtype}" for name, a in arrays.items()]
    out += [f"  {k}: {v!r:.200}" for k, v in sorted(args.items())
            if k not in ("motions", "characters")]
    return out


def run(args: argparse.Namespace) -> int:
    if args.model is not None and os.path.isdir(args.model):
        print("\n".join(store_lines(args.model)))
        return 0
    if args.model is not None and args.model.lower().endswith(".skc"):
        print("\n".join(compressed_lines(args.model)))
        return 0
    if args.model is not None and is_amass(args.model):
        print("\n".join(motion_lines(args.model)))
        return 0
    if args.model is not None and args.model.lower().endswith(BODY_SUFFIXES):
        return info_body(args)
    model, label = load(args.model, np.float64, args.scene)
    sk = model.skeleton
    out = []
    out.append(f"model: {label}" + (f" ({model.name})" if model.name and model.name != label
                                     else ""))
    out.append(f"skeleton: {sk.count} nodes")
    out.append(f"  {'index':>5}  {'parent':>6}  name")
    for idx in range(sk.count):
        name = sk.names[idx] if sk.names is not None and idx < len(sk.names) else None
        out.append(f"  {idx:>5}  {int(sk.parents[idx]):>6}  {name if name is not None else '-'}")
    out.append(f"skins: {len(model.skins)}")
    for idx, skin in enumerate(model.skins):
        root = "" if skin.skeleton is None else f", skeleton node {skin.skeleton}"
        out.append(f"  {idx}: {skin.name if skin.name is not None else '-'}: "
                   f"{plural(len(skin.joints), 'joint')}{root}")
    out.extend(mesh_lines(model))
    out.append(f"clips: {len(model.clips)}")
    for idx, clip in enumerate(model.clips):
        unsupported = (f", unsupported: {'; '.join(clip.unsupported)}" if clip.unsupported
                       else "")
        out.append(f"  {idx}: {clip.name if clip.name is not None else '-'}: "
                   f"{clip.duration:g} s, {plural(len(clip.channels), 'channel')}, "
                   f"{'/'.join(clip.interpolations) or '-'}{unsupported}")
    print("\n".join(out))
    return 0
