"""Kernels written per thread: T.get_thread_binding(s), T.get_lane_idx,
T.get_warp_idx, T.get_warp_group_idx, T.get_thread_extent of a thread
tuple, T.sync_threads, and the barriers the compiler places between
threads' shared memory accesses; ragged sizes against NumPy, misuses as
located errors."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy

HERE = os.path.basename(__file__)


def run(kernel, *arrays):
    """The kernel's output: what it returns, or else its last argument."""
    args = [to_device(a) for a in arrays]
    out = kernel(*args)
    return to_numpy(args[-1] if out is None else out)


def raises_at(match):
    return pytest.raises(tile.TileError,
                         match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


# A GEMV with one thread per row: each thread walks its row of B in
# BLOCK_K steps through shared memory (x's chunk loaded by every thread, its
# row's chunk by itself) and keeps its sum in a register.
@tile.jit(out_idx=[-1], target=TARGET)
def row_gemv(B, x, BLOCK_N=32, BLOCK_K=16):
    N, K = T.const("N, K")
    B: T.Tensor((N, K), T.float32)
    x: T.Tensor((K,), T.float32)
    y = T.empty((N,), T.float32)

    with T.Kernel(T.ceildiv(N, BLOCK_N), threads=BLOCK_N) as bn:
        tn = T.get_thread_binding(0)
        x_shared = T.alloc_shared((BLOCK_K,), T.float32)
        b_shared = T.alloc_shared((BLOCK_N, BLOCK_K), T.float32)
        acc = T.alloc_local((1,), T.float32)
        acc[0] = 0.0
        row = bn * BLOCK_N + tn
        for bk in T.serial(T.ceildiv(K, BLOCK_K)):
            for tk in T.serial(BLOCK_K):
                k = bk * BLOCK_K + tk
                x_shared[tk] = T.if_then_else(k < K, x[k], 0.0)
                b_shared[tn, tk] = T.if_then_else(k < K and row < N, B[row, k], 0.0)
            for tk in T.serial(BLOCK_K):
                acc[0] += x_shared[tk] * b_shared[tn, tk]
        if row < N:
            y[row] = acc[0]
    return y


# Split-K: threads=(BLOCK_N, R), R threads per row add their parts into a
# shared slot atomically; the slot is zeroed by tk == 0 and stored by it.
@tile.jit(out_idx=[-1], target=TARGET)
def splitk_gemv(B, x, BLOCK_N=16, R=4):
    N, K = T.const("N, K")
    B: T.Tensor((N, K), T.float32)
    x: T.Tensor((K,), T.float32)
    y = T.empty((N,), T.float32)

    with T.Kernel(T.ceildiv(N, BLOCK_N), threads=(BLOCK_N, R)) as bn:
        tn, tk = T.get_thread_bindings()
        slots = T.alloc_shared((BLOCK_N,), T.float32)
        part = T.alloc_var(T.float32, 0.0)
        row = bn * BLOCK_N + tn
        if tk == 0:
            slots[tn] = 0.0
        for kk in T.serial(T.ceildiv(K, R)):
            k = kk * R + tk
            if k < K and row < N:
                part += B[row, k] * x[k]
        T.atomic_add(slots[tn], part)
        if tk == 0 and row < N:
            y[row] = slots[tn]
    return y


@pytest.mark.parametrize("N,K", [(37, 75), (64, 32), (1, 1)])
def test_row_gemv(rng, N, K):
    B = rng.standard_normal((N, K)).astype(np.float32)
    x = rng.standard_normal(K).astype(np.float32)
    y = run(row_gemv.compile(N=N, K=K), B, x)
    np.testing.assert_allclose(y, B.astype(np.float64) @ x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("N,K", [(37, 75), (16, 8)])
def test_splitk_gemv(rng, N, K):
    B = rng.standard_normal((N, K)).astype(np.float32)
    x = rng.standard_normal(K).astype(np.float32)
    y = run(splitk_gemv.compile(N=N, K=K), B, x)
    np.testing.assert_allclose(y, B.astype(np.float64) @ x, rtol=1e-4, atol=1e-4)


def test_indices_of_a_thread_tuple():
    @T.prim_func
    def ids(Out: T.Tensor((2, 6, 4, 8), T.int32)):
        with T.Kernel(2, threads=(6, 4)) as b:
            tx = T.get_thread_binding(0)
            ty = T.get_thread_binding(1)
            tz = T.get_thread_binding(2)
            Out[b, tx, ty, 0] = tx
            Out[b, tx, ty, 1] = ty
            Out[b, tx, ty, 2] = tz
            Out[b, tx, ty, 3] = T.get_lane_idx()
            Out[b, tx, ty, 4] = T.get_warp_idx()
            Out[b, tx, ty, 5] = T.get_lane_idx(8)
            Out[b, tx, ty, 6] = T.get_warp_idx(8)
            Out[b, tx, ty, 7] = T.get_thread_extent(0) * 100 + T.get_thread_extent(1) * 10 \
                + T.get_thread_extent(2)

    out = run(tile.compile(ids, target=TARGET), np.zeros((2, 6, 4, 8), np.int32))
    tx, ty = np.meshgrid(np.arange(6), np.arange(4), indexing="ij")
    linear = tx + 6 * ty  # x varies fastest
    warp = 64 if TARGET == "rocm" else 32
    want = np.stack([tx, ty, 0 * tx, linear % warp, linear // warp, linear % 8, linear // 8,
                     0 * tx + 641], axis=-1)
    np.testing.assert_array_equal(out, np.broadcast_to(want, out.shape))


def test_warp_groups():
    @T.prim_func
    def groups(Out: T.Tensor((256,), T.int32)):
        with T.Kernel(1, threads=256) as _:
            t = T.get_thread_binding()
            Out[t] = T.get_warp_group_idx(32) * 10 + T.get_warp_group_idx(32, 2)

    out = run(tile.compile(groups, target=TARGET), np.zeros(256, np.int32))
    t = np.arange(256)
    np.testing.assert_array_equal(out, (t // 128) * 10 + t // 64)


# Each thread writes its element of a shared buffer and reads its
# neighbour's, twice over: the compiler's barriers (between the writes and
# the reads, and before the next round's writes) make every read see the
# round's writes; T.sync_threads written by hand is kept.
@pytest.mark.parametrize("written_barrier", [False, True])
def test_shared_rounds(rng, written_barrier):
    @T.prim_func
    def rounds(X: T.Tensor((3, 64), T.float32), Y: T.Tensor((3, 64), T.float32)):
        with T.Kernel(3, threads=64) as b:
            t = T.get_thread_binding()
            s = T.alloc_shared((64,), T.float32)
            v = T.alloc_var(T.float32, X[b, t])
            for _ in T.serial(2):
                s[t] = v
                if written_barrier:
                    T.sync_threads()
                v = s[(t + 1) % 64] * 2.0
            Y[b, t] = v

    x = rng.standard_normal((3, 64)).astype(np.float32)
    y = run(tile.compile(rounds, target=TARGET), x, np.zeros_like(x))
    np.testing.assert_allclose(y, 4 * np.roll(x, -2, axis=1), rtol=1e-6)


# A tile op between per-thread code: the threads' shared writes are seen by
# the copy, whose fragment the per-thread code then does not touch.
def test_tile_ops_between_thread_code(rng):
    @T.prim_func
    def mixed(X: T.Tensor((100,), T.float32), Y: T.Tensor((100,), T.float32)):
        with T.Kernel(T.ceildiv(100, 32), threads=32) as b:
            t = T.get_thread_binding()
            s = T.alloc_shared((32,), T.float32)
            f = T.alloc_fragment((32,), T.float32)
            i = b * 32 + t
            s[t] = T.if_then_else(i < 100, X[i] + 1.0, 0.0)
            T.copy(s, f)
            for j in T.Parallel(32):
                f[j] = f[j] * 3.0
            T.copy(f, Y[b * 32])

    x = rng.standard_normal(100).astype(np.float32)
    y = run(tile.compile(mixed, target=TARGET), x, np.zeros_like(x))
    np.testing.assert_allclose(y, (x + 1) * 3, rtol=1e-6)


# A per-thread variable that every thread computes alike (a counter of
# rounds) is the same in every thread: T.Parallel bodies and tile ops may use
# it in a kernel with per-thread code; one written from the thread index may
# not.
def test_uniform_variable_beside_thread_code(rng):
    @T.prim_func
    def counted(X: T.Tensor((96,), T.float32), Y: T.Tensor((96,), T.float32)):
        with T.Kernel(3, threads=32) as b:
            t = T.get_thread_binding()
            s = T.alloc_shared((32,), T.float32)
            f = T.alloc_fragment((32,), T.float32)
            rounds = T.alloc_var(T.int32, 0)
            for _ in T.serial(3):
                rounds = rounds + 2
            s[t] = X[b * 32 + t]
            T.copy(s, f)
            for j in T.Parallel(32):
                f[j] = f[j] * rounds
            T.copy(f, Y[b * 32 + rounds - 6])

    x = rng.standard_normal(96).astype(np.float32)
    y = run(tile.compile(counted, target=TARGET), x, np.zeros_like(x))
    np.testing.assert_allclose(y, 6 * x, rtol=1e-6)

    @T.prim_func
    def varying(X: T.Tensor((32,), T.float32), Y: T.Tensor((32,), T.float32)):
        with T.Kernel(1, threads=32) as _:
            t = T.get_thread_binding()
            n = T.alloc_var(T.int32, 0)
            n = t
            f = T.alloc_fragment((32,), T.float32)
            for j in T.Parallel(32):
                f[j] = X[j] * n
            T.copy(f, Y[0])

    with raises_at("depends on a thread index in a 'tile.parallel' body"):
        tile.compile(varying, target=TARGET)


def test_thread_index_in_parallel_is_an_error():
    with raises_at("T.get_thread_binding in a T.Parallel body"):
        @T.prim_func
        def k(X: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                f = T.alloc_fragment((32,), T.float32)
                for i in T.Parallel(32):
                    f[i] = T.get_thread_binding()


def test_tile_op_on_a_thread_dependent_region_is_an_error():
    @T.prim_func
    def k(X: T.Tensor((1024,), T.float32), Y: T.Tensor((1024,), T.float32)):
        with T.Kernel(1, threads=32) as _:
            t = T.get_thread_binding()
            s = T.alloc_shared((32,), T.float32)
            T.copy(X[t * 32], s)
            T.copy(s, Y[0])

    with raises_at("depends on a thread index: a tile op runs in all threads together"):
        tile.compile(k, target=TARGET)


def test_named_barriers_are_refused():
    with raises_at(r"T.sync_threads\(barrier_id, arrive_count\)"):
        @T.prim_func
        def k(X: T.Tensor((32,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                T.sync_threads(1, 64)
