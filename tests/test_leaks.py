"""No leaks (issue #4): every public function called 100,000 times, error paths included, keeps
the resident set flat and leaves the reference counts of its inputs (and of ``out=``) unchanged.

Each test cycles through the ways a call can go -- a result, a result into ``out=``, a wrong
shape, a wrong dtype, a wrong ``out=`` -- so a reference or a buffer lost on any exit path shows
up as growth.  RSS is read from /proc/self/statm after a warm-up; the slack (2 MiB) is far below
what 100,000 lost objects of any size would take.  Under the sanitizer build (.ci/sanitize sets
SKINKIT_SANITIZED) ASan's quarantine holds freed memory, so only the reference counts are checked
there, on fewer calls.
"""
import ctypes
import gc
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import skinkit as sk
import helpers
from test_api_contract import SPECS, IDS

SANITIZED = bool(os.environ.get("SKINKIT_SANITIZED"))
CALLS = 10_000 if SANITIZED else 100_000
WARMUP = 2_000
SLACK = 2 * 2**20
ALLOWED = (TypeError, ValueError, MemoryError)

pytestmark = pytest.mark.skipif(not Path("/proc/self/statm").exists(),
                                reason="RSS is read from /proc/self/statm (Linux)")


def rss():
    """Resident bytes, after glibc hands its free heap back to the system (malloc_trim): what
    earlier tests freed would otherwise absorb new allocations, lost ones included."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):   # not glibc
        pass
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def refcounts(objs):
    return [sys.getrefcount(o) for o in objs]


def check_flat(calls, keep):
    """Run the callables of ``calls`` round-robin CALLS times in all; RSS flat after a warm-up
    and the reference counts of ``keep`` unchanged."""
    n = len(calls)
    for i in range(WARMUP):
        calls[i % n]()
    gc.collect()
    before_refs = refcounts(keep)
    before = rss()
    for i in range(CALLS):
        calls[i % n]()
    gc.collect()
    grown = rss() - before
    assert refcounts(keep) == before_refs
    if not SANITIZED:
        assert grown < SLACK, f"RSS grew by {grown / 2**20:.1f} MiB over {CALLS} calls"


def expect_error(fn, *args, **kw):
    def call():
        try:
            fn(*args, **kw)
        except ALLOWED:
            return
        raise AssertionError("no error")
    return call


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_kernel_calls_do_not_leak(spec):
    rng = helpers.rng_for("leak", spec.name)
    kw = spec.make(rng, (3,))
    outs = [np.empty((3,) + o) for o in spec.outs]
    out = tuple(outs) if spec.out_pair else outs[0]
    first = spec.float_args()[0].name
    bad_shape = dict(kw, **{first: np.zeros(kw[first].shape[:-1] + (7,))})
    bad_dtype = dict(kw, **{first: kw[first].astype(np.complex128)})
    wrong_out = [np.empty((4,) + o) for o in spec.outs]
    wrong_out = tuple(wrong_out) if spec.out_pair else wrong_out[0]
    fn = spec.fn
    calls = [lambda: fn(**kw), lambda: fn(**kw, out=out), expect_error(fn, **bad_shape),
             expect_error(fn, **bad_dtype), expect_error(fn, **kw, out=wrong_out)]
    check_flat(calls, [*kw.values(), *outs, bad_shape[first], bad_dtype[first]])


def test_index_errors_do_not_leak():
    """Bad parents (cycle, out of range, float) and joint indices out of range."""
    q, t = np.tile([0.0, 0, 0, 1], (4, 1)), np.zeros((4, 3))
    cycle, far, flt = np.array([1, 2, 0, -1]), np.array([-1, 9, 0, 1]), np.array([-1.0, 0, 1, 2])
    verts, w, m = np.ones((5, 3)), np.ones((5, 2)), np.tile(np.eye(4), (3, 1, 1))
    j_bad, j64 = np.full((5, 2), 3, np.int32), np.full((5, 2), -2, np.int64)
    calls = [expect_error(sk.forward_kinematics, cycle, q, t),
             expect_error(sk.forward_kinematics, far, q, t),
             expect_error(sk.rigid_forward_kinematics, flt, t, q),
             expect_error(sk.linear_blend_skinning, verts, j_bad, w, m),
             expect_error(sk.linear_blend_skinning, verts, j64, w, m),
             expect_error(sk.matrix_inverse, np.zeros((2, 4, 4))),
             expect_error(sk.quat_multiply, None, q)]
    check_flat(calls, [q, t, cycle, far, flt, verts, w, m, j_bad, j64])


def test_weights_helpers_do_not_leak():
    j = np.array([[0, 1, 2], [2, 1, 0]], np.int32)
    w = np.array([[0.2, 0.5, 0.3], [0.0, 0.0, 0.0]])
    calls = [lambda: sk.normalize_weights(w), lambda: sk.limit_influences(j, w, 2),
             expect_error(sk.normalize_weights, w.astype(complex)),
             expect_error(sk.limit_influences, j, w[:1], 2)]
    check_flat(calls, [j, w])


def test_clip_sampling_does_not_leak():
    keys = np.array([0.0, 0.5, 1.0])
    chans = [sk.Channel(0, "rotation", keys, helpers.random_quats(helpers.rng_for("lk"), (3,))),
             sk.Channel(1, "translation", keys, np.zeros((9, 3)), "CUBICSPLINE"),
             sk.Channel(1, "scale", keys, np.ones((3, 3)), "STEP")]
    clip = sk.Clip("c", chans)
    rest = (np.zeros((2, 3)), np.tile([0.0, 0, 0, 1], (2, 1)), np.ones((2, 3)))
    times = np.linspace(-0.5, 1.5, 7)
    bad_rest = (rest[0][:1], rest[1], rest[2])
    calls = [lambda: clip.sample(times, rest), lambda: clip.sample(0.25, rest, loop=True),
             expect_error(clip.sample, np.array([np.nan]), rest),
             expect_error(clip.sample, times, bad_rest),
             lambda: sk.Clip("d", chans[:2]),
             expect_error(sk.Channel, 0, "rotation", keys[::-1], np.zeros((3, 4)))]
    check_flat(calls, [keys, times, *rest, bad_rest[0], clip, *chans])


def test_gltf_loading_does_not_leak(tmp_path):
    """load_gltf on a small valid model and on broken ones (fewer calls: each reads a file)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
    try:
        import seed_model
    finally:
        sys.path.pop(0)
    doc, data = seed_model.model()
    good = tmp_path / "m.glb"
    good.write_bytes(seed_model.glb(doc, data))
    cut = tmp_path / "cut.glb"
    cut.write_bytes(good.read_bytes()[:-4])
    bad_doc = dict(doc, nodes=doc["nodes"] + [{"children": [0, 0]}])
    bad = tmp_path / "bad.glb"
    bad.write_bytes(seed_model.glb(bad_doc, data))
    calls = [lambda: sk.load_gltf(good), expect_error(sk.load_gltf, cut),
             expect_error(sk.load_gltf, bad)]
    global CALLS, WARMUP
    saved = CALLS, WARMUP
    CALLS, WARMUP = CALLS // 50, 100
    try:
        check_flat(calls, [])
    finally:
        CALLS, WARMUP = saved


def test_the_check_sees_a_leak():
    """The measurement itself: a lost reference to an input, and 100,000 lost 1 KiB buffers."""
    a = np.zeros(4)
    lost = []
    with pytest.raises(AssertionError):
        check_flat([lambda: lost.append(a)], [a])
    lost.clear()
    if not SANITIZED:
        with pytest.raises(AssertionError, match="RSS grew"):
            check_flat([lambda: lost.append(bytes(1024))], [])
    lost.clear()
