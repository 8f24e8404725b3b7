"""Each tile.language operation in a kernel, on ragged sizes, against NumPy."""

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy


def run(kernel, *arrays):
    out = kernel(*[to_device(a) if isinstance(a, np.ndarray) else a for a in arrays])
    if isinstance(out, tuple):
        return tuple(to_numpy(o) for o in out)
    return to_numpy(out)


@tile.jit(out_idx=[-1], target=TARGET)
def reduce_rows(M, N, kind, block_M=8, dtype=T.float32):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, N), dtype)
            y = T.alloc_fragment((block_M,), dtype)
            T.copy(X[bx * block_M, 0], x)
            T.reduce(x, y, kind, dim=1)
            T.copy(y, Y[bx * block_M])
    return kernel


@pytest.mark.parametrize("kind,ref", [
    ("sum", lambda x: x.sum(1)), ("max", lambda x: x.max(1)),
    ("min", lambda x: x.min(1)), ("absmax", lambda x: np.abs(x).max(1)),
    ("abssum", lambda x: np.abs(x).sum(1))])
def test_reduce_kinds(rng, kind, ref):
    x = rng.standard_normal((21, 48)).astype(np.float32)
    np.testing.assert_allclose(run(reduce_rows(21, 48, kind), x), ref(x), rtol=1e-5,
                               atol=1e-5)


@tile.jit(out_idx=[-1], target=TARGET)
def reduce_accumulate(M, N):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), T.float32), Y: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=128) as _:
            x = T.alloc_fragment((M, N), T.float32)
            y = T.alloc_fragment((N,), T.float32)
            T.fill(y, 1.5)
            T.copy(X[0, 0], x)
            T.reduce_sum(x, y, dim=0, clear=False)
            T.copy(y, Y[0])
    return kernel


def test_reduce_without_clear_accumulates(rng):
    x = rng.standard_normal((16, 32)).astype(np.float32)
    np.testing.assert_allclose(run(reduce_accumulate(16, 32), x), x.sum(0) + 1.5,
                               rtol=1e-5, atol=1e-5)


@tile.jit(out_idx=[-1], target=TARGET)
def scan(M, N, reverse):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=64) as _:
            s = T.alloc_shared((M, N), T.float32)
            T.copy(X[0, 0], s)
            T.cumsum(s, dim=1, reverse=reverse)
            T.copy(s, Y[0, 0])
    return kernel


@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum(rng, reverse):
    x = rng.standard_normal((4, 40)).astype(np.float32)
    ref = np.flip(np.cumsum(np.flip(x, 1), 1), 1) if reverse else np.cumsum(x, 1)
    np.testing.assert_allclose(run(scan(4, 40, reverse), x), ref, rtol=1e-5, atol=1e-5)


@tile.jit(target=TARGET)
def atomic_rows(M, N):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), T.float32), Total: T.Tensor((N,), T.float32),
               Count: T.Tensor((1,), T.int32)):
        with T.Kernel(M, threads=32) as bx:
            row = T.alloc_fragment((1, N), T.float32)
            T.copy(X[bx, 0], row)
            part = T.alloc_fragment((N,), T.float32)
            T.reduce_sum(row, part, dim=0)
            T.atomic_add(Total[0], part)
            for i in T.Parallel(1):
                T.atomic_add(Count[0], 1)
    return kernel


def test_atomic_add(rng):
    x = rng.standard_normal((7, 20)).astype(np.float32)
    total = np.zeros(20, np.float32)
    count = np.zeros(1, np.int32)
    k = atomic_rows(7, 20)
    t, c = to_device(total), to_device(count)
    k(to_device(x), t, c)
    np.testing.assert_allclose(to_numpy(t), x.sum(0), rtol=1e-5, atol=1e-5)
    assert to_numpy(c)[0] == 7


@tile.jit(out_idx=[-1], target=TARGET)
def gemm_variant(M, N, K, trans_A, trans_B, policy, dtype=T.float16, accum=T.float32,
                 block_M=64, block_N=64, block_K=32, clear_each=False):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def kernel(A: T.Tensor(A_shape, dtype), B: T.Tensor(B_shape, dtype),
               C: T.Tensor((M, N), accum)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            As = T.alloc_shared(A_tile, dtype)
            Bs = T.alloc_shared(B_tile, dtype)
            acc = T.alloc_fragment((block_M, block_N), accum)
            T.clear(acc)
            for k in T.serial(T.ceildiv(K, block_K)):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], As)
                else:
                    T.copy(A[by * block_M, k * block_K], As)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], Bs)
                else:
                    T.copy(B[k * block_K, bx * block_N], Bs)
                T.gemm(As, Bs, acc, transpose_A=trans_A, transpose_B=trans_B, policy=policy,
                       clear_accum=clear_each)
            T.copy(acc, C[by * block_M, bx * block_N])
    return kernel


@pytest.mark.parametrize("trans_A,trans_B,policy", [
    (False, False, T.GemmWarpPolicy.Square), (True, False, T.GemmWarpPolicy.FullRow),
    (False, True, T.GemmWarpPolicy.FullCol), (True, True, T.GemmWarpPolicy.Square)])
def test_gemm_transposes_and_policies(rng, trans_A, trans_B, policy):
    M, N, K = 45, 50, 37
    a = rng.standard_normal((K, M) if trans_A else (M, K)).astype(np.float16)
    b = rng.standard_normal((N, K) if trans_B else (K, N)).astype(np.float16)
    ref = (a.T if trans_A else a).astype(np.float32) @ (b.T if trans_B else b).astype(np.float32)
    c = run(gemm_variant(M, N, K, trans_A, trans_B, policy), a, b)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-3)


def test_gemm_clear_accum_keeps_the_last_step(rng):
    M, N, K = 64, 64, 80
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = run(gemm_variant(M, N, K, False, False, "square", clear_each=True), a, b)
    ref = a[:, 64:].astype(np.float32) @ b[64:].astype(np.float32)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-3)


@tile.jit(out_idx=[-1], target=TARGET)
def dequant_bias_relu(M, N, K, block_M=128, block_N=128, block_K=32):
    """C = relu(A (Q * S)^T + Bias): int8 weights dequantized in each K step,
    a bias and ReLU after the loop; S and Bias padded to whole tiles."""
    padded = T.ceildiv(N, block_N) * block_N

    @T.prim_func
    def kernel(A: T.Tensor((M, K), T.float16), Q: T.Tensor((N, K), T.int8),
               S: T.Tensor((padded,), T.float16), Bias: T.Tensor((padded,), T.float32),
               C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            As = T.alloc_shared((block_M, block_K), T.float16)
            Qs = T.alloc_shared((block_N, block_K), T.int8)
            Ws = T.alloc_shared((block_N, block_K), T.float16)
            acc = T.alloc_fragment((block_M, block_N), T.float32)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], As)
                T.copy(Q[bx * block_N, k * block_K], Qs)
                for i, j in T.Parallel(block_N, block_K):
                    Ws[i, j] = Qs[i, j].astype(T.float16) * S[bx * block_N + i]
                T.gemm(As, Ws, acc, transpose_B=True)
            for i, j in T.Parallel(block_M, block_N):
                acc[i, j] = T.max(acc[i, j] + Bias[bx * block_N + j], 0)
            T.copy(acc, C[by * block_M, bx * block_N])
    return kernel


@pytest.mark.parametrize("block_M,gpu_M", [(128, 2100), (64, 2250)])
def test_gemm_with_merged_blocks(rng, block_M, gpu_M):
    """A dequantizing GEMM with an epilogue at 128 x 128 and 64 x 128 tiles,
    at ragged sizes. On an sm_90a GPU their grids (32 x 17 and 32 x 36
    blocks) are big enough for tile-merge-blocks to make them 16 x 17 and
    16 x 18 blocks of 128 x 256 tiles, the last ones partly outside C; on the
    CPU they run as written, at smaller sizes."""
    M, N, K = (gpu_M, 4000, 100) if TARGET != "cpu" else (200, 300, 100)
    padded = -(-N // 128) * 128
    a = rng.standard_normal((M, K)).astype(np.float16)
    q = rng.integers(-128, 128, (N, K)).astype(np.int8)
    s = (rng.integers(1, 8, padded) / 64).astype(np.float16)
    bias = rng.standard_normal(padded).astype(np.float32)
    w = q.astype(np.float16) * s[:N, None]
    ref = np.maximum(a.astype(np.float32) @ w.astype(np.float32).T + bias[:N], 0)
    c = run(dequant_bias_relu(M, N, K, block_M=block_M), a, q, s, bias)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-2)


def test_gemm_int8(rng):
    M, N, K = 33, 40, 50
    a = rng.integers(-100, 100, (M, K)).astype(np.int8)
    b = rng.integers(-100, 100, (K, N)).astype(np.int8)
    c = run(gemm_variant(M, N, K, False, False, "square", dtype=T.int8, accum=T.int32), a, b)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


@tile.jit(out_idx=[-1], target=TARGET)
def swizzled_copy(M, N, panel):
    @T.prim_func
    def kernel(A: T.Tensor((M, N), T.float16), B: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 16), threads=64) as (bx, by):
            T.use_swizzle(panel)
            s = T.alloc_shared((16, 32), T.float16)
            p = T.alloc_shared((16, 32), T.float16)
            T.annotate_layout({s: T.make_swizzled_layout(s), p: "#tile.padded<8>"})
            T.copy(A[by * 16, bx * 32], s)
            T.copy(s, p)
            T.copy(p, B[by * 16, bx * 32])
    return kernel


def test_use_swizzle_and_layouts(rng):
    a = rng.standard_normal((70, 100)).astype(np.float16)
    k = swizzled_copy(70, 100, 2)
    assert "raster(#tile.raster<2>)" in k.ir
    assert "layout(#tile.swizzle<64>)" in k.ir and "layout(#tile.padded<8>)" in k.ir
    np.testing.assert_array_equal(run(k, a), a)


@tile.jit(out_idx=[-1], target=TARGET)
def persistent_gemm(M, N, K):
    @T.prim_func
    def kernel(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
               C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128,
                      persistent=True) as (bx, by):
            T.use_swizzle(2)
            a = T.alloc_shared((64, 32), T.float16)
            b = T.alloc_shared((32, 64), T.float16)
            c = T.alloc_fragment((64, 64), T.float32)
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
                T.copy(A[by * 64, k * 32], a)
                T.copy(B[k * 32, bx * 64], b)
                T.gemm(a, b, c)
            T.copy(c, C[by * 64, bx * 64])
    return kernel


def test_persistent_kernel(rng):
    M, N, K = 130, 200, 70
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    k = persistent_gemm(M, N, K)
    assert "raster(#tile.raster<2>) persistent {" in k.ir
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(run(k, a, b), ref, rtol=1e-3, atol=1e-2)


@tile.jit(out_idx=[-1], target=TARGET)
def control_flow(N, threshold):
    @T.prim_func
    def kernel(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            for i in T.Parallel(64):
                x = X[bx * 64 + i]
                if x > threshold:
                    Y[bx * 64 + i] = x * 2
                elif x < -threshold and not (x < -10.0):
                    Y[bx * 64 + i] = T.abs(x)
                else:
                    Y[bx * 64 + i] = T.if_then_else(x > 0, 1.0, -1.0)
    return kernel


def test_runtime_if_elif_else(rng):
    x = (rng.standard_normal(150) * 3).astype(np.float32)
    ref = np.where(x > 1, x * 2, np.where((x < -1) & ~(x < -10), np.abs(x),
                                          np.where(x > 0, 1.0, -1.0))).astype(np.float32)
    np.testing.assert_allclose(run(control_flow(150, 1.0), x), ref, rtol=1e-6)


@tile.jit(out_idx=[-1], target=TARGET)
def counting(N, steps):
    @T.prim_func
    def kernel(X: T.Tensor((N,), T.int32), Y: T.Tensor((N,), T.int32)):
        with T.Kernel(1, threads=32) as _:
            acc = T.alloc_var(T.int32, 0)
            for k in T.serial(steps):
                acc = acc + X[k]
            for k in range(2, steps, 3):
                acc += X[k] * 10
            for i in T.Parallel(N):
                Y[i] = acc + i
    return kernel


def test_alloc_var_and_serial_loops():
    x = np.arange(1, 41, dtype=np.int32)
    expected = int(x[:12].sum() + 10 * x[2:12:3].sum())
    np.testing.assert_array_equal(run(counting(40, 12), x), expected + np.arange(40))


@tile.jit(out_idx=[-1], target=TARGET)
def math_ops(N):
    @T.prim_func
    def kernel(X: T.Tensor((N,), T.float32), Y: T.Tensor((N, 12), T.float32)):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i in T.Parallel(32):
                r = bx * 32 + i
                x = X[r]
                Y[r, 0] = T.exp(x)
                Y[r, 1] = T.exp2(x)
                Y[r, 2] = T.log(T.abs(x) + 1)
                Y[r, 3] = T.sqrt(T.abs(x))
                Y[r, 4] = T.rsqrt(T.abs(x) + 1)
                Y[r, 5] = T.sin(x)
                Y[r, 6] = T.cos(x)
                Y[r, 7] = T.max(x, 0.25)
                Y[r, 8] = T.min(x, -0.25)
                Y[r, 9] = T.cast(T.cast(x * 100, T.int32), T.float32)
                Y[r, 10] = T.cast(T.cast(x, T.float16), T.float32)
                Y[r, 11] = x // 0.5 + x % 0.75
    return kernel


def test_math(rng):
    x = rng.standard_normal(45).astype(np.float32)
    y = run(math_ops(45), x)
    refs = [np.exp(x), np.exp2(x), np.log(np.abs(x) + 1), np.sqrt(np.abs(x)),
            1 / np.sqrt(np.abs(x) + 1), np.sin(x), np.cos(x), np.maximum(x, 0.25),
            np.minimum(x, -0.25), np.trunc(x * 100), x.astype(np.float16).astype(np.float32),
            np.floor(x / 0.5) + x % 0.75]
    for c, ref in enumerate(refs):
        np.testing.assert_allclose(y[:, c], ref, rtol=1e-5, atol=1e-6, err_msg=f"column {c}")


@tile.jit(out_idx=[-1], target=TARGET)
def rows_of_4d(B, H, S, D):
    @T.prim_func
    def kernel(Q: T.Tensor((B, H, S, D), T.float32), O: T.Tensor((B, H, S, D), T.float32)):
        with T.Kernel(T.ceildiv(S, 16), H, B, threads=64) as (bx, by, bz):
            t = T.alloc_fragment((16, D), T.float32)
            T.copy(Q[bz, by, bx * 16:(bx + 1) * 16, :], t)
            for i, j in T.Parallel(16, D):
                t[i, j] = t[i, j] + by * 100 + bz * 1000
            T.copy(t, O[bz, by, bx * 16, 0])
    return kernel


def test_copy_from_higher_rank_tensors(rng):
    q = rng.standard_normal((2, 3, 20, 8)).astype(np.float32)
    ref = q + np.arange(3)[None, :, None, None] * 100 + np.arange(2)[:, None, None, None] * 1000
    np.testing.assert_allclose(run(rows_of_4d(2, 3, 20, 8), q), ref, rtol=1e-6)


@tile.jit(out_idx=[-1], target=TARGET)
def scaled_dynamic(block=32):
    N = T.symbolic("N")

    @T.prim_func
    def kernel(X: T.Tensor((N, 3), T.float32), alpha: T.float32, shift: T.int32,
               Y: T.Tensor((N, 3), T.float32)):
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            t = T.alloc_fragment((block, 3), T.float32)
            T.copy(X[bx * block, 0], t)
            for i, j in T.Parallel(block, 3):
                t[i, j] = t[i, j] * alpha + shift
            T.copy(t, Y[bx * block, 0])
    return kernel


@pytest.mark.parametrize("n", [1, 31, 100])
def test_dynamic_sizes_scalars_and_outputs(rng, n):
    x = rng.standard_normal((n, 3)).astype(np.float32)
    k = scaled_dynamic()
    # Against the exact value: x * 2.5 - 3 may be one fma (one rounding) or
    # two roundings; both are within an ulp of x * 2.5.
    np.testing.assert_allclose(run(k, x, 2.5, -3), x.astype(np.float64) * 2.5 - 3,
                               rtol=1e-6, atol=1e-6)


@tile.jit(out_idx=[-1], target=TARGET)
def gemm_fnuz(M, N, K, a_dtype, b_dtype, block=32):
    @T.prim_func
    def kernel(A: T.Tensor((M, K), T.float32), B: T.Tensor((N, K), T.float32),
               C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            As = T.alloc_shared((block, block), a_dtype)
            Bs = T.alloc_shared((block, block), b_dtype)
            acc = T.alloc_fragment((block, block), T.float32)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=1):
                T.copy(A[by * block, k * block], As)
                T.copy(B[bx * block, k * block], Bs)
                T.gemm(As, Bs, acc, transpose_B=True)
            T.copy(acc, C[by * block, bx * block])
    return kernel


@pytest.mark.parametrize("a_dtype,b_dtype", [
    (T.float8_e4m3fnuz, T.float8_e5m2fnuz), (T.float8_e5m2fnuz, T.float8_e5m2fnuz)])
def test_gemm_fp8_fnuz(rng, a_dtype, b_dtype):
    # Quarters in [-2, 2) have at most two mantissa bits, so both FNUZ types
    # hold them exactly (the copies do not round), and their products' sums
    # are exact in f32.
    M, N, K = 45, 37, 61
    a = (rng.integers(-8, 8, (M, K)) / 4).astype(np.float32)
    b = (rng.integers(-8, 8, (N, K)) / 4).astype(np.float32)
    c = run(gemm_fnuz(M, N, K, a_dtype, b_dtype), a, b)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.T.astype(np.float64))


@tile.jit(out_idx=[-1], target=TARGET)
def round_trip(N, dtype):
    @T.prim_func
    def kernel(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=32) as _:
            f = T.alloc_fragment((N,), dtype)
            T.copy(X[0], f)
            T.copy(f, Y[0])
    return kernel


def test_fnuz_dtypes_round_trip():
    assert T.float8_e4m3fnuz.ir == "f8E4M3FNUZ"
    assert T.float8_e5m2fnuz.ir == "f8E5M2FNUZ"
    assert tile.language.dtypes.as_dtype("float8_e5m2fnuz") is T.float8_e5m2fnuz
    # Nearest even; the largest finite values (240, 57344); too large a
    # value, infinity and NaN become the one NaN; -0 and tiny negatives +0.
    x = np.array([1.0625, 1.1875, 240.0, 248.0, np.inf, np.nan, -0.0, -1e-6,
                  -3.0, 2.0**-10], np.float32)
    e4m3 = run(round_trip(len(x), T.float8_e4m3fnuz), x)
    np.testing.assert_array_equal(
        e4m3, [1.0, 1.25, 240.0, np.nan, np.nan, np.nan, 0.0, 0.0, -3.0, 2.0**-10])
    assert not np.signbit(e4m3[6]) and not np.signbit(e4m3[7])
    y = np.array([57344.0, 61440.0, 2.0**-17, 1.125, -1.125], np.float32)
    np.testing.assert_array_equal(run(round_trip(len(y), T.float8_e5m2fnuz), y),
                                  [57344.0, np.nan, 2.0**-17, 1.0, -1.0])


@tile.jit(out_idx=[-1], target=TARGET)
def unpack_int4(N, K, group=32, block_N=16, block_K=32):
    """Two 4-bit weights a byte (element 2c in the low nibble of byte c),
    zero point 8, an f16 scale per group of `group` columns: as dequantizing
    GEMMs unpack them in a T.Parallel."""

    @T.prim_func
    def kernel(B: T.Tensor((N, K // 2), T.int8), S: T.Tensor((N, K // group), T.float16),
               W: T.Tensor((N, K), T.float16)):
        with T.Kernel(T.ceildiv(K, block_K), T.ceildiv(N, block_N), threads=64) as (bk, bn):
            packed = T.alloc_shared((block_N, block_K // 2), T.int8)
            out = T.alloc_shared((block_N, block_K), T.float16)
            T.copy(B[bn * block_N, bk * block_K // 2], packed)
            for i, j in T.Parallel(block_N, block_K):
                q = (packed[i, j // 2] >> ((j % 2) * 4)) & 0xF
                scale = S[bn * block_N + i, (bk * block_K + j) // group]
                out[i, j] = (q - 8).astype(T.float16) * scale
            T.copy(out, W[bn * block_N, bk * block_K])
    return kernel


def test_unpack_int4_in_int32(rng):
    # A byte shifted by an index is computed in int32, as TileLang's int32
    # indices do (not in 64 bits), and the result is exact.
    N, K = 40, 96
    packed = rng.integers(-128, 128, (N, K // 2)).astype(np.int8)
    scale = rng.uniform(0.5, 2.0, (N, K // 32)).astype(np.float16)
    kernel = unpack_int4(N, K)
    assert "arith.shrsi" in kernel.get_kernel_source("ir")
    assert ": i32" in [line for line in kernel.get_kernel_source("ir").splitlines()
                       if "arith.shrsi" in line][0]
    bytes_ = packed.view(np.uint8).astype(np.int32)
    nibbles = np.stack([bytes_ & 0xF, bytes_ >> 4], axis=-1).reshape(N, K)
    ref = ((nibbles - 8).astype(np.float32)
           * np.repeat(scale.astype(np.float32), 32, axis=1)).astype(np.float16)
    np.testing.assert_array_equal(run(kernel, packed, scale), ref)


def _nibble(packed, i, j):
    """Element j of row i: the low (j even) or high nibble of byte j // 2."""
    return (packed[i, j // 2] >> ((j % 2) * 4)) & 0xF


def _signed_nibble(packed, i, j):
    """The nibble as a two's complement int4: moved to the top of a byte,
    read as int8 and shifted back (arithmetically), as TileLang's w4a8
    example does."""
    top = (packed[i, j // 2] << ((1 - j % 2) * 4)).astype(T.uint8)
    return T.reinterpret(top, T.int8) >> 4


def _fp4_e2m1(nibble):
    """An e2m1 float (sign, 2 exponent bits, 1 mantissa bit) as f16, from
    bits: sign to bit 15, exponent and mantissa to bits 11..9 make the half
    2^-14 times the value (subnormal 0.5 included), exactly."""
    bits = ((nibble & 8) << 12) | ((nibble & 7) << 9)
    return T.reinterpret(bits.astype(T.uint16), T.float16) * 16384.0


@tile.jit(out_idx=[-1], target=TARGET)
def dequant_gemm(M, N, K, fmt, group=32, block_M=64, block_N=64, block_K=64, threads=128):
    """C = A W^T with 4-bit weights two a byte (element 2c in the low nibble
    of byte c), decoded in each K step as users write it: signed int4 and
    per-group f16 scales ("int4"), unsigned int4 with per-group f16 zero
    points ("int4_zero_point", w = (q - z) s), fp4 e2m1 with f16 scales
    ("fp4") or with e8m0 scales, 2^(e - 127) ("mxfp4")."""
    scale_dtype = T.uint8 if fmt == "mxfp4" else T.float16

    @T.prim_func
    def kernel(A: T.Tensor((M, K), T.float16), B: T.Tensor((N, K // 2), T.uint8),
               S: T.Tensor((N, K // group), scale_dtype),
               Z: T.Tensor((N, K // group), T.float16), C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), T.float16)
            B_s = T.alloc_shared((block_N, block_K // 2), T.uint8)
            W_s = T.alloc_shared((block_N, block_K), T.float16)
            acc = T.alloc_fragment((block_M, block_N), T.float32)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[bx * block_N, k * block_K // 2], B_s)
                for i, j in T.Parallel(block_N, block_K):
                    n, g = bx * block_N + i, (k * block_K + j) // group
                    if fmt == "int4":
                        w = _signed_nibble(B_s, i, j).astype(T.float16) * S[n, g]
                    elif fmt == "int4_zero_point":
                        w = (_nibble(B_s, i, j).astype(T.float16) - Z[n, g]) * S[n, g]
                    elif fmt == "fp4":
                        w = _fp4_e2m1(_nibble(B_s, i, j)) * S[n, g]
                    else:
                        scale = T.reinterpret(S[n, g].astype(T.uint32) << 23, T.float32)
                        w = (_fp4_e2m1(_nibble(B_s, i, j)).astype(T.float32) * scale
                             ).astype(T.float16)
                    W_s[i, j] = w
                T.gemm(A_s, W_s, acc, transpose_B=True)
            T.copy(acc, C[by * block_M, bx * block_N])
    return kernel


E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6],
                np.float16)


@pytest.mark.parametrize("fmt", ["int4", "int4_zero_point", "fp4", "mxfp4"])
def test_dequantizing_gemm_formats(rng, fmt):
    """Each 4-bit format against NumPy's decoding (a table for e2m1), at
    sizes no multiple of the 64 x 64 x 64 tiles (K = 160: a partial K step,
    five groups of 32)."""
    M, N, K, group = (70, 100, 160, 32) if TARGET == "cpu" else (300, 260, 544, 32)
    a = rng.standard_normal((M, K)).astype(np.float16)
    packed = rng.integers(0, 256, (N, K // 2)).astype(np.uint8)
    q = np.stack([packed & 0xF, packed >> 4], axis=-1).reshape(N, K).astype(np.int32)
    if fmt == "mxfp4":
        s = rng.integers(120, 132, (N, K // group)).astype(np.uint8)
        scale = np.repeat(np.exp2(s.astype(np.float32) - 127), group, axis=1)
    else:
        s = rng.uniform(0.05, 0.5, (N, K // group)).astype(np.float16)
        scale = np.repeat(s, group, axis=1)
    z = rng.integers(0, 16, (N, K // group)).astype(np.float16)
    if fmt == "int4":
        w = np.where(q >= 8, q - 16, q).astype(np.float16) * scale
    elif fmt == "int4_zero_point":
        w = (q.astype(np.float16) - np.repeat(z, group, axis=1)) * scale
    elif fmt == "fp4":
        w = E2M1[q] * scale
    else:
        w = (E2M1[q].astype(np.float32) * scale).astype(np.float16)
    ref = a.astype(np.float32) @ w.astype(np.float32).T
    c = run(dequant_gemm(M, N, K, fmt, group), a, packed, s, z)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-2)


@tile.jit(out_idx=[-1], target=TARGET)
def paged_scores(batch, pages_max, page, D=64, block_H=64):
    @T.prim_func
    def kernel(Q: T.Tensor((batch, 2 * block_H, D), T.float16),
               KV: T.Tensor((batch * pages_max * page, 2, D), T.float16),
               table: T.Tensor((batch, pages_max), T.int32),
               pages: T.Tensor((batch,), T.int32),
               O: T.Tensor((batch, 2 * block_H, D), T.float32)):
        with T.Kernel(batch, 2, threads=128) as (bx, by):
            Qs = T.alloc_shared((block_H, D), T.float16)
            Ks = T.alloc_shared((page, D), T.float16)
            Ss = T.alloc_shared((block_H, page), T.float16)
            s = T.alloc_fragment((block_H, page), T.float32)
            acc = T.alloc_fragment((block_H, D), T.float32)
            head = by % 2  # computed in the kernel: its view goes before the loop
            T.copy(Q[bx, by * block_H:(by + 1) * block_H, :], Qs)
            T.clear(acc)
            for k in T.Pipelined(pages[bx], num_stages=2):
                start = table[bx, k] * page
                T.copy(KV[start:start + page, head, :], Ks)
                T.gemm(Qs, Ks, s, transpose_B=True, clear_accum=True)
                T.copy(s, Ss)
                T.gemm(Ss, Ks, acc)
            T.copy(acc, O[bx, by * block_H, 0])
    return kernel


def test_paged_copies_in_a_pipelined_loop(rng):
    # Pages read through a block table, a per-batch page count read from a
    # tensor, and a copy that drops the head dim between its kept ones (as
    # paged and BSHD attention's K[page rows, h, :]): on the GPU a TMA
    # pipeline (the table read again for the pages it loads ahead).
    batch, pages_max, page = 3, 4, 32
    k = paged_scores(batch, pages_max, page)
    ir = k.get_kernel_source("ir")
    assert ir.index("memref.subview %KV") < ir.index("tile.pipelined")
    q = (rng.standard_normal((batch, 128, 64)) * 0.25).astype(np.float16)
    kv = (rng.standard_normal((batch * pages_max * page, 2, 64)) * 0.25).astype(np.float16)
    table = np.stack([rng.permutation(batch * pages_max)[:pages_max]
                      for _ in range(batch)]).astype(np.int32)
    pages = np.array([1, 4, 3], np.int32)
    out = run(k, q, kv, table, pages)
    ref = np.zeros((batch, 128, 64), np.float64)
    for b in range(batch):
        for h in range(2):
            qb = q[b, h * 64:(h + 1) * 64].astype(np.float64)
            for p in table[b, :pages[b]]:
                kp = kv[p * page:(p + 1) * page, h].astype(np.float64)
                s = (qb @ kp.T).astype(np.float16).astype(np.float64)
                ref[b, h * 64:(h + 1) * 64] += s @ kp
    np.testing.assert_allclose(out, ref, rtol=2e-2, atol=2e-2)


@tile.jit(target=TARGET)
def streamk_gemm(M, N, K, programs, block_M=16, block_N=32, block_K=16,
                 dtype=T.float32):
    tiles_n = (N + block_N - 1) // block_N
    iters = (K + block_K - 1) // block_K
    total = (M + block_M - 1) // block_M * tiles_n * iters
    share, extra = total // programs, total % programs

    @T.prim_func
    def kernel(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
               C: T.Tensor((M, N), T.float32)):
        with T.Kernel(programs, threads=32) as pid:
            As = T.alloc_shared((block_M, block_K), dtype)
            Bs = T.alloc_shared((block_K, block_N), dtype)
            acc = T.alloc_fragment((block_M, block_N), T.float32)
            it = T.alloc_var(T.int32)
            it = pid * share + T.min(pid, extra)
            last = (pid + 1) * share + T.min(pid + 1, extra)
            # Stream-K: this program's run of K iterations over the tiles,
            # one tile's part per trip, each added into C atomically.
            while it < last:
                tile_id = it // iters
                k0 = it % iters
                end = T.min(last, (tile_id + 1) * iters)
                tm = tile_id // tiles_n
                tn = tile_id % tiles_n
                T.clear(acc)
                for k in T.Pipelined(end - it, num_stages=2):
                    T.copy(A[tm * block_M, (k0 + k) * block_K], As)
                    T.copy(B[(k0 + k) * block_K, tn * block_N], Bs)
                    T.gemm(As, Bs, acc)
                for i, j in T.Parallel(block_M, block_N):
                    T.atomic_add(C[tm * block_M + i, tn * block_N + j], acc[i, j])
                it = end
    return kernel


@pytest.mark.parametrize("programs", [1, 5, 7])
def test_while_over_a_runtime_condition(rng, programs):
    # A `while` whose test reads a variable the body updates: an scf.while
    # around a pipelined GEMM (TileLang's stream-K); 40 x 70 x 90 is ragged
    # for 16 x 32 x 16 tiles, and 7 programs split tiles mid-way.
    M, N, K = 40, 70, 90
    a = rng.integers(-3, 4, (M, K)).astype(np.float32)
    b = rng.integers(-3, 4, (K, N)).astype(np.float32)
    k = streamk_gemm(M, N, K, programs)
    assert "scf.while" in k.get_kernel_source("ir")
    c = to_device(np.zeros((M, N), np.float32))
    k(to_device(a), to_device(b), c)
    np.testing.assert_array_equal(to_numpy(c), a @ b)


def test_while_over_a_python_condition_is_unrolled():
    @tile.jit(out_idx=[-1], target=TARGET)
    def unrolled(N):
        @T.prim_func
        def kernel(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32):
                f = T.alloc_fragment((N,), T.float32)
                T.copy(X[0], f)
                n = 0
                while n < 3:
                    for i in T.Parallel(N):
                        f[i] = f[i] * 2
                    n += 1
                T.copy(f, Y[0])
        return kernel
    k = unrolled(8)
    assert "scf.while" not in k.get_kernel_source("ir")
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(run(k, x), x * 8)
