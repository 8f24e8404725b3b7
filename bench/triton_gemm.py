"""The Triton anchors bench/run.py compares with: a tiled GEMM (the
standard blocked kernel, no TMA, fp32 accumulation) with a few
configurations, and a one-element add for launch overhead."""

import torch
import triton
import triton.language as tl

# (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages)
CONFIGS = [
    (128, 128, 32, 8, 4, 4),
    (128, 256, 64, 8, 8, 3),
    (256, 128, 64, 8, 8, 3),
    (128, 128, 64, 8, 4, 4),
]


@triton.jit
def _gemm_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # Blocks in groups of GROUP_M rows share B tiles in L2.
    group = pid // (GROUP_M * grid_n)
    first_m = group * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * grid_n)) % size_m
    pid_n = (pid % (GROUP_M * grid_n)) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    pa = a + rm[:, None] * sam + rk[None, :] * sak
    pb = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        x = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0.0)
        y = tl.load(pb, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
        pa += BLOCK_K * sak
        pb += BLOCK_K * sbk
    pc = c + rm[:, None] * scm + rn[None, :] * scn
    tl.store(pc, acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, config):
    bm, bn, bk, group, warps, stages = config
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _gemm_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1),
                       b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                       BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group,
                       num_warps=warps, num_stages=stages)
    return c


@triton.jit
def _add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + i, tl.load(x + i, mask=i < n) + tl.load(y + i, mask=i < n),
             mask=i < n)


def add(x, y, out):
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
    return out
