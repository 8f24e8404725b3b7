"""Warp specialization written by hand, as TileLang's warp_specialize
examples write it: T.ws regions of warpgroups, T.alloc_barrier,
T.barrier_arrive / T.barrier_wait (and the mbarrier_* spellings),
T.tma_copy with a barrier. GEMMs at ragged sizes against NumPy; misuses as
located errors."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy

HERE = os.path.basename(__file__)

# Tiles: the GPU's are TileLang's (128 x 128 x 64, f16); the CPU's small
# (its block's 256 threads are a team of OS threads).
if TARGET == "cpu":
    TILES, DTYPE, NP_DTYPE, TOL = (32, 32, 16), T.float32, np.float32, 1e-4
else:
    TILES, DTYPE, NP_DTYPE, TOL = (128, 128, 64), T.float16, np.float16, 2e-2


def raises_at(match):
    return pytest.raises(tile.TileError,
                         match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


# Warpgroup 1 copies A's and B's tiles, warpgroup 0 multiplies them: one
# barrier says a step's data is ready, the other that the consumers are
# done with it (TileLang's example_warp_specialize_gemm_copy_1_gemm_0).
@tile.jit(out_idx=[-1], target=TARGET)
def copy_1_gemm_0(A, B, block_M, block_N, block_K, dtype=DTYPE):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), T.float32)
        data_is_ready = T.alloc_barrier(arrive_count=128)
        compute_is_done = T.alloc_barrier(arrive_count=128)

        with T.ws(0):
            T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            with T.ws(1):
                T.barrier_wait(compute_is_done, (ko + 1) % 2)
                T.tma_copy(A[by * block_M, ko * block_K], A_shared, barrier=data_is_ready)
                T.tma_copy(B[ko * block_K, bx * block_N], B_shared, barrier=data_is_ready)
                T.barrier_arrive(data_is_ready)
            with T.ws(0):
                T.barrier_wait(data_is_ready, ko % 2)
                T.gemm(A_shared, B_shared, C_local)
                T.barrier_arrive(compute_is_done)
        with T.ws(0):
            T.copy(C_local, C[by * block_M, bx * block_N])
    return C


# Both warpgroups multiply, each its half of the block's columns, after a
# copy of A's tile by the whole block (TileLang's
# example_warp_specialize_gemm_copy_gemm_0_1): no barriers of the kernel's
# own; the whole block's copy is ordered with the ranges' reads as any
# block-level op.
@tile.jit(out_idx=[-1], target=TARGET)
def copy_gemm_0_1(A, B, block_M, block_N, block_K, dtype=DTYPE):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)
    half = block_N // 2

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared_g0 = T.alloc_shared((block_K, half), dtype)
        B_shared_g1 = T.alloc_shared((block_K, half), dtype)
        C_local_g0 = T.alloc_fragment((block_M, half), T.float32)
        C_local_g1 = T.alloc_fragment((block_M, half), T.float32)

        with T.ws(1):
            T.clear(C_local_g1)
        with T.ws(0):
            T.clear(C_local_g0)
        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=0):
            T.copy(A[by * block_M, ko * block_K], A_shared)
            with T.ws(1):
                T.copy(B[ko * block_K, bx * block_N], B_shared_g1)
                T.gemm(A_shared, B_shared_g1, C_local_g1)
            with T.ws(0):
                T.copy(B[ko * block_K, bx * block_N + half], B_shared_g0)
                T.gemm(A_shared, B_shared_g0, C_local_g0)
        with T.ws(1):
            T.copy(C_local_g1, C[by * block_M, bx * block_N])
        with T.ws(0):
            T.copy(C_local_g0, C[by * block_M, bx * block_N + half])
    return C


@pytest.mark.parametrize("kernel", [copy_1_gemm_0, copy_gemm_0_1])
def test_warp_specialized_gemm(rng, kernel):
    bm, bn, bk = TILES
    # Not multiples of the tiles: partial tiles at every edge.
    M, N, K = 2 * bm + 6, 3 * bn - 28, 4 * bk + 10
    a = rng.standard_normal((M, K)).astype(NP_DTYPE)
    b = rng.standard_normal((K, N)).astype(NP_DTYPE)
    c = to_numpy(kernel(to_device(a), to_device(b), bm, bn, bk))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=TOL, atol=TOL * np.sqrt(K))


def compile_body(body, threads=256):
    """Compiles a kernel of `threads` threads whose body is `body(A, S)` (A
    a global 64 x 64 tensor, S a shared tile)."""
    @T.prim_func
    def main(A: T.Tensor((64, 64), T.float32)):
        with T.Kernel(1, threads=threads):
            S = T.alloc_shared((64, 64), T.float32)
            body(A, S)
    return tile.compile(main, target=TARGET)


def test_warpgroups_must_be_consecutive():
    def body(A, S):
        with T.ws(0, 2):
            T.copy(A[0, 0], S)
    with raises_at(r"T.ws's warpgroups must be consecutive, got \[0, 2\]"):
        compile_body(body, threads=384)


def test_warpgroup_past_the_kernels_threads():
    def body(A, S):
        with T.ws(1):
            T.copy(A[0, 0], S)
    with raises_at("T.ws covers threads 128 to 256, but the kernel has 128 threads"):
        compile_body(body, threads=128)


def test_barriers_at_the_kernels_level():
    def body(A, S):
        with T.ws(0):
            T.alloc_barrier(128)
    with raises_at("T.alloc_barrier must be at the kernel's level"):
        compile_body(body)


def test_barrier_index_out_of_range():
    def body(A, S):
        bars = T.alloc_barrier([128, 128])
        T.barrier_arrive(bars[2])
    with raises_at("barrier index 2 is out of range: T.alloc_barrier made 2"):
        compile_body(body)


def test_fragment_of_two_warpgroups_is_an_error():
    @T.prim_func
    def main(C: T.Tensor((64, 64), T.float32)):
        with T.Kernel(1, threads=256):
            acc = T.alloc_fragment((64, 64), T.float32)
            with T.ws(0):
                T.clear(acc)
            with T.ws(1):
                T.copy(acc, C[0, 0])
    with pytest.raises(tile.TileError, match="is used by different threads: a fragment "
                                             "belongs to the threads of one"):
        tile.compile(main, target=TARGET)


# TileLang's other spelling (its MLA decoding and sparse MLA programs):
# `if tx < 64:` / `elif tx >= 64 and tx < 128:` on the block's thread index,
# around tile ops, are thread ranges as T.ws is.
@tile.jit(out_idx=[-1], target=TARGET)
def doubled_by_thread_branches(A, block=32):
    N = T.const("N")
    A: T.Tensor((N, 64), T.float32)
    B = T.empty((N, 64), T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
        S = T.alloc_shared((block, 64), T.float32)
        F = T.alloc_fragment((block, 64), T.float32)
        ready = T.alloc_barrier(64)
        tx = T.get_thread_binding()
        if tx < 64:
            T.copy(A[bx * block, 0], S)
            T.barrier_arrive(ready)
        elif tx >= 64 and tx < 128:
            T.barrier_wait(ready, 0)
            T.copy(S, F)
            for i, j in T.Parallel(block, 64):
                F[i, j] = F[i, j] * 2.0
            T.copy(F, B[bx * block, 0])
    return B


def test_thread_index_branches_are_thread_ranges(rng):
    a = rng.standard_normal((70, 64)).astype(np.float32)
    b = to_numpy(doubled_by_thread_branches(to_device(a)))
    np.testing.assert_allclose(b, 2 * a, rtol=0, atol=0)
    source = doubled_by_thread_branches.compile(to_device(a)).get_kernel_source("ir")
    assert "tile.thread_range 0 to 64" in source
    assert "tile.thread_range 64 to 128" in source


def test_else_of_a_thread_branch_is_the_other_threads(rng):
    @T.prim_func
    def main(A: T.Tensor((64, 64), T.float32), B: T.Tensor((64, 64), T.float32)):
        with T.Kernel(1, threads=128):
            S = T.alloc_shared((64, 64), T.float32)
            tx = T.get_thread_binding()
            if tx < 64:
                T.copy(A[0, 0], S)
                T.copy(S, B[0, 0])
            else:
                T.fill(S, 1.0)
    k = tile.compile(main, target=TARGET)
    assert "tile.thread_range 64 to 128" in k.get_kernel_source("ir")


def test_else_of_a_middle_thread_branch_is_an_error():
    with raises_at("the else of an `if` over threads 64 to 128 runs in the threads "
                   "before and after them"):
        @T.prim_func
        def main(A: T.Tensor((64, 64), T.float32)):
            with T.Kernel(1, threads=256):
                S = T.alloc_shared((64, 64), T.float32)
                tx = T.get_thread_binding()
                if tx >= 64 and tx < 128:
                    T.copy(A[0, 0], S)
                else:
                    T.fill(S, 0.0)


# The lower-level primitives of TileLang's MLA programs: a producer branch of
# per-thread T.ptx_cp_async copies (through T.access_ptr) that arrives with
# T.cp_async_barrier_noinc, consumers that multiply with T.wgmma_gemm and
# T.wait_wgmma, register hints (T.set_max_nreg). The consumer and producer
# branches are an elif chain of thread ranges.
@tile.jit(out_idx=[-1], target=TARGET)
def cp_async_gemm(A, B, block=64):
    N, K = T.const("N, K")
    A: T.Tensor((N, K), T.float16)
    B: T.Tensor((K, 64), T.float16)
    C = T.empty((N, 64), T.float16)
    with T.Kernel(T.ceildiv(N, block), threads=256) as bx:
        A_shared = T.alloc_shared((block, 64), T.float16)
        B_shared = T.alloc_shared((64, 64), T.float16)
        acc = T.alloc_fragment((block, 64), T.float32)
        ready = T.alloc_barrier(128)
        done = T.alloc_barrier(128)
        tx = T.get_thread_binding()
        if tx < 128:
            T.set_max_nreg(240, 1)
            T.clear(acc)
            for k in T.serial(T.ceildiv(K, 64)):
                T.barrier_wait(ready, k % 2)
                T.wgmma_gemm(A_shared, B_shared, acc)
                T.wait_wgmma(0)
                T.barrier_arrive(done)
            T.copy(acc, C[bx * block, 0])
        elif tx >= 128:
            T.set_max_nreg(80, 0)
            p = tx - 128
            for k in T.serial(T.ceildiv(K, 64)):
                T.barrier_wait(done, (k + 1) % 2)
                # 128 threads, 64 rows of A's and of B's tiles: each thread
                # copies half a row of each, 4 runs of 8 elements.
                for u in T.serial(4):
                    col = p % 2 * 32 + u * 8
                    T.ptx_cp_async(T.access_ptr(A_shared[p // 2, col], "w", 8),
                                   T.access_ptr(A[bx * block + p // 2, k * 64 + col], "r", 8), 16)
                    T.ptx_cp_async(T.access_ptr(B_shared[p // 2, col], "w", 8),
                                   T.access_ptr(B[k * 64 + p // 2, col], "r", 8), 16)
                T.ptx_commit_group()
                T.cp_async_barrier_noinc(ready)
    return C


def test_cp_async_producer_and_wgmma_consumers(rng):
    # Whole tiles: the per-thread copies read what their indices say.
    N, K = 128, 192
    a = rng.standard_normal((N, K)).astype(np.float16)
    b = rng.standard_normal((K, 64)).astype(np.float16)
    c = to_numpy(cp_async_gemm(to_device(a), to_device(b)))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=2e-2, atol=2e-2 * np.sqrt(K))


def test_overlapping_elif_is_an_error():
    with raises_at("an elif over threads 0 to 192 overlaps the earlier branch's 0 to 128"):
        @T.prim_func
        def main(A: T.Tensor((64, 64), T.float32)):
            with T.Kernel(1, threads=256):
                S = T.alloc_shared((64, 64), T.float32)
                tx = T.get_thread_binding()
                if tx < 128:
                    T.copy(A[0, 0], S)
                elif tx < 192:
                    T.fill(S, 0.0)


def test_nested_warpgroups_are_an_error():
    def body(A, S):
        with T.ws(0, 1):
            with T.ws(0):
                T.copy(A[0, 0], S)
    with raises_at("T.ws cannot be nested in another T.ws"):
        compile_body(body)


def test_tma_copy_misuses():
    def into_fragment(A, S):
        bars = T.alloc_barrier(128)
        F = T.alloc_fragment((64, 64), T.float32)
        with T.ws(0):
            T.tma_copy(A[0, 0], F, barrier=bars)
    with raises_at("T.tma_copy with a barrier copies from global to shared memory"):
        compile_body(into_fragment)

    def multicast(A, S):
        bars = T.alloc_barrier(128)
        T.tma_copy(A[0, 0], S, barrier=bars, cluster_mask=0b11)
    with raises_at("T.tma_copy's cluster_mask .* is not supported"):
        compile_body(multicast)

    def cluster_arrive(A, S):
        bars = T.alloc_barrier(128)
        T.mbarrier_arrive(bars, cta_id=1)
    with raises_at(r"T.mbarrier_arrive\(b, cta_id\) .* is not supported"):
        compile_body(cluster_arrive)

    def not_a_barrier(A, S):
        T.barrier_arrive(S)
    with raises_at("T.barrier_arrive expects a barrier from T.alloc_barrier"):
        compile_body(not_a_barrier)

    def float_parity(A, S):
        bars = T.alloc_barrier(128)
        T.barrier_wait(bars, T.float32(1.0) + 0.5)
    with raises_at("T.barrier_wait: the parity must be an integer"):
        compile_body(float_parity)


def _no_warpgroup(A, S):
    with T.ws():
        pass


def _negative_warpgroup(A, S):
    with T.ws(-1):
        pass


def _no_counts(A, S):
    T.alloc_barrier([])


def _zero_count(A, S):
    T.alloc_barrier([128, 0])


def _float_index(A, S):
    bars = T.alloc_barrier([128, 128])
    T.barrier_arrive(bars[T.float32(1.0) + 0.5])


def _copy_of_mixed_dtypes(A, S):
    H = T.alloc_shared((64, 64), T.float16)
    T.ptx_cp_async(T.access_ptr(H[0, 0], "w", 8), T.access_ptr(A[0, 0], "r", 8), 16)


def _partial_element(A, S):
    T.ptx_cp_async(T.access_ptr(S[0, 0], "w", 1), T.access_ptr(A[0, 0], "r", 1), 6)


def _not_a_place(A, S):
    T.ptx_cp_async(S, A, 16)


def _pointer_to_a_buffer(A, S):
    T.access_ptr(S, "w", 8)


@pytest.mark.parametrize("body, message", [
    (_no_warpgroup, "T.ws needs at least one warpgroup index"),
    (_negative_warpgroup, "T.ws's warpgroup indices must be >= 0, got -1"),
    (_no_counts, "T.alloc_barrier needs at least one arrival count"),
    (_zero_count, "arrival counts must be positive, got 0"),
    (_float_index, "T.barrier_arrive: a barrier index must be an integer"),
    (_copy_of_mixed_dtypes, "T.ptx_cp_async copies between buffers of one dtype, "
                            "got float32 and float16"),
    (_partial_element, "T.ptx_cp_async copies whole elements: 6 bytes of float32"),
    (_not_a_place, "T.ptx_cp_async takes two T.access_ptr places"),
    (_pointer_to_a_buffer, r"T.access_ptr takes a buffer element \(buffer\[i, j\]\)"),
])
def test_barrier_and_copy_misuses(body, message):
    with raises_at(message):
        compile_body(body)
