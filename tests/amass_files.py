"""AMASS-layout motion files for the tests (random poses): the keys, shapes and scalar types
of AMASS's SMPL+H release files."""
import numpy as np


def write_motion(path, T, fps=30.0, seed=0, gender="male", joints=52, rest_frames=0,
                 poses=None, trans=None, betas=None):
    """An AMASS SMPL+H-layout file: poses (T, 3 J), trans (T, 3), betas (16,), gender,
    mocap_framerate, dmpls (T, 8); the first ``rest_frames`` frames at the rest pose (zero
    poses and trans); ``poses``, ``trans``, ``betas`` given replace the random ones."""
    rng = np.random.default_rng(seed)
    live = np.arange(T)[:, None] >= rest_frames
    random_poses = live * rng.normal(0, 0.3, (T, 3 * joints))
    random_trans = live * rng.normal(0, 0.5, (T, 3))
    random_betas = rng.normal(0, 1, 16)
    np.savez(path, poses=random_poses if poses is None else poses,
             trans=random_trans if trans is None else trans,
             betas=random_betas if betas is None else betas, gender=np.array(gender),
             mocap_framerate=np.array(fps), dmpls=np.zeros((T, 8)))
    return path


def write_motion_smplx(path, T, fps=30.0, seed=0, gender="neutral"):
    """An AMASS SMPL-X-layout file: root_orient, pose_body, pose_jaw, pose_eye, pose_hand,
    trans, betas (16,), gender, mocap_frame_rate, surface_model_type."""
    rng = np.random.default_rng(seed)
    widths = {"root_orient": 3, "pose_body": 63, "pose_jaw": 3, "pose_eye": 6, "pose_hand": 90,
              "trans": 3}
    np.savez(path, **{k: rng.normal(0, 0.3, (T, w)) for k, w in widths.items()},
             betas=rng.normal(0, 1, 16), gender=np.array(gender),
             mocap_frame_rate=np.array(fps), surface_model_type=np.array("smplx"))
    return path
