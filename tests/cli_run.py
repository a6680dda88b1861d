"""Shared by the CLI tests: run ``skinkit`` in-process."""
from skinkit.cli.main import main


def assert_usage_error(argv, capsys):
    """An argparse usage error: exit status 2, the usage on stderr, no traceback, nothing written
    in the current folder (the caller's tmp_path)."""
    import os

    code, _, err = run(argv, capsys)
    assert code == 2
    assert "usage:" in err and "Traceback" not in err
    assert os.listdir() == []


def run(argv, capsys):
    """main(argv) -> (exit status, stdout, stderr); SystemExit (argparse) gives its code."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
