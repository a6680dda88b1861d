"""Body-model files in the layouts their authors release (tests/data/body/make_release_layouts.py)
loaded by skinkit and by smplx from the same files (smplx.create with its folder layout where
it can), posed with random parameters in float64: vertices and joints within 1e-7 of the
model's extent (smplx adds 1e-8 to every rotation vector).  smplx unpickles chumpy objects, so
a stand-in chumpy module (an array holder) is installed for it; skinkit reads without one."""
import sys
import types

import numpy as np
import pytest

from conftest import DATA, SMPLX_HOW, TORCH_HOW, optional_import

torch = optional_import("torch", TORCH_HOW)
smplx = optional_import("smplx", SMPLX_HOW, "torch")

sys.path.insert(0, str(DATA / "body"))
from make_release_layouts import write_layouts  # noqa: E402

import skinkit as sk  # noqa: E402
from smplx.joint_names import JOINT_NAMES, SMPLH_JOINT_NAMES  # noqa: E402
from smplx.vertex_ids import vertex_ids as VERTEX_IDS  # noqa: E402

N = 3


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    root = tmp_path_factory.mktemp("layouts")
    return root, write_layouts(root)


class _Ch:
    """chumpy.ch.Ch for smplx's pickle.load: keeps the pickled state, acts as its array x."""

    def __setstate__(self, state):
        self.__dict__.update(state)

    shape = property(lambda self: self.x.shape)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.x, dtype)

    def __getitem__(self, index):
        return self.x[index]


@pytest.fixture()
def chumpy_stand_in(monkeypatch):
    ch = types.ModuleType("chumpy.ch")
    ch.Ch = _Ch
    monkeypatch.setitem(sys.modules, "chumpy", types.ModuleType("chumpy"))
    monkeypatch.setitem(sys.modules, "chumpy.ch", ch)


@pytest.fixture()
def small_vertex_ids(monkeypatch):
    """smplx's extra-joint vertex ids (fingertips, face points) renumbered to fit the small
    models: smplx.SMPLX takes them from this table whatever its vertex_ids argument."""
    import smplx.body_models
    for key in ("smplh", "smplx"):
        monkeypatch.setitem(smplx.body_models.VERTEX_IDS, key,
                            {k: i for i, k in enumerate(VERTEX_IDS[key])})


def _smplx_model(name, layout, root):
    """smplx's module for the file: smplx.create on the folder where smplx names the file so,
    else the class on the file itself."""
    kw = dict(dtype=torch.float64, batch_size=N)
    hands = dict(use_pca=False, flat_hand_mean=True)
    path = str(layout.path)
    if name == "SMPL .pkl (Python 2, chumpy)":
        return smplx.create(str(root), "smpl", gender="neutral",
                            **kw)
    if name == "SMPL .npz":
        from smplx.utils import Struct
        with np.load(path, allow_pickle=True) as z:
            struct = Struct(**dict(z))
        return smplx.SMPL(path, data_struct=struct, **kw)
    if name.startswith("SMPL+H"):
        ext = "pkl" if path.endswith(".pkl") else "npz"
        target = str(root) if ext == "pkl" else path
        if ext == "pkl":
            return smplx.create(target, "smplh", gender="male", ext=ext, num_betas=10,
                                **hands, **kw)
        return smplx.SMPLH(target, ext=ext, num_betas=10,
                           **hands, **kw)
    if name.startswith("SMPL-X"):
        return smplx.create(str(root), "smplx", gender="neutral", ext=path[-3:], num_betas=300,
                            num_expression_coeffs=100, **hands,
                            **kw)
    if name.startswith("MANO"):
        return smplx.create(str(root), "mano", is_rhand="right" in name, num_betas=10, **hands,
                            **kw)
    if name.startswith("FLAME"):
        return smplx.create(str(root), "flame", gender="neutral", num_betas=300,
                            num_expression_coeffs=100, **kw)
    raise AssertionError(name)


def _smplx_forward(module, kind, betas, pose, transl, expr):
    t = torch.tensor
    p = lambda a, b: t(pose[:, a:b].reshape(N, -1))  # noqa: E731
    args = dict(betas=t(betas), global_orient=p(0, 1), transl=t(transl))
    if kind == "SMPL":
        args.update(body_pose=p(1, 24))
    elif kind == "SMPL+H":
        args.update(body_pose=p(1, 22), left_hand_pose=p(22, 37), right_hand_pose=p(37, 52))
    elif kind == "SMPL-X":
        args.update(body_pose=p(1, 22), jaw_pose=p(22, 23), leye_pose=p(23, 24),
                    reye_pose=p(24, 25), left_hand_pose=p(25, 40), right_hand_pose=p(40, 55),
                    expression=t(expr))
    elif kind == "MANO":
        args.update(hand_pose=p(1, 16))
    else:
        args.update(neck_pose=p(1, 2), jaw_pose=p(2, 3), leye_pose=p(3, 4), reye_pose=p(4, 5),
                    expression=t(expr))
    out = module(**args)
    return out.vertices.detach().numpy(), out.joints.detach().numpy()


NAMES = ["SMPL .pkl (Python 2, chumpy)", "SMPL .npz", "SMPL+H .pkl (MANO site, chumpy)",
         "SMPL+H model.npz (AMASS)", "SMPL-X .npz (object arrays)", "SMPL-X .pkl (Python 2)",
         "MANO right .pkl (chumpy)", "MANO left .pkl (chumpy)", "FLAME .pkl (chumpy)"]


@pytest.mark.parametrize("name", NAMES)
def test_released_layout_matches_smplx(layouts, chumpy_stand_in, small_vertex_ids, name):
    root, all_layouts = layouts
    layout = all_layouts[name]
    model = sk.load_body_model(layout.path)
    assert model.kind == layout.kind
    for key in ("v_template", "posedirs", "J_regressor", "weights"):
        np.testing.assert_array_equal(getattr(model, key), layout.arrays[key], err_msg=key)
    rng = np.random.default_rng(11)
    # smplx uses at most 10 shape columns of a file with fewer than 300 (AMASS's SMPL+H has 16)
    betas = rng.normal(size=(N, model.num_betas if model.num_betas >= 300 else 10))
    pose = rng.normal(scale=0.6, size=(N, model.num_joints, 3))
    transl = rng.normal(size=(N, 3))
    expr = rng.normal(size=(N, model.num_expression)) if model.num_expression else None
    v, j = model.forward(betas, pose, transl, expr)
    ref = _smplx_model(name, layout, root)
    vr, jr = _smplx_forward(ref, model.kind, betas, pose, transl, expr)
    size = np.ptp(v, axis=1).max()
    assert np.abs(v - vr).max() < 1e-7 * size, np.abs(v - vr).max() / size
    assert np.abs(j - jr[:, :model.num_joints]).max() < 1e-7 * size


def test_pickle_and_npz_of_the_same_arrays_agree_bit_for_bit(layouts):
    _, all_layouts = layouts
    a = sk.load_body_model(all_layouts["SMPL .pkl (Python 2, chumpy)"].path)
    b = sk.load_body_model(all_layouts["SMPL .npz"].path)
    c = sk.load_body_model(all_layouts["SMPL-X .pkl (Python 2)"].path)
    d = sk.load_body_model(all_layouts["SMPL-X .npz (object arrays)"].path)
    for x, y in ((a, b), (c, d)):
        for key in ("v_template", "shapedirs", "exprdirs", "posedirs", "J_regressor",
                    "weights", "faces", "parents"):
            np.testing.assert_array_equal(getattr(x, key), getattr(y, key), err_msg=key)


def test_joint_names_are_smplx_names(layouts):
    _, all_layouts = layouts
    names = {kind: sk.load_body_model(l.path).joint_names for l in all_layouts.values()
             for kind in [l.kind]}
    assert list(names["SMPL-X"]) == JOINT_NAMES[:55]
    assert list(names["SMPL+H"]) == SMPLH_JOINT_NAMES[:52]
    assert list(names["SMPL"]) == SMPLH_JOINT_NAMES[:22] + ["left_hand", "right_hand"]
    assert list(names["MANO"]) == ["wrist"] + [n[len("right_"):] for n in
                                               SMPLH_JOINT_NAMES[37:52]]
    assert names["FLAME"] == ("global", "neck", "jaw", "left_eye", "right_eye")
