#!/usr/bin/env python3
"""Writes the inputs of an execution test and the expected results,
computed independently with numpy.

usage: reference.py KIND OUTDIR SIZES...

KIND    SIZES      files written in OUTDIR
gemm    M N K      a.npy (f16 MxK), b.npy (f16 KxN), ref.npy (f32 MxN)
gemm_fp8 M N K     a.npy (MxK), b.npy (NxK): f32 multiples of 1/4 in
                   [-4, 4), which f8E4M3FN holds exactly; ref.npy (f32
                   MxN, 0.125 * a b^T: examples/gemm_fp8.mlir with scales
                   0.5 and 0.25)
copy    M N        x.npy (f16), ref.npy
add     M N        a.npy, b.npy (f32), ref.npy
softmax M N        x.npy (f32), ref.npy (row softmax)
rowsum  M N        x.npy (f32), ref.npy (f32 M, row sums)
attention BH S D C q.npy, k.npy, v.npy (f16 BHxSxD), ref.npy (f16,
                   softmax(q k^T / sqrt(D)) v; causal when C is 1)

or:     reference.py eval OUTDIR EXPR NAME=DIST:TYPE:SHAPE...
        makes each input (DIST randn, int, ones, arange, or rowsign /
        colsign: randn shifted by +10 on even and -10 on odd rows /
        columns, so that some rows (columns) are all negative and others
        all positive; TYPE a numpy dtype; SHAPE like 16x8), saves it as
        NAME.npy, evaluates EXPR with numpy as np and the inputs by name,
        and saves ref.npy.
"""

import os
import sys

import numpy as np


def evaluate(out, expr, specs):
    rng = np.random.default_rng(len(expr))
    names = {"np": np}
    for spec in specs:
        name, dist, dtype, shape = spec.replace("=", ":").split(":")
        shape = tuple(int(s) for s in shape.split("x"))
        if dist == "randn":
            value = rng.standard_normal(shape)
        elif dist == "int":
            value = rng.integers(-8, 8, shape)
        elif dist == "ones":
            value = np.ones(shape)
        elif dist in ("rowsign", "colsign"):
            axis = 0 if dist == "rowsign" else 1
            index = np.indices(shape)[axis] if len(shape) > axis else 0
            value = rng.standard_normal(shape) + np.where(index % 2, -10.0, 10.0)
        elif dist == "arange":
            value = np.arange(np.prod(shape)).reshape(shape)
        else:
            sys.exit(f"reference.py: unknown distribution {dist}")
        names[name] = value.astype(dtype)
        np.save(os.path.join(out, name + ".npy"), names[name])
    np.save(os.path.join(out, "ref.npy"), np.asarray(eval(expr, names)))


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "eval":
        return evaluate(out, sys.argv[3], sys.argv[4:])
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
    elif kind == "gemm_fp8":
        m, n, k = sizes
        a = (rng.integers(-16, 16, (m, k)) / 4).astype(np.float32)
        b = (rng.integers(-16, 16, (n, k)) / 4).astype(np.float32)
        save("a.npy", a)
        save("b.npy", b)
        save("ref.npy", (0.125 * (a.astype(np.float64) @ b.T)).astype(np.float32))
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
    elif kind == "attention":
        bh, s, d, causal = sizes
        q, k, v = (rng.standard_normal((bh, s, d)).astype(np.float16)
                   for _ in range(3))
        scores = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)
        scores /= np.sqrt(d)
        if causal:
            scores[:, ~np.tril(np.ones((s, s), bool))] = -np.inf
        p = np.exp(scores - scores.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        for name, array in (("q", q), ("k", k), ("v", v)):
            save(name + ".npy", array)
        save("ref.npy", (p @ v.astype(np.float64)).astype(np.float16))
    else:
        sys.exit(f"reference.py: unknown kind {kind}")


if __name__ == "__main__":
    main()
