"""skinkit.compress beside ACL on ACL's own test clips (acl-test-data's sjson files).

For every clip: raw bytes (bones x samples x 40: float32 rotation, translation and scale, ACL's
raw size), compressed bytes (the container), ratio, maximum and 99th percentile object-space
error (shell and precision from the file: ``vertex_distance``, ``error_threshold``, its units),
compression MB/s (raw bytes / the median seconds of ``--rounds`` rounds over all clips, the
clips interleaved in each round), decode time per pose: one pose a call with a playback
context (every frame in turn) and 64 poses a call (a playback context of a batch of 64,
``CompressedClip.playback(rest, batch=64)``, the calling thread), both from Python and, with
``--kernels-bench`` (benchmarks/kernels_bench.c built), from C as a C host calls
``sk_play_cclip_f`` and ``sk_decode_cclip_f`` (the clip's table written to a temporary folder;
both contexts decode the keyed tracks, the constants written once); each the median
of interleaved rounds (every clip once a round), beside ACL's ``decompress_pose`` one pose a call
and 64 poses a call (x: ACL's one-a-call time over skinkit's, the targets' definition: above 1
one a call, 4 or more 64 a call; x64: ACL's 64-a-call time over skinkit's) and the time a pose's
output bytes take at the STREAM triad's rate (benchmarks/triad.c, one thread, same run).  The
tar's clips and the tables go to one temporary folder, removed at exit.

The errors come from one dense evaluation, independent of both codecs: the source keys sampled
at 4x the sample rate in plain NumPy (float64 shortest-path slerp, glTF LINEAR), through NumPy
FK, against the decoded poses; an ACL results file (``--acl JSON``) gives ACL's poses' errors as
its driver measured them against that same evaluation (its README entry: figures per clip
``bytes``, ``max_error``, ``p99_error``, ``mb_per_s``, ``decode_us_one``, ``decode_us_64``, and
``version``, ``cpu``, ``date``; optional ``max_error_nlerp_ref``: the same error against a
normalized-lerp reference, ACL's own interpolation, its largest printed), side by side.

    python benchmarks/compress_acl.py [--data DIR_OR_TAR] [--acl acl_results.json] [--json OUT]
        [--kernels-bench build-bench/kernels_bench] [--rounds R] [--quick]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from typing import Any, Dict, List, Optional

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import peers   # benchmarks/peers.py, beside this script: the STREAM triad
import skinkit
from skinkit.io.acl_sjson import load_acl_sjson
from skinkit.model.compressed_clip import CONSTANTS
from skinkit.io.skc import dumps

DEFAULT_DATA = "/work/shared/acl-test-data/acl-test-data-47bfa3c-cmu18.tar.xz"


def clip_files(data: str, scratch: str) -> List[str]:
    """The clips under folder ``data``, or in tar ``data`` extracted under ``scratch``."""
    if os.path.isdir(data):
        return sorted(glob.glob(os.path.join(data, "**", "*.acl.sjson"), recursive=True))
    out = os.path.join(scratch, "clips")
    with tarfile.open(data) as tar:
        tar.extractall(out, filter="data")
    return clip_files(out, scratch)


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


def dump_table(cc, nodes: int, frames: np.ndarray, t64: np.ndarray, path: str) -> None:
    """The C decode table of a float32 compressed clip for ``kernels_bench cclip``: 8 int64
    (tracks, key times, ranges, bytes, widths, segments, nodes, frames), then tracks (int64),
    key_times, ranges (float32), bytes, widths (uint8), seg_bits (int64), the frame times and
    64 times (float32)."""
    tables, arrays = cc._tables[0], cc._arrays
    key_times, ranges, data, widths, segs = arrays
    head = np.array([tables.size // 15, key_times.size, ranges.size, data.size, widths.size,
                     segs.size, nodes, frames.size], np.int64)
    with open(path, "wb") as f:
        for a in (head, tables, key_times, ranges, data, widths, segs, frames, t64):
            f.write(np.ascontiguousarray(a).tobytes())


def per_call(fn, calls: int) -> float:
    """Seconds a call: the best of 3 loops of ``calls`` calls (one round)."""
    fn()
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def c_round(bench: str, table: str) -> Dict[str, float]:
    """One round of ``kernels_bench cclip``: ns a pose, one a call and 64 a call (medians of
    its own 5 rounds)."""
    out = subprocess.run([bench, "cclip", table, "5"], capture_output=True, text=True,
                         check=True).stdout
    got = {}
    for line in out.splitlines():
        words = line.split()
        if words and words[0] in ("one_per_call", "64_per_call"):
            got[words[0]] = float(words[1])
    return got


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


def measure(path: str, a: Any, seconds: List[float], dump: str) -> Dict[str, Any]:
    """One clip's figures (its compression times measured before), its errors, and what the
    timing rounds call."""
    skel, clip = a.skeleton, a.clip
    shell, precision = float(np.max(a.vertex_distance)), a.error_threshold
    raw = skel.count * a.num_samples * 40
    cc = compress(a)
    rest = (skel.translations, skel.rotations, skel.scales)
    t = dense_times(a.num_samples, a.sample_rate)
    src = world(skel.parents, reference_pose(clip, rest, t))
    err = shell_error(src, world(skel.parents, cc.sample(t, rest)), shell)
    name = os.path.basename(path).split(".")[0]
    frames = np.arange(a.num_samples) / a.sample_rate
    t64 = np.resize(t, 64).astype(np.float32)
    table = os.path.join(dump, name + ".table")
    dump_table(cc, skel.count, frames.astype(np.float32), t64, table)
    play, batch = cc.playback(rest), cc.playback(rest, batch=64)
    # every frame in turn, over again up to 2000 poses a loop (as ACL's driver loops): a clip
    # of one frame would otherwise time the loop's own call as much as the sample's
    times = [float(x) for x in frames] * max(1, 2000 // frames.size)

    def one() -> None:                 # one a call
        sample = play.sample
        for x in times:
            sample(x)

    return {"clip": name, "bones": skel.count,
            "keyed": sum(tr.level not in CONSTANTS for tr in cc.tracks),
            "samples": a.num_samples, "raw": raw, "bytes": len(dumps(cc)),
            "max_error": float(err.max()), "p99_error": float(np.percentile(err, 99)),
            "mb_per_s": raw / float(np.median(seconds)) / 1e6, "precision": precision,
            "pose_bytes": skel.count * 10 * 4,
            "_one": (one, len(times)), "_64": lambda: batch.sample(t64),
            "_table": table}


def time_rounds(rows: List[Dict[str, Any]], rounds: int, bench: Optional[str]) -> None:
    """Interleaved rounds (every clip once a round, in turn), medians into each row: us a pose
    from Python (one a call, 64 a call) and from C (kernels_bench)."""
    got: Dict[str, List[List[float]]] = {r["clip"]: [[], [], [], []] for r in rows}
    for _ in range(rounds):
        for r in rows:
            fn, n = r["_one"]
            g = got[r["clip"]]
            g[0].append(1e6 * per_call(fn, max(1, 2000 // n)) / n)
            g[1].append(1e6 * per_call(r["_64"], 30) / 64)
            if bench:
                c = c_round(bench, r["_table"])
                g[2].append(c["one_per_call"] / 1e3)
                g[3].append(c["64_per_call"] / 1e3)
    for r in rows:
        g = got[r["clip"]]
        keys = ("us_one_py", "us_64_py", "us_one_c", "us_64_c")
        for k, v in zip(keys, g):
            r[k] = float(np.median(v)) if v else None
        for k in ("_one", "_64", "_table"):
            del r[k]


def triad_bytes_per_s() -> Optional[float]:
    """The STREAM triad (benchmarks/triad.c), 1 thread, 3 x 64 MiB: bytes/s, best of 10."""
    try:
        tri = peers.CTriad(64 << 20, 1)
    except peers.CTriadUnavailable as e:
        print(f"(no STREAM triad: {e})")
        return None
    return tri.bytes_moved / tri.best(1)


def run(args: argparse.Namespace, scratch: str) -> None:
    """The benchmark; ``scratch``: a folder for the extracted clips and the C tables."""
    acl: Dict[str, Any] = {}
    if args.acl:
        with open(args.acl) as fh:
            acl = json.load(fh)
    peers_ = acl.get("clips", {})
    dump = os.path.join(scratch, "tables")
    os.mkdir(dump)
    files = clip_files(args.data, scratch)
    clips = [load(p) for p in files]
    seconds = compress_seconds(clips, max(1, args.rounds))
    rows = [measure(p, a, sec, dump) for p, a, sec in zip(files, clips, seconds)]
    time_rounds(rows, 1 if args.quick else args.rounds, args.kernels_bench)
    triad = triad_bytes_per_s()
    print(f"skinkit {skinkit.__version__}, {platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}, SIMD {skinkit._core.simd()}; ACL: "
          f"{acl.get('version', '-')}, {acl.get('cpu', '-')}, {acl.get('date', '-')}")
    print("decode in us a pose, medians of interleaved rounds: 1/call (a playback context) "
          "from Python and from C, 64/call (one thread); ACL: decompress_pose, 1/call and 64/call; "
          "x: ACL's 1/call time / skinkit's; x64: ACL's 64/call time / skinkit's 64/call; "
          "triad: a pose's output bytes at the STREAM triad's rate (1 thread)")
    head = (f"{'clip':8} {'raw':>8} {'bytes':>7} {'ACL':>7} {'ratio':>6} {'ACL':>6} "
            f"{'max cm':>7} {'ACL':>7} {'p99 cm':>7} {'ACL':>7} {'MB/s':>6} {'ACL':>6} "
            f"{'keyed':>5} "
            f"{'1 py':>6} {'1 C':>6} {'ACL':>6} {'x py':>5} {'x C':>5} "
            f"{'64 py':>6} {'64 C':>6} {'ACL':>6} {'x py':>5} {'x C':>5} {'x64py':>5} "
            f"{'x64C':>5} {'triad':>6}")
    print(head)

    def f(v: Any, fmt: str) -> str:
        return format(v, fmt) if isinstance(v, (int, float)) else "-"

    def x(a: Any, b: Any) -> Optional[float]:
        return a / b if isinstance(a, float) and isinstance(b, float) and b > 0 else None

    def decode(one_py: Any, one_c: Any, py64: Any, c64: Any, acl1: Any, acl64: Any) -> str:
        """The decode columns: skinkit's times, ACL's and the ratios."""
        return (f"{f(one_py, '6.3f'):>6} {f(one_c, '6.3f'):>6} {f(acl1, '6.3f'):>6} "
                f"{f(x(acl1, one_py), '5.2f'):>5} {f(x(acl1, one_c), '5.2f'):>5} "
                f"{f(py64, '6.3f'):>6} {f(c64, '6.3f'):>6} {f(acl64, '6.3f'):>6} "
                f"{f(x(acl1, py64), '5.2f'):>5} {f(x(acl1, c64), '5.2f'):>5} "
                f"{f(x(acl64, py64), '5.2f'):>5} {f(x(acl64, c64), '5.2f'):>5}")

    for r in rows:
        p = peers_.get(r["clip"], {})
        ratio = r["raw"] / r["bytes"]
        pr = r["raw"] / p["bytes"] if "bytes" in p else None
        lim = r["pose_bytes"] / triad * 1e6 if triad else None
        print(f"{r['clip']:8} {r['raw']:8d} {r['bytes']:7d} {f(p.get('bytes'), '7d'):>7} "
              f"{ratio:6.2f} {f(pr, '6.2f'):>6} {r['max_error']:7.4f} "
              f"{f(p.get('max_error'), '7.4f'):>7} {r['p99_error']:7.4f} "
              f"{f(p.get('p99_error'), '7.4f'):>7} {r['mb_per_s']:6.2f} "
              f"{f(p.get('mb_per_s'), '6.2f'):>6} {r['keyed']:5d} "
              + decode(r["us_one_py"], r["us_one_c"], r["us_64_py"], r["us_64_c"],
                       p.get("decode_us_one"), p.get("decode_us_64"))
              + f" {f(lim, '6.3f'):>6}")
    raw, size = sum(r["raw"] for r in rows), sum(r["bytes"] for r in rows)
    acl_size = sum(peers_[r["clip"]]["bytes"] for r in rows if r["clip"] in peers_) or None

    def total(key: str, acl_key: str) -> Optional[float]:
        """skinkit's ``key`` summed over the clips ACL's file times with ``acl_key`` (a pose of
        each), or ACL's own sum with ``key`` ""."""
        timed = [r for r in rows if acl_key in peers_.get(r["clip"], {})]
        vals = [peers_[r["clip"]][acl_key] if not key else r[key] for r in timed]
        return float(sum(vals)) if timed and all(v is not None for v in vals) else None

    acl_max = [p["max_error"] for p in peers_.values() if "max_error" in p]
    print(f"{'total':8} {raw:8d} {size:7d} {f(acl_size, '7d'):>7} {raw / size:6.2f} "
          f"{f(raw / acl_size if acl_size else None, '6.2f'):>6} "
          f"{max(r['max_error'] for r in rows):7.4f} "
          f"{f(max(acl_max) if acl_max else None, '7.4f'):>7} {'':7} {'':7} {'':6} {'':6} "
          f"{'':5} "
          + decode(total("us_one_py", "decode_us_one"), total("us_one_c", "decode_us_one"),
                   total("us_64_py", "decode_us_one"), total("us_64_c", "decode_us_one"),
                   total("", "decode_us_one"), None))
    print(f"{'total64':8} {'':8} {'':7} {'':7} {'':6} {'':6} {'':7} {'':7} {'':7} {'':7} "
          f"{'':6} {'':6} {'':5} "
          + decode(None, None, total("us_64_py", "decode_us_64"), total("us_64_c", "decode_us_64"),
                   None, total("", "decode_us_64")))
    print("totals: one pose of every clip ACL's file times (total64: its 64/call times); "
          "targets: 1/call x > 1, 64/call x >= 4 (against ACL's 1/call)")
    def overall(mbps: List[float]) -> float:     # all the clips' raw bytes over their seconds
        return sum(r["raw"] for r in rows) / sum(r["raw"] / v for r, v in zip(rows, mbps))

    acl_mbps = [peers_.get(r["clip"], {}).get("mb_per_s") for r in rows]
    print(f"compression: median of {max(1, args.rounds)} interleaved rounds, "
          f"{min(r['mb_per_s'] for r in rows):.3f}-{max(r['mb_per_s'] for r in rows):.3f} MB/s, "
          f"{overall([r['mb_per_s'] for r in rows]):.2f} MB/s in total"
          + (f" (ACL's file: {overall(acl_mbps):.2f} MB/s in total)"
             if rows and all(v for v in acl_mbps) else
             "; the ACL file gives no compression MB/s per clip"))
    over = [r["clip"] for r in rows if r["max_error"] > r["precision"]]
    print(f"clips above their precision: {len(over)} {over}")
    acl_over = [r["clip"] for r in rows
                if peers_.get(r["clip"], {}).get("max_error", 0.0) > r["precision"]]
    if acl_max:
        print(f"ACL's clips above their precision: {len(acl_over)} {acl_over}")
    nlerp = [p["max_error_nlerp_ref"] for p in peers_.values() if "max_error_nlerp_ref" in p]
    if nlerp:
        print(f"ACL against a normalized-lerp reference of the same keys (its own interpolation): "
              f"max {max(nlerp):.4f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"skinkit": skinkit.__version__, "clips": rows}, fh, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="folder of *.acl.sjson or a tar of one")
    ap.add_argument("--acl", help="ACL's figures (JSON, see the module docstring)")
    ap.add_argument("--json", help="write skinkit's figures here")
    ap.add_argument("--kernels-bench", help="benchmarks/kernels_bench.c built "
                    "(-DSKINKIT_BENCHMARKS=ON): the decode timed from C too")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds: compression (MB/s: their median) and decode")
    ap.add_argument("--quick", action="store_true", help="one timing round")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="skinkit-compress-acl-") as scratch:
        run(args, scratch)


if __name__ == "__main__":
    main()
