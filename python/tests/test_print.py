"""T.print, TileLang's debug print: the lines a kernel prints (C-level
printf on the CPU target, captured from file descriptor 1) against NumPy,
TileLang's default messages and buffer names, the printing thread that
warp_group_id / warp_id select, prints in T.Parallel bodies, and the misuses
as located errors."""

import os
import re

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device

HERE = os.path.basename(__file__)

pytestmark = pytest.mark.skipif(
    TARGET != "cpu", reason="reads the CPU target's printf from fd 1")


def raises_at(match):
    return pytest.raises(tile.TileError,
                         match=re.escape(HERE) + r":\d+(:\d+)?: error: .*" + match)


def head(msg, block, thread):
    return f"msg='{msg}' BlockIdx=({block}, 0, 0), ThreadIdx=({thread}, 0, 0)"


def printed(capfd):
    return sorted(line for line in capfd.readouterr().out.splitlines()
                  if line.startswith("msg="))


def kernel_of_prints(M, N, threads):
    @T.prim_func
    def prints(A: T.Tensor((M, N), T.float32), B: T.Tensor((M, N), T.float32)):
        with T.Kernel(2, threads=threads) as bx:
            A_shared = T.alloc_shared((M, N), T.float32)
            C_local = T.alloc_fragment((M, N), T.float32)
            T.copy(A[0, 0], A_shared)
            for i, j in T.Parallel(M, N):
                C_local[i, j] = A_shared[i, j] * 2 + bx
            T.print(bx + 1)
            T.print(msg="start")
            T.print(A_shared[1, 2], msg="one")
            T.print(A_shared)
            T.print(C_local, msg="acc", warp_id=1)
            T.copy(C_local, B[0, 0])
    return prints


def test_scalars_and_buffers_print_tilelangs_lines(capfd, rng):
    M, N, threads = 3, 5, 48
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.zeros((M, N), np.float32)
    kernel = tile.compile(kernel_of_prints(M, N, threads), target=TARGET)
    kernel(to_device(a), to_device(b))
    got = printed(capfd)
    want = []
    for bx in range(2):
        for t in range(threads):
            # TileLang's message for a value is the expression; index values
            # are its int32.
            want.append(head("expr<bx + 1>", bx, t) + f": dtype=int value={bx + 1}")
            want.append(head("start", bx, t))
            want.append(head("one", bx, t) + ": dtype=float value=%f" % a[1, 2])
        for i, v in enumerate(a.reshape(-1)):
            want.append(head("buffer<A_shared, float32>", bx, 0) +
                        ": buffer=A_shared, index=%d, dtype=float value=%f" % (i, v))
        # warp_id=1: the warp's first thread, 32, prints.
        for i, v in enumerate((a * 2 + bx).reshape(-1)):
            want.append(head("acc", bx, 32) +
                        ": buffer=C_local, index=%d, dtype=float value=%f" % (i, v))
    assert got == sorted(want)


def test_global_local_and_unsigned_prints(capfd):
    @T.prim_func
    def k(X: T.Tensor((2, 3), T.uint8), F: T.Tensor((4,), T.int32)):
        with T.Kernel(1, threads=2) as bx:
            counts = T.alloc_local((2,), T.int16)
            counts[0] = -3
            counts[1] = 4
            flag = T.alloc_var(T.bool, True)
            T.print(X, warp_group_id=0)
            T.print(counts)
            T.print(flag, msg="flag")
            T.print(T.float16(0.5), msg="half")
            F[0] = 1

    x = np.array([[0, 1, 255], [128, 7, 200]], np.uint8)
    f = np.zeros(4, np.int32)
    tile.compile(k, target=TARGET)(to_device(x), to_device(f))
    got = printed(capfd)
    want = []
    # A global tensor: the message as given (TileLang's default is empty),
    # from one thread.
    for i, v in enumerate(x.reshape(-1)):
        want.append(head("", 0, 0) +
                    f": buffer=X, index={i}, dtype=unsigned char value={v}")
    for t in range(2):
        for i, v in enumerate([-3, 4]):
            want.append(head("buffer<counts, int16>", 0, t) +
                        f": buffer=counts, index={i}, dtype=short value={v}")
        want.append(head("flag", 0, t) + ": dtype=bool value=true")
        want.append(head("half", 0, t) + ": dtype=half_t value=0.500000")
    assert got == sorted(want)


def test_warp_group_selects_the_printing_thread(capfd):
    @T.prim_func
    def k(X: T.Tensor((2,), T.float32)):
        with T.Kernel(1, threads=256) as _:
            s = T.alloc_shared((2,), T.float32)
            T.copy(X[0], s)
            T.print(s, msg="s", warp_group_id=1, warp_id=2)

    x = np.array([1.25, -2.0], np.float32)
    tile.compile(k, target=TARGET)(to_device(x))
    assert printed(capfd) == [
        head("s", 0, 192) + ": buffer=s, index=0, dtype=float value=1.250000",
        head("s", 0, 192) + ": buffer=s, index=1, dtype=float value=-2.000000"]


def test_print_misuses_are_located_errors():
    with raises_at("T.print: warp_group_id=1, warp_id=0 select thread 128, but "
                   "the kernel has 128 threads"):
        @T.prim_func
        def k(X: T.Tensor((8,), T.float32)):
            with T.Kernel(1, threads=128) as _:
                s = T.alloc_shared((8,), T.float32)
                T.print(s, warp_group_id=1)

    with raises_at("T.print needs a value, a buffer or a message"):
        @T.prim_func
        def k2(X: T.Tensor((8,), T.float32)):
            with T.Kernel(1) as _:
                T.print()

    with raises_at("T.print prints a whole buffer, a value or a message, not a "
                   "region"):
        @T.prim_func
        def k3(X: T.Tensor((8,), T.float32)):
            with T.Kernel(1) as _:
                T.print(X[0:4])

    with raises_at(r"T.print of a buffer cannot be used inside a T.Parallel body"):
        @T.prim_func
        def k4(X: T.Tensor((8,), T.float32)):
            with T.Kernel(1) as _:
                f = T.alloc_fragment((8,), T.float32)
                for i in T.Parallel(8):
                    T.print(f)


def test_print_in_a_parallel_body(capfd):
    """TileLang's print of fragment elements in a T.Parallel loop: each
    iteration's value (on the CPU target from thread 0, once per
    iteration)."""
    @T.prim_func
    def k(X: T.Tensor((2, 3), T.float32)):
        with T.Kernel(1, threads=32) as _:
            register_buf = T.alloc_fragment((2, 3), T.float32)
            T.copy(X[0, 0], register_buf)
            for i, j in T.Parallel(2, 3):
                T.print(register_buf[i, j] + 1)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    tile.compile(k, target=TARGET)(to_device(x))
    assert printed(capfd) == sorted(
        head("expr<register_buf[i, j] + 1>", 0, 0) + ": dtype=float value=%f" % v
        for v in (x + 1).reshape(-1))
