"""Hostile body-model files (.pkl and .npz): each is built here and must give a BodyModelError
naming the file, the key and what is wrong; never a crash, another exception, or an allocation
the file asks for.  Loads where a crash is possible run in a child process, so a segfault fails
the test instead of killing pytest (issue 17)."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import DATA, SKINKIT_PATH

sys.path.insert(0, str(DATA / "body"))
import py2pickle as p2  # noqa: E402

from body_models import make_arrays  # noqa: E402
from npz_craft import npy_bytes, write_npz  # noqa: E402



def _child_load(path):
    """load_body_model(path) in a child process: (exit status, the error line or 'ok')."""
    code = textwrap.dedent(f"""
        import skinkit
        try:
            skinkit.load_body_model({str(path)!r})
            print("ok")
        except skinkit.BodyModelError as e:
            print("BodyModelError:", e)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": SKINKIT_PATH})
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def _mano_pkl(tmp_path, name="model.pkl", **override):
    """The tiny MANO arrays as a Python 2 chumpy pickle, with ``override`` replacing keys."""
    a = {k: p2.ndarray(v) for k, v in make_arrays("MANO", V=40).items()}
    a.update(override)
    path = tmp_path / name
    path.write_bytes(p2.dumps(a))
    return path


def _object_dtype():
    """numpy.dtype('O8') with a version-3 state whose flags (63 for an object dtype) are 0."""
    return p2.dtype("O8", "|", flags=0)


EXPLOITS = {   # where the crafted object dtype sits -> the key the error must name
    "array": ("v_template", lambda: p2.ndarray(shape=(4,), dt=_object_dtype(),
                                               data=b"\x41" * 32)),
    "scalar": ("f", lambda: p2.Call(p2.Global("numpy.core.multiarray", "scalar"),
                                           (_object_dtype(), p2.Str(b"\x41" * 8)))),
    "sparse data": ("J_regressor", lambda: p2.sparse(
        np.eye(16, 40), data=p2.ndarray(shape=(16,), dt=_object_dtype(), data=b"\x41" * 128))),
}


@pytest.mark.parametrize("where", sorted(EXPLOITS))
def test_object_dtype_with_cleared_flags_is_refused_not_a_crash(tmp_path, where):
    """The issue-17 exploit: a version-3 dtype state with the flags of an object dtype cleared
    made ndarray.__setstate__ and multiarray.scalar take file bytes as object pointers (a
    segfault when they are used).  Now no NumPy constructor sees the state."""
    key, build = EXPLOITS[where]
    path = _mano_pkl(tmp_path, **{key: build()})
    status, out = _child_load(path)
    assert status == 0, f"child died with status {status}: {out[-2000:]}"
    assert out.startswith("BodyModelError:") and str(path) in out and key in out, out
    assert "dtype" in out, out



# --------------------------------------------------------------------------- the corpus
# Each case builds a file from the tiny MANO arrays (40 vertices) with one part made hostile;
# all are loaded in one child process (a crash fails every case still unanswered) and each
# must be a BodyModelError whose message starts with the file's path, names the key and
# matches the pattern.

def _arrays():
    return make_arrays("MANO", V=40)


def _pkl_case(**override):
    """A py2 pickle of the MANO arrays with ``override`` replacing keys (py2pickle objects)."""
    def build(path):
        a = {k: p2.ndarray(v) for k, v in _arrays().items()}
        a.update(override)
        path.write_bytes(p2.dumps(a))
    return build


NNZ = int(np.count_nonzero(make_arrays("MANO", V=40)["J_regressor"]))   # stored entries


def _arr(shape=(40, 3), dt=None, data=None, fortran=False):
    """v_template's ndarray pickle with any of its parts replaced."""
    return p2.ndarray(shape=shape, dt=p2.dtype("f8") if dt is None else dt,
                      data=b"\0" * 960 if data is None else data, fortran=fortran)


def _jr(**override):
    """J_regressor as a CSC matrix pickle with parts of its state replaced."""
    return p2.sparse(_arrays()["J_regressor"], **override)


def _raw_pickle(data: bytes):
    def build(path):
        path.write_bytes(data)
    return build


def _global_call(module, name, *args):
    return p2.Call(p2.Global(module, name), args)


def _npz_case(declared=None, compress=False, **override):
    """An .npz of the MANO arrays with ``override`` replacing members (arrays or .npy bytes)."""
    def build(path):
        a = dict(_arrays(), **override)
        write_npz(path, a, declared_sizes=declared, compress=compress)
    return build


def _npy(shape, descr="<f8", data=b"", fortran=False):
    return npy_bytes(header={"descr": descr, "fortran_order": fortran, "shape": shape},
                     data=data)


def _corrupt_npz(path):
    write_npz(path, _arrays(), compress=True)
    raw = bytearray(path.read_bytes())
    at = raw.index(b"v_template.npy") + len("v_template.npy") + 40
    raw[at:at + 64] = bytes(64)               # inside the deflated data
    path.write_bytes(bytes(raw))


def _crc_npz(path):
    write_npz(path, _arrays())
    raw = bytearray(path.read_bytes())
    at = raw.index(b"v_template.npy") + len("v_template.npy") + 200
    raw[at] ^= 0xFF                            # stored data: the CRC no longer matches
    path.write_bytes(bytes(raw))


HOSTILE = {
    # -- dtypes outside the allow-list, or states NumPy would misread
    "pkl object dtype (flags 63)": (_pkl_case(v_template=_arr(dt=p2.dtype("O8", "|", 63))),
                                    "v_template", "state|not a numeric dtype"),
    "pkl unicode dtype": (_pkl_case(v_template=_arr(dt=p2.dtype("U1"))), "v_template",
                          "'U1' is not a numeric dtype"),
    "pkl void dtype": (_pkl_case(v_template=_arr(dt=p2.dtype("V8", "|"))), "v_template",
                       "'V8' is not a numeric dtype"),
    "pkl complex dtype": (_pkl_case(v_template=_arr(dt=p2.dtype("c16"))), "v_template",
                          "'c16' is not a numeric dtype"),
    "pkl datetime dtype": (_pkl_case(v_template=_arr(dt=p2.dtype("M8"))), "v_template",
                           "'M8' is not a numeric dtype"),
    "pkl dtype state version 4": (_pkl_case(v_template=_arr(dt=p2.dtype("f8", version=4))),
                                  "v_template", r"state \(4,"),
    "pkl dtype flags set": (_pkl_case(v_template=_arr(dt=p2.dtype("f8", flags=1))),
                            "v_template", "state"),
    "pkl dtype structured state": (_pkl_case(v_template=_arr(dt=p2.Call(
        p2.Global("numpy", "dtype"), (p2.Str("V16"), 0, 1),
        (3, p2.Str("|"), None, (p2.Str("a"),), {"a": (p2.dtype("O8", "|", 0), 0)}, 16, 1,
         0)))), "v_template", "state"),
    "pkl byte order x": (_pkl_case(v_template=_arr(dt=p2.dtype("f8", "x"))), "v_template",
                         "byte order 'x'"),
    "pkl dtype without state": (_pkl_case(v_template=_arr(dt=p2.Call(
        p2.Global("numpy", "dtype"), (p2.Str("f8"), 0, 1)))), "v_template", "state None"),
    "pkl dtype is a str": (_pkl_case(v_template=_arr(dt=p2.Str("f8"))), "v_template",
                           "dtype is a str"),
    # -- shapes and byte counts
    "pkl negative shape": (_pkl_case(v_template=_arr(shape=(-40, 3))), "v_template",
                           "not a tuple of non-negative integers"),
    "pkl float shape": (_pkl_case(v_template=_arr(shape=(40.0, 3))), "v_template",
                        "not a tuple of non-negative integers"),
    "pkl bool shape": (_pkl_case(v_template=_arr(shape=(True, 3))), "v_template",
                       "non-negative integers"),
    "pkl string shape": (_pkl_case(v_template=_arr(shape=p2.Str("40"))), "v_template",
                         "non-negative integers"),
    "pkl 10^12 shape": (_pkl_case(v_template=_arr(shape=(10**12, 3))), "v_template",
                        r"asks for 24000000000000 bytes, more than the limit of 2147483648"),
    "pkl empty with a 2^63 dimension": (_pkl_case(v_template=_arr(shape=(0, 2**63), data=b"")),
                                        "v_template", "a dimension above the limit"),
    "npz empty with a 2^62 dimension": (_npz_case(v_template=_npy((0, 2**62))), "v_template",
                                        "a dimension above the limit"),
    "pkl short data": (_pkl_case(v_template=_arr(data=b"\0" * 959)), "v_template",
                       "needs 960 bytes, the file holds 959"),
    "pkl long data": (_pkl_case(v_template=_arr(data=b"\0" * 961)), "v_template",
                      "needs 960 bytes, the file holds 961"),
    "pkl data an int": (_pkl_case(v_template=p2.Call(
        p2.Global("numpy.core.multiarray", "_reconstruct"),
        (p2.Global("numpy", "ndarray"), (0,), p2.Str("b")),
        (1, (40, 3), p2.dtype("f8"), False, 7))), "v_template", "data is a int"),
    "pkl data a list (object pickling)": (_pkl_case(v_template=p2.Call(
        p2.Global("numpy.core.multiarray", "_reconstruct"),
        (p2.Global("numpy", "ndarray"), (0,), p2.Str("b")),
        (1, (2,), p2.dtype("f8"), False, [1.0, 2.0]))), "v_template", "data is a list"),
    "pkl fortran flag an int": (_pkl_case(v_template=_arr(fortran=2)), "v_template",
                                "order flag is 2"),
    "pkl ndarray without state": (_pkl_case(v_template=p2.Call(
        p2.Global("numpy.core.multiarray", "_reconstruct"),
        (p2.Global("numpy", "ndarray"), (0,), p2.Str("b")))), "v_template", "without the state"),
    "pkl _reconstruct of a dtype": (_pkl_case(v_template=p2.Call(
        p2.Global("numpy.core.multiarray", "_reconstruct"),
        (p2.Global("numpy", "dtype"), (0,), p2.Str("b")))), "",
        "_reconstruct of a class other than numpy.ndarray"),
    "pkl scalar of a str": (_pkl_case(f=p2.Call(p2.Global("numpy.core.multiarray", "scalar"),
                                                (p2.dtype("U1"), p2.Str("abcd")))), "f",
                            "not a numeric dtype"),
    "pkl protocol-5 buffer wrong order": (_pkl_case(v_template=p2.Call(
        p2.Global("numpy._core.numeric", "_frombuffer"),
        (p2.Str(b"\0" * 960), p2.dtype("f8"), (40, 3), p2.Str("K")))), "v_template",
        "order 'K'"),
    # -- scipy.sparse J_regressor (issue 17: IndexError, TypeError, UFuncTypeError, ValueError)
    "sparse negative shape": (_pkl_case(J_regressor=_jr(_shape=(-16, 40))), "J_regressor",
                              "non-negative integers"),
    "sparse float shape": (_pkl_case(J_regressor=_jr(_shape=(16.0, 40))), "J_regressor",
                           "non-negative integers"),
    "sparse 3-D shape": (_pkl_case(J_regressor=_jr(_shape=(16, 40, 1))), "J_regressor",
                         r"not \(rows, columns\)"),
    "sparse huge shape": (_pkl_case(J_regressor=_jr(_shape=(10**6, 10**6))), "J_regressor",
                          "more than the limit"),
    "sparse no shape": (_pkl_case(J_regressor=_jr(_shape=None)), "J_regressor",
                        r"shape None is not \(rows, columns\)"),
    "sparse decreasing indptr": (_pkl_case(J_regressor=_jr(indptr=np.array(
        [0] + [40] * 20 + [30] * 20, np.int32))), "J_regressor", "indptr must rise from 0"),
    "sparse indptr from 1": (_pkl_case(J_regressor=_jr(indptr=np.arange(1, 42, dtype=np.int32))),
                             "J_regressor", "indptr must rise from 0"),
    "sparse indptr too short": (_pkl_case(J_regressor=_jr(indptr=np.zeros(5, np.int32))),
                                "J_regressor", "needs indptr of 41 entries, got 5"),
    "sparse indptr past data": (_pkl_case(J_regressor=_jr(indptr=np.append(
        np.zeros(40, np.int32), 10**6).astype(np.int32))), "J_regressor", "at most"),
    "sparse index out of range": (_pkl_case(J_regressor=_jr(indices=np.full(NNZ, 99, np.int32))),
                                  "J_regressor", r"index out of range 0..15"),
    "sparse negative index": (_pkl_case(J_regressor=_jr(indices=np.full(NNZ, -1, np.int32))),
                              "J_regressor", "index out of range"),
    "sparse float indices": (_pkl_case(J_regressor=_jr(indices=np.zeros(NNZ))), "J_regressor",
                             "indices must be a 1-D integer array"),
    "sparse string data": (_pkl_case(J_regressor=_jr(data=p2.ndarray(
        shape=(NNZ,), dt=p2.dtype("S1", "|"), data=b"x" * NNZ))), "J_regressor.data",
        "'S1' is not a numeric dtype"),
    "sparse 2-D indptr": (_pkl_case(J_regressor=_jr(indptr=np.zeros((41, 1), np.int32))),
                          "J_regressor", "indptr must be a 1-D integer array"),
    "sparse missing indptr": (_pkl_case(J_regressor=p2.New(
        p2.Global("scipy.sparse.csc", "csc_matrix"), {"data": np.zeros(3)})), "J_regressor",
        "without the stored arrays"),
    "sparse coo matrix": (_pkl_case(J_regressor=p2.New(
        p2.Global("scipy.sparse.coo", "coo_matrix"), {"data": np.zeros(3)})), "J_regressor",
        "coo_matrix without the stored arrays"),
    # -- values that are not arrays (issue 17: _to_array's AttributeError, ragged lists)
    "ragged list": (_pkl_case(v_template=[[1.0, 2.0], [3.0]]), "v_template", "is a list"),
    "string value": (_pkl_case(v_template=p2.Str("abc")), "v_template", "is a str"),
    "None value": (_pkl_case(weights=None), "weights", "is a NoneType"),
    "dict value": (_pkl_case(weights={"a": 1}), "weights", "is a dict"),
    "set value": (_pkl_case(f=p2.Call(p2.Global("__builtin__", "set"), ([1, 2],))), "f",
                  "is a set"),
    "chumpy expression": (_pkl_case(shapedirs=p2.New(p2.Global("chumpy.ch_ops", "add"),
                                                     {"a": np.zeros(3)})), "shapedirs",
                          "chumpy.ch_ops.add object without stored values"),
    "chumpy Ch without x": (_pkl_case(shapedirs=p2.New(p2.Global("chumpy.ch", "Ch"), {})),
                            "shapedirs", "without stored values"),
    "chumpy Ch holding a Ch": (_pkl_case(shapedirs=p2.New(p2.Global("chumpy.ch", "Ch"), {
        "x": p2.ch(np.zeros((40, 3, 10)))})), "shapedirs", "is a Ch, not an array"),
    "sparse data a sparse matrix": (_pkl_case(J_regressor=_jr(data=_jr())), "J_regressor.data",
                                    "is a csc_matrix, not an array"),
    "chumpy Ch holding a list": (_pkl_case(shapedirs=p2.New(p2.Global("chumpy.ch", "Ch"), {
        "x": [1.0, 2.0]})), "shapedirs", "is a list"),
    "chumpy Ch state a list": (_pkl_case(shapedirs=p2.New(p2.Global("chumpy.ch", "Ch"),
                                                          [1, 2])), "shapedirs",
                               "without stored values"),
    # -- refused globals and code
    "os.system": (_pkl_case(v_template=_global_call("os", "system", p2.Str("echo pwned"))), "",
                  "refused global os.system"),
    "posix.system": (_pkl_case(v_template=_global_call("posix", "system", p2.Str("true"))), "",
                     "refused global posix.system"),
    "builtins eval": (_pkl_case(v_template=_global_call("__builtin__", "eval", p2.Str("1"))),
                      "", "refused global __builtin__.eval"),
    "subprocess": (_pkl_case(v_template=_global_call("subprocess", "Popen", p2.Str("true"))), "",
                   "refused global subprocess.Popen"),
    "importlib": (_pkl_case(v_template=_global_call("importlib", "import_module",
                                                    p2.Str("os"))), "",
                  "refused global importlib.import_module"),
    "numpy.load": (_pkl_case(v_template=_global_call("numpy", "load", p2.Str("/etc/passwd"))),
                   "", "refused global numpy.load"),
    "numpy frombuffer": (_pkl_case(v_template=_global_call("numpy", "frombuffer",
                                                           p2.Str("x"))), "",
                         "refused global numpy.frombuffer"),
    "codecs encode not latin1": (_pkl_case(v_template=_global_call(
        "_codecs", "encode", "abc", "rot13")), "", "latin1"),
    "copy_reg of a set": (_pkl_case(v_template=_global_call(
        "copy_reg", "_reconstructor", p2.Global("__builtin__", "set"),
        p2.Global("__builtin__", "object"), None)), "", "refused class"),
    "scipy function": (_pkl_case(J_regressor=_global_call("scipy.sparse", "load_npz",
                                                          p2.Str("/etc/passwd"))),
                       "", "refused call of scipy.sparse.load_npz"),
    "BUILD on a stand-in class": (_pkl_case(v_template=p2.Call(
        p2.Global("__builtin__", "object"), (), state=None) and p2.New(
        p2.Global("__builtin__", "set"), {"x": 1})), "", "BUILD on a set"),
    "BUILD setting the dtype class's __setstate__": (_raw_pickle(
        b"\x80\x02}(U\nv_templatecnumpy\ndtype\nN}U\x0c__setstate__c__builtin__\nset\n"
        b"s\x86bu."), "", "BUILD on a type"),
    "LONG_BINPUT 175726962 (the C unpickler's memo: 2.7 GB)": (_raw_pickle(
        b"\x80\x02}(X\n\x00\x00\x00v_templater\x72\x7a\x79\x0a)u."), "v_template",
        "is a tuple"),
    # -- not a model pickle
    "empty file": (_raw_pickle(b""), "", "not a readable body model pickle"),
    "truncated": (_raw_pickle(p2.dumps({"v_template": np.zeros((40, 3))})[:-30]), "",
                  "not a readable body model pickle"),
    "random bytes": (_raw_pickle(bytes(np.random.default_rng(0).integers(0, 256, 4000,
                                                                         np.uint8))),
                     "", "not a readable body model pickle"),
    "a list": (_raw_pickle(p2.dumps([1, 2])), "", "expected a pickled dict"),
    "truncated float": (_raw_pickle(b"KPG\xad\xf7\x01l`"), "", "struct.error|error: unpack"),
    "deep nesting": (_raw_pickle(b"\x80\x02" + b"]" * 100000 + b"."), "",
                     "expected a pickled dict"),
    "missing key": (_pkl_case(posedirs=None) and (lambda path: path.write_bytes(p2.dumps(
        {k: v for k, v in _arrays().items() if k != "posedirs"}))), "posedirs", "missing key"),
    # -- npz
    "npz object member needed": (_npz_case(v_template=np.array([None] * 3, dtype=object)),
                                 "v_template", "object or structured array"),
    "npz 10^9 vertices declared": (_npz_case(v_template=_npy((10**9, 3), data=b"\0" * 960)),
                                   "v_template", r"asks for 24000000000 bytes, more than the "
                                                 r"limit of 2147483648"),
    "npz declared shape off the data": (_npz_case(v_template=_npy((41, 3), data=b"\0" * 960)),
                                        "v_template", r"declares shape \(41, 3\).*holds 960"),
    "npz negative shape": (_npz_case(v_template=_npy((-40, 3), data=b"\0" * 960)),
                           "v_template", "unreadable member|non-negative"),
    "npz complex": (_npz_case(v_template=np.zeros((40, 3), complex)), "v_template",
                    "'c16' is not a numeric dtype"),
    "npz strings": (_npz_case(weights=np.full((40, 16), "a")), "weights",
                    "'U1' is not a numeric dtype"),
    "npz structured": (_npz_case(f=np.zeros(4, [("a", "<i4"), ("b", "O")])), "f",
                       "object or structured"),
    "npz header garbage": (_npz_case(f=b"\x93NUMPY\x01\x00\x10\x00{'descr': os.sy}\n"), "f",
                           "unreadable member"),
    "npz version 3": (_npz_case(f=b"\x93NUMPY\x03\x00\x10\x00\x00\x00{}" + b" " * 8), "f",
                      r"format version \(3, 0\)"),
    "npz header an unclosed bracket": (_npz_case(f=b"\x93NUMPY\x01\x00\x08\x00{'a': (\n"),
                                       "f", "unreadable member: TokenError"),
    "npz not npy": (_npz_case(f=b"not an npy file at all"), "f", "unreadable member"),
    "npz needed member declared 4.29 GB": (_npz_case(declared={"weights": 2**32 - 16}),
                                           "weights", "4294967280 bytes uncompressed, more "
                                                      "than the limit"),
    "npz corrupt deflate": (_corrupt_npz, "v_template", "unreadable member"),
    "npz bad CRC": (_crc_npz, "v_template", "unreadable member: BadZipFile"),
    "npz truncated zip": (lambda path: (_npz_case()(path), path.write_bytes(
        path.read_bytes()[:3000])), "", "not a readable .npz"),
    "npz missing key": (lambda path: write_npz(path, {k: v for k, v in _arrays().items()
                                                      if k != "weights"}), "weights",
                        "missing key 'weights'"),
}


@pytest.fixture(scope="module")
def hostile_results(tmp_path_factory):
    """Builds every HOSTILE file and loads them all in one child process: name -> (path,
    result line)."""
    folder = tmp_path_factory.mktemp("hostile")
    paths = {}
    for i, (name, (build, _, _)) in enumerate(sorted(HOSTILE.items())):
        paths[name] = folder / (f"case{i:03d}.npz" if name.startswith("npz") else
                                f"case{i:03d}.pkl")
        build(paths[name])
    code = textwrap.dedent("""
        import json, sys, skinkit
        for name, path in json.loads(sys.argv[1]):
            try:
                skinkit.load_body_model(path)
                line = "ok"
            except skinkit.BodyModelError as e:
                line = "BodyModelError: " + str(e)
            except BaseException as e:
                line = "OTHER " + type(e).__name__ + ": " + str(e)
            print(json.dumps([name, line]), flush=True)
    """)
    import json
    proc = subprocess.run([sys.executable, "-c", code,
                           json.dumps([[n, str(p)] for n, p in paths.items()])],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": SKINKIT_PATH})
    got = dict(json.loads(line) for line in proc.stdout.splitlines())
    died = f"the child process ended with status {proc.returncode}: {proc.stderr[-2000:]}"
    return {n: (paths[n], got.get(n, died)) for n in paths}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_body_file(hostile_results, name):
    path, line = hostile_results[name]
    _, key, pattern = HOSTILE[name]
    assert line.startswith(f"BodyModelError: {path}"), line
    assert key in line and re.search(pattern, line), line
