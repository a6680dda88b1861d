"""``skinkit retarget SOURCE TARGET --clip X --out OUT.glb``: a clip of a BVH or glTF source, or
an AMASS motion on its body model (``--body``/``--body-dir``), retargeted onto a glTF target
(``skinkit.retarget``), optionally with the feet locked, written as an animated glTF (or a
BVH); and ``skinkit pose ... --out X.glb --animated``, the model with its clip written as an
animated file (the command's rows in cli.py)."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

import numpy as np

from ..body.export import body_clip, body_model_to_model
from ..io.amass import load_amass
from ..io.bvh.write import write_bvh
from ..io.gltf.write import write_gltf
from ..io.mesh_files import check_output_path
from ..motion.footlock import lock_feet
from ..motion.retarget import retarget
from .body import motion_body_model
from .common import AMASS_POSES, CliError, clip_key, is_amass, load, plural

if TYPE_CHECKING:
    from ..model.clip import Clip
    from ..model.model import Model

SUMMARY = "retarget a clip onto another skeleton, write an animated file"
DESCRIPTION = (
    "Retarget a clip of SOURCE (a .bvh, .glb or .gltf file, or an AMASS motion .npz with its "
    "body model given by --body or --body-dir) onto the skeleton of TARGET (a .glb, .gltf or "
    ".fbx file): joints matched by name (SMPL/SMPL+H/SMPL-X, Mixamo, MotionBuilder, CMU and "
    "LaFAN1 names are recognised) or by --mapping, rotations moved in world space relative to each skeleton's rest "
    "pose, the root's motion scaled by the ratio of hip heights (or leg lengths).  Writes "
    "TARGET with the new clip as an animated .glb/.gltf, or the skeleton and motion as a .bvh "
    "(written atomically).")
_Arg = Tuple[str, Dict[str, Any]]
ARGS: List[Union[_Arg, List[_Arg]]] = [
    ("source", dict(metavar="SOURCE", help="the motion: a .bvh, .glb or .gltf file, or an AMASS "
                                           "motion .npz (SMPL+H or SMPL-X layout)")),
    ("target", dict(metavar="TARGET", help="the character: a .glb, .gltf or .fbx file")),
    ("--mapping", dict(metavar="MAPPING.json", help="joints matched by a JSON object "
                                                    "{target joint: source joint} instead of "
                                                    "by their names")),
    ("--clip", dict(metavar="NAME|INDEX", help="clip of SOURCE (default: the first)")),
    [("--body", dict(metavar="MODEL", help="with an AMASS SOURCE: its body model, a SMPL+H or "
                                           "SMPL-X .pkl/.npz, whose joints and shape (the "
                                           "motion's betas) make the source skeleton")),
     ("--body-dir", dict(metavar="DIR", help="with an AMASS SOURCE: the body model by the "
                                             "motion's type and gender in DIR laid out as "
                                             "smplx.create (DIR/smplh/SMPLH_MALE.pkl) or AMASS "
                                             "(DIR/smplh/male/model.npz)"))],
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
TARGET_SUFFIXES = (".glb", ".gltf", ".fbx")


def _mapping(path: str) -> Dict[str, str]:
    """--mapping: the JSON object of a file (CliError naming it when it is not one; its
    names are checked by ``joint_mapping``)."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        mapping = json.loads(data)
    except (OSError, ValueError) as exc:
        raise CliError(f"--mapping {path}: not a readable JSON file ({exc})") from None
    if not isinstance(mapping, dict):
        raise CliError(f"--mapping {path}: expected a JSON object {{target joint: source "
                       f"joint}}, got a {type(mapping).__name__}")
    return mapping


def run(args: argparse.Namespace) -> int:

    start = time.perf_counter()
    suffix = Path(args.out).suffix.lower()
    if suffix not in OUT_SUFFIXES:
        args.parser.error(f"--out {args.out}: expected a {', '.join(OUT_SUFFIXES)} file")
    if Path(args.target).suffix.lower() not in TARGET_SUFFIXES:
        args.parser.error(f"TARGET {args.target}: expected a {', '.join(TARGET_SUFFIXES)} "
                          "character")
    mapping = None if args.mapping is None else _mapping(args.mapping)
    try:
        scale = float(args.root_scale) if args.root_scale not in ("hips", "legs") \
            else args.root_scale
    except ValueError:
        args.parser.error(f"--root-scale: expected hips, legs or a number, got {args.root_scale!r}")
    amass = is_amass(args.source)
    body_given = args.body is not None or args.body_dir is not None
    if amass and not body_given:
        args.parser.error(f"SOURCE {args.source} is an AMASS motion, which has no skeleton of "
                          "its own: give its body model with --body MODEL or --body-dir DIR")
    if body_given and not amass:
        args.parser.error(f"--body/--body-dir give the body model of an AMASS motion; SOURCE "
                          f"{args.source} is not one")
    if not amass and Path(args.source).suffix.lower() == ".npz":
        raise CliError(f"{args.source}: not an AMASS motion (no {' or '.join(AMASS_POSES)} "
                       "array); SOURCE is a .bvh, .glb or .gltf file or an AMASS motion .npz")
    source, src_label = _amass_source(args) if amass else load(args.source, np.float64)
    target, dst_label = load(args.target, np.float64)
    if not source.clips:
        raise CliError(f"{args.source}: no clip to retarget")
    try:
        clip = source.clips[0] if args.clip is None else source.clip(clip_key(source, args.clip))
        out = retarget(source, target, clip, mapping=mapping, root_scale=scale)
        if args.lock_feet:
            out, _ = lock_feet(target, out)
    except (ValueError, TypeError) as exc:     # TypeError: a mapping of other than names
        raise CliError(f"{src_label} -> {dst_label}: {exc}") from exc
    if suffix == ".bvh":
        write_bvh(target, out, args.out, frame_time=_frame_time(out))
    else:
        write_gltf(target, args.out, clips=[out])
    if not args.quiet:
        mapped = len({ch.node for ch in out.channels if ch.path == "rotation"})
        print(f"{args.out}: {dst_label} playing {src_label}'s clip "
              f"{clip.name if clip.name is not None else 0!r} ({out.duration:g} s, "
              f"{plural(mapped, 'mapped joint')}) in {time.perf_counter() - start:.2f} s")
    return 0


def _amass_source(args: argparse.Namespace) -> Tuple[Model, str]:
    """The AMASS motion SOURCE as a Model: its body model (``--body``, or by the motion's type
    and gender in ``--body-dir``) shaped by the motion's betas, with the motion as its one clip
    (``skinkit.body.export``), named after the file."""

    motion = load_amass(args.source)
    body, path = motion_body_model(motion, args.body, args.body_dir)
    betas = motion.betas[:body.num_betas]
    model = body_model_to_model(body, betas)
    name = Path(args.source).stem
    model.clips = [body_clip(body, motion.poses, motion.transl, betas, fps=motion.fps,
                             name=name)]
    return model, f"{Path(args.source).name} ({body.kind} {Path(path).name})"


def _frame_time(clip: Clip) -> Optional[float]:
    """The BVH frame time of a clip keyed on an even grid (a BVH or AMASS source's frames), so
    that no frame is dropped or invented; None (write_bvh's default) for uneven keys."""
    keys = np.unique(np.concatenate([ch.times for ch in clip.channels]))
    step = np.diff(keys)
    if step.size and np.allclose(step, step[0], rtol=1e-9, atol=0):
        return float(step[0])
    return None


def pose_animated(args: argparse.Namespace) -> int:
    """``pose MODEL --out X.glb --animated``: the model with its clip (``--clip``, default the
    first; ``--rest``: none) as an animated glTF, written atomically."""

    if Path(args.out).suffix.lower() not in (".glb", ".gltf"):
        args.parser.error(f"--animated writes a .glb or .gltf file, got --out {args.out}")
    if args.times is not None or args.fps is not None or args.params is not None:
        args.parser.error("--animated writes the clip as it is keyed: no --times, --fps or "
                          "--params")
    check_output_path(args.out)
    model, label = load(args.model, np.dtype(args.dtype), args.scene)
    try:
        clips = [] if args.rest or not model.clips else \
            [model.clip(0 if args.clip is None else clip_key(model, args.clip))]
    except ValueError as exc:
        raise CliError(f"{label}: {exc}") from exc
    write_gltf(model, args.out, clips=clips)
    if not args.quiet:
        print(f"{args.out}: {label} with {len(clips)} clip{'s' * (len(clips) != 1)}")
    return 0
