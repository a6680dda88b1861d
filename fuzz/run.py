"""Run skinkit's fuzzers one after the other (atheris / libFuzzer), niced, from one command.

    python fuzz/run.py --minutes 5                  # each harness for 5 minutes
    python fuzz/run.py --runs 1000000 gltf          # one harness for a number of inputs
    python fuzz/run.py --runs 3000 --corpus /tmp/c  # a smoke run in a scratch corpus

Harnesses: ``gltf`` (fuzz/fuzz_gltf.py: load_gltf on hostile files), ``bvh``
(fuzz/fuzz_bvh.py: load_bvh on hostile files), ``kernels`` (fuzz/fuzz_kernels.py: every binding
and Clip.sample on hostile arrays) and ``body`` (fuzz/fuzz_body.py: load_body_model and
load_amass on hostile .pkl and .npz files, seeded with tests/data/body's genuine chumpy pickles
and .npz and a small AMASS file).  The corpus of each (default fuzz/corpus/NAME, not committed)
is seeded with a valid model made by fuzz/seed_model.py and the small glTF fixtures of
../shared/fixtures/gltf, where present (fuzz/seed.bvh for BVH).  A crash, an exception that
is not allowed, a leak-sized RSS or a hang stops that harness with its input saved as
``crash-*`` / ``oom-*`` / ``timeout-*`` in the corpus folder; the exit status is then 1.
Prints one line per harness: inputs run, seconds, and the result.
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# the project's shared data beside the repository ($SKINKIT_SHARED overrides), where present
SHARED = Path(os.environ.get("SKINKIT_SHARED", HERE.parent.parent / "shared"))
FIXTURES = SHARED / "fixtures" / "gltf"
BODY_FIXTURES = HERE.parent / "tests" / "data" / "body"
HARNESSES = ("gltf", "bvh", "kernels", "body")


def seed(name: str, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if name == "gltf":
        sys.path.insert(0, str(HERE))
        import seed_model
        doc, data = seed_model.model()
        (folder / "seed-model.glb").write_bytes(b"\x00" + seed_model.glb(doc, data))
        (folder / "seed-model.gltf").write_bytes(b"\x60" + seed_model.gltf_text(doc, data))
        for i in range(8):
            (folder / f"seed-structured-{i}").write_bytes(bytes([0xA0 + i]) + os.urandom(64))
        if FIXTURES.is_dir():
            for p in sorted(FIXTURES.iterdir()):
                if p.suffix in (".glb", ".gltf") and p.stat().st_size <= 20000:
                    mode = b"\x00" if p.suffix == ".glb" else b"\x60"
                    (folder / f"fixture-{p.name}").write_bytes(mode + p.read_bytes())
    elif name == "bvh":
        (folder / "seed-file.bvh").write_bytes(b"\x00" + (HERE / "seed.bvh").read_bytes())
        for i in range(8):
            (folder / f"seed-structured-{i}").write_bytes(bytes([0x80 + i]) + os.urandom(64))
    elif name == "body":
        for p in sorted(BODY_FIXTURES.glob("tiny_mano*")):
            mode = b"\x60" if p.suffix == ".npz" else b"\x00"
            (folder / f"fixture-{p.name}").write_bytes(mode + p.read_bytes())
        import io
        import numpy as np
        amass = io.BytesIO()
        np.savez(amass, poses=np.zeros((3, 156)), trans=np.zeros((3, 3)), betas=np.zeros(16),
                 gender=np.array("male"), mocap_framerate=np.array(60.0))
        (folder / "seed-amass.npz").write_bytes(b"\x60" + amass.getvalue())
        for i in range(16):
            (folder / f"seed-structured-{i}").write_bytes(bytes([0xA0 + i]) + os.urandom(64))
    else:
        for i in range(64):   # long enough for every argument to get its own bytes
            (folder / f"seed-{i}").write_bytes(bytes([i % 32]) + os.urandom(96 + 16 * i))


def run(name: str, args, extra) -> int:
    corpus = Path(args.corpus) / name
    seeds = Path(args.corpus) / f"{name}-seeds"
    corpus.mkdir(parents=True, exist_ok=True)
    seed(name, seeds)
    cmd = [sys.executable, str(HERE / f"fuzz_{name}.py"), str(corpus), str(seeds),
           f"-artifact_prefix={corpus}{os.sep}", "-rss_limit_mb=3072", "-timeout=30",
           "-print_final_stats=1"]
    if name == "gltf":
        cmd += ["-max_len=24000", f"-dict={HERE / 'gltf.dict'}"]
    elif name == "bvh":
        cmd += ["-max_len=8000"]
    elif name == "body":
        cmd += ["-max_len=70000"]
    else:
        # the C kernels are not coverage-instrumented, so libFuzzer would not grow inputs for
        # them: give it long inputs from the start
        cmd += ["-max_len=2048", "-len_control=0"]
    if args.runs:
        cmd.append(f"-runs={args.runs}")
    if args.minutes:
        cmd.append(f"-max_total_time={int(args.minutes * 60)}")
    cmd += extra
    log = Path(args.corpus) / f"{name}.log"
    start = time.time()
    with open(log, "w") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=str(corpus),
                              preexec_fn=(lambda: os.nice(args.nice)) if args.nice else None)
    text = log.read_text(errors="replace")
    done = re.findall(r"Done (\d+) runs in (\d+) second", text)
    counts = re.findall(r"^#(\d+)\s", text, re.M)
    inputs = int(done[-1][0]) if done else (int(counts[-1]) if counts else 0)
    status = "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode}, see {log})"
    print(f"{name}: {inputs} inputs in {time.time() - start:.0f} s: {status}", flush=True)
    if proc.returncode:
        tail = text.strip().splitlines()[-40:]
        print("\n".join(tail), file=sys.stderr)
    return proc.returncode


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("harness", nargs="*", help=f"which of {', '.join(HARNESSES)} (default: all)")
    ap.add_argument("--minutes", type=float, help="time per harness")
    ap.add_argument("--runs", type=int, help="inputs per harness")
    ap.add_argument("--corpus", default=str(HERE / "corpus"), help="corpus root folder")
    ap.add_argument("--nice", type=int, default=10, help="niceness of the fuzzers (0: none)")
    args, extra = ap.parse_known_args(argv)
    if not args.minutes and not args.runs:
        ap.error("give --minutes or --runs")
    unknown = set(args.harness) - set(HARNESSES)
    if unknown:
        ap.error(f"unknown harness {sorted(unknown)}; choose from {HARNESSES}")
    failed = 0
    for name in args.harness or HARNESSES:
        failed |= run(name, args, extra) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
