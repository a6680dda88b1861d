"""The SMPL-family model kinds (SMPL, SMPL+H, SMPL-X, MANO, FLAME) by joint count, with their joint
names as smplx 0.1.28 names them, and the error of a body model or motion that cannot be read."""
from __future__ import annotations

from typing import Dict, NamedTuple, Tuple


class BodyModelError(ValueError):
    """A body model or motion file that cannot be read: the message names the file, the key and
    what is wrong."""


_BODY = ("pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2",
         "left_ankle", "right_ankle", "spine3", "left_foot", "right_foot", "neck",
         "left_collar", "right_collar", "head", "left_shoulder", "right_shoulder", "left_elbow",
         "right_elbow", "left_wrist", "right_wrist")
_FINGERS = tuple(f"{f}{i}" for f in ("index", "middle", "pinky", "ring", "thumb")
                 for i in (1, 2, 3))
_HANDS = tuple(f"{side}_{f}" for side in ("left", "right") for f in _FINGERS)


class Kind(NamedTuple):
    name: str                  # as BodyModel.kind reports it
    model_type: str            # smplx.create's model_type and folder name
    joints: Tuple[str, ...]    # joint names in the model's order (smplx.joint_names)


KINDS: Dict[int, Kind] = {len(k.joints): k for k in (
    Kind("SMPL", "smpl", _BODY + ("left_hand", "right_hand")),
    Kind("SMPL+H", "smplh", _BODY + _HANDS),
    Kind("SMPL-X", "smplx", _BODY + ("jaw", "left_eye_smplhf", "right_eye_smplhf") + _HANDS),
    Kind("MANO", "mano", ("wrist",) + _FINGERS),
    Kind("FLAME", "flame", ("global", "neck", "jaw", "left_eye", "right_eye")),
)}
