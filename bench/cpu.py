#!/usr/bin/env python3
"""CPU benchmark: tile's GEMM on the host CPU (the tile-to-cpu path) against
numpy's matmul on the same machine, f32 and f16, at 512 and 1024.

    python3 bench/cpu.py --tile-run build/bin/tile-run [--out DIR]

Each kernel is checked against numpy before it is timed. Prints a markdown
table (docs/performance.md keeps the latest) and writes cpu.json into --out.
"""

import argparse
import json
import os
import platform
import re
import string
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The GPU configuration of bench/run.py; on the CPU a block is one task of
# the grid and the tile sizes set the loop blocking.
CONFIG = dict(BM=128, BN=128, BK=32, THREADS=128, STAGES=3,
              RASTER="#tile.raster<8, row>")


def numpy_seconds(a, b, runs):
    a @ b
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--out", default=None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="tile-cpu-bench-")
    template = string.Template(
        open(os.path.join(ROOT, "bench/kernels/gemm.mlir.in")).read())
    results = []
    for dtype, npdtype in [("f32", np.float32), ("f16", np.float16)]:
        source = os.path.join(tmp, f"gemm_{dtype}.mlir")
        with open(source, "w") as f:
            f.write(template.substitute(T=dtype, **CONFIG))
        for n in [512, 1024]:
            rng = np.random.default_rng(n)
            a = rng.uniform(-1, 1, (n, n)).astype(npdtype)
            b = rng.uniform(-1, 1, (n, n)).astype(npdtype)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            for name, array in [("a", a), ("b", b), ("ref", ref)]:
                np.save(os.path.join(tmp, f"{name}.npy"), array)
            tol = "2e-2" if dtype == "f16" else "1e-4"
            proc = subprocess.run(
                [args.tile_run, source, "--target=cpu", "--no-cache",
                 "--arg", f"@{tmp}/a.npy", "--arg", f"@{tmp}/b.npy",
                 "--arg", f"{dtype}:{n}x{n}=zeros",
                 "--check", f"2={tmp}/ref.npy", "--rtol", tol, "--atol", tol,
                 f"--bench={args.runs}"], capture_output=True, text=True)
            out = proc.stdout + proc.stderr
            m = re.search(r"median ([0-9.]+) ms", out)
            flops = 2.0 * n ** 3
            entry = dict(dtype=dtype, n=n)
            if proc.returncode != 0 or not m:
                entry["status"] = "failed"
                print(out, file=sys.stderr)
            else:
                tile_s = float(m.group(1)) / 1e3
                np_s = numpy_seconds(a, b, args.runs)
                entry.update(status="ok", tile_gflops=flops / tile_s / 1e9,
                             numpy_gflops=flops / np_s / 1e9,
                             vs_numpy=np_s / tile_s)
                if dtype == "f16":
                    # numpy has no fast f16 matmul; its f32 one is the
                    # fairer anchor.
                    f32_s = numpy_seconds(a.astype(np.float32),
                                          b.astype(np.float32), args.runs)
                    entry.update(numpy_f32_gflops=flops / f32_s / 1e9,
                                 vs_numpy_f32=f32_s / tile_s)
            results.append(entry)
            print(json.dumps(entry), file=sys.stderr)

    cpu = platform.machine()
    if os.path.exists("/proc/cpuinfo"):
        names = re.findall(r"model name\s*: (.*)", open("/proc/cpuinfo").read())
        cpu = names[0] if names else cpu
    lines = [f"CPU: {cpu}, {os.cpu_count()} cores; numpy {np.__version__}; "
             f"{time.strftime('%Y-%m-%d')}.", "",
             "| GEMM | tile GFLOP/s | numpy GFLOP/s | tile/numpy | "
             "numpy f32 GFLOP/s | tile/numpy f32 |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        shape = f"{r['dtype']} {r['n']}³"
        if r["status"] != "ok":
            lines.append(f"| {shape} | FAILED | | | | |")
            continue
        f32 = r.get("numpy_f32_gflops")
        lines.append(
            f"| {shape} | {r['tile_gflops']:.1f} | {r['numpy_gflops']:.1f} | "
            f"{r['vs_numpy']:.2f} | {f'{f32:.1f}' if f32 else '-'} | "
            f"{'%.2f' % r['vs_numpy_f32'] if f32 else '-'} |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "cpu.json"), "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(1 if any(r["status"] != "ok" for r in results) else 0)


if __name__ == "__main__":
    main()
