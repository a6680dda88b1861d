"""``TRS``: local transforms of nodes (translations, rotations, scales), the record that clip
sampling returns and pose blending takes."""
from __future__ import annotations

from typing import Any, NamedTuple

from numpy.typing import NDArray


class TRS(NamedTuple):
    """Local transforms of nodes, in skinkit's one order: translations (..., N, 3), rotations
    (..., N, 4) unit quaternions (x, y, z, w), scales (..., N, 3).  What ``Clip.sample`` and
    ``skinkit.model.pose.local_pose`` return; ``skinkit.kernels.blending`` takes it as ``rest=`` and ``out=``
    (its own positional order is rotations first, as ozz-animation's)."""

    translations: NDArray[Any]
    rotations: NDArray[Any]
    scales: NDArray[Any]
