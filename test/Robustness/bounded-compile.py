#!/usr/bin/env python3
"""Compiles every example with its thread count replaced by each of a list
of counts, through the given tile-opt pipeline, and fails if one crashes or
takes longer than a bound (compile-time blowups count as findings).
Usage: bounded-compile.py TOOL SECONDS COUNTS FILE... -- TOOL-ARGS
(COUNTS comma-separated)."""

import re
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:]
    args = args[:args.index("--")]
    tool, bound, counts, files = args[0], float(args[1]), args[2], args[3:]
    compiled = refused = bad = 0
    for path in files:
        source = open(path).read()
        for count in counts.split(","):
            text = re.sub(r"threads\(\d+\)", f"threads({count})", source)
            start = time.monotonic()
            try:
                p = subprocess.run([tool, "-"] + extra, input=text.encode(),
                                   capture_output=True, timeout=bound)
            except subprocess.TimeoutExpired:
                bad += 1
                print(f"{path} threads({count}): over {bound} s")
                continue
            seconds = time.monotonic() - start
            err = p.stderr.decode(errors="replace")
            if p.returncode == 0:
                compiled += 1
            elif p.returncode == 1 and "error:" in err and "Stack dump" not in err:
                refused += 1
            else:
                bad += 1
                print(f"{path} threads({count}): exit {p.returncode}\n{err[:2000]}")
            print(f"{path} threads({count}): exit {p.returncode}, "
                  f"{seconds:.2f} s", file=sys.stderr)
    print(f"{compiled} compiled, {refused} refused, {bad} bad")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
