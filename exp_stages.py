# Temporary experiment (not committed): pipeline depth of user kernels.
import sys, torch
sys.path.insert(0, "bench")
import user_kernels as uk
from tile.profiler import do_bench
M = N = K = 4096
A = torch.randn(M, K, dtype=torch.float16, device="cuda")
B8 = torch.randint(-128, 128, (N, K), dtype=torch.int8, device="cuda")
S = torch.rand(N, dtype=torch.float16, device="cuda") * 0.02
B4 = torch.randint(-128, 128, (N, K // 2), dtype=torch.int8, device="cuda")
S4 = torch.rand(N, K // 128, dtype=torch.float16, device="cuda") * 0.2
Bg = torch.randn(K, N, dtype=torch.float16, device="cuda")
def t(f):
    return do_bench(f, warmup=50, rep=200)
fl = 2 * M * N * K
for stages in (2, 3, 4, 5):
    for bk in (32, 64):
        try:
            k = uk.w8a16(M, N, K, block_K=bk, num_stages=stages)
            ms = t(lambda: k(A, B8, S)); print(f"w8a16 bk{bk} st{stages} threads128 {fl/ms/1e9:.1f}", flush=True)
        except Exception as e:
            print("w8a16", bk, stages, "ERR", str(e).splitlines()[0][:150])
        try:
            k = uk.w4a16(M, N, K, block_K=bk, num_stages=stages)
            ms = t(lambda: k(A, B4, S4)); print(f"w4a16 bk{bk} st{stages} {fl/ms/1e9:.1f}", flush=True)
        except Exception as e:
            print("w4a16", bk, stages, "ERR", str(e).splitlines()[0][:150])
for stages in (3, 4, 5):
    for th in (128, 256):
        try:
            k = uk.gemm(M, N, K, threads=th, num_stages=stages)
            ms = t(lambda: k(A, Bg)); print(f"gemm 128x128x64 th{th} st{stages} {fl/ms/1e9:.1f}", flush=True)
        except Exception as e:
            print("gemm", th, stages, "ERR", str(e).splitlines()[0][:150])
for bn in (256,):
    k = uk.gemm(M, N, K, block_N=bn, threads=256, num_stages=3)
    ms = t(lambda: k(A, Bg)); print(f"gemm 128x256x64 th256 st3 {fl/ms/1e9:.1f}", flush=True)
ms = t(lambda: A @ Bg); print(f"torch {fl/ms/1e9:.1f}")
