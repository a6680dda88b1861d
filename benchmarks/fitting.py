"""Benchmark group "fit": skinkit.fit_body against smplfitter (PyPI; its NumPy backend, and its
numba backend when numba is installed, on one thread as fit_body's ``threads=1``) fitting pose and
shape to the vertices of a body-like SMPL model (skinkit.body.synthetic.body_like_arrays: a body's
part structure in the weights, which smplfitter's per-part rotations need).  numba compiles on the
first call: the timings are the best of the repeats, after it.

Targets are the model's own vertices for random poses (0.3 rad per joint), shapes and
translations, so both can reach zero error.  Each row is one budget (smplfitter's num_iter, or
fit_body's Gauss-Newton rounds) and reports the time and the worst and median vertex RMS over the
batch: the time to 1 cm and to 1 mm, and the error where each stops, at B = 1 and 64 in float64.
"""
from __future__ import annotations

import os
import pickle
import tempfile
import time

import numpy as np

from context import installed
from harness import Case, Impl

import skinkit
from skinkit.body.synthetic import body_like_arrays


def _smplfitters(arrays, folder):
    """{row name: smplfitter's fitter} on the arrays (its SMPL file name, an all-zero kid
    template: "no kid template"): NumPy, and numba on one thread when numba is installed."""
    import smplfitter.np
    with open(os.path.join(folder, "basicmodel_neutral_lbs_10_207_0_v1.1.0.pkl"), "wb") as f:
        pickle.dump(arrays, f)
    np.save(os.path.join(folder, "kid_template.npy"), np.zeros_like(arrays["v_template"]))
    backends = {"smplfitter (NumPy)": smplfitter.np}
    if not installed("numba"):
        import numba
        import smplfitter.nb
        numba.set_num_threads(1)
        backends["smplfitter (numba)"] = smplfitter.nb
    return {name: b.BodyFitter(b.BodyModel("smpl", "neutral", model_root=folder))
            for name, b in backends.items()}


def _rms(model, betas, pose, transl, target):
    v, _ = model.forward(betas, pose, transl)
    return np.sqrt(((v - target) ** 2).sum(-1).mean(-1))


def _timed(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _record(ctx, B, rows):
    """The rows as a case of the JSON results: "skinkit" is fit_body with the most rounds (the
    last of its rows, listed first), the other rows are named by their budget; each row's vertex
    RMS (max, median) in its metrics."""
    case = Case("fit", "fit to vertices", f"B={B}", "float64", 1)
    last = max(i for i, row in enumerate(rows) if row[0] == "skinkit.fit_body")
    for i in [last] + [i for i in range(len(rows)) if i != last]:
        name, budget, t, rms = rows[i]
        label = "skinkit" if i == last else f"{name} ({budget})"
        ok = bool(np.isfinite(t))
        case.impls.append(Impl(label, median_s=float(t) if ok else None,
                               status="ok" if ok else "not installed", note=budget))
        if ok:
            case.metrics[label] = {"rms_max": float(np.max(rms)),
                                   "rms_median": float(np.median(rms))}
    case.params["loadavg_1min"] = round(os.getloadavg()[0], 2)
    ctx.cases.append(case)


def group_fit(ctx):
    arrays = body_like_arrays()
    model = skinkit.BodyModel(arrays)
    rng = np.random.default_rng(5)
    no = installed("smplfitter")
    repeats = 1 if ctx.quick else 3
    print(f"{'fit to vertices':34} {'B':>4} {'budget':>12} {'time':>10} {'RMS max':>10} "
          f"{'RMS median':>10}")
    with tempfile.TemporaryDirectory() as folder:
        fitters = {} if no else _smplfitters(arrays, folder)
        for B in ([2] if ctx.quick else [1, 64]):
            betas = rng.normal(size=(B, 10))
            pose = rng.normal(scale=0.3, size=(B, 24, 3))
            transl = rng.normal(scale=0.5, size=(B, 3))
            target, _ = model.forward(betas, pose, transl)
            rows = []
            for rounds in (0, 1, 2, 3, 5):
                t, r = _timed(lambda: skinkit.fit_body(model, target_vertices=target, tol=0,
                                                       gn_rounds=rounds, max_iter=0, threads=1),
                              repeats)
                rows.append(("skinkit.fit_body", f"{rounds} GN rounds", t, r.rms))
            if no:
                rows.append(("smplfitter", f"{no} not installed", np.nan, np.full(B, np.nan)))
            for name, fitter in fitters.items():
                for it in (1, 2, 4, 5, 6, 8):
                    t, r = _timed(lambda: fitter.fit(target.astype(np.float32), num_iter=it,
                                                     beta_regularizer=0,
                                                     requested_keys=("pose_rotvecs",
                                                                     "shape_betas", "trans")),
                                  repeats)
                    rms = _rms(model, r["shape_betas"], r["pose_rotvecs"].reshape(B, 24, 3),
                               r["trans"], target)
                    rows.append((name, f"num_iter={it}", t, rms))
            for name, budget, t, rms in rows:
                print(f"{name:34} {B:>4} {budget:>12} {t * 1e3:>8.1f}ms {rms.max():>10.2e} "
                      f"{np.median(rms):>10.2e}")
            _record(ctx, B, rows)
