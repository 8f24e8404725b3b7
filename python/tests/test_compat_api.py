"""TileLang's package-level API on tile: the runner (python -m tile.compat),
PassConfigKey, tile.autotuner, tile.profiler, tile.utils, tile.testing,
tile.env / tile.cache, and scripts/run-tilelang-examples.py. Kernels run on
the test target and are checked against NumPy, on sizes that are not
multiples of the tiles."""

import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tile
import tile.language as T
import tile.testing
from conftest import TARGET, to_device, to_numpy
from tile import env
from tile.utils.tensor import KernelParam

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "run-tilelang-examples.py")


@pytest.fixture(autouse=True)
def fresh_notes():
    """One-time notes start afresh in each test (and leave no trace)."""
    env._noted.clear()
    yield
    env._noted.clear()


def run_python(args, cwd, timeout=300):
    """Runs this interpreter with tile importable as in this process."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------------------
# Kernels of this file
# ---------------------------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def gemm_nt(M, N, K, block_M=32, block_N=32, block_K=32, num_stages=2, threads=128):
    """C = A @ B.T (TileLang's autotuning example's kernel, f16 in, f32 out)."""
    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((N, K), T.float16),
             C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), T.float16)
            B_shared = T.alloc_shared((block_N, block_K), T.float16)
            C_local = T.alloc_fragment((block_M, block_N), T.float32)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main


def gemm_ref(a, b):
    return to_numpy(a).astype(np.float32) @ to_numpy(b).astype(np.float32).T


GEMM_CONFIGS = [
    {"block_M": 32, "block_N": 32, "block_K": 32, "num_stages": 1},
    {"block_M": 64, "block_N": 32, "block_K": 32, "num_stages": 2,
     "pass_configs": {tile.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True}},
    {"block_M": 32, "block_N": 64, "block_K": 16, "num_stages": 2},
]


# ---------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------

PROGRAM = '''
import argparse
import sys

import numpy as np
import tilelang
import tilelang.language as T
import tilelang.testing
from tilelang.profiler import do_bench
from tilelang.utils.tensor import torch_assert_close
from helper import reference  # the program's directory is on sys.path

assert __name__ == "__main__"
assert tilelang.__name__ == "tile" and "tilelang.language" in sys.modules
assert callable(tilelang.jit) and tilelang.jit.__name__ == "jit"


@tilelang.jit(out_idx=[-1], target="cpu",
              pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def axpy(N, alpha, block=64):
    @T.prim_func
    def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32),
             Z: T.Tensor((N,), T.float32)):
        with T.Kernel(tilelang.cdiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                Z[bx * block + i] = X[bx * block + i] * alpha + T.exp2(Y[bx * block + i])
    return main


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=256)
    args = parser.parse_args()
    tilelang.testing.set_random_seed(0)
    x = np.random.standard_normal(args.n).astype(np.float32)
    y = np.random.standard_normal(args.n).astype(np.float32)
    kernel = axpy(args.n, 2.5)
    z = kernel(x, y)
    torch_assert_close(z, reference(x, y), rtol=1e-5, atol=1e-5)
    print(f"argv: {sys.argv[1:]}")
    print("fastmath<afn>" in kernel.get_kernel_source("ir") and "fast math on" or "no fast math")
    print(f"latency: {do_bench(lambda: kernel(x, y), warmup=1, rep=5):.4f} ms")
    print("All checks passed.")


if __name__ == "__main__":
    main()
'''


def write_program(directory, body=PROGRAM, name="example_axpy.py"):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "helper.py").write_text(
        "import numpy as np\n\ndef reference(x, y):\n    return x * 2.5 + np.exp2(y)\n")
    path = directory / name
    path.write_text(textwrap.dedent(body))
    return path


def test_runner_runs_a_tilelang_program_unchanged(tmp_path):
    path = write_program(tmp_path / "prog")
    r = run_python(["-m", "tile.compat", str(path), "--n", "1000"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "argv: ['--n', '1000']" in out
    assert "fast math on" in out and "All checks passed." in out
    assert re.search(r"latency: \d+\.\d+ ms", out)


def test_runner_reports_the_programs_error_and_status(tmp_path):
    path = write_program(tmp_path / "bad", body="import tilelang\nraise SystemExit(3)\n")
    assert run_python(["-m", "tile.compat", str(path)], cwd=str(tmp_path)).returncode == 3
    path = write_program(tmp_path / "bad", body="import tilelang.no_such_module\n")
    r = run_python(["-m", "tile.compat", str(path)], cwd=str(tmp_path))
    assert r.returncode == 1
    assert "No module named 'tilelang.no_such_module': tile has no module " \
           "'tile.no_such_module'" in r.stderr
    r = run_python(["-m", "tile.compat"], cwd=str(tmp_path))
    assert r.returncode == 2 and "usage: python -m tile.compat PROGRAM.py" in r.stdout
    r = run_python(["-m", "tile.compat", str(tmp_path / "missing.py")], cwd=str(tmp_path))
    assert r.returncode == 1 and "no such program" in r.stderr


def test_runner_runs_a_module(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(textwrap.dedent('''
        import sys
        import tilelang
        print(__name__, tilelang.__name__, tilelang.cdiv(7, 2), sys.argv[1:])
    '''))
    r = run_python(["-m", "tile.compat", "-m", "pkg.mod", "a", "b"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "__main__ tile 4 ['a', 'b']"


def test_install_in_a_running_interpreter(tmp_path):
    code = textwrap.dedent('''
        import sys
        import tile, tile.compat
        try:
            import tilelang
        except ImportError:
            print("not before install")
        tile.compat.install()
        tile.compat.install()  # idempotent
        import tilelang
        import tilelang.language as T
        import tilelang.jit
        from tilelang.jit import JITKernel
        from tilelang import language as T2
        from tilelang.autotuner import *
        from tilelang.transform import PassConfigKey
        from tilelang.utils.tensor import get_tensor_supply, TensorSupplyType
        from tilelang.carver.arch import driver
        import tilelang.testing, tilelang.math, tilelang.layout, tilelang.env, tilelang.cache
        assert tilelang is tile and T is tile.language and T2 is T
        assert tilelang.jit is tile.jit and callable(tilelang.jit)  # still the decorator
        assert JITKernel is tile.JITKernel and PassConfigKey is tile.PassConfigKey
        assert autotune is tile.autotune and AutoTuner is tile.autotuner.AutoTuner
        assert set_autotune_inputs is tile.autotuner.set_autotune_inputs
        assert sys.modules["tilelang.utils.tensor"] is tile.utils.tensor
        assert tile.language.__spec__.name == "tile.language"  # the real spec kept
        assert not any(n.startswith("tilelang") for n in sys.modules
                       if not sys.modules[n].__name__.startswith("tile"))
        tile.compat.uninstall()
        assert "tilelang" not in sys.modules and not tile.compat.installed()
        try:
            import tilelang
        except ImportError:
            print("not after uninstall")
        print("ok")
    ''')
    r = run_python(["-c", code], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["not", "before", "install", "not", "after", "uninstall", "ok"]


def test_install_refuses_when_tilelang_itself_is_imported(tmp_path):
    (tmp_path / "tilelang").mkdir()
    (tmp_path / "tilelang" / "__init__.py").write_text("REAL = True\n")
    code = ("import tilelang, tile.compat\n"
            "try:\n    tile.compat.install()\n"
            "except RuntimeError as e:\n    print(e)\n")
    r = run_python(["-c", code], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "TileLang itself is already imported" in r.stdout


# ---------------------------------------------------------------------------
# Package-level names
# ---------------------------------------------------------------------------


def test_package_level_names():
    assert tile.cdiv(10, 4) == 3 and tile.cdiv(8, 4) == 2
    assert tile.math.next_power_of_2(33) == 64 and tile.next_power_of_2(64) == 64
    assert tile.next_power_of_2(1) == 1
    assert tile.TensorSupplyType.Randn.value == 4
    assert tile.profiler.TensorSupplyType is tile.TensorSupplyType
    assert tile.autotuner.TensorSupplyType is tile.TensorSupplyType
    assert tile.utils.TensorSupplyType is tile.TensorSupplyType
    assert tile.transform.PassConfigKey is tile.PassConfigKey
    assert tile.layout.make_swizzled_layout is T.make_swizzled_layout
    assert tile.Profiler is tile.profiler.Profiler
    assert tile.dtypes.float16 is T.float16
    tile.set_log_level("DEBUG")
    assert tile.logger.level == 10
    tile.set_log_level("WARNING")
    with pytest.raises(ValueError, match="unknown level 'LOUD'"):
        tile.set_log_level("LOUD")


def test_pass_config_keys_are_tilelang_strings():
    K = tile.PassConfigKey
    assert K.TL_ENABLE_FAST_MATH == "tl.enable_fast_math"
    assert K.TL_DISABLE_WARP_SPECIALIZED.value == "tl.disable_warp_specialized"
    assert K.TL_DISABLE_TMA_LOWER == "tl.disable_tma_lower"
    assert K.TIR_DISABLE_VECTORIZE == "tirx.disable_vectorize"
    assert {K.TL_ENABLE_FAST_MATH: True}.get("tl.enable_fast_math") is True
    assert all(isinstance(k.value, str) for k in K) and len(K) > 50
    assert env.normalize_pass_configs({K.TL_DISABLE_WGMMA: True, "opt_level": 2}) == \
        {"tl.disable_wgmma": True, "opt_level": 2}
    with pytest.raises(TypeError, match="pass_configs: keys are strings"):
        env.normalize_pass_configs({3: True})


def test_fast_math_key_reaches_the_compiler(rng):
    pf = gemm_nt.get_ir(16, 16, 16)  # no approximable math: the IR stays

    @tile.jit(out_idx=[-1], target=TARGET,
              pass_configs={tile.PassConfigKey.TL_ENABLE_FAST_MATH: True})
    def exp2(N, block=64):
        @T.prim_func
        def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
                for i in T.Parallel(block):
                    B[bx * block + i] = T.exp2(A[bx * block + i])
        return main

    k = exp2(100)
    assert "fastmath<afn>" in k.get_kernel_source("ir")
    a = rng.standard_normal(100).astype(np.float32)
    np.testing.assert_allclose(to_numpy(k(to_device(a))), np.exp2(a), rtol=1e-5)
    plain = tile.compile(pf, out_idx=[-1], target=TARGET,
                         pass_configs={tile.PassConfigKey.TL_ENABLE_FAST_MATH: True})
    assert "fastmath<afn>" not in plain.get_kernel_source("ir")


def test_feature_keys_restrict_the_gpu_target():
    K = tile.PassConfigKey
    ir = "module {\n}\n"
    assert env.restrict_target(ir, "cuda", "sm_90a", {}) == ir
    assert env.restrict_target(ir, "cuda", "sm_90a", {K.TL_DISABLE_WARP_SPECIALIZED: False}) == ir
    assert env.restrict_target(ir, "cpu", "", {K.TL_DISABLE_TMA_LOWER: True}) == ir
    # Warp specialization is a policy of the lowering, not a feature.
    assert env.restrict_target(ir, "cuda", "sm_90a", {K.TL_DISABLE_WARP_SPECIALIZED: True}) == ir
    got = env.restrict_target(ir, "cuda", "sm_90a", {K.TL_DISABLE_TMA_LOWER: True})
    assert got.startswith('module attributes {tile.target = #tile.target<"sm_90a", features = '
                          '["cp.async", "ldmatrix", "mma.sync", "wgmma"]>} {')
    got = env.restrict_target(ir, "cuda", "sm_80", {K.TL_ENABLE_ASYNC_COPY: False})
    assert 'features = ["ldmatrix", "mma.sync"]' in got
    assert env.dropped_features({K.TL_DISABLE_WGMMA: True, K.TIR_USE_ASYNC_COPY: False}) == \
        ["cp.async", "wgmma"]
    assert env.default_features("gfx942") == ["mfma"] and env.default_features("host") == []
    assert env.default_features("sm_90a") == ["cp.async", "ldmatrix", "mma.sync", "tma", "wgmma"]


def test_codegen_keys_set_the_lowerings_policies():
    """tl.disable_warp_specialized and tile's own keys (warp_specialize,
    tma_store, tma_multicast, deepen_pipelines, raster_blocks, merge_blocks) become the
    compiler's codegen
    options, which are part of the compiler's identity and of the cache key."""
    K = tile.PassConfigKey
    defaults = {"warp_specialize": True, "tma_store": True, "tma_multicast": False,
                "deepen_pipelines": True, "raster_blocks": True, "merge_blocks": True}
    assert env.codegen_options({}) == defaults
    assert env.codegen_options({K.TL_DISABLE_WARP_SPECIALIZED: True}) == \
        {**defaults, "warp_specialize": False}
    assert env.codegen_options({K.TL_DISABLE_WARP_SPECIALIZED: False}) == defaults
    assert env.codegen_options({"tma_multicast": True, "tma_store": False}) == \
        {**defaults, "tma_store": False, "tma_multicast": True}
    assert env.codegen_options({"deepen_pipelines": False}) == \
        {**defaults, "deepen_pipelines": False}
    assert env.codegen_options({"raster_blocks": False}) == \
        {**defaults, "raster_blocks": False}
    assert env.codegen_options({"merge_blocks": False}) == \
        {**defaults, "merge_blocks": False}
    a = env.get_compiler("cpu", "", 3)
    b = env.get_compiler("cpu", "", 3, {"warp_specialize": False})
    assert a is not b and a is env.get_compiler("cpu", "", 3, defaults)
    assert a.codegen == defaults and b.codegen == {**defaults, "warp_specialize": False}

@pytest.mark.parametrize("configs,present,absent", [
    ({}, ["wgmma.mma_async", "cp.async.bulk.tensor", "setmaxnreg"], ["mma.sync"]),
    ({"tl.disable_warp_specialized": True}, ["wgmma.mma_async", "cp.async.bulk.tensor"],
     ["setmaxnreg"]),
    ({"tl.disable_tma_lower": True}, ["wgmma.mma_async"], ["cp.async.bulk.tensor", "setmaxnreg"]),
    ({"tl.disable_wgmma": True}, ["mma.sync", "ldmatrix"], ["wgmma.mma_async"]),
])
def test_feature_keys_change_the_ptx(configs, present, absent):
    """The keys reach the lowering: an sm_90a GEMM's PTX (made here, without
    a GPU) has or lacks the instructions they turn off."""
    from tile._ext import ext
    pf = gemm_nt.get_ir(256, 256, 256, block_M=128, block_N=128, block_K=32, num_stages=3)
    ir = env.restrict_target(pf.ir, "cuda", "sm_90a", configs)
    ptx, diags = ext.device_source(ir, "cuda", "sm_90a", **env.codegen_options(configs))
    if not ptx and not configs:
        pytest.skip(f"this build does not lower to PTX ({[d.message for d in diags][:1]})")
    assert ptx, [d.message for d in diags]
    for text in present:
        assert text in ptx, text
    for text in absent:
        assert text not in ptx, text


def test_raster_blocks_reorders_a_gemms_blocks():
    """raster_blocks (on by default) reaches the lowering: a GEMM of 16 x 16
    blocks gets block ids in panels (tile-raster-kernels), which its PTX
    computes from %ctaid; off, the PTX is the launch order's. A GEMM of 2
    blocks along x is left as it is either way."""
    from tile._ext import ext

    def ptx(n, raster):
        ir = gemm_nt.get_ir(256, n, 256, block_M=128, block_N=128, block_K=32,
                            num_stages=3).ir
        text, diags = ext.device_source(ir, "cuda", "sm_90a",
                                        **env.codegen_options({"raster_blocks": raster}))
        if not text:
            pytest.skip(f"this build does not lower to PTX ({[d.message for d in diags][:1]})")
        return text

    assert ptx(2048, True) != ptx(2048, False)
    assert ptx(256, True) == ptx(256, False)


def test_merge_blocks_widens_a_gemms_tiles():
    """merge_blocks (on by default) reaches the lowering: on sm_90a a GEMM of
    128 x 128 tiles over a 32 x 32 grid runs as 16 x 32 blocks of 128 x 256
    tiles (tile-merge-blocks), whose warpgroups issue n256 wgmma; off, the
    tiles as written. A grid too small to keep two waves once merged (2 x 2)
    and sm_80 (no wgmma) are left as they are either way."""
    from tile._ext import ext

    def ptx(n, merge, chip="sm_90a"):
        ir = gemm_nt.get_ir(n, n, 256, block_M=128, block_N=128, block_K=32,
                            num_stages=3).ir
        text, diags = ext.device_source(ir, "cuda", chip,
                                        **env.codegen_options({"merge_blocks": merge}))
        if not text:
            pytest.skip(f"this build does not lower to PTX ({[d.message for d in diags][:1]})")
        return text

    merged, written = ptx(4096, True), ptx(4096, False)
    assert "m64n256k16" in merged and "m64n256k16" not in written
    assert "m64n128k16" in written
    assert ptx(256, True) == ptx(256, False)
    assert ptx(4096, True, "sm_80") == ptx(4096, False, "sm_80")


def test_device_source_comes_from_the_jit_pipeline_of_each_target():
    """device_source lowers with the JIT library's pipeline of the target it
    names: AMDGPU assembly for ROCm as PTX for CUDA (made here, without a
    GPU), nothing for the CPU."""
    from tile._ext import ext
    ir = gemm_nt.get_ir(256, 256, 256, block_M=128, block_N=128, block_K=32,
                        num_stages=2).ir
    ptx, diags = ext.device_source(ir, "cuda", "sm_80")
    if not ptx:
        pytest.skip(f"this build does not lower to PTX ({[d.message for d in diags][:1]})")
    assert "mma.sync" in ptx
    isa, diags = ext.device_source(ir, "rocm", "gfx942")
    assert "v_mfma" in isa, [d.message for d in diags]
    assert ext.device_source(ir, "cpu", "") == ("", [])


def test_ignored_keys_warn_once_and_never_raise(rng):
    pf = gemm_nt.get_ir(40, 24, 24)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = tile.compile(pf, out_idx=[-1], target=TARGET, pass_configs={
            tile.PassConfigKey.TL_DISABLE_SHUFFLE_ELECT: True,
            tile.PassConfigKey.TL_CONFIG_INDEX_BITWIDTH: 64, "my.own_key": 1})
        tile.compile(pf, out_idx=[-1], target=TARGET,
                     pass_configs={tile.PassConfigKey.TL_DISABLE_SHUFFLE_ELECT: True})
    notes = [str(w.message) for w in caught]
    assert sum("'tl.disable_shuffle_elect'" in n for n in notes) == 1
    assert any("'tl.config_index_bitwidth'" in n for n in notes)
    assert any("tile ignores pass config 'my.own_key'" in n for n in notes)
    a = rng.standard_normal((40, 24)).astype(np.float16)
    b = rng.standard_normal((24, 24)).astype(np.float16)
    np.testing.assert_allclose(to_numpy(k(to_device(a), to_device(b))), gemm_ref(a, b),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.skipif(TARGET != "cpu", reason="the note is for the cpu target")
def test_gpu_feature_key_on_the_cpu_notes_it():
    with pytest.warns(UserWarning, match="'tl.disable_tma_lower' has no effect on the cpu"):
        tile.compile(gemm_nt.get_ir(16, 16, 16), out_idx=[-1], target="cpu",
                     pass_configs={"tl.disable_tma_lower": True})


def test_kernels_output_dir_key_writes_the_code(tmp_path):
    tile.compile(gemm_nt.get_ir(16, 16, 16), out_idx=[-1], target=TARGET,
                 pass_configs={tile.PassConfigKey.CUDA_KERNELS_OUTPUT_DIR: str(tmp_path / "k")})
    assert "tile.gemm" in (tmp_path / "k" / "main.mlir").read_text()
    tile.compile(gemm_nt.get_ir(16, 16, 16), out_idx=[-1], target=TARGET,
                 pass_configs={"tl.enable_dump_ir": True, "tl.dump_ir_path": str(tmp_path / "d")})
    assert (tmp_path / "d" / "main.mlir").exists()


# ---------------------------------------------------------------------------
# tile.autotuner
# ---------------------------------------------------------------------------


def test_autotuner_class_with_per_config_pass_configs(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    M, N, K = 72, 40, 56
    calls = []

    def ref_program(A, B):
        calls.append(1)
        return gemm_ref(A, B)

    def kernel(block_M=None, block_N=None, block_K=None, num_stages=None):
        return gemm_nt.func(M, N, K, block_M=block_M, block_N=block_N, block_K=block_K,
                            num_stages=num_stages)

    def tuner():
        return (tile.autotuner.AutoTuner.from_kernel(kernel=kernel, configs=GEMM_CONFIGS)
                .set_compile_args(out_idx=[-1], target=TARGET)
                .set_profile_args(supply_type=tile.TensorSupplyType.Integer,
                                  ref_prog=ref_program, skip_check=False))

    result = tuner().run(warmup=2, rep=3, progress=False)
    assert result.config in GEMM_CONFIGS
    assert result.latency > 0 and result.ref_latency > 0
    assert isinstance(result.libcode, str) and result.func is result.kernel.prim_func
    assert result.kernel.config == result.config and result.kernel.latency == result.latency
    n = len(calls)
    assert n >= 3  # each config checked against the reference, which is timed too
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((N, K)).astype(np.float16)
    np.testing.assert_allclose(to_numpy(result.kernel(to_device(a), to_device(b))),
                               gemm_ref(a, b), rtol=1e-3, atol=1e-3)
    # A fresh tuner (another process) reads the result from the disk cache.
    again = tuner().run(warmup=2, rep=3, progress=False)
    assert again.config == result.config and again.latency == result.latency
    assert len(calls) == n
    # With the cache off it tunes again.
    tile.disable_cache()
    try:
        tuner().run(warmup=1, rep=1, progress=False)
    finally:
        tile.enable_cache()
    assert len(calls) > n


def test_autotuner_rejects_unknown_config_keys():
    tuner = tile.autotuner.AutoTuner.from_kernel(
        kernel=lambda block_M=32: gemm_nt.func(32, 32, 32, block_M=block_M),
        configs=[{"block_M": 32, "blok_N": 64}]).set_compile_args(out_idx=[-1], target=TARGET)
    with pytest.raises(ValueError, match="not parameters of the function: blok_N"):
        tuner.run(progress=False)


def test_autotune_decorator_over_a_lazy_kernel(tmp_path, monkeypatch, rng):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))

    @tile.autotune(configs=GEMM_CONFIGS, warmup=2, rep=3, ref_prog=gemm_ref, progress=False)
    @tile.jit(out_idx=[-1], target=TARGET)
    def matmul(M, N, K, block_M=32, block_N=32, block_K=32, num_stages=2):
        return gemm_nt.func(M, N, K, block_M=block_M, block_N=block_N, block_K=block_K,
                            num_stages=num_stages)

    k = matmul(50, 70, 40)
    assert isinstance(k, tile.JITKernel)
    assert k.config in GEMM_CONFIGS and k.latency > 0 and k.ref_latency > 0
    assert matmul(50, 70, 40) is k and matmul.compile(50, 70, 40) is k
    a = rng.standard_normal((50, 40)).astype(np.float16)
    b = rng.standard_normal((70, 40)).astype(np.float16)
    np.testing.assert_allclose(to_numpy(k(to_device(a), to_device(b))), gemm_ref(a, b),
                               rtol=1e-3, atol=1e-3)
    # Tuned arguments given: no tuning, the kernel as asked.
    given = matmul(50, 70, 40, block_M=64, block_N=64, block_K=16, num_stages=1)
    assert given is matmul.jit(50, 70, 40, block_M=64, block_N=64, block_K=16, num_stages=1)
    assert given.latency is None and given.config is None and given.ref_latency is None
    np.testing.assert_allclose(to_numpy(given(to_device(a), to_device(b))), gemm_ref(a, b),
                               rtol=1e-3, atol=1e-3)


def test_autotune_decorator_over_an_eager_kernel(tmp_path, monkeypatch, rng):
    """Over an eager kernel a call tunes, then runs the best config and
    returns its outputs (TileLang's convention); .compile gives the kernel."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    seen = []

    def ref_prog(A, B):
        seen.append(A.shape)
        return to_numpy(A) * 3 + to_numpy(B)

    @tile.autotune(configs=[{"block": 32}, {"block": 64}, {"block": 128}], warmup=2, rep=3,
                   ref_prog=ref_prog, progress=False)
    @tile.jit(target=TARGET)
    def axpy(A: T.Tensor[[int], T.float32], B: T.Tensor[[int], T.float32], block: int = 64):
        (N,) = A.shape
        C = T.empty((N,), T.float32)
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] * 3.0 + B[bx * block + i]
        return C

    a = rng.standard_normal(100).astype(np.float32)
    b = rng.standard_normal(100).astype(np.float32)
    c = axpy(to_device(a), to_device(b))
    np.testing.assert_allclose(to_numpy(c), a * 3 + b, rtol=1e-6)
    # The check ran on the call's own tensors.
    assert seen and all(tuple(s) == (100,) for s in seen)
    k = axpy.compile(to_device(a), to_device(b))
    assert isinstance(k, tile.JITKernel) and k.config in ({"block": 32}, {"block": 64},
                                                          {"block": 128})
    np.testing.assert_allclose(to_numpy(k(to_device(a), to_device(b))), a * 3 + b, rtol=1e-6)
    # Another size is another tuning; a given block skips it.
    a2 = rng.standard_normal(37).astype(np.float32)
    np.testing.assert_allclose(to_numpy(axpy(to_device(a2), to_device(a2), block=32)),
                               a2 * 4, rtol=1e-6)


def test_autotune_needs_inputs_for_scalars_and_takes_set_autotune_inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))

    @tile.autotune(configs=[{"block": 32}, {"block": 64}], warmup=1, rep=2,
                   ref_prog=lambda x, s: to_numpy(x) * s, progress=False)
    @tile.jit(out_idx=[-1], target=TARGET)
    def scale(N, block=32):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), s: T.float32, Y: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
                for i in T.Parallel(block):
                    Y[bx * block + i] = X[bx * block + i] * s
        return main

    with pytest.raises(ValueError, match="cannot make its scalar input 's'.*"
                                         "set_autotune_inputs"):
        scale(90)
    x = np.arange(90, dtype=np.float32)
    with tile.autotuner.set_autotune_inputs(to_device(x), 3.0):
        assert tile.autotuner.get_autotune_inputs()[1] == 3.0
        k = scale(90)
    assert tile.autotuner.get_autotune_inputs() is None
    assert k.config in ({"block": 32}, {"block": 64})
    np.testing.assert_allclose(to_numpy(k(to_device(x), 0.5)), x * 0.5)


def test_autotune_skips_configs_that_fail(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))

    @tile.autotune(configs=[{"scale": 1.0}, {"scale": 2.0}, {"scale": -1.0}], warmup=1, rep=2,
                   ref_prog=lambda x: to_numpy(x) * 2, progress=False)
    @tile.jit(out_idx=[-1], target=TARGET)
    def scaled(N, scale=1.0):
        if scale < 0:
            raise tile.TileError("negative scales are not built")

        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                for i in T.Parallel(N):
                    Y[i] = X[i] * scale
        return main

    with pytest.warns(UserWarning, match="is wrong"):
        k = scaled(33)
    assert k.config == {"scale": 2.0}
    with pytest.raises(ValueError, match="@tile.autotune takes keyword arguments"):
        tile.autotune(lambda: None)
    with pytest.raises(ValueError, match="needs configs"):
        tile.autotune()


# ---------------------------------------------------------------------------
# tile.profiler
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["event", "cupti", "cudagraph"])
def test_do_bench_backends_and_results(backend):
    """Host work timed on the host (device="cpu", as without a GPU): every
    backend is the steady clock there. GPU kernels: the profiler test."""
    calls = []

    def fn():
        calls.append(1)
        sum(range(200))

    ms = tile.profiler.do_bench(fn, warmup=1, rep=2, backend=backend, device="cpu")
    assert isinstance(ms, float) and ms > 0
    calls.clear()
    times = tile.profiler.do_bench(fn, _n_warmup=3, _n_repeat=7, return_mode="all",
                                   backend=backend, device="cpu")
    assert len(times) == 7 and len(calls) == 1 + 3 + 3 + 7  # first, estimate, warm-up, timed
    q = tile.profiler.do_bench(fn, _n_warmup=1, _n_repeat=9, quantiles=[0.1, 0.5, 0.9],
                               device="cpu")
    assert len(q) == 3 and q[0] <= q[1] <= q[2]
    assert tile.profiler.do_bench(fn, _n_warmup=1, _n_repeat=9, quantiles=[0.5],
                                  device="cpu") > 0
    for mode in ("mean", "median", "min", "max"):
        assert tile.profiler.do_bench(fn, _n_warmup=1, _n_repeat=3, return_mode=mode,
                                      device="cpu") > 0


def test_do_bench_argument_errors_and_early_stop():
    with pytest.raises(ValueError, match="unknown profiler backend 'nvtx'"):
        tile.profiler.do_bench(lambda: None, backend="nvtx")
    with pytest.raises(ValueError, match="return_mode must be one of"):
        tile.profiler.do_bench(lambda: None, return_mode="p50")
    import time
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.002)

    est = tile.profiler.do_bench(slow, rep=1000, early_stop_baseline=0.001, device="cpu")
    assert est >= 1.5 and len(calls) == 4  # the first call and the estimate's three


def test_profiler_inputs_checks_and_timing(rng):
    k = gemm_nt(70, 45, 40)
    p = k.get_profiler(tensor_supply_type=tile.TensorSupplyType.Integer)
    assert p.func is k and p.result_idx == [2]
    assert [(q.dtype, q.shape) for q in p._get_params()] == [(T.float16, [70, 40]),
                                                             (T.float16, [45, 40])]
    a, b = p._get_inputs()
    assert to_numpy(a).dtype == np.float16 and set(np.unique(to_numpy(a))) <= {-2, -1, 0, 1, 2}
    assert len(p._get_inputs(with_output=True)) == 3
    p.assert_allclose(gemm_ref, atol=1e-2, rtol=1e-2)
    with pytest.raises(AssertionError, match="output 0: too many mismatched elements"):
        p.assert_allclose(lambda x, y: gemm_ref(x, y) + 1)
    # A few elements off fit in max_mismatched_ratio.
    def few_off(x, y):
        r = gemm_ref(x, y)
        r[0, :3] += 100
        return r
    p.assert_allclose(few_off, max_mismatched_ratio=0.01)
    with pytest.raises(AssertionError):
        p.assert_allclose(few_off, max_mismatched_ratio=0.0)
    seen = []
    p.manual_assert_close(gemm_ref, manual_check_prog=lambda outs, refs: seen.append(
        np.allclose(to_numpy(outs[0]), refs[0], atol=1e-2)))
    assert seen == [True]
    p.assert_consistent(repeat=2)
    assert to_numpy(p.run_once()).shape == (70, 45)
    for backend in ("event", "cupti", "cudagraph"):
        assert p.do_bench(warmup=1, rep=2, backend=backend) > 0
    assert p.do_bench(gemm_ref, n_warmup=1, n_repeat=2) > 0
    assert p.get_latency(warmup=1, rep=2) > 0
    assert len(p.do_bench(n_warmup=1, n_repeat=4, return_mode="all")) >= 1 or TARGET != "cpu"
    zeros = k.get_profiler(tile.TensorSupplyType.Zero)
    assert not np.any(to_numpy(zeros.run_once()))
    with pytest.raises(TypeError, match="tensor_supply_type must be a tile.TensorSupplyType"):
        k.get_profiler("Integer")


# ---------------------------------------------------------------------------
# tile.utils.tensor
# ---------------------------------------------------------------------------


def test_tensor_supply_follows_tilelang():
    S = tile.TensorSupplyType
    tile.testing.set_random_seed(3)

    def draw(kind, d, shape=(2000,)):
        return tile.utils.get_tensor_supply(kind, device="cpu")(KernelParam(d, shape, "x"))

    x = draw(S.Auto, T.float16)
    assert x.dtype == np.float16 and x.min() >= -1 and x.max() <= 1
    x = draw(S.Auto, T.int32)
    assert set(np.unique(x)) == {-2, -1, 0, 1, 2}
    x = draw(S.Integer, T.uint8)
    assert x.dtype == np.uint8 and set(np.unique(x)) == {0, 1, 2}
    assert set(np.unique(draw(S.Integer, T.float32))) == {-2, -1, 0, 1, 2}
    assert np.all(draw(S.Normal, T.int8) == 1)  # TileLang's: ones for int8
    assert abs(draw(S.Normal, T.float32).mean() + 1) < 0.1  # mean -1, as TileLang's
    assert abs(draw(S.Randn, T.float32).mean()) < 0.1
    assert np.all(draw(S.One, T.float32) == 1) and not np.any(draw(S.Zero, T.int32))
    assert draw(S.Auto, T.bool).dtype == np.bool_
    with pytest.raises(ValueError, match="dynamic shape"):
        draw(S.Auto, T.float32, (None, 4))
    with pytest.raises(ValueError, match="is a scalar"):
        draw(S.Auto, T.float32, ())
    with pytest.raises(TypeError, match="supply_type must be a tile.TensorSupplyType"):
        tile.utils.get_tensor_supply("Auto")
    tile.testing.set_random_seed(3)
    first = draw(S.Randn, T.float32)
    tile.testing.set_random_seed(3)
    np.testing.assert_array_equal(draw(S.Randn, T.float32), first)


def test_torch_assert_close():
    from tile.utils.tensor import torch_assert_close
    a = np.linspace(-1, 1, 1000).astype(np.float32)
    assert torch_assert_close(a, a + 1e-4, rtol=0, atol=1e-3) is True
    b = a.copy()
    b[::200] += 1  # 5 of 1000
    torch_assert_close(a, b, max_mismatched_ratio=0.005)
    with pytest.raises(AssertionError, match=r"5 of 1000 elements differ.*first at \[0\]"):
        torch_assert_close(a, b, max_mismatched_ratio=0.004, base_name="out", ref_name="ref")
    with pytest.raises(AssertionError, match=r"has shape \(1000,\), RHS \(999,\)"):
        torch_assert_close(a, a[:999])
    with pytest.raises(AssertionError, match="has dtype float32, RHS float64"):
        torch_assert_close(a, a.astype(np.float64))
    torch_assert_close(a, a.astype(np.float64), check_dtype=False)
    nan = np.array([np.nan, 1.0])
    torch_assert_close(nan, nan)
    with pytest.raises(AssertionError):
        torch_assert_close(nan, nan, equal_nan=False)
    assert tile.testing.torch_assert_close is torch_assert_close
    assert tile.utils.is_float8_dtype(T.float8_e4m3) and not tile.utils.is_float8_dtype("float16")


def test_torch_helpers():
    torch = pytest.importorskip("torch")
    from tile.utils.tensor import map_torch_type, torch_assert_close
    assert map_torch_type("float16") is torch.float16
    assert map_torch_type("e4m3_float8") is torch.float8_e4m3fn
    torch_assert_close(torch.ones(3), torch.ones(3))
    with pytest.raises(AssertionError, match="dtype"):
        torch_assert_close(torch.ones(3), torch.ones(3, dtype=torch.float16))
    x = tile.utils.get_tensor_supply(tile.TensorSupplyType.Auto, device="cpu")(
        KernelParam(T.float16, [4], "x"))
    assert isinstance(x, np.ndarray)  # the CPU target takes NumPy arrays


# ---------------------------------------------------------------------------
# tile.testing, tile.env, tile.cache, tile.carver
# ---------------------------------------------------------------------------


def test_testing_requirements():
    tt = tile.testing
    on_gpu = env.cuda_device()[0] is not None
    assert tt.requires_cuda.available() is on_gpu
    assert tt.requires_llvm.available() and not tt.requires_rocm.available()
    mark = tt.requires_cuda.marks()[0]
    assert mark.name == "skipif" and mark.args[0] is (not on_gpu)
    r = tt.requires_cuda_compute_version(8, 0)
    assert r.available() == (on_gpu and tt.compute_version() >= (8, 0))
    assert not tt.requires_cuda_compute_version_lt(0, 0).available()
    assert tt.requires_package("numpy").available()
    assert not tt.requires_package("no_such_package_here").available()
    with pytest.raises(ValueError, match="mode must be"):
        tt.requires_cuda_compute_version(9, 0, mode="approx")

    @tt.requires_package("no_such_package_here")
    def skipped():
        pass
    assert skipped.pytestmark[0].args[0] is True


def test_testing_main_and_regression(tmp_path):
    (tmp_path / "test_small.py").write_text(textwrap.dedent('''
        import tilelang.testing

        @tilelang.testing.requires_llvm
        def test_ok():
            assert tilelang.cdiv(5, 2) == 3

        def regression_one():
            tilelang.testing.process_func(lambda: 1.5, "one")

        def regression_two():
            return 2.5

        if __name__ == "__main__":
            import sys
            if sys.argv[1:] == ["perf"]:
                sys.argv[1:] = []
                tilelang.testing.regression()
            else:
                tilelang.testing.main()
    '''))
    r = run_python(["-m", "tile.compat", "test_small.py", "-q", "-p", "no:cacheprovider"],
                   cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout
    r = run_python(["-m", "tile.compat", "test_small.py", "perf"], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "| one | 1.500000 |" in r.stdout and "| two | 2.500000 |" in r.stdout


def test_env_and_cache(tmp_path, monkeypatch, rng):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    assert tile.is_cache_enabled() and env.cache_dir() == str(tmp_path)
    assert env.env is env and env.TILELANG_CACHE_DIR == str(tmp_path)
    tile.disable_cache()
    try:
        assert not tile.is_cache_enabled() and env.cache_dir() == ""
        assert not tile.cache.is_cache_enabled()
    finally:
        tile.enable_cache()
    assert tile.is_cache_enabled()
    monkeypatch.setenv("TILELANG_DISABLE_CACHE", "1")
    assert not env.is_cache_enabled()
    monkeypatch.delenv("TILELANG_DISABLE_CACHE")
    monkeypatch.setenv("TILELANG_AUTO_TUNING_DISABLE_CACHE", "1")
    assert env.is_autotune_cache_disabled()
    monkeypatch.delenv("TILELANG_AUTO_TUNING_DISABLE_CACHE")
    # A kernel on disk, an autotuning record; clear_cache removes both.
    k = tile.compile(gemm_nt.get_ir(24, 24, 24, block_M=16), out_idx=[-1], target=TARGET)
    (tmp_path / "autotune").mkdir(exist_ok=True)
    (tmp_path / "autotune" / "x.json").write_text("{}")
    assert any(p.name != "autotune" for p in tmp_path.iterdir())
    assert tile.cache.clear_cache() >= 1
    assert not (tmp_path / "autotune").exists()
    # Kernels made before keep working; the next compile is a fresh one.
    a = rng.standard_normal((24, 24)).astype(np.float16)
    np.testing.assert_allclose(to_numpy(k(to_device(a), to_device(a))), gemm_ref(a, a),
                               rtol=1e-3, atol=1e-3)
    again = tile.cache.cached(gemm_nt.get_ir(24, 24, 24, block_M=16), [-1], target=TARGET)
    assert again.cache == "compiled"


def test_env_reads_tilelangs_variables(monkeypatch):
    monkeypatch.delenv("TILE_TARGET", raising=False)
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", "llvm")
    assert env.get_default_target() == "llvm" and tile.resolve_target() == "cpu"
    monkeypatch.setenv("TILE_TARGET", TARGET)
    monkeypatch.setenv("TILELANG_VERBOSE", "1")
    assert env.verbose() and env.get_default_verbose()


@pytest.mark.skipif(TARGET == "cuda", reason="checks the answer without a GPU")
def test_carver_driver_without_a_gpu():
    from tile.carver.arch import driver
    if driver.get_cuda_device_properties() is not None:
        pytest.skip("torch sees a GPU")
    assert driver.get_device_name() is None
    with pytest.raises(RuntimeError, match="no CUDA device 0"):
        driver.get_num_sms()


@pytest.mark.skipif(TARGET != "cuda", reason="needs the GPU")
def test_carver_driver_on_the_gpu():
    pytest.importorskip("torch")
    from tile.carver.arch import driver
    assert driver.get_num_sms() > 0 and driver.get_device_name()
    assert driver.get_shared_memory_per_block(format="kb") >= 48


# ---------------------------------------------------------------------------
# scripts/run-tilelang-examples.py
# ---------------------------------------------------------------------------


def test_examples_script_table(tmp_path):
    root = tmp_path / "examples"
    write_program(root / "good")
    write_program(root / "broken", body='''
        import tilelang
        import tilelang.language as T

        @tilelang.jit(out_idx=[-1], target="cpu")
        def k(N):
            @T.prim_func
            def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
                with T.Kernel(1, threads=32) as _:
                    T.no_such_operation(A, B)
            return main

        print("starting")
        k(8)
    ''', name="example_broken.py")
    write_program(root / "check", body='''
        print("Ref latency: 1.25 ms")
        print("❌ Verification FAILED: Results differ significantly.")
    ''', name="example_check.py")
    write_program(root / "slow", body="import time\nprint('123 TFlops')\ntime.sleep(60)\n",
                  name="example_slow.py")
    (root / "good" / "not_an_example.py").write_text("raise SystemExit(1)\n")
    out = tmp_path / "table.md"
    r = run_python([SCRIPT, str(root), "--timeout", "10", "--out", str(out),
                    "--json", str(tmp_path / "r.json")], cwd=str(tmp_path), timeout=600)
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    rows = {line.split("|")[1].strip(): line for line in lines if line.startswith("| ")}
    assert set(rows) == {"program", "---", "broken/example_broken.py", "check/example_check.py",
                         "good/example_axpy.py", "slow/example_slow.py"}
    assert "| passed |" in rows["good/example_axpy.py"]
    assert re.search(r"latency: \d+\.\d+ ms", rows["good/example_axpy.py"])
    assert "failed: AttributeError" in rows["broken/example_broken.py"] and \
        "no_such_operation" in rows["broken/example_broken.py"]
    assert "failed: ❌ Verification FAILED" in rows["check/example_check.py"]
    assert "Ref latency: 1.25 ms" in rows["check/example_check.py"]
    assert "failed: timed out after 10 s" in rows["slow/example_slow.py"]
    assert "1 of 4 passed" in r.stdout
    assert out.read_text().strip() == r.stdout.strip()
    only = run_python([SCRIPT, str(root), "-k", "good"], cwd=str(tmp_path))
    assert only.returncode == 0 and "1 of 1 passed" in only.stdout


def test_contrib_nvcc_queries():
    from tile.contrib import nvcc
    assert nvcc.get_target_compute_version("sm_90a") == "9.0"
    assert nvcc.get_target_compute_version({"arch": "sm_100a"}) == "10.0"
    assert nvcc.get_target_compute_version("sm_89") == "8.9"
    assert nvcc.parse_compute_version("8.6") == (8, 6)
    assert nvcc.get_target_arch("9.0") == "90a" and nvcc.get_target_arch((8, 0)) == "80"
    assert nvcc.have_fp8("8.9") and not nvcc.have_fp8("8.6") and nvcc.have_bf16("8.0")
    assert nvcc.have_tma("sm_90a") and not nvcc.have_tma("sm_80")
    assert nvcc.is_hopper("sm_90a") and not nvcc.is_hopper("sm_100a")
    with pytest.raises(ValueError, match="unsupported arch"):
        nvcc.get_target_compute_version("sm_x")
    info, _ = tile.env.cuda_device()
    if info is None:
        with pytest.raises(ValueError, match="no CUDA device was found"):
            nvcc.get_target_compute_version()
    else:
        assert nvcc.get_target_compute_version() == \
            nvcc.get_target_compute_version(info["chip"])


def test_engine_callbacks_are_kept_and_noted():
    from tile.engine import callback
    tile.env._noted.clear()

    def rewrite(code, target):
        return code

    with pytest.warns(UserWarning, match="never called"):
        assert callback.register_cuda_postproc_callback(rewrite) is rewrite
    assert callback.registered["cuda"] is rewrite
    assert callback.register_hip_postproc_callback(override=True)(rewrite) is rewrite
    with pytest.raises(ValueError, match="already registered"):
        callback.register_cuda_postproc(rewrite, override=False)
    with pytest.raises(TypeError, match="must be callable"):
        callback.register_c_postproc(3)
    tile.env._noted.clear()


def test_deepen_pipelines_merges_narrow_k_steps():
    """deepen_pipelines (on by default) also merges a GEMM loop's 32-wide f16
    K steps in pairs on sm_90a (tile-widen-k-steps): each step then issues
    four k16 wgmma per warpgroup tile instead of two, so the PTX has more of
    them; off, the loop runs as written. On sm_80 (no wgmma) the steps stay."""
    from tile._ext import ext

    def ptx(chip, deepen):
        ir = gemm_nt.get_ir(256, 256, 256, block_M=128, block_N=128, block_K=32,
                            num_stages=3).ir
        text, diags = ext.device_source(ir, "cuda", chip,
                                        **env.codegen_options({"deepen_pipelines": deepen}))
        if not text:
            pytest.skip(f"this build does not lower to PTX ({[d.message for d in diags][:1]})")
        return text

    merged, written = ptx("sm_90a", True), ptx("sm_90a", False)
    assert merged.count("wgmma.mma_async") > written.count("wgmma.mma_async") > 0
    assert "k16" in merged
