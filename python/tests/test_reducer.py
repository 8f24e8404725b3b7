"""T.alloc_reducer / T.finalize_reducer, TileLang's reducers, as TileLang's
own programs use them (its gemv example, its reduce tests' kernels), the v2
forms (T.reducer_init / T.reducer_update / finalize into a fragment), on
ragged sizes against NumPy, and their misuses as located errors."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy

HERE = os.path.basename(__file__)


def run(kernel, *arrays):
    return to_numpy(kernel(*[to_device(a) for a in arrays]))


def raises_at(match):
    return pytest.raises(tile.TileError,
                         match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


# TileLang's examples/gemv/example_gemv.py, gemv_alloc_reducer, as written
# there (a const-bound eager kernel, the reducer replicated "all").
@tile.jit(out_idx=[-1], target=TARGET)
def gemv_alloc_reducer(a, x, block_M=128, block_N=128, num_stages=2, threads=256,
                       dtype: T.dtype = T.float16, accum_dtype: T.dtype = T.float):
    M, N = T.const("M, N")
    a: T.Tensor((M, N), dtype)
    x: T.Tensor((N,), dtype)
    o = T.empty((M,), dtype)

    with T.Kernel(T.ceildiv(M, block_M), threads=threads) as i0_m:
        o_reducer = T.alloc_reducer(block_M, accum_dtype, replication="all")
        T.clear(o_reducer)
        for i0_n in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
            a_smem = T.alloc_shared((block_M, block_N), dtype)
            T.copy(a[i0_m * block_M, i0_n * block_N], a_smem)
            a_frag = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(a_smem, a_frag)
            x_frag = T.alloc_fragment(block_N, dtype)
            T.copy(x[i0_n * block_N], x_frag)
            for i1_m, i1_n in T.Parallel(block_M, block_N):
                o_reducer[i1_m] += a_frag[i1_m, i1_n] * x_frag[i1_n]
        T.finalize_reducer(o_reducer)
        T.copy(o_reducer, o[i0_m * block_M])
    return o


@pytest.mark.parametrize("M,N", [(200, 300), (128, 256)])
def test_gemv_example(rng, M, N):
    a = rng.standard_normal((M, N)).astype(np.float16)
    x = rng.standard_normal(N).astype(np.float16)
    kernel = gemv_alloc_reducer.compile(M=M, N=N, block_M=64, block_N=64)
    ref = a.astype(np.float32) @ x.astype(np.float32)
    np.testing.assert_allclose(run(kernel, a, x).astype(np.float32), ref, rtol=1e-2,
                               atol=5e-2)


# TileLang's testing/python/language/test_tilelang_language_reduce.py:
# _make_finalize_reducer_kernel (with a ragged global tensor).
def finalize_reducer_kernel(M, N, block_M, block_N, dtype, op, batch=1):
    @T.prim_func
    def kernel(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=256) as bx:
            o_reducer = T.alloc_reducer(block_M, dtype, op=op, replication="all")
            T.clear(o_reducer)
            A_smem = T.alloc_shared((block_M, block_N), dtype)
            T.copy(A[bx * block_M, 0], A_smem)
            A_frag = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(A_smem, A_frag)
            for i, j in T.Parallel(block_M, block_N):
                if op == "sum":
                    o_reducer[i] += A_frag[i, j]
                elif op == "max":
                    o_reducer[i] = T.max(o_reducer[i], A_frag[i, j])
                else:
                    o_reducer[i] = T.min(o_reducer[i], A_frag[i, j])
            T.finalize_reducer(o_reducer, batch=batch)
            T.copy(o_reducer, B[bx * block_M])

    return kernel


@pytest.mark.parametrize("op,dtype,batch", [
    ("sum", T.float32, 1), ("sum", T.float32, 4), ("max", T.float16, 1),
    ("min", T.float32, 16)])
def test_finalize_reducer_kinds(rng, op, dtype, batch):
    M, N = 100, 64
    a = rng.standard_normal((M, N)).astype(dtype.name)
    kernel = tile.compile(finalize_reducer_kernel(M, N, 32, N, dtype, op, batch),
                          out_idx=-1, target=TARGET)
    # T.clear starts max and min at 0, as in TileLang's test.
    ref = {"sum": lambda v: v.sum(1),
           "max": lambda v: np.maximum(v.max(1), 0),
           "min": lambda v: np.minimum(v.min(1), 0)}[op](a.astype(np.float32))
    np.testing.assert_allclose(run(kernel, a).astype(np.float32), ref, rtol=1e-2,
                               atol=1e-2)


def test_one_element_from_two_loops(rng):
    """TileLang's test_finalize_reducer_two_loops: one (1,) reducer updated by
    two T.Parallel loops of different extents; the default replication."""
    extent = 8

    @T.prim_func
    def kernel(A: T.Tensor((extent,), T.float32), B: T.Tensor((2 * extent,), T.float32),
               C: T.Tensor((1,), T.float32)):
        with T.Kernel(1, threads=128):
            a_frag = T.alloc_fragment((extent,), T.float32)
            b_frag = T.alloc_fragment((2 * extent,), T.float32)
            T.copy(A, a_frag)
            T.copy(B, b_frag)
            total = T.alloc_reducer((1,), T.float32)
            T.clear(total)
            for i in T.Parallel(extent):
                total[0] += a_frag[i]
            for j in T.Parallel(2 * extent):
                total[0] += b_frag[j]
            T.finalize_reducer(total)
            T.copy(total, C)

    a = np.arange(1, extent + 1, dtype=np.float32)
    b = np.arange(1, 2 * extent + 1, dtype=np.float32)
    c = run(tile.compile(kernel, out_idx=-1, target=TARGET), a, b)
    np.testing.assert_array_equal(c, [a.sum() + b.sum()])


def test_finalized_reducer_reads_as_a_fragment(rng):
    """TileLang's test_finalize_reducer_default_alloc_v1_syntax: the reducer
    read in a later T.Parallel loop, after its finalize."""
    BLOCK, K = 64, 8

    @T.prim_func
    def kernel(G: T.Tensor((BLOCK, K), T.float32), Y: T.Tensor((BLOCK, K), T.float32),
               O: T.Tensor((BLOCK, K), T.float32)):
        with T.Kernel(1, threads=128):
            g_frag = T.alloc_fragment((BLOCK, K), T.float32)
            y_frag = T.alloc_fragment((BLOCK, K), T.float32)
            out_frag = T.alloc_fragment((BLOCK, K), T.float32)
            reducer = T.alloc_reducer((BLOCK,), T.float32)
            T.copy(G, g_frag)
            T.copy(Y, y_frag)
            T.clear(reducer)
            for i, j in T.Parallel(BLOCK, K):
                reducer[i] += g_frag[i, j] * y_frag[i, j]
            T.finalize_reducer(reducer)
            for i, j in T.Parallel(BLOCK, K):
                out_frag[i, j] = g_frag[i, j] - reducer[i]
            T.copy(out_frag, O)

    g = rng.standard_normal((BLOCK, K)).astype(np.float32)
    y = rng.standard_normal((BLOCK, K)).astype(np.float32)
    o = run(tile.compile(kernel, out_idx=-1, target=TARGET), g, y)
    np.testing.assert_allclose(o, g - (g * y).sum(1, keepdims=True), rtol=1e-5,
                               atol=1e-5)


def test_online_logsumexp_in_a_pipelined_loop(rng):
    """TileLang's online-softmax reducer test, its running values in
    one-element fragments: reducers allocated in the loop's body (a max
    reducer starting at -inf each iteration), a sum reducer reading the
    finalized max, both read after their finalize."""
    K, BLOCK_K = 1000, 128

    @T.prim_func
    def kernel(A: T.Tensor((K,), T.float32), B: T.Tensor((1,), T.float32)):
        with T.Kernel(1, threads=128):
            running_max = T.alloc_fragment((1,), T.float32)
            running_sum = T.alloc_fragment((1,), T.float32)
            T.fill(running_max, -T.infinity(T.float32))
            T.clear(running_sum)
            for k_tile in T.Pipelined(T.ceildiv(K, BLOCK_K), num_stages=1):
                a_frag = T.alloc_fragment((BLOCK_K,), T.float32)
                T.copy(A[k_tile * BLOCK_K], a_frag, pad=float("-inf"))
                new_max = T.alloc_reducer((1,), T.float32, op="max", replication="all")
                for i in T.Parallel(BLOCK_K):
                    new_max[0] = T.max(new_max[0], a_frag[i])
                T.finalize_reducer(new_max)
                new_sum = T.alloc_reducer((1,), T.float32, replication="all")
                T.fill(new_sum, 0.0)
                for i in T.Parallel(BLOCK_K):
                    new_sum[0] += T.exp(a_frag[i] - new_max[0])
                T.finalize_reducer(new_sum)
                for i in T.Parallel(1):
                    m = T.max(running_max[i], new_max[i])
                    running_sum[i] = (T.exp(running_max[i] - m) * running_sum[i]
                                      + T.exp(new_max[i] - m) * new_sum[i])
                    running_max[i] = m
            out = T.alloc_fragment((1,), T.float32)
            for i in T.Parallel(1):
                out[i] = T.log(running_sum[i]) + running_max[i]
            T.copy(out, B)

    a = rng.standard_normal(K).astype(np.float32)
    b = run(tile.compile(kernel, out_idx=-1, target=TARGET), a)
    ref = np.log(np.exp(a.astype(np.float64) - a.max()).sum()) + a.max()
    np.testing.assert_allclose(b, [ref], rtol=1e-5, atol=1e-5)


def test_reducer_v2_forms(rng):
    """TileLang's reducer v2: T.reducer_init (with a start value counted
    once), T.reducer_update, T.finalize_reducer into a fragment."""
    M, N, block_M = 50, 40, 16

    @T.prim_func
    def kernel(A: T.Tensor((M, N), T.float32), S: T.Tensor((M,), T.float32),
               X: T.Tensor((M,), T.float32)):
        with T.Kernel(T.ceildiv(M, block_M), threads=64) as bx:
            a = T.alloc_fragment((block_M, N), T.float32)
            T.copy(A[bx * block_M, 0], a)
            acc = T.alloc_reducer((block_M,), T.float32, op="sum")
            top = T.alloc_reducer((block_M,), T.float32, op="max")
            T.reducer_init(acc, 2.0)
            T.reducer_init(top)
            for i, j in T.Parallel(block_M, N):
                T.reducer_update(acc[i], a[i, j])
                T.reducer_update(top[i], a[i, j])
            s = T.alloc_fragment((block_M,), T.float32)
            x = T.alloc_fragment((block_M,), T.float32)
            T.finalize_reducer(acc, s)
            T.finalize_reducer(top, x)
            T.copy(s, S[bx * block_M])
            T.copy(x, X[bx * block_M])

    a = rng.standard_normal((M, N)).astype(np.float32)
    s, x = tile.compile(kernel, out_idx=[-2, -1], target=TARGET)(to_device(a))
    np.testing.assert_allclose(to_numpy(s), a.sum(1) + 2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(to_numpy(x), a.max(1), rtol=0, atol=0)


def test_reducer_misuses_are_located_errors():
    with raises_at(r"T.alloc_reducer's op must be 'sum', 'max' or 'min', got 'prod'"):
        @T.prim_func
        def k1(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                T.alloc_reducer((4,), T.float32, op="prod")
    with raises_at(r"T.alloc_reducer\(op='bitand'\) is not supported"):
        @T.prim_func
        def k2(A: T.Tensor((4,), T.int32)):
            with T.Kernel(1, threads=32):
                T.alloc_reducer((4,), T.int32, op="bitand")
    with raises_at(r"T.finalize_reducer's argument must be a reducer"):
        @T.prim_func
        def k3(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                f = T.alloc_fragment((4,), T.float32)
                T.finalize_reducer(f)
    with raises_at(r"T.finalize_reducer: batch must be >= 1, got 0"):
        @T.prim_func
        def k4(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                r = T.alloc_reducer((4,), T.float32)
                T.finalize_reducer(r, batch=0)


def test_reducer_order_errors_name_the_python_line():
    """The dialect's checks, reported at the kernel's lines: a store that is
    no update, and an update after the finalize."""
    @T.prim_func
    def overwrite(A: T.Tensor((4, 8), T.float32), B: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            r = T.alloc_reducer((4,), T.float32)
            for i, j in T.Parallel(4, 8):
                r[i] = A[i, j]
            T.finalize_reducer(r)
            T.copy(r, B)

    with raises_at("stores to a sum reducer a value that is not an update of the "
                   "element"):
        tile.compile(overwrite, target=TARGET)

    @T.prim_func
    def late(A: T.Tensor((4, 8), T.float32), B: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            r = T.alloc_reducer((4,), T.float32)
            T.finalize_reducer(r)
            for i, j in T.Parallel(4, 8):
                r[i] += A[i, j]
            T.finalize_reducer(r)
            T.copy(r, B)

    with raises_at("updates a reducer after its 'tile.finalize_reducer'"):
        tile.compile(late, target=TARGET)
