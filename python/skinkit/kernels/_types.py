"""Type aliases shared by the annotations of the package (nothing here runs)."""
from __future__ import annotations

import os
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]
"""A file or folder name: a str or a ``pathlib.Path`` (any ``os.PathLike`` of str)."""
