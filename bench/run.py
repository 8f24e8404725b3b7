#!/usr/bin/env python3
"""tile's benchmark suite: our kernels against cuBLAS (torch) and Triton on
the same GPU in the same run.

Run on the GPU machine with the device bundle (docs/performance.md):

    python3 bench/run.py --tile-run /tmp/tile/bin/tile-run --out $OUT/bench

Measures fp16/bf16 GEMM (square sizes and LLM shapes), FlashAttention
forward against torch's SDPA (flash backend), copy and elementwise add
bandwidth, row softmax and row sum, compile latency and launch overhead.
Every kernel is checked against a reference before it is timed; a mismatch
is reported as failed and not timed. Writes results.json, results.md (the
table for docs/performance.md) and results.png into --out.
"""

import argparse
import json
import math
import os
import re
import shutil
import string
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Our GEMM configurations (BM, BN, BK, threads, stages[, persistent]); the
# best per shape is reported, as an autotuner would pick it. Persistent
# kernels keep the epilogue's staging apart from the stages (the producer
# fills them for the next tile meanwhile), so they have fewer stages; on
# sm_90a their stores are TMA stores that run on under the next tile.
GEMM_CONFIGS = [
    (128, 128, 32, 128, 3),
    (128, 256, 32, 256, 3),
    (256, 128, 32, 256, 3),
    (128, 128, 32, 256, 4),
    # 64-wide K steps: one 128-byte swizzle panel per row of A (wgmma).
    (128, 256, 64, 256, 3),
    (128, 128, 64, 128, 4),
    (128, 256, 64, 256, 4),
    (128, 256, 64, 256, 3, 1),
]
# fp8 (e4m3) GEMM configurations: 128-wide K steps are one 128-byte
# swizzle panel per row.
GEMM_FP8_CONFIGS = [
    (128, 256, 128, 256, 3),
    (128, 256, 128, 256, 4),
    (128, 128, 128, 256, 4),
    (128, 256, 64, 256, 4),
]
SQUARE = [1024, 2048, 4096, 8192]
# Attention: (batch * heads, seq) with 128k tokens in all, head dims 64 and
# 128, causal and not.
ATTENTION = [(128, 1024), (64, 2048), (32, 4096), (16, 8192)]
# Query x key block sizes tried besides the example's (64 x 64 for d 64,
# 64 x 32 for d 128), per head dim; 128 threads per 64 query rows.
ATTENTION_BLOCKS = {64: [(128, 64), (128, 128), (128, 192), (192, 128)],
                    128: [(64, 64), (128, 128)]}
LLM = [(4096, 4096, 4096), (4096, 11008, 4096), (4096, 4096, 11008)]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, args):
        import torch
        self.torch = torch
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="tile-bench-")
        self.results = []
        self.device = torch.cuda.get_device_name()

    # ------------------------------------------------------------------
    # Timing helpers
    # ------------------------------------------------------------------
    def time_torch(self, fn, runs=50):
        """Median seconds of `fn` over `runs` CUDA-event-timed calls."""
        torch = self.torch
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        return float(np.median(times))

    def run_tile(self, source, args, check, tol, runs, entry=None,
                 extra=()):
        """Runs tile-run: checks argument `check[0]` against `check[1]`,
        then benchmarks. Returns (ok, median seconds or None, output)."""
        cmd = [self.args.tile_run, source, "--target=cuda", "--no-cache",
               "--check", f"{check[0]}={check[1]}", "--rtol", str(tol[0]),
               "--atol", str(tol[1]), f"--bench={runs}"]
        if entry:
            cmd += ["-e", entry]
        # The lowering's policies to compare (tile-run's --warp-specialize,
        # --tma-store, --tma-multicast).
        for option in (self.args.codegen or "").split(","):
            if option:
                cmd.append(f"--{option}")
        for a in args:
            cmd += ["--arg", a]
        cmd += list(extra)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        out = proc.stdout + proc.stderr
        ok = proc.returncode == 0 and ": ok (" in out
        m = re.search(r"median ([0-9.]+) ms", out)
        seconds = float(m.group(1)) / 1e3 if (ok and m) else None
        return ok, seconds, out

    def save(self, name, array):
        path = os.path.join(self.tmp, name)
        np.save(path, array)
        return path

    def record(self, **entry):
        self.results.append(entry)
        log(json.dumps(entry))

    # ------------------------------------------------------------------
    # GEMM
    # ------------------------------------------------------------------
    def gemm_source(self, dtype, config, kernel="gemm"):
        bm, bn, bk, threads, stages = config[:5]
        persistent = len(config) > 5 and config[5]
        template = string.Template(open(os.path.join(
            ROOT, f"bench/kernels/{kernel}.mlir.in")).read())
        text = template.substitute(
            T=dtype, BM=bm, BN=bn, BK=bk, THREADS=threads, STAGES=stages,
            RASTER="#tile.raster<8, row>",
            ATTRS=" persistent" if persistent else "")
        if self.args.features is not None:
            # The module names its target: tile-run keeps its features.
            names = ", ".join(f'"{n}"' for n in
                              self.args.features.split(",") if n)
            text = (f'module attributes {{tile.target = #tile.target<'
                    f'"{self.args.chip}", features = [{names}]>}} {{\n'
                    f'{text}}}\n')
        path = os.path.join(self.tmp, f"{kernel}_{dtype}_{bm}_{bn}_{bk}_"
                            f"{threads}_{stages}{'_p' if persistent else ''}"
                            ".mlir")
        with open(path, "w") as f:
            f.write(text)
        return path

    def bench_gemm(self, dtype, m, n, k):
        torch = self.torch
        tdtype = torch.float16 if dtype == "f16" else torch.bfloat16
        rng = np.random.default_rng(m * 7 + n * 3 + k)
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        ta = torch.from_numpy(a).to("cuda", tdtype)
        tb = torch.from_numpy(b).to("cuda", tdtype)
        # Inputs as the kernel sees them (exactly representable), and the
        # reference in f32 from them.
        a = ta.float().cpu().numpy()
        b = tb.float().cpu().numpy()
        ref = (ta.float() @ tb.float()).cpu().numpy()
        pa, pb = self.save("a.npy", a), self.save("b.npy", b)
        pref = self.save("ref.npy", ref)
        flops = 2.0 * m * n * k
        tol = (2e-2, 2e-2 * math.sqrt(k))
        runs = 20 if flops > 5e11 else 50

        best = None
        tried = []
        configs = GEMM_CONFIGS
        if self.args.gemm_configs:
            configs = [tuple(int(v) for v in c.split("x"))
                       for c in self.args.gemm_configs.split(",")]
        for config in configs:
            source = self.gemm_source(dtype, config)
            ok, seconds, out = self.run_tile(
                source,
                [f"{dtype}:{m}x{k}=@{pa}", f"{dtype}:{k}x{n}=@{pb}",
                 f"{dtype}:{m}x{n}=zeros"],
                (2, pref), tol, runs)
            if not ok:
                log(f"gemm {dtype} {m}x{n}x{k} config {config}: FAILED\n"
                    + out[-2000:])
                self.record(kind="gemm", dtype=dtype, shape=[m, n, k],
                            config=list(config), status="failed")
                continue
            tried.append([list(config), flops / seconds / 1e12])
            if best is None or seconds < best[0]:
                best = (seconds, config)

        torch_s = self.time_torch(lambda: torch.matmul(ta, tb), runs)
        triton_s, triton_cfg = self.triton_gemm(ta, tb, runs)
        tma_s, tma_cfg = self.triton_gemm(ta, tb, runs, "triton_tma_gemm")
        entry = dict(kind="gemm", dtype=dtype, shape=[m, n, k],
                     cublas_tflops=flops / torch_s / 1e12,
                     config_tflops=tried)
        if triton_s:
            entry["triton_tflops"] = flops / triton_s / 1e12
            entry["triton_config"] = triton_cfg
        if tma_s:
            entry["triton_tma_tflops"] = flops / tma_s / 1e12
            entry["triton_tma_config"] = tma_cfg
        if best:
            entry.update(status="ok", tflops=flops / best[0] / 1e12,
                         config=list(best[1]),
                         vs_cublas=torch_s / best[0])
            if triton_s:
                entry["vs_triton"] = triton_s / best[0]
            if tma_s:
                entry["vs_triton_tma"] = tma_s / best[0]
        else:
            entry["status"] = "failed"
        self.record(**entry)

    def bench_gemm_fp8(self, m, n, k):
        """C (bf16) = scale_a * scale_b * A (e4m3, M x K) x B^T (e4m3,
        N x K), against torch._scaled_mm (cuBLAS's fp8 GEMM)."""
        torch = self.torch
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        ta = torch.randn(m, k, device="cuda", generator=gen).to(
            torch.float8_e4m3fn)
        tb = torch.randn(n, k, device="cuda", generator=gen).to(
            torch.float8_e4m3fn)
        scale_a = torch.tensor(0.5, device="cuda")
        scale_b = torch.tensor(0.25, device="cuda")
        def scaled(fast):
            return lambda: torch._scaled_mm(
                ta, tb.t(), scale_a=scale_a, scale_b=scale_b,
                out_dtype=torch.bfloat16, use_fast_accum=fast)
        # The reference in f32 from the f8 inputs (exact in f32).
        ref = (ta.float() @ tb.float().t()) * 0.125
        pa = self.save("a8.npy", ta.float().cpu().numpy())
        pb = self.save("b8.npy", tb.float().cpu().numpy())
        pref = self.save("ref8.npy", ref.cpu().numpy())
        flops = 2.0 * m * n * k
        # fp8 wgmma adds into the accumulator with reduced precision, and
        # tile accumulates as cuBLAS's fast-accumulation kernel does (no
        # promotion into a second f32 accumulator): its error, doubled, is
        # the tolerance (bf16 output: 1e-2 relative on top).
        errors = {fast: float((scaled(fast)().float() - ref).abs().max())
                  for fast in (False, True)}
        tol = (1e-2, max(1e-2, 2 * errors[True]))
        runs = 20 if flops > 5e11 else 50
        best = None
        configs = GEMM_FP8_CONFIGS
        if self.args.gemm_configs:
            configs = [tuple(int(v) for v in c.split("x"))
                       for c in self.args.gemm_configs.split(",")]
        for config in configs:
            source = self.gemm_source("f8E4M3FN", config, "gemm_fp8")
            ok, seconds, out = self.run_tile(
                source,
                [f"f8E4M3FN:{m}x{k}=@{pa}", f"f8E4M3FN:{n}x{k}=@{pb}",
                 f"bf16:{m}x{n}=zeros", "f32=0.5", "f32=0.25"],
                (2, pref), tol, runs)
            if not ok:
                log(f"gemm fp8 {m}x{n}x{k} config {config}: FAILED\n"
                    + out[-2000:])
                continue
            if best is None or seconds < best[0]:
                best = (seconds, config)
        torch_s = self.time_torch(scaled(False), runs)
        fast_s = self.time_torch(scaled(True), runs)
        entry = dict(kind="gemm_fp8", dtype="e4m3", shape=[m, n, k],
                     scaled_mm_tflops=flops / torch_s / 1e12,
                     scaled_mm_fast_tflops=flops / fast_s / 1e12,
                     scaled_mm_max_error=errors[False],
                     scaled_mm_fast_max_error=errors[True],
                     atol=tol[1], status="failed")
        if best:
            entry.update(status="ok", tflops=flops / best[0] / 1e12,
                         config=list(best[1]),
                         vs_scaled_mm=torch_s / best[0],
                         vs_scaled_mm_fast=fast_s / best[0])
        self.record(**entry)

    def triton_gemm(self, ta, tb, runs, module="triton_gemm"):
        """The best time and configuration of a Triton GEMM module's
        configurations that compile and match torch.matmul."""
        try:
            anchor = __import__(module)
            matmul, CONFIGS = anchor.matmul, anchor.CONFIGS
        except Exception as e:  # Triton missing: report, do not fail
            log(f"{module} unavailable: {e}")
            return None, None
        torch = self.torch
        ref = torch.matmul(ta, tb).float()
        best = (None, None)
        for cfg in CONFIGS:
            try:
                c = matmul(ta, tb, cfg)
            except Exception as e:
                log(f"{module} config {cfg} failed: "
                    f"{str(e).splitlines()[0] if str(e) else type(e).__name__}")
                continue
            err = (c.float() - ref).abs().max().item()
            if not err <= 2e-2 * math.sqrt(ta.shape[1]):
                log(f"triton config {cfg}: mismatch {err}")
                continue
            s = self.time_torch(lambda: matmul(ta, tb, cfg), runs)
            if best[0] is None or s < best[0]:
                best = (s, list(cfg))
        return best

    # ------------------------------------------------------------------
    # Attention
    # ------------------------------------------------------------------
    def bench_attention(self, bh, seq, d, causal):
        torch = self.torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
        gen = torch.Generator(device="cuda").manual_seed(bh * seq + d)
        q, k, v = (torch.randn(1, bh, seq, d, device="cuda",
                               dtype=torch.float16, generator=gen)
                   for _ in range(3))
        sdpa = lambda: F.scaled_dot_product_attention(q, k, v,
                                                      is_causal=causal)
        runs = 20
        # The flash backend (FlashAttention-2 kernels), and torch's default
        # choice (cuDNN's attention on Hopper where available).
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            ref = sdpa()
            torch_s = self.time_torch(sdpa, runs)
        default_s = self.time_torch(sdpa, runs)
        paths = [self.save(f"{n}.npy", t[0].cpu().numpy())
                 for n, t in (("q", q), ("k", k), ("v", v))]
        pref = self.save("ref.npy", ref[0].cpu().numpy())
        flops = 4.0 * bh * seq * seq * d / (2 if causal else 1)
        entry_name = f"flash_attention_d{d}" + ("_causal" if causal else "")
        # The example, and the same kernels at the block sizes of
        # ATTENTION_BLOCKS (bench/kernels/flash_attention.mlir.in); the
        # fastest counts.
        sources = [("example", os.path.join(ROOT,
                                            "examples/flash_attention.mlir"))]
        template = string.Template(open(os.path.join(
            ROOT, "bench/kernels/flash_attention.mlir.in")).read())
        for bm, bn in ATTENTION_BLOCKS[d]:
            path = os.path.join(self.tmp, f"attention_{d}_{bm}_{bn}.mlir")
            with open(path, "w") as f:
                f.write(template.substitute(
                    D=d, SCALE=math.log2(math.e) / math.sqrt(d), BM=bm, BN=bn,
                    THREADS=2 * bm))
            sources.append((f"{bm}x{bn}", path))
        best = None
        for config, source in sources:
            ok, seconds, out = self.run_tile(
                source,
                [f"@{p}" for p in paths] + [f"f16:{bh}x{seq}x{d}=zeros"],
                (3, pref), (2e-2, 2e-2), runs, entry=entry_name)
            if not ok:
                log(f"attention {bh}x{seq}x{d} causal={causal} {config}: "
                    "FAILED\n" + out[-2000:])
            elif best is None or seconds < best[0]:
                best = (seconds, config)
        entry = dict(kind="attention", shape=[bh, seq, d], causal=causal,
                     sdpa_tflops=flops / torch_s / 1e12,
                     sdpa_default_tflops=flops / default_s / 1e12)
        if best:
            seconds = best[0]
            entry.update(status="ok", tflops=flops / seconds / 1e12,
                         vs_sdpa=torch_s / seconds,
                         vs_sdpa_default=default_s / seconds,
                         config=best[1])
        else:
            entry["status"] = "failed"
        self.record(**entry)

    # ------------------------------------------------------------------
    # Memory-bound kernels
    # ------------------------------------------------------------------
    def bench_copy(self, m, n):
        torch = self.torch
        x = np.random.default_rng(1).standard_normal((m, n)).astype(np.float16)
        px = self.save("x.npy", x)
        nbytes = 2 * x.nbytes
        ok, s, out = self.run_tile(
            os.path.join(ROOT, "examples/copy.mlir"),
            [f"@{px}", f"f16:{m}x{n}=zeros"], (1, px), (0, 0), 50)
        tx = torch.from_numpy(x).cuda()
        ty = torch.empty_like(tx)
        torch_s = self.time_torch(lambda: ty.copy_(tx))
        self.memory_entry("copy", [m, n], ok, s, torch_s, nbytes, out)

    def bench_add(self, m, n):
        torch = self.torch
        rng = np.random.default_rng(2)
        a = rng.standard_normal((m, n)).astype(np.float32)
        b = rng.standard_normal((m, n)).astype(np.float32)
        pa, pb = self.save("a.npy", a), self.save("b.npy", b)
        pref = self.save("ref.npy", a + b)
        nbytes = 3 * a.nbytes
        ok, s, out = self.run_tile(
            os.path.join(ROOT, "examples/elementwise_add.mlir"),
            [f"@{pa}", f"@{pb}", f"f32:{m}x{n}=zeros"], (2, pref), (0, 0), 50)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        tc = torch.empty_like(ta)
        torch_s = self.time_torch(lambda: torch.add(ta, tb, out=tc))
        self.memory_entry("add", [m, n], ok, s, torch_s, nbytes, out)

    def bench_softmax(self, m, n):
        torch = self.torch
        x = np.random.default_rng(3).standard_normal((m, n)).astype(np.float32)
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        ref = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        px, pref = self.save("x.npy", x), self.save("ref.npy", ref)
        ok, s, out = self.run_tile(
            os.path.join(ROOT, "examples/softmax.mlir"),
            [f"@{px}", f"f32:{m}x{n}=zeros"], (1, pref), (1e-5, 1e-6), 50)
        tx = torch.from_numpy(x).cuda()
        torch_s = self.time_torch(lambda: torch.softmax(tx, dim=1))
        self.memory_entry("softmax", [m, n], ok, s, torch_s, 2 * x.nbytes, out)

    def bench_rowsum(self, m, n):
        torch = self.torch
        x = np.random.default_rng(4).standard_normal((m, n)).astype(np.float32)
        ref = x.astype(np.float64).sum(axis=1).astype(np.float32)
        px, pref = self.save("x.npy", x), self.save("ref.npy", ref)
        ok, s, out = self.run_tile(
            os.path.join(ROOT, "examples/reduce_sum.mlir"),
            [f"@{px}", f"f32:{m}=zeros"], (1, pref), (1e-4, 1e-3), 50)
        tx = torch.from_numpy(x).cuda()
        torch_s = self.time_torch(lambda: tx.sum(dim=1))
        self.memory_entry("row_sum", [m, n], ok, s, torch_s, x.nbytes, out)

    def memory_entry(self, kind, shape, ok, s, torch_s, nbytes, out):
        entry = dict(kind=kind, shape=shape,
                     torch_gbps=nbytes / torch_s / 1e9)
        if ok:
            entry.update(status="ok", gbps=nbytes / s / 1e9,
                         vs_torch=torch_s / s)
        else:
            entry["status"] = "failed"
            log(f"{kind} {shape}: FAILED\n" + out[-2000:])
        self.record(**entry)

    # ------------------------------------------------------------------
    # Compile latency and launch overhead
    # ------------------------------------------------------------------
    def bench_compile(self):
        cache = os.path.join(self.tmp, "cache")
        source = self.gemm_source("f16", GEMM_CONFIGS[0])
        args = ["--arg", "f16:256x256=randn", "--arg", "f16:256x256=randn",
                "--arg", "f16:256x256=zeros"]

        def stages(extra):
            proc = subprocess.run(
                [self.args.tile_run, source, "--target=cuda", "--timing",
                 "--cache-dir", cache] + args + extra,
                capture_output=True, text=True, check=True)
            times = dict(re.findall(r"time: ([a-zA-Z -]+?) ([0-9.]+) ms",
                                    proc.stdout))
            return {k: float(v) for k, v in times.items()}

        shutil.rmtree(cache, ignore_errors=True)
        cold = stages([])
        warm = stages([])
        skip = ("parse", "first run", "in-process cache hit")
        compile_cold = sum(v for k, v in cold.items() if k not in skip)
        compile_warm = sum(v for k, v in warm.items() if k not in skip)
        entry = dict(kind="compile", cold_ms=compile_cold,
                     disk_hit_ms=compile_warm,
                     memory_hit_ms=warm.get("in-process cache hit"),
                     stages_cold=cold, stages_warm=warm)
        entry.update(self.triton_compile())
        self.record(**entry)

        # Per-launch host overhead of a tiny kernel.
        proc = subprocess.run(
            [self.args.tile_run, os.path.join(ROOT,
                                              "examples/elementwise_add.mlir"),
             "--target=cuda", "--no-cache", "--arg", "f32:1x1=ones",
             "--arg", "f32:1x1=ones", "--arg", "f32:1x1=zeros",
             "--launch-overhead=5000"], capture_output=True, text=True)
        m = re.search(r"launch: ([0-9.]+) us", proc.stdout)
        entry = dict(kind="launch", tile_us=float(m.group(1)) if m else None)
        entry.update(self.triton_launch())
        torch = self.torch
        a = torch.ones(1, device="cuda")
        entry["torch_add_us"] = self.host_overhead(lambda: torch.add(a, a))
        self.record(**entry)

    def host_overhead(self, fn, calls=5000):
        torch = self.torch
        for _ in range(100):
            fn()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        torch.cuda.synchronize()
        return elapsed / calls * 1e6

    def triton_compile(self):
        """Triton's cold compile, disk hit in a fresh process and in-process
        hit, for its GEMM."""
        env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(self.tmp,
                                                             "triton-cache"),
                   PYTHONPATH=os.path.join(ROOT, "bench"))
        script = (
            "import time, torch, triton_gemm as g\n"
            "a = torch.randn(256, 256, device='cuda', dtype=torch.float16)\n"
            "cfg = g.CONFIGS[0]\n"
            "t = time.perf_counter(); g.matmul(a, a, cfg); "
            "torch.cuda.synchronize(); first = time.perf_counter() - t\n"
            "t = time.perf_counter(); g.matmul(a, a, cfg); "
            "torch.cuda.synchronize(); second = time.perf_counter() - t\n"
            "print(first * 1e3, second * 1e3)\n")
        try:
            runs = []
            for _ in range(2):
                proc = subprocess.run([sys.executable, "-c", script], env=env,
                                      capture_output=True, text=True,
                                      check=True)
                runs.append([float(v) for v in proc.stdout.split()])
            return dict(triton_cold_ms=runs[0][0],
                        triton_disk_hit_ms=runs[1][0],
                        triton_memory_hit_ms=runs[1][1])
        except Exception as e:
            log(f"triton compile timing failed: {e}")
            return {}

    def triton_launch(self):
        try:
            from triton_gemm import add
        except Exception as e:
            log(f"triton unavailable: {e}")
            return {}
        torch = self.torch
        a = torch.ones(1, device="cuda")
        out = torch.empty_like(a)
        return dict(triton_us=self.host_overhead(lambda: add(a, a, out)))

    # ------------------------------------------------------------------
    def run(self):
        only = set(self.args.only.split(",")) if self.args.only else None
        want = lambda k: only is None or k in only
        sizes = SQUARE[:2] if self.args.quick else SQUARE
        if self.args.gemm_sizes:
            sizes = [int(s) for s in self.args.gemm_sizes.split(",")]
        if want("gemm"):
            for dtype in self.args.gemm_dtypes.split(","):
                for s in sizes:
                    self.bench_gemm(dtype, s, s, s)
                if not self.args.quick and not self.args.gemm_sizes:
                    for m, n, k in LLM:
                        if m == n == k and m in sizes:
                            continue  # measured with the square sizes
                        self.bench_gemm(dtype, m, n, k)
        if want("fp8"):
            for size in sizes[-2:]:
                self.bench_gemm_fp8(size, size, size)
        if want("attention"):
            shapes = ATTENTION[:2] if self.args.quick else ATTENTION
            for d in [64, 128]:
                for bh, seq in shapes:
                    for causal in [False, True]:
                        self.bench_attention(bh, seq, d, causal)
        if want("memory"):
            self.bench_copy(8192, 8192)
            self.bench_add(8192, 8192)
            self.bench_softmax(16384, 1024)
            self.bench_rowsum(16384, 4096)
        if want("compile"):
            self.bench_compile()
        shutil.rmtree(self.tmp, ignore_errors=True)


def markdown(results, device, commit, date):
    lines = [f"GPU: {device}; commit {commit}; {date}.", ""]
    lines += ["| GEMM | dtype | tile TFLOP/s | cuBLAS | Triton | Triton TMA "
              "| tile/cuBLAS | tile/Triton | tile/Triton TMA | tile config |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        if r["kind"] != "gemm" or "cublas_tflops" not in r:
            continue
        shape = "x".join(map(str, r["shape"]))
        if r["status"] != "ok":
            lines.append(f"| {shape} | {r['dtype']} | FAILED | "
                         f"{r['cublas_tflops']:.0f} | | | | | | |")
            continue
        def cell(key, digits):
            value = r.get(key)
            return f"{value:.{digits}f}" if value else "-"
        lines.append(
            f"| {shape} | {r['dtype']} | {r['tflops']:.1f} | "
            f"{r['cublas_tflops']:.1f} | {cell('triton_tflops', 1)} | "
            f"{cell('triton_tma_tflops', 1)} | {r['vs_cublas']:.2f} | "
            f"{cell('vs_triton', 2)} | {cell('vs_triton_tma', 2)} | "
            f"{r['config']} |")
    fp8 = [r for r in results if r["kind"] == "gemm_fp8"]
    if fp8:
        lines += ["", "| GEMM (e4m3 -> bf16, scaled) | tile TFLOP/s | "
                  "_scaled_mm TFLOP/s | _scaled_mm fast-accum TFLOP/s | "
                  "tile/_scaled_mm | tile/fast-accum | tile config |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in fp8:
        shape = "x".join(map(str, r["shape"]))
        if r["status"] != "ok":
            lines.append(f"| {shape} | FAILED | "
                         f"{r['scaled_mm_tflops']:.1f} | "
                         f"{r['scaled_mm_fast_tflops']:.1f} | | | |")
        else:
            lines.append(f"| {shape} | {r['tflops']:.1f} | "
                         f"{r['scaled_mm_tflops']:.1f} | "
                         f"{r['scaled_mm_fast_tflops']:.1f} | "
                         f"{r['vs_scaled_mm']:.2f} | "
                         f"{r['vs_scaled_mm_fast']:.2f} | {r['config']} |")
    attention = [r for r in results if r["kind"] == "attention"]
    if attention:
        lines += ["", "| attention (bh, seq, d) | causal | tile TFLOP/s | "
                  "SDPA flash TFLOP/s | tile/SDPA flash | SDPA default "
                  "TFLOP/s | tile/SDPA default | tile blocks |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in attention:
        shape = ", ".join(map(str, r["shape"]))
        causal = "yes" if r["causal"] else "no"
        if r["status"] != "ok":
            lines.append(f"| {shape} | {causal} | FAILED | "
                         f"{r['sdpa_tflops']:.0f} | | "
                         f"{r['sdpa_default_tflops']:.0f} | | |")
        else:
            lines.append(f"| {shape} | {causal} | {r['tflops']:.1f} | "
                         f"{r['sdpa_tflops']:.1f} | {r['vs_sdpa']:.2f} | "
                         f"{r['sdpa_default_tflops']:.1f} | "
                         f"{r['vs_sdpa_default']:.2f} | {r['config']} |")
    lines += ["", "| kernel | shape | tile GB/s | torch GB/s | tile/torch |",
              "| --- | --- | --- | --- | --- |"]
    for r in results:
        if r["kind"] in ("copy", "add", "softmax", "row_sum"):
            shape = "x".join(map(str, r["shape"]))
            if r["status"] != "ok":
                lines.append(f"| {r['kind']} | {shape} | FAILED | "
                             f"{r['torch_gbps']:.0f} | |")
            else:
                lines.append(f"| {r['kind']} | {shape} | {r['gbps']:.0f} | "
                             f"{r['torch_gbps']:.0f} | {r['vs_torch']:.2f} |")
    for r in results:
        if r["kind"] == "compile":
            lines += ["", "| compile (GEMM) | tile ms | Triton ms |",
                      "| --- | --- | --- |",
                      f"| cold | {r['cold_ms']:.0f} | "
                      f"{r.get('triton_cold_ms', float('nan')):.0f} |",
                      f"| disk hit, fresh process | {r['disk_hit_ms']:.2f} | "
                      f"{r.get('triton_disk_hit_ms', float('nan')):.2f} |",
                      f"| in-process hit | {r['memory_hit_ms']:.3f} | "
                      f"{r.get('triton_memory_hit_ms', float('nan')):.3f} |"]
        if r["kind"] == "launch":
            lines += ["", "| host time per launch (tiny kernel) | µs |",
                      "| --- | --- |",
                      f"| tile (packed call through the runtime) | "
                      f"{r['tile_us']:.2f} |",
                      f"| Triton | {r.get('triton_us', float('nan')):.2f} |",
                      f"| torch eager add | {r['torch_add_us']:.2f} |"]
    return "\n".join(lines) + "\n"


def chart_panels(results):
    """The panels of the chart: one per kind of kernel this run measured
    (title, unit, labels, {series: values}); none for kinds it did not."""
    panels = []

    def shape(r):
        return "x".join(map(str, r["shape"]))

    gemms = [r for r in results if r["kind"] == "gemm" and "cublas_tflops" in r]
    if gemms:
        panels.append(("GEMM", "TFLOP/s",
                       [f"{r['dtype']} {shape(r)}" for r in gemms],
                       {"tile": [r.get("tflops", 0) for r in gemms],
                        "cuBLAS": [r["cublas_tflops"] for r in gemms],
                        "Triton": [r.get("triton_tflops", 0) for r in gemms]}))
    fp8 = [r for r in results if r["kind"] == "gemm_fp8"]
    if fp8:
        panels.append(("fp8 GEMM", "TFLOP/s", [shape(r) for r in fp8],
                       {"tile": [r.get("tflops", 0) for r in fp8],
                        "_scaled_mm": [r["scaled_mm_tflops"] for r in fp8]}))
    attention = [r for r in results if r["kind"] == "attention"]
    if attention:
        panels.append(("attention", "TFLOP/s",
                       [shape(r) + (" causal" if r["causal"] else "")
                        for r in attention],
                       {"tile": [r.get("tflops", 0) for r in attention],
                        "SDPA (default)": [r["sdpa_default_tflops"]
                                           for r in attention],
                        "SDPA (flash)": [r["sdpa_tflops"] for r in attention]}))
    memory = [r for r in results if "torch_gbps" in r]
    if memory:
        panels.append(("memory-bound", "GB/s",
                       [f"{r['kind']} {shape(r)}" for r in memory],
                       {"tile": [r.get("gbps", 0) for r in memory],
                        "torch": [r["torch_gbps"] for r in memory]}))
    compiles = [r for r in results if r["kind"] == "compile"]
    if compiles:
        r = compiles[0]
        series = {"tile": [r["cold_ms"], r["disk_hit_ms"]]}
        if "triton_cold_ms" in r:
            series["Triton"] = [r["triton_cold_ms"], r.get("triton_disk_hit_ms", 0)]
        panels.append(("compile", "ms", ["cold", "warm disk cache"], series))
    return panels


def chart(results, path):
    """One panel per kind of kernel the run measured (an --only run draws
    its own, not an empty GEMM panel); nothing when there is none."""
    panels = chart_panels(results)
    if not panels:
        log("no chart: nothing was measured")
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        log(f"no chart: {e}")
        return
    width = max(8, max(len(p[2]) for p in panels) * 0.9)
    fig, axes = plt.subplots(len(panels), 1,
                             figsize=(width, 4.5 * len(panels)), squeeze=False)
    for ax, (title, unit, labels, series) in zip(axes[:, 0], panels):
        x = np.arange(len(labels))
        bar = 0.8 / len(series)
        for i, (name, values) in enumerate(series.items()):
            ax.bar(x + (i - (len(series) - 1) / 2) * bar,
                   [v or 0 for v in values], bar, label=name)
        ax.set_xticks(x, labels, rotation=45, ha="right")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument("--tile-run", required=True, help="tile-run binary")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--commit", default="unknown",
                        help="commit the binary was built from")
    parser.add_argument("--quick", action="store_true",
                        help="GEMM at 1024 and 2048, attention at seq 1024 "
                        "and 2048 only")
    parser.add_argument("--only",
                        help="comma list of gemm,fp8,attention,memory,compile")
    parser.add_argument("--gemm-sizes",
                        help="comma list of square GEMM sizes to measure "
                             "(instead of the suite's squares and LLM shapes)")
    parser.add_argument("--gemm-dtypes", default="f16,bf16",
                        help="comma list of GEMM dtypes (default f16,bf16)")
    parser.add_argument("--gemm-configs",
                        help="comma list of GEMM configurations "
                             "BMxBNxBKxTHREADSxSTAGES[x1 for persistent] to "
                             "try (instead of the suite's)")
    parser.add_argument("--features",
                        help="comma list of target features for the GEMM "
                             "kernels (their module names the target), to "
                             "compare instruction families: e.g. without "
                             "wgmma")
    parser.add_argument("--codegen",
                        help="comma list of the lowering's policies for "
                             "tile-run, to compare strategies: e.g. "
                             "warp-specialize=false,tma-multicast=true")
    parser.add_argument("--chip", default="sm_90a",
                        help="the chip --features is for (default sm_90a)")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    os.makedirs(args.out, exist_ok=True)
    bench = Bench(args)
    bench.run()
    date = time.strftime("%Y-%m-%d")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(dict(device=bench.device, commit=args.commit, date=date,
                       results=bench.results), f, indent=1)
    table = markdown(bench.results, bench.device, args.commit, date)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(table)
    chart(bench.results, os.path.join(args.out, "results.png"))
    print(table)
    failed = [r for r in bench.results if r.get("status") == "failed"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
