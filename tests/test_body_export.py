"""SMPL-family motion to glTF (skinkit/body_export.py + write_gltf): the written file, loaded
back, poses like BodyModel.forward at the key times; with the pose correctives as morph targets
to float32 rounding, without them within the size of the correctives (the error is stated)."""
import numpy as np
import pytest

import skinkit
from skinkit.body.export import body_clip, body_model_to_model
from skinkit.model.joint_names import SMPLH_JOINT_NAMES


@pytest.fixture(scope="module")
def body():
    return skinkit.synthetic_body_model("SMPL+H", seed=3, num_vertices=400)


def motion(J, T=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(T, J, 3)) * 0.3, rng.normal(size=(T, 3)) * 0.5


@pytest.mark.parametrize("correctives", [True, False])
def test_written_motion_poses_like_the_body_model(body, correctives, tmp_path):
    pose, transl = motion(body.num_joints)
    betas = np.linspace(-1, 1, 8)
    model = body_model_to_model(body, betas, correctives=correctives)
    clip = body_clip(body, pose, transl, betas, fps=30, name="amass", correctives=correctives)
    skinkit.write_gltf(model, tmp_path / "body.glb", clips=[clip])
    back = skinkit.load_gltf(tmp_path / "body.glb", dtype=np.float32)
    assert back.skeleton.names[:52] == SMPLH_JOINT_NAMES
    times = np.arange(len(pose)) / 30
    got = list(back.pose(0, times).values())[0]
    want, _ = body.forward(betas, pose, transl)
    size = np.ptp(want.reshape(-1, 3), axis=0).max()
    err = np.abs(got - want).max() / size
    if correctives:
        assert err < 1e-6, err           # float32 file, 459 morph targets summed
    else:
        feat = skinkit.quat_to_matrix(skinkit.quat_from_rotvec(pose[:, 1:])) - np.eye(3)
        offsets = np.einsum("vcp,tp->tvc", np.asarray(body.posedirs),
                            feat.reshape(len(pose), -1))
        bound = np.abs(offsets).max() * 2 / size
        assert 1e-6 < err < bound, (err, bound)
        print(f"without correctives: {err:.2e} of the size (bound {bound:.2e})")
