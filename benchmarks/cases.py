"""The benchmark cases, by group.  Each group function yields measured ``Case`` records.

Groups: triad, lbs, dqs, fk, sample, quat, overhead, memory, smpl (see README "Benchmarks").
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from typing import Dict

import numpy as np

from harness import Case, Impl, Target, Unavailable, accepts_out
import peers
from bodies import group_body  # noqa: F401  (group "body": benchmarks/bodies.py)
from context import (OUT_OF_CACHE, Ctx, bench, finish, installed, maxdiff, missing,
                     out_of_cache, quat_diff, rate_metrics, sk, tol_for)
from fitting import group_fit  # noqa: F401  (group "fit": benchmarks/fitting.py)

from skinkit import kernels as K

HERE = os.path.dirname(os.path.abspath(__file__))

SMPL_PARENTS = np.array([-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18,
                         19, 20, 21])
LBS_BYTES = 12 + 8 + 16 + 12          # per vertex, positions: xyz in, 4 uint16, 4 float32, xyz out
LBS_NORMAL_BYTES = LBS_BYTES + 12 + 12  # + normal in, normal out
GROUPS = ("triad", "lbs", "dqs", "fk", "sample", "quat", "overhead", "memory", "smpl", "body",
          "fit")


# ----------------------------------------------------------------------------- data


def make_lbs_problem(V, J=64, k=4, dtype=np.float32, seed=0):
    """Random bind-pose vertices and unit normals, K influences per vertex (uint16 joints,
    weights summing to 1), J rigid skinning matrices (rotation plus translation)."""
    rng = np.random.default_rng(seed)
    vertices = rng.uniform(-1, 1, (V, 3)).astype(dtype)
    normals = rng.normal(size=(V, 3))
    normals = (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(dtype)
    joints = rng.integers(0, J, (V, k), dtype=np.uint16)
    weights = rng.random((V, k), dtype=np.float32) + 0.01
    weights = (weights / weights.sum(axis=1, keepdims=True)).astype(dtype)
    mats = np.zeros((J, 4, 4))
    mats[:, :3, :3] = rotvec_to_matrix(rng.normal(size=(J, 3)))
    mats[:, :3, 3] = rng.normal(size=(J, 3))
    mats[:, 3, 3] = 1
    return vertices, joints, weights, mats.astype(dtype), normals


def rotvec_to_quat(rotvec):
    """(..., 3) rotation vectors -> (..., 4) unit quaternions (x, y, z, w), plain NumPy."""
    angle = np.linalg.norm(rotvec, axis=-1, keepdims=True)
    axis = np.divide(rotvec, angle, out=np.zeros_like(rotvec), where=angle > 0)
    return np.concatenate([axis * np.sin(angle / 2), np.cos(angle / 2)], axis=-1)


def rotvec_to_matrix(rotvec):
    return peers.np_quat_to_matrix(rotvec_to_quat(rotvec))


def random_unit_quats(rng, shape, dtype=np.float64):
    q = rng.normal(size=shape + (4,))
    return (q / np.linalg.norm(q, axis=-1, keepdims=True)).astype(dtype)


def random_parents(J, rng):
    """A random tree with parents before children (joint i's parent is one of 0..i-1)."""
    return np.array([-1] + [int(rng.integers(0, i)) for i in range(1, J)])


# ----------------------------------------------------------------------------- triad


def group_triad(ctx: Ctx):
    """The compiled STREAM triad (the yardstick of every bandwidth-bound case) and NumPy's."""
    np_tri = peers.NumpyTriad(ctx.triad_bytes)
    np_tri.run(1)                                   # touch every page
    size = f"3 x {np_tri.n * 8 / 2**20:.0f} MiB"
    for thr in ctx.threads:
        case = Case("triad", "STREAM triad a = b + s*c", size, "float64", thr,
                    params={"elements": np_tri.n, "bytes_per_element": 24})
        name, entry = ctx.triad_entry(thr)
        bench(ctx, case, {name: entry,
                          f"NumPy triad ({thr} thr)": (functools.partial(np_tri.run, thr), None)})
        for im in case.impls:
            if im.ok:
                case.metrics[im.name] = {"GB/s": np_tri.bytes_moved / im.median_s / 1e9}
        case.impl(f"NumPy triad ({thr} thr)").max_abs_diff = np_tri.check()
        if case.impl(name).ok:
            tri = ctx.triad()
            reps = 3 if ctx.quick else 10
            best = tri.best(thr, reps)
            case.impl(name).max_abs_diff = tri.check()
            case.metrics[name][f"GB/s best of {reps}"] = tri.bytes_moved / best / 1e9
            case.params["compiler"] = tri.compiler
        case.notes.append("bytes counted as STREAM does: 3 x 8 B per element (read b, read c, "
                          "write a), no write-allocate; C triad: triad.c compiled with -O3, "
                          "pthreads (the yardstick); NumPy triad: chunked ufuncs, Python threads")
        finish(ctx, case)
    del np_tri


# ----------------------------------------------------------------------------- lbs


def group_lbs(ctx: Ctx):
    """LBS in cache and, at the largest size (out of cache but with --quick), against the
    triad; NumPy's einsum where its V x K x 16 temporary is small beside the data."""
    sizes = [1_000] if ctx.quick else [10_000, 100_000, 1_000_000,
                                       out_of_cache(ctx.llc_bytes, LBS_BYTES)]
    for V in sizes:
        v, j, w, m, n = make_lbs_problem(V)
        largest = V == sizes[-1]
        einsum = ctx.quick or not largest
        for with_normals in (False, True):
            bpv = LBS_NORMAL_BYTES if with_normals else LBS_BYTES
            for thr in ctx.threads:
                op = "lbs positions+normals" if with_normals else "lbs positions"
                case = Case("lbs", op, f"V={V:,} J=64 K=4", "float32", thr,
                            params={"V": V, "J": 64, "K": 4, "joints": "uint16",
                                    "normals": with_normals, "bytes_per_vertex": bpv})
                f = sk(K.linear_blend_skinning, thr)
                entries: Dict[str, object] = {}
                nrm = n if with_normals else None
                if isinstance(f, Unavailable):
                    entries["skinkit"] = f
                else:
                    out = ((np.empty((V, 3), np.float32), np.empty((V, 3), np.float32))
                           if with_normals else np.empty((V, 3), np.float32))
                    entries["skinkit"] = functools.partial(f, v, j, w, m, normals=nrm, out=out)
                    if largest:
                        entries["skinkit (no out=)"] = functools.partial(f, v, j, w, m,
                                                                         normals=nrm)
                if einsum:
                    entries["numpy einsum"] = functools.partial(peers.np_lbs, v, j, w, m, nrm)
                if largest:
                    name, entry = ctx.triad_entry(thr)
                    entries[name] = entry
                bench(ctx, case, entries, tol=tol_for(np.float32, 8))
                for im in case.impls:
                    if im.ok and im.same_work:
                        case.metrics[im.name] = {"Mvert/s": V / im.median_s / 1e6,
                                                 "GB/s": V * bpv / im.median_s / 1e9}
                frac = ctx.triad_fraction(case, V * bpv) if largest else None
                if frac is not None:
                    bound = 0.6 if with_normals else (0.7 if thr == 1 else 0.8)
                    case.targets.append(Target("fraction of the C triad's bandwidth", "skinkit",
                                               frac, ">=", bound))
                if not largest and thr == 1 and not with_normals:
                    case.targets.append(Target(
                        "M vertices/s in cache", "skinkit",
                        case.metrics.get("skinkit", {}).get("Mvert/s"), ">=", 500, "M/s"))
                if einsum:
                    case.targets.append(Target("x faster than NumPy", "numpy einsum",
                                               case.ratio("numpy einsum"), ">=", 40, "x"))
                else:
                    case.notes.append(f"{OUT_OF_CACHE}x the largest cache "
                                      f"({ctx.llc_bytes / 2**20:g} MiB) moved; no NumPy einsum "
                                      "(its V x K x 16 temporary)")
                case.notes.append(f"{bpv} B per vertex counted"
                                  + (" (48 B positions + 12 B normal in + 12 B normal out)"
                                     if with_normals else
                                     " (12 B position + 8 B uint16 joints + 16 B weights + 12 B"
                                     " out)") + "; skinkit writes into a preallocated out=")
                finish(ctx, case)


# ----------------------------------------------------------------------------- dqs


def np_dqs(vertices, joints, weights, mats):
    """Dual quaternion skinning vectorized with NumPy (Kavan et al. 2008, Algorithm 1) for rigid
    matrices: quaternions by scipy-free Shepperd on the largest diagonal term, hemisphere of
    slot 0, v' = v + 2 d0 x (d0 x v + a0 v) + 2 (a0 de - ae d0 + d0 x de)."""
    R, t = mats[:, :3, :3].astype(np.float64), mats[:, :3, 3].astype(np.float64)
    tr = np.trace(R, axis1=1, axis2=2)
    w = 0.5 * np.sqrt(np.maximum(1 + tr, 0))
    x = 0.5 * np.sqrt(np.maximum(1 + R[:, 0, 0] - R[:, 1, 1] - R[:, 2, 2], 0))
    y = 0.5 * np.sqrt(np.maximum(1 - R[:, 0, 0] + R[:, 1, 1] - R[:, 2, 2], 0))
    z = 0.5 * np.sqrt(np.maximum(1 - R[:, 0, 0] - R[:, 1, 1] + R[:, 2, 2], 0))
    x = np.copysign(x, R[:, 2, 1] - R[:, 1, 2])
    y = np.copysign(y, R[:, 0, 2] - R[:, 2, 0])
    z = np.copysign(z, R[:, 1, 0] - R[:, 0, 1])
    q = np.stack([x, y, z, w], axis=-1)
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    d = 0.5 * peers.np_quat_multiply(np.concatenate([t, np.zeros((len(t), 1))], axis=1), q)
    qv, dv = q[joints], d[joints]                                   # (V, K, 4)
    ws = weights * np.where(np.einsum("vkc,vc->vk", qv, qv[:, 0]) < 0, -1.0, 1.0)
    b, e = np.einsum("vk,vkc->vc", ws, qv), np.einsum("vk,vkc->vc", ws, dv)
    n = np.linalg.norm(b, axis=1, keepdims=True)
    c0, ce = b / n, e / n
    d0, de, a0, ae = c0[:, :3], ce[:, :3], c0[:, 3:], ce[:, 3:]
    v = vertices.astype(np.float64)
    out = v + 2 * np.cross(d0, np.cross(d0, v) + a0 * v) + 2 * (a0 * de - ae * d0
                                                                 + np.cross(d0, de))
    return out.astype(vertices.dtype)


def group_dqs(ctx: Ctx):
    """DQS against LBS (the cost ratio) and against a vectorized NumPy DQS."""
    sizes = [1_000] if ctx.quick else [100_000, 1_000_000]
    for V in sizes:
        v, j, w, m, n = make_lbs_problem(V)
        for thr in (ctx.threads if V == sizes[-1] else [1]):
            case = Case("dqs", "dqs positions", f"V={V:,} J=64 K=4", "float32", thr,
                        params={"V": V, "J": 64, "K": 4, "joints": "uint16"})
            f, lbs = sk(K.dual_quaternion_skinning, thr), sk(K.linear_blend_skinning, thr)
            out = np.empty((V, 3), np.float32)
            entries: Dict[str, object] = {
                "skinkit": f if isinstance(f, Unavailable) else
                functools.partial(f, v, j, w, m, out=out),
                "skinkit lbs": (lbs if isinstance(lbs, Unavailable) else
                                (functools.partial(lbs, v, j, w, m, out=np.empty_like(out)),
                                 None)),
                "numpy dqs": functools.partial(np_dqs, v, j, w, m)}
            bench(ctx, case, entries, tol=tol_for(np.float32, 8))
            rate_metrics(case, "Mvert/s", V)
            lt, dt = case.time("skinkit lbs"), case.time("skinkit")
            if lt and dt:
                case.metrics["skinkit"]["x lbs time"] = dt / lt
            case.targets.append(Target("x faster than NumPy", "numpy dqs",
                                       case.ratio("numpy dqs"), ">=", 20, "x"))
            case.notes.append("'x lbs time': DQS time over LBS time, same inputs, interleaved "
                              "rounds; both write into a preallocated out=")
            finish(ctx, case)


# ----------------------------------------------------------------------------- fk


def group_fk(ctx: Ctx):
    rng = np.random.default_rng(1)
    Js = [24, 64] if ctx.quick else [24, 64, 1024]
    Bs = [1, 8] if ctx.quick else [1, 64, 4096]
    dt = np.float32
    for J in Js:
        parents = SMPL_PARENTS if J == 24 else random_parents(J, rng)
        rest = rng.normal(scale=0.2, size=(J, 3)).astype(dt)
        for B in Bs:
            q = random_unit_quats(rng, (B, J), dt)
            t = rng.normal(scale=0.2, size=(B, J, 3)).astype(dt)
            s = rng.uniform(0.9, 1.1, size=(B, J, 3)).astype(dt)
            largest = B == Bs[-1]
            for kind in ("forward_kinematics", "rigid_forward_kinematics"):
                for thr in (ctx.threads if largest else [1]):
                    case = Case("fk", kind + (" (TRS)" if kind == "forward_kinematics" else ""),
                                f"J={J} B={B}", "float32", thr, params={"J": J, "B": B})
                    f = sk(getattr(K, kind), thr)
                    entries: Dict[str, object] = {}
                    if kind == "forward_kinematics":
                        out = np.empty((B, J, 4, 4), dt)
                        call = (lambda f=f, out=out: f(parents, q, t, s, out=out))
                        nocall = (lambda f=f: f(parents, q, t, s))
                        peer = functools.partial(peers.np_forward_kinematics, parents, q, t, s)
                        cmp = maxdiff
                    else:
                        out = (np.empty((B, J, 4), dt), np.empty((B, J, 3), dt))
                        call = (lambda f=f, out=out: f(parents, rest, q, out=out))
                        nocall = (lambda f=f: f(parents, rest, q))
                        peer = functools.partial(peers.np_rigid_forward_kinematics, parents,
                                                 rest, q)
                        cmp = (lambda a, b: max(quat_diff(a[0], b[0]), maxdiff(a[1], b[1])))
                    if isinstance(f, Unavailable):
                        entries["skinkit"] = f
                    else:
                        entries["skinkit"] = call
                        if largest:
                            entries["skinkit (no out=)"] = nocall
                    entries["numpy joint loop"] = peer
                    bench(ctx, case, entries, compare=cmp, tol=tol_for(dt, 10))
                    # bytes per joint: TRS in (16 + 12 + 12) and a 4x4 out (64); rigid: the
                    # rotation in (16, rest positions are shared) and rotation + translation out
                    bpj = 16 + 12 + 12 + 64 if kind == "forward_kinematics" else 16 + 16 + 12
                    case.params["bytes_per_joint"] = bpj
                    for im in case.impls:
                        if im.ok:
                            case.metrics[im.name] = {"Mjoints/s": B * J / im.median_s / 1e6,
                                                     "GB/s": B * J * bpj / im.median_s / 1e9}
                    if largest and thr == 1 and J == 24:       # issue 12's case
                        v = case.metrics.get("skinkit", {}).get("Mjoints/s")
                        case.targets.append(Target("M joints/s, batched, 1 thread", "skinkit",
                                                   v, ">=", 150, "M/s"))
                    finish(ctx, case)


# ----------------------------------------------------------------------------- sampling


def make_clip_data(J=64, nkeys=100, seed=2):
    rng = np.random.default_rng(seed)
    key_times = np.arange(nkeys) / 30.0
    trans = np.cumsum(rng.normal(scale=0.05, size=(J, nkeys, 3)), axis=1)
    steps = rotvec_to_quat(rng.normal(scale=0.15, size=(J, nkeys, 3)))
    rots = np.empty((J, nkeys, 4))
    r = random_unit_quats(rng, (J,))
    for k in range(nkeys):                                # a random walk of rotations
        r = peers.np_quat_multiply(r, steps[:, k])
        r /= np.linalg.norm(r, axis=-1, keepdims=True)
        rots[:, k] = r
    flip = rng.random((J, nkeys)) < 0.3                   # q and -q: exercise shortest path
    rots[flip] *= -1
    return key_times, trans, rots


def group_sample(ctx: Ctx):
    from skinkit.model.clip import Channel, Clip
    J, nkeys = 64, 100
    key_times, trans, rots = make_clip_data(J, nkeys)
    chans = []
    for jj in range(J):
        chans.append(Channel(jj, "translation", key_times, trans[jj]))
        chans.append(Channel(jj, "rotation", key_times, rots[jj]))
    scipy_missing = installed("scipy")
    ref = None if scipy_missing else peers.ScipyClipSampler(key_times, trans, rots)
    rng = np.random.default_rng(3)
    Ts = [1, 100] if ctx.quick else [1, 100, 10_000, 100_000]
    for dt in (np.float64, np.float32):
        clip = Clip("bench", chans, dtype=dt)
        rest = (np.zeros((J, 3), dt), np.tile(np.array([0, 0, 0, 1], dt), (J, 1)),
                np.ones((J, 3), dt))
        for T in (Ts if dt == np.float64 else Ts[-1:]):
            random_times = rng.uniform(0, key_times[-1], T)
            for order in ("sorted", "random"):
                times = np.sort(random_times) if order == "sorted" else random_times
                times_dt = times.astype(dt)
                largest = T == Ts[-1] and dt == np.float64
                for thr in (ctx.threads if largest else [1]):
                    case = Case("sample", f"Clip.sample, {order} times",
                                f"J={J} keys={nkeys} T={T:,}", np.dtype(dt).name, thr,
                                params={"joints": J, "keys": nkeys, "T": T, "order": order,
                                        "channels": "translation+rotation LINEAR"})
                    f = sk(clip.sample, thr)
                    entries: Dict[str, object] = {}
                    if isinstance(f, Unavailable):
                        entries["skinkit"] = f
                    elif accepts_out(clip.sample):             # a loop reusing its result
                        out = clip.sample(times_dt, rest)
                        entries["skinkit"] = functools.partial(f, times_dt, rest, out=out)
                        if largest:
                            entries["skinkit (no out=)"] = functools.partial(f, times_dt, rest)
                    else:
                        entries["skinkit"] = functools.partial(f, times_dt, rest)
                    entries["scipy Slerp + np.interp"] = (
                        missing("scipy") if ref is None else functools.partial(ref, times))
                    cmp = (lambda a, b: max(maxdiff(a[0], b[0]), quat_diff(a[1], b[1])))
                    bench(ctx, case, entries, compare=cmp, tol=tol_for(dt, 10))
                    for im in case.impls:
                        if im.ok:
                            case.metrics[im.name] = {"Mjoint-samples/s":
                                                     T * J / im.median_s / 1e6}
                    if dt == np.float32:
                        case.notes.append("SciPy computes in float64")
                    if T >= (Ts[-1] if ctx.quick else 10_000) and thr == 1:
                        case.targets.append(Target(
                            f"M joint-samples/s, {order}", "skinkit",
                            case.metrics.get("skinkit", {}).get("Mjoint-samples/s"), ">=",
                            25 if order == "sorted" else 12, "M/s"))
                    finish(ctx, case)


# ----------------------------------------------------------------------------- quaternions


def group_quat(ctx: Ctx):
    have_scipy = not installed("scipy")
    if have_scipy:
        from scipy.spatial.transform import Rotation
    rng = np.random.default_rng(4)
    Ns = [100] if ctx.quick else [1_000, 1_000_000]
    for N in Ns:
        qa, qb = random_unit_quats(rng, (N,)), random_unit_quats(rng, (N,))
        v = rng.normal(size=(N, 3))
        rv = rng.normal(size=(N, 3))
        t = rng.random(N)
        ra, rb = (Rotation.from_quat(qa), Rotation.from_quat(qb)) if have_scipy else (None, None)
        ops = [
            ("quat_multiply", lambda f: functools.partial(f, qa, qb),
             lambda: (ra * rb).as_quat(), quat_diff, "(ra * rb).as_quat()"),
            ("quat_rotate", lambda f: functools.partial(f, qa, v),
             lambda: ra.apply(v), maxdiff, "ra.apply(v)"),
            ("quat_to_matrix", lambda f: functools.partial(f, qa),
             lambda: ra.as_matrix(), maxdiff, "ra.as_matrix()"),
            ("quat_from_rotvec", lambda f: functools.partial(f, rv),
             lambda: Rotation.from_rotvec(rv).as_quat(), quat_diff, "from_rotvec().as_quat()"),
            ("slerp", lambda f: functools.partial(f, qa, qb, t),
             lambda: peers.scipy_slerp_pairs(ra, rb, t), quat_diff, "ra * exp(t log(ra^-1 rb))"),
        ]
        for name, mk, peer, cmp, how in ops:
            for thr in (ctx.threads if N == Ns[-1] else [1]):
                case = Case("quat", name, f"N={N:,}", "float64", thr, params={"N": N})
                f = sk(getattr(K, name), thr)
                entries = {"skinkit": f if isinstance(f, Unavailable) else mk(f),
                           "scipy Rotation": peer if have_scipy else missing("scipy")}
                bench(ctx, case, entries, compare=cmp, tol=tol_for(np.float64, 10))
                rate_metrics(case, "M/s", N)
                case.notes.append(f"SciPy: {how}, Rotation objects built outside the timing")
                finish(ctx, case)


# ----------------------------------------------------------------------------- overhead


def group_overhead(ctx: Ctx):
    rng = np.random.default_rng(5)
    have_scipy = not installed("scipy")
    q = random_unit_quats(rng, (24,))
    t = rng.normal(scale=0.2, size=(24, 3))
    rest = rng.normal(scale=0.2, size=(24, 3))
    a, b = random_unit_quats(rng, ()), random_unit_quats(rng, ())
    specs = [
        ("forward_kinematics, 1 pose", "J=24", {
            "skinkit": functools.partial(K.forward_kinematics, SMPL_PARENTS, q, t),
            "numpy joint loop": (lambda: peers.np_forward_kinematics(
                SMPL_PARENTS, q[None], t[None])[0]),
        }, maxdiff),
        ("rigid_forward_kinematics, 1 pose", "J=24", {
            "skinkit": functools.partial(K.rigid_forward_kinematics, SMPL_PARENTS, rest, q),
            "numpy joint loop": (lambda: tuple(x[0] for x in peers.np_rigid_forward_kinematics(
                SMPL_PARENTS, rest, q[None]))),
        }, lambda x, y: max(quat_diff(x[0], y[0]), maxdiff(x[1], y[1]))),
        ("quat_multiply, 1 quaternion", "(4,)", {
            "skinkit": functools.partial(K.quat_multiply, a, b),
            "numpy formula": functools.partial(peers.np_quat_multiply, a, b),
        }, quat_diff),
    ]
    if have_scipy:
        from scipy.spatial.transform import Rotation
        ra, rb = Rotation.from_quat(a), Rotation.from_quat(b)
        specs[2][2]["scipy Rotation"] = lambda: (ra * rb).as_quat()
    else:
        specs[2][2]["scipy Rotation"] = missing("scipy")
    for op, size, entries, cmp in specs:
        case = Case("overhead", op, size, "float64", "default", params={})
        bench(ctx, case, entries, compare=cmp, tol=tol_for(np.float64, 10))
        for im in case.impls:
            if im.ok:
                case.metrics[im.name] = {"us/call": im.median_s * 1e6}
        case.targets.append(Target("us per call", "skinkit",
                                   case.metrics.get("skinkit", {}).get("us/call"), "<=", 3,
                                   "us"))
        case.notes.append("called as a user would (no threads=, no out=); includes the Python "
                          "call of a functools.partial")
        finish(ctx, case)


# ----------------------------------------------------------------------------- memory


def group_memory(ctx: Ctx):
    V = 10_000 if ctx.quick else 1_000_000
    Kn, itemsize = 4, 4
    temp = V * Kn * 16 * itemsize
    for with_normals in (False, True):
        case = Case("memory", "peak memory of one LBS call" + (" +normals" if with_normals
                                                               else ""),
                    f"V={V:,} J=64 K=4", "float32", 1,
                    params={"V": V, "V_K_16_temporary_bytes": temp,
                            "output_bytes": V * 12 * (2 if with_normals else 1)})
        for impl in ("skinkit", "numpy einsum"):
            im = Impl(impl)
            case.impls.append(im)
            cmd = [sys.executable, os.path.join(HERE, "memprobe.py"), impl, str(V)]
            if with_normals:
                cmd.append("--normals")
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                im.status = "error"
                im.note = (r.stderr.strip().splitlines() or ["?"])[-1]
                continue
            res = json.loads(r.stdout)
            case.metrics[impl] = {"MB peak RSS+": res["rss_increase"] / 1e6,
                                  "MB traced peak": res["tracemalloc_peak"] / 1e6}
            case.params[f"{impl} rss_before_bytes"] = res["rss_before"]
            im.note = res["how"]
        v = case.metrics.get("skinkit", {}).get("MB peak RSS+")
        case.targets.append(Target("peak RSS increase MB (no V x K x 16 temporary)", "skinkit",
                                   v, "<=", temp / 2 / 1e6, "MB"))
        case.notes.append(f"a V x K x 16 float32 temporary would be {temp / 1e6:.0f} MB; "
                          f"the result itself is {case.params['output_bytes'] / 1e6:.0f} MB; "
                          "each measured in a fresh process")
        finish(ctx, case)


# ----------------------------------------------------------------------------- smpl


def make_smpl(seed=6):
    rng = np.random.default_rng(seed)
    V, J = 6890, 24
    v_template = (rng.uniform(-1, 1, (V, 3)) * [0.4, 0.9, 0.15]).astype(np.float32)
    J_regressor = np.zeros((J, V), np.float32)
    for jj in range(J):
        J_regressor[jj, rng.choice(V, 16, replace=False)] = 1 / 16
    rest_joints = (J_regressor @ v_template).astype(np.float32)
    joints = rng.integers(0, J, (V, 4), dtype=np.uint16)
    weights = rng.random((V, 4), dtype=np.float32) + 0.01
    weights /= weights.sum(axis=1, keepdims=True)
    dense = np.zeros((V, J), np.float32)
    np.add.at(dense, (np.repeat(np.arange(V), 4), joints.ravel().astype(np.int64)),
              weights.ravel())
    rel = rest_joints.copy()
    rel[1:] -= rest_joints[SMPL_PARENTS[1:]]
    inv_bind = np.tile(np.eye(4, dtype=np.float32), (J, 1, 1))
    inv_bind[:, :3, 3] = -rest_joints
    return dict(V=V, J=J, v_template=v_template, J_regressor=J_regressor,
                rest_joints=rest_joints, joints=joints, weights=weights, dense=dense, rel=rel,
                inv_bind=inv_bind)


def group_smpl(ctx: Ctx):
    m = make_smpl()
    no = installed("torch", "smplx")
    if not no:
        import torch
        model = peers.SmplTorch(m["v_template"], m["J_regressor"], SMPL_PARENTS, m["dense"])
        threads_before = torch.get_num_threads()
    rng = np.random.default_rng(7)
    Bs = [1, 4] if ctx.quick else [1, 64, 1024]
    for B in Bs:
        pose = rng.normal(scale=0.3, size=(B, 72)).astype(np.float32)
        quats = K.quat_from_rotvec(pose.reshape(B, 24, 3))
        if not no:
            from smplx.lbs import batch_rodrigues
            tpose = torch.from_numpy(pose)
            betas = torch.zeros((B, 10), dtype=torch.float32)
            tjoints = torch.from_numpy(m["rest_joints"]).unsqueeze(0).expand(B, -1, -1)
            with torch.no_grad():
                rot_mats = batch_rodrigues(tpose.view(-1, 3)).view(B, -1, 3, 3)
        for thr in ctx.threads:
            if not no:
                torch.set_num_threads(thr)
            fa = sk(K.quat_from_rotvec, thr)
            fk = sk(K.forward_kinematics, thr)
            fs = sk(K.skinning_matrices, thr)
            fl = sk(K.linear_blend_skinning, thr)
            bad = next((f for f in (fa, fk, fs, fl) if isinstance(f, Unavailable)), None)

            def sk_lbs(fa=fa, fk=fk, fs=fs, fl=fl, pose=pose, B=B):
                q = fa(pose.reshape(B, 24, 3))
                world = fk(SMPL_PARENTS, q, m["rel"])
                return fl(m["v_template"], m["joints"], m["weights"], fs(world, m["inv_bind"]))

            def sk_fk(fk=fk, fs=fs, quats=quats):
                world = fk(SMPL_PARENTS, quats, m["rel"])
                return world[..., :3, 3], fs(world, m["inv_bind"])

            case = Case("smpl", "SMPL lbs: pose -> vertices", f"B={B} V=6890 J=24", "float32",
                        thr, params={"B": B, "V": 6890, "J": 24, "K": 4})
            entries: Dict[str, object] = {"skinkit": bad or sk_lbs}
            if no:
                entries["smplx.lbs"] = missing(no)
                entries["smplx steps 4-5 only"] = missing(no)
            else:
                entries["smplx.lbs"] = (lambda: model.lbs(betas, tpose).numpy())
                entries["smplx steps 4-5 only"] = (lambda: model.skin_only(tpose, tjoints).numpy())
            bench(ctx, case, entries, tol=tol_for(np.float32, 4), gap=0.02)
            rate_metrics(case, "Mvert/s", B * 6890)
            if B == (Bs[-1] if ctx.quick else 64):
                case.targets.append(Target("x faster than smplx.lbs", "smplx.lbs",
                                           case.ratio("smplx.lbs"), ">=", 25, "x"))
            case.notes.append(
                "skinkit: quat_from_rotvec, forward_kinematics, skinning_matrices, "
                "linear_blend_skinning with K=4 (uint16 joints); smplx.lbs: dense (V, 24) weights "
                "with the same 4 non-zeros, zero shape/pose blend shapes (it still computes "
                "them: the posedirs product and the joint regression are part of its time); "
                "'steps 4-5 only' is smplx's Rodrigues + batch_rigid_transform + skinning; "
                f"torch.set_num_threads({thr})")
            finish(ctx, case)

            case = Case("smpl", "SMPL fk: rigid transforms", f"B={B} J=24", "float32", thr,
                        params={"B": B, "J": 24})
            entries = {"skinkit": bad or sk_fk}
            if no:
                entries["smplx batch_rigid_transform"] = missing(no)
            else:
                entries["smplx batch_rigid_transform"] = (
                    lambda: tuple(x.numpy() for x in model.rigid_transform(rot_mats, tjoints)))
            bench(ctx, case, entries, tol=tol_for(np.float32, 4), gap=0.02)
            rate_metrics(case, "Mjoints/s", B * 24)
            case.notes.append("skinkit: forward_kinematics(quaternions) + skinning_matrices "
                              "(world times the inverse bind, = smplx's rel_transforms); "
                              "smplx: batch_rigid_transform(rotation matrices); inputs in each "
                              "one's own form, converted outside the timing")
            finish(ctx, case)
    if not no:
        torch.set_num_threads(threads_before)
