"""The entry point of both harnesses, and ``--random N [SEED]``: random inputs without libFuzzer."""
import random
import warnings


def fuzz_main(argv, test_one_input):
    """``--random N [SEED]`` runs random inputs, anything else libFuzzer (atheris); warnings of
    the inputs (NaN, overflow, deprecations) are ignored."""
    warnings.simplefilter("ignore")
    if "--random" in argv:
        return random_inputs(argv, test_one_input)
    import atheris
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


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
