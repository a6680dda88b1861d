"""The ``skinkit`` command: pose a model to an .npz file, or describe a model.

Usage::

    skinkit pose [MODEL] [--scene N] [--clip NAME|INDEX | --rest] [--times T [T ...] | --fps F]
                 [--loop | --clamp] [--dtype float64|float32] [--normals] [--max-output SIZE]
                 [--quiet | --verbose]
                 --out FILE.npz | --out DIR/ [--format ply|obj] | --out FILE.glb
    skinkit pose BODY.pkl|BODY.npz --params PARAMS.npz [--dtype ...] [--quiet] --out FILE.npz
    skinkit pose BODY|--body-dir DIR --motion AMASS.npz [--fps F] [--dtype ...] --out FILE.npz
    skinkit info [MODEL] [--scene N]

Each sub-command is a module of this package (``pose``, ``info``, ``bake``, ``retarget``: its
``SUMMARY``, ``DESCRIPTION``, ``ARGS`` and ``run``), a row of ``_build_parser``'s table; what they
share is ``common``.
Without MODEL the built-in model (``skinkit.default_model``) is used.  Exit status: 0 success,
2 usage error, 1 a model, input file or argument value that cannot be read or posed (one line
``skinkit: error: ...`` on stderr; ``--debug`` shows the traceback).  Warnings (and, with
``--verbose``, what was decided) are the ``skinkit`` logger's lines.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from .. import _core
from . import bake, info, pose, retarget
from .common import PROG, Arg, CliError, add_arguments


def _add_debug(parser: argparse.ArgumentParser, default: Union[bool, str]) -> None:
    # a separate action per parser: the sub-command's must not reset the main one's value
    parser.add_argument("--debug", action="store_true", default=default,
                        help="show the full traceback of an error")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Fast, batchable skeletal animation: pose glTF models with C kernels.")
    _add_debug(parser, False)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {_core.__version__} (ufbx {_core.ufbx_version()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    commands: Dict[str, Tuple[str, str, Sequence[Union[Arg, List[Arg]]],
                              Callable[[argparse.Namespace], int]]] = {
        # name -> (summary, description, arguments, function)
        "pose": (pose.SUMMARY, pose.DESCRIPTION, pose.ARGS, pose.run),
        "info": (info.SUMMARY, info.DESCRIPTION, info.ARGS, info.run),
        "bake": (bake.SUMMARY, bake.DESCRIPTION, bake.ARGS, bake.run),
        "retarget": (retarget.SUMMARY, retarget.DESCRIPTION, retarget.ARGS, retarget.run),
    }
    for name, (summary, description, arguments, func) in commands.items():
        p = sub.add_parser(name, help=summary, description=description)
        add_arguments(p, arguments)
        _add_debug(p, argparse.SUPPRESS)
        p.set_defaults(func=func, parser=p)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the ``skinkit`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 for an input or model error (one line ``skinkit: error: ...`` on
        stderr, the traceback too with ``--debug``).  Usage errors raise SystemExit(2) through
        argparse, as for any argparse program.
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    log = logging.getLogger(PROG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogFormat())
    handler.setLevel(logging.ERROR if getattr(args, "quiet", False) else
                     logging.INFO if getattr(args, "verbose", False) else logging.WARNING)
    level = log.level
    log.addHandler(handler)
    log.setLevel(min(handler.level, logging.WARNING))
    try:
        status: int = args.func(args)
        return status
    except BrokenPipeError:
        # the reader of our output went away (``skinkit info | head``): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except (CliError, ImportError, OSError, ValueError, TypeError, MemoryError) as exc:
        # what a bad file or argument causes: skinkit's errors (GltfError, BvhError and
        # BodyModelError are ValueErrors), the system's, memory a file asked for, and a missing
        # optional dependency (the message names the extra that installs it)
        if args.debug:
            traceback.print_exc()
        print(f"{PROG}: error: {_message(exc)}", file=sys.stderr)
        return 1
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


class _LogFormat(logging.Formatter):
    """``skinkit: warning: ...`` (the level in lower case, as the error lines)."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{PROG}: {record.levelname.lower()}: {record.getMessage()}"


def _message(exc: BaseException) -> str:
    """One line for an error: the file and the system's words for an OSError."""
    message = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, MemoryError):
        message = f"out of memory: {message} (an input asks for more than this machine holds)"
    return " ".join(message.split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
