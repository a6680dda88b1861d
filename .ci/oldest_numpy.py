"""The oldest NumPy that skinkit supports on this Python: pyproject says numpy>=1.24, and a
Python newer than that NumPy needs the first release with wheels for it.  One table for the nox
sessions (noxfile.py) and cibuildwheel's test command (pyproject.toml).

    python .ci/oldest_numpy.py            # prints e.g. 1.26.0
    python .ci/oldest_numpy.py --install  # pip installs exactly that NumPy here
"""
import subprocess
import sys

OLDEST = {(3, 10): "1.24.0", (3, 11): "1.24.0", (3, 12): "1.26.0", (3, 13): "2.1.0"}


def oldest(version=sys.version_info[:2]) -> str:
    return OLDEST[tuple(version)]


if __name__ == "__main__":
    if sys.argv[1:] == ["--install"]:
        sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "-q",
                                  f"numpy=={oldest()}"]))
    print(oldest())
