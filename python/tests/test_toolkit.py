"""What compiling needs from the machine: the CUDA toolkit found in NVIDIA's
wheels (nvidia-cuda-nvcc, nvidia-nvvm) when there is no system one, and host
code for any x86-64 CPU linking inside the extension, which Python loads
RTLD_LOCAL (so the process exports none of compiler-rt's builtins)."""

import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def run_python(code, env):
    full = dict(os.environ)
    full.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          env=full, capture_output=True, text=True,
                          timeout=300)


def test_the_wheels_toolkit_is_found(tmp_path):
    """A directory holding nvidia/cu13/bin/ptxas on sys.path, as pip installs
    nvidia-cuda-nvcc, becomes the compiler's wheel toolkit."""
    toolkit = tmp_path / "site" / "nvidia" / "cu13"
    (toolkit / "bin").mkdir(parents=True)
    ptxas = toolkit / "bin" / "ptxas"
    ptxas.write_text("#!/bin/sh\n")
    ptxas.chmod(0o755)
    path = os.pathsep.join([str(tmp_path / "site"),
                            os.environ.get("PYTHONPATH", "")])
    env = {"PYTHONPATH": path, "TILE_CUDA_WHEEL_TOOLKIT": ""}
    result = run_python("""
        import os, tile
        print(os.environ["TILE_CUDA_WHEEL_TOOLKIT"])
    """, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(toolkit)
    # One the user set is kept.
    env["TILE_CUDA_WHEEL_TOOLKIT"] = "/somewhere/else"
    result = run_python("""
        import os, tile
        print(os.environ["TILE_CUDA_WHEEL_TOOLKIT"])
    """, env)
    assert result.stdout.strip() == "/somewhere/else"


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                    reason="x86-64 CPU names")
def test_baseline_cpu_kernels_link_inside_the_extension(tmp_path):
    """f64 -> f16 and f32 -> bf16 conversions on an x86-64 without F16C or
    AVX-512 are compiler-rt calls (__truncdfhf2, __truncsfbf2); compiled in a
    fresh process for TILE_CPU=x86-64 they link and give NumPy's values."""
    result = run_python("""
        import numpy as np
        import tile
        import tile.language as T

        @tile.jit(target="cpu")
        def narrow(X: T.Tensor[[7, 5], T.float64]):
            Y = T.empty((7, 5), T.float16)
            with T.Kernel(1, threads=32) as bx:
                f = T.alloc_fragment((7, 5), T.float16)
                T.copy(X[0, 0], f)
                T.copy(f, Y[0, 0])
            return Y

        x = np.random.default_rng(7).standard_normal((7, 5))
        y = narrow(x)
        assert y.dtype == np.float16, y.dtype
        assert np.array_equal(y, x.astype(np.float16)), (y, x)
        print("ok")
    """, {"TILE_CPU": "x86-64",
          "TILE_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_an_unknown_cpu_is_a_compile_error(tmp_path):
    result = run_python("""
        import numpy as np
        import tile
        import tile.language as T

        @tile.jit(target="cpu")
        def copy(X: T.Tensor[[4], T.float32]):
            Y = T.empty((4,), T.float32)
            with T.Kernel(1, threads=32) as bx:
                f = T.alloc_fragment((4,), T.float32)
                T.copy(X[0], f)
                T.copy(f, Y[0])
            return Y

        try:
            copy(np.ones(4, np.float32))
        except tile.TileCompileError as error:
            print(error)
    """, {"TILE_CPU": "pentium9", "TILE_CACHE_DIR": str(tmp_path / "cache")})
    assert "unknown CPU 'pentium9'" in result.stdout, result.stdout + result.stderr
