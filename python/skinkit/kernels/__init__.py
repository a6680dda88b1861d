"""The kernels: the generated wrappers of the C kernels (``skinkit._core``), their vector-Jacobian
products, pose blending, blend shapes and inverse kinematics (the bottom layer of the package)."""
from .wrappers import *  # noqa: F401,F403
from .wrappers import __all__  # noqa: F401
