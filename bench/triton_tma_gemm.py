"""The Hopper-style Triton anchor of bench/run.py: a persistent GEMM whose
tiles move through TMA tensor descriptors (host-side TensorDescriptor,
loads and the C store), the K loop optionally warp-specialized
(`tl.range(..., warp_specialize=True)`), fp32 accumulation. Configurations
the installed Triton cannot compile (warp specialization on Hopper needs a
recent Triton) are skipped by the caller."""

import torch
import triton
import triton.language as tl

# (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages, warp_specialize)
CONFIGS = [
    (128, 256, 64, 8, 8, 3, False),
    (128, 256, 64, 8, 8, 3, True),
    (128, 128, 64, 8, 4, 4, False),
    (128, 128, 64, 8, 4, 4, True),
    (256, 128, 64, 8, 8, 3, False),
]


@triton.jit
def _tma_gemm_kernel(a_desc, b_desc, c_desc, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                     NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tiles = grid_m * grid_n
    # One program per SM walks the tiles, GROUP_M rows of tiles at a time
    # (they share B's tiles in L2).
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS):
        group = tile // (GROUP_M * grid_n)
        first_m = group * GROUP_M
        size_m = min(grid_m - first_m, GROUP_M)
        pid_m = first_m + (tile % (GROUP_M * grid_n)) % size_m
        pid_n = (tile % (GROUP_M * grid_n)) // size_m
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(k_tiles, warp_specialize=WARP_SPECIALIZE):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N],
                     acc.to(c_desc.dtype))


def matmul(a, b, config):
    from triton.tools.tensor_descriptor import TensorDescriptor
    bm, bn, bk, group, warps, stages, ws = config
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [bk, bn])
    c_desc = TensorDescriptor.from_tensor(c, [bm, bn])
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    _tma_gemm_kernel[(min(sms, tiles),)](
        a_desc, b_desc, c_desc, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=group, NUM_SMS=sms, WARP_SPECIALIZE=ws, num_warps=warps,
        num_stages=stages)
    return c
