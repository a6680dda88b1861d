"""``skinkit info MODEL``: the skeleton, skins, meshes and clips of a model (body models: ``cli/body.py``)."""
from __future__ import annotations

import argparse
from typing import Dict, List

import numpy as np

from ..model.model import Model

from ..model.records import Primitive
from .body import BODY_SUFFIXES, info_body
from .common import MODEL_ARGS, load, plural

SUMMARY = "describe a model"
DESCRIPTION = "Print the skeleton, skins, meshes and clips."
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


def run(args: argparse.Namespace) -> int:
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
