#!/usr/bin/env python3
"""Kernels as users write them (issue 29, item 5): TileLang-style kernels,
untuned, checked against torch and timed against it in the same run.

Each kernel is written the way TileLang's documentation and examples write
it (examples/gemm, examples/gemm_splitk, examples/dequantize_gemm): a
`T.Kernel` grid of 128 x 128 output tiles, `T.alloc_shared` /
`T.alloc_fragment`, a `T.Pipelined` K loop of `T.copy` and `T.gemm`, and
element work in `T.Parallel`. Tile shapes, thread counts and stages are the
ones such a user picks, not tuned for tile:

  gemm            the plain GEMM at gemm_bias_relu's tiles (what the tile
                  shape costs, apart from the epilogue). torch: A @ B.
  gemm_bias_relu  C = relu(A B + bias), f16 in and out, f32 accumulation,
                  the epilogue a T.Parallel over the accumulator after the
                  K loop; 128 x 128 x 64, 256 threads, 3 stages; 4096^3 and
                  8192^3. torch: relu(addmm(bias, A, B)).
  gemm_tn         C = A^T B with A stored K x M (`transpose_A=True`), f16
                  out; 128 x 128 x 32, 256 threads, 4 stages; 4096^3.
                  torch: A.t() @ B (cuBLAS on the transposed view).
  gemm_nt         C = A B^T with B stored N x K (`transpose_B=True`), the
                  same tiles. torch: A @ B.t().
  decode          a decoding step's GEMM, C = A W^T with M = 1, 4, 16 or 64
                  rows and N x K weights (4096 / 11008 / 14336), f16: the
                  gemm_nt kernel at a GEMM's usual tiles with the rows cut
                  to 64 (64 x 128 x 64, 128 threads, 4 stages: rows past M
                  are outside A and C, N / 128 blocks stream the weights).
                  Memory-bound: reported also in GB/s of A, W and C read or
                  written once. torch: A @ W.t().
  decode_w8a16, decode_w4a16
                  w8a16 and w4a16 at the same tiles, for
                  M = 1, 16, 64 (N = K = 4096) and 16 x 14336 x 4096, in
                  GB/s too; torch: dequantize then matmul,
                  torch._weight_int8pack_mm / _weight_int4pack_mm (made for
                  few rows), and cuBLAS on f16 weights (what the quantized
                  weights replace).
  bmm             batched C[b] = A[b] B[b] over 3-d tensors, the grid's
                  third dim the batch, copies of `A[bz, by * 128, k * 32]`;
                  128 x 128 x 32, 128 threads, 3 stages; 16 x 2048^3.
                  torch: torch.bmm.
  splitk          split-K GEMM: each of `split_k` blocks along the grid's
                  third dim reduces a K slice and `T.atomic_add`s its tile
                  into an f32 C element by element in a T.Parallel (the
                  output zeroed before each call, which the timing
                  includes); 128 x 128 x 32, 128 threads, 3 stages;
                  512 x 512 x 16384, split 8. torch: A @ B.
  w8a16           A f16 (M x K) times int8 weights B (N x K) with a
                  per-output-channel f16 scale: each K step copies the
                  int8 tile to shared memory, dequantizes it in a
                  T.Parallel into an f16 shared tile (B * scale), then
                  `T.gemm(..., transpose_B=True)`; 128 x 128 x 32, 128
                  threads, 2 stages; 4096^3. torch: A @ (B.half() *
                  scale).t() (dequantize, then matmul; both timed), and
                  torch._weight_int8pack_mm where it runs (a kernel for
                  few rows, decoding: at M = 4096 it is no bar to beat).
  w4a16           the same with int4 weights packed two per int8 byte
                  (N x K/2, element 2c in the low nibble of byte c, stored
                  unsigned with zero point 8) and f16 scales per group of
                  128 along K (N x K/128), unpacked with shifts and masks
                  in the T.Parallel; 4096^3. torch: dequantize then
                  matmul, and torch._weight_int4pack_mm (tinygemm: bf16
                  activations, its own packing) where it runs.
  w4a16_int4, w4a16_int4_zp, w4a16_fp4, w4a16_mxfp4
                  the same GEMM with other 4-bit weight formats, two a
                  uint8 byte, decoded in the T.Parallel with shifts, masks
                  and T.reinterpret: signed int4 (two's complement, moved
                  to a byte's top and shifted back) with f16 scales per
                  group of 128; unsigned int4 with an f16 scale and zero
                  point per group of 128 (w = (q - z) s); fp4 e2m1 (its
                  bits placed in a half's, times 2^14) with f16 scales per
                  32; fp4 e2m1 with e8m0 scales per 32 (2^(e - 127), an
                  f32 built from e's bits: MXFP4); 4096^3. torch:
                  dequantize then matmul.
  grouped_gemm    a mixture-of-experts layer's expert GEMMs in one launch
                  (python/examples/grouped_gemm.py, issue 31): rows of A
                  sorted by expert in uneven groups (one empty), each
                  group times its own B, the tile plan read on the device;
                  128 x 128 x 64, 256 threads, 3 stages; Mixtral-8x7B's up
                  projection (8 x 8192 x 14336 x 4096) and 64 experts
                  (64 x 24576 x 1408 x 2048). torch: torch.mm per group,
                  and torch._grouped_mm (bf16) where it exists.

On the GPU (torch tensors) each kernel is checked against an f32 torch
reference (every element within torch.isclose's rtol 1e-2, atol 1e-2: f16
outputs; NumPy's isclose on the CPU),
then it and its torch counterparts are timed with tile.profiler.do_bench
(CUDA events, L2 flushed before each call; the same call for both).
TFLOP/s count 2 M N K per GEMM. A kernel that fails to compile, to run or
to match is a row with the first line of its error; the others go on.

    sh .bundle/python/unpack.sh /tmp/tilepy
    PYTHONPATH=/tmp/tilepy python3 bench/user_kernels.py --out $OUT/user-kernels

`--target cpu` runs every kernel at small shapes, including sizes that are
no multiple of the tiles (M = 200), against NumPy references, without
timing: the check that the kernels are right on a machine without a GPU.
`--only NAME,...` runs a subset; `--out DIR` writes results.json and
results.md there.

What the frontend could not express: nothing. Every kernel above is
written as TileLang's examples write it, and none needed a change of what
the user writes to compile, run or match on the CPU target.
"""

import argparse
import json
import os
import sys
import time
import traceback

import tile
import tile.language as T

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "examples"))
from grouped_gemm import grouped_gemm, tile_plan  # noqa: E402  (python/examples)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# The kernels, as a TileLang user writes them.
# --------------------------------------------------------------------------

@tile.jit(out_idx=[-1])
def gemm_bias_relu(M, N, K, block_M=128, block_N=128, block_K=64, threads=256,
                   num_stages=3, dtype=T.float16, accum_dtype=T.float32):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             Bias: T.Tensor((N,), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j] + Bias[bx * block_N + j], 0)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@tile.jit(out_idx=[-1])
def gemm(M, N, K, block_M=128, block_N=128, block_K=64, threads=256, num_stages=3,
         dtype=T.float16, accum_dtype=T.float32):
    """The plain GEMM at gemm_bias_relu's tiles: what the epilogue costs."""

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@tile.jit(out_idx=[-1])
def gemm_ws(M, N, K, block_M=128, block_N=128, block_K=64, dtype=T.float16,
            accum_dtype=T.float32):
    """The GEMM warp-specialized by hand, as TileLang's
    example_warp_specialize_gemm_copy_1_gemm_0 writes it: warpgroup 1
    copies (T.tma_copy) into single-buffered tiles, warpgroup 0 multiplies,
    two barriers hand each K step over."""

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
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

    return main


@tile.jit(out_idx=[-1])
def gemm_tn(M, N, K, block_M=128, block_N=128, block_K=32, threads=256, num_stages=4,
            dtype=T.float16, accum_dtype=T.float32):
    """C = A^T B, A stored K x M."""

    @T.prim_func
    def main(A: T.Tensor((K, M), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_K, block_M), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[k * block_K, by * block_M], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_A=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@tile.jit(out_idx=[-1])
def gemm_nt(M, N, K, block_M=128, block_N=128, block_K=32, threads=256, num_stages=4,
            dtype=T.float16, accum_dtype=T.float32):
    """C = A B^T, B stored N x K."""

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@tile.jit(out_idx=[-1])
def bmm(batch, M, N, K, block_M=128, block_N=128, block_K=32, threads=128, num_stages=3,
        dtype=T.float16, accum_dtype=T.float32):
    @T.prim_func
    def main(A: T.Tensor((batch, M, K), dtype), B: T.Tensor((batch, K, N), dtype),
             C: T.Tensor((batch, M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), batch,
                      threads=threads) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[bz, by * block_M, k * block_K], A_shared)
                T.copy(B[bz, k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[bz, by * block_M, bx * block_N])

    return main


# TileLang's split-K example is an eager kernel with its sizes in the body.
@tile.jit
def splitk(A, B, C, block_M, block_N, block_K, split_k, num_stages=3, threads=128,
           dtype=T.float16, accum_dtype=T.float32, out_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    splitK = K // split_k

    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C: T.Tensor((M, N), out_dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k,
                  threads=threads) as (bx, by, bz):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(splitK, block_K), num_stages=num_stages):
            T.copy(A[by * block_M, bz * splitK + ko * block_K], A_shared)
            T.copy(B[bz * splitK + ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        for i, j in T.Parallel(block_M, block_N):
            T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])


@tile.jit(out_idx=[-1])
def w8a16(M, N, K, block_M=128, block_N=128, block_K=32, threads=128, num_stages=2,
          in_dtype=T.float16, out_dtype=T.float16, accum_dtype=T.float32):
    """C = A (B * scale)^T: int8 weights N x K, one f16 scale per output
    channel."""

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype), B: T.Tensor((N, K), T.int8),
             Scale: T.Tensor((N,), in_dtype), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K), T.int8)
            B_dequantize_shared = T.alloc_shared((block_N, block_K), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                for i, j in T.Parallel(block_N, block_K):
                    B_dequantize_shared[i, j] = (B_shared[i, j].astype(in_dtype)
                                                 * Scale[bx * block_N + i])
                T.gemm(A_shared, B_dequantize_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@tile.jit(out_idx=[-1])
def w4a16(M, N, K, group_size=128, block_M=128, block_N=128, block_K=32, threads=128,
          num_stages=2, in_dtype=T.float16, out_dtype=T.float16, accum_dtype=T.float32):
    """C = A dequant(B)^T: 4-bit weights, two per byte (element 2c in the low
    nibble of byte c of its row), unsigned with zero point 8, one f16 scale
    per group of `group_size` along K."""
    num_bits = 4
    num_elems_per_byte = 8 // num_bits

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype),
             B: T.Tensor((N, K // num_elems_per_byte), T.int8),
             Scale: T.Tensor((N, K // group_size), in_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K // num_elems_per_byte), T.int8)
            B_dequantize_shared = T.alloc_shared((block_N, block_K), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K // num_elems_per_byte], B_shared)
                for i, j in T.Parallel(block_N, block_K):
                    byte = B_shared[i, j // num_elems_per_byte]
                    q = (byte >> ((j % num_elems_per_byte) * num_bits)) & 0xF
                    scale = Scale[bx * block_N + i, (k * block_K + j) // group_size]
                    B_dequantize_shared[i, j] = (q - 8).astype(in_dtype) * scale
                T.gemm(A_shared, B_dequantize_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def nibble(packed, i, j):
    """Element j of row i of a 4-bit tensor two a byte: the low (j even) or
    high nibble of byte j // 2, as an int in [0, 16)."""
    return (packed[i, j // 2] >> ((j % 2) * 4)) & 0xF


def signed_nibble(packed, i, j):
    """The nibble as a two's complement int4: moved to the top of a byte,
    read as int8 and shifted back arithmetically."""
    top = (packed[i, j // 2] << ((1 - j % 2) * 4)).astype(T.uint8)
    return T.reinterpret(top, T.int8) >> 4


def e2m1_to_half(q):
    """An fp4 e2m1 value (sign, 2 exponent bits, 1 mantissa bit) as f16: its
    sign to bit 15 and its other three bits to bits 11..9 make the half
    2^-14 times the value, subnormals included."""
    bits = ((q & 8) << 12) | ((q & 7) << 9)
    return T.reinterpret(bits.astype(T.uint16), T.float16) * 16384.0


@tile.jit(out_idx=[-1])
def w4a16_formats(M, N, K, fmt, group_size, block_M=128, block_N=128, block_K=32,
                  threads=128, num_stages=2, in_dtype=T.float16, out_dtype=T.float16,
                  accum_dtype=T.float32):
    """C = A dequant(B)^T with 4-bit weights two a byte (element 2c in the
    low nibble of byte c), `fmt` one of: "int4" (signed, an f16 scale per
    group), "int4_zp" (unsigned, an f16 scale and zero point per group:
    w = (q - z) s), "fp4" (e2m1, an f16 scale per group), "mxfp4" (e2m1,
    an e8m0 scale per group: 2^(e - 127))."""
    scale_dtype = T.uint8 if fmt == "mxfp4" else in_dtype

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype),
             B: T.Tensor((N, K // 2), T.uint8),
             Scale: T.Tensor((N, K // group_size), scale_dtype),
             Zeros: T.Tensor((N, K // group_size), in_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K // 2), T.uint8)
            B_dequantize_shared = T.alloc_shared((block_N, block_K), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K // 2], B_shared)
                for i, j in T.Parallel(block_N, block_K):
                    n, g = bx * block_N + i, (k * block_K + j) // group_size
                    if fmt == "int4":
                        w = signed_nibble(B_shared, i, j).astype(in_dtype) * Scale[n, g]
                    elif fmt == "int4_zp":
                        w = (nibble(B_shared, i, j).astype(in_dtype) - Zeros[n, g]) * Scale[n, g]
                    elif fmt == "fp4":
                        w = e2m1_to_half(nibble(B_shared, i, j)) * Scale[n, g]
                    else:
                        scale = T.reinterpret(Scale[n, g].astype(T.uint32) << 23, T.float32)
                        w = (e2m1_to_half(nibble(B_shared, i, j)).astype(T.float32)
                             * scale).astype(in_dtype)
                    B_dequantize_shared[i, j] = w
                T.gemm(A_shared, B_dequantize_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


# --------------------------------------------------------------------------
# Arrays: NumPy on the CPU target, torch on CUDA, the same calls.
# --------------------------------------------------------------------------

class NumpyArrays:
    """Inputs and references for the CPU target (NumPy, f32 references)."""

    def __init__(self, seed):
        import numpy as np
        self.np = np
        self.rng = np.random.default_rng(seed)

    def randn(self, *shape, dtype="float16"):
        return self.rng.standard_normal(shape, dtype=self.np.float32).astype(dtype)

    def uniform(self, lo, hi, *shape, dtype="float16"):
        return (self.rng.random(shape, dtype=self.np.float32) * (hi - lo) + lo).astype(dtype)

    def randint(self, lo, hi, *shape, dtype="int8"):
        return self.rng.integers(lo, hi, shape).astype(dtype)

    def zeros(self, *shape, dtype="float32"):
        return self.np.zeros(shape, dtype)

    def int32(self, values):
        return self.np.array(values, self.np.int32)

    def f32(self, x):
        return x.astype(self.np.float32)

    def f16(self, x):
        return x.astype(self.np.float16)

    def relu(self, x):
        return self.np.maximum(x, 0)

    def transpose(self, x):
        return self.np.swapaxes(x, -1, -2)

    def interleave(self, even, odd):
        """Columns even[:, c], odd[:, c] as columns 2c, 2c + 1."""
        return self.np.stack((even, odd), axis=-1).reshape(even.shape[0], -1)

    def repeat_cols(self, x, n):
        return self.np.repeat(x, n, axis=1)

    def as_uint8(self, x):
        return x.view(self.np.uint8)

    def as_int8(self, x):
        return x.view(self.np.int8)

    def lookup(self, table, index):
        """table[index] for an integer array `index` (f16 results)."""
        return self.np.asarray(table, self.np.float16)[index]

    def check(self, out, ref):
        """Max error; raises when out is not close to ref (f16 tolerances)."""
        out = self.f32(out)
        if out.shape != ref.shape:
            raise AssertionError(f"shape {out.shape}, expected {ref.shape}")
        err = float(self.np.abs(out - ref).max()) if out.size else 0.0
        if not self.np.allclose(out, ref, rtol=1e-2, atol=1e-2):
            bad = int((~self.np.isclose(out, ref, rtol=1e-2, atol=1e-2)).sum())
            raise AssertionError(f"{bad} of {out.size} elements differ (max error {err:.3g}, "
                                 f"max |ref| {float(self.np.abs(ref).max()):.3g})")
        return err


class TorchArrays(NumpyArrays):
    """Inputs and references on the GPU (torch; f32 references)."""

    def __init__(self, seed):
        import torch
        self.torch = torch
        self.gen = torch.Generator(device="cuda").manual_seed(seed)

    def _dtype(self, name):
        return getattr(self.torch, name)

    def randn(self, *shape, dtype="float16"):
        return self.torch.randn(shape, generator=self.gen, device="cuda",
                                dtype=self._dtype(dtype))

    def uniform(self, lo, hi, *shape, dtype="float16"):
        return (self.torch.rand(shape, generator=self.gen, device="cuda") * (hi - lo)
                + lo).to(self._dtype(dtype))

    def randint(self, lo, hi, *shape, dtype="int8"):
        return self.torch.randint(lo, hi, shape, generator=self.gen, device="cuda",
                                  dtype=self._dtype(dtype))

    def zeros(self, *shape, dtype="float32"):
        return self.torch.zeros(shape, device="cuda", dtype=self._dtype(dtype))

    def int32(self, values):
        return self.torch.tensor(values, device="cuda", dtype=self.torch.int32)

    def f32(self, x):
        return x.float()

    def f16(self, x):
        return x.half()

    def relu(self, x):
        return self.torch.relu(x)

    def transpose(self, x):
        return x.transpose(-1, -2)

    def interleave(self, even, odd):
        return self.torch.stack((even, odd), dim=-1).reshape(even.shape[0], -1)

    def repeat_cols(self, x, n):
        return x.repeat_interleave(n, dim=1)

    def as_uint8(self, x):
        return x.view(self.torch.uint8)

    def as_int8(self, x):
        return x.view(self.torch.int8)

    def lookup(self, table, index):
        return self.torch.tensor(table, device="cuda", dtype=self.torch.float16)[index.long()]

    def check(self, out, ref):
        out = out.float()
        if out.shape != ref.shape:
            raise AssertionError(f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
        err = float((out - ref).abs().max()) if out.numel() else 0.0
        close = self.torch.isclose(out, ref, rtol=1e-2, atol=1e-2)
        if not bool(close.all()):
            raise AssertionError(f"{int((~close).sum())} of {out.numel()} elements differ "
                                 f"(max error {err:.3g}, max |ref| "
                                 f"{float(ref.abs().max()):.3g})")
        return err


# --------------------------------------------------------------------------
# The cases: inputs, the tile kernel, the reference, the torch counterparts.
# --------------------------------------------------------------------------

class Case:
    """One kernel at one shape. `build()` compiles (JITKernel), `run(k)` calls
    it and returns the output, `ref()` the f32 reference; `torch` lists
    (label, fn, ref_check) counterparts, `ref_check` None or the tolerance of
    a check of that counterpart's output against `ref()`."""

    def __init__(self, flops, config, build, run, ref, torch=(), bytes=None):
        self.flops, self.config, self.bytes = flops, config, bytes
        self.build, self.run, self.ref = build, run, ref
        self.torch = list(torch)


def case_gemm_bias_relu(X, M, N, K):
    A, B, bias = X.randn(M, K), X.randn(K, N), X.randn(N)
    cfg = dict(block_M=128, block_N=128, block_K=64, threads=256, num_stages=3)
    torch = []
    if hasattr(X, "torch"):
        t = X.torch
        torch.append(("torch relu(addmm)", lambda: t.relu(t.addmm(bias, A, B)), None))
    return Case(2 * M * N * K, cfg, lambda: gemm_bias_relu(M, N, K, **cfg),
                lambda k: k(A, B, bias),
                lambda: X.relu(X.f32(A) @ X.f32(B) + X.f32(bias)), torch)


def case_gemm(X, M, N, K):
    A, B = X.randn(M, K), X.randn(K, N)
    cfg = dict(block_M=128, block_N=128, block_K=64, threads=256, num_stages=3)
    torch = [("torch A @ B", lambda: A @ B, None)] if hasattr(X, "torch") else []
    return Case(2 * M * N * K, cfg, lambda: gemm(M, N, K, **cfg), lambda k: k(A, B),
                lambda: X.f32(A) @ X.f32(B), torch)


def case_gemm_ws(X, M, N, K):
    A, B = X.randn(M, K), X.randn(K, N)
    cfg = dict(block_M=128, block_N=128, block_K=64)
    torch = [("torch A @ B", lambda: A @ B, None)] if hasattr(X, "torch") else []
    return Case(2 * M * N * K, cfg, lambda: gemm_ws(M, N, K, **cfg), lambda k: k(A, B),
                lambda: X.f32(A) @ X.f32(B), torch)


def case_gemm_tn(X, M, N, K):
    A, B = X.randn(K, M), X.randn(K, N)
    cfg = dict(block_M=128, block_N=128, block_K=32, threads=256, num_stages=4)
    torch = [("torch A.t() @ B", lambda: A.t() @ B, None)] if hasattr(X, "torch") else []
    return Case(2 * M * N * K, cfg, lambda: gemm_tn(M, N, K, **cfg), lambda k: k(A, B),
                lambda: X.transpose(X.f32(A)) @ X.f32(B), torch)


def case_gemm_nt(X, M, N, K):
    A, B = X.randn(M, K), X.randn(N, K)
    cfg = dict(block_M=128, block_N=128, block_K=32, threads=256, num_stages=4)
    torch = [("torch A @ B.t()", lambda: A @ B.t(), None)] if hasattr(X, "torch") else []
    return Case(2 * M * N * K, cfg, lambda: gemm_nt(M, N, K, **cfg), lambda k: k(A, B),
                lambda: X.f32(A) @ X.transpose(X.f32(B)), torch)


def case_decode(X, M, N, K):
    """A decoding step's GEMM: a few rows of activations times an N x K weight
    matrix, memory-bound (the weights are read once)."""
    A, W = X.randn(M, K), X.randn(N, K)
    cfg = dict(DECODE_TILES)
    torch = [("torch A @ W.t()", lambda: A @ W.t(), None)] if hasattr(X, "torch") else []
    return Case(2 * M * N * K, cfg, lambda: gemm_nt(M, N, K, **cfg), lambda k: k(A, W),
                lambda: X.f32(A) @ X.transpose(X.f32(W)), torch,
                bytes=2 * (M * K + N * K + M * N))


def case_bmm(X, batch, M, N, K):
    A, B = X.randn(batch, M, K), X.randn(batch, K, N)
    cfg = dict(block_M=128, block_N=128, block_K=32, threads=128, num_stages=3)
    torch = ([("torch.bmm", lambda: X.torch.bmm(A, B), None)]
             if hasattr(X, "torch") else [])
    return Case(2 * batch * M * N * K, cfg, lambda: bmm(batch, M, N, K, **cfg),
                lambda k: k(A, B), lambda: X.f32(A) @ X.f32(B), torch)


def case_splitk(X, M, N, K, split_k):
    block_M, block_N, block_K = 128, 128, 32
    # The user's kernel assumes each split is whole K tiles (as TileLang's does).
    assert K % (split_k * block_K) == 0, f"K = {K} is not a multiple of {split_k} x {block_K}"
    A, B, C = X.randn(M, K), X.randn(K, N), X.zeros(M, N)
    cfg = dict(block_M=block_M, block_N=block_N, block_K=block_K, split_k=split_k,
               threads=128, num_stages=3)

    def build():
        return splitk.compile(A, B, C, block_M, block_N, block_K, split_k,
                              num_stages=cfg["num_stages"], threads=cfg["threads"])

    def run(k):
        if hasattr(C, "zero_"):
            C.zero_()
        else:
            C[...] = 0
        k(A, B, C)
        return C

    torch = [("torch A @ B", lambda: A @ B, None)] if hasattr(X, "torch") else []
    return Case(2 * M * N * K, cfg, build, run, lambda: X.f32(A) @ X.f32(B), torch)


def case_w8a16(X, M, N, K, cfg=None):
    A = X.randn(M, K)
    B = X.randint(-128, 128, N, K, dtype="int8")
    scale = X.uniform(0.005, 0.025, N)
    decoding = cfg is not None
    cfg = cfg or dict(block_M=128, block_N=128, block_K=32, threads=128, num_stages=2)

    def dequant():
        return X.f16(B) * scale[:, None]

    torch = []
    if hasattr(X, "torch"):
        t = X.torch
        torch.append(("torch dequant + matmul", lambda: A @ dequant().t(), None))
        if hasattr(t, "_weight_int8pack_mm"):
            torch.append(("torch._weight_int8pack_mm",
                          lambda: t._weight_int8pack_mm(A, B, scale), 1e-2))
    if decoding and hasattr(X, "torch"):  # the f16 GEMM the quantized weights replace
        W = X.f16(dequant())
        torch.append(("cuBLAS A @ W.t(), f16 weights", lambda: A @ W.t(), None))
    return Case(2 * M * N * K, cfg, lambda: w8a16(M, N, K, **cfg),
                lambda k: k(A, B, scale), lambda: X.f32(A) @ X.transpose(X.f32(dequant())),
                torch, bytes=2 * M * K + N * K + 2 * N + 2 * M * N if decoding else None)


def case_w4a16(X, M, N, K, group_size=128, cfg=None):
    assert K % group_size == 0 and K % 2 == 0
    A = X.randn(M, K)
    q = X.randint(0, 16, N, K, dtype="uint8")            # unsigned 4-bit, zero point 8
    B = X.as_int8(q[:, 0::2] | (q[:, 1::2] << 4))        # element 2c: low nibble of byte c
    scale = X.uniform(0.1, 0.3, N, K // group_size)
    decoding = cfg is not None
    cfg = dict(cfg or dict(block_M=128, block_N=128, block_K=32, threads=128, num_stages=2),
               group_size=group_size)

    def dequant():
        # What a torch user writes: unpack the nibbles, subtract the zero
        # point, scale by group.
        lo, hi = B & 0xF, (B >> 4) & 0xF
        w = X.interleave(lo, hi)
        return X.f16(w - 8) * X.repeat_cols(scale, group_size)

    torch = []
    if hasattr(X, "torch"):
        t = X.torch
        torch.append(("torch dequant + matmul", lambda: A @ dequant().t(), None))
        int4 = _int4pack_counterpart(t, A, q, scale, group_size)
        if int4 is not None:
            torch.append(int4)
        if decoding:  # the f16 GEMM the quantized weights replace
            W = X.f16(dequant())
            torch.append(("cuBLAS A @ W.t(), f16 weights", lambda: A @ W.t(), None))
    return Case(2 * M * N * K, cfg, lambda: w4a16(M, N, K, **cfg),
                lambda k: k(A, B, scale),
                lambda: X.f32(A) @ X.transpose(X.f32(dequant())), torch,
                bytes=(2 * M * K + N * K // 2 + 2 * N * (K // group_size) + 2 * M * N
                       if decoding else None))


E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


def case_w4a16_formats(fmt, group_size):
    def case(X, M, N, K):
        assert K % group_size == 0 and K % 2 == 0
        A = X.randn(M, K)
        q = X.randint(0, 16, N, K, dtype="uint8")
        B = q[:, 0::2] | (q[:, 1::2] << 4)                   # element 2c: low nibble of byte c
        if fmt == "mxfp4":
            scale = X.randint(120, 132, N, K // group_size, dtype="uint8")
        else:
            scale = X.uniform(0.05, 0.3, N, K // group_size)
        zeros = X.f16(X.randint(0, 16, N, K // group_size, dtype="uint8"))
        cfg = dict(block_M=128, block_N=128, block_K=32, threads=128, num_stages=2)

        def dequant():
            # What a torch user writes: unpack the nibbles, decode, scale by group.
            w = X.interleave(B & 0xF, B >> 4)
            if fmt == "int4":
                v = X.f16(w) - 16 * X.f16(w >= 8)
                return v * X.repeat_cols(scale, group_size)
            if fmt == "int4_zp":
                v = X.f16(w) - X.repeat_cols(zeros, group_size)
                return v * X.repeat_cols(scale, group_size)
            v = X.lookup(E2M1, w)
            if fmt == "fp4":
                return v * X.repeat_cols(scale, group_size)
            e = X.repeat_cols(X.f32(scale), group_size)
            return X.f16(X.f32(v) * 2.0 ** (e - 127))

        torch = []
        if hasattr(X, "torch"):
            torch.append(("torch dequant + matmul", lambda: A @ dequant().t(), None))
        return Case(2 * M * N * K, dict(cfg, fmt=fmt, group_size=group_size),
                    lambda: w4a16_formats(M, N, K, fmt, group_size, **cfg),
                    lambda k: k(A, B, scale, zeros),
                    lambda: X.f32(A) @ X.transpose(X.f32(dequant())), torch)
    return case


def _int4pack_counterpart(t, A, q, scale, group_size):
    """torch._weight_int4pack_mm (tinygemm): bf16 activations, weights packed
    by _convert_weight_to_int4pack from N x K/2 uint8 (element 2c in the
    high nibble; older torch: N x K int32), scales and zeros as
    (K / group, N, 2) with w = (q - 8) * scale + zero. Returns a counterpart,
    or a label with the reason it cannot run."""
    label = "torch._weight_int4pack_mm (bf16 A)"
    if not hasattr(t, "_weight_int4pack_mm") or not hasattr(t, "_convert_weight_to_int4pack"):
        return (label + ": not in this torch", None, None)
    try:
        try:
            packed = ((q[:, 0::2] << 4) | q[:, 1::2]).contiguous()
            weight = t._convert_weight_to_int4pack(packed, 8)
        except RuntimeError:
            weight = t._convert_weight_to_int4pack(q.to(t.int32).contiguous(), 8)
        sz = t.stack((scale.t(), t.zeros_like(scale.t())), dim=-1).to(t.bfloat16).contiguous()
        a = A.to(t.bfloat16)
        fn = lambda: t._weight_int4pack_mm(a, weight, group_size, sz)  # noqa: E731
        fn()
    except Exception as e:  # its packing API differs in this torch
        return (f"{label}: {first_line(e)}", None, None)
    return (label, fn, 2e-2)


def group_sizes(groups, rows, seed=0):
    """An uneven split of `rows` over `groups` (as a router's top-k gives
    experts), the same on every run; one group empty where there are 5 or
    more."""
    import random
    r = random.Random(seed)
    weights = [r.random() ** 2 + 0.05 for _ in range(groups)]
    if groups >= 5:
        weights[groups // 2] = 0.0
    total = sum(weights)
    sizes = [int(rows * w / total) for w in weights]
    sizes[0] += rows - sum(sizes)
    return sizes


def case_grouped_gemm(X, G, rows, N, K):
    sizes = group_sizes(G, rows)
    A, B = X.randn(rows, K), X.randn(G, K, N)
    cfg = dict(block_M=128, block_N=128, block_K=64, threads=256, num_stages=3)
    plan = [X.int32(t) for t in tile_plan(sizes, cfg["block_M"])]
    starts = [sum(sizes[:g]) for g in range(G)]

    def ref():
        out = X.zeros(rows, N)
        for g, (s, n) in enumerate(zip(starts, sizes)):
            out[s:s + n] = X.f32(A[s:s + n]) @ X.f32(B[g])
        return out

    torch = []
    if hasattr(X, "torch"):
        t = X.torch

        def loop():
            out = t.empty(rows, N, device="cuda", dtype=t.float16)
            for g, (s, n) in enumerate(zip(starts, sizes)):
                t.mm(A[s:s + n], B[g], out=out[s:s + n])
            return out
        torch.append(("torch mm per group", loop, None))
        if hasattr(t, "_grouped_mm"):
            a16, b16 = A.bfloat16(), B.bfloat16().transpose(-1, -2).contiguous().transpose(-1, -2)
            offs = X.int32([s + n for s, n in zip(starts, sizes)])
            torch.append(("torch._grouped_mm (bf16)",
                          lambda: t._grouped_mm(a16, b16, offs=offs), 2e-2))
    return Case(2 * rows * N * K, cfg, lambda: grouped_gemm(N, K, **cfg),
                lambda k: k(A, B, *plan), ref, torch)


# name -> (case function, GPU shapes, CPU shapes)
# A GEMM's usual tiles with the rows cut to wgmma's 64, for a few rows (the
# dequantizing kernels too).
DECODE_TILES = dict(block_M=64, block_N=128, block_K=64, threads=128, num_stages=4)

CASES = {
    "gemm": (case_gemm, [(4096, 4096, 4096), (8192, 8192, 8192)],
             [(200, 136, 96), (256, 128, 192)]),
    "gemm_bias_relu": (case_gemm_bias_relu, [(4096, 4096, 4096), (8192, 8192, 8192)],
                       [(200, 136, 96), (256, 128, 192)]),
    "gemm_ws": (case_gemm_ws, [(4096, 4096, 4096), (8192, 8192, 8192)],
                [(200, 136, 96)]),
    "gemm_tn": (case_gemm_tn, [(4096, 4096, 4096)], [(200, 136, 96), (128, 256, 64)]),
    "gemm_nt": (case_gemm_nt, [(4096, 4096, 4096)], [(200, 136, 96), (128, 256, 64)]),
    "decode": (case_decode, [(m, n, k) for m in (1, 4, 16, 64)
                             for n, k in ((4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096))],
               [(1, 136, 384), (5, 100, 300), (64, 96, 256)]),
    "decode_w8a16": (lambda X, M, N, K: case_w8a16(X, M, N, K, cfg=DECODE_TILES),
                     [(m, 4096, 4096) for m in (1, 16, 64)] + [(16, 14336, 4096)],
                     [(1, 136, 384), (5, 100, 256)]),
    "decode_w4a16": (lambda X, M, N, K: case_w4a16(X, M, N, K, cfg=DECODE_TILES),
                     [(m, 4096, 4096) for m in (1, 16, 64)] + [(16, 14336, 4096)],
                     [(1, 136, 384), (5, 100, 256)]),
    "bmm": (case_bmm, [(16, 2048, 2048, 2048)], [(3, 200, 136, 96), (2, 128, 256, 64)]),
    "splitk": (case_splitk, [(512, 512, 16384, 8)], [(200, 136, 2048, 8), (256, 256, 1024, 4)]),
    "w8a16": (case_w8a16, [(4096, 4096, 4096)], [(200, 136, 100), (128, 256, 256)]),
    "w4a16": (case_w4a16, [(4096, 4096, 4096)], [(200, 136, 384), (128, 256, 256)]),
    "w4a16_int4": (case_w4a16_formats("int4", 128), [(4096, 4096, 4096)],
                   [(200, 136, 384), (128, 256, 256)]),
    "w4a16_int4_zp": (case_w4a16_formats("int4_zp", 128), [(4096, 4096, 4096)],
                      [(200, 136, 384), (128, 256, 256)]),
    "w4a16_fp4": (case_w4a16_formats("fp4", 32), [(4096, 4096, 4096)],
                  [(200, 136, 160), (128, 256, 256)]),
    "w4a16_mxfp4": (case_w4a16_formats("mxfp4", 32), [(4096, 4096, 4096)],
                    [(200, 136, 160), (128, 256, 256)]),
    # Mixtral-8x7B's up projection (8 experts, top 2 of 4096 tokens) and a
    # 64-expert layer (top 6 of 4096 tokens, expert width 1408).
    "grouped_gemm": (case_grouped_gemm, [(8, 8192, 14336, 4096), (64, 24576, 1408, 2048)],
                     [(5, 400, 136, 96), (3, 130, 64, 72)]),
}
SHAPE_NAMES = {"bmm": "BxMxNxK", "splitk": "MxNxKxSPLIT", "grouped_gemm": "GxROWSxNxK"}


# --------------------------------------------------------------------------
# The harness.
# --------------------------------------------------------------------------

def first_line(e):
    text = str(e).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(e).__name__}: {line}" if line else type(e).__name__


def run_case(name, fn, shape, X, timing, args):
    shape_text = "x".join(str(s) for s in shape)
    base = dict(kernel=name, shape=shape_text)
    try:
        case = fn(X, *shape)
    except Exception as e:
        log(traceback.format_exc())
        return [dict(base, status="inputs: " + first_line(e))]
    base["config"] = case.config
    t0 = time.perf_counter()
    try:
        kernel = case.build()
    except Exception as e:
        log(traceback.format_exc())
        return [dict(base, status="compile: " + first_line(e))]
    base["compile_s"] = time.perf_counter() - t0
    try:
        out = case.run(kernel)
        if timing:
            X.torch.cuda.synchronize()
    except Exception as e:
        log(traceback.format_exc())
        return [dict(base, status="run: " + first_line(e))]
    try:
        ref = case.ref()
        base["max_error"] = X.check(out, ref)
    except Exception as e:
        return [dict(base, status="wrong: " + first_line(e))]
    base["status"] = "ok"
    del out
    if not timing:
        return [base]

    from tile.profiler import do_bench

    def bench(f):
        return do_bench(f, warmup=args.warmup, rep=args.rep, backend=args.backend)

    tflops = lambda ms: case.flops / (ms * 1e-3) / 1e12  # noqa: E731
    gbs = lambda ms: case.bytes / (ms * 1e-3) / 1e9  # noqa: E731
    try:
        ms = bench(lambda: case.run(kernel))
        base.update(tile_ms=ms, tile_tflops=tflops(ms))
        if case.bytes:
            base["tile_gbs"] = gbs(ms)
    except Exception as e:
        return [dict(base, status="timing: " + first_line(e))]
    rows = []
    for label, f, tol in case.torch:
        row = dict(base, torch=label)
        if f is None:
            rows.append(row)
            continue
        try:
            if tol is not None:  # a counterpart with inputs of its own: check it
                got = f().float()
                err = float((got - ref).abs().max() / ref.abs().max())
                if err > tol:
                    row["torch"] = f"{label}: wrong (max error {err:.2g} of max |ref|)"
                    rows.append(row)
                    continue
            tms = bench(f)
            row.update(torch_ms=tms, torch_tflops=tflops(tms), ratio=tms / base["tile_ms"])
            if case.bytes:
                row["torch_gbs"] = gbs(tms)
        except Exception as e:
            row["torch"] = f"{label}: {first_line(e)}"
        rows.append(row)
    return rows or [base]


def parse_shapes(text):
    out = {}
    for item in filter(None, (text or "").split(",")):
        name, _, dims = item.partition("=")
        if name not in CASES:
            raise SystemExit(f"--shapes: unknown kernel {name!r} (known: {', '.join(CASES)})")
        out[name] = [tuple(int(d) for d in s.split("x")) for s in dims.split("/")]
    return out


def markdown(results):
    r = results
    head = f"Kernels as users write them ({r.get('device', r['target'])}"
    head += f", tile {r['commit']}" if r.get("commit") else ""
    head += f", pass configs {json.dumps(r['pass_configs'])})" if r.get("pass_configs") else ")"
    lines = [head, ""]
    if r["timing"]:
        lines += ["| kernel | shape | check | tile ms | tile TFLOP/s | torch | torch ms | "
                  "torch TFLOP/s | tile/torch |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    else:
        lines += ["| kernel | shape | check | max error | compile s |",
                  "| --- | --- | --- | --- | --- |"]
    fmt = lambda v, f: "" if v is None else format(v, f)  # noqa: E731

    def rate(row, who):  # TFLOP/s, and GB/s for memory-bound kernels
        text = fmt(row.get(f"{who}_tflops"), ".1f")
        gbs = row.get(f"{who}_gbs")
        return text + (f" ({gbs:.0f} GB/s)" if gbs else "")

    for row in r["rows"]:
        status = row["status"].replace("|", "\\|")
        if r["timing"]:
            ratio = row.get("ratio")
            lines.append(
                f"| {row['kernel']} | {row['shape']} | {status} | {fmt(row.get('tile_ms'), '.3f')} "
                f"| {rate(row, 'tile')} | {row.get('torch', '')} "
                f"| {fmt(row.get('torch_ms'), '.3f')} | {rate(row, 'torch')} "
                f"| {fmt(ratio, '.2f')} |")
        else:
            lines.append(f"| {row['kernel']} | {row['shape']} | {status} "
                         f"| {fmt(row.get('max_error'), '.3g')} "
                         f"| {fmt(row.get('compile_s'), '.2f')} |")
    if r["timing"]:
        lines += ["", "TFLOP/s: 2 M N K (times the batch) per call; GB/s (decoding GEMMs): "
                  "the bytes of A, B and C once each over the time. tile/torch: torch's "
                  "time over tile's (above 1: tile is faster). Timed with "
                  f"tile.profiler.do_bench (backend {r['backend']}, L2 flushed)."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="bench-user-kernels-out")
    parser.add_argument("--target", default="auto", help="auto, cuda or cpu")
    parser.add_argument("--only", default="", help=f"comma-separated subset of {','.join(CASES)}")
    parser.add_argument("--shapes", default="",
                        help="NAME=DIMSxDIMS[/...],...: shapes instead of the defaults "
                             "(MxNxK; bmm BxMxNxK; splitk MxNxKxSPLIT)")
    parser.add_argument("--warmup", type=float, default=25, help="do_bench warm-up, ms")
    parser.add_argument("--rep", type=float, default=100, help="do_bench budget, ms")
    parser.add_argument("--backend", default="event", help="do_bench backend")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--commit", default="")
    parser.add_argument("--pass-configs", default="",
                        help='JSON pass configs every kernel compiles with, e.g. '
                             '\'{"raster_blocks": false}\' (a policy off, to compare)')
    args = parser.parse_args()

    target = tile.resolve_target(None if args.target == "auto" else args.target)
    names = [n for n in args.only.split(",") if n] or list(CASES)
    for n in names:
        if n not in CASES:
            raise SystemExit(f"--only: unknown kernel {n!r} (known: {', '.join(CASES)})")
    shapes = parse_shapes(args.shapes)
    timing = target == "cuda"
    results = dict(target=target, timing=timing, backend=args.backend, commit=args.commit,
                   rows=[])
    if args.pass_configs:
        configs = json.loads(args.pass_configs)
        for kernel in (gemm, gemm_bias_relu, gemm_tn, gemm_nt, bmm, splitk, w8a16, w4a16,
                       grouped_gemm):
            kernel.pass_configs = {**(kernel.pass_configs or {}), **configs}
        results["pass_configs"] = configs
    if timing:
        import torch
        X = TorchArrays(args.seed)
        results["device"] = torch.cuda.get_device_name()
        results["torch"] = torch.__version__
    elif target == "cpu":
        X = NumpyArrays(args.seed)
    else:
        raise SystemExit(f"target {target}: this bench runs on cuda (timed) or cpu (checks)")
    os.environ["TILE_TARGET"] = target  # the kernels name no target, as users' don't
    for name in names:
        fn, gpu_shapes, cpu_shapes = CASES[name]
        for shape in shapes.get(name, gpu_shapes if timing else cpu_shapes):
            log(f"{name} {'x'.join(map(str, shape))} ...")
            rows = run_case(name, fn, shape, X, timing, args)
            for row in rows:
                log("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                     for k, v in row.items() if k not in ("kernel", "shape")))
            results["rows"] += rows
            if timing:
                X.torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    text = markdown(results)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    print(text)
    failed = [r for r in results["rows"] if r["status"] != "ok"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
