"""Optional dependencies, imported only where they are used."""
import importlib
from types import ModuleType


def require(module: str, extra: str, what: str) -> ModuleType:
    """``module`` imported, or an ImportError (a ModuleNotFoundError naming the missing top-level
    module) that says which skinkit extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the installation
        top = module.split(".")[0]
        raise ModuleNotFoundError(f"{what} needs {top}: pip install 'skinkit[{extra}]'",
                                  name=top) from exc
