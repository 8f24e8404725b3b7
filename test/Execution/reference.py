#!/usr/bin/env python3
"""Writes the inputs of an execution test and the expected results,
computed independently with numpy.

usage: reference.py KIND OUTDIR SIZES...

KIND    SIZES      files written in OUTDIR
gemm    M N K      a.npy (f16 MxK), b.npy (f16 KxN), ref.npy (f32 MxN)
copy    M N        x.npy (f16), ref.npy
add     M N        a.npy, b.npy (f32), ref.npy
softmax M N        x.npy (f32), ref.npy (row softmax)
rowsum  M N        x.npy (f32), ref.npy (f32 M, row sums)
"""

import os
import sys

import numpy as np


def main():
    kind, out = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]]
    rng = np.random.default_rng(sum(sizes) * 7919 + len(kind))
    save = lambda name, array: np.save(os.path.join(out, name), array)
    if kind == "gemm":
        m, n, k = sizes
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        save("a.npy", a)
        save("b.npy", b)
        save("ref.npy", (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
    elif kind == "copy":
        m, n = sizes
        x = rng.standard_normal((m, n)).astype(np.float16)
        save("x.npy", x)
        save("ref.npy", x)
    elif kind == "add":
        m, n = sizes
        a = rng.standard_normal((m, n)).astype(np.float32)
        b = rng.standard_normal((m, n)).astype(np.float32)
        save("a.npy", a)
        save("b.npy", b)
        save("ref.npy", a + b)
    elif kind == "softmax":
        m, n = sizes
        x = (rng.standard_normal((m, n)) * 3).astype(np.float32)
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        save("x.npy", x)
        save("ref.npy", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
    elif kind == "rowsum":
        m, n = sizes
        x = rng.standard_normal((m, n)).astype(np.float32)
        save("x.npy", x)
        save("ref.npy", x.astype(np.float64).sum(axis=1).astype(np.float32))
    else:
        sys.exit(f"reference.py: unknown kind {kind}")


if __name__ == "__main__":
    main()
