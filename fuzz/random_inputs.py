"""``--random N [SEED]`` for both harnesses: random inputs without libFuzzer."""
import random


def random_inputs(argv, test_one_input):
    """``--random N [SEED]``: N random inputs of 0..2048 bytes without libFuzzer -- for runs
    under a preloaded sanitizer runtime, where atheris' coverage feedback does not work (see
    .ci/sanitize); a failing input is saved as crash-random-<seed>-<i> and re-raised."""
    n = int(argv[argv.index("--random") + 1])
    rest = argv[argv.index("--random") + 2:]
    seed = int(rest[0]) if rest and rest[0].isdigit() else 0
    rng = random.Random(seed)
    for i in range(n):
        data = rng.randbytes(rng.choice([rng.randrange(64), rng.randrange(2049)]))
        try:
            test_one_input(data)
        except BaseException:
            with open(f"crash-random-{seed}-{i}", "wb") as f:
                f.write(data)
            raise
        if (i + 1) % 100000 == 0:
            print(f"#{i + 1} random inputs", flush=True)
    print(f"Done {n} random inputs (seed {seed})", flush=True)
