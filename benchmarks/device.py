"""skinkit.torch on a device: FK, LBS and the body forward (and forward+backward) against the
C kernels (on the CPU), smplx (where installed, on the same device) and the device's memory
bandwidth, measured in the same run by a copy kernel.

    python benchmarks/device.py                  # cuda if available, else the CPU
    SKINKIT_NUM_THREADS=1 python benchmarks/device.py --device cpu --quick --threads 1

Each row: the median time of a call over rounds (``torch.cuda.synchronize`` around each on a
GPU), the bytes the call must move at least (its inputs read once, its outputs written once)
over that time as a fraction of the copy kernel's rate, and the peak memory the call allocates
on a CUDA device (``torch.cuda.max_memory_allocated``; not measured on the CPU).  On the CPU,
"torch" is the plain-torch kernel (``skinkit.torch.use_torch_kernels``) and "C" skinkit's C
kernels; on a GPU "torch" is what skinkit.torch runs there.
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from typing import Any, Callable, Dict, Iterator, List, Optional

import numpy as np
import torch

import skinkit as sk
import skinkit.torch as skt
from skinkit.torch.body import POSE_PARTS


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(fn: Callable[[], Any], device: torch.device, min_time: float, rounds: int) -> float:
    """Median seconds of one call over ``rounds`` samples of about ``min_time`` each."""
    fn()
    _sync(device)
    t0 = time.perf_counter()
    fn()
    _sync(device)
    inner = max(1, int(min_time / max(time.perf_counter() - t0, 1e-6)))
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        _sync(device)
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def peak(fn: Callable[[], Any], device: torch.device) -> Optional[int]:
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    fn()
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device) - base


def bandwidth(device: torch.device, nbytes: int, min_time: float, rounds: int) -> float:
    """Bytes per second of ``dst.copy_(src)`` (read plus write) of ``nbytes``."""
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    return 2 * nbytes / timed(lambda: dst.copy_(src), device, min_time, rounds)


@contextlib.contextmanager
def _kernels(name: str) -> Iterator[None]:
    with skt.use_torch_kernels() if name == "torch" else contextlib.nullcontext():
        yield


def _tree(J: int, rng: np.random.Generator) -> torch.Tensor:
    return torch.tensor([-1] + [int(rng.integers(0, j)) for j in range(1, J)])


def _nbytes(*tensors: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def cases(device: torch.device, quick: bool) -> Iterator[Dict[str, Any]]:
    """(case, size, contender -> a call, the bytes it moves)."""
    rng = np.random.default_rng(0)
    f32 = dict(dtype=torch.float32, device=device)
    names = ["torch"] + ["C"] * (device.type == "cpu")
    for J in (24, 55, 100):
        for B in ((256, 4096) if quick else (256, 4096, 65536)):
            parents = _tree(J, rng).to(device)
            q = torch.nn.functional.normalize(torch.randn(B, J, 4, **f32), dim=-1)
            t = torch.randn(B, J, 3, **f32)
            world = torch.empty(B, J, 4, 4, **f32)
            yield dict(case="FK", size=f"J={J} B={B}", bytes=_nbytes(q, t, world),
                       calls={n: (n, lambda: skt.forward_kinematics(parents, q, t))
                              for n in names})
    body = {k: sk.synthetic_body_model(k, dtype=np.float32) for k in ("SMPL", "SMPL-X")}
    x = body["SMPL-X"]
    lj, lw = (torch.from_numpy(np.ascontiguousarray(a)).to(device) for a in x._influences)
    V, J = x.num_vertices, x.num_joints
    for B in ((1, 64) if quick else (1, 64, 1024)):
        v = torch.randn(V, 3, **f32)
        m = torch.eye(4, **f32).expand(B, J, 4, 4).contiguous()
        m[..., :3, :] += 0.1 * torch.randn(B, J, 3, 4, **f32)
        out = torch.empty(B, V, 3, **f32)
        calls = {n: (n, lambda: skt.linear_blend_skinning(v, lj, lw, m)) for n in names}
        smplx_lbs = _smplx_skinning(x, v, m, device)
        if smplx_lbs is not None:
            calls["smplx"] = ("C", smplx_lbs)
        yield dict(case="LBS SMPL-X", size=f"V={V} K={lj.shape[1]} B={B}",
                   bytes=_nbytes(v, lj, lw, m, out), calls=calls)
    for kind, model in body.items():
        net = skt.BodyModel(sk.synthetic_body_arrays(kind)).to(device)
        P = 3 * dict(POSE_PARTS[kind])["body_pose"]
        for B in ((1, 64) if quick else (1, 64, 1024)):
            pose = 0.2 * torch.randn(B, P, **f32)
            betas = torch.randn(B, 10, **f32)
            orient = torch.zeros(B, 3, **f32)
            verts = torch.empty(B, model.num_vertices, 3, **f32)
            minimal = _nbytes(pose, betas, verts) + model._basis.nbytes     # the basis, once

            def fwd() -> Any:
                return net(betas=betas, global_orient=orient, body_pose=pose).vertices

            def fwd_bwd() -> Any:
                p = pose.detach().requires_grad_()
                out = net(betas=betas, global_orient=orient, body_pose=p).vertices
                out.sum().backward()
                return p.grad

            for what, fn in (("forward", fwd), ("forward+backward", fwd_bwd)):
                calls = {n: (n, fn) for n in names}
                ref = _smplx_body(model, betas, pose, orient, device, what)
                if ref is not None:
                    calls["smplx"] = ("C", ref)
                yield dict(case=f"body {kind} {what}", size=f"B={B}", bytes=minimal,
                           calls=calls)


def _smplx() -> Any:
    try:
        import smplx.lbs
        return smplx.lbs
    except ImportError:
        return None


def _smplx_skinning(model: Any, v: torch.Tensor, m: torch.Tensor, device: torch.device
                    ) -> Optional[Callable[[], Any]]:
    """smplx's skinning step: the dense (V, J) weights blend the 4x4 matrices (smplx.lbs.lbs's
    ``T = W @ A``), then the product with the homogeneous vertices."""
    if _smplx() is None:
        return None
    W = torch.from_numpy(np.ascontiguousarray(model.weights, np.float32)).to(device)

    def call() -> Any:
        T = torch.matmul(W, m.reshape(m.shape[0], m.shape[1], 16)).reshape(
            m.shape[0], -1, 4, 4)
        return (T[..., :3, :3] @ v[..., None])[..., 0] + T[..., :3, 3]
    return call


def _smplx_body(model: Any, betas: torch.Tensor, pose: torch.Tensor, orient: torch.Tensor,
                device: torch.device, what: str) -> Optional[Callable[[], Any]]:
    """smplx.lbs.lbs (the forward of smplx's layers) on the model's arrays."""
    lbs = _smplx()
    if lbs is None:
        return None
    t = {k: torch.from_numpy(np.array(a, np.float32)).to(device) for k, a in dict(
        v_template=model.v_template, shapedirs=model.shapedirs[:, :, :betas.shape[1]],
        posedirs=model.posedirs.reshape(-1, model.posedirs.shape[-1]).T,
        J_regressor=model.J_regressor, weights=model.weights).items()}
    parents = torch.from_numpy(model.parents.astype(np.int64)).to(device)

    def call() -> Any:
        p = pose.detach().requires_grad_(what != "forward")
        rest = torch.zeros(p.shape[0], 3 * model.num_joints - 3 - p.shape[1], dtype=p.dtype,
                           device=device)             # the hands, jaw and eyes of SMPL-X
        full = torch.cat([orient, p, rest], 1)
        v, _ = lbs.lbs(betas, full, t["v_template"], t["shapedirs"], t["posedirs"],
                       t["J_regressor"], parents, t["weights"])
        if what != "forward":
            v.sum().backward()
        return v
    return call


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--quick", action="store_true", help="small sizes, short samples")
    ap.add_argument("--threads", type=int, help="torch's intra-op threads (the C kernels': "
                    "SKINKIT_NUM_THREADS)")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    min_time, rounds = (0.02, 3) if args.quick else (0.1, 7)
    bw = bandwidth(device, (64 if args.quick else 1024) << 20, min_time, rounds)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"device: {name}, torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"copy kernel: {bw / 1e9:.1f} GB/s (read + write)")
    print(f"{'case':<28} {'size':<22} {'contender':<8} {'ms':>10} {'% bw':>7} {'peak MiB':>9}")
    for c in cases(device, args.quick):
        for who, (kernels, fn) in c["calls"].items():
            with _kernels(kernels):
                s = timed(fn, device, min_time, rounds)
                mem = peak(fn, device)
            frac = 100 * c["bytes"] / s / bw
            mib = "-" if mem is None else f"{mem / 2**20:.1f}"
            print(f"{c['case']:<28} {c['size']:<22} {who:<8} {1e3 * s:>10.3f} {frac:>6.2f}% "
                  f"{mib:>9}", flush=True)


if __name__ == "__main__":
    main()
