"""skinkit.compress beside ACL on ACL's own test clips (acl-test-data's sjson files).

For every clip: raw bytes (bones x samples x 40: float32 rotation, translation and scale, ACL's
raw size), compressed bytes (the container), ratio, maximum and 99th percentile object-space
error (shell and precision from the file: ``vertex_distance``, ``error_threshold``, its units),
compression MB/s (raw bytes / the median seconds of ``--rounds`` rounds over all clips, the
clips interleaved in each round), decode time per pose: one pose a call with a playback
context, and 64 poses a call, one thread.

The errors come from one dense evaluation, independent of both codecs: the source keys sampled
at 4x the sample rate in plain NumPy (float64 shortest-path slerp, glTF LINEAR), through NumPy
FK, against the decoded poses; an ACL results file (``--acl JSON``) gives ACL's poses' errors as
its driver measured them against that same evaluation (its README entry: figures per clip
``bytes``, ``max_error``, ``p99_error``, ``mb_per_s``, ``decode_us_one``, ``decode_us_64``, and
``version``, ``cpu``, ``date``), printed side by side.

    python benchmarks/compress_acl.py [--data DIR_OR_TAR] [--acl acl_results.json] [--json OUT]
                                      [--rounds 5] [--quick]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import sys
import tarfile
import tempfile
import time
from typing import Any, Dict, List

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import skinkit
from skinkit.io.acl_sjson import load_acl_sjson
from skinkit.motion.compressed_file import dumps

DEFAULT_DATA = "/work/shared/acl-test-data/acl-test-data-47bfa3c-cmu18.tar.xz"


def clip_files(data: str) -> List[str]:
    if os.path.isdir(data):
        return sorted(glob.glob(os.path.join(data, "**", "*.acl.sjson"), recursive=True))
    out = tempfile.mkdtemp(prefix="acl-test-data-")
    with tarfile.open(data) as tar:
        tar.extractall(out, filter="data")
    return clip_files(out)


def dense_times(count: int, rate: float, per: int = 4) -> np.ndarray:
    return np.arange((count - 1) * per + 1) / (rate * per)


def reference_pose(clip: skinkit.Clip, rest, t: np.ndarray):
    """Local TRS of LINEAR channels at t, float64, plain NumPy (glTF 2.0 Appendix C)."""
    out = [np.broadcast_to(np.asarray(r, np.float64), (t.size,) + np.shape(r)).copy()
           for r in rest]
    for ch in clip.channels:
        kt = np.asarray(ch.times, np.float64)
        v = np.asarray(ch.values, np.float64)
        k = np.clip(np.searchsorted(kt, t, side="right") - 1, 0, max(kt.size - 2, 0))
        if kt.size < 2:
            s = np.zeros_like(t)
            k1 = k
        else:
            s = np.clip((t - kt[k]) / (kt[k + 1] - kt[k]), 0, 1)
            k1 = k + 1
        a, b = v[k], v[k1]
        if ch.path == "rotation":
            a = a / np.linalg.norm(a, axis=1, keepdims=True)
            b = b / np.linalg.norm(b, axis=1, keepdims=True)
            d = np.sum(a * b, axis=1, keepdims=True)
            b = np.where(d < 0, -b, b)
            d = np.abs(d).clip(0, 1)
            phi = np.arccos(d)
            sphi = np.sin(phi)
            small = sphi < 1e-9
            w0 = np.where(small, 1 - s[:, None], np.sin((1 - s[:, None]) * phi) / np.where(small, 1, sphi))
            w1 = np.where(small, s[:, None], np.sin(s[:, None] * phi) / np.where(small, 1, sphi))
            q = w0 * a + w1 * b
            val = q / np.linalg.norm(q, axis=1, keepdims=True)
        else:
            val = (1 - s[:, None]) * a + s[:, None] * b
        out[{"translation": 0, "rotation": 1, "scale": 2}[ch.path]][:, ch.node] = val
    return out


def world(parents: np.ndarray, trs) -> np.ndarray:
    """(T, N, 4, 4) world matrices, plain NumPy, parents before children."""
    t, q, s = (np.asarray(a, np.float64) for a in trs)
    x, y, z, w = np.moveaxis(q, -1, 0)
    r = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                  2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                  2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
                 -1).reshape(q.shape[:-1] + (3, 3))
    local = np.zeros(q.shape[:-1] + (4, 4))
    local[..., :3, :3] = r * s[..., None, :]
    local[..., :3, 3] = t
    local[..., 3, 3] = 1
    out = np.empty_like(local)
    for j, p in enumerate(parents):
        out[:, j] = local[:, j] if p < 0 else out[:, p] @ local[:, j]
    return out


def shell_error(wa: np.ndarray, wb: np.ndarray, shell: float) -> np.ndarray:
    verts = np.concatenate([shell * np.eye(3), np.ones((1, 3))])
    return np.linalg.norm((wa @ verts - wb @ verts)[..., :3, :], axis=-2).max(axis=-1)


def per_call(fn, calls: int) -> float:
    fn()
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def load(path: str) -> Any:
    return load_acl_sjson(path, np.float32)


def compress(a: Any) -> Any:
    return skinkit.compress(a.clip, a.skeleton, precision=a.error_threshold,
                            shell_distance=float(np.max(a.vertex_distance)))


def compress_seconds(clips: List[Any], rounds: int) -> List[List[float]]:
    """Each clip's compression time in every round, the clips interleaved within a round (a
    shared machine's load spreads over all of them)."""
    seconds: List[List[float]] = [[] for _ in clips]
    for _ in range(rounds):
        for a, out in zip(clips, seconds):
            t0 = time.perf_counter()
            compress(a)
            out.append(time.perf_counter() - t0)
    return seconds


def measure(path: str, a: Any, seconds: List[float], quick: bool) -> Dict[str, Any]:
    skel, clip = a.skeleton, a.clip
    shell, precision = float(np.max(a.vertex_distance)), a.error_threshold
    raw = skel.count * a.num_samples * 40
    cc = compress(a)
    rest = (skel.translations, skel.rotations, skel.scales)
    t = dense_times(a.num_samples, a.sample_rate)
    src = world(skel.parents, reference_pose(clip, rest, t))
    err = shell_error(src, world(skel.parents, cc.sample(t, rest)), shell)
    play = cc.playback(rest)
    frames = np.arange(a.num_samples) / a.sample_rate
    i = [0]

    def one() -> None:
        play.sample(frames[i[0] % frames.size])
        i[0] += 1

    t64 = np.resize(t, 64).astype(np.float32)
    calls = 200 if quick else 2000
    return {"clip": os.path.basename(path).split(".")[0], "bones": skel.count,
            "samples": a.num_samples, "raw": raw, "bytes": len(dumps(cc)),
            "max_error": float(err.max()), "p99_error": float(np.percentile(err, 99)),
            "mb_per_s": raw / float(np.median(seconds)) / 1e6,
            "mb_per_s_spread": [raw / max(seconds) / 1e6, raw / min(seconds) / 1e6],
            "decode_us_one": 1e6 * per_call(one, calls),
            "decode_us_64": 1e6 * per_call(lambda: cc.sample(t64, rest, threads=1), calls // 10) / 64,
            "precision": precision}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="folder of *.acl.sjson or a tar of one")
    ap.add_argument("--acl", help="ACL's figures (JSON, see the module docstring)")
    ap.add_argument("--json", help="write skinkit's figures here")
    ap.add_argument("--quick", action="store_true", help="fewer timing calls")
    ap.add_argument("--rounds", type=int, default=5,
                    help="compression rounds over all clips (MB/s: their median)")
    args = ap.parse_args()
    acl: Dict[str, Any] = {}
    if args.acl:
        with open(args.acl) as f:
            acl = json.load(f)
    peers = acl.get("clips", {})
    files = clip_files(args.data)
    clips = [load(p) for p in files]
    seconds = compress_seconds(clips, max(1, args.rounds))
    rows = [measure(p, a, sec, args.quick) for p, a, sec in zip(files, clips, seconds)]
    print(f"skinkit {skinkit.__version__}, {platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}; ACL: {acl.get('version', '-')}, {acl.get('cpu', '-')}, "
          f"{acl.get('date', '-')}")
    head = (f"{'clip':8} {'raw':>8} {'bytes':>7} {'ACL':>7} {'ratio':>6} {'ACL':>6} "
            f"{'max cm':>7} {'ACL':>7} {'p99 cm':>7} {'ACL':>7} {'MB/s':>6} {'ACL':>6} "
            f"{'x ACL':>6} "
            f"{'1/call us':>9} {'ACL':>6} {'64/call us':>10} {'ACL':>6}")
    print(head)

    def f(v: Any, fmt: str) -> str:
        return format(v, fmt) if isinstance(v, (int, float)) else "-"

    for r in rows:
        p = peers.get(r["clip"], {})
        ratio = r["raw"] / r["bytes"]
        pr = r["raw"] / p["bytes"] if "bytes" in p else None
        print(f"{r['clip']:8} {r['raw']:8d} {r['bytes']:7d} {f(p.get('bytes'), '7d'):>7} "
              f"{ratio:6.2f} {f(pr, '6.2f'):>6} {r['max_error']:7.4f} "
              f"{f(p.get('max_error'), '7.4f'):>7} {r['p99_error']:7.4f} "
              f"{f(p.get('p99_error'), '7.4f'):>7} {r['mb_per_s']:6.2f} "
              f"{f(p.get('mb_per_s'), '6.2f'):>6} "
              f"{f(r['mb_per_s'] / p['mb_per_s'] if 'mb_per_s' in p else None, '6.3f'):>6} "
              f"{r['decode_us_one']:9.2f} "
              f"{f(p.get('decode_us_one'), '6.2f'):>6} {r['decode_us_64']:10.3f} "
              f"{f(p.get('decode_us_64'), '6.3f'):>6}")
    raw, size = sum(r["raw"] for r in rows), sum(r["bytes"] for r in rows)
    acl_size = sum(peers[r["clip"]]["bytes"] for r in rows if r["clip"] in peers) or None
    print(f"{'total':8} {raw:8d} {size:7d} {f(acl_size, '7d'):>7} {raw / size:6.2f} "
          f"{f(raw / acl_size if acl_size else None, '6.2f'):>6} "
          f"{max(r['max_error'] for r in rows):7.4f}")
    print(f"compression: median of {max(1, args.rounds)} interleaved rounds, "
          f"{min(r['mb_per_s'] for r in rows):.3f}-{max(r['mb_per_s'] for r in rows):.3f} MB/s"
          + ("" if any("mb_per_s" in p for p in peers.values()) else
             "; the ACL file gives no compression MB/s per clip"))
    over = [r["clip"] for r in rows if r["max_error"] > r["precision"]]
    print(f"clips above their precision: {len(over)} {over}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"skinkit": skinkit.__version__, "clips": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
