"""TileLang's GEMM tutorial in tile.language: C = A x B with float16 inputs
and a float32 accumulator, 128x128 tiles, a 3-stage pipeline.

    python3 python/examples/gemm.py        # CPU (or TILE_TARGET=cuda)
"""

import tile
import tile.language as T


@tile.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=3,
           dtype=T.float16, accum_dtype=T.float32):
    @T.prim_func
    def kernel(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
               C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.use_swizzle(10)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return kernel


if __name__ == "__main__":
    import numpy as np
    M, N, K = 300, 260, 200
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    kernel = matmul(M, N, K)
    args = (a, b)
    if kernel.target == "cuda":
        import torch
        args = tuple(torch.from_numpy(x).cuda() for x in args)
    c = kernel(*args)
    c = c if isinstance(c, np.ndarray) else c.cpu().numpy()
    err = np.abs(c - a.astype(np.float32) @ b.astype(np.float32)).max()
    print(f"gemm {M}x{N}x{K} on {kernel.target} ({kernel.cache}): max error {err:.2e}")
    print(f"latency: {kernel.get_profiler().do_bench(warmup=5, rep=20):.3f} ms")
