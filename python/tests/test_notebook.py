"""The kernels of TileLang's lazy-JIT notebook (python/examples/
lazy_jit_notebook.py: GEMM, dynamic K, strided copy, T.ptr, element-wise with
a macro, macro recursion), on ragged sizes, checked against NumPy."""

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy
from lazy_jit_notebook import (add_one, as_contiguous, collatz, gemm, gemm_dyn_K,
                               gemm_impl, gemm_ptr_dyn, element_wise)


def ref_gemm(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("m,n,k", [(100, 90, 70), (64, 64, 32), (1, 1, 1), (130, 33, 65)])
def test_gemm(rng, m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = to_numpy(gemm(to_device(a), to_device(b)))
    np.testing.assert_allclose(c, ref_gemm(a, b), rtol=1e-3, atol=1e-3)


def test_gemm_f16_accumulator(rng):
    # out_dtype=float16 accumulates in f16 (wgmma's .f16 form on sm_90a);
    # small integers keep every partial sum exact, so the check is exact.
    a = rng.integers(-8, 8, (130, 96)).astype(np.float16)
    b = rng.integers(-8, 8, (96, 200)).astype(np.float16)
    c = to_numpy(gemm(to_device(a), to_device(b), out_dtype=T.float16))
    assert c.dtype == np.float16
    np.testing.assert_array_equal(c, (a.astype(np.float64) @ b).astype(np.float16))


def test_gemm_recompiles_on_compile_time_change(rng):
    a = rng.standard_normal((70, 40)).astype(np.float16)
    b = rng.standard_normal((40, 50)).astype(np.float16)
    k1 = gemm.compile(to_device(a), to_device(b))
    k2 = gemm.compile(to_device(a), to_device(b), block_M=64)
    assert k1 is not k2
    assert gemm.compile(to_device(a), to_device(b)) is k1
    c = to_numpy(k2(to_device(a), to_device(b)))
    np.testing.assert_allclose(c, ref_gemm(a, b), rtol=1e-3, atol=1e-3)


def test_gemm_dynamic_k_compiles_once(rng):
    for k in (70, 33, 128):
        a = rng.standard_normal((100, k)).astype(np.float16)
        b = rng.standard_normal((k, 90)).astype(np.float16)
        c = to_numpy(gemm_dyn_K(to_device(a), to_device(b)))
        np.testing.assert_allclose(c, ref_gemm(a, b), rtol=1e-3, atol=1e-3)
    assert len(gemm_dyn_K._eager) == 1


def test_gemm_dynamic_k_mismatch_is_an_error(rng):
    a = rng.standard_normal((100, 70)).astype(np.float16)
    b = rng.standard_normal((71, 90)).astype(np.float16)
    with pytest.raises(ValueError, match=r"same dynamic size is 70"):
        gemm_dyn_K(to_device(a), to_device(b))


def test_strided_copy(rng):
    x = rng.standard_normal((100, 70)).astype(np.float32)
    if TARGET == "cpu":
        view = x[::2, ::3]
        expected = view
    else:
        t = to_device(x)
        view = t[::2, ::3]
        expected = x[::2, ::3]
    y = to_numpy(as_contiguous(view))
    np.testing.assert_array_equal(y, expected)


@tile.jit(target=TARGET)
def gemm_ptr(A: T.ptr, B: T.ptr, M: int, N: int, K: int):
    A = T.match_buffer(A, (M, K), T.float16)
    B = T.match_buffer(B, (K, N), T.float16)
    C = T.empty((M, N), T.float32)
    gemm_impl(A, B, C, M, N, K, block_M=64, block_N=64, block_K=32)
    return C


@pytest.mark.parametrize("kernel", [gemm_ptr, gemm_ptr_dyn])
def test_gemm_pointers(rng, kernel):
    a = rng.standard_normal((100, 70)).astype(np.float16)
    b = rng.standard_normal((70, 90)).astype(np.float16)
    c = to_numpy(kernel(to_device(a), to_device(b), 100, 90, 70))
    np.testing.assert_allclose(c, ref_gemm(a, b), rtol=1e-3, atol=1e-3)


def test_runtime_scalars_do_not_recompile(rng):
    for m, n, k in [(100, 90, 70), (37, 20, 9)]:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        c = to_numpy(gemm_ptr_dyn(to_device(a), to_device(b), m, n, k))
        np.testing.assert_allclose(c, ref_gemm(a, b), rtol=1e-3, atol=1e-3)
    assert len(gemm_ptr_dyn._eager) == 1


@T.macro
def square(x):
    return x * x


@pytest.mark.parametrize("n", [1000, 1, 128, 129])
def test_element_wise_macro(rng, n):
    a = rng.standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(to_numpy(element_wise(to_device(a), add_one)), a + 1,
                               rtol=1e-6)
    np.testing.assert_allclose(to_numpy(element_wise(to_device(a), square)), a * a,
                               rtol=1e-6)


def test_macro_recursion_and_refs():
    a = to_device(np.array([100], dtype=np.int32))
    collatz(a, 5)
    assert to_numpy(a)[0] == 18


@T.macro
def sincos(x):
    return T.sin(x), T.cos(x)


@tile.jit(target=TARGET)
def sincos_kernel(X: T.Tensor[[T.dyn], T.float32]):
    (N,) = X.shape
    S = T.empty((N,), T.float32)
    C = T.empty((N,), T.float32)
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            s, c = sincos(X[bx * 64 + i])
            S[bx * 64 + i] = s
            C[bx * 64 + i] = c
    return S, C


def test_macro_several_results(rng):
    x = rng.standard_normal(100).astype(np.float32)
    s, c = sincos_kernel(to_device(x))
    np.testing.assert_allclose(to_numpy(s), np.sin(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(c), np.cos(x), rtol=1e-5, atol=1e-6)
