"""Optional dependencies, imported only where they are used."""
import importlib
from types import ModuleType


def require(module: str, extra: str, what: str) -> ModuleType:
    """``module`` imported, or an ImportError that says which skinkit extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(f"{what} needs {module.split('.')[0]}: "
                          f"pip install 'skinkit[{extra}]'") from exc
