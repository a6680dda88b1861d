"""``python -m skinkit``: the ``skinkit`` command (see ``skinkit.cli``)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
