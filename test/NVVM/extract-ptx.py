#!/usr/bin/env python3
"""Prints the PTX embedded in MLIR (gpu.binary objects with an `assembly`
property, as gpu-module-to-binary{format=isa} writes them), decoding MLIR's
string escapes (\\XX hex bytes, \\\\, \\")."""

import re
import sys


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


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    found = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
    if not found:
        sys.exit("extract-ptx.py: no embedded assembly found")
    for ptx in found:
        sys.stdout.write(decode(ptx))


if __name__ == "__main__":
    main()
