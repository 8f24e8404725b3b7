#!/usr/bin/env python3
"""Prints the PTX embedded in MLIR (gpu.binary objects with an `assembly`
property, as gpu-module-to-binary{format=isa} writes them), decoding MLIR's
string escapes (\\XX hex bytes, \\\\, \\"). With --strings, prints the
PTX's byte-array globals (printf formats) as text instead, one per line:
`NAME "TEXT"` with the bytes up to the first NUL, newlines as \\n."""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def decode(text):
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1]
            if nxt in "\\\"":
                out += nxt.encode()
                i += 2
            elif nxt == "n":
                out += b"\n"
                i += 2
            elif nxt == "t":
                out += b"\t"
                i += 2
            else:
                out.append(int(text[i + 1:i + 3], 16))
                i += 3
        else:
            out += c.encode()
            i += 1
    return out.decode()


def print_strings(modules):
    """The `.global .align 1 .b8 NAME[N] = {...};` arrays of the modules."""
    for ptx in modules:
        for name, body in re.findall(
                r"\.global \.align 1 \.b8 (\w+)\[\d+\] = \{([\d, ]*)\};", ptx):
            data = bytes(int(b) for b in body.split(",") if b.strip())
            text = data.split(b"\0")[0].decode(errors="replace")
            print(f'{name} "{text.replace(chr(10), chr(92) + "n")}"')


def run_ptxas(ptxas, arch, modules):
    """Assembles each module with `ptxas -v`; prints one line per kernel:
    `ptxas <name> registers=R spill_stores=S spill_loads=L`."""
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for i, ptx in enumerate(modules):
            path = os.path.join(tmp, f"module{i}.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            result = subprocess.run(
                [ptxas, f"-arch={arch}", "-v", path, "-o", path + ".cubin"],
                capture_output=True, text=True)
            if result.returncode != 0:
                sys.stderr.write(result.stderr)
                failed = True
                continue
            name, spills = None, None
            for line in result.stderr.splitlines():
                m = re.search(r"Compiling entry function '(\w+)'", line)
                if m:
                    name = m.group(1)
                m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
                if m:
                    spills = m.groups()
                m = re.search(r"Used (\d+) registers", line)
                if m and name:
                    print(f"ptxas {name} registers={m.group(1)} "
                          f"spill_stores={spills[0]} spill_loads={spills[1]}")
    if failed:
        sys.exit("extract-ptx.py: ptxas failed")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input", nargs="?", help="MLIR file (default: stdin)")
    parser.add_argument("--ptxas", help="assemble with this ptxas instead of "
                        "printing the PTX")
    parser.add_argument("--arch", default="sm_80", help="ptxas -arch")
    parser.add_argument("--strings", action="store_true",
                        help="print the PTX's byte-array globals as text")
    args = parser.parse_args()
    text = open(args.input).read() if args.input else sys.stdin.read()
    found = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
    if not found:
        sys.exit("extract-ptx.py: no embedded assembly found")
    modules = [decode(ptx) for ptx in found]
    if args.ptxas:
        run_ptxas(args.ptxas, args.arch, modules)
        return
    if args.strings:
        print_strings(modules)
        return
    for ptx in modules:
        sys.stdout.write(ptx)


if __name__ == "__main__":
    main()
