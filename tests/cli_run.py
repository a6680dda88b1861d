"""Shared by the CLI tests: run ``skinkit`` in-process."""
from skinkit.cli import main


def run(argv, capsys):
    """main(argv) -> (exit status, stdout, stderr); SystemExit (argparse) gives its code."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
