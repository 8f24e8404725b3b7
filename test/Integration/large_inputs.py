#!/usr/bin/env python3
"""Inputs and references of large-tensors.test: tensors of more than 2^31
elements whose every element depends on its position (with periods that
divide no power of two), so that an element read or written at a 32-bit
wrapped or otherwise wrong index shows. References are computed with numpy
(chunked) or, for the GEMM, with torch on the GPU when torch has one.

usage: large_inputs.py copy OUT M N       x.npy (f16 MxN)
       large_inputs.py rowsum OUT M N     ref.npy (f32 M: row sums of the
                                          f32 values of arange(M*N))
       large_inputs.py gemm OUT M K N     a.npy (f16 MxK), b.npy (f16 KxN),
                                          ref.npy (f32 MxN, a @ b, exact)
"""

import os
import sys

import numpy as np

CHUNK = 1 << 26  # elements per step, to bound the temporaries


def pattern(start, count, period, offset, scale=1):
    """((start + i) * scale % period) - offset for i < count, as float16."""
    i = np.arange(start, start + count, dtype=np.int64)
    return ((i * scale) % period - offset).astype(np.float16)


def fill(path, shape, period, offset, scale=1):
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16,
                                      shape=shape)
    flat = array.reshape(-1)
    for start in range(0, flat.size, CHUNK):
        count = min(CHUNK, flat.size - start)
        flat[start:start + count] = pattern(start, count, period, offset, scale)
    array.flush()
    return array


def main():
    kind, out = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]]
    os.makedirs(out, exist_ok=True)
    if kind == "copy":
        m, n = sizes
        fill(os.path.join(out, "x.npy"), (m, n), 251, 125)
    elif kind == "rowsum":
        m, n = sizes
        ref = np.empty(m, np.float32)
        columns = np.arange(n, dtype=np.int64)
        for r in range(m):
            ref[r] = (r * n + columns).astype(np.float32).astype(np.float64).sum()
        np.save(os.path.join(out, "ref.npy"), ref)
    elif kind == "gemm":
        m, k, n = sizes
        a = fill(os.path.join(out, "a.npy"), (m, k), 5, 2, scale=7)
        b = fill(os.path.join(out, "b.npy"), (k, n), 7, 3, scale=3)
        try:
            import torch
            if not torch.cuda.is_available():
                raise ImportError
            bt = torch.from_numpy(np.asarray(b, np.float32)).cuda()
            ref = np.empty((m, n), np.float32)
            for r in range(0, m, 1 << 18):
                at = torch.from_numpy(np.asarray(a[r:r + (1 << 18)],
                                                 np.float32)).cuda()
                ref[r:r + (1 << 18)] = (at @ bt).cpu().numpy()
        except ImportError:
            ref = np.empty((m, n), np.float32)
            bf = np.asarray(b, np.float32)
            for r in range(0, m, 1 << 16):
                ref[r:r + (1 << 16)] = np.asarray(a[r:r + (1 << 16)],
                                                  np.float32) @ bf
        np.save(os.path.join(out, "ref.npy"), ref)
    else:
        sys.exit(f"large_inputs.py: unknown kind {kind}")


if __name__ == "__main__":
    main()
