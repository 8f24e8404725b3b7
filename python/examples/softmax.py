"""Row softmax in tile.language (examples/softmax.mlir's algorithm): each
block takes `block_M` whole rows; columns past N read -inf (the copy's pad),
so they add nothing to the row sums.

    python3 python/examples/softmax.py
"""

import tile
import tile.language as T


@tile.jit(out_idx=[1])
def softmax(N, block_M=4, dtype=T.float32):
    M = T.dyn["M"]  # noqa: F821
    block_N = 1 << (N - 1).bit_length()  # the row, rounded up to a power of two

    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(X.shape[0], block_M), threads=128) as bx:
            s = T.alloc_fragment((block_M, block_N), T.float32)
            row_max = T.alloc_fragment((block_M,), T.float32)
            row_sum = T.alloc_fragment((block_M,), T.float32)
            T.copy(X[bx * block_M, 0], s, pad=float("-inf"))
            T.reduce_max(s, row_max, dim=1)
            for i, j in T.Parallel(block_M, block_N):
                s[i, j] = T.exp(s[i, j] - row_max[i])
            T.reduce_sum(s, row_sum, dim=1)
            for i, j in T.Parallel(block_M, block_N):
                s[i, j] = s[i, j] / row_sum[i]
            T.copy(s, Y[bx * block_M, 0])

    return kernel


if __name__ == "__main__":
    import numpy as np
    x = np.random.default_rng(0).standard_normal((37, 1000)).astype(np.float32)
    kernel = softmax(1000)
    args = (x,)
    if kernel.target == "cuda":
        import torch
        args = (torch.from_numpy(x).cuda(),)
    y = kernel(*args)
    y = y if isinstance(y, np.ndarray) else y.cpu().numpy()
    e = np.exp(x - x.max(1, keepdims=True))
    print(f"softmax on {kernel.target}: max error "
          f"{np.abs(y - e / e.sum(1, keepdims=True)).max():.2e}")
