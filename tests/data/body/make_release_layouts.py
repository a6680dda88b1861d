"""Writes small body-model files in the layouts their authors release, in the folders
``smplx.create`` expects (and AMASS's ``smplh/male/model.npz``):

* smpl/SMPL_NEUTRAL.pkl: SMPL 1.0's ``basicModel_*.pkl``, a Python 2 protocol-2 pickle:
  ``shapedirs`` a chumpy ``Ch``; ``J_regressor`` and ``J_regressor_prior``
  ``scipy.sparse.csc.csc_matrix``; ``f`` uint32; ``kintree_table`` int64 with 2**32 - 1 at the
  root; ``J``, ``weights_prior``, ``vert_sym_idxs``, ``pose_training_info`` (a dict),
  ``bs_style`` / ``bs_type`` strings.
* smpl/SMPL_MALE.npz: the same arrays as plain NumPy (``np.savez``), J_regressor dense.
* smplh/SMPLH_MALE.pkl: the MANO site's SMPL+H, as SMPL plus ``hands_componentsl/r``,
  ``hands_coeffsl/r``, ``hands_meanl/r``.
* smplh/male/model.npz: AMASS's SMPL+H: 16 shape columns, dense ``J_regressor``, ``bs_style``
  / ``bs_type`` 0-d str arrays, the hand PCA.
* smplx/SMPLX_NEUTRAL.npz: SMPL-X 1.1: 400 shape columns (300 shape + 100 expression),
  ``joint2num`` and ``part2num`` object arrays (pickled dicts), ``allow_pickle``, landmarks
  (``lmk_*``, ``dynamic_lmk_*``), ``vt`` / ``ft``, the hand PCA.
* smplx/SMPLX_NEUTRAL.pkl: the same as a Python 2 protocol-2 pickle of plain arrays, dicts for
  ``joint2num`` / ``part2num``.
* mano/MANO_RIGHT.pkl, MANO_LEFT.pkl: MANO's Python 2 chumpy pickles, ``hands_components``,
  ``hands_coeffs``, ``hands_mean``, ``J``.
* flame/FLAME_NEUTRAL.pkl: FLAME 2020's ``generic_model.pkl``: chumpy ``shapedirs``
  (V, 3, 400): 300 shape + 100 expression, 5 joints, sparse ``J_regressor``; and
  ``flame_static_embedding.pkl`` (``lmk_face_idx``, ``lmk_b_coords``) beside it, which
  smplx.FLAME reads.

The pickles are written opcode by opcode by py2pickle.py as Python 2.7 / NumPy 1.16 / chumpy
0.70 / SciPy 1.2 wrote them (compare tiny_mano_chumpy_py2.pkl, a genuine one).  The arrays are
synthetic (skinkit.body.synthetic), float values rounded to float32 (smplx converts every model
array to float32 before use, so its float64 pass then sees the same numbers); small vertex
counts.  The tests build them in a temporary folder (``write_layouts``); run as a script to
look at them:  ``python tests/data/body/make_release_layouts.py OUT_DIR``.
"""
import pickle
import sys
from pathlib import Path
from typing import Dict, NamedTuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import py2pickle as p2  # noqa: E402

try:
    from skinkit.body.synthetic import synthetic_body_arrays
except ImportError:   # run as a script from a checkout
    sys.path.insert(0, str(HERE.parents[2] / "python"))
    from skinkit.body.synthetic import synthetic_body_arrays


class Layout(NamedTuple):
    path: Path          # the file
    kind: str           # BodyModel.kind
    arrays: Dict        # the model arrays it holds (dense, float64)


def _arrays(kind, seed, V, S):
    a = synthetic_body_arrays(kind, seed, num_vertices=V, shape_columns=S)
    return {k: v.astype(np.float32).astype(np.float64) if v.dtype.kind == "f" else v
            for k, v in a.items()}


def _smpl_extras(a, rng):
    """The keys of SMPL 1.0's pickle beyond the model arrays (read by nobody here)."""
    V, J = a["weights"].shape
    return {"J": a["J_regressor"] @ a["v_template"], "weights_prior": a["weights"],
            "vert_sym_idxs": rng.permutation(V).astype(np.int64),
            "pose_training_info": {"ncomps": 12, "regularization": 3.2e-05, "ja_prior": "True"},
            "bs_style": p2.Str("lbs"), "bs_type": p2.Str("lrotmin")}


def _hand_pca(rng, suffixes=("l", "r"), n=45):
    out = {}
    for s in suffixes:
        out[f"hands_components{s}"] = np.linalg.qr(rng.normal(size=(n, n)))[0]
        out[f"hands_coeffs{s}"] = rng.normal(size=(30, n))
        out[f"hands_mean{s}"] = rng.normal(scale=0.1, size=n)
    return out


def _chumpy_pickle(path, a, extra, sparse=("J_regressor",)):
    """A Python 2 chumpy pickle: shapedirs a Ch, ``sparse`` keys CSC matrices, the rest
    ndarrays (or what ``extra`` gives)."""
    obj = {k: p2.ndarray(v) for k, v in a.items()}
    obj.update({k: p2.ndarray(v) if isinstance(v, np.ndarray) else v for k, v in extra.items()})
    obj["shapedirs"] = p2.ch(a["shapedirs"])
    for k in sparse:
        obj[k] = p2.sparse(a[k] if k in a else extra[k])
    path.write_bytes(p2.dumps(obj))


def _model_keys(a):
    return {k: a[k] for k in ("v_template", "shapedirs", "posedirs", "J_regressor", "weights",
                              "kintree_table", "f")}


def write_layouts(root) -> Dict[str, Layout]:
    """Every layout above under ``root``; returns name -> Layout."""
    root = Path(root)
    for sub in ("smpl", "smplh/male", "smplx", "mano", "flame"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    out = {}

    smpl = _model_keys(_arrays("SMPL", 1, 300, 10))
    _chumpy_pickle(root / "smpl/SMPL_NEUTRAL.pkl", smpl,
                   dict(_smpl_extras(smpl, rng), J_regressor_prior=smpl["J_regressor"]),
                   sparse=("J_regressor", "J_regressor_prior"))
    out["SMPL .pkl (Python 2, chumpy)"] = Layout(root / "smpl/SMPL_NEUTRAL.pkl", "SMPL", smpl)
    np.savez(root / "smpl/SMPL_MALE.npz", **smpl)
    out["SMPL .npz"] = Layout(root / "smpl/SMPL_MALE.npz", "SMPL", smpl)

    smplh = _model_keys(_arrays("SMPL+H", 2, 300, 10))
    _chumpy_pickle(root / "smplh/SMPLH_MALE.pkl", smplh,
                   dict(_smpl_extras(smplh, rng), J_regressor_prior=smplh["J_regressor"],
                        **_hand_pca(rng)), sparse=("J_regressor", "J_regressor_prior"))
    out["SMPL+H .pkl (MANO site, chumpy)"] = Layout(root / "smplh/SMPLH_MALE.pkl", "SMPL+H",
                                                    smplh)
    amass = _model_keys(_arrays("SMPL+H", 3, 300, 16))
    np.savez(root / "smplh/male/model.npz", **amass, J_regressor_prior=amass["J_regressor"],
             J=amass["J_regressor"] @ amass["v_template"], weights_prior=amass["weights"],
             bs_style=np.array("lbs"), bs_type=np.array("lrotmin"), **_hand_pca(rng))
    out["SMPL+H model.npz (AMASS)"] = Layout(root / "smplh/male/model.npz", "SMPL+H", amass)

    sx = _arrays("SMPL-X", 4, 400, 400)
    model = _model_keys(sx)
    extra = {k: v for k, v in sx.items() if k not in model}
    extra.update({k: v for k, v in _hand_pca(rng).items() if k.startswith("hands_coeffs")})
    names = ("pelvis", "left_hip", "right_hip")
    tables = {"joint2num": {n: i for i, n in enumerate(names)},
              "part2num": {"global": 0, "head": 1, "leftHand": 2}}
    np.savez(root / "smplx/SMPLX_NEUTRAL.npz", **model, **extra,
             vt=rng.random((420, 2)), ft=rng.integers(0, 420, (len(model["f"]), 3)),
             allow_pickle=np.array(True),
             **{k: np.array(v, dtype=object) for k, v in tables.items()})
    out["SMPL-X .npz (object arrays)"] = Layout(root / "smplx/SMPLX_NEUTRAL.npz", "SMPL-X", model)
    (root / "smplx/SMPLX_NEUTRAL.pkl").write_bytes(p2.dumps(dict(
        {k: p2.ndarray(v) for k, v in {**model, **extra}.items()}, **tables)))
    out["SMPL-X .pkl (Python 2)"] = Layout(root / "smplx/SMPLX_NEUTRAL.pkl", "SMPL-X", model)

    for side, seed in (("RIGHT", 5), ("LEFT", 6)):
        mano = _model_keys(_arrays("MANO", seed, 778, 10))
        hand = {k[:-1]: v for k, v in _hand_pca(rng, ("l",)).items()}
        _chumpy_pickle(root / f"mano/MANO_{side}.pkl", mano,
                       dict(hand, J=mano["J_regressor"] @ mano["v_template"],
                            bs_style=p2.Str("lbs"), bs_type=p2.Str("lrotmin")))
        out[f"MANO {side.lower()} .pkl (chumpy)"] = Layout(root / f"mano/MANO_{side}.pkl", "MANO",
                                                          mano)

    flame = _model_keys(_arrays("FLAME", 8, 300, 400))
    _chumpy_pickle(root / "flame/FLAME_NEUTRAL.pkl", flame,
                   dict(J=flame["J_regressor"] @ flame["v_template"], bs_style=p2.Str("lbs"),
                        bs_type=p2.Str("lrotmin")))
    with open(root / "flame/flame_static_embedding.pkl", "wb") as f:
        pickle.dump({"lmk_face_idx": rng.integers(0, len(flame["f"]), 51).astype(np.uint32),
                     "lmk_b_coords": np.full((51, 3), 1 / 3)}, f, protocol=2)
    out["FLAME .pkl (chumpy)"] = Layout(root / "flame/FLAME_NEUTRAL.pkl", "FLAME", flame)
    return out


if __name__ == "__main__":
    for name, layout in write_layouts(sys.argv[1] if len(sys.argv) > 1 else ".").items():
        print(f"{name}: {layout.path}")
