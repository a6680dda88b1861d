"""Fit SMPL pose and shape to 3D joint targets with SciPy's L-BFGS-B, gradients from skinkit's
``BodyModel.forward_vjp`` (no torch), timed against the same fit through smplx + torch autograd.

    python examples/fit_smpl.py                    # a synthetic SMPL-sized model
    python examples/fit_smpl.py SMPL_NEUTRAL.pkl   # a real model file (.pkl or .npz)

Both fits minimise the same float64 objective from the same start,

    sum_j |joint_j(betas, pose, transl) - target_j|^2 + 1e-3 |betas|^2,

over x = (betas (10), pose (24 x 3 axis-angle), transl (3)), with scipy.optimize.minimize(
method="L-BFGS-B", jac=True); the targets are the joints of a random true pose and shape.
"""
from __future__ import annotations

import sys
import time

import numpy as np
from scipy.optimize import minimize

import skinkit

NB, REG = 10, 1e-3


def split(x, J):
    return x[:NB], x[NB:NB + 3 * J].reshape(J, 3), x[NB + 3 * J:]


def objective_skinkit(model, target):
    J = model.num_joints

    def f(x):
        betas, pose, transl = split(x, J)
        (_, joints), vjp = model.forward_vjp(betas, pose, transl)
        r = joints - target
        g_betas, g_pose, g_transl = vjp(None, 2 * r)
        grad = np.concatenate([g_betas + 2 * REG * betas, g_pose.ravel(), g_transl])
        return float(np.sum(r * r) + REG * betas @ betas), grad
    return f


def objective_smplx(arrays, target):
    """The same objective through smplx's SMPL module (float64) and torch autograd."""
    import torch
    import smplx
    from smplx.utils import Struct
    module = smplx.SMPL(model_path="", data_struct=Struct(**arrays), dtype=torch.float64,
                        num_betas=NB)
    J = target.shape[0]
    t_target = torch.from_numpy(target)

    def f(x):
        xt = torch.tensor(x, requires_grad=True)
        betas, pose, transl = xt[:NB], xt[NB:NB + 3 * J], xt[NB + 3 * J:]
        out = module(betas=betas[None], global_orient=pose[None, :3], body_pose=pose[None, 3:],
                     transl=transl[None])
        r = out.joints[0, :J] - t_target
        loss = (r * r).sum() + REG * (betas * betas).sum()
        loss.backward()
        return loss.item(), xt.grad.numpy().copy()
    return f


def fit(f, x0):
    t0 = time.perf_counter()
    res = minimize(f, x0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return res, time.perf_counter() - t0


def main(argv):
    if len(argv) > 1:
        model = skinkit.load_body_model(argv[1])
        from skinkit.io.body import read_body_arrays
        arrays = read_body_arrays(argv[1])
    else:
        arrays = skinkit.synthetic_body_arrays("SMPL", seed=1)
        model = skinkit.BodyModel(arrays)
    rng = np.random.default_rng(0)
    J = model.num_joints
    true = np.concatenate([rng.normal(size=NB), rng.normal(scale=0.3, size=3 * J),
                           rng.normal(scale=0.1, size=3)])
    _, target = model.forward(*split(true, J))
    x0 = np.zeros_like(true)
    rows = [("skinkit forward_vjp", objective_skinkit(model, target))]
    try:
        rows.append(("smplx + torch autograd", objective_smplx(arrays, target)))
    except ImportError as e:
        print(f"(smplx + torch not run: {e})")
    print(f"{model}: fitting {x0.size} parameters to {J} joint targets")
    print(f"{'':24} {'time':>9} {'iterations':>10} {'evaluations':>11} {'per eval':>9} "
          f"{'RMS joint error':>16}")
    for name, f in rows:
        f(x0)                                           # warm up (allocations, torch init)
        res, dt = fit(f, x0)
        _, joints = model.forward(*split(res.x, J))
        rms = np.sqrt(np.mean(np.sum((joints - target) ** 2, axis=-1)))
        print(f"{name:24} {dt:8.3f}s {res.nit:10d} {res.nfev:11d} {1e3 * dt / res.nfev:7.2f}ms "
              f"{rms:16.3e}")


if __name__ == "__main__":
    main(sys.argv)
