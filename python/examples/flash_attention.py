"""FlashAttention forward (FlashAttention-2's online softmax) in
tile.language, the Python side of examples/flash_attention.mlir:
O = softmax(Q K^T / sqrt(d)) V over [batch * heads, seq, d] float16 tensors
with a dynamic batch * heads and sequence length.

    python3 python/examples/flash_attention.py            # CPU, checked with NumPy
    TILE_TARGET=cuda python3 python/examples/flash_attention.py
"""

import math

import tile
import tile.language as T


# As TileLang's attention examples: exp2 may be approximated (on NVIDIA one
# ex2.approx.ftz per score instead of a range-checked exp2).
@tile.jit(out_idx=[3], pass_configs={"tl.enable_fast_math": True})
def flash_attention(dim, causal=False, block_M=64, block_N=None, num_stages=2):
    block_N = block_N or (64 if dim <= 64 else 32)
    BH, S = T.dyn["BH"], T.dyn["S"]  # noqa: F821
    scale = math.log2(math.e) / math.sqrt(dim)  # exponentials are exp2
    shape = (BH, S, dim)

    @T.prim_func
    def kernel(Q: T.Tensor(shape, T.float16), K: T.Tensor(shape, T.float16),
               V: T.Tensor(shape, T.float16), O: T.Tensor(shape, T.float16)):
        seq = Q.shape[1]
        with T.Kernel(T.ceildiv(seq, block_M), Q.shape[0], threads=128) as (bx, b):
            Q_shared = T.alloc_shared((block_M, dim), T.float16)
            K_shared = T.alloc_shared((block_N, dim), T.float16)
            V_shared = T.alloc_shared((block_N, dim), T.float16)
            scores = T.alloc_fragment((block_M, block_N), T.float32)
            P = T.alloc_fragment((block_M, block_N), T.float16)
            acc = T.alloc_fragment((block_M, dim), T.float32)
            m = T.alloc_fragment((block_M,), T.float32)
            m_prev = T.alloc_fragment((block_M,), T.float32)
            l = T.alloc_fragment((block_M,), T.float32)  # noqa: E741
            row_sum = T.alloc_fragment((block_M,), T.float32)
            alpha = T.alloc_fragment((block_M,), T.float32)

            T.copy(Q[b, bx * block_M:(bx + 1) * block_M, :], Q_shared)
            T.clear(acc)
            T.clear(l)
            T.fill(m, -T.infinity(T.float32))
            steps = T.ceildiv(seq, block_N)
            if causal:
                steps = T.min(steps, T.ceildiv((bx + 1) * block_M, block_N))
            for k in T.Pipelined(steps, num_stages=num_stages):
                T.copy(K[b, k * block_N:(k + 1) * block_N, :], K_shared)
                T.copy(V[b, k * block_N:(k + 1) * block_N, :], V_shared)
                # Scores start at -inf where the key is masked, 0 elsewhere.
                for i, j in T.Parallel(block_M, block_N):
                    key = k * block_N + j
                    masked = key >= seq
                    if causal:
                        masked = masked | (key > bx * block_M + i)
                    scores[i, j] = T.if_then_else(masked, -T.infinity(T.float32), 0.0)
                T.gemm(Q_shared, K_shared, scores, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.reduce_max(scores, m, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    alpha[i] = T.exp2((m_prev[i] - m[i]) * scale)
                for i, j in T.Parallel(block_M, block_N):
                    # One fma per score (as TileLang's example writes it).
                    scores[i, j] = T.exp2(scores[i, j] * scale - m[i] * scale)
                T.reduce_sum(scores, row_sum, dim=1)
                for i in T.Parallel(block_M):
                    l[i] = l[i] * alpha[i] + row_sum[i]
                T.copy(scores, P)
                for i, j in T.Parallel(block_M, dim):
                    acc[i, j] = acc[i, j] * alpha[i]
                T.gemm(P, V_shared, acc, policy=T.GemmWarpPolicy.FullRow)
            # 1 / l once per row, then a multiply per element (cheaper on the
            # GPU than a division per element).
            for i in T.Parallel(block_M):
                l[i] = 1.0 / l[i]
            for i, j in T.Parallel(block_M, dim):
                acc[i, j] = acc[i, j] * l[i]
            T.copy(acc, O[b, bx * block_M:(bx + 1) * block_M, :])

    return kernel


def reference(q, k, v, causal=False):
    import numpy as np
    q, k, v = (x.astype(np.float32) for x in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.arange(n)[None, :] > np.arange(n)[:, None], -np.inf, s)
    s = np.exp(s - s.max(-1, keepdims=True))
    return (s / s.sum(-1, keepdims=True)) @ v


if __name__ == "__main__":
    import numpy as np
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 100, 64)).astype(np.float16) for _ in range(3))
    target = tile.resolve_target()
    for causal in (False, True):
        kernel = flash_attention(64, causal)
        args = (q, k, v)
        if target == "cuda":
            import torch
            args = tuple(torch.from_numpy(x).cuda() for x in args)
        out = kernel(*args)
        out = out if isinstance(out, np.ndarray) else out.cpu().numpy()
        err = np.abs(out.astype(np.float32) - reference(q, k, v, causal)).max()
        print(f"flash attention (causal={causal}) on {target}: max error {err:.2e}")
        assert err < 2e-2
