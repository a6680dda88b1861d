"""The ``skinkit`` command: a thin shell over the package (``main.py`` parses and routes)."""
from .main import main

__all__ = ["main"]
