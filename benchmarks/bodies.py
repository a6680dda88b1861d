"""Benchmark group "body": SMPL-family body models, skinkit.BodyModel and skinkit.torch.BodyModel
(the nn.Module, through the torch operator) against smplx and body-models (PyPI, its torch
runtime), torch CPU.

- forward (betas, pose, transl -> vertices, joints) at B = 1, 64, 1024 against smplx's full
  module forward (smplx.SMPL / smplx.SMPLX built from the same synthetic arrays), with the
  pose-corrective GEMM alone (``(B, 9(J-1)) @ (9(J-1), 3V)`` in NumPy) as the bound skinkit
  cannot beat;
- forward + backward (skinkit: forward_vjp and its vjp; smplx: the same forward under torch
  autograd, then ``backward``) for the gradients of betas, pose and transl.

float32 (smplx's default), 1 and 2 threads: torch.set_num_threads for the torch peers and
skinkit's threads=, which bounds NumPy's BLAS too (skinkit/_blas.py): NumPy's BLAS is left at
its default here, so the rows show what a user gets.
The model files are licensed, so the models are synthetic arrays of the real sizes.
"""
from __future__ import annotations

import os
import tempfile
from typing import Dict

import numpy as np

from context import Ctx, bench, finish, installed, missing, tol_for  # noqa: F401 (Ctx: type)
from harness import Case, Target

import skinkit

# seconds of sleep between two contenders: OpenBLAS's threads spin for 2**28 cycles (its
# THREAD_TIMEOUT, ~0.1 s) after a product of NumPy's, and torch's OpenMP threads a while after a
# parallel region; with 0.02 s the torch module on 2 threads after skinkit's NumPy row took
# 18.5 ms a SMPL forward at B = 64, with 0.2 s 4.3-4.8 ms (6.3 on 1 thread)
GAP = 0.2


def smplx_module(kind, arrays, tmpdir):
    """smplx's own module for the arrays (float32, 10 betas, 10 expression coefficients, no
    hand PCA, no hand mean), as ML code builds it."""
    import smplx
    import torch
    if kind == "SMPL":
        from smplx.utils import Struct
        return smplx.SMPL(model_path=tmpdir, data_struct=Struct(**arrays), dtype=torch.float32)
    path = os.path.join(tmpdir, "SMPLX_NEUTRAL.npz")
    np.savez(path, **arrays)
    return smplx.SMPLX(path, use_pca=False, flat_hand_mean=True, use_face_contour=False,
                       num_expression_coeffs=10, dtype=torch.float32)


def smplx_call(module, kind, params, grad=False, **extra):
    """module(...) on torch tensors made from ``params`` (B, ...) arrays; returns the output
    and the leaf tensors."""
    import torch
    betas, pose, transl, expr = (None if p is None else torch.tensor(p, requires_grad=grad)
                                 for p in params)
    kw = dict(betas=betas, global_orient=pose[:, 0], transl=transl)
    if kind == "SMPL":
        kw["body_pose"] = pose[:, 1:].reshape(len(pose), -1)
    else:
        kw.update(body_pose=pose[:, 1:22].reshape(len(pose), -1), jaw_pose=pose[:, 22],
                  leye_pose=pose[:, 23], reye_pose=pose[:, 24],
                  left_hand_pose=pose[:, 25:40].reshape(len(pose), -1),
                  right_hand_pose=pose[:, 40:55].reshape(len(pose), -1), expression=expr)
    out = module(**kw, **extra)
    return out, [t for t in (betas, pose, transl, expr) if t is not None]


def relative_diff(a, b) -> float:
    """Largest of max|a_i - b_i| / max|b_i| over the gradients a_i, b_i (their scales differ)."""
    return max(float(np.abs(np.asarray(x, np.float64) - y).max() / np.abs(y).max())
               for x, y in zip(a, b))


def body_models_module(kind, arrays, tmpdir):
    """body-models' torch model for the arrays (its loader wants SMPL-X's joint2num)."""
    path = os.path.join(tmpdir, f"bm_{kind}.npz")
    extra = {"joint2num": np.array({f"j{i}": i for i in range(55)}, dtype=object)} \
        if kind == "SMPL-X" else {}
    np.savez(path, **arrays, **extra)
    if kind == "SMPL":
        from body_models.smpl.torch import SMPL
        return SMPL(model_path=path)
    from body_models.smplx.torch import SMPLX
    return SMPLX(model_path=path)


def body_models_call(module, kind, params, grad=False):
    """body-models' vertices and joints (two calls: it has no joint forward); leaves."""
    import torch
    betas, pose, transl, expr = (None if p is None else torch.tensor(p, requires_grad=grad)
                                 for p in params)
    kw = dict(pelvis_rotation=pose[:, 0], shape=betas, global_translation=transl)
    if kind == "SMPL":
        args = (pose[:, 1:],)
    else:
        args = (pose[:, 1:22], pose[:, 22:25], pose[:, 25:55])
        kw["expression"] = expr
    v = module.forward_vertices(*args, **kw)
    j = module.forward_skeleton(*args, **kw)[..., :3, 3]
    return (v, j), [t for t in (betas, pose, transl, expr) if t is not None]


def group_body(ctx: Ctx):
    no = installed("torch", "smplx")
    no_bm = installed("torch", "body_models")
    if not no:
        import torch
        threads_before = torch.get_num_threads()
    Bs = [2] if ctx.quick else [1, 64, 1024]
    rng = np.random.default_rng(12)
    with tempfile.TemporaryDirectory() as tmpdir:
        for kind in ("SMPL", "SMPL-X"):
            arrays = skinkit.synthetic_body_arrays(kind)  # full size: smplx's extra joints index vertices
            model = skinkit.BodyModel(arrays, dtype=np.float32)
            module = None if no else smplx_module(kind, arrays, tmpdir)
            bm = None if no_bm else body_models_module(kind, arrays, tmpdir)
            skt = None if no else _skt_module(kind, arrays)
            peers = dict(smplx=module, bm=bm, skt=skt, no=no, no_bm=no_bm)
            J = model.num_joints
            for B in Bs:
                params = (rng.normal(size=(B, 10)).astype(np.float32),
                          rng.normal(scale=0.3, size=(B, J, 3)).astype(np.float32),
                          rng.normal(size=(B, 3)).astype(np.float32),
                          rng.normal(size=(B, 10)).astype(np.float32) if kind == "SMPL-X"
                          else None)
                for thr in ctx.threads:
                    if not no:
                        torch.set_num_threads(thr)
                    _forward_case(ctx, kind, model, peers, params, B, thr)
                    _backward_case(ctx, kind, model, peers, params, B, thr)
    if not no:
        torch.set_num_threads(threads_before)


def _skt_module(kind, arrays):
    import torch
    import skinkit.torch
    return skinkit.torch.BodyModel(arrays, dtype=torch.float32, flat_hand_mean=True)


def _vj(out, J):
    return out.vertices.detach().numpy(), out.joints.detach().numpy()[:, :J]


def _forward_case(ctx, kind, model, peers, params, B, thr):
    module, no = peers["smplx"], peers["no"]
    V, J, P = model.num_vertices, model.num_joints, 9 * (model.num_joints - 1)
    feat = np.random.default_rng(1).normal(size=(B, P)).astype(np.float32)
    posedirs = np.ascontiguousarray(model.posedirs.reshape(3 * V, P).T)

    def sk_forward():
        return model.forward(*params, threads=thr)

    case = Case("body", f"{kind} forward: params -> vertices, joints", f"B={B} V={V} J={J}",
                "float32", thr, params={"B": B, "V": V, "J": J})
    entries: Dict[str, object] = {"skinkit": sk_forward}
    if no:
        entries["skinkit.torch.BodyModel"] = entries["smplx " + kind] = missing(no)
    else:
        import torch

        def skt_forward():
            with torch.no_grad():
                return _vj(smplx_call(peers["skt"], kind, params, threads=thr)[0], J)

        def smplx_forward():
            with torch.no_grad():
                out, _ = smplx_call(module, kind, params)
            return out.vertices.numpy(), out.joints.numpy()[:, :J]
        entries["skinkit.torch.BodyModel"] = skt_forward
        entries["smplx " + kind] = smplx_forward
    if peers["no_bm"]:
        entries["body-models " + kind] = missing(peers["no_bm"])
    else:
        def bm_forward():
            import torch
            with torch.no_grad():
                (v, j), _ = body_models_call(peers["bm"], kind, params)
            return v.numpy(), j.numpy()
        entries["body-models " + kind] = bm_forward
    entries["pose-corrective GEMM (bound)"] = (lambda: feat @ posedirs, None)
    bench(ctx, case, entries, tol=tol_for(np.float32, 4), gap=GAP)
    gemm = case.time("pose-corrective GEMM (bound)")
    if B == (2 if ctx.quick else 64):
        case.targets.append(Target("x faster than smplx", "smplx " + kind,
                                   case.ratio("smplx " + kind), ">=", 5, "x"))
        sk_t = case.time("skinkit")
        case.targets.append(Target("skinkit time / GEMM time", "pose-corrective GEMM (bound)",
                                   sk_t / gemm if sk_t and gemm else None, "<=", 1.5, "x"))
    case.notes.append(f"skinkit: BodyModel.forward (10 betas{', 10 expression' if kind == 'SMPL-X' else ''}, "
                      "exact rotations); skinkit.torch.BodyModel: the nn.Module on tensors; smplx: the "
                      "module's forward under no_grad (includes its extra joints); body-models: "
                      "forward_vertices and forward_skeleton (two calls, it has no joint output); "
                      "GEMM: (B, 9(J-1)) @ (9(J-1), 3V) alone")
    finish(ctx, case)


def _backward_case(ctx, kind, model, peers, params, B, thr):
    module, no = peers["smplx"], peers["no"]
    V, J = model.num_vertices, model.num_joints
    g = np.random.default_rng(2)
    gv = g.normal(size=(B, V, 3)).astype(np.float32)
    gj = g.normal(size=(B, J, 3)).astype(np.float32)

    def sk_fb():
        (_, _), vjp = model.forward_vjp(*params, threads=thr)
        return vjp(gv, gj)

    case = Case("body", f"{kind} forward+backward: d/d(betas, pose, transl)",
                f"B={B} V={V} J={J}", "float32", thr,
                params={"B": B, "V": V, "J": J})
    entries: Dict[str, object] = {"skinkit": sk_fb}
    if no:
        entries["skinkit.torch.BodyModel"] = entries["torch autograd through smplx"] = missing(no)
    else:
        import torch
        tgv, tgj = torch.from_numpy(gv), torch.from_numpy(gj)

        def skt_fb():
            out, leaves = smplx_call(peers["skt"], kind, params, grad=True, threads=thr)
            ((out.vertices * tgv).sum() + (out.joints[:, :J] * tgj).sum()).backward()
            b, p, t = (x.grad.numpy() for x in leaves[:3])
            return (b, p, t) + ((leaves[3].grad.numpy(),) if len(leaves) > 3 else ())
        entries["skinkit.torch.BodyModel"] = skt_fb

        def torch_fb():
            out, leaves = smplx_call(module, kind, params, grad=True)
            ((out.vertices * tgv).sum() + (out.joints[:, :J] * tgj).sum()).backward()
            b, p, t = (x.grad.numpy() for x in leaves[:3])
            return (b, p, t) + ((leaves[3].grad.numpy(),) if len(leaves) > 3 else ())
        entries["torch autograd through smplx"] = torch_fb
    if peers["no_bm"]:
        entries["torch autograd through body-models"] = missing(peers["no_bm"])
    else:
        import torch
        tgv, tgj = torch.from_numpy(gv), torch.from_numpy(gj)

        def bm_fb():
            (v, j), leaves = body_models_call(peers["bm"], kind, params, grad=True)
            ((v * tgv).sum() + (j * tgj).sum()).backward()
            b, p, t = (x.grad.numpy() for x in leaves[:3])
            return (b, p, t) + ((leaves[3].grad.numpy(),) if len(leaves) > 3 else ())
        entries["torch autograd through body-models"] = bm_fb
    bench(ctx, case, entries, compare=relative_diff, tol=1e-3, gap=GAP)
    if B == (2 if ctx.quick else 64):
        case.targets.append(Target("x faster than torch autograd", "torch autograd through smplx",
                                   case.ratio("torch autograd through smplx"), ">=", 5, "x"))
    case.notes.append("gradients of <g_v, vertices> + <g_j, joints> with respect to betas, pose, "
                      "transl (and expression); compared with smplx's (smplx adds 1e-8 to rotation "
                      "vectors)")
    finish(ctx, case)
