"""JIT behaviour: caching, par_compile, autotune, profiler, kernel source."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy
from gemm import matmul  # python/examples/gemm.py: TileLang's GEMM tutorial


def ref(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


def test_lazy_kernel_is_cached_per_arguments():
    k = matmul(64, 48, 40)
    assert matmul(64, 48, 40) is k
    assert matmul(64, 48, K=40, block_M=128) is k
    assert matmul(64, 48, 40, block_M=64) is not k


def test_tile_par_compile_matches_serial(rng):
    funcs = [matmul.get_ir(150, 140, 70, block_M=bm, block_N=bn)
             for bm in (64, 128) for bn in (64, 128)]
    kernels = tile.par_compile(funcs, out_idx=[-1], target=TARGET, num_workers=2)
    a = rng.standard_normal((150, 70)).astype(np.float16)
    b = rng.standard_normal((70, 140)).astype(np.float16)
    for k in kernels:
        np.testing.assert_allclose(to_numpy(k(to_device(a), to_device(b))), ref(a, b),
                                   rtol=1e-3, atol=1e-3)


def test_par_compile_on_the_decorated_function_fills_its_cache():
    configs = [{"M": 40, "N": 40, "K": 40, "block_M": bm} for bm in (32, 64, 128)]
    kernels = matmul.par_compile(configs, progress=False)
    assert all(k is not None for k in kernels)
    assert matmul(40, 40, 40, block_M=64) is kernels[1]


def test_eager_par_compile_with_placeholders(rng):
    @tile.jit(target=TARGET)
    def double(A: T.Tensor[[int], T.float32], block: int = 32):
        (N,) = A.shape
        B = T.empty((N,), T.float32)
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * 2
        return B

    kernels = double.par_compile([{"A": T.Tensor((100,), T.float32), "block": b}
                                  for b in (32, 64)], progress=False)
    a = rng.standard_normal(100).astype(np.float32)
    for k in kernels:
        np.testing.assert_allclose(to_numpy(k(to_device(a))), a * 2)
    assert double.compile(to_device(a), block=64) is kernels[1]


def test_kernel_source_and_cache_result():
    k = matmul(32, 32, 32, block_M=64)
    assert "tile.gemm" in k.get_kernel_source("ir")
    assert k.cache in ("compiled", "in-memory hit", "disk hit")
    assert k.compile_time >= 0 and len(k.key) == 64


def test_disk_cache_is_shared_across_compilers(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    pf = matmul.get_ir(24, 24, 24, block_M=32)
    first = tile.compile(pf, out_idx=[-1], target=TARGET, pass_configs={"opt_level": 2})
    assert first.cache == "compiled"
    assert any(p.is_dir() for p in tmp_path.iterdir())
    # A fresh compiler (another process, in effect) finds it on disk.
    tile.env._compilers.clear()
    sys.modules["tile.jit"]._memo.clear()
    again = tile.compile(pf, out_idx=[-1], target=TARGET, pass_configs={"opt_level": 2})
    assert again.cache == "disk hit" and again.key == first.key


def test_debug_root_path(tmp_path):
    @tile.jit(out_idx=[-1], target=TARGET, debug_root_path=str(tmp_path))
    def copy1(N):
        @T.prim_func
        def kernel(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                t = T.alloc_fragment((N,), T.float32)
                T.copy(A, t)
                T.copy(t, B)
        return kernel

    copy1(16)
    assert "tile.copy" in (tmp_path / "kernel.mlir").read_text()


def test_profiler(rng):
    k = matmul(64, 64, 64)
    p = k.get_profiler()
    p.assert_allclose(lambda a, b: ref(to_numpy(a), to_numpy(b)), atol=1e-2, rtol=1e-2)
    with pytest.raises(AssertionError, match="elements differ"):
        p.assert_allclose(lambda a, b: ref(to_numpy(a), to_numpy(b)) + 1)
    ms = p.do_bench(warmup=1, rep=5)
    assert ms > 0
    ms_all = tile.profiler.do_bench(lambda: k(*p._get_inputs()), warmup=1, rep=5,
                                    return_mode="all")
    assert len(ms_all) >= 1 and all(t > 0 for t in ms_all)


def test_autotune_picks_and_remembers(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    calls = []

    def reference(a, b):
        calls.append(1)
        return ref(to_numpy(a), to_numpy(b))

    @tile.autotune(configs=[{"block_M": 64}, {"block_M": 128}, {"block_K": 64}], warmup=1,
                   rep=3, ref_prog=reference, progress=False)
    @tile.jit(out_idx=[-1], target=TARGET)
    def tuned(M, N, K, block_M=64, block_K=32):
        # The example's builder, with other defaults.
        return matmul.func(M, N, K, block_M=block_M, block_K=block_K)

    k = tuned(48, 48, 48)
    assert k.config in ({"block_M": 64}, {"block_M": 128}, {"block_K": 64})
    # Each config is checked against the reference, which is also timed
    # (k.ref_latency, as TileLang's).
    assert len(calls) > 3 and k.latency > 0 and k.ref_latency > 0
    n = len(calls)
    assert len(list((tmp_path / "autotune").iterdir())) == 1
    # Another process (a fresh tuner) reads the result instead of tuning.
    again = tile.autotune(configs=[{"block_M": 64}, {"block_M": 128}, {"block_K": 64}],
                          warmup=1, rep=3, ref_prog=reference, progress=False)(tuned.jit)
    k2 = again(48, 48, 48)
    assert k2.config == k.config and len(calls) == n


def test_autotune_skips_wrong_configs(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))

    @tile.autotune(configs=[{"scale": 1.0}, {"scale": 2.0}], warmup=1, rep=2,
                   ref_prog=lambda x: to_numpy(x) * 2, progress=False)
    @tile.jit(out_idx=[-1], target=TARGET)
    def scaled(N, scale=1.0):
        @T.prim_func
        def kernel(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                for i in T.Parallel(N):
                    Y[i] = X[i] * scale
        return kernel

    with pytest.warns(UserWarning, match="is wrong"):
        k = scaled(32)
    assert k.config == {"scale": 2.0}


def test_verbose_prints_cache_results(capsys, monkeypatch):
    monkeypatch.setenv("TILE_VERBOSE", "1")

    @tile.jit(out_idx=[-1], target=TARGET)
    def ident(N):
        @T.prim_func
        def kernel(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                for i in T.Parallel(N):
                    Y[i] = X[i]
        return kernel

    ident(8)
    assert "tile: @kernel for" in capsys.readouterr().out


def test_target_from_environment(monkeypatch):
    monkeypatch.setenv("TILE_TARGET", "cpu")
    assert tile.resolve_target() == "cpu"
    assert tile.resolve_target("llvm") == "cpu"
    monkeypatch.delenv("TILE_TARGET")
    assert tile.resolve_target() in ("cpu", "cuda")



def test_torch_tensors_are_read_in_place():
    """torch tensors (CPU or CUDA, as the target wants) pass through torch's
    DLPack export, or its exchange API where torch has one: storage offsets,
    strides and every check hold either way."""
    torch = pytest.importorskip("torch")
    device = "cuda" if TARGET == "cuda" else "cpu"

    @tile.jit(target=TARGET)
    def add_one(A: T.Tensor[[4, 8], T.float32], B: T.Tensor[[4, 8], T.float32]):
        with T.Kernel(1, threads=32) as _:
            for i, j in T.Parallel(4, 8):
                B[i, j] = A[i, j] + 1.0

    base = torch.arange(40, dtype=torch.float32, device=device)
    a = base[8:].reshape(4, 8)  # a storage offset
    b = torch.zeros(4, 8, device=device)
    kernel = add_one.compile(a, b)  # the JITKernel: its own checks
    kernel(a, b)
    if device == "cuda":
        torch.cuda.synchronize()
    assert torch.equal(b, a + 1)
    with pytest.raises(ValueError, match=r"argument 'A' \(#0\) is not contiguous"):
        kernel(torch.zeros(8, 8, device=device)[::2], b)
    with pytest.raises(TypeError, match=r"argument 'A' \(#0\) expects float32 elements, got float64"):
        kernel(a.double(), b)
    with pytest.raises(ValueError, match=r"argument 'B' \(#1\) has shape \(3, 8\)"):
        kernel(a, torch.zeros(3, 8, device=device))


def test_fast_math_pass_config(rng):
    # TileLang's tl.enable_fast_math: approximable math functions are marked
    # fastmath<afn> (on CUDA, exp2 is then one ex2.approx.ftz.f32); without
    # it they stay precise. Both match numpy within f32 approximation error.
    @tile.jit(out_idx=[-1], target=TARGET, pass_configs={"tl.enable_fast_math": True})
    def softexp(N):
        @T.prim_func
        def kernel(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
                for i in T.Parallel(64):
                    B[bx * 64 + i] = T.exp2(A[bx * 64 + i]) + T.floor(A[bx * 64 + i])
        return kernel

    precise = tile.compile(softexp.get_ir(100), out_idx=[-1], target=TARGET)
    fast = softexp(100)
    assert "math.exp2 %" in precise.get_kernel_source("ir")
    assert "fastmath<afn>" not in precise.get_kernel_source("ir")
    ir = fast.get_kernel_source("ir")
    assert "fastmath<afn> : f32" in ir and "fastmath<none>" not in ir
    assert "math.floor" in ir and ir.count("fastmath<afn>") == 1
    if TARGET == "cuda":
        assert "ex2.approx.ftz.f32" in fast.get_kernel_source("ptx")
        assert "ex2.approx.ftz.f32" not in precise.get_kernel_source("ptx")
    a = (rng.standard_normal(100) * 4).astype(np.float32)
    want = np.exp2(a) + np.floor(a)
    for k in (precise, fast):
        np.testing.assert_allclose(to_numpy(k(to_device(a))), want, rtol=1e-5, atol=1e-6)


def test_unknown_pass_config_warns():
    # A key tile has no counterpart for (tl.disable_tma_lower is one it
    # maps: test_compat_api.py).
    with pytest.warns(UserWarning, match="tl.disable_shuffle_elect"):
        tile.compile(matmul.get_ir(16, 16, 16, block_M=32), out_idx=[-1], target=TARGET,
                     pass_configs={"tl.disable_shuffle_elect": True})


def test_float_products_and_sums_may_fuse(rng):
    # As nvcc's default (-fmad=true) does for TileLang's kernels: a * b + c
    # may be one fma (on CUDA it is); within an ulp of the exact value.
    @tile.jit(out_idx=[-1], target=TARGET)
    def axpb(N):
        @T.prim_func
        def kernel(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
                for i in T.Parallel(64):
                    B[bx * 64 + i] = A[bx * 64 + i] * 3.0 + 0.5
        return kernel

    k = axpb(100)
    ir = k.get_kernel_source("ir")
    assert "arith.mulf" in ir and "fastmath<contract>" in ir
    if TARGET == "cuda":
        assert "fma.rn.f32" in k.get_kernel_source("ptx")
    a = rng.standard_normal(100).astype(np.float32)
    np.testing.assert_allclose(to_numpy(k(to_device(a))), a.astype(np.float64) * 3.0 + 0.5,
                               rtol=1e-6, atol=1e-6)


def test_native_objects_are_released_at_exit(tmp_path):
    # A kernel kept in a global, as scripts do: tile drops its native objects
    # at exit (atexit handlers run last-registered first, so the check,
    # registered before tile's import, runs after tile's release).
    script = tmp_path / "held.py"
    script.write_text(f"""
import atexit, gc
def check():
    import sys
    env, jit = sys.modules["tile.env"], sys.modules["tile.jit"]
    native = [k._kernel for k in jit._kernels] + list(jit._memo) + list(env._compilers)
    print("native left:", len([n for n in native if n is not None]))
atexit.register(check)
import numpy as np
import tile, tile.language as T

@tile.jit(target={TARGET!r})
def one(A: T.Tensor[[4], T.float32], B: T.Tensor[[4], T.float32]):
    with T.Kernel(1, threads=32) as _:
        for i in T.Parallel(4):
            B[i] = A[i] + 1.0

import conftest
a, b = conftest.to_device(np.arange(4, dtype=np.float32)), conftest.to_device(np.zeros(4, np.float32))
held = one.compile(a, b)
held(a, b)
assert conftest.to_numpy(b)[3] == 4
import sys
print("kernels:", len(sys.modules["tile.jit"]._kernels))
""")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(__file__), timeout=300)
    assert out.returncode == 0, out.stderr
    assert "kernels: 1" in out.stdout
    assert "native left: 0" in out.stdout, out.stdout
    assert "leaked" not in out.stderr


@pytest.mark.skipif(TARGET != "cpu", reason="NumPy arrays are CPU arrays")
def test_read_only_numpy_arrays_are_inputs_not_outputs():
    """NumPy will not export a read-only array through DLPack before 1.0;
    tile reads it through the buffer protocol instead, in place. An array
    the kernel writes must be writable: a read-only one is a ValueError
    naming it."""

    @tile.jit(target="cpu")
    def double(X: T.Tensor[[5, 7], T.float32], Y: T.Tensor[[5, 7], T.float32]):
        with T.Kernel(1, threads=32) as bx:
            f = T.alloc_fragment((5, 7), T.float32)
            T.copy(X[0, 0], f)
            for i, j in T.Parallel(5, 7):
                f[i, j] = f[i, j] * 2
            T.copy(f, Y[0, 0])

    x = np.arange(35, dtype=np.float32).reshape(5, 7)
    x.setflags(write=False)
    y = np.zeros((5, 7), np.float32)
    double(x, y)
    np.testing.assert_array_equal(y, 2 * np.arange(35, dtype=np.float32).reshape(5, 7))
    # A read-only view with strides of its own: read where it lies.
    big = np.arange(70, dtype=np.float32).reshape(5, 14)
    view = big[:, ::2]
    view.setflags(write=False)
    with pytest.raises(ValueError, match="strides"):
        double(view, y)
    y.setflags(write=False)
    with pytest.raises(ValueError, match=r"argument 'Y' \(#1\) is read-only "
                       r"\(a NumPy array with writeable=False\), but the "
                       r"kernel writes it"):
        double(x, y)


@pytest.mark.skipif(TARGET != "cpu", reason="the CPU target's grid")
def test_cpu_kernels_past_two_to_the_31_elements_and_100000_blocks():
    """A uint8 tensor of 2.2e9 elements (> 2^31) doubled through 64 x 256
    fragments: 134,400 blocks, each with 16 KiB of fragment. Buffers are a
    worker's, made once, so the stack does not grow with the grid (it grew
    by every block's buffers, and overflowed past a few hundred blocks);
    indices are 64-bit."""
    m, n = 33_600, 65_536
    assert m * n > 2**31 and (m // 64) * (n // 256) >= 100_000

    @tile.jit(target="cpu")
    def double(X: T.Tensor[[m, n], T.uint8]):
        Y = T.empty((m, n), T.uint8)
        with T.Kernel(T.ceildiv(n, 256), T.ceildiv(m, 64), threads=128) as (bx, by):
            f = T.alloc_fragment((64, 256), T.uint8)
            T.copy(X[by * 64, bx * 256], f)
            for i, j in T.Parallel(64, 256):
                f[i, j] = f[i, j] * 2
            T.copy(f, Y[by * 64, bx * 256])
        return Y

    x = np.empty((m, n), np.uint8)
    x[:] = np.arange(n, dtype=np.uint8)          # every byte value, per row
    x[:, 0] = np.arange(m, dtype=np.int64) % 251  # rows told apart
    y = double(x)
    expected = x * np.uint8(2)
    assert np.array_equal(y, expected)
