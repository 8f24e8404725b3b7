"""TileLang's language surface and JIT conventions on tile: each name and
convention its example programs use, in small kernels of our own written in
TileLang's style, run on ragged sizes against NumPy; each misuse gets a
tile.TileError naming the file and line."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy

HERE = os.path.basename(__file__)


def raises_at(match, exc=tile.TileError):
    """Expects `exc` whose message names this file, a line, and `match`."""
    return pytest.raises(exc, match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


def run(kernel, *arrays, **constants):
    out = kernel(*[to_device(a) if isinstance(a, np.ndarray) else a for a in arrays],
                 **constants)
    if isinstance(out, tuple):
        return tuple(to_numpy(o) for o in out)
    return to_numpy(out)


# -- T.const: symbols in arithmetic, constants by keyword ---------------------


@tile.jit(target=TARGET)
def split_k_gemm(A, B, split_k, block_M=16, block_N=16, block_K=8):
    M, N, K = T.const("M, N, K")
    # Arithmetic on symbols before an annotation binds them (TileLang's
    # split-K GEMM): evaluated once A and B are annotated.
    splitK = K // split_k
    parts = T.ceildiv(splitK, block_K)
    A: T.Tensor((M, K), T.float32)
    B: T.Tensor((K, N), T.float32)
    C = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k,
                  threads=64) as (bx, by, bz):
        a = T.alloc_shared((block_M, block_K), T.float32)
        b = T.alloc_shared((block_K, block_N), T.float32)
        c = T.alloc_fragment((block_M, block_N), T.float32)
        T.clear(c)
        for k in T.Pipelined(parts, num_stages=2):
            T.copy(A[by * block_M, bz * splitK + k * block_K], a)
            T.copy(B[bz * splitK + k * block_K, bx * block_N], b)
            T.gemm(a, b, c)
        T.atomic_add(C[by * block_M, bx * block_N], c)
    return C


def test_const_arithmetic_before_binding(rng):
    a = rng.integers(-3, 4, (37, 48)).astype(np.float32)
    b = rng.integers(-3, 4, (48, 21)).astype(np.float32)
    c = np.zeros((37, 21), np.float32)
    k = split_k_gemm.compile(M=37, N=21, K=48, split_k=2)
    # The output is zeroed by the caller: split-K adds its parts into it.
    out = to_device(c)
    k(to_device(a), to_device(b), out)
    np.testing.assert_array_equal(to_numpy(out), a @ b)


@tile.jit(target=TARGET)
def blocked_rows(X, Mask, block=8):
    M, N = T.const("M N")
    X: T.Tensor((M, N), T.float32)
    # An annotation whose dims are expressions of symbols.
    Mask: T.Tensor((T.ceildiv(M, block),), T.int32)
    Y = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(M, block), threads=32) as bx:
        t = T.alloc_fragment((block, N), T.float32)
        T.copy(X[bx * block, 0], t)
        if Mask[bx] != 0:
            for i, j in T.Parallel(block, N):
                t[i, j] = -t[i, j]
        T.copy(t, Y[bx * block, 0])
    return Y


def test_annotated_expression_dims_and_eager_call(rng):
    x = rng.standard_normal((21, 5)).astype(np.float32)
    mask = np.array([1, 0, 1], np.int32)
    ref = x.copy()
    for r in range(3):
        if mask[r]:
            ref[r * 8:(r + 1) * 8] *= -1
    np.testing.assert_array_equal(run(blocked_rows, x, mask), ref)


def test_annotated_expression_mismatch_is_located():
    x = np.zeros((21, 5), np.float32)
    with raises_at("dim 0 of 'Mask' is 4, annotated 3"):
        blocked_rows(to_device(x), to_device(np.zeros(4, np.int32)))


def test_expression_checked_once_its_symbols_are_bound():
    @tile.jit(target=TARGET)
    def k(A, B):
        M, N = T.const("M N")
        B: T.Tensor((M // 2, N), T.float32)  # M is bound by A's annotation below
        A: T.Tensor((M, N), T.float32)
        with T.Kernel(1) as _:
            pass

    with raises_at(r"dim 0 of 'B' is 3, annotated \(M // 2\) = 4"):
        k(to_device(np.zeros((8, 2), np.float32)), to_device(np.zeros((3, 2), np.float32)))


def test_compile_by_keyword_declares_the_tensors(rng):
    k = blocked_rows.compile(M=13, N=3, block=4)
    x = rng.standard_normal((13, 3)).astype(np.float32)
    mask = np.array([0, 1, 0, 1], np.int32)
    ref = x.copy()
    ref[4:8] *= -1
    ref[12:] *= -1
    np.testing.assert_array_equal(run(k, x, mask), ref)
    # TileLang's get_kernel_source(**constants) on the decorated function.
    assert "tile.kernel" in blocked_rows.get_kernel_source(M=13, N=3, block=4) or \
        TARGET == "cuda"


def test_compile_needs_the_constants():
    with raises_at("'X' is not given and T.const M has no value: pass 'X', or "
                   "M=... as a keyword"):
        blocked_rows.compile(N=3)
    with raises_at("'X' is not given and T.const M, N has no value"):
        blocked_rows.compile()


def test_unknown_keyword_is_an_error():
    with pytest.raises(tile.TileError, match="keyword argument 'Q' is neither a parameter "
                       "of 'blocked_rows' nor a T.const of its body"):
        blocked_rows.compile(M=4, N=4, Q=1)


def test_call_without_a_tensor_is_an_error():
    with pytest.raises(TypeError, match="missing tensor argument 'Mask'"):
        blocked_rows(to_device(np.zeros((8, 2), np.float32)))


# -- T.dynamic in the body ------------------------------------------------------


@tile.jit(target=TARGET)
def scale_rows(X, alpha, block=16):
    N = T.dynamic("N")
    X: T.Tensor((N, 3), T.float32)
    Y = T.empty((N, 3), T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
        t = T.alloc_fragment((block, 3), T.float32)
        T.copy(X[bx * block, 0], t)
        for i, j in T.Parallel(block, 3):
            t[i, j] = t[i, j] * alpha
        T.copy(t, Y[bx * block, 0])
    return Y


def test_dynamic_dims_declared_in_the_body(rng):
    for n in (5, 16, 41):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(run(scale_rows, x, 1.5), x * 1.5, rtol=1e-6)
    # One specialization for every N (the first call's entry is kept under
    # its first key too).
    kernels = {id(e.kernel) for e in scale_rows._eager.values()}
    assert len(kernels) == 1


def test_dynamic_names_give_a_tuple():
    m, n = T.dynamic("m, n")
    assert (m.name, n.name) == ("m", "n")
    assert T.symbolic("k").name == "k"


def test_dynamic_after_use_is_an_error():
    @tile.jit(target=TARGET)
    def k(X):
        N = T.dynamic("N")
        with T.Kernel(1, threads=32) as _:
            f = T.alloc_fragment((4,), T.float32)
            T.copy(X[0], f)
        X: T.Tensor((N,), T.float32)  # noqa: F821

    with raises_at("'X' is used before the annotation that makes dim 0 dynamic"):
        k(to_device(np.zeros(4, np.float32)))


# -- T.Tensor(shape, dtype, data) --------------------------------------------


@tile.jit(target=TARGET)
def flat_rows(X, block=8):
    A, B, C = T.const("A B C")
    X: T.Tensor((A, B, C), T.float32)
    Y = T.empty((A, B, C), T.float32)
    with T.Kernel(T.ceildiv(A * B, block), threads=32) as bx:
        Xf = T.Tensor((A * B, C), T.float32, X.data)
        Yf = T.Tensor((A * B, C), T.float32, Y.data)
        t = T.alloc_fragment((block, C), T.float32)
        T.copy(Xf[bx * block, 0], t)
        for i, j in T.Parallel(block, C):
            t[i, j] = t[i, j] + i
        T.copy(t, Yf[bx * block, 0])
    return Y


def test_tensor_view_of_data(rng):
    x = rng.standard_normal((3, 5, 4)).astype(np.float32)
    ref = x.reshape(15, 4) + (np.arange(15) % 8)[:, None]
    np.testing.assert_allclose(run(flat_rows, x), ref.reshape(3, 5, 4), rtol=1e-6)


@tile.jit(out_idx=[-1], target=TARGET)
def reshaped(M, N):
    @T.prim_func
    def k(X: T.Tensor((M, N), T.float32), Y: T.Tensor((N, M), T.float32)):
        with T.Kernel(1, threads=32) as _:
            flat = T.reshape(X, (M * N,))
            out = T.view(Y, (M * N,))
            f = T.alloc_fragment((M * N,), T.float32)
            T.copy(flat[0], f)
            T.copy(f, out[0])
    return k


def test_reshape_and_view(rng):
    x = rng.standard_normal((3, 7)).astype(np.float32)
    np.testing.assert_array_equal(run(reshaped(3, 7), x), x.reshape(7, 3))


def test_tensor_view_errors():
    def viewing(shape, dtype):
        @tile.jit(target=TARGET)
        def k(X):
            X: T.Tensor((6, 4), T.float32)
            with T.Kernel(1, threads=32) as _:
                T.Tensor(shape, dtype, X.data)
        return k

    x = to_device(np.zeros((6, 4), np.float32))
    with raises_at(r"T.Tensor views 'X' of 24 elements as \[5, 5\] \(25 elements\)"):
        viewing((5, 5), T.float32)(x)
    with raises_at("reinterpreting the element type is not supported"):
        viewing((24,), T.int32)(x)


# -- dtypes --------------------------------------------------------------------


def test_dtype_names():
    assert T.float is T.float32 and T.double is T.float64 and T.half is T.float16
    assert T.int is T.int32 and T.short is T.int16 and T.long is T.int64
    assert T.float8_e4m3fn is T.float8_e4m3 and T.uint is T.uint32
    assert T.dtype("float16") is T.float16 and T.dtype(T.bfloat16) is T.bfloat16
    assert T.dtype(np.float32) is T.float32 and T.dtype("float") is T.float32
    assert T.float16 == "float16" and {T.float16: 1}[T.dtype("float16")] == 1
    assert T.dtype("float8_e4m3fn").bits == 8 and T.int16.itemsize == 2


@tile.jit(out_idx=[-1], target=TARGET)
def tf32_gemm(M, N, K, block=32):
    @T.prim_func
    def kernel(A: T.Tensor((M, K), T.float32), B: T.Tensor((K, N), T.float32),
               C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            As = T.alloc_shared((block, block), T.tfloat32)
            Bs = T.alloc_shared((block, block), T.tfloat32)
            acc = T.alloc_fragment((block, block), T.float32)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                T.copy(A[by * block, k * block], As)
                T.copy(B[k * block, bx * block], Bs)
                T.gemm(As, Bs, acc)
            T.copy(acc, C[by * block, bx * block])
    return kernel


def test_tfloat32_buffers(rng):
    # TileLang's tf32 buffers: f32 storage whose gemm multiplies as tf32
    # on the GPU (10-bit mantissas: small integers stay exact).
    assert T.tfloat32 is T.float32 and T.dtype("tfloat32") is T.float32
    a = rng.integers(-4, 5, (50, 70)).astype(np.float32)
    b = rng.integers(-4, 5, (70, 40)).astype(np.float32)
    np.testing.assert_array_equal(run(tf32_gemm(50, 40, 70), a, b), a @ b)


def test_dtypes_are_their_names():
    """TileLang's dtypes are strings: programs pass them to getattr(torch, ...)."""
    import pickle
    assert isinstance(T.bfloat16, str) and str.__str__(T.bfloat16) == "bfloat16"
    assert getattr(np, T.float32) is np.float32
    assert T.float32 == "float" and not (T.float32 != "float")
    assert T.float32 != "float16" and T.float32 != T.float16
    assert pickle.loads(pickle.dumps(T.float16)) is T.float16
    assert repr(T.int8) == "T.int8" and f"{T.int8}" == "int8"


def test_register_hints_are_accepted():
    @T.prim_func
    def k(X: T.Tensor((8,), T.float32)):
        with T.Kernel(1, threads=32) as _:
            T.no_set_max_nreg()
            T.disable_warp_group_reg_alloc()
            for i in T.Parallel(8):
                X[i] = X[i] + 1.0
    x = np.arange(8, dtype=np.float32)
    arg = to_device(x.copy())
    tile.compile(k, target=TARGET)(arg)
    np.testing.assert_array_equal(to_numpy(arg), x + 1)
    with pytest.raises(tile.TileError, match="inside a T.Kernel"):
        @T.prim_func
        def outside(X: T.Tensor((8,), T.float32)):
            T.no_set_max_nreg()


def test_fp8_module():
    from tile.language.fp8 import determine_fp8_type
    import tile.language.fp8 as fp8
    assert fp8.determine_fp8_type is determine_fp8_type
    try:
        import torch
        rocm = torch.version.hip is not None
    except ImportError:
        rocm = False
    if not rocm:
        assert determine_fp8_type() is T.float8_e4m3fn
        assert determine_fp8_type("e5m2") is T.float8_e5m2
    with pytest.raises(ValueError):
        determine_fp8_type("e3m4")


@tile.jit(out_idx=[-1], target=TARGET)
def casts(N):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Y: T.Tensor((N, 4), T.float32)):
        with T.Kernel(1, threads=32) as _:
            x = T.alloc_fragment((N,), T.float32)
            q = T.alloc_fragment((N,), T.float8_e4m3fn)
            h = T.alloc_fragment((N,), T.float16)
            T.copy(X[0], x)
            T.copy(x, q)  # fragment to fragment, converting
            T.copy(x, h)
            for i in T.Parallel(N):
                Y[i, 0] = T.Cast(T.float, q[i])
                Y[i, 1] = T.Cast(T.float32, T.Cast(T.int, x[i]))
                Y[i, 2] = T.cast(h[i], "float")
                Y[i, 3] = T.clamp(x[i], -2.0, 2.5)
    return k


def test_casts_and_clamp():
    # Values e4m3 holds exactly, and a few that round or saturate in int.
    x = np.array([0.5, -1.5, 3.0, 448.0, -0.25, 2.75, 7.0, -7.5, 1.0], np.float32)
    y = run(casts(9), x)
    np.testing.assert_array_equal(y[:, 0], x)
    np.testing.assert_array_equal(y[:, 1], np.trunc(x))
    np.testing.assert_array_equal(y[:, 2], x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(y[:, 3], np.clip(x, -2.0, 2.5))


# -- TIR scalar functions --------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def int_ops(N):
    @T.prim_func
    def k(A: T.Tensor((N,), T.int32), B: T.Tensor((N,), T.int32),
          Y: T.Tensor((N, 9), T.int32)):
        with T.Kernel(1, threads=32) as _:
            for i in T.Parallel(N):
                a = A[i]
                b = B[i]
                Y[i, 0] = T.floordiv(a, b)
                Y[i, 1] = T.floormod(a, b)
                Y[i, 2] = T.truncdiv(a, b)
                Y[i, 3] = T.truncmod(a, b)
                Y[i, 4] = T.bitwise_and(a, b) ^ T.bitwise_or(a, 3)
                Y[i, 5] = T.shift_left(a, 2) + T.shift_right(b, 1) + T.bitwise_not(b)
                Y[i, 6] = T.Select(a > b, a, b) + T.max_value(T.int8)
                Y[i, 7] = T.index_to_coordinates(a + 100, (7, 5))[1]
                Y[i, 8] = T.bitwise_xor(a, b) + T.min_value(T.int16)
    return k


def test_integer_functions(rng):
    a = rng.integers(-20, 21, 23).astype(np.int32)
    b = rng.integers(1, 6, 23).astype(np.int32) * rng.choice([-1, 1], 23).astype(np.int32)
    y = run(int_ops(23), a, b)
    np.testing.assert_array_equal(y[:, 0], a // b)
    np.testing.assert_array_equal(y[:, 1], a % b)
    np.testing.assert_array_equal(y[:, 2], np.trunc(a / b).astype(np.int32))
    np.testing.assert_array_equal(y[:, 3], np.fmod(a, b))
    np.testing.assert_array_equal(y[:, 4], (a & b) ^ (a | 3))
    np.testing.assert_array_equal(y[:, 5], (a << 2) + (b >> 1) + ~b)
    np.testing.assert_array_equal(y[:, 6], np.maximum(a, b) + 127)
    np.testing.assert_array_equal(y[:, 7], (a + 100) % 5)
    np.testing.assert_array_equal(y[:, 8], (a ^ b) - 32768)


@tile.jit(out_idx=[-1], target=TARGET)
def reinterprets(N):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.int8),
          Y: T.Tensor((N, 4), T.float32)):
        with T.Kernel(1, threads=32) as _:
            for i in T.Parallel(N):
                bits = T.reinterpret(X[i], T.uint32)  # TileLang's order
                # The sign bit cleared: |x|, from its bits; TIR's order.
                Y[i, 0] = T.reinterpret(T.float32, bits & 0x7FFFFFFF)
                # An exponent from bits: 2^(e - 127) for e = 127 + i % 8.
                Y[i, 1] = T.reinterpret(T.uint32(127 + i % 8) << 23, "float32")
                # A half from 16 bits (sign, exponent, mantissa).
                h = T.reinterpret(T.uint16(0x3C00 + (i % 4) * 0x100), T.float16)
                Y[i, 2] = h.astype(T.float32)
                # A byte read unsigned: same bits, another reading.
                Y[i, 3] = T.reinterpret(B[i], T.uint8).astype(T.float32)
    return k


def test_reinterpret():
    x = np.array([1.5, -2.25, 0.0, -0.0, 3e38, -7e-39, 6.0, -1.0, 0.1], np.float32)
    b = np.array([0, 1, -1, -128, 127, 5, -5, 64, -64], np.int8)
    y = run(reinterprets(9), x, b)
    i = np.arange(9)
    np.testing.assert_array_equal(y[:, 0], np.abs(x))
    np.testing.assert_array_equal(y[:, 1], 2.0 ** (i % 8))
    np.testing.assert_array_equal(y[:, 2], 1.0 + (i % 4) * 0.25)
    np.testing.assert_array_equal(y[:, 3], b.view(np.uint8))


def test_reinterpret_errors():
    def build(body):
        @T.prim_func
        def k(X: T.Tensor((4,), T.float32), Y: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                for i in T.Parallel(4):
                    Y[i] = body(X[i])
        return tile.compile(k, target=TARGET)

    with raises_at("same width: float32 has 32, float16 16"):
        build(lambda x: T.reinterpret(x, T.float16))
    with raises_at("takes a typed value"):
        build(lambda x: T.reinterpret(3, T.float32))


@tile.jit(out_idx=[-1], target=TARGET)
def float_ops(N):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Y: T.Tensor((N, 10), T.float32)):
        with T.Kernel(1, threads=32) as _:
            for i in T.Parallel(N):
                x = X[i]
                Y[i, 0] = T.round(x)
                Y[i, 1] = T.trunc(x)
                Y[i, 2] = T.nearbyint(x)
                Y[i, 3] = T.sigmoid(x)
                Y[i, 4] = T.exp10(x * 0.25)
                Y[i, 5] = T.if_then_else(T.isnan(x), 1.0, 0.0)
                Y[i, 6] = T.if_then_else(T.isinf(x), 1.0, 0.0)
                Y[i, 7] = T.if_then_else(T.isfinite(x), 1.0, 0.0)
                Y[i, 8] = T.floormod(x, 1.5)
                Y[i, 9] = T.max(x, -T.infinity(T.float32))
    return k


def test_float_functions():
    x = np.array([0.5, 1.5, -2.5, 2.7, -0.4, np.inf, -np.inf, np.nan, 3.25, -7.0, 0.0],
                 np.float32)
    with np.errstate(all="ignore"):
        y = run(float_ops(11), x)
        finite = np.isfinite(x)
        np.testing.assert_array_equal(y[:, 0], np.where(x >= 0, np.floor(x + 0.5),
                                                        -np.floor(-x + 0.5)))
        np.testing.assert_array_equal(y[:, 1], np.trunc(x))
        np.testing.assert_array_equal(y[:, 2], np.rint(x))
        np.testing.assert_allclose(y[finite, 3], 1 / (1 + np.exp(-x[finite])), rtol=1e-5)
        np.testing.assert_allclose(y[finite, 4], 10 ** (x[finite] * 0.25), rtol=1e-5)
        np.testing.assert_array_equal(y[:, 5], np.isnan(x))
        np.testing.assert_array_equal(y[:, 6], np.isinf(x))
        np.testing.assert_array_equal(y[:, 7], np.isfinite(x))
        np.testing.assert_allclose(y[finite, 8], np.mod(x[finite], 1.5), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(y[~np.isnan(x), 9], x[~np.isnan(x)])


def test_functions_fold_on_python_numbers():
    assert T.floormod(-7, 3) == 2 and T.truncmod(-7, 3) == -1 and T.truncdiv(-7, 2) == -3
    assert T.clamp(5, 0, 3) == 3 and T.round(-2.5) == -3 and T.nearbyint(2.5) == 2
    assert T.index_to_coordinates(23, (4, 5, 2)) == [2, 1, 1]


# -- variables ----------------------------------------------------------------


@tile.jit(target=TARGET)
def var_forms(X):
    N = T.const("N")
    X: T.Tensor((N,), T.int32)
    Y = T.empty((4,), T.int32)
    with T.Kernel(1, threads=32) as _:
        total = T.alloc_var(T.int32)
        T.clear(total)
        top = T.alloc_var(T.int32, -1000, "local.var")
        count = T.alloc_var(dtype=T.int32, init=3)
        low = T.alloc_var("int32", "local.var")
        low = 1000
        for i in T.serial(N):
            total += X[i]
            top = T.max(top, X[i])
            low = T.min(low, X[i])
        T.fill(count, count * 2)
        for i in T.Parallel(1):
            Y[0] = total
            Y[1] = top
            Y[2] = count
            Y[3] = low
    return Y


def test_alloc_var_forms(rng):
    x = rng.integers(-50, 50, 13).astype(np.int32)
    np.testing.assert_array_equal(run(var_forms, x), [x.sum(), x.max(), 6, x.min()])


# T.alloc_fragment's scope, as TileLang's: "local" a per-thread array (a
# counter, TileLang's stream-K example), "shared" shared memory.
@tile.jit(out_idx=[-1], target=TARGET)
def fragment_scopes(N, block=16):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            it = T.alloc_fragment((1,), T.int32, "local")
            s = T.alloc_fragment((block,), T.float32, "shared")
            T.copy(X[bx * block], s)
            it[0] = 1
            for _ in T.serial(3):
                for i in T.Parallel(block):
                    s[i] = s[i] * T.cast(it[0], T.float32)
                it[0] += 1
            T.copy(s, Y[bx * block])
    return k


def test_fragment_scopes(rng):
    x = rng.standard_normal(37).astype(np.float32)
    np.testing.assert_allclose(run(fragment_scopes(37), x), x * 6, rtol=1e-6)
    with pytest.raises(tile.TileError, match="unknown scope 'global'"):
        @T.prim_func
        def bad(X: T.Tensor((8,), T.float32)):
            with T.Kernel(1) as _:
                T.alloc_fragment((8,), T.float32, "global")


# -- atomics -----------------------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def atomics(M, N, block=4):
    @T.prim_func
    def k(X: T.Tensor((M, N), T.float32), Hi: T.Tensor((N,), T.float32),
          Lo: T.Tensor((N,), T.float32), Count: T.Tensor((2,), T.int32),
          Pair: T.Tensor((2,), T.float32), Tiles: T.Tensor((block, N), T.float32),
          Seen: T.Tensor((T.ceildiv(M, block),), T.int32)):
        with T.Kernel(T.ceildiv(M, block), threads=32) as bx:
            t = T.alloc_fragment((block, N), T.float32)
            s = T.alloc_shared((2,), T.float32)
            T.copy(X[bx * block, 0], t, pad=-1e30)
            T.atomic_max(Tiles[0, 0], t)  # a tile into a region
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    T.atomic_max(Hi[j], t[i, j], memory_order="relaxed")
                    T.atomic_min(Lo[j], t[i, j])
            for i in T.Parallel(2):
                s[i] = 1.0 + i
            for i in T.Parallel(1):
                prev = T.atomic_add(Count[0], 1, return_prev=True)
                Seen[bx] = prev
                T.atomic_add(Count[1], 2)
                T.atomic_addx2(Pair[0], s[0])
    return k


def test_atomics(rng):
    m, n = 10, 6
    x = rng.standard_normal((m, n)).astype(np.float32)
    hi = np.full(n, -np.inf, np.float32)
    lo = np.full(n, np.inf, np.float32)
    count = np.zeros(2, np.int32)
    pair = np.zeros(2, np.float32)
    tiles = np.full((4, n), -np.inf, np.float32)
    args = [to_device(v) for v in (x, hi, lo, count, pair, tiles)]
    seen = to_numpy(atomics(m, n)(*args))
    hi, lo, count, pair, tiles = [to_numpy(v) for v in args[1:]]
    np.testing.assert_array_equal(hi, x.max(0))
    np.testing.assert_array_equal(lo, x.min(0))
    np.testing.assert_array_equal(count, [3, 6])
    np.testing.assert_array_equal(sorted(seen), [0, 1, 2])
    np.testing.assert_array_equal(pair, [3.0, 6.0])
    xp = np.full((12, n), -1e30, np.float32)
    xp[:m] = x
    np.testing.assert_array_equal(tiles, xp.reshape(3, 4, n).max(0))


# -- copies of regions, fills ----------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def region_copies(M, N, h):
    @T.prim_func
    def k(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=64) as _:
            s = T.alloc_shared((M, N), T.float32)
            f = T.alloc_fragment((M, N), T.float32)
            col = T.alloc_fragment((M,), T.float32)
            T.copy(X[0, 0], f)
            T.fill(s, 0)
            T.fill(s[:, N - 1], 7)  # a region of a shared buffer
            T.copy(f[:h, :], s[:h, :])  # rows of a fragment into shared rows
            T.copy(X[0:M, 0], col)  # a column of a tensor
            for i in T.Parallel(M):
                col[i] = col[i] * 2
            T.copy(col, s[:, 1])  # a fragment into a shared column
            T.copy(s[:M - 1, :], Y[0:M - 1, :])  # shared rows to global rows
            T.copy(s[2, :], Y[M - 1, :])  # a shared row to a global row
            T.fill(Y[0:2, N - 2], -3)  # a region of a global tensor
    return k


def test_region_copies(rng):
    x = rng.standard_normal((9, 5)).astype(np.float32)
    ref = np.zeros_like(x)
    ref[:, 4] = 7
    ref[:6] = x[:6]
    ref[:, 1] = x[:, 0] * 2
    ref[8] = ref[2]
    ref[0:2, 3] = -3
    np.testing.assert_array_equal(run(region_copies(9, 5, 6), x), ref)


@tile.jit(out_idx=[-1], target=TARGET)
def fragment_rows(R, N):
    @T.prim_func
    def k(X: T.Tensor((R, N), T.float32), S: T.Tensor((1,), T.float32),
          Y: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=64) as _:
            f = T.alloc_fragment((R, N), T.float32)
            row = T.alloc_fragment((N,), T.float32)
            acc = T.alloc_fragment((N,), T.float32)
            scale = T.alloc_fragment((1,), T.float32)
            scale[0] = S[0]  # a one-element fragment written outside T.Parallel
            T.copy(X[0, 0], f)
            T.clear(acc)
            for r in T.serial(R):
                T.copy(f[r, :], row)  # a fragment row at a run-time index
                for j in T.Parallel(N):
                    acc[j] += row[j] * scale[0] + f[R - 1, j]
            T.copy(acc, Y[0])
    return k


def test_fragment_elements_at_uniform_indices(rng):
    """Fragment elements read at an index that is the same in every
    iteration of a T.Parallel (a loop variable outside it, a constant), as
    TileLang's decoding combine (`lse_local[k, i]`) and Mamba's chunk state
    (`dA_cs_last[0]`) do; a one-element fragment written at block level.
    Ragged: 3 rows of 37."""
    x = rng.standard_normal((3, 37)).astype(np.float32)
    s = np.array([1.5], np.float32)
    ref = (x.sum(0) * 1.5 + 3 * x[2]).astype(np.float32)
    np.testing.assert_allclose(run(fragment_rows(3, 37), x, s), ref, rtol=1e-5,
                               atol=1e-5)


def test_fragment_slice_from_a_runtime_index_is_an_error():
    with raises_at(r"T.copy: fragment '' is sliced from a run-time value in dim 1"):
        @T.prim_func
        def k(X: T.Tensor((4, 8), T.float32)):
            with T.Kernel(1) as _:
                f = T.alloc_fragment((4, 8), T.float32)
                half = T.alloc_fragment((4, 4), T.float32)
                T.copy(X[0, 0], f)
                for r in T.serial(2):
                    T.copy(f[:, r * 4:r * 4 + 4], half)


# -- loops: T.Persistent ---------------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def persistent_scale(M, N, bm, bn, blocks):
    @T.prim_func
    def k(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(blocks, threads=64) as bid:
            t = T.alloc_fragment((bm, bn), T.float32)
            for bx, by in T.Persistent([T.ceildiv(M, bm), T.ceildiv(N, bn)], blocks, bid):
                T.copy(X[bx * bm, by * bn], t)
                for i, j in T.Parallel(bm, bn):
                    t[i, j] = t[i, j] * 3 + bid * 0
                T.copy(t, Y[bx * bm, by * bn])
    return k


@pytest.mark.parametrize("blocks", [1, 3, 7])
def test_persistent_visits_every_tile(rng, blocks):
    x = rng.standard_normal((37, 45)).astype(np.float32)
    np.testing.assert_allclose(run(persistent_scale(37, 45, 8, 16, blocks), x), x * 3,
                               rtol=1e-6)


# -- T.im2col and T.alloc_global -----------------------------------------------------------


@tile.jit(target=TARGET)
def conv2d(data, weight, S, D, P, block_M=16, block_N=8, block_K=8, threads=32,
           stages=2, dtype=T.float32):
    N, H, W, C, F, K = T.const("N, H, W, C, F, K")
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1
    data: T.Tensor((N, H, W, C), dtype)
    weight: T.Tensor((K, K, C, F), dtype)
    out = T.empty((N, OH, OW, F), T.float32)
    with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M),
                  threads=threads) as (bx, by):
        cols = T.alloc_shared((block_M, block_K), dtype)
        w = T.alloc_shared((block_K, block_N), dtype)
        acc = T.alloc_fragment((block_M, block_N), T.float32)
        weight_flat = T.Tensor((K * K * C, F), dtype, weight.data)
        out_flat = T.Tensor((N * OH * OW, F), T.float32, out.data)
        T.clear(acc)
        for k in T.Pipelined(T.ceildiv(K * K * C, block_K), num_stages=stages):
            T.im2col(data, cols, by, k, K, S, D, P)
            T.copy(weight_flat[k * block_K, bx * block_N], w)
            T.gemm(cols, w, acc)
        T.copy(acc, out_flat[by * block_M, bx * block_N])
    return out


def conv_ref(x, w, S, D, P):
    n, h, wd, c = x.shape
    k, _, _, f = w.shape
    oh = (h + 2 * P - D * (k - 1) - 1) // S + 1
    ow = (wd + 2 * P - D * (k - 1) - 1) // S + 1
    xp = np.pad(x, ((0, 0), (P, P), (P, P), (0, 0))).astype(np.float64)
    out = np.zeros((n, oh, ow, f))
    for kh in range(k):
        for kw in range(k):
            patch = xp[:, kh * D:kh * D + S * (oh - 1) + 1:S, kw * D:kw * D + S * (ow - 1) + 1:S]
            out += patch @ w[kh, kw]
    return out


@pytest.mark.parametrize("S,D,P", [(1, 1, 1), (2, 1, 0), (1, 2, 2)])
def test_im2col_convolution(rng, S, D, P):
    x = rng.integers(-3, 4, (2, 9, 7, 5)).astype(np.float32)
    w = rng.integers(-3, 4, (3, 3, 5, 6)).astype(np.float32)
    np.testing.assert_array_equal(run(conv2d, x, w, S, D, P), conv_ref(x, w, S, D, P))


@pytest.mark.parametrize("S,D,P", [(1, 1, 1), (2, 1, 0), (1, 2, 2)])
def test_im2col_convolution_f16_pipelined(rng, S, D, P):
    # 16 channels: 16-byte chunks of one pixel, which a pipelined loop
    # copies ahead (cp.async on the GPU); 126 pixels and 144 filter
    # positions are not multiples of the 64 x 32 tile.
    x = rng.integers(-3, 4, (2, 9, 7, 16)).astype(np.float16)
    w = rng.integers(-3, 4, (3, 3, 16, 40)).astype(np.float16)
    config = dict(block_M=64, block_N=64, block_K=32, threads=128, stages=3,
                  dtype=T.float16)
    kernel = conv2d.compile(x, w, S, D, P, **config)
    assert "tile.im2col" in kernel.get_kernel_source("ir")
    ref = conv_ref(x.astype(np.float32), w.astype(np.float32), S, D, P)
    np.testing.assert_array_equal(run(conv2d, x, w, S, D, P, **config), ref)


def test_im2col_errors():
    @tile.jit(target=TARGET)
    def bad(data, S):
        N, H, W, C = T.const("N, H, W, C")
        data: T.Tensor((N, H, W, C), T.float16)
        out = T.empty((N, H), T.float16)
        with T.Kernel(1, threads=32):
            cols = T.alloc_shared((16, 16), T.float16)
            T.im2col(data, cols, 0, 0, 3, S, 1, 1)
        return out
    x = np.zeros((1, 4, 4, 16), np.float16)
    with pytest.raises(tile.TileError, match="stride and dilation of at least 1"):
        bad.compile(x, 0)


@tile.jit(out_idx=[-1], target=TARGET)
def through_workspace(N, block=8):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        scratch = T.alloc_global((N,), T.float32)
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            f = T.alloc_fragment((block,), T.float32)
            T.copy(X[bx * block], f)
            for i in T.Parallel(block):
                f[i] = f[i] + 1
            T.copy(f, scratch[bx * block])
            g = T.alloc_fragment((block,), T.float32)
            T.copy(scratch[bx * block], g)
            for i in T.Parallel(block):
                g[i] = g[i] * 2
            T.copy(g, Y[bx * block])
    return k


def test_alloc_global_is_a_workspace(rng):
    x = rng.standard_normal(21).astype(np.float32)
    k = through_workspace(21)
    np.testing.assert_allclose(run(k, x), (x + 1) * 2, rtol=1e-6)
    assert len(k.params) == 3 and k._n_in == 1  # the workspace is no argument
    # The profiler's inputs are the caller's: the reference sees X alone.
    profiler = k.get_profiler(tile.TensorSupplyType.Integer)
    assert [p.name for p in profiler.params] == ["X", "Y"]
    profiler.assert_allclose(lambda X: (X + 1) * 2, atol=0, rtol=0)


# -- kernels: bindings, swizzle, layouts, policies, asserts -------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def bindings(M, N):
    @T.prim_func
    def k(Y: T.Tensor((M, N, 2), T.int32)):
        with T.Kernel(M, N, 2, threads=32) as (bx, by, bz):
            T.use_swizzle(4)  # a 3-d grid: no raster, same results
            for i in T.Parallel(1):
                Y[T.get_block_binding(0), T.get_block_binding(1), bz] = \
                    T.get_block_binding(2) * 100 + T.get_block_extent(1) * 10 + \
                    T.get_thread_extent(0) // 32
    return k


def test_block_bindings_and_extents():
    y = run(bindings(3, 4))
    ref = np.zeros((3, 4, 2), np.int32)
    ref[..., 1] = 100
    np.testing.assert_array_equal(y, ref + 41)


def test_gemm_warp_policies():
    assert T.GemmWarpPolicy(1) is T.GemmWarpPolicy.FullRow
    assert T.GemmWarpPolicy(2).is_full_col() and T.GemmWarpPolicy.Square.is_square()

    @tile.jit(out_idx=[-1], target=TARGET)
    def mm(policy):
        @T.prim_func
        def k(A: T.Tensor((32, 16), T.float32), B: T.Tensor((16, 32), T.float32),
              C: T.Tensor((32, 32), T.float32)):
            with T.Kernel(1, threads=128) as _:
                a = T.alloc_shared((32, 16), T.float32)
                b = T.alloc_shared((16, 32), T.float32)
                c = T.alloc_fragment((32, 32), T.float32)
                T.copy(A[0, 0], a)
                T.copy(B[0, 0], b)
                T.gemm(a, b, c, policy=policy, clear_accum=True)
                T.copy(c, C[0, 0])
        return k

    a = np.arange(512, dtype=np.float32).reshape(32, 16) % 7
    b = np.arange(512, dtype=np.float32).reshape(16, 32) % 5
    for policy in (0, 1, T.GemmWarpPolicy.FullCol):
        np.testing.assert_array_equal(run(mm(policy), a, b), a @ b)


@tile.jit(out_idx=[-1], target=TARGET)
def permuted_global(M, N):
    @T.prim_func
    def k(X: T.Tensor((M, N), T.float32), Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=32) as _:
            # TileLang lays a global tensor out by an index map; tile indexes
            # global tensors logically, so the results are the same.
            T.annotate_layout({X: T.Layout(X.shape, lambda i, j: [j, i])})
            f = T.alloc_fragment((M, N), T.float32)
            T.copy(X[0, 0], f)
            T.copy(f, Y[0, 0])
    return k


def test_layout_of_a_global_tensor(rng):
    x = rng.standard_normal((5, 6)).astype(np.float32)
    np.testing.assert_array_equal(run(permuted_global(5, 6), x), x)


def test_index_map_layout_of_a_shared_buffer_is_an_error():
    with raises_at("a layout given as an index function applies to global tensors only"):
        @T.prim_func
        def k(X: T.Tensor((8, 8), T.float32)):
            with T.Kernel(1) as _:
                s = T.alloc_shared((8, 8), T.float32)
                T.annotate_layout({s: T.Layout((8, 8), lambda i, j: [j, i])})


@tile.jit(out_idx=[-1], target=TARGET)
def checked_sqrt(N):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=32) as _:
            f = T.alloc_fragment((N,), T.float32)
            T.copy(X[0], f)
            for i in T.Parallel(N):
                T.device_assert(f[i] >= 0, "negative input")
                f[i] = T.sqrt(f[i])
            T.copy(f, Y[0])
    return k


def test_device_assert_that_holds(rng):
    x = rng.uniform(0, 4, 13).astype(np.float32)
    np.testing.assert_allclose(run(checked_sqrt(13), x), np.sqrt(x), rtol=1e-6)


def test_device_assert_known_false_while_tracing():
    with raises_at("T.device_assert fails while tracing: never"):
        @T.prim_func
        def k(X: T.Tensor((8,), T.float32)):
            with T.Kernel(1) as _:
                T.device_assert(1 > 2, "never")


# -- JIT conventions -----------------------------------------------------------------------


def test_modes_follow_tilelangs_rule():
    @tile.jit(target=TARGET)
    def eager(A, scale=2.0):
        N = T.const("N")
        A: T.Tensor((N,), T.float32)
        B = T.empty((N,), T.float32)
        with T.Kernel(1, threads=32) as _:
            f = T.alloc_fragment((N,), T.float32)
            T.copy(A[0], f)
            for i in T.Parallel(N):
                f[i] = f[i] * scale
            T.copy(f, B[0])
        return B

    @tile.jit(out_idx=-1, target=TARGET)
    def lazy(N, scale=2.0):
        @T.prim_func
        def k(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                f = T.alloc_fragment((N,), T.float32)
                T.copy(A[0], f)
                for i in T.Parallel(N):
                    f[i] = f[i] * scale
                T.copy(f, B[0])
        return k

    assert eager.initialize_jit_mode() == "eager"
    assert lazy.initialize_jit_mode(7) == "lazy"
    x = np.arange(7, dtype=np.float32)
    np.testing.assert_array_equal(run(eager, x), x * 2)
    np.testing.assert_array_equal(run(lazy(7), x), x * 2)  # out_idx as an int
    # .compile(N=7) of the eager kernel: its tensors are the kernel's inputs.
    np.testing.assert_array_equal(run(eager.compile(N=7, scale=3.0), x), x * 3)


@tile.jit(out_idx=[-1], target=TARGET)
def optional_bias(N, has_bias):
    @T.prim_func
    def k(X: T.Tensor((N,), T.float32), Bias: T.Tensor((N,), T.float32),
          Y: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=32) as _:
            f = T.alloc_fragment((N,), T.float32)
            T.copy(X[0], f)
            if has_bias:
                for i in T.Parallel(N):
                    f[i] = f[i] + Bias[i]
            T.copy(f, Y[0])
    return k


def test_none_for_a_tensor_the_kernel_does_not_read(rng):
    x = rng.standard_normal(11).astype(np.float32)
    np.testing.assert_array_equal(run(optional_bias(11, False), x, None), x)
    np.testing.assert_allclose(run(optional_bias(11, True), x, x), 2 * x, rtol=1e-6)


def test_copy_accepts_tilelangs_options(rng):
    @tile.jit(out_idx=[-1], target=TARGET)
    def cp(N):
        @T.prim_func
        def k(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(1, threads=32) as _:
                s = T.alloc_shared((N,), T.float32)
                T.copy(X[0], s, disable_tma=True, eviction_policy="evict_first")
                T.copy(s, dst=Y[0], coalesced_width=4)
        return k

    x = rng.standard_normal(9).astype(np.float32)
    np.testing.assert_array_equal(run(cp(9), x), x)


@tile.jit(out_idx=[-1], target=TARGET)
def copy_head_rows(B, N, H, D, blk=16):
    @T.prim_func
    def k(X: T.Tensor((B, N, H, D), T.float32), Y: T.Tensor((B, N, H, D), T.float16)):
        with T.Kernel(T.ceildiv(N, blk), H, B, threads=32) as (bx, by, bz):
            T.copy(X[bz, bx * blk:(bx + 1) * blk, by, :],
                   Y[bz, bx * blk:(bx + 1) * blk, by, :])
    return k


def test_global_copy_of_a_region_indexed_in_the_middle(rng):
    """A global-to-global copy of a region whose indexed dims are not the
    leading ones (X[b, rows, h, :], TileLang's attention backward
    postprocess): the indexed dims are the ones dropped. It copied
    X[b, r0, 0:2, :] into 64-row tiles (NaNs and garbage) when the region
    passed through an element origin. Ragged rows: 37 of tiles of 16."""
    x = rng.standard_normal((2, 37, 3, 8)).astype(np.float32)
    np.testing.assert_array_equal(run(copy_head_rows(2, 37, 3, 8), x),
                                  x.astype(np.float16))
