"""``skinkit retarget SOURCE TARGET --clip X --out OUT.glb``: a clip of a BVH or glTF source
retargeted onto a glTF target (``skinkit.retarget``), optionally with the feet locked, written
as an animated glTF (or a BVH); and ``skinkit pose ... --out X.glb --animated``, the model with
its clip written as an animated file (the command's rows in cli.py)."""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

RETARGET_DESCRIPTION = (
    "Retarget a clip of SOURCE (a .bvh, .glb or .gltf file) onto the skeleton of TARGET (a .glb "
    "or .gltf file): joints matched by name (SMPL/SMPL+H/SMPL-X, Mixamo, MotionBuilder, CMU and "
    "LaFAN1 names are recognised), rotations moved in world space relative to each skeleton's "
    "rest pose, the root's motion scaled by the ratio of hip heights (or leg lengths).  Writes "
    "TARGET with the new clip as an animated .glb/.gltf, or the skeleton and motion as a .bvh "
    "(written atomically).")
RETARGET_ARGS: List[Tuple[str, Dict[str, Any]]] = [
    ("source", dict(metavar="SOURCE", help="the motion: a .bvh, .glb or .gltf file")),
    ("target", dict(metavar="TARGET", help="the character: a .glb or .gltf file")),
    ("--clip", dict(metavar="NAME|INDEX", help="clip of SOURCE (default: the first)")),
    ("--out", dict(required=True, metavar="OUT.glb|OUT.gltf|OUT.bvh", help="output file")),
    ("--root-scale", dict(default="hips", metavar="hips|legs|FACTOR",
                          help="scale of the root's motion: ratio of hip heights (default), of "
                               "leg lengths, or a number")),
    ("--lock-feet", dict(action="store_true", help="pin the feet during their contacts with "
                                                    "two-bone IK")),
    ("--quiet", dict(action="store_true", help="no summary line")),
]
ANIMATED_ARG = ("--animated", dict(action="store_true",
                                   help="with --out FILE.glb/.gltf: write the model with its clip "
                                        "as an animated file instead of one posed frame"))
OUT_SUFFIXES = (".glb", ".gltf", ".bvh")


def cmd_retarget(args: argparse.Namespace) -> int:
    from . import retarget, write_bvh, write_gltf
    from .cli import CliError, _load, _plural, clip_key
    from .footlock import lock_feet

    start = time.perf_counter()
    suffix = Path(args.out).suffix.lower()
    if suffix not in OUT_SUFFIXES:
        args.parser.error(f"--out {args.out}: expected a {', '.join(OUT_SUFFIXES)} file")
    if Path(args.target).suffix.lower() not in (".glb", ".gltf"):
        args.parser.error(f"TARGET {args.target}: expected a .glb or .gltf character")
    try:
        scale = float(args.root_scale) if args.root_scale not in ("hips", "legs") \
            else args.root_scale
    except ValueError:
        args.parser.error(f"--root-scale: expected hips, legs or a number, got {args.root_scale!r}")
    source, src_label = _load(args.source, np.float64)
    target, dst_label = _load(args.target, np.float64)
    if not source.clips:
        raise CliError(f"{args.source}: no clip to retarget")
    try:
        clip = source.clips[0] if args.clip is None else source.clip(clip_key(source, args.clip))
        out = retarget(source, target, clip, root_scale=scale)
        if args.lock_feet:
            out, _ = lock_feet(target, out)
    except ValueError as exc:
        raise CliError(f"{src_label} -> {dst_label}: {exc}") from exc
    if suffix == ".bvh":
        write_bvh(target, out, args.out)
    else:
        write_gltf(target, args.out, clips=[out])
    if not args.quiet:
        mapped = len({ch.node for ch in out.channels if ch.path == "rotation"})
        print(f"{args.out}: {dst_label} playing {src_label}'s clip "
              f"{clip.name if clip.name is not None else 0!r} ({out.duration:g} s, "
              f"{_plural(mapped, 'mapped joint')}) in {time.perf_counter() - start:.2f} s")
    return 0


def pose_animated(args: argparse.Namespace) -> int:
    """``pose MODEL --out X.glb --animated``: the model with its clip (``--clip``, default the
    first; ``--rest``: none) as an animated glTF, written atomically."""
    from .cli import CliError, _load, clip_key
    from .export import check_output_path
    from .io.gltf.write import write_gltf

    if Path(args.out).suffix.lower() not in (".glb", ".gltf"):
        args.parser.error(f"--animated writes a .glb or .gltf file, got --out {args.out}")
    if args.times is not None or args.fps is not None or args.params is not None:
        args.parser.error("--animated writes the clip as it is keyed: no --times, --fps or "
                          "--params")
    check_output_path(args.out)
    model, label = _load(args.model, np.dtype(args.dtype), args.scene)
    try:
        clips = [] if args.rest or not model.clips else \
            [model.clip(0 if args.clip is None else clip_key(model, args.clip))]
    except ValueError as exc:
        raise CliError(f"{label}: {exc}") from exc
    write_gltf(model, args.out, clips=clips)
    if not args.quiet:
        print(f"{args.out}: {label} with {len(clips)} clip{'s' * (len(clips) != 1)}")
    return 0
