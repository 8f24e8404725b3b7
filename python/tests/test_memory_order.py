"""Memory orders: the memory_order of T.atomic_add / atomic_max / atomic_min
(element, in a T.Parallel, and of a tile), T.atomic_load / atomic_store /
atomic_or, as device-scope fences (tile.fence) around relaxed atomics;
results against NumPy on ragged sizes, the fences each order places, and
misuses as located errors."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy

HERE = os.path.basename(__file__)


def raises_at(match):
    return pytest.raises(tile.TileError,
                         match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


def fences(kernel):
    """The tile.fence orders of a compiled kernel's IR, in order."""
    return re.findall(r"tile\.fence (\w+)", kernel.get_kernel_source("ir"))


# The last block to finish sums every block's partial sum: each block's
# thread 0 writes its partial, then counts itself in with an acq_rel atomic
# (release: its partial is visible before the count; acquire: the last
# block sees every partial counted before it).
def last_block_sum(N, BLOCK=32):
    nb = (N + BLOCK - 1) // BLOCK

    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Partial: T.Tensor((nb,), T.float32),
          Count: T.Tensor((1,), T.int32), Total: T.Tensor((1,), T.float32)):
        with T.Kernel(nb, threads=32) as bx:
            t = T.get_thread_binding()
            acc = T.alloc_local((1,), T.float32)
            if t == 0:
                acc[0] = 0.0
                for i in T.serial(BLOCK):
                    acc[0] += T.if_then_else(bx * BLOCK + i < N, X[bx * BLOCK + i], 0.0)
                Partial[bx] = acc[0]
                prev = T.atomic_add(Count[0], 1, memory_order="acq_rel", return_prev=True)
                if prev == nb - 1:
                    acc[0] = 0.0
                    for b in T.serial(nb):
                        acc[0] += Partial[b]
                    Total[0] = acc[0]
    return k


@pytest.mark.parametrize("N", [1000, 32, 7])
def test_last_block_sums_the_partials(rng, N):
    x = rng.standard_normal(N).astype(np.float32)
    nb = (N + 31) // 32
    kernel = tile.compile(last_block_sum(N), target=TARGET)
    assert fences(kernel) == ["release", "acquire"]
    if TARGET == "cuda":  # PTX's device scope
        assert "fence.acq_rel.gpu" in kernel.get_kernel_source("ptx")
    args = [to_device(a) for a in (x, np.zeros(nb, np.float32), np.zeros(1, np.int32),
                                   np.zeros(1, np.float32))]
    kernel(*args)
    partial, count, total = (to_numpy(a) for a in args[1:])
    assert count[0] == nb
    np.testing.assert_allclose(partial, np.pad(x, (0, nb * 32 - N)).reshape(nb, 32).sum(1),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(total[0], x.astype(np.float64).sum(), rtol=1e-4, atol=1e-4)


# Every order on element atomics in a T.Parallel, on a tile's atomic add,
# and the atomic loads and stores of a flag.
def ordered_atomics(M, N, order, block=4):
    @T.prim_func
    def k(X: T.Tensor((M, N), T.float32), Hi: T.Tensor((N,), T.float32),
          Sum: T.Tensor((block, N), T.float32), Count: T.Tensor((2,), T.int32)):
        with T.Kernel(T.ceildiv(M, block), threads=32) as bx:
            t = T.alloc_fragment((block, N), T.float32)
            T.copy(X[bx * block, 0], t)
            T.atomic_add(Sum[0, 0], t, memory_order=order)
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    T.atomic_max(Hi[j], t[i, j], memory_order=order)
            for i in T.Parallel(1):
                T.atomic_add(Count[0], 1, memory_order=order)
    return k


FENCES = {
    None: [],
    "relaxed": [],
    "consume": ["acquire"],
    "acquire": ["acquire"],
    "release": ["release"],
    "acq_rel": ["release", "acquire"],
    "seq_cst": ["seq_cst", "seq_cst"],
}


@pytest.mark.parametrize("order", list(FENCES))
def test_orders_of_atomics(rng, order):
    m, n = 10, 6
    x = rng.standard_normal((m, n)).astype(np.float32)
    kernel = tile.compile(ordered_atomics(m, n, order), target=TARGET)
    # Around the tile's add, the element atomics of the T.Parallel, the count.
    assert fences(kernel) == FENCES[order] * 3
    args = [to_device(a) for a in (x, np.full(n, -np.inf, np.float32),
                                   np.zeros((4, n), np.float32), np.zeros(2, np.int32))]
    kernel(*args)
    hi, total, count = (to_numpy(a) for a in args[1:])
    np.testing.assert_array_equal(hi, x.max(0))
    xp = np.zeros((12, n), np.float32)
    xp[:m] = x
    np.testing.assert_allclose(total, xp.reshape(3, 4, n).sum(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(count, [3, 0])


def loads_and_stores(n):
    @T.prim_func
    def k(Flags: T.Tensor((n,), T.int32), Vals: T.Tensor((n,), T.float32),
          Out: T.Tensor((n, 3), T.float32)):
        with T.Kernel(n, threads=32) as bx:
            for i in T.Parallel(1):
                Out[bx, 0] = T.atomic_load(Vals[bx], memory_order="acquire")
                Out[bx, 1] = T.cast(T.atomic_load(Flags[bx]), T.float32)
                T.atomic_store(Vals[bx], Out[bx, 0] * 2.0, memory_order="release")
                T.atomic_or(Flags[bx], 4)
                T.atomic_store(Flags[bx], T.atomic_load(Flags[bx], "relaxed") + 1, "relaxed")
                Out[bx, 2] = T.atomic_load(Vals[bx], "seq_cst")
    return k


def test_atomic_loads_and_stores(rng):
    n = 5
    flags = np.array([0, 1, 2, 3, 8], np.int32)
    vals = rng.standard_normal(n).astype(np.float32)
    vals[0] = -0.0  # a load adds -0.0: the sign of zero stays
    kernel = tile.compile(loads_and_stores(n), target=TARGET)
    assert fences(kernel) == ["acquire", "seq_cst", "seq_cst", "release", "seq_cst",
                              "seq_cst"]
    args = [to_device(a.copy()) for a in (flags, vals, np.zeros((n, 3), np.float32))]
    kernel(*args)
    f, v, out = (to_numpy(a) for a in args)
    np.testing.assert_array_equal(out[:, 0], vals)
    assert np.signbit(out[0, 0])
    np.testing.assert_array_equal(out[:, 1], flags.astype(np.float32))
    np.testing.assert_array_equal(v, vals * 2)
    np.testing.assert_array_equal(out[:, 2], vals * 2)
    np.testing.assert_array_equal(f, (flags | 4) + 1)


def test_misused_orders_are_located_errors():
    def kernel(body):
        @T.prim_func
        def k(C: T.Tensor((1,), T.int32), F: T.Tensor((1,), T.float32)):
            with T.Kernel(1) as _:
                for i in T.Parallel(1):
                    body(C, F)
        return k

    with raises_at("unknown memory_order 'weak'"):
        kernel(lambda C, F: T.atomic_add(C[0], 1, memory_order="weak"))
    with raises_at(r"T.atomic_load: unsupported memory_order 'release' \(one of relaxed, "
                   "consume, acquire, seq_cst\\)"):
        kernel(lambda C, F: T.atomic_load(C[0], memory_order="release"))
    with raises_at("T.atomic_store: unsupported memory_order 'acquire'"):
        kernel(lambda C, F: T.atomic_store(C[0], 1, memory_order="acquire"))
    with raises_at("T.atomic_or takes an integer element, got float32"):
        kernel(lambda C, F: T.atomic_or(F[0], 1))
    with raises_at("T.atomic_load reads or writes one element"):
        kernel(lambda C, F: T.atomic_load(3))
