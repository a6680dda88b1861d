"""The peers skinkit is measured against, each written the way a user of that library would.

- plain NumPy: einsum LBS (blend the 3x4 matrices per vertex, then apply them), FK as a Python
  loop over joints with batched 4x4 products, rigid FK as a loop with quaternion formulas;
- SciPy ``Rotation`` / ``Slerp`` for quaternion work and clip sampling (with ``np.interp`` for
  translations);
- ``smplx.lbs`` / ``smplx.lbs.batch_rigid_transform`` on torch CPU;
- the STREAM triad ``a = b + s * c`` compiled from C (``triad.c``), the memory-bandwidth limit,
  and NumPy's own triad for comparison.

None of this is skinkit: skinkit is only imported by the cases.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import subprocess
import tempfile
import threading

import numpy as np

# ----------------------------------------------------------------------------- NumPy


def np_quat_multiply(a, b):
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def np_quat_rotate(q, v):
    """q v q* for unit q: v + 2 w (u x v) + 2 u x (u x v)."""
    u, w = q[..., :3], q[..., 3:]
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def np_quat_to_matrix(q):
    x, y, z, w = np.moveaxis(q, -1, 0)
    m = np.empty(q.shape[:-1] + (3, 3), dtype=q.dtype)
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def np_lbs(vertices, joints, weights, mats, normals=None):
    """Plain NumPy LBS (einsum): blended = sum_k w_k M_{j_k} (V, 3, 4), then applied.  Normals
    by the cofactor matrix of the blended 3x3 (sign of its determinant), renormalized."""
    blended = np.einsum("vk,vkij->vij", weights, mats[joints, :3, :])      # (V, 3, 4)
    pos = np.einsum("vij,vj->vi", blended[:, :, :3], vertices) + blended[:, :, 3]
    if normals is None:
        return pos
    a0, a1, a2 = blended[:, :, 0], blended[:, :, 1], blended[:, :, 2]      # columns
    c0, c1, c2 = np.cross(a1, a2), np.cross(a2, a0), np.cross(a0, a1)      # cofactor columns
    n = normals[:, 0:1] * c0 + normals[:, 1:2] * c1 + normals[:, 2:3] * c2
    det = np.einsum("vi,vi->v", a0, c0)
    length = np.linalg.norm(n, axis=1)
    scale = np.divide(np.sign(det), length, out=np.zeros_like(length), where=length > 0)
    return pos, n * scale[:, None]


def np_forward_kinematics(parents, rotations, translations, scales=None):
    """World matrices by a Python loop over joints (parents before children), each step one
    batched (B, 4, 4) @ (B, 4, 4) product."""
    B, J = rotations.shape[:2]
    local = np.zeros((B, J, 4, 4), dtype=rotations.dtype)
    r = np_quat_to_matrix(rotations)
    local[..., :3, :3] = r if scales is None else r * scales[..., None, :]
    local[..., :3, 3] = translations
    local[..., 3, 3] = 1
    world = np.empty_like(local)
    for i, p in enumerate(parents):
        if p < 0:
            world[:, i] = local[:, i]
        else:
            np.matmul(world[:, p], local[:, i], out=world[:, i])
    return world


def np_rigid_forward_kinematics(parents, rest, rotations):
    """libigl's recursion Q_i = Q_p q_i, t_i = t_p + Q_p x_i - Q_i x_i as a Python loop."""
    Q = np.empty_like(rotations)
    t = np.empty(rotations.shape[:-1] + (3,), dtype=rotations.dtype)
    for i, p in enumerate(parents):
        x = rest[i]
        if p < 0:
            Q[:, i] = rotations[:, i]
            t[:, i] = x - np_quat_rotate(rotations[:, i], x)
        else:
            Q[:, i] = np_quat_multiply(Q[:, p], rotations[:, i])
            t[:, i] = t[:, p] + np_quat_rotate(Q[:, p], x) - np_quat_rotate(Q[:, i], x)
    return Q, t


# ----------------------------------------------------------------------------- SciPy


class ScipyClipSampler:
    """SciPy ``Slerp`` per joint for rotations and ``np.interp`` per joint and component for
    translations; the Slerp objects are built once (as skinkit's Clip packs its keys once)."""

    def __init__(self, key_times, translations, rotations):
        from scipy.spatial.transform import Rotation, Slerp
        self.key_times = np.asarray(key_times, dtype=np.float64)
        self.translations = np.asarray(translations, dtype=np.float64)     # (J, K, 3)
        self.slerps = [Slerp(self.key_times, Rotation.from_quat(q)) for q in rotations]

    def __call__(self, times):
        T, J = times.shape[0], len(self.slerps)
        tr = np.empty((T, J, 3))
        ro = np.empty((T, J, 4))
        for j, s in enumerate(self.slerps):
            ro[:, j] = s(times).as_quat()
            for c in range(3):
                tr[:, j, c] = np.interp(times, self.key_times, self.translations[j, :, c])
        return tr, ro


def scipy_slerp_pairs(r0, r1, t):
    """Pairwise slerp with SciPy rotations: r0 * exp(t * log(r0^-1 r1)) (shortest path)."""
    from scipy.spatial.transform import Rotation
    return (r0 * Rotation.from_rotvec((r0.inv() * r1).as_rotvec() * t[:, None])).as_quat()


# ----------------------------------------------------------------------------- triad


class CTriadUnavailable(RuntimeError):
    """The C triad could not be compiled or allocated here (no compiler, no memory)."""


def c_compiler():
    """The command that compiles C here: $CC, else ``cc`` -- the compiler CMake picks for
    skinkit's kernels."""
    return shlex.split(os.environ.get("CC") or "cc")


class CTriad:
    """The STREAM triad a = b + s c compiled from C (``benchmarks/triad.c``, ``-O3``, pthreads)
    on three float64 arrays of ``nbytes`` each, allocated and first touched by the threads that
    run it; bytes counted as STREAM counts them, 3 x 8 B per element.  ``run(threads)`` is one
    pass over the arrays (the time includes starting the threads, tens of microseconds)."""

    FLAGS = ["-O3", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-shared", "-fPIC", "-pthread"]

    def __init__(self, nbytes: int, threads: int = 1):
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "triad.c")
        cc = c_compiler()
        try:
            version = subprocess.run(cc + ["--version"], capture_output=True, text=True,
                                     timeout=60).stdout.splitlines()
        except (OSError, subprocess.SubprocessError) as e:
            raise CTriadUnavailable(f"no C compiler ({' '.join(cc)}): {e}") from None
        self.compiler = version[0] if version else " ".join(cc)
        with open(src, "rb") as f:
            key = hashlib.sha256(f.read() + " ".join(cc + self.FLAGS).encode()).hexdigest()[:16]
        lib = os.path.join(tempfile.gettempdir(), f"skinkit-triad-{key}-{os.getuid()}.so")
        if not os.path.exists(lib):
            tmp = f"{lib}.{os.getpid()}"
            r = subprocess.run(cc + self.FLAGS + [src, "-o", tmp], capture_output=True,
                               text=True)
            if r.returncode != 0:
                raise CTriadUnavailable(f"{' '.join(cc)} failed: {r.stderr.strip()[-300:]}")
            os.replace(tmp, lib)
        self._lib = ctypes.CDLL(lib)
        self._lib.triad_setup.argtypes = [ctypes.c_size_t, ctypes.c_int]
        self._lib.triad_run.argtypes = [ctypes.c_int, ctypes.c_double]
        self._lib.triad_run.restype = ctypes.c_double
        self._lib.triad_check.argtypes = [ctypes.c_double]
        self._lib.triad_check.restype = ctypes.c_double
        self.n = max(1 << 17, nbytes // 8)
        self.s = 3.0
        self.bytes_moved = 3 * 8 * self.n
        if self._lib.triad_setup(self.n, threads) != 0:
            raise CTriadUnavailable(f"cannot allocate 3 x {self.n * 8} bytes")

    def run(self, threads: int = 1) -> float:
        """One triad pass; returns its own wall time in seconds (timed inside C)."""
        return self._lib.triad_run(threads, self.s)

    def best(self, threads: int, repeats: int = 10) -> float:
        """STREAM's figure: the best time of ``repeats`` passes, in seconds."""
        return min(self.run(threads) for _ in range(repeats))

    def check(self) -> float:
        return self._lib.triad_check(self.s)


class NumpyTriad:
    """NumPy's STREAM triad a = b + s c on three float64 arrays of ``nbytes`` each (kept to show
    what NumPy itself reaches; the yardstick is the compiled ``CTriad``).

    NumPy evaluates ``b + s * c`` as two passes, so the work is done in chunks of 128 Ki
    elements (1 MiB, which stays in the L2 cache between the two passes): ``a[chunk] = c[chunk]
    * s`` then ``a[chunk] += b[chunk]``.  Main-memory traffic is then one read of b, one read of
    c and one write of a, counted as STREAM counts it: 3 x 8 B per element, no write-allocate.
    With ``threads`` > 1, Python threads each do a contiguous part (NumPy releases the GIL
    inside ufuncs)."""

    CHUNK = 1 << 17

    def __init__(self, nbytes: int):
        self.n = max(self.CHUNK, nbytes // 8)
        self.a = np.zeros(self.n)
        self.b = np.full(self.n, 1.5)
        self.c = np.full(self.n, 2.0)
        self.s = 3.0
        self.bytes_moved = 3 * 8 * self.n

    def _part(self, lo, hi):
        a, b, c, s, step = self.a, self.b, self.c, self.s, self.CHUNK
        for i in range(lo, hi, step):
            e = min(i + step, hi)
            np.multiply(c[i:e], s, out=a[i:e])
            np.add(a[i:e], b[i:e], out=a[i:e])

    def run(self, threads: int = 1):
        if threads <= 1:
            self._part(0, self.n)
            return self.a
        edges = np.linspace(0, self.n, threads + 1).astype(int)
        workers = [threading.Thread(target=self._part, args=(int(lo), int(hi)))
                   for lo, hi in zip(edges[:-1], edges[1:])]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return self.a

    def check(self) -> float:
        return float(np.abs(self.a - (self.b + self.s * self.c)).max())


# ----------------------------------------------------------------------------- torch / smplx


def torch_versions():
    """(torch version, smplx version) or raise ImportError."""
    import torch
    import smplx  # noqa: F401
    from importlib.metadata import version
    return torch.__version__, version("smplx")


class SmplTorch:
    """SMPL-shaped synthetic model on torch CPU for ``smplx.lbs``: no model files.  Shape and
    pose blend shapes are zero (shapedirs (V, 3, 10), posedirs (207, 3V)), so the posed mesh is
    plain LBS of the template; ``lbs_weights`` is dense (V, 24) with the same 4 non-zeros per
    vertex that skinkit gets as (joints, weights)."""

    def __init__(self, v_template, J_regressor, parents, lbs_weights):
        import torch
        self.torch = torch
        V, J = lbs_weights.shape
        self.v_template = torch.from_numpy(v_template)                     # (V, 3)
        self.shapedirs = torch.zeros((V, 3, 10), dtype=torch.float32)
        self.posedirs = torch.zeros((9 * (J - 1), 3 * V), dtype=torch.float32)
        self.J_regressor = torch.from_numpy(J_regressor)                   # (J, V)
        self.parents = torch.from_numpy(np.asarray(parents, dtype=np.int64))
        self.lbs_weights = torch.from_numpy(lbs_weights)                   # (V, J)

    def lbs(self, betas, pose):
        """The whole smplx.lbs: blend shapes, joint regression, Rodrigues, rigid transforms,
        skinning."""
        from smplx.lbs import lbs
        with self.torch.no_grad():
            verts, _ = lbs(betas, pose, self.v_template, self.shapedirs, self.posedirs,
                           self.J_regressor, self.parents, self.lbs_weights, pose2rot=True)
        return verts

    def skin_only(self, pose, joints):
        """Only the steps skinkit does, in smplx.lbs's own code: Rodrigues, batch_rigid_transform
        and the skinning (W A, then T v), on the given rest joints (B, J, 3)."""
        from smplx.lbs import batch_rigid_transform, batch_rodrigues
        torch = self.torch
        with torch.no_grad():
            B, J = pose.shape[0], self.lbs_weights.shape[1]
            rot = batch_rodrigues(pose.view(-1, 3)).view(B, -1, 3, 3)
            _, A = batch_rigid_transform(rot, joints, self.parents, dtype=torch.float32)
            W = self.lbs_weights.unsqueeze(0).expand(B, -1, -1)
            T = torch.matmul(W, A.view(B, J, 16)).view(B, -1, 4, 4)
            v = self.v_template.unsqueeze(0).expand(B, -1, -1)
            v_homo = torch.cat([v, torch.ones((B, v.shape[1], 1), dtype=v.dtype)], dim=2)
            return torch.matmul(T, v_homo.unsqueeze(-1))[:, :, :3, 0]

    def rigid_transform(self, rot_mats, joints):
        from smplx.lbs import batch_rigid_transform
        with self.torch.no_grad():
            return batch_rigid_transform(rot_mats, joints, self.parents,
                                         dtype=self.torch.float32)
