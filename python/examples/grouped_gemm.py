"""Grouped GEMM (a mixture-of-experts layer's expert GEMMs) in one launch:
C[rows of group g] = A[rows of group g] x B[g], for groups of any sizes.

The rows of A are sorted by group (expert). The host lists the kernel's
M tiles once (`tile_plan`): tile t covers rows tile_row[t] ... up to
tile_row[t] + block_M of group tile_group[t], never past the group's end;
each group's tiles start at its first row, so a group of 200 rows at
block_M = 128 takes two tiles (128 and 72 rows). The kernel reads the plan
on the device (a block's group and rows are table reads, and its copies of
B[g] are pipelined as any other: the tables are never written), multiplies
a whole block_M-row tile of A (rows past the group's end belong to the next
group or lie past A: the products are not stored) and stores the group's
rows only. Empty groups take no tile.

    python3 python/examples/grouped_gemm.py     # CPU (or TILE_TARGET=cuda)
"""

import tile
import tile.language as T


def tile_plan(group_sizes, block_M):
    """The M tiles of groups of `group_sizes` rows (rows sorted by group):
    (tile_group, tile_row, tile_end) as lists of ints, one entry per tile:
    its group, its first row, and the end of its group's rows."""
    tile_group, tile_row, tile_end = [], [], []
    start = 0
    for g, size in enumerate(group_sizes):
        end = start + int(size)
        for row in range(start, end, block_M):
            tile_group.append(g)
            tile_row.append(row)
            tile_end.append(end)
        start = end
    return tile_group, tile_row, tile_end


@tile.jit(out_idx=[-1])
def grouped_gemm(N, K, block_M=128, block_N=128, block_K=64, num_stages=3, threads=256,
                 dtype=T.float16, accum_dtype=T.float32):
    rows, groups, tiles = T.dynamic("rows, groups, tiles")

    @T.prim_func
    def kernel(A: T.Tensor((rows, K), dtype), B: T.Tensor((groups, K, N), dtype),
               tile_group: T.Tensor((tiles,), T.int32), tile_row: T.Tensor((tiles,), T.int32),
               tile_end: T.Tensor((tiles,), T.int32), C: T.Tensor((rows, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), tiles, threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            g = tile_group[by]
            row = tile_row[by]
            valid = tile_end[by] - row
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[row, k * block_K], A_shared)
                T.copy(B[g, k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                if i < valid:
                    C[row + i, bx * block_N + j] = C_local[i, j]

    return kernel


def reference(a, b, group_sizes):
    """NumPy: each group's rows of A times its B, in float32."""
    import numpy as np
    out = np.zeros((a.shape[0], b.shape[2]), np.float32)
    start = 0
    for g, size in enumerate(group_sizes):
        out[start:start + size] = a[start:start + size].astype(np.float32) @ b[g].astype(np.float32)
        start += size
    return out


if __name__ == "__main__":
    import numpy as np
    sizes, N, K = [200, 0, 64, 333, 1], 260, 200
    rng = np.random.default_rng(0)
    a = rng.standard_normal((sum(sizes), K)).astype(np.float16)
    b = rng.standard_normal((len(sizes), K, N)).astype(np.float16)
    plan = [np.array(t, np.int32) for t in tile_plan(sizes, 128)]
    kernel = grouped_gemm(N, K)
    args = (a, b, *plan)
    if kernel.target == "cuda":
        import torch
        args = tuple(torch.from_numpy(x).cuda() for x in args)
    c = kernel(*args)
    c = c if isinstance(c, np.ndarray) else c.cpu().numpy()
    err = np.abs(c.astype(np.float32) - reference(a, b, sizes)).max()
    print(f"grouped gemm, groups of {sizes} rows, N {N}, K {K}, on {kernel.target}: "
          f"max error {err:.2e}")
