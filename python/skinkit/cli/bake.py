"""``skinkit bake MOTION... (--body MODEL | --body-dir DIR) --out STORE.zarr`` and ``skinkit bake
CHARACTER... --clips NAME[,NAME...]|all --out STORE.zarr``: the command's arguments (rows of
cli.py's table) and its run; the work is ``skinkit.dataset.bake``."""
from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, List, Tuple, Union

from .common import CliError

_Arg = Tuple[str, Dict[str, Any]]

SUMMARY = "pose AMASS motions (or glTF/FBX characters' clips) into a Zarr store, on Dask"
DESCRIPTION = (
    "Read every motion (AMASS .npz files, folders or glob patterns, in the order given, each "
    "sorted), pose it with the body model and write vertices (N, V, 3), joints (N, J, 3), faces, "
    "frame_sequence, frame_time and a sequences table to a Zarr v3 store, chunk by chunk on "
    "Dask workers.  With --clips the inputs are glTF/FBX characters instead: each (file, clip) "
    "is a sequence, posed at k/fps over the clip, and the store holds vertices/<primitive> and "
    "faces/<primitive> per mesh primitive (every character must have the same ones).  Rerun "
    "with the same arguments to resume an interrupted bake.  A file that cannot be read is "
    "named at the end and marked failed in sequences/status; the others are written; the exit "
    "status is then 1.")
ARGS: List[Union[_Arg, List[_Arg]]] = [
    ("motions", dict(nargs="+", metavar="MOTION",
                     help="AMASS .npz files, folders or globs; with --clips, glTF/FBX characters "
                          "(.glb, .gltf, .fbx, .usd, .usda, .usdc, .usdz files, folders or "
                          "globs)")),
    [("--body", dict(metavar="MODEL", help="the body model file (.npz or .pkl) for every motion")),
     ("--body-dir", dict(metavar="DIR", help="a folder of body models as smplx.create lays "
                                             "them out (DIR/smplx/SMPLX_FEMALE.npz, ...), picked "
                                             "by each motion's type and gender")),
     ("--clips", dict(metavar="CLIPS",
                      help="NAME[,NAME...] or all: the inputs are glTF/FBX characters, and "
                           "these clips of each are baked (names, or indices for unnamed "
                           "clips; all: every clip)"))],
    ("--out", dict(required=True, metavar="STORE.zarr", help="the store's folder")),
    ("--fps", dict(type=float, metavar="F", help="resample every motion at F frames per second "
                                                 "(default: each motion's own rate); for "
                                                 "characters, sample each clip at F (default "
                                                 "30)")),
    ("--frames-per-chunk", dict(type=int, default=256, metavar="K",
                                help="frames per Zarr chunk and per task (default 256)")),
    ("--dtype", dict(choices=("float32", "float16"), default="float32",
                     help="precision of the stored vertices and joints (default float32)")),
    ("--compression", dict(choices=("none", "zstd"), default="none",
                           help="codec of the frame arrays: none (default) or zstd level 1 "
                                "(about 8%% smaller, slower to write)")),
    ("--store", dict(dest="content", choices=("meshes", "motion"), default="meshes",
                     help="what the store keeps: the posed frames (meshes, default), or each "
                          "motion compressed with the body models, posed back on the fly by "
                          "skinkit.dataset.open (motion; about 1/1000 of the bytes)")),
    ("--precision", dict(type=float, default=1e-4, metavar="M",
                         help="with --store motion: the largest joint error, metres (default "
                              "1e-4, at a 3 cm shell as skinkit.compress measures it)")),
    [("--workers", dict(type=int, metavar="N", help="worker processes of a local Dask cluster "
                                                    "(default: one per core)")),
     ("--scheduler", dict(metavar="ADDRESS", help="a running Dask scheduler, tcp://HOST:PORT "
                                                  "(see `dask scheduler`, `dask worker`)"))],
    ("--quiet", dict(action="store_true", help="no progress bar and no summary line")),
]


def run(args: argparse.Namespace) -> int:
    """Bake; print the summary line on stderr; 1 if a motion failed, else 0."""
    from ..dataset import bake
    from ..dataset.plan import CHARACTER_SUFFIXES
    if args.clips is None:
        characters = [m for m in args.motions if m.lower().endswith(CHARACTER_SUFFIXES)]
        if characters:
            args.parser.error(f"{characters[0]} is a glTF/FBX character: give the clips to bake, "
                              "--clips NAME[,NAME...] or --clips all")
        if args.body is None and args.body_dir is None:
            args.parser.error("one of --body MODEL and --body-dir DIR is required (or --clips "
                              "for glTF/FBX characters)")
    try:
        summary = bake(args.motions, args.out, body=args.body, body_dir=args.body_dir,
                       clips=args.clips, fps=args.fps, frames_per_chunk=args.frames_per_chunk,
                       dtype=args.dtype, compression=args.compression,
                       content=args.content, precision=args.precision, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.quiet and sys.stderr.isatty())
    except ValueError as exc:       # arguments, a store made with other ones
        raise CliError(str(exc)) from exc
    except KeyboardInterrupt:
        print(f"skinkit: bake interrupted; run the same command again to resume {args.out}",
              file=sys.stderr)
        return 130
    if not args.quiet or not summary.ok:
        print(f"skinkit: {summary.line()}", file=sys.stderr)
    return 0 if summary.ok else 1
