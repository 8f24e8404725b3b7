#!/usr/bin/env python3
"""CPU benchmark: tile's GEMM on the host CPU (the tile-to-cpu path) against
numpy's matmul on the same machine, f32 and f16, at 512 and 1024.

    /usr/bin/python3 bench/cpu.py --tile-run build/bin/tile-run \\
        [--numpy /usr/bin/python3 --numpy VENV/bin/python] [--out DIR]

Each kernel is checked against a float64 reference before it is timed.
Each --numpy interpreter (default: the one running this script) times its
own numpy's matmul on the same operands, so one run compares, e.g., the
test suite's numpy (Debian's python3-numpy, on the reference BLAS) with a
pip numpy (OpenBLAS) in a virtual environment. For f16, numpy has no fast
matmul, so its f32 matmul of the same operands is the anchor. Every
measurement runs at each thread count of --threads (default 1, 2 and all
cores): tile's blocks on that many OpenMP threads (--cpu-threads) and
numpy's BLAS on as many. Prints a markdown table per thread count and
tile's scaling (docs/performance.md keeps the latest) and writes cpu.json
into --out.
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
              RASTER="#tile.raster<8, row>", ATTRS="")

# Runs in each --numpy interpreter: times a @ b (f32 operands) and says which
# numpy and BLAS did it.
TIMER = r"""
import json, re, sys, time
import numpy as np
a = np.load(sys.argv[1]).astype(np.float32)
b = np.load(sys.argv[2]).astype(np.float32)
runs = int(sys.argv[3])
a @ b
times = []
for _ in range(runs):
    start = time.perf_counter()
    a @ b
    times.append(time.perf_counter() - start)
blas = None
try:
    dep = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    blas = (dep.get("name", "") + " " + dep.get("version", "")).strip()
except Exception:
    pass
if not blas:
    # Older numpy: name the BLAS library the process has loaded.
    libs = sorted({l.split()[-1] for l in open("/proc/self/maps")
                   if re.search(r"blas", l.split()[-1] if l.split() else "")})
    blas = ", ".join(libs) or "unknown BLAS"
print(json.dumps(dict(seconds=float(np.median(times)), version=np.__version__,
                      blas=blas, python=sys.executable)))
"""


def describe_blas(blas):
    """A short name for the table: 'OpenBLAS 0.3.31', 'reference BLAS'."""
    if "openblas" in blas.lower():
        m = re.search(r"(\d+\.\d+\.\d+)", blas)
        return "OpenBLAS" + (f" {m.group(1)}" if m else "")
    if re.search(r"/blas/libblas\.so", blas):
        return "reference BLAS"
    return blas


def numpy_time(python, a_path, b_path, runs, threads):
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    proc = subprocess.run([python, "-c", TIMER, a_path, b_path, str(runs)],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"cpu.py: timing numpy with {python} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.
                                     RawDescriptionHelpFormatter)
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--numpy", action="append", default=None,
                        metavar="PYTHON", help="an interpreter whose numpy "
                        "matmul to time (repeatable; default: this one)")
    parser.add_argument("--threads", default="1,2,all",
                        help="thread counts, comma-separated ('all': the "
                        "cores available); tile and numpy's BLAS get the "
                        "same")
    parser.add_argument("--out", default=None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pythons = args.numpy or [sys.executable]
    cores = len(os.sched_getaffinity(0))
    thread_counts = sorted({cores if t == "all" else int(t)
                            for t in args.threads.split(",")})
    tmp = tempfile.mkdtemp(prefix="tile-cpu-bench-")
    template = string.Template(
        open(os.path.join(ROOT, "bench/kernels/gemm.mlir.in")).read())
    results, numpys = [], {}
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
            for threads in thread_counts:
                proc = subprocess.run(
                    [args.tile_run, source, "--target=cpu", "--no-cache",
                     f"--cpu-threads={threads}",
                     "--arg", f"@{tmp}/a.npy", "--arg", f"@{tmp}/b.npy",
                     "--arg", f"{dtype}:{n}x{n}=zeros",
                     "--check", f"2={tmp}/ref.npy", "--rtol", tol,
                     "--atol", tol, f"--bench={args.runs}"],
                    capture_output=True, text=True)
                out = proc.stdout + proc.stderr
                m = re.search(r"median ([0-9.]+) ms", out)
                flops = 2.0 * n ** 3
                entry = dict(dtype=dtype, n=n, threads=threads, numpy=[])
                if proc.returncode != 0 or not m:
                    entry["status"] = "failed"
                    print(out, file=sys.stderr)
                else:
                    tile_s = float(m.group(1)) / 1e3
                    entry.update(status="ok",
                                 tile_gflops=flops / tile_s / 1e9)
                    for python in pythons:
                        t = numpy_time(python, f"{tmp}/a.npy",
                                       f"{tmp}/b.npy", args.runs, threads)
                        numpys[python] = t
                        entry["numpy"].append(dict(
                            python=python, version=t["version"],
                            blas=t["blas"],
                            gflops=flops / t["seconds"] / 1e9,
                            tile_vs_numpy=t["seconds"] / tile_s))
                results.append(entry)
                print(json.dumps(entry), file=sys.stderr)

    cpu = platform.machine()
    if os.path.exists("/proc/cpuinfo"):
        names = re.findall(r"model name\s*: (.*)", open("/proc/cpuinfo").read())
        cpu = names[0] if names else cpu
    lines = [f"CPU: {cpu}, {cores} cores available, load average "
             f"{os.getloadavg()[0]:.1f}; tile's blocks and numpy's BLAS on "
             f"the same number of threads; {time.strftime('%Y-%m-%d')}."]
    for python, t in numpys.items():
        lines.append(f"numpy {t['version']} ({describe_blas(t['blas'])}): "
                     f"{python}")
    header = "| GEMM | threads | tile GFLOP/s | tile speedup |"
    for t in numpys.values():
        name = f"numpy {t['version']} ({describe_blas(t['blas'])})"
        header += f" {name} GFLOP/s | tile / {name} |"
    lines += ["", header, "|" + " --- |" * (4 + 2 * len(numpys))]
    single = {(r["dtype"], r["n"]): r.get("tile_gflops") for r in results
              if r["threads"] == thread_counts[0] and r["status"] == "ok"}
    for r in results:
        shape = f"{r['dtype']} {r['n']}³"
        if r["status"] != "ok":
            lines.append(f"| {shape} | {r['threads']} | FAILED | |" +
                         " |" * (2 * len(numpys)))
            continue
        base = single.get((r["dtype"], r["n"]))
        speedup = f"{r['tile_gflops'] / base:.2f}x" if base else ""
        row = (f"| {shape} | {r['threads']} | {r['tile_gflops']:.1f} | "
               f"{speedup} |")
        for t in r["numpy"]:
            row += f" {t['gflops']:.1f} | {t['tile_vs_numpy']:.2f} |"
        lines.append(row)
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "cpu.json"), "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(1 if any(r["status"] != "ok" for r in results) else 0)


if __name__ == "__main__":
    main()
