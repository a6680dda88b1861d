"""USD (UsdSkel) characters in and out: :func:`load_usd` reads a stage's skeletons, skinned and
rigid meshes, blend shapes and animation into a :class:`~skinkit.model.model.Model`;
:func:`write_usd` writes a model back as a UsdSkel stage.  Both run on Pixar's ``usd-core``
(the optional extra ``skinkit[usd]``), imported only when they are called."""
from .read import UsdError, load_usd
from .write import write_usd  # noqa: E402

__all__ = ["UsdError", "load_usd", "write_usd"]
