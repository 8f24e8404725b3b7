# -*- Python -*-
# lit configuration of the tile regression tests.

import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit", "mutate.py", "lib", "Integration",
                   "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
# Reference computations run on the interpreter that runs lit.
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tile_src_root", config.tile_src_root))
config.substitutions.append(("%tile_obj_root", config.tile_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tile-opt", "tile-run"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas assembles the PTX tests' output (register and spill checks); the
# PTX itself needs only LLVM's NVPTX backend. Where the compiler looks for
# it: on PATH, in $CUDA_HOME or /usr/local/cuda, or in NVIDIA's wheel that
# scripts/install-cuda-wheels.sh installs where there is no toolkit.
import shutil
ptxas = shutil.which("ptxas") or next(
    (p for p in [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                              "bin", "ptxas"),
                 os.path.join(config.tile_src_root, ".cache", "cuda", "nvidia",
                              "cu13", "bin", "ptxas")]
     if os.access(p, os.X_OK)), None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# ROCm's device library, which tile.print's hostcall printf links on AMD
# (lib/Pipelines/TileToROCDL.cpp looks for it in the same places).
if any(os.path.isdir(os.path.join(d, "amdgcn", "bitcode")) and
       os.access(os.path.join(d, "llvm", "bin", "ld.lld"), os.X_OK)
       for d in [os.environ.get("ROCM_PATH", ""), os.environ.get("ROCM_HOME", ""),
                 "/opt/rocm"] if d):
    config.available_features.add("rocm-device-library")
config.substitutions.append(
    ("%extract-ptx", sys.executable + " " +
     os.path.join(config.tile_src_root, "test", "NVVM", "extract-ptx.py")))

# The CPU the JIT compiles host code for (lib/JIT/HostMachine.h): check-tile
# runs test/Execution a second time for a baseline x86-64
# (--param tile_cpu=x86-64), so that code calling compiler-rt's builtins
# (f16 conversions without F16C) is exercised on any host.
# Tests that act as another user (chown, setpriv) need root.
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")

import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86-64-host")
tile_cpu = lit_config.params.get("tile_cpu")
if tile_cpu:
    config.environment["TILE_CPU"] = tile_cpu
    config.name += " (cpu " + tile_cpu + ")"

# A machine without a CUDA toolkit, simulated in a mount namespace
# (scripts/without-cuda.sh), where tile finds ptxas and libdevice in
# NVIDIA's wheels (scripts/install-cuda-wheels.sh installs them there).
without_cuda = os.path.join(config.tile_src_root, "scripts", "without-cuda.sh")
wheel_toolkit = os.path.join(config.tile_src_root, ".cache", "cuda", "nvidia", "cu13")
import subprocess
if (os.path.isfile(os.path.join(wheel_toolkit, "nvvm", "libdevice", "libdevice.10.bc"))
        and subprocess.run([without_cuda, "--check"]).returncode == 0):
    config.available_features.add("without-cuda")
    config.substitutions.append(("%without-cuda", without_cuda))
    config.substitutions.append(("%cuda-wheel-toolkit", wheel_toolkit))
