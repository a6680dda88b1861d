"""ozz-animation (MIT, github.com/guillaumeblanc/ozz-animation) as an optional peer: its runtime
jobs (SamplingJob, LocalToModelJob, SkinningJob) driven by ``ozz_driver.cpp``, which this module
compiles against an ozz source tree the user points to (``run.py --ozz-src PATH``; nothing of
ozz is vendored).  ozz's libraries come from ``--ozz-build DIR`` (a CMake build of that tree with
position-independent code), or are built here once with CMake (``-O3 -mavx2 -mfma``, its SIMD
path: 4-wide SSE/AVX with FMA) into a cache folder.  Without ``--ozz-src`` (or when ozz cannot be
built) the group prints skinkit's rows alone, the ozz rows saying why.

Group "ozz" prints issue 21's table in one run: sampling (sorted times; random times without and
with ozz's keyframe index, AnimationBuilder's iframes), FK of 24 and 64 joints, LBS positions and
positions + normals, each with skinkit at 1 and 2 threads (ozz's jobs are single-threaded: the
ratios compare one thread to one thread), the compiled triad as the machine's limit.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shlex
import subprocess
import tempfile
from typing import Dict, Optional

import numpy as np

import cases
from cases import Ctx, bench, finish, maxdiff, quat_diff, sk
from harness import Case, Target, Unavailable

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = ("animation/offline/libozz_animation_offline.a", "animation/runtime/libozz_animation.a",
        "geometry/runtime/libozz_geometry.a", "base/libozz_base.a")
FLAGS = ["-O3", "-mavx2", "-mfma"]
F32P = np.ctypeslib.ndpointer(np.float32, flags="C")
I32P = np.ctypeslib.ndpointer(np.int32, flags="C")
U16P = np.ctypeslib.ndpointer(np.uint16, flags="C")


class OzzUnavailable(RuntimeError):
    """ozz could not be found, built or loaded here."""


def _run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise OzzUnavailable(f"{what} failed: {(r.stderr or r.stdout).strip()[-400:]}")


def build_ozz(src: str, build: Optional[str]) -> str:
    """The build folder holding ozz's static libraries: ``build`` as given, else a CMake build
    of ``src`` made here once (minutes) under ~/.cache/skinkit."""
    if build is None:
        key = hashlib.sha256(os.path.abspath(src).encode()).hexdigest()[:12]
        build = os.path.join(os.path.expanduser("~/.cache/skinkit"), f"ozz-build-{key}")
        if not all(os.path.exists(os.path.join(build, "src", lib)) for lib in LIBS):
            print(f"   building ozz-animation from {src} into {build} (once; minutes)")
            off = [f"-Dozz_build_{o}=OFF" for o in
                   ("tools", "fbx", "gltf", "samples", "howtos", "tests", "postfix")]
            _run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                  "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", f"-DCMAKE_CXX_FLAGS={' '.join(FLAGS)}"]
                 + off, "cmake (configure ozz)")
            _run(["cmake", "--build", build, "-j", str(os.cpu_count() or 1), "--target",
                  "ozz_animation_offline", "ozz_animation", "ozz_geometry", "ozz_base"],
                 "cmake --build (ozz)")
    missing = [lib for lib in LIBS if not os.path.exists(os.path.join(build, "src", lib))]
    if missing:
        raise OzzUnavailable(f"{build} has no {', '.join(missing)} (build ozz there first)")
    return build


class Ozz:
    """ozz_driver.cpp compiled (with $CXX, else c++) and loaded; the functions it exports."""

    def __init__(self, src: str, build: Optional[str] = None):
        if not os.path.exists(os.path.join(src, "include", "ozz", "animation")):
            raise OzzUnavailable(f"{src} is not an ozz-animation source tree (no include/ozz)")
        build = build_ozz(src, build)
        driver = os.path.join(HERE, "ozz_driver.cpp")
        libs = [os.path.join(build, "src", lib) for lib in LIBS]
        cxx = shlex.split(os.environ.get("CXX") or "c++")
        cmd = cxx + FLAGS + ["-std=c++17", "-shared", "-fPIC", "-I", os.path.join(src, "include"),
                             driver] + libs
        h = hashlib.sha256(" ".join(cmd).encode())
        for path in [driver] + libs:
            with open(path, "rb") as f:
                h.update(f.read())
        lib = os.path.join(tempfile.gettempdir(),
                           f"skinkit-ozz-{h.hexdigest()[:16]}-{os.getuid()}.so")
        if not os.path.exists(lib):
            tmp = f"{lib}.{os.getpid()}"
            _run(cmd + ["-o", tmp], "compiling ozz_driver.cpp")
            os.replace(tmp, lib)
        self.lib = L = ctypes.CDLL(lib)
        vp = ctypes.c_void_p
        sig = {"ozz_skeleton_new": (vp, [ctypes.c_int, I32P]),
               "ozz_skeleton_free": (None, [vp]),
               "ozz_skeleton_order": (None, [vp, I32P]),
               "ozz_fk_new": (vp, [vp, ctypes.c_int, F32P, F32P, F32P]),
               "ozz_fk_free": (None, [vp]),
               "ozz_fk_run": (ctypes.c_int, [vp, F32P]),
               "ozz_clip_new": (vp, [ctypes.c_int, ctypes.c_int, F32P, F32P, F32P, vp,
                                     ctypes.c_float]),
               "ozz_clip_free": (None, [vp]),
               "ozz_clip_sample": (ctypes.c_int, [vp, ctypes.c_int, F32P]),
               "ozz_clip_read": (None, [vp, ctypes.c_int, F32P, F32P, F32P]),
               "ozz_skin": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, U16P, F32P, F32P, F32P,
                                           vp, F32P, vp])}
        for name, (res, args) in sig.items():
            fn = getattr(L, name)
            fn.restype, fn.argtypes = res, args


def _aligned(shape, dtype=np.float32, align=64):
    """An empty C array whose data starts on an ``align``-byte boundary (ozz's Float4x4)."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(n + align, np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + n].view(dtype).reshape(shape)


def _checked(status, what):
    if status != 0:
        raise RuntimeError(f"ozz {what} failed")


class OzzFk:
    """LocalToModelJob over B poses of a skeleton (joints permuted to ozz's order)."""

    def __init__(self, oz: Ozz, parents, q, t, s):
        B, J = q.shape[:2]
        self.oz, self.B, self.J = oz, B, J
        self.skel = oz.lib.ozz_skeleton_new(J, np.ascontiguousarray(parents, np.int32))
        if not self.skel:
            raise RuntimeError("ozz SkeletonBuilder failed")
        self.order = np.empty(J, np.int32)
        oz.lib.ozz_skeleton_order(self.skel, self.order)
        c = functools.partial(np.ascontiguousarray, dtype=np.float32)
        self.fk = oz.lib.ozz_fk_new(self.skel, B, c(t), c(q), c(s))
        self.out = _aligned((B, J, 4, 4))

    def __call__(self):
        _checked(self.oz.lib.ozz_fk_run(self.fk, self.out), "LocalToModelJob")
        return self.out

    def as_skinkit(self, out):
        """ozz's column-major matrices in ozz's joint order -> skinkit's (B, J, 4, 4)."""
        world = np.empty_like(out)
        world[:, self.order] = np.swapaxes(out, -1, -2)
        return world

    def __del__(self):
        self.oz.lib.ozz_fk_free(self.fk)
        self.oz.lib.ozz_skeleton_free(self.skel)


class OzzClip:
    """An ozz Animation of the benchmark's clip (LINEAR keys; no scale keys: ones) and one
    SamplingJob::Context; ``iframes`` > 0 builds its keyframe index (AnimationBuilder's
    iframe_interval, seconds)."""

    def __init__(self, oz: Ozz, key_times, trans, rots, iframes=0.0):
        self.oz, self.J = oz, trans.shape[0]
        c = functools.partial(np.ascontiguousarray, dtype=np.float32)
        self.clip = oz.lib.ozz_clip_new(self.J, key_times.size, c(key_times), c(trans), c(rots),
                                        None, iframes)
        if not self.clip:
            raise RuntimeError("ozz AnimationBuilder failed")

    def __call__(self, times):
        _checked(self.oz.lib.ozz_clip_sample(self.clip, times.size, times), "SamplingJob")
        return times.size

    def read(self, T):
        t, q, s = (np.empty((T, self.J, k), np.float32) for k in (3, 4, 3))
        self.oz.lib.ozz_clip_read(self.clip, T, t, q, s)
        return t, q, s

    def __del__(self):
        self.oz.lib.ozz_clip_free(self.clip)


def ozz_skin(oz: Ozz, v, j, w, m, n=None):
    """SkinningJob of one mesh; returns a callable writing into its own outputs."""
    V, J = v.shape[0], m.shape[0]
    mats = _aligned((J, 4, 4))
    mats[...] = np.swapaxes(m, -1, -2)                  # column-major, as ozz's Float4x4
    w3 = np.ascontiguousarray(w[:, :3])
    pos = np.empty((V, 3), np.float32)
    nrm = np.empty((V, 3), np.float32) if n is not None else None

    def run():
        _checked(oz.lib.ozz_skin(V, J, j, w3, mats, v, None if n is None else n.ctypes.data,
                                 pos, None if nrm is None else nrm.ctypes.data), "SkinningJob")
        return pos if nrm is None else (pos, nrm)
    return run


# --------------------------------------------------------------------------------- the group

def _ratio_target(case: Case, what: str, peer: str, bound: float):
    case.targets.append(Target(f"x {what}", peer, case.ratio(peer), ">=", bound, "x"))


def _thread_target(case: Case, one: Dict[str, float], key):
    """2 threads >= 1.7x the 1-thread rate (where 1 thread is not at the triad)."""
    if case.threads == 1:
        one[key] = case.time("skinkit")
    elif one.get(key) and case.time("skinkit"):
        case.targets.append(Target("x the 1-thread rate", "skinkit",
                                   one[key] / case.time("skinkit"), ">=", 1.7, "x"))


def _peer(oz, make):
    """make(), an ozz job driver, or the reason ozz is absent (its rows say "not installed")."""
    return oz if isinstance(oz, Unavailable) else make()


def group_ozz(ctx: Ctx):
    """The table; without ozz (no --ozz-src, or it cannot be built) skinkit's rows alone, the
    ozz rows saying why."""
    why = ("no ozz-animation source tree given (run.py --ozz-src PATH; "
           "github.com/guillaumeblanc/ozz-animation)")
    oz: object = Unavailable(why)
    if ctx.ozz_src:
        try:
            oz = Ozz(ctx.ozz_src, ctx.ozz_build)
        except OzzUnavailable as e:
            oz = Unavailable(str(e))
    if isinstance(oz, Unavailable):
        oz.status = "not installed"
        print(f"   ozz-animation skipped: {oz}")
    one: Dict[str, float] = {}
    _sampling(ctx, oz, one)
    _fk(ctx, oz, one)
    _lbs(ctx, oz, one)


def _sampling(ctx: Ctx, oz, one):
    from skinkit.model.clip import Channel, Clip
    J, nkeys = 64, 100
    T = 100 if ctx.quick else 10_000
    key_times, trans, rots = cases.make_clip_data(J, nkeys)
    chans = [ch for jj in range(J) for ch in (Channel(jj, "translation", key_times, trans[jj]),
                                              Channel(jj, "rotation", key_times, rots[jj]))]
    duration = float(key_times[-1])
    peers = {"ozz SamplingJob": _peer(oz, lambda: OzzClip(oz, key_times, trans, rots)),
             "ozz SamplingJob + iframes": _peer(oz, lambda: OzzClip(oz, key_times, trans, rots,
                                                                    duration / 10))}
    rng = np.random.default_rng(4)
    random_times = rng.uniform(0, duration, T).astype(np.float32)
    for order in ("sorted", "random"):
        times32 = np.sort(random_times) if order == "sorted" else random_times
        for dt in (np.float32, np.float64):
            clip = Clip("bench", chans, dtype=dt)
            rest = (np.zeros((J, 3), dt), np.tile(np.array([0, 0, 0, 1], dt), (J, 1)),
                    np.ones((J, 3), dt))
            times = times32.astype(dt)
            for thr in ctx.threads:
                case = Case("ozz", f"sampling, {order} times", f"J={J} keys={nkeys} T={T:,}",
                            np.dtype(dt).name, thr, params={"joints": J, "keys": nkeys, "T": T})
                f = sk(clip.sample, thr)
                out = clip.sample(times, rest)
                name, triad = ctx.triad_entry(thr)
                entries: Dict[str, object] = {"skinkit": functools.partial(f, times, rest,
                                                                           out=out),
                                              name: triad}
                for name, p in peers.items():
                    def check(ref, _, p=p):
                        t, q, _s = p.read(T)
                        return max(maxdiff(ref[0], t), quat_diff(ref[1], q))
                    entries[name] = p if isinstance(p, Unavailable) else (
                        functools.partial(p, times32), check)
                # ozz stores keys quantized (rotations 3 x 16 bits, translations half floats)
                bench(ctx, case, entries, tol=2e-2)
                cases.rate_metrics(case, "M joint-samples/s", T * J)
                # the samples written (10 values a joint-sample) against the triad's bytes
                frac = ctx.triad_fraction(case, sum(o.nbytes for o in out))
                if thr == 1:
                    if order == "sorted":
                        _ratio_target(case, "ozz, sorted times", "ozz SamplingJob", 1.0)
                    else:
                        _ratio_target(case, "ozz with its index", "ozz SamplingJob + iframes",
                                      1.5)
                    one[("sample at triad", order, dt)] = frac is not None and frac >= 0.9
                if not one.get(("sample at triad", order, dt)):
                    _thread_target(case, one, ("sample", order, dt))
                case.notes.append("ozz: one SamplingJob per time with one Context (a playback "
                                  "loop), nlerp of quantized keys; skinkit: one Clip.sample "
                                  "call, exact shortest-path slerp")
                finish(ctx, case)
            if order == "sorted":
                _playback(ctx, peers["ozz SamplingJob"], clip, rest, times[:T // 10], J)


def _playback(ctx: Ctx, peer, clip, rest, times, J):
    """A playback loop in Python: one call a time (Clip.playback, and Clip.sample as such a loop
    would call it), against ozz's loop of SamplingJobs in C++ (the batch case's rate)."""
    T = times.size
    case = Case("ozz", "sampling, one time a call", f"J={J} T={T:,}", times.dtype.name, 1,
                params={"joints": J, "T": T})
    play = clip.playback(rest, threads=1)
    out = clip.sample(times[0], rest)

    def playback():
        for t in times.tolist():
            pose = play.sample(t)
        return pose

    def sample_each():
        for t in times.tolist():
            clip.sample(t, rest, out=out, threads=1)
        return out

    def check(ref, _):
        t, q, _s = peer.read(T)
        return max(maxdiff(ref[0], t[-1]), quat_diff(ref[1], q[-1]))
    bench(ctx, case, {"skinkit": playback,
                      "skinkit Clip.sample": (sample_each, None),
                      "ozz SamplingJob": peer if isinstance(peer, Unavailable) else (
                          functools.partial(peer, times.astype(np.float32)), check)}, tol=2e-2)
    cases.rate_metrics(case, "M joint-samples/s", T * J)
    case.notes.append("skinkit: a Python loop calling Playback.sample (or Clip.sample) once a "
                      "frame; ozz: its C++ loop of SamplingJobs with one Context")
    finish(ctx, case)


def _fk(ctx: Ctx, oz, one):
    rng = np.random.default_rng(5)
    dt = np.float32
    Bs = [64, 256] if ctx.quick else [1024, 4096, 65536]
    for J in (24, 64):
        parents = cases.SMPL_PARENTS if J == 24 else cases.random_parents(J, rng)
        for B in Bs:
            q = cases.random_unit_quats(rng, (B, J), dt)
            t = rng.normal(scale=0.2, size=(B, J, 3)).astype(dt)
            s = rng.uniform(0.9, 1.1, size=(B, J, 3)).astype(dt)
            peer = _peer(oz, lambda: OzzFk(oz, parents, q, t, s))
            for thr in ctx.threads:
                case = Case("ozz", "FK (TRS)", f"J={J} B={B:,}", "float32", thr,
                            params={"J": J, "B": B})
                f = sk(cases.K.forward_kinematics, thr)
                out = np.empty((B, J, 4, 4), dt)
                entries = {"skinkit": lambda f=f, out=out: f(parents, q, t, s, out=out),
                           "ozz LocalToModelJob": peer if isinstance(peer, Unavailable) else (
                               peer, lambda a, b, p=peer: maxdiff(a, p.as_skinkit(b)))}
                bench(ctx, case, entries, tol=cases.tol_for(dt, 10))
                cases.rate_metrics(case, "M joints/s", B * J)
                if thr == 1 and not ctx.quick and B >= 4096:
                    _ratio_target(case, "ozz", "ozz LocalToModelJob", 1.5)
                if thr == 1:
                    rate = case.metrics.get("skinkit", {}).get("M joints/s")
                    first = one.setdefault(("fk rate", J), rate)
                    if B != Bs[0] and rate and first:
                        case.targets.append(Target(f"of the M joints/s at B={Bs[0]:,}",
                                                   "skinkit", rate / first, ">=", 0.8))
                _thread_target(case, one, ("fk", J, B))
                finish(ctx, case)
            del peer


def _lbs(ctx: Ctx, oz, one):
    """The issue's 1M vertices (against ozz), and a mesh moving OUT_OF_CACHE times the largest
    cache (against the triad: the issue's "when the data leave the cache")."""
    sizes = [1_000] if ctx.quick else [1_000_000,
                                       cases.out_of_cache(ctx.llc_bytes, cases.LBS_BYTES)]
    for V in sizes:
        v, j, w, m, n = cases.make_lbs_problem(V)
        for with_normals in (False, True):
            _lbs_rows(ctx, oz, one, V, (v, j, w, m), n if with_normals else None,
                      V == sizes[-1])
        del v, j, w, m, n


def _lbs_rows(ctx: Ctx, oz, one, V, mesh, nrm, out_of_cache):
    with_normals = nrm is not None
    bpv = cases.LBS_NORMAL_BYTES if with_normals else cases.LBS_BYTES
    peer = _peer(oz, lambda: ozz_skin(oz, *mesh, nrm))
    for thr in ctx.threads:
        op = "LBS positions+normals" if with_normals else "LBS positions"
        case = Case("ozz", op, f"V={V:,} J=64 K=4", "float32", thr,
                    params={"V": V, "bytes_per_vertex": bpv})
        f = sk(cases.K.linear_blend_skinning, thr)
        out = ((np.empty((V, 3), np.float32), np.empty((V, 3), np.float32))
               if with_normals else np.empty((V, 3), np.float32))
        name, triad = ctx.triad_entry(thr)
        # ozz rotates normals by the blended matrix without renormalizing: compare
        # positions (normals agree in direction only)
        check = (lambda a, b: maxdiff(a[0], b[0])) if with_normals else maxdiff
        bench(ctx, case, {"skinkit": functools.partial(f, *mesh, normals=nrm, out=out),
                          "ozz SkinningJob": peer if isinstance(peer, Unavailable) else (
                              peer, check), name: triad},
              tol=cases.tol_for(np.float32, 8))
        for im in case.impls:
            if im.ok and im.same_work:
                case.metrics[im.name] = {"Mvert/s": V / im.median_s / 1e6,
                                         "GB/s": V * bpv / im.median_s / 1e9}
        frac = ctx.triad_fraction(case, V * bpv)
        key = (V, with_normals)
        if thr == 1:
            if not out_of_cache or ctx.quick:
                _ratio_target(case, "ozz", "ozz SkinningJob", 1.5 if with_normals else 1.8)
            if out_of_cache and not with_normals and frac is not None:
                case.targets.append(Target("fraction of the C triad's bandwidth", "skinkit",
                                           frac, ">=", 0.9))
            one[("lbs at triad", key)] = frac is not None and frac >= 0.9
        if out_of_cache:
            case.notes.append(f"{cases.OUT_OF_CACHE}x the largest cache "
                              f"({ctx.llc_bytes / 2**20:g} MiB) moved")
        if not one.get(("lbs at triad", key)):
            _thread_target(case, one, ("lbs", key))
        finish(ctx, case)
