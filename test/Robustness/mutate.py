#!/usr/bin/env python3
"""Mutation tests: feeds seeded mutants of valid tile programs to tile-opt and
fails if any makes it crash instead of succeeding or stopping with a
diagnostic.

usage: mutate.py [options] TOOL COUNT SEED FILE... [-- TOOL-ARGS]
       mutate.py --self-test

Mutants are made at the level of the IR, so that most of them still parse
and verify and so reach the passes under test: integer and float constants,
dims and element types (changed in every type that spells them, so the
program stays consistent), op attributes and keywords (threads, stages,
dims, reduce kinds, transposes, clear flags, pads, grids, layouts,
rasterization, schedules), and op order (an op swapped with its neighbour,
deleted or duplicated). A few mutants change raw tokens, for the parsers.

All mutants go to TOOL in one process (--split-input-file): first without
TOOL-ARGS, which counts the mutants that parse and verify (they reach the
passes), then with TOOL-ARGS. With --round-trip the printed output of the
first run, custom and generic form, is parsed again. When a run crashes, the
mutants are run one at a time to name the culprits.

A crash is any of these, whether or not the tool has assertions:
- a signal (SIGSEGV, SIGABRT from assert / llvm_unreachable / a fatal error,
  SIGILL from a trap, SIGBUS, SIGFPE) or an exit status other than 0 and 1;
- a crash report on stderr ("Stack dump:", "PLEASE submit a bug report",
  "LLVM ERROR:", "UNREACHABLE executed", an "Assertion `...' failed" line,
  "terminate called", sanitizer reports), which also catches fatal errors
  that exit with status 1;
- no answer within --timeout seconds.
tile's own code is built with assertions by default (CMakeLists.txt:
TILE_ENABLE_ASSERTIONS=ON compiles it with -UNDEBUG), so its invariants
abort with an "Assertion" line; Debian's LLVM and MLIR are built without
assertions, so a broken upstream invariant shows as a signal instead.
--cmake-cache reports which way the tool under test was built, and
--self-test checks the classification on stand-in tools that crash in
each of these ways.
"""

import argparse
import bisect
import os
import random
import re
import signal
import subprocess
import sys
import tempfile

SPLIT = "// -----"

CRASH_PATTERNS = [
    (re.compile(r"Stack dump:"), "stack dump"),
    (re.compile(r"PLEASE submit a bug report"), "crash report"),
    (re.compile(r"LLVM ERROR:"), "fatal error"),
    (re.compile(r"UNREACHABLE executed"), "unreachable"),
    (re.compile(r"Assertion `.*' failed"), "assertion"),
    (re.compile(r"terminate called"), "uncaught exception"),
    (re.compile(r"(Address|Memory|Undefined|Thread)Sanitizer"), "sanitizer"),
]


def classify(returncode, stderr):
    """Returns why a run counts as a crash, or None."""
    if returncode is None:
        return "timeout"
    if returncode < 0:
        try:
            return "signal " + signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    for pattern, what in CRASH_PATTERNS:
        if pattern.search(stderr):
            return what
    if returncode not in (0, 1):
        return f"exit status {returncode}"
    return None


def run(cmd, text, timeout):
    try:
        p = subprocess.run(cmd, input=text.encode(), capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace"), \
            (e.stderr or b"").decode(errors="replace")
    return (p.returncode, p.stdout.decode(errors="replace"),
            p.stderr.decode(errors="replace"))


# --- sources -----------------------------------------------------------------

def chunks_of(path):
    """The programs in a test file: its split chunks, comments removed."""
    out = []
    for chunk in open(path).read().split(SPLIT):
        lines = [l for l in chunk.splitlines()
                 if not l.lstrip().startswith("//")]
        text = "\n".join(lines).strip()
        if text:
            out.append(text + "\n")
    return out


# --- mutation operators ------------------------------------------------------
# Each takes (rng, text) and returns the mutated text, or None when it does
# not apply to this text.

INTS = [0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127,
        128, 129, 255, 256, 1000, 4096, -1, -16, 2**31 - 1, -2**31, 2**40]
DIMS = ["0", "1", "2", "3", "4", "5", "7", "8", "15", "16", "17", "24", "31",
        "32", "33", "48", "63", "64", "65", "96", "128", "129", "256", "?"]
# (Larger dims only make the GPU lowering, which unrolls each thread's
# slots, print tens of megabytes; they add time, not coverage.)
FLOATS = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "65504.0", "1.0e+30",
          "-3.0e+38"]
ELEMENTS = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64",
            "f8E4M3FN", "f8E5M2", "index"]
KINDS = ["sum", "max", "min", "absmax", "abssum"]
TYPE_HEAD = re.compile(r"(memref<|!tile\.fragment<|vector<)((?:(?:\d+|\?)x)*)"
                       r"([a-zA-Z][a-zA-Z0-9]*)(?=[,>])")


def pick(rng, text, pattern):
    matches = list(re.finditer(pattern, text))
    return rng.choice(matches) if matches else None


def splice(text, m, group, new):
    return text[:m.start(group)] + new + text[m.end(group):]


def other(rng, values, old):
    choices = [v for v in values if str(v) != old]
    return str(rng.choice(choices))


def int_constant(rng, text):
    m = pick(rng, text, r"(%[\w]+) = arith\.constant (-?\d+) : (?:index|i\d+)")
    if not m:
        return None
    values = INTS
    # A negative memref.dim index is a known crash (known-crash-negative-dim.mlir).
    if re.search(r"memref\.dim %\w+, " + re.escape(m.group(1)) + r"\b", text):
        values = [v for v in INTS if v >= 0]
    return splice(text, m, 2, other(rng, values, m.group(2)))


def float_constant(rng, text):
    m = pick(rng, text,
             r"arith\.constant (-?[\d.]+(?:e[-+]?\d+)?|0x[0-9A-F]+) : (?:f\d+|bf16)")
    return m and splice(text, m, 1, other(rng, FLOATS, m.group(1)))


def shape(rng, text):
    """Changes one dim of one shape, in every type that spells that shape
    with that element type; or one dim size in every shape that has it
    (which keeps, e.g., a gemm's K consistent)."""
    m = pick(rng, text, TYPE_HEAD)
    if not m or not m.group(2):
        return None
    if rng.random() < 0.5:
        old = rng.choice(m.group(2)[:-1].split("x"))
        new = other(rng, DIMS, old)

        def subst(t):
            dims = ["" if d == "" else (new if d == old else d)
                    for d in t.group(2).split("x")]
            return t.group(1) + "x".join(dims) + t.group(3)
        return TYPE_HEAD.sub(subst, text)
    dims = m.group(2)[:-1].split("x")
    i = rng.randrange(len(dims))
    dims[i] = other(rng, DIMS, dims[i])
    old = m.group(0)
    new = m.group(1) + "x".join(dims) + "x" + m.group(3)
    return re.sub(re.escape(old) + r"(?=[,>])", new, text)


def element(rng, text):
    """Changes the element type of one shape, everywhere it is spelled; to
    another float type or integer type mostly, as copies convert within
    those."""
    m = pick(rng, text, TYPE_HEAD)
    if not m:
        return None
    old = m.group(0)
    elem = m.group(3)
    is_float = elem.startswith(("f", "bf"))
    same = [e for e in ELEMENTS if e.startswith(("f", "bf")) == is_float
            and e not in ("index", elem)]
    pool = same if same and rng.random() < 0.8 else ELEMENTS
    new = m.group(1) + m.group(2) + other(rng, pool, elem)
    return re.sub(re.escape(old) + r"(?=[,>])", new, text)


def numbered(pattern, values):
    def op(rng, text):
        m = pick(rng, text, pattern)
        return m and splice(text, m, 1, other(rng, values, m.group(1)))
    return op


def reduce_kind(rng, text):
    m = pick(rng, text, r"tile\.reduce\s+(sum|max|min|absmax|abssum)\b")
    return m and splice(text, m, 1, other(rng, KINDS, m.group(1)))


def toggle_flag(rng, text):
    """Removes a unit flag, or adds one where it may go."""
    if rng.random() < 0.5:
        m = pick(rng, text, r" (transpose_a|transpose_b|clear_accum|reverse)\b")
        return m and text[:m.start()] + text[m.end():]
    m = pick(rng, text, r"(tile\.gemm %[\w]+, %[\w]+, %[\w]+)|"
                        r"(tile\.cumsum \S+ -> \S+ dim \d+)")
    if not m:
        return None
    flag = rng.choice(["transpose_a", "transpose_b", "clear_accum"]) \
        if m.group(1) else "reverse"
    return text[:m.end()] + " " + flag + text[m.end():]


def clear_attr(rng, text):
    m = pick(rng, text, r"clear = (true|false)")
    if m:
        return splice(text, m, 1, "true" if m.group(1) == "false" else "false")
    m = pick(rng, text, r"tile\.reduce \w+ \S+ -> \S+ dim \d+")
    return m and text[:m.end()] + " {clear = false}" + text[m.end():]


def pad(rng, text):
    m = pick(rng, text, r"pad = ([^:}]+) : [fb]")
    if m:
        return splice(text, m, 1, other(rng, FLOATS, m.group(1)))
    # A pad of the source's element type on a copy from a global tensor.
    m = pick(rng, text, r"(tile\.copy %\w+\[[^\]]*\] -> %\w+) : "
                        r"memref<(?:(?:\d+|\?)x)*(f\d+|bf16|i\d+)")
    if not m:
        return None
    value = "-1.0" if m.group(2)[0] in "fb" else "-1"
    return text[:m.end(1)] + f" {{pad = {value} : {m.group(2)}}}" + text[m.end(1):]


def grid(rng, text):
    m = pick(rng, text, r"grid\([^)]*\) in \(([^)]*)\)")
    if not m:
        return None
    parts = [p.strip() for p in m.group(1).split(",")]
    i = rng.randrange(len(parts))
    parts[i] = other(rng, ["0", "1", "2", "7", "65536", "100000"], parts[i])
    return splice(text, m, 1, ", ".join(parts))


def layout_number(rng, text):
    """Changes a size or stride inside a layout attribute."""
    m = pick(rng, text, r"(\d+):([ts])(\d+)")
    if m:
        g = rng.choice([1, 2, 3])
        if g == 2:
            return splice(text, m, 2, "t" if m.group(2) == "s" else "s")
        return splice(text, m, g, other(rng, INTS[:20], m.group(g)))
    m = pick(rng, text, r"#tile\.(?:swizzle|padded|raster)<(\d+)")
    return m and splice(text, m, 1, other(rng, [0, 1, 2, 3, 8, 16, 32, 64, 128, 256], m.group(1)))


def raster(rng, text):
    m = pick(rng, text, r" raster\(#tile\.raster<[^>]*>\)")
    if m:
        return text[:m.start()] + text[m.end():]
    m = pick(rng, text, r"grid\(%\w+, %\w+\) in \([^)]*\) threads\(\d+\)")
    return m and text[:m.end()] + rng.choice(
        [" raster(#tile.raster<2>)", " raster(#tile.raster<3, column>)"]) + text[m.end():]


def schedule(rng, text):
    m = pick(rng, text, r"(?:stage|order) \[([^\]]*)\]")
    if m:
        parts = [p.strip() for p in m.group(1).split(",")]
        i = rng.randrange(len(parts))
        parts[i] = other(rng, ["0", "1", "2", "3", "-1", "9"], parts[i])
        return splice(text, m, 1, ", ".join(parts))
    return None


def offset(rng, text):
    """Changes a constant offset of a copy or an element access."""
    m = pick(rng, text, r"(?:tile\.copy|tile\.atomic_add|tile\.load|tile\.store)"
                        r"[^\n]*?\[((?:[^\]]*?\b)?\d+(?:, [^\]]*)?)\]")
    if not m:
        return None
    inner = m.group(1)
    nums = list(re.finditer(r"(?<![%\w])-?\d+\b", inner))
    if not nums:
        return None
    n = rng.choice(nums)
    new = inner[:n.start()] + other(rng, ["0", "1", "-1", "7", "100000"], n.group()) + inner[n.end():]
    return splice(text, m, 1, new)


OP_LINE = re.compile(r"^\s+(?:%[\w#:, %]+ = )?[a-z_]+\.[a-z_.]+[^{}]*$")


def op_lines(lines):
    return [i for i, l in enumerate(lines) if OP_LINE.match(l)
            and "return" not in l and "terminator" not in l]


def indent(line):
    return len(line) - len(line.lstrip())


def swap_ops(rng, text):
    lines = text.split("\n")
    cands = [i for i in op_lines(lines) if i + 1 < len(lines)
             and OP_LINE.match(lines[i + 1]) and indent(lines[i]) == indent(lines[i + 1])]
    if not cands:
        return None
    i = rng.choice(cands)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "\n".join(lines)


def delete_op(rng, text):
    """Deletes an op without results (one with results would leave uses of
    undefined values, which the parser rejects)."""
    lines = text.split("\n")
    cands = [i for i in op_lines(lines) if " = " not in lines[i]]
    if not cands:
        return None
    del lines[rng.choice(cands)]
    return "\n".join(lines)


def duplicate_op(rng, text):
    lines = text.split("\n")
    cands = [i for i in op_lines(lines) if " = " not in lines[i]]
    if not cands:
        return None
    i = rng.choice(cands)
    lines.insert(i + 1, lines[i])
    return "\n".join(lines)


TOKENS = ["0", "-1", "?", "[", "]", "(", ")", "<", ">", ",", ":", "%x", "t0",
          "s0", "99999999999", "index", "f16", "i1", "{", "}", "->"]


def tokens(rng, text):
    toks = re.findall(r"\s+|[^\s]+", text)
    for _ in range(rng.randint(1, 2)):
        i = rng.randrange(len(toks))
        r = rng.random()
        if r < 0.4:
            toks[i] = ""
        elif r < 0.7:
            toks.insert(i, toks[rng.randrange(len(toks))])
        else:
            toks[i] = rng.choice(TOKENS)
    return "".join(toks)


OPERATORS = [
    (int_constant, 3), (float_constant, 1), (shape, 4), (element, 2),
    (numbered(r"threads\((\d+)\)", [0, 1, 2, 31, 32, 33, 64, 96, 100, 128,
                                     256, 512, 1024, 2048]), 2),
    (numbered(r"stages\((\d+)\)", [0, 1, 2, 3, 4, 8]), 1),
    (numbered(r"\bdim (-?\d+)", [-1, 0, 1, 2]), 1),
    (reduce_kind, 1), (toggle_flag, 2), (clear_attr, 1), (pad, 1),
    (grid, 1), (layout_number, 2), (raster, 1), (schedule, 1), (offset, 2),
    (swap_ops, 3), (delete_op, 2), (duplicate_op, 1), (tokens, 1),
]


def mutate(rng, text, max_ops):
    names = []
    for _ in range(rng.randint(1, max_ops)):
        for _attempt in range(20):
            op = rng.choices([o for o, _ in OPERATORS],
                             [w for _, w in OPERATORS])[0]
            new = op(rng, text)
            if new is not None and new != text:
                text = new
                names.append(op.__name__)
                break
    return text.replace(SPLIT, "//"), names


# --- running -----------------------------------------------------------------

def outputs(stdout, count):
    """Per-mutant outputs of a --split-input-file run."""
    parts = re.split(r"^// -----\s*$", stdout, flags=re.M)
    return parts + [""] * (count - len(parts))


ERROR_LINE = re.compile(r"^<stdin>:(\d+):\d+: error:", re.M)


def rejected(stderr, texts):
    """The mutants a --split-input-file run reported errors in, from the
    line numbers of its diagnostics (which count from the top of the
    whole input)."""
    starts, line = [], 1
    for text in texts:
        starts.append(line)
        line += text.count("\n") + 2  # the text, then "\n// -----\n"
    return {bisect.bisect_right(starts, int(m.group(1))) - 1
            for m in ERROR_LINE.finditer(stderr)}


def batch(tool, args, texts, timeout):
    return run([tool, "-", "--split-input-file"] + args,
               f"\n{SPLIT}\n".join(texts), timeout)


def culprits(tool, args, texts, timeout, first=0):
    """Finds the crashing mutants by bisection (a crash ends a batch run);
    yields (index, why, stderr) for each."""
    if len(texts) == 1:
        code, _, err = run([tool, "-"] + args, texts[0], timeout)
        why = classify(code, err)
        if why:
            yield first, why, err
        return
    half = len(texts) // 2
    for part, start in ((texts[:half], 0), (texts[half:], half)):
        code, _, err = batch(tool, args, part, timeout + len(part) / 2)
        if classify(code, err):
            yield from culprits(tool, args, part, timeout, first + start)


def check(tool, args, texts, timeout, what, keep_output=False):
    """Runs the mutants in one batch and counts the crashing ones (printing
    each). Returns (which succeeded, their outputs if keep_output, crash
    count). Without keep_output, output goes to /dev/null (the GPU lowering
    of a few hundred mutants prints about 100 MB) and success is read from
    the diagnostics."""
    extra = [] if keep_output else ["-o", "/dev/null"]
    code, out, err = batch(tool, args + extra, texts, timeout + len(texts) / 2)
    if keep_output:
        printed = outputs(out, len(texts))
        ok = [bool(t.strip()) for t in printed]
    else:
        printed, bad = None, rejected(err, texts)
        ok = [i not in bad for i in range(len(texts))]
    why = classify(code, err)
    if not why:
        return ok, printed, 0
    crashes = 0
    for i, why, err in culprits(tool, args, texts, timeout):
        crashes += 1
        print(f"crash ({why}) {what}, mutant {i}:\n{texts[i]}\n{err[:3000]}")
    if not crashes:
        crashes = 1
        print(f"crash ({why}) {what} in the batch run, no single mutant "
              f"reproduces it:\n{err[:3000]}")
    return ok, printed, crashes


def assertions(cmake_cache):
    if not cmake_cache or not os.path.exists(cmake_cache):
        return "unknown"
    m = re.search(r"^TILE_ENABLE_ASSERTIONS:BOOL=(\w+)", open(cmake_cache).read(), re.M)
    return ("on" if m.group(1).upper() in ("ON", "1", "TRUE", "YES") else "off") if m else "unknown"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--max-ops", type=int, default=2,
                    help="at most this many mutations per mutant")
    ap.add_argument("--min-verified", type=float, default=0.0,
                    help="fail unless this fraction of mutants verifies")
    ap.add_argument("--round-trip", action="store_true",
                    help="reparse the printed output (custom and generic)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds per mutant")
    ap.add_argument("--cmake-cache", help="the tool's CMakeCache.txt, to "
                    "report whether tile's assertions are on")
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    opts, rest = ap.parse_known_args(argv)
    if opts.self_test:
        return self_test()
    if len(rest) < 4:
        ap.error("expected TOOL COUNT SEED FILE...")
    tool, count, seed, files = rest[0], int(rest[1]), int(rest[2]), rest[3:]

    rng = random.Random(seed)
    sources = [c for f in files for c in chunks_of(f)]
    mutants = [mutate(rng, rng.choice(sources), opts.max_ops)[0]
               for _ in range(count)]

    ok, printed, crashes = check(tool, [], mutants, opts.timeout, "parsing",
                                 keep_output=opts.round_trip)
    verified = [i for i in range(count) if ok[i]]
    lost = 0
    if opts.round_trip and verified:
        custom = [printed[i] for i in verified]
        _, generic, c = check(tool, ["--mlir-print-op-generic"], custom,
                              opts.timeout, "printing the generic form",
                              keep_output=True)
        crashes += c
        for form, texts in (("custom", custom), ("generic", generic)):
            again, _, c = check(tool, [], texts, opts.timeout,
                                f"reparsing the {form} form")
            crashes += c
            bad = [i for i, t in enumerate(texts) if t.strip() and not again[i]]
            for i in bad[:3]:
                print(f"round trip: the {form} form does not parse:\n{texts[i]}")
            lost += len(bad)
    passed = 0
    if extra:
        result, _, c = check(tool, extra, mutants, opts.timeout, "in the passes")
        crashes += c
        passed = sum(1 for i in verified if result[i])

    print(f"tile assertions: {assertions(opts.cmake_cache)}")
    print(f"{len(verified)} of {count} mutants parse and verify"
          + (f", {passed} of them pass {' '.join(extra)}" if extra else ""))
    if opts.round_trip:
        print(f"{lost} round-trip failures")
    print(f"{count} mutants, {crashes} crashes")
    if len(verified) < opts.min_verified * count:
        print(f"too few mutants verify: {len(verified)} < "
              f"{opts.min_verified:.0%} of {count}")
        return 1
    return 1 if crashes or lost else 0


# --- self test ---------------------------------------------------------------

STAND_INS = {
    # name: (python body, expected classification or None)
    "ok": ("print('module {\\n}')", None),
    "diagnostic": ("sys.stderr.write('<stdin>:1:1: error: bad\\n'); sys.exit(1)", None),
    "assertion": ("sys.stderr.write(\"tile-opt: X.cpp:1: f: Assertion `x' failed.\\n\"); "
                  "sys.stderr.flush(); os.abort()", "signal SIGABRT"),
    "segfault": ("os.kill(os.getpid(), signal.SIGSEGV)", "signal SIGSEGV"),
    "trap": ("os.kill(os.getpid(), signal.SIGILL)", "signal SIGILL"),
    "fatal-exit-1": ("sys.stderr.write('LLVM ERROR: out of memory\\n'); sys.exit(1)",
                     "fatal error"),
    "stack-dump-exit-1": ("sys.stderr.write('Stack dump:\\n0. Program arguments: x\\n'); sys.exit(1)",
                          "stack dump"),
    "assertion-text-exit-1": ("sys.stderr.write(\"a.cpp:2: g: Assertion `y' failed.\\n\"); sys.exit(1)",
                              "assertion"),
    "unreachable": ("sys.stderr.write('UNREACHABLE executed at x.cpp:3!\\n'); sys.exit(1)",
                    "unreachable"),
    "exit-2": ("sys.exit(2)", "exit status 2"),
    "hang": ("import time; time.sleep(60)", "timeout"),
}


def self_test():
    """Checks the crash classification on stand-in tools, and that a batch
    with one crashing mutant names that mutant."""
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (body, expected) in STAND_INS.items():
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(f"#!{sys.executable}\nimport os, signal, sys\n"
                        f"sys.stdin.read()\n{body}\n")
            os.chmod(path, 0o755)
            # Generous: a loaded machine starts Python slowly, and a slow
            # start must not read as a hang.
            code, _, err = run([path], "", timeout=10)
            got = classify(code, err)
            status = "ok" if got == expected else "WRONG"
            failures += got != expected
            print(f"self-test {name}: {got or 'no crash'} ({status})")
        # A tool that crashes on mutants containing "boom": the batch crashes
        # and only mutant 2 is named.
        path = os.path.join(tmp, "picky")
        with open(path, "w") as f:
            f.write(f"#!{sys.executable}\nimport os, sys\n"
                    "if 'boom' in sys.stdin.read(): os.abort()\n")
        os.chmod(path, 0o755)
        named = [i for i, _, _ in culprits(path, [], ["a", "b", "boom", "c"], 20)]
        failures += named != [2]
        print(f"self-test culprits: {named} ({'ok' if named == [2] else 'WRONG'})")
    print(f"self-test: {failures} wrong")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
