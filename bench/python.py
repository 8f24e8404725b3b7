#!/usr/bin/env python3
"""Figures of the Python frontend, on the GPU machine (docs/python.md):

1. host time of one JITKernel call with torch tensors on a one-element
   kernel, against a one-element Triton kernel and torch's eager add;
2. par_compile of 16 GEMM configurations against 16 serial compiles (cold
   caches both times);
3. a @tile.jit call in a fresh process with a cold disk cache against a
   warm one (import, trace, compile or load, first run).

    sh .bundle/python/unpack.sh /tmp/tilepy
    PYTHONPATH=/tmp/tilepy python3 bench/python.py --out $OUT/bench-python

Writes results.json and results.md into --out. Works on the CPU too
(--target cpu), without the Triton and torch anchors.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def host_time_per_call(fn, sync, calls):
    for _ in range(100):
        fn()
    sync()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        sync()
        best = min(best, elapsed / calls)
    return best * 1e6


def launch_overhead(target, calls):
    import tile
    import tile.language as T

    @tile.jit(target=target)
    def one(A: T.Tensor[[1], T.float32], B: T.Tensor[[1], T.float32]):
        with T.Kernel(1, threads=32) as _:
            for i in T.Parallel(1):
                B[i] = A[i] + 1.0

    rows = []
    if target == "cpu":
        import numpy as np
        a, b = np.zeros(1, np.float32), np.zeros(1, np.float32)
        kernel = one.compile(a, b)
        rows.append(("tile JITKernel (NumPy, cpu)",
                     host_time_per_call(lambda: kernel(a, b), lambda: None, calls)))
        return rows
    import torch
    a = torch.zeros(1, device="cuda")
    b = torch.zeros(1, device="cuda")
    kernel = one.compile(a, b)
    sync = torch.cuda.synchronize
    rows.append(("tile JITKernel", host_time_per_call(lambda: kernel(a, b), sync, calls)))
    rows.append(("torch eager add", host_time_per_call(lambda: torch.add(a, 1.0, out=b),
                                                       sync, calls)))
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def add_one(a_ptr, b_ptr):
            tl.store(b_ptr, tl.load(a_ptr) + 1.0)

        rows.append(("Triton", host_time_per_call(lambda: add_one[(1,)](a, b), sync, calls)))
    except ImportError:
        log("triton not found: no Triton anchor")
    return rows


def gemm_configs():
    out = []
    for bm in (64, 128):
        for bn in (64, 128):
            for bk in (32, 64):
                for stages in (2, 3):
                    out.append(dict(block_M=bm, block_N=bn, block_K=bk, num_stages=stages))
    return out


def parallel_compile(target, workers):
    import tile
    sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
    import gemm as mod  # TileLang's GEMM tutorial
    jit_module = sys.modules["tile.jit"]
    results = {}
    for mode in ("serial", "parallel"):
        os.environ["TILE_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"tile-bench-{mode}-")
        tile.env._compilers.clear()
        jit_module._memo.clear()
        funcs = [mod.matmul.get_ir(4096, 4096, 4096, **c) for c in gemm_configs()]
        # Only the compiles are timed; the configurations differ.
        start = time.perf_counter()
        if mode == "serial":
            kernels = [tile.compile(f, out_idx=[-1], target=target) for f in funcs]
        else:
            kernels = tile.par_compile(funcs, out_idx=[-1], target=target,
                                       num_workers=workers)
        results[mode] = time.perf_counter() - start
        assert all(k is not None and k.cache == "compiled" for k in kernels)
        log(f"{mode}: {len(funcs)} GEMM compiles in {results[mode]:.2f} s")
    return results


FRESH = '''
import sys, time
t0 = time.perf_counter()
import tile
import tile.language as T
t1 = time.perf_counter()
target = sys.argv[1]

@tile.jit(target=target)
def gemm(A: T.Tensor[[int, int], T.float16], B: T.Tensor[[int, int], T.float16]):
    M, K = A.shape
    K, N = B.shape
    C = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
        A_shared = T.alloc_shared((128, 32), T.float16)
        B_shared = T.alloc_shared((32, 128), T.float16)
        C_local = T.alloc_fragment((128, 128), T.float32)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
            T.copy(A[by * 128, k * 32], A_shared)
            T.copy(B[k * 32, bx * 128], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * 128, bx * 128])
    return C

if target == "cpu":
    import numpy as np
    A = np.zeros((256, 256), np.float16); B = np.zeros((256, 256), np.float16)
    sync = lambda: None
else:
    import torch
    A = torch.zeros((1024, 1024), dtype=torch.float16, device="cuda")
    B = torch.zeros((1024, 1024), dtype=torch.float16, device="cuda")
    torch.cuda.synchronize()
    sync = torch.cuda.synchronize
t2 = time.perf_counter()
C = gemm(A, B)
sync()
t3 = time.perf_counter()
print(f"{t1 - t0} {t3 - t2} {gemm.compile(A, B).cache}")
'''


def fresh_process(target):
    cache = tempfile.mkdtemp(prefix="tile-bench-fresh-")
    script = os.path.join(cache, "fresh.py")
    with open(script, "w") as f:
        f.write(FRESH)
    env = dict(os.environ, TILE_CACHE_DIR=os.path.join(cache, "cache"))
    out = {}
    for run in ("cold", "warm"):
        start = time.perf_counter()
        text = subprocess.check_output([sys.executable, script, target], env=env,
                                       text=True)
        total = time.perf_counter() - start
        imp, call, cache_result = text.split(maxsplit=2)
        cache_result = cache_result.strip()
        out[run] = dict(process=total, import_s=float(imp), first_call=float(call),
                        cache=cache_result)
        log(f"{run} disk cache: first call {float(call) * 1e3:.1f} ms ({cache_result}), "
            f"process {total:.2f} s")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="bench-python-out")
    parser.add_argument("--target", default="auto")
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=16)
    args = parser.parse_args()
    import tile
    target = tile.resolve_target(None if args.target == "auto" else args.target)
    os.makedirs(args.out, exist_ok=True)
    results = {"target": target}
    if target == "cuda":
        import torch
        results["device"] = torch.cuda.get_device_name()
    results["launch_us"] = launch_overhead(target, args.calls)
    for name, us in results["launch_us"]:
        log(f"host time per call, {name}: {us:.2f} us")
    results["compile_s"] = parallel_compile(target, args.workers)
    results["fresh_process"] = fresh_process(target)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    lines = [f"Python frontend figures ({results.get('device', target)})", "",
             "| figure | value |", "| --- | --- |"]
    for name, us in results["launch_us"]:
        lines.append(f"| host time of one call, {name} (1-element kernel) | {us:.2f} us |")
    c = results["compile_s"]
    lines.append(f"| 16 GEMM compiles, serial | {c['serial']:.2f} s |")
    lines.append(f"| 16 GEMM compiles, par_compile | {c['parallel']:.2f} s "
                 f"({c['serial'] / c['parallel']:.1f}x) |")
    for run in ("cold", "warm"):
        r = results["fresh_process"][run]
        lines.append(f"| fresh process, {run} disk cache: first @tile.jit call | "
                     f"{r['first_call'] * 1e3:.1f} ms ({r['cache']}; import "
                     f"{r['import_s'] * 1e3:.0f} ms) |")
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
