#!/usr/bin/env python3
"""Runs TileLang's example programs on tile and prints a table.

    scripts/run-tilelang-examples.py DIR [--timeout S] [--out FILE] [-k PATTERN]
                                         [--python PY] [--json FILE]

Every ``example_*.py`` under DIR (recursively, in sorted order) runs through
tile's runner (``python -m tile.compat PROGRAM.py``: ``tilelang`` resolved to
``tile``), in a subprocess of its own started in the program's directory,
under its own timeout. The table gives, per program: passed (exit status 0
and no failed check printed) or failed with the first error (the exception
that stopped it, or the failed check it printed, or the timeout), the
seconds it took and the figures it printed (lines with TFLOP/s, ms,
latency, speedup, GB/s, ...). The environment passes through: put tile on
PYTHONPATH (or install it) and run on the GPU machine for the real run.

The exit status is 0 when every program passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time

# A printed line that is a figure (kept, up to a few per program).
FIGURE = re.compile(r"(tflop|tops|gflop|gb/s|tb/s|\bms\b|\bus\b|latency|speed ?up|"
                    r"\btime\b|throughput|bandwidth)", re.IGNORECASE)
# A printed line that says a check failed although the program exited 0.
FAILED_CHECK = re.compile(r"(verification failed|\bfailed\b|mismatch|not close|❌)",
                          re.IGNORECASE)
# The last line of a traceback: `SomeError: message` (possibly dotted).
EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)|"
                       r"AssertionError|KeyboardInterrupt)\b:?(.*)$")
MAX_FIGURES = 6
MAX_CELL = 160


def find_programs(root, pattern=None):
    out = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(files):
            if name.startswith("example_") and name.endswith(".py"):
                path = os.path.join(directory, name)
                if pattern is None or pattern in os.path.relpath(path, root):
                    out.append(path)
    return sorted(out, key=lambda p: os.path.relpath(p, root))


def first_error(output):
    """The line naming the exception that stopped the program (with the
    line after it when the exception is one of tile's, whose message
    starts on the next line), or None."""
    lines = output.splitlines()
    traceback_at = None
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            traceback_at = i
    start = traceback_at if traceback_at is not None else 0
    for i in range(start, len(lines)):
        m = EXCEPTION.match(lines[i])
        if m and (traceback_at is not None or i > 0):
            text = lines[i].strip()
            # tile's errors put "file:line: error: ..." first; keep the message.
            if text.endswith(":") and i + 1 < len(lines):
                text += " " + lines[i + 1].strip()
            return text
    return None


def failed_check(output):
    for line in output.splitlines():
        if FAILED_CHECK.search(line) and "0 failed" not in line.lower():
            return line.strip()
    return None


def figures(output):
    found = []
    for line in output.splitlines():
        line = line.strip()
        # The autotuner's line per configuration is not a result.
        if not line or line.startswith(("Traceback", "File ", "warnings.warn", "Tuned Latency")):
            continue
        if FIGURE.search(line) and any(c.isdigit() for c in line):
            found.append(line)
    if len(found) > MAX_FIGURES:
        found = found[:MAX_FIGURES - 1] + [f"... ({len(found) - MAX_FIGURES + 1} more)"]
    return found


# Modules TileLang's example folders ship beside their programs (bert_padding),
# written for tile: searched after the program's own folder and PYTHONPATH.
# STAND_INS are references the programs import from packages this host may
# lack (flash-attn): added only where the package is not installed.
HELPERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tilelang-example-helpers")
STAND_INS = os.path.join(HELPERS, "stand-ins")


def child_environment():
    """This environment, with PYTHONPATH's entries made absolute (the
    programs run in their own directories), HELPERS last and STAND_INS for
    the packages that are missing."""
    environment = dict(os.environ)
    entries = [e for e in environment.get("PYTHONPATH", "").split(os.pathsep) if e]
    entries.append(HELPERS)
    if any(importlib.util.find_spec(name) is None for name in os.listdir(STAND_INS)):
        entries.append(STAND_INS)
    environment["PYTHONPATH"] = os.pathsep.join(os.path.abspath(e) for e in entries)
    return environment


def run_one(python, path, timeout, args):
    command = [python, "-m", "tile.compat", os.path.basename(path), *args]
    start = time.monotonic()
    proc = subprocess.Popen(command, cwd=os.path.dirname(os.path.abspath(path)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True, errors="replace",
                            env=child_environment())
    timed_out = False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        # The program and whatever it started (its own process group).
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = proc.communicate()
    seconds = time.monotonic() - start
    if timed_out:
        status, error = "failed", f"timed out after {timeout:g} s"
    elif proc.returncode != 0:
        error = first_error(stderr) or first_error(stdout) or \
            f"exit status {proc.returncode}"
        status = "failed"
    else:
        error = failed_check(stdout)
        status = "failed" if error else "passed"
    return {"program": path, "status": status, "error": error, "seconds": round(seconds, 1),
            "returncode": proc.returncode, "figures": figures(stdout), "stdout": stdout,
            "stderr": stderr}


def cell(text):
    text = (text or "").replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= MAX_CELL else text[:MAX_CELL - 3] + "..."


def table(results, root):
    rows = ["| program | result | s | figures |", "| --- | --- | --- | --- |"]
    for r in results:
        name = os.path.relpath(r["program"], root)
        result = "passed" if r["status"] == "passed" else f"failed: {cell(r['error'])}"
        rows.append(f"| {name} | {result} | {r['seconds']} | "
                    f"{'<br>'.join(cell(f) for f in r['figures'])} |")
    passed = sum(r["status"] == "passed" for r in results)
    rows.append("")
    rows.append(f"{passed} of {len(results)} passed")
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="where the example_*.py programs are")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds each program may run (default 600)")
    parser.add_argument("--out", help="also write the table (markdown) to this file")
    parser.add_argument("--json", help="write every result, with its output, to this file")
    parser.add_argument("-k", dest="pattern", help="only programs whose path contains this")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter to run them with (default: this one)")
    parser.add_argument("--args", default="",
                        help="arguments given to every program (one string)")
    opts = parser.parse_args(argv)
    if not os.path.isdir(opts.directory):
        parser.error(f"no such directory: {opts.directory}")
    programs = find_programs(opts.directory, opts.pattern)
    if not programs:
        parser.error(f"no example_*.py programs under {opts.directory}")
    results = []
    for path in programs:
        name = os.path.relpath(path, opts.directory)
        print(f"running {name} ...", file=sys.stderr, flush=True)
        r = run_one(opts.python, path, opts.timeout, opts.args.split())
        print(f"  {r['status']} ({r['seconds']} s)" +
              (f": {r['error']}" if r["error"] else ""), file=sys.stderr, flush=True)
        results.append(r)
    text = table(results, opts.directory)
    print(text)
    if opts.out:
        with open(opts.out, "w") as f:
            f.write(text + "\n")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if all(r["status"] == "passed" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
