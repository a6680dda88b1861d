"""Fuzz skinkit.load_bvh (atheris / libFuzzer).

    python fuzz/fuzz_bvh.py [libFuzzer flags] [CORPUS_DIR ...]    e.g. -max_total_time=300
    python fuzz/run.py --minutes 5 bvh                            (seeds, corpus, this harness)

The first byte of an input picks how the rest is used:
  0x00-0x7f  the rest is a .bvh file (bytes as they are: UTF-8, Latin-1, any line endings)
  0x80-0xff  structured: edits decoded from the rest (a token replaced by a hostile one, a line
             deleted, repeated or moved, a block of joints duplicated) are applied to the lines
             of a valid file (fuzz/seed.bvh), which reaches the motion block and the model
             building that raw byte mutations rarely get past.
Loading must give a BvhModel, or raise skinkit.BvhError whose message starts with the file
and ``line N:``; any other exception, a NumPy RuntimeWarning while loading, a crash, or a hang is a
bug.  A model that loads is posed at two times, which must work as well.
"""
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path

import atheris
import numpy as np

with atheris.instrument_imports(include=["skinkit"]):
    import skinkit
    from skinkit.io.bvh.read import BvhError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_inputs import fuzz_main  # noqa: E402

SEED = (Path(__file__).resolve().parent / "seed.bvh").read_text()
TOKENS = ["0", "-0", "1", "3", "6", "7", "-1", "1e30", "-1e30", "1e31", "1e308", "1e309",
          "-1e400", "nan", "inf", "-inf", "1e-320", "0.1", "9" * 25, "9" * 5000, "1e9", "1e6",
          "{", "}", "ROOT", "JOINT", "End", "Site", "End Site", "OFFSET", "CHANNELS", "MOTION",
          "HIERARCHY", "Frames:", "Frame Time:", "Frame", "Time:", "Xposition", "Zrotation",
          "xROTATION", "Wrotation", "Hips", "Spine", "Spine_end", "Hips_end2", "\t", "",
          "\u00e9", "\x00", "1 2 3", "+.5e-3", "1.", ".5", "--1", "1e", "0x10"]
TMP = Path(tempfile.mkdtemp(prefix="skinkit-fuzz-bvh-",
                            dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
LINE_RE = re.compile(re.escape(f"{TMP / 'm.bvh'}: ") + r"line \d+: ")


def structured(fdp) -> bytes:
    lines = SEED.split("\n")
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        op = fdp.ConsumeIntInRange(0, 7)
        i = fdp.ConsumeIntInRange(0, len(lines) - 1)
        if op <= 3:                                    # replace one token of a line
            words = lines[i].split(" ")
            k = fdp.ConsumeIntInRange(0, len(words) - 1)
            words[k] = TOKENS[fdp.ConsumeIntInRange(0, len(TOKENS) - 1)]
            lines[i] = " ".join(words)
        elif op == 4:                                  # delete a line
            del lines[i]
        elif op == 5:                                  # repeat a line
            lines[i:i] = [lines[i]] * fdp.ConsumeIntInRange(1, 50)
        elif op == 6:                                  # move a line
            lines.insert(fdp.ConsumeIntInRange(0, len(lines) - 1), lines.pop(i))
        else:                                          # repeat a block of lines (joints)
            n = fdp.ConsumeIntInRange(1, 12)
            lines[i:i] = lines[i:i + n] * fdp.ConsumeIntInRange(1, 200)
        if not lines:
            lines = [""]
    ending = ["\n", "\r\n", "\r"][fdp.ConsumeIntInRange(0, 2)]
    return ending.join(lines).encode("utf-8", "surrogatepass")


def TestOneInput(data: bytes):
    if not data:
        return
    body = data[1:] if data[0] < 0x80 else structured(atheris.FuzzedDataProvider(data[1:]))
    path = TMP / "m.bvh"
    path.write_bytes(body)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)   # none before an error line
            model = skinkit.load_bvh(path, dtype=[np.float64, np.float32][data[0] & 1])
    except BvhError as e:
        if not LINE_RE.match(str(e)):
            raise AssertionError(f"BvhError without the file and a line number: {e!r}") from None
        return
    if model.clips:
        model.world_matrices(0, [0.0, model.clips[0].duration * 0.37])
    else:
        model.world_matrices()


def main(argv=None):
    return fuzz_main(sys.argv if argv is None else argv, TestOneInput)


if __name__ == "__main__":
    main()
