"""linear_blend_skinning reads nothing past its inputs: the float32 SIMD kernels read a vertex's
position as 16 bytes (its 12 and the next vertex's first 4), all but the last of a call's range,
which must be read without touching the bytes after it.  The inputs here end at an unreadable
page, so a read past the end faults; results must be those of the same data in ordinary memory."""
import ctypes
import ctypes.util
import mmap
import sys

import numpy as np
import pytest

import skinkit as sk

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="mprotect: POSIX only")


@pytest.fixture
def at_page_end():
    """Copies of float32 arrays whose last byte is followed by a PROT_NONE page."""
    maps = []  # the mappings, alive for the test
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

    def place(a):
        a = np.ascontiguousarray(a, np.float32)
        pages = -(-a.nbytes // mmap.PAGESIZE) + 1
        m = mmap.mmap(-1, pages * mmap.PAGESIZE)
        maps.append(m)
        base = ctypes.addressof(ctypes.c_char.from_buffer(m))
        guard = base + (pages - 1) * mmap.PAGESIZE
        assert libc.mprotect(guard, mmap.PAGESIZE, 0) == 0, ctypes.get_errno()
        buf = (ctypes.c_char * a.nbytes).from_address(guard - a.nbytes)
        out = np.frombuffer(buf, np.float32).reshape(a.shape)
        out[...] = a
        return out

    return place


@pytest.mark.parametrize("V", [1, 3, 4, 5, 16, 17, 1001])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("jdtype", [np.uint8, np.uint16, np.int32])
def test_no_read_past_the_vertices(at_page_end, V, threads, jdtype):
    rng = np.random.default_rng(V)
    J, K = 9, 4
    verts = rng.normal(size=(V, 3)).astype(np.float32)
    normals = rng.normal(size=(V, 3)).astype(np.float32)
    joints = rng.integers(0, J, size=(V, K)).astype(jdtype)
    weights = rng.random((V, K)).astype(np.float32)
    mats = rng.normal(size=(J, 4, 4)).astype(np.float32)
    want = sk.linear_blend_skinning(verts, joints, weights, mats, threads=1)
    got = sk.linear_blend_skinning(at_page_end(verts), joints, at_page_end(weights), mats,
                                   threads=threads)
    assert np.array_equal(got, want)
    want_n = sk.linear_blend_skinning(verts, joints, weights, mats, normals, threads=1)
    got_n = sk.linear_blend_skinning(at_page_end(verts), joints, weights, mats,
                                     at_page_end(normals), threads=threads)
    assert np.array_equal(got_n[0], want_n[0]) and np.array_equal(got_n[1], want_n[1])
