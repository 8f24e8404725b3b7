#!/usr/bin/env python3
"""The lines test/Execution/Inputs/print.mlir prints, computed with numpy
from its inputs: usage print_lines.py X.npy N.npy (sorted, one per line)."""

import sys

import numpy as np


def head(msg, block, thread):
    return f"msg='{msg}' BlockIdx=({block}, 0, 0), ThreadIdx=({thread}, 0, 0)"


def main():
    x = np.load(sys.argv[1]).astype(np.float32)
    n = np.load(sys.argv[2])
    lines = []
    for bx in range(2):
        for t in range(3):
            lines.append(head("hello", bx, t))
            lines.append(head("bx", bx, t) + f": dtype=index value={bx}")
            lines.append(head("h", bx, t) + ": dtype=half_t value=%f" % -1.5)
            lines.append(head("first", bx, t) +
                         f": dtype=bool value={'true' if bx == 0 else 'false'}")
            local = np.array([7, bx], np.int32)
            for i, v in enumerate(local):
                lines.append(head("local", bx, t) +
                             f": buffer=l, index={i}, dtype=int value={v}")
        # X[2 bx : 2 bx + 2, 2 : 6], zero outside X.
        tile = np.zeros((2, 4), np.float32)
        part = x[2 * bx:2 * bx + 2, 2:6]
        tile[:part.shape[0], :part.shape[1]] = part
        for i, v in enumerate(tile.reshape(-1)):
            lines.append(head("", bx, 1) +
                         ": buffer=X_shared, index=%d, dtype=float value=%f" % (i, v))
        for v in (tile * 2).reshape(-1):
            lines.append(head("w", bx, 0) + ": dtype=float value=%f" % v)
        for i, v in enumerate((tile * 2).reshape(-1)):
            lines.append(head("twice", bx, 0) +
                         ": buffer=frag, index=%d, dtype=float value=%f" % (i, v))
        for i, v in enumerate(n.reshape(-1)):
            lines.append(head("n", bx, 2) +
                         f": buffer=N, index={i}, dtype=unsigned char value={int(v) & 0xff}")
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()
