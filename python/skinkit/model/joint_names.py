"""Joint names of the common human skeletons, and the canonical names retargeting maps them by.

Each convention is a table {file's joint name: canonical name}; the canonical names are those of
SMPL+H's body and hands with the SMPL spine counted from the pelvis (spine, spine1, spine2).
Sources: the SMPL, SMPL+H and SMPL-X joint orders of smplx (``smplx/joint_names.py``), Mixamo's
``mixamorig:`` rig, the CMU motion capture BVH conversions (cgspeed), MotionBuilder-style BVH
(HumanIK names) and Ubisoft LaFAN1's BVH files.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

SIDES = ("left", "right")
FINGERS = ("index", "middle", "pinky", "ring", "thumb")

SMPL_BODY = ["pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2",
             "left_ankle", "right_ankle", "spine3", "left_foot", "right_foot", "neck",
             "left_collar", "right_collar", "head", "left_shoulder", "right_shoulder",
             "left_elbow", "right_elbow", "left_wrist", "right_wrist"]
SMPL_HANDS = [f"{s}_{f}{k}" for s in SIDES for f in FINGERS for k in (1, 2, 3)]
SMPL_JOINT_NAMES = SMPL_BODY + ["left_hand", "right_hand"]
SMPLH_JOINT_NAMES = SMPL_BODY + SMPL_HANDS
SMPLX_JOINT_NAMES = SMPL_BODY + ["jaw", "left_eye_smplhf", "right_eye_smplhf"] + SMPL_HANDS

# canonical body joints, and each convention's name for them (side-free: "{S}" is Left/Right)
_BODY = {   # canonical: (SMPL, HumanIK/Mixamo, CMU, LaFAN1)
    "hips": ("pelvis", "Hips", "Hips", "Hips"),
    "spine": ("spine1", "Spine", "LowerBack", "Spine"),
    "spine1": ("spine2", "Spine1", "Spine", "Spine1"),
    "spine2": ("spine3", "Spine2", "Spine1", "Spine2"),
    "neck": ("neck", "Neck", "Neck", "Neck"),
    "head": ("head", "Head", "Head", "Head"),
    "{s}_collar": ("{s}_collar", "{S}Shoulder", "{S}Shoulder", "{S}Shoulder"),
    "{s}_shoulder": ("{s}_shoulder", "{S}Arm", "{S}Arm", "{S}Arm"),
    "{s}_elbow": ("{s}_elbow", "{S}ForeArm", "{S}ForeArm", "{S}ForeArm"),
    "{s}_wrist": ("{s}_wrist", "{S}Hand", "{S}Hand", "{S}Hand"),
    "{s}_hip": ("{s}_hip", "{S}UpLeg", "{S}UpLeg", "{S}UpLeg"),
    "{s}_knee": ("{s}_knee", "{S}Leg", "{S}Leg", "{S}Leg"),
    "{s}_ankle": ("{s}_ankle", "{S}Foot", "{S}Foot", "{S}Foot"),
    "{s}_foot": ("{s}_foot", "{S}ToeBase", "{S}ToeBase", "{S}Toe"),
}
_HUMANIK_FINGER = {"index": "Index", "middle": "Middle", "pinky": "Pinky", "ring": "Ring",
                   "thumb": "Thumb"}


def _convention(column: int, prefix: str = "", fingers: bool = False) -> Dict[str, str]:
    table = {}
    for canon, names in _BODY.items():
        for s in SIDES:
            name = names[column].format(s=s, S=s.capitalize())
            table[prefix + name] = canon.format(s=s)
    if fingers:
        for s in SIDES:
            for f in FINGERS:
                for k in (1, 2, 3):
                    if column == 0:
                        table[f"{s}_{f}{k}"] = f"{s}_{f}{k}"
                    else:
                        table[f"{prefix}{s.capitalize()}Hand{_HUMANIK_FINGER[f]}{k}"] = \
                            f"{s}_{f}{k}"
    return table


PRESETS: Dict[str, Dict[str, str]] = {
    "smpl": _convention(0, fingers=True),          # SMPL, SMPL+H and SMPL-X share the names
    "mixamo": _convention(1, "mixamorig:", fingers=True),
    "motionbuilder": _convention(1, fingers=True),
    "cmu": _convention(2),
    "lafan1": _convention(3),
}


def _plain(name: str) -> str:
    """a name without a namespace prefix other than mixamorig's (``Armature|mixamorig:Hips``)"""
    return name.rsplit("|", 1)[-1]


def detect_preset(names: Sequence[Optional[str]]) -> Optional[str]:
    """The preset whose names match most of ``names`` (ties: the first in ``PRESETS``), or None
    when none matches at least three."""
    plain = {_plain(n) for n in names if n}
    best, count = None, 2
    for key, table in PRESETS.items():
        c = len(plain & table.keys())
        if c > count:
            best, count = key, c
    return best


def canonical_names(names: Sequence[Optional[str]], preset: Optional[str] = None
                    ) -> List[Optional[str]]:
    """The canonical name of every joint (None where the preset has none); ``preset`` None
    detects it (``detect_preset``).

    Raises
    ------
    ValueError
        An unknown preset, or none detected.
    """
    key = preset or detect_preset(names)
    if key is None:
        raise ValueError("no joint-name preset matches the skeleton (names such as "
                         f"{[n for n in names[:4]]}); pass mapping= as a dict")
    if key not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {key!r}")
    table = PRESETS[key]
    return [table.get(_plain(n)) if n else None for n in names]
