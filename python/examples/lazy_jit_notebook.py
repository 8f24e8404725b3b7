"""The kernels of TileLang's lazy-JIT notebook, ported by changing the
imports (``import tilelang`` -> ``import tile``, ``tilelang.lazy_jit`` ->
``tile.jit``): GEMM with annotated tensors, GEMM with a dynamic K, the
strided copy, GEMM over T.ptr with run-time sizes, the element-wise kernel
taking a macro, and macro recursion with T.Ref.

    python3 python/examples/lazy_jit_notebook.py     # torch tensors on CUDA when
                                                     # a GPU is there, NumPy else
"""

from typing import Any

import numpy as np

import tile
import tile.language as T


@tile.jit
def gemm(A: T.Tensor[[int, int], T.float16], B: T.Tensor[[int, int], T.float16],
         out_dtype: T.dtype = T.float32, block_M: int = 128, block_N: int = 128,
         block_K: int = 32):
    M, K = A.shape
    K, N = B.shape
    C = T.empty((M, N), out_dtype)
    with T.Kernel(T.ceildiv(M, block_M), T.ceildiv(N, block_N), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), A.dtype)
        B_shared = T.alloc_shared((block_K, block_N), B.dtype)
        C_local = T.alloc_fragment((block_M, block_N), out_dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[bx * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, by * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[bx * block_M, by * block_N])
    return C


@T.macro
def gemm_impl(A, B, C, M, N, K, block_M, block_N, block_K):
    with T.Kernel(T.ceildiv(M, block_M), T.ceildiv(N, block_N), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), A.dtype)
        B_shared = T.alloc_shared((block_K, block_N), B.dtype)
        C_local = T.alloc_fragment((block_M, block_N), C.dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[bx * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, by * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[bx * block_M, by * block_N])


@tile.jit
def gemm_dyn_K(A: T.Tensor[[int, T.dyn["K"]], T.float16],  # noqa: F821
               B: T.Tensor[[T.dyn["K"], int], T.float16]):  # noqa: F821
    M, K = A.shape
    K, N = B.shape
    C = T.empty((M, N), T.float32)
    gemm_impl(A, B, C, M, N, K, 128, 128, 32)
    return C


@tile.jit
def as_contiguous(A: T.StridedTensor[[T.dyn, T.dyn], [T.dyn, T.dyn], Any]):
    M, N = A.shape
    B = T.empty((M, N), A.dtype)
    block_M = 128
    block_N = 128
    with T.Kernel(T.ceildiv(M, block_M), T.ceildiv(N, block_N), threads=128) as (bx, by):
        T.copy(A[bx * block_M:(bx + 1) * block_M, by * block_N:(by + 1) * block_N],
               B[bx * block_M:(bx + 1) * block_M, by * block_N:(by + 1) * block_N])
    return B


@tile.jit
def gemm_ptr_dyn(A: T.ptr, B: T.ptr, M: T.int32, N: T.int32, K: T.int32):
    A = T.match_buffer(A, (M, K), T.float16, strides=(K, 1))
    B = T.match_buffer(B, (K, N), T.float16, strides=(N, 1))
    C = T.empty((M, N), T.float32)
    gemm_impl(A, B, C, M, N, K, block_M=128, block_N=128, block_K=32)
    return C


@tile.jit
def element_wise(A: T.Tensor[[T.dyn], Any], fn):
    (N,) = A.shape
    B = T.empty((N,), dtype=A.dtype)
    block_N = 128
    with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
        for i in T.Parallel(block_N):
            idx = bx * block_N + i
            B[idx] = fn(A[idx])
    return B


@T.macro
def add_one(x):
    return x + 1


@T.macro
def n31(x, var: T.Ref):
    if x == 1:
        pass
    elif x % 2 == 0:
        var = var // 2
        n31(x // 2, var)
    else:
        var = var * 3 + 1
        n31(x * 3 + 1, var)


@tile.jit
def collatz(A: T.Tensor[[1], T.int32], n: int):
    with T.Kernel(1) as _:
        n31(n, A[0])


def main():
    cuda = tile.resolve_target() == "cuda"
    rng = np.random.default_rng(0)

    def dev(x):
        if not cuda:
            return x
        import torch
        return torch.from_numpy(np.ascontiguousarray(x)).cuda()

    def host(x):
        return x if isinstance(x, np.ndarray) else x.cpu().numpy()

    a = rng.standard_normal((1024, 512)).astype(np.float16)
    b = rng.standard_normal((512, 256)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    for name, c in [("gemm", gemm(dev(a), dev(b))),
                    ("gemm (64x64 tiles)", gemm(dev(a), dev(b), block_M=64, block_N=64)),
                    ("gemm_dyn_K", gemm_dyn_K(dev(a), dev(b))),
                    ("gemm_ptr_dyn", gemm_ptr_dyn(dev(a), dev(b), 1024, 256, 512))]:
        print(f"{name}: max error {np.abs(host(c) - ref).max():.2e}")
    x = rng.standard_normal((1024, 1024)).astype(np.float32)
    y = as_contiguous(dev(x)[::2, ::2])
    print(f"as_contiguous: equal {np.array_equal(host(y), x[::2, ::2])}")
    v = rng.standard_normal(1024).astype(np.float32)
    print(f"element_wise: max error {np.abs(host(element_wise(dev(v), add_one)) - v - 1).max():.2e}")
    n = dev(np.array([100], np.int32))
    collatz(n, 5)
    print(f"collatz: {host(n)[0]} (expected 18)")


if __name__ == "__main__":
    main()
