"""Every mistake a user can make gets an exception that names the Python
file and line (or the argument), never an IR dump."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device

HERE = os.path.basename(__file__)


def raises_at(match, exc=tile.TileError):
    """Expects `exc` whose message names this file, a line, and `match`."""
    return pytest.raises(exc, match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


def line_of(text):
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if text in line and "line_of" not in line:
                return n
    raise AssertionError(text)


# -- tracing ---------------------------------------------------------------


def test_block_op_in_parallel_names_the_line():
    with pytest.raises(tile.TileError) as e:
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1, threads=64) as _:
                f = T.alloc_fragment((64,), T.float32)
                for i in T.Parallel(64):
                    T.clear(f)  # marker: clear in parallel
    assert f"{HERE}:{line_of('marker: clear in parallel')}: error: T.clear cannot be used " \
           "inside a T.Parallel body" in str(e.value)
    assert "func.func" not in str(e.value)


def test_nested_kernels():
    with raises_at("T.Kernel cannot be nested"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1) as _:
                with T.Kernel(1) as _:
                    pass


def test_fragment_element_outside_parallel():
    with raises_at("elements of fragment .* are read and written inside T.Parallel"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1) as _:
                f = T.alloc_fragment((64,), T.float32)
                f[0] = 1.0


def test_value_escaping_its_body():
    with raises_at("defined inside a parallel body is used outside it"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1) as _:
                for i in T.Parallel(64):
                    x = A[i] * 2
                A[0] = x


def test_return_inside_runtime_if():
    @T.macro
    def early(x):
        if x > 0:
            return x
        return -x

    with raises_at("'return' inside a loop or if that the kernel runs"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1) as _:
                for i in T.Parallel(64):
                    A[i] = early(A[i])


def test_break_in_a_kernel_loop():
    with raises_at("'break' inside a loop or if that the kernel runs"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1) as _:
                for i in T.serial(4):
                    break


def test_while_else_over_runtime_condition():
    with raises_at("a while loop over a run-time condition cannot have an else clause"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.int32)):
            with T.Kernel(1) as _:
                while A[0] > 0:
                    A[0] = A[0] - 1
                else:
                    A[1] = 0


def test_break_in_a_runtime_while():
    with raises_at("'break' inside a loop or if that the kernel runs"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.int32)):
            with T.Kernel(1) as _:
                while A[0] > 0:
                    A[0] = A[0] - 1
                    break


def test_truth_value_of_runtime_value():
    def helper(x):
        return 1 if bool(x) else 0

    with raises_at("the truth value of a run-time value is not known"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float32)):
            with T.Kernel(1) as _:
                for i in T.Parallel(64):
                    A[i] = helper(A[i] > 0)


def test_copy_region_shape_mismatch():
    with raises_at(r"the region of 'A' has shape \[16, 8\], but the tile is \[16, 16\]"):
        @T.prim_func
        def k(A: T.Tensor((64, 64), T.float16)):
            with T.Kernel(1) as _:
                s = T.alloc_shared((16, 16), T.float16)
                T.copy(A[0:16, 0:8], s)


def test_global_to_global_copy_needs_static_region():
    with raises_at("T.copy between global tensors needs a region of static shape"):
        @T.prim_func
        def k(A: T.Tensor((64,), T.float16), B: T.Tensor((64,), T.float16)):
            with T.Kernel(1) as _:
                T.copy(A, B)


def test_gemm_operands():
    with raises_at("T.gemm's C must be a fragment, got a shared buffer"):
        @T.prim_func
        def k(A: T.Tensor((16, 16), T.float16)):
            with T.Kernel(1) as _:
                a = T.alloc_shared((16, 16), T.float16)
                T.gemm(a, a, a)
    with raises_at("T.gemm's A must be a shared buffer or a fragment, got a global"):
        @T.prim_func
        def k2(A: T.Tensor((16, 16), T.float16)):
            with T.Kernel(1) as _:
                c = T.alloc_fragment((16, 16), T.float32)
                T.gemm(A, A, c)


def test_reduce_dim_out_of_range():
    with raises_at("dim 2 is out of range for a 2-d tile"):
        @T.prim_func
        def k(A: T.Tensor((16, 16), T.float32)):
            with T.Kernel(1) as _:
                a = T.alloc_fragment((16, 16), T.float32)
                b = T.alloc_fragment((16,), T.float32)
                T.reduce_max(a, b, dim=2)


def test_unknown_dtype():
    with pytest.raises(tile.TileError, match="unknown dtype 'float17'"):
        @T.prim_func
        def k(A: T.Tensor((16,), "float17")):
            pass


def test_parameter_without_annotation():
    with pytest.raises(tile.TileError, match=re.escape(HERE) + r":\d+: error: parameter 'A' "
                       "of a T.prim_func needs an annotation"):
        @T.prim_func
        def k(A):
            pass


def test_kernel_without_kernel():
    with pytest.raises(tile.TileError, match="launches no T.Kernel"):
        @T.prim_func
        def k(A: T.Tensor((16,), T.float32)):
            pass


def test_empty_in_prim_func():
    with raises_at("T.empty creates outputs of eager @tile.jit kernels"):
        @T.prim_func
        def k(A: T.Tensor((16,), T.float32)):
            T.empty((16,), T.float32)


def test_ref_argument_must_be_a_place():
    @T.macro
    def bump(x: T.Ref):
        x = x + 1  # noqa: F841

    with raises_at("argument 'x' is a T.Ref: pass an element"):
        @T.prim_func
        def k(A: T.Tensor((16,), T.int32)):
            with T.Kernel(1) as _:
                bump(3)


def test_threads_out_of_range():
    with raises_at("T.Kernel's threads must be 1 to 1024, got 2048"):
        @T.prim_func
        def k(A: T.Tensor((16,), T.int32)):
            with T.Kernel(1, threads=2048) as _:
                pass


def test_non_static_tile_shape():
    with raises_at("the shape of T.alloc_shared must be a compile-time integer"):
        @T.prim_func
        def k(A: T.Tensor((T.dyn["n"],), T.int32)):  # noqa: F821
            with T.Kernel(1) as _:
                T.alloc_shared((A.shape[0],), T.int32)


def test_float_index():
    with raises_at("buffer index 1.5 is not an integer"):
        @T.prim_func
        def k(A: T.Tensor((16,), T.int32)):
            with T.Kernel(1) as _:
                A[1.5] = 0


def test_wrong_index_count():
    with raises_at("global buffer 'A' has 2 dimensions, indexed with 1"):
        @T.prim_func
        def k(A: T.Tensor((16, 16), T.int32)):
            with T.Kernel(1) as _:
                A[1] = 0


def test_eager_annotation_mismatch():
    @tile.jit(target=TARGET)
    def k(A):
        M, N = T.const("M N")
        A: T.Tensor[[M, N], T.float16]
        with T.Kernel(1) as _:
            pass

    with raises_at("'A' has dtype float32, annotated float16"):
        k(to_device(np.zeros((4, 4), np.float32)))


def test_const_used_before_bound():
    @tile.jit(target=TARGET)
    def k(A):
        M = T.const("M")
        with T.Kernel(M) as _:
            pass

    with raises_at("T.const 'M' is used before an annotation binds it"):
        k(to_device(np.zeros((4, 4), np.float32)))


def test_eager_must_return_its_outputs():
    @tile.jit(target=TARGET)
    def k(A: T.Tensor[[int], T.float32]):
        B = T.empty((4,), T.float32)  # noqa: F841
        with T.Kernel(1) as _:
            pass

    with pytest.raises(tile.TileError, match="creates outputs with T.empty but returns "
                       "nothing"):
        k(to_device(np.zeros(4, np.float32)))


def test_lazy_builder_must_return_a_prim_func():
    @tile.jit(target=TARGET)
    def builder(n):
        return n

    with pytest.raises(tile.TileError, match="returned int; a lazy kernel builder returns "
                       "a T.prim_func"):
        builder(3)


# -- compiling ---------------------------------------------------------------


def test_compiler_errors_point_at_python():
    @T.prim_func
    def k(A: T.Tensor((64, 64), T.float16)):
        with T.Kernel(1, threads=128) as _:
            a = T.alloc_shared((64, 32), T.float16)
            b = T.alloc_shared((16, 64), T.float16)
            c = T.alloc_fragment((64, 64), T.float32)
            T.gemm(a, b, c)  # marker: K mismatch

    with pytest.raises(tile.TileCompileError) as e:
        tile.compile(k, target=TARGET)
    d = e.value.diagnostics[0]
    assert d.file == __file__ and d.line == line_of("marker: K mismatch")
    assert "'tile.gemm' op K mismatch: op(A) is 64x32 but op(B) is 16x64" in d.message
    text = str(e.value)
    assert text.startswith(f"{__file__}:{d.line}:")
    assert "T.gemm(a, b, c)" in text and "func.func" not in text


def test_par_compile_ignore_error(recwarn):
    @tile.jit(target=TARGET, out_idx=[-1])
    def k(K):
        @T.prim_func
        def kernel(A: T.Tensor((64, 64), T.float16), C: T.Tensor((64, 64), T.float32)):
            with T.Kernel(1, threads=128) as _:
                a = T.alloc_shared((64, K), T.float16)
                b = T.alloc_shared((32, 64), T.float16)
                c = T.alloc_fragment((64, 64), T.float32)
                T.clear(c)
                T.gemm(a, b, c)
                T.copy(c, C)
        return kernel

    kernels = k.par_compile([{"K": 32}, {"K": 16}], ignore_error=True, progress=False)
    assert kernels[0] is not None and kernels[1] is None
    assert any("K mismatch" in str(w.message) for w in recwarn)
    with pytest.raises(tile.TileCompileError, match="K mismatch"):
        k.par_compile([{"K": 16}], progress=False)


def test_unknown_target():
    with pytest.raises(tile.TileError, match="unknown target 'tpu'"):
        tile.resolve_target("tpu")


@pytest.mark.skipif(TARGET != "cpu", reason="needs a machine without a GPU")
def test_cuda_without_a_device():
    if tile.env.cuda_device()[0] is not None:
        pytest.skip("a GPU is present")
    with pytest.raises(tile.TileError, match="target cuda: no usable CUDA device"):
        tile.resolve_target("cuda")


# -- calling -----------------------------------------------------------------


@tile.jit(out_idx=[-1], target=TARGET)
def scale(M, N):
    @T.prim_func
    def kernel(X: T.Tensor((M, N), T.float32), alpha: T.float32, n: T.int8,
               Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=32) as _:
            t = T.alloc_fragment((M, N), T.float32)
            T.copy(X, t)
            for i, j in T.Parallel(M, N):
                t[i, j] = t[i, j] * alpha + n
            T.copy(t, Y)
    return kernel


@pytest.mark.parametrize("args,exc,message", [
    (lambda x: (x,), TypeError, r"takes 3 inputs \(outputs \[3\] are allocated\), got 1"),
    (lambda x: (x.astype(np.float64), 1.0, 1), TypeError,
     r"argument 'X' \(#0\) expects float32 elements, got float64"),
    (lambda x: (x[0], 1.0, 1), ValueError, r"argument 'X' \(#0\) expects 2 dimensions, got 1"),
    (lambda x: (x[:3], 1.0, 1), ValueError,
     r"argument 'X' \(#0\) has shape \(3, 8\), but dim 0 was compiled as 4"),
    (lambda x: (np.zeros((8, 4), np.float32).T, 1.0, 1), ValueError,
     r"argument 'X' \(#0\) is not contiguous \(strides \(1, 4\)\)"),
    (lambda x: ([[1.0]], 1.0, 1), TypeError,
     r"argument 'X' \(#0\) expects an array .* got list"),
    (lambda x: (x, "a", 1), TypeError, r"argument 'alpha' \(#1\) expects a float32 scalar, "
     "got str"),
    (lambda x: (x, 1.0, 2.5), TypeError, r"argument 'n' \(#2\) expects an int8 scalar, got a "
     "float"),
    (lambda x: (x, 1.0, 300), OverflowError, r"argument 'n' \(#2\): 300 does not fit in "
     "int8"),
    (lambda x: (x, 1.0, np.ones(2)), TypeError, r"argument 'n' \(#2\) is a scalar of type "
     "int8, got an array"),
])
def test_argument_checks_name_the_argument(args, exc, message):
    if TARGET != "cpu":
        pytest.skip("NumPy arguments")
    k = scale(4, 8)
    x = np.ones((4, 8), np.float32)
    with pytest.raises(exc, match=message):
        k(*args(x))


def test_arguments_on_the_wrong_device():
    if TARGET == "cpu":
        pytest.skip("needs a GPU")
    k = scale(4, 8)
    with pytest.raises(ValueError, match=r"argument 'X' \(#0\) is on cpu, but the kernel "
                       "was compiled for cuda"):
        k(np.ones((4, 8), np.float32), 1.0, 1)


def test_out_idx_errors():
    @T.prim_func
    def k(X: T.Tensor((T.dyn["n"],), T.float32), Y: T.Tensor((T.dyn["m"],), T.float32)):  # noqa: F821,E501
        with T.Kernel(1) as _:
            pass

    with pytest.raises(tile.TileError, match="out_idx 5 is out of range for 2 parameters"):
        tile.compile(k, out_idx=5, target=TARGET)
    with pytest.raises(tile.TileError, match="output 'Y': dim 0 is dynamic and no input has "
                       "the same dynamic size"):
        tile.compile(k, out_idx=-1, target=TARGET)
