"""Fuzz skinkit.load_body_model on body-model files (atheris / libFuzzer).

    python fuzz/fuzz_body.py [libFuzzer flags] [CORPUS_DIR ...]    e.g. -max_total_time=300
    python fuzz/run.py --minutes 5 body                            (seeds, corpus)

The first byte of an input picks how the rest is used:
  0x00-0x5f  the rest is a .pkl file (raw bytes: libFuzzer mutates the seeds' pickles)
  0x60-0x9f  the rest is an .npz file
  0xa0-0xff  structured: a Python 2 pickle of the tiny MANO model built by
             tests/data/body/py2pickle.py with one key's array (or sparse J_regressor) made
             from fuzzed parts: dtype descr, byte order, state version and flags, shape, data
             length, Fortran flag, sparse indptr / indices / shape; this reaches the checks of
             every part, which raw mutations rarely get past.
Loading must give a BodyModel, or raise skinkit.BodyModelError naming the file; any other
exception, a crash (the dtype-flags pickle of issue 17 was one), or a hang is a bug.  A model
that loads is posed once.  An .npz is also read by load_amass (the same member reader under
AMASS's keys), and a motion that loads is resampled.
"""
import os
import sys
import tempfile
from pathlib import Path

import atheris
import numpy as np

with atheris.instrument_imports(include=["skinkit"]):
    import skinkit
    from skinkit.io.body import arrays, npz

# 64 MiB per array instead of the library's 2 GiB: a 60 kB input may legally ask for 2 GiB
# (a sparse J_regressor made dense), which would only hit libFuzzer's RSS and time limits; the
# checks are the same
arrays.MAX_ARRAY_BYTES = npz.MAX_ARRAY_BYTES = 64 * 1024**2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "data" / "body"))
import py2pickle as p2  # noqa: E402
from random_inputs import fuzz_main  # noqa: E402

TMP = Path(tempfile.mkdtemp(prefix="skinkit-fuzz-body-",
                            dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
SEED_ARRAYS = skinkit.synthetic_body_arrays("MANO", 0, num_vertices=20)
DESCRS = ["f8", "f4", "f2", "i8", "i4", "u4", "u1", "b1", "O8", "U1", "V8", "c16", "M8", "S1",
          "f16", "", "f8\x00"]
KEYS = ["v_template", "shapedirs", "posedirs", "J_regressor", "weights", "kintree_table", "f"]
INTS = [0, 1, 2, 3, 5, 16, 20, 60, 135, -1, 2**31, 2**32 + 16, 10**9, 10**12, 2**63]


def _int(fdp):
    return fdp.PickValueInList(INTS) if fdp.ConsumeBool() else fdp.ConsumeIntInRange(-2, 300)


def _array(fdp, a):
    """An ndarray pickle of ``a`` with fuzzed parts."""
    descr = fdp.PickValueInList(DESCRS) if fdp.ConsumeBool() else a.dtype.str[1:]
    dt = p2.dtype(descr, fdp.PickValueInList(["<", ">", "|", "=", "x"]),
                  flags=fdp.PickValueInList([0, 0, 0, 1, 63]),
                  version=fdp.PickValueInList([3, 3, 3, 4, 2]))
    shape = a.shape if fdp.ConsumeBool() else tuple(_int(fdp) for _ in
                                                     range(fdp.ConsumeIntInRange(0, 4)))
    data = a.tobytes()
    if fdp.ConsumeBool():
        data = data[:fdp.ConsumeIntInRange(0, len(data) + 64)].ljust(
            fdp.ConsumeIntInRange(0, len(data) + 64), b"\x41")
    return p2.ndarray(shape=shape, dt=dt, data=data, fortran=fdp.ConsumeBool())


def structured(fdp) -> bytes:
    obj = {k: p2.ndarray(v) for k, v in SEED_ARRAYS.items()}
    key = fdp.PickValueInList(KEYS)
    if key == "J_regressor" and fdp.ConsumeBool():
        jr = SEED_ARRAYS["J_regressor"]
        parts = {}
        nnz = int(np.count_nonzero(jr))
        for part, n in (("indptr", jr.shape[1] + 1), ("indices", nnz), ("data", nnz)):
            if fdp.ConsumeBool():
                parts[part] = _array(fdp, np.asarray(fdp.ConsumeIntListInRange(
                    fdp.ConsumeIntInRange(0, n + 2), -2, 2 * n), np.int32))
        if fdp.ConsumeBool():
            parts["_shape"] = (_int(fdp), _int(fdp))
        obj[key] = p2.sparse(jr, fmt=fdp.PickValueInList(["csc", "csr"]), **parts)
    elif key == "shapedirs" and fdp.ConsumeBool():
        obj[key] = p2.ch(SEED_ARRAYS[key])
        obj[key].state["x"] = _array(fdp, SEED_ARRAYS[key])
    else:
        obj[key] = _array(fdp, SEED_ARRAYS[key])
    return p2.dumps(obj)


def TestOneInput(data: bytes):
    if not data:
        return
    mode = data[0]
    if mode < 0x60:
        path, body = TMP / "m.pkl", data[1:]
    elif mode < 0xA0:
        path, body = TMP / "m.npz", data[1:]
    else:
        path, body = TMP / "m.pkl", structured(atheris.FuzzedDataProvider(data[1:]))
    path.write_bytes(body)
    if path.suffix == ".npz":   # the same safe member reader under AMASS's keys
        motion = _load(skinkit.load_amass, path)
        if motion is not None:
            motion.resample(motion.fps * 0.7)
    model = _load(skinkit.load_body_model, path, dtype=[np.float64, np.float32][mode & 1])
    if model is not None:
        model.forward(pose=np.full((model.num_joints, 3), 0.3))


def _load(load, path, **kwargs):
    """load(path), or None for a BodyModelError that names the file."""
    try:
        return load(path, **kwargs)
    except skinkit.BodyModelError as e:
        if not str(e).startswith(str(path)):
            raise AssertionError(f"BodyModelError not naming the file: {e!r}") from None
        return None


def main(argv=None):
    return fuzz_main(sys.argv if argv is None else argv, TestOneInput)


if __name__ == "__main__":
    main()
