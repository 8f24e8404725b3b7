#!/usr/bin/env python3
"""Feeds seeded random mutations of .mlir test inputs to a tool and fails if
any input makes it crash (a signal, an assertion, a stack dump) instead of
exiting with 0 or 1. Usage: mutate.py TOOL COUNT SEED FILE... [-- TOOL-ARGS]"""

import random
import re
import subprocess
import sys

TOKENS = ["0", "-1", "?", "[", "]", "(", ")", "<", ">", ",", ":", "%x", "t0",
          "s0", "99999999999", "index", "f16", "i1", "{", "}", "->"]


def mutate(rng, chunk):
    toks = re.findall(r"\s+|[^\s]+", chunk)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(toks))
        r = rng.random()
        if r < 0.4:
            toks[i] = ""
        elif r < 0.7:
            toks.insert(i, toks[rng.randrange(len(toks))])
        else:
            toks[i] = rng.choice(TOKENS)
    return "".join(toks)


def main():
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    tool, count, seed, files = args[0], int(args[1]), int(args[2]), args[3:]
    rng = random.Random(seed)
    chunks = [c for f in files for c in open(f).read().split("// -----") if c.strip()]
    crashes = 0
    for _ in range(count):
        text = mutate(rng, rng.choice(chunks))
        p = subprocess.run([tool, "-"] + extra, input=text.encode(),
                           capture_output=True)
        err = p.stderr.decode(errors="replace")
        if p.returncode not in (0, 1) or "Stack dump" in err or "Assertion" in err:
            crashes += 1
            print(f"crash (exit {p.returncode}) on:\n{text}\n{err[:2000]}")
    print(f"{count} mutants, {crashes} crashes")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
