"""Issue 12's targets, before and after in one run: every case times this skinkit ("after"),
another build of skinkit ("before", e.g. main's, installed into a folder) and the case's
yardstick or peer (the compiled C triad, NumPy einsum, smplx.lbs) in the same interleaved rounds,
and prints each target's value for both builds.

    pip install --no-deps --target /tmp/skinkit-main <checkout of main>
    python benchmarks/compare.py --base /tmp/skinkit-main        # a few minutes
    python benchmarks/compare.py --base /tmp/skinkit-main --quick

The other build is imported from <base>/skinkit under the name skinkit_base, so both load side by
side in one process.  Medians of --repeats interleaved rounds (harness.time_interleaved).
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import cases
import context  # noqa: E402
import peers  # noqa: E402
from harness import time_interleaved  # noqa: E402

import skinkit  # noqa: E402


def load_base(folder: str):
    """skinkit from folder/skinkit, imported as the package skinkit_base."""
    pkg = os.path.join(folder, "skinkit")
    init = os.path.join(pkg, "__init__.py")
    if not os.path.isfile(init):
        raise SystemExit(f"no skinkit package in {folder}")
    spec = importlib.util.spec_from_file_location("skinkit_base", init,
                                                  submodule_search_locations=[pkg])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["skinkit_base"] = mod
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="folder holding the other build's skinkit/")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, 3 rounds (seconds)")
    ap.add_argument("--repeats", type=int, default=None, help="rounds (default 9, --quick 3)")
    args = ap.parse_args(argv)
    base = load_base(args.base)
    builds = {"after": skinkit, "before": base}
    rounds = args.repeats or (3 if args.quick else 9)
    min_time = 0.002 if args.quick else 0.05
    llc = context.last_level_cache()
    big = 10_000 if args.quick else context.out_of_cache(llc, cases.LBS_BYTES)
    tri = peers.CTriad(context.triad_array_bytes(llc, args.quick), 2)
    print(f"after: skinkit {skinkit.__file__} (SIMD {skinkit._core.simd()}); before: "
          f"{base.__file__}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; medians of "
          f"{rounds} interleaved rounds")

    def row(name, fns, metric, gap=0.001):
        t = {k: v[0] for k, v in time_interleaved(fns, rounds, min_time, gap=gap).items()}
        print(f"{name:44s} " + "  ".join(f"{k} {v:.3g}" for k, v in metric(t).items()),
              flush=True)

    for V in ([1_000, big] if args.quick else [10_000, 100_000, 1_000_000, big]):
        v, j, w, m, n = cases.make_lbs_problem(V)
        for nrm in (None, n):
            bpv = cases.LBS_NORMAL_BYTES if nrm is not None else cases.LBS_BYTES
            for thr in ((1, 2) if V == big else (1,)):
                out = ((np.empty((V, 3), np.float32), np.empty((V, 3), np.float32))
                       if nrm is not None else np.empty((V, 3), np.float32))
                fns = {b: functools.partial(mod.linear_blend_skinning, v, j, w, m, normals=nrm,
                                            out=out, threads=thr) for b, mod in builds.items()}
                if V == big:             # out of cache: the triad; no einsum's temporary
                    fns["triad"] = functools.partial(tri.run, thr)
                else:
                    fns["einsum"] = functools.partial(peers.np_lbs, v, j, w, m, nrm)

                def metric(t, V=V, bpv=bpv):
                    d = {f"{b} Mvert/s": V / t[b] / 1e6 for b in builds}
                    if "einsum" in t:
                        d.update({f"{b} x einsum": t["einsum"] / t[b] for b in builds})
                    if "triad" in t:
                        bw = tri.bytes_moved / t["triad"]
                        d["C triad GB/s"] = bw / 1e9
                        d.update({f"{b} of triad": V * bpv / t[b] / bw for b in builds})
                    return d
                row(f"LBS V={V:,} {'positions+normals' if nrm is not None else 'positions'} "
                    f"thr={thr}", fns, metric)

    rng = np.random.default_rng(1)
    B, J = (64, 24) if args.quick else (4096, 24)
    q = cases.random_unit_quats(rng, (B, J), np.float32)
    t3 = rng.normal(scale=0.2, size=(B, J, 3)).astype(np.float32)
    s3 = rng.uniform(0.9, 1.1, size=(B, J, 3)).astype(np.float32)
    rest = rng.normal(scale=0.2, size=(J, 3)).astype(np.float32)
    world = np.empty((B, J, 4, 4), np.float32)
    qt = (np.empty((B, J, 4), np.float32), np.empty((B, J, 3), np.float32))
    par = cases.SMPL_PARENTS
    for kind, call in (("TRS", lambda mod: functools.partial(
            mod.forward_kinematics, par, q, t3, s3, out=world, threads=1)),
                       ("rigid", lambda mod: functools.partial(
            mod.rigid_forward_kinematics, par, rest, q, out=qt, threads=1))):
        row(f"FK {kind} B={B} J={J} thr=1", {b: call(mod) for b, mod in builds.items()},
            lambda t: {f"{b} Mjoints/s": B * J / t[b] / 1e6 for b in builds})

    key_times, trans, rots = cases.make_clip_data(64, 100)
    clips = {b: mod.Clip("c", [mod.Channel(jj, path, key_times, vals[jj]) for jj in range(64)
                               for path, vals in (("translation", trans), ("rotation", rots))])
             for b, mod in builds.items()}
    rp = (np.zeros((64, 3)), np.tile([0.0, 0, 0, 1], (64, 1)), np.ones((64, 3)))
    T = 1_000 if args.quick else 10_000
    rt = np.random.default_rng(3).uniform(0, key_times[-1], T)
    for order in ("sorted", "random"):
        times = np.sort(rt) if order == "sorted" else rt
        fns = {b: functools.partial(c.sample, times, rp, threads=1) for b, c in clips.items()}
        fns["after, out="] = functools.partial(clips["after"].sample, times, rp, threads=1,
                                               out=clips["after"].sample(times, rp))
        row(f"Clip.sample float64 {order} T={T:,} thr=1", fns,
            lambda t: {f"{k} Mjoint-samples/s": T * 64 / v / 1e6 for k, v in t.items()})

    smpl_rows(builds, row, par, quick=args.quick)
    print(f"load at the end {os.getloadavg()[0]:.2f}")


def smpl_rows(builds, row, par, quick: bool) -> None:
    """SMPL pose -> vertices (quaternions, FK, skinning matrices, LBS) of each build against
    smplx.lbs, at 1 and 2 threads (torch's thread count restored afterwards)."""
    if context.installed("torch", "smplx"):
        print("SMPL vs smplx.lbs: torch or smplx not installed")
        return
    import torch
    sm = cases.make_smpl()
    model = peers.SmplTorch(sm["v_template"], sm["J_regressor"], par, sm["dense"])
    B = 4 if quick else 64
    pose = np.random.default_rng(7).normal(scale=0.3, size=(B, 72)).astype(np.float32)
    tpose, betas = torch.from_numpy(pose), torch.zeros((B, 10), dtype=torch.float32)
    threads_before = torch.get_num_threads()
    try:
        for thr in (1, 2):
            torch.set_num_threads(thr)

            def pipeline(mod, thr=thr):
                from_rotvec = getattr(mod, "quat_from_rotvec", None) or mod.quat_from_axis_angle
                world = mod.forward_kinematics(par, from_rotvec(             # (renamed in 0.2)
                    pose.reshape(B, 24, 3), threads=thr), sm["rel"], threads=thr)
                return mod.linear_blend_skinning(
                    sm["v_template"], sm["joints"], sm["weights"],
                    mod.skinning_matrices(world, sm["inv_bind"], threads=thr), threads=thr)
            fns = {b: functools.partial(pipeline, mod) for b, mod in builds.items()}
            fns["smplx.lbs"] = lambda: model.lbs(betas, tpose).numpy()
            row(f"SMPL pose -> vertices B={B} thr={thr}", fns,
                lambda t: {f"{b} x smplx.lbs": t["smplx.lbs"] / t[b] for b in builds}, gap=0.02)
    finally:
        torch.set_num_threads(threads_before)


if __name__ == "__main__":
    main()
