"""The SMPL-family model files as their authors lay them out: which keys a model needs, and the
folder layout ``smplx.create`` (and
AMASS) use to find a model by type and gender."""
from __future__ import annotations

from pathlib import Path
from typing import List

from ...body.kinds import KINDS
from ...kernels._types import PathLike

# the keys a model needs (smplx 0.1.28 reads these); SMPL-X's landmarks and object arrays, the
# hand PCA and the priors are never read
REQUIRED = ("v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table", "f")

# smplx.create's default file suffix of each model type (its first candidate)
_DEFAULT_EXT = {"smpl": "pkl", "smplh": "pkl", "smplx": "npz", "mano": "pkl", "flame": "pkl"}
GENDERS = ("neutral", "male", "female")


def candidates(body_dir: PathLike, model_type: str, gender: str) -> List[Path]:
    """The files ``find_body_model`` tries, in order."""
    folder = Path(body_dir) / model_type
    stem = f"{model_type.upper()}_{gender.upper()}"
    first = _DEFAULT_EXT.get(model_type, "npz")
    second = "npz" if first == "pkl" else "pkl"
    return [folder / f"{stem}.{first}", folder / f"{stem}.{second}",
            folder / gender / "model.npz", folder / gender / "model.pkl"]


def find_body_model(body_dir: PathLike, model_type: str, gender: str) -> Path:
    """The model file of ``model_type`` ('smpl', 'smplh', 'smplx', 'mano', 'flame') and
    ``gender`` ('neutral', 'male', 'female') in a folder laid out as ``smplx.create`` expects
    (``DIR/smplh/SMPLH_MALE.pkl``, ``DIR/smplx/SMPLX_FEMALE.npz``, either suffix) or as AMASS
    ships its models (``DIR/smplh/male/model.npz``).

    Raises
    ------
    ValueError
        An unknown model type or gender.
    FileNotFoundError
        None of the candidates exists; the message lists every path tried.
    """
    types = sorted(k.model_type for k in KINDS.values())
    if model_type not in types:
        raise ValueError(f"model_type must be one of {', '.join(types)}, got {model_type!r}")
    if gender not in GENDERS:
        raise ValueError(f"gender must be one of {', '.join(GENDERS)}, got {gender!r}")
    tried = candidates(body_dir, model_type, gender)
    for path in tried:
        if path.is_file():
            return path
    raise FileNotFoundError(f"no {gender} {model_type} model in {body_dir}: looked for "
                            + ", ".join(str(p) for p in tried))
