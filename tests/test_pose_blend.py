"""Model.pose with skinning="dqs" and blend=[(clip, weight), ...], and ``skinkit pose
--skinning``, against the kernels called one by one."""
import numpy as np
import pytest

import skinkit as sk
from cli_run import run
from conftest import GLTF, need_shared

FOX = GLTF / "Fox.glb"


@pytest.fixture(scope="module")
def fox():
    need_shared()
    return sk.load_gltf(FOX)


def skin_by_hand(model, rotations, translations, scales, kernel):
    world = sk.forward_kinematics(model.skeleton.parents, rotations, translations, scales)
    skin, prim = model.skins[0], model.primitives[0]
    mats = sk.skinning_matrices(world[:, skin.joints], skin.inverse_bind_matrices)
    return kernel(prim.positions, prim.joints, prim.weights, mats)


def test_pose_with_dual_quaternions(fox):
    times = [0.1, 0.4]
    posed = fox.pose("Run", times, skinning="dqs")
    t, r, s = fox.local_pose("Run", times)
    key = fox.primitives[0].key
    expected = skin_by_hand(fox, r, t, s, sk.dual_quaternion_skinning)
    np.testing.assert_array_equal(posed[key], expected)
    assert not np.allclose(posed[key], fox.pose("Run", times)[key])
    with pytest.raises(ValueError, match="skinning"):
        fox.pose("Run", times, skinning="slerp")


def test_pose_a_blend_of_clips(fox):
    """A Walk -> Run cross-fade (weights per time) is blend_poses of the two local poses with the
    rest pose as rest; one clip of weight 1 is that clip."""
    times = np.linspace(0.0, 0.6, 7)
    fade = times / times[-1]
    key = fox.primitives[0].key
    posed = fox.pose(blend=[("Walk", 1 - fade), ("Run", fade)], times=times, loop=True)
    (wt, wr, ws), (rt, rr, rs) = (fox.local_pose(c, times, loop=True) for c in ("Walk", "Run"))
    sk_ = fox.skeleton
    r, t, s = sk.blend_poses(np.stack([wr, rr], 1), np.stack([wt, rt], 1), np.stack([ws, rs], 1),
                             np.stack([1 - fade, fade], 1),
                             rest=(sk_.rotations, sk_.translations, sk_.scales))
    np.testing.assert_allclose(posed[key], skin_by_hand(fox, r, t, s, sk.linear_blend_skinning),
                               rtol=0, atol=1e-9)
    # the ends of the fade are the clips themselves, up to the blend normalizing the file's
    # float32 quaternions (1e-7 of the model's size, about 100 units)
    np.testing.assert_allclose(posed[key][0], fox.pose("Walk", times[:1], loop=True)[key][0],
                               rtol=0, atol=1e-4)
    np.testing.assert_allclose(posed[key][-1], fox.pose("Run", times[-1:], loop=True)[key][0],
                               rtol=0, atol=1e-4)
    one = fox.pose(blend=[("Survey", 1.0)], times=times, skinning="dqs")
    np.testing.assert_allclose(one[key], fox.pose("Survey", times, skinning="dqs")[key],
                               rtol=0, atol=1e-4)
    with pytest.raises(ValueError, match="either clip or blend"):
        fox.pose("Run", times, blend=[("Walk", 1.0)])
    with pytest.raises(ValueError, match="7 weights"):
        fox.pose(blend=[("Walk", [0.5, 0.5])], times=times)
    with pytest.raises(ValueError, match="pairs"):
        fox.pose(blend=[], times=times)


@pytest.mark.shared
def test_cli_skinning(tmp_path, capsys, fox):
    lbs, dqs = tmp_path / "lbs.npz", tmp_path / "dqs.npz"
    for out, how in ((lbs, []), (dqs, ["--skinning", "dqs"])):
        code, _, err = run(["pose", FOX, "--clip", "Run", "--times", "0.2", "0.5", *how,
                            "--out", out], capsys)
        assert code == 0, err
    key = f"positions_{fox.primitives[0].key}"
    got = np.load(dqs)[key]
    np.testing.assert_array_equal(got, fox.pose("Run", [0.2, 0.5], skinning="dqs")[
        fox.primitives[0].key])
    assert not np.allclose(got, np.load(lbs)[key])
    code, _, err = run(["pose", FOX, "--skinning", "nope", "--out", lbs], capsys)
    assert code == 2 and "--skinning" in err
