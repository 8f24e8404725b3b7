"""Kernels on any CUDA device of the machine, and autotuning over several.

The argument checks and the autotuner's queue of configurations over
timing threads run everywhere (the threads' devices faked, the kernels on
the test target). The rest needs CUDA GPUs and torch, whatever
TILE_TEST_TARGET says: one GPU for the fallback of multi-GPU tuning, two for
kernels on cuda:1 and tuning over both; without them those tests skip.
References are NumPy's, on sizes that are not multiples of the tiles."""

import contextlib
import threading
import time

import numpy as np
import pytest

import tile
import tile.language as T
from conftest import TARGET, to_device, to_numpy
from tile import autotuner, env


@pytest.fixture(autouse=True)
def fresh_notes():
    """One-time notes start afresh in each test (and leave no trace)."""
    env._noted.clear()
    yield
    env._noted.clear()


def _cuda_gpus():
    """The CUDA GPUs torch and tile both see (0 without torch or CUDA)."""
    try:
        import torch
    except ImportError:
        return 0
    try:
        if not torch.cuda.is_available():
            return 0
    except Exception:  # noqa: BLE001 - a broken CUDA installation
        return 0
    if env.cuda_device()[0] is None:
        return 0
    return torch.cuda.device_count()


GPUS = _cuda_gpus()
one_gpu = pytest.mark.skipif(GPUS < 1, reason="needs a CUDA GPU and torch")
two_gpus = pytest.mark.skipif(GPUS < 2, reason="needs two CUDA GPUs and torch")


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


def scale_kernel(N, block=32, target=TARGET):
    """Y = X * s + 1 over N elements (scalar s)."""
    @tile.jit(out_idx=[-1], target=target)
    def build(N, block=32):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), s: T.float32, Y: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
                for i in T.Parallel(block):
                    Y[bx * block + i] = X[bx * block + i] * s + 1.0
        return main
    return build, build(N, block=block)


def redundant_kernel(target=TARGET):
    """Y = X * 2 * sign + 1, recomputed `reps` times in a chain of dependent
    steps that stays at its fixed point (every step gives the same bits):
    the result does not depend on reps, the time grows with it."""
    @tile.jit(out_idx=[-1], target=target)
    def redundant(N, reps=1, block=128, sign=1.0):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
                x = T.alloc_fragment((block,), T.float32)
                acc = T.alloc_fragment((block,), T.float32)
                T.copy(X[bx * block], x)
                for i in T.Parallel(block):
                    acc[i] = x[i] * (2.0 * sign) + 1.0
                for r in T.serial(reps):
                    for i in T.Parallel(block):
                        acc[i] = acc[i] * 0.5 + (x[i] * (2.0 * sign) + 1.0) * 0.5
                T.copy(acc, Y[bx * block])
        return main
    return redundant


def test_redundant_work_gives_the_same_result(rng):
    """The kernel the GPU tuning test tunes (on the test target)."""
    redundant = redundant_kernel()
    x = rng.standard_normal(1000).astype(np.float32)
    for reps, block in ((1, 128), (7, 256)):
        y = to_numpy(redundant(1000, reps=reps, block=block)(to_device(x)))
        np.testing.assert_array_equal(y, x * np.float32(2) + np.float32(1))
    y = to_numpy(redundant(1000, reps=3, sign=-1.0)(to_device(x)))
    np.testing.assert_array_equal(y, x * np.float32(-2) + np.float32(1))


@tile.jit(out_idx=[-1], target="cuda")
def gemm_cuda(M, N, K, block_M=64, block_N=64, block_K=32, num_stages=2):
    """C = A @ B (f16 in, f32 out), pipelined: on sm_90 through TMA, whose
    tensor maps live on each device."""
    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
             C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), T.float16)
            B_shared = T.alloc_shared((block_K, block_N), T.float16)
            C_local = T.alloc_fragment((block_M, block_N), T.float32)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main


# ---------------------------------------------------------------------------
# benchmark_devices and benchmark_multi_gpu (no GPU needed)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("devices, error, message", [
    ("0,1", TypeError, "must be a list of CUDA device ordinals"),
    (3, TypeError, "must be a list of CUDA device ordinals"),
    ([0, "1"], TypeError, "'1' is not a CUDA device ordinal"),
    ([True], TypeError, "True is not a CUDA device ordinal"),
    ([1.0], TypeError, "1.0 is not a CUDA device ordinal"),
    ([0, -1], ValueError, "-1 is not a CUDA device ordinal"),
])
def test_benchmark_devices_must_be_ordinals(devices, error, message):
    with pytest.raises(error, match=message):
        autotuner._resolve_devices(True, devices, "cuda", 2, 0)
    # The decorator checks them when it is applied.
    with pytest.raises(error, match=message):
        tile.autotune(configs=[{"block": 32}], benchmark_devices=devices)


def test_benchmark_devices_resolve_to_the_gpus_to_time_on():
    resolve = autotuner._resolve_devices
    # Default: one GPU, this thread.
    assert resolve(False, None, "cuda", 4, 0) is None
    # Every GPU, or those asked for (once each, in order).
    assert resolve(True, None, "cuda", 4, 0) == [0, 1, 2, 3]
    assert resolve(True, [2, 0, 2], "cuda", 4, 0) == [2, 0]
    assert resolve(True, [], "cuda", 3, 1) == [0, 1, 2]
    # Another GPU than the current one alone: a thread on it.
    assert resolve(True, [1], "cuda", 2, 0) == [1]
    # The current GPU alone: this thread.
    assert resolve(True, None, "cuda", 1, 0) is None
    assert resolve(True, [1], "cuda", 2, 1) is None
    with pytest.raises(ValueError, match=r"no CUDA device 2, 5 \(torch sees 2: 0 to 1\)"):
        resolve(True, [0, 2, 5], "cuda", 2, 0)


@pytest.mark.parametrize("target, count, note", [
    ("cpu", 0, "the target is cpu"),
    ("cuda", 0, "found no CUDA GPU"),
])
def test_multi_gpu_falls_back_to_one_thread_with_a_note(target, count, note):
    with pytest.warns(UserWarning, match=note):
        assert autotuner._resolve_devices(True, [0, 1], target, count, 0) is None


@pytest.mark.parametrize("backend", ["cupti", "cudagraph"])
def test_multi_gpu_times_with_events_only(backend):
    # CUPTI would record the other threads' kernels; a graph capture would
    # fail their synchronizations.
    with pytest.warns(UserWarning, match=f"with backend='{backend}' the configurations are "
                                         "timed on the current GPU one by one"):
        assert autotuner._resolve_devices(True, None, "cuda", 2, 0, backend) is None
    assert autotuner._resolve_devices(True, None, "cuda", 2, 0, "event") == [0, 1]


def test_benchmark_devices_without_multi_gpu_is_noted_and_ignored():
    with pytest.warns(UserWarning, match="benchmark_devices is used with "
                                         "benchmark_multi_gpu=True"):
        assert autotuner._resolve_devices(False, [1], "cuda", 2, 0) is None


# ---------------------------------------------------------------------------
# The queue of configurations over timing threads (devices faked)
# ---------------------------------------------------------------------------


def test_run_parallel_gives_each_item_to_one_thread():
    entered, done = [], []
    lock = threading.Lock()
    barrier = threading.Barrier(3)

    @contextlib.contextmanager
    def scope(device):
        with lock:
            entered.append((device, threading.get_ident()))
        barrier.wait(timeout=10)  # every thread is up before any takes an item
        yield

    def work(device, item):
        time.sleep(0.01)
        with lock:
            done.append((item, device, threading.get_ident()))

    autotuner._run_parallel(list(range(12)), [3, 5, 7], work, scope)
    assert sorted(item for item, _, _ in done) == list(range(12))
    assert sorted(d for d, _ in entered) == [3, 5, 7]
    # Each device's items ran on that device's thread, and every thread worked.
    thread_of = dict(entered)
    assert all(thread_of[device] == ident for _, device, ident in done)
    assert {device for _, device, _ in done} == {3, 5, 7}
    assert len(set(thread_of.values())) == 3


def test_run_parallel_raises_a_threads_failure_and_stops_the_others():
    done = []

    def work(device, item):
        if item == 2:
            raise RuntimeError("device lost")
        time.sleep(0.01)
        done.append(item)

    with pytest.raises(RuntimeError, match="device lost"):
        autotuner._run_parallel(list(range(50)), [0, 1], work,
                                lambda d: contextlib.nullcontext())
    assert len(done) < 49

    @contextlib.contextmanager
    def broken(device):
        raise ValueError(f"no device {device}")
        yield

    with pytest.raises(ValueError, match="no device"):
        autotuner._run_parallel([1, 2], [0, 9], lambda d, i: None, broken)


SCALES = [0.5, 1.0, 2.0, 3.0, -1.0, 4.0]


def _tune_with_fake_timing(monkeypatch, devices):
    """Tunes Y = X * scale over SCALES (on the test target) with the timing
    faked: a config's latency is 1 + |scale - 2.2| (so 2.0 wins), measured
    on what the kernel computed; the reference program is wrong for
    scale -1 only (skipped with a warning). `devices` fakes the timing
    threads' GPUs (None: the caller's thread). Returns the result, the
    tuner's timings and the (device, thread) of each trial."""
    N = 37
    trials = []
    lock = threading.Lock()
    current = threading.local()

    def fake_bench(self, func=None, input_tensors=None, **kwargs):
        if func is not None:  # the reference
            return 0.25
        out = to_numpy(self.func(*input_tensors))
        scale = float(out[1] / max(to_numpy(input_tensors[0])[1], 1e-6))
        with lock:
            trials.append((scale, getattr(current, "device", None), threading.get_ident()))
        time.sleep(0.02)
        return 1.0 + abs(scale - 2.2)

    @contextlib.contextmanager
    def fake_scope(device):
        current.device = device
        yield

    monkeypatch.setattr(tile.profiler.Profiler, "do_bench", fake_bench)
    monkeypatch.setattr(autotuner, "_device_scope", fake_scope)
    # The devices are faked: the inputs stay where they are.
    monkeypatch.setattr(autotuner, "_on_device", lambda values, device: values)
    monkeypatch.setattr(autotuner, "_benchmark_devices",
                        lambda multi, ids, target, backend: devices if multi else None)

    def ref(X):
        return to_numpy(X)

    def check(outs, refs):
        # Wrong exactly when the kernel negates.
        if float(to_numpy(outs[0])[1]) < 0:
            raise AssertionError("negative")

    def build(scale=1.0):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, 16), threads=32) as bx:
                for i in T.Parallel(16):
                    Y[bx * 16 + i] = X[bx * 16 + i] * scale
        return main

    x = to_device(np.arange(N, dtype=np.float32) + 1)
    tuner = (autotuner.AutoTuner.from_kernel(kernel=build,
                                             configs=[{"scale": s} for s in SCALES])
             .set_compile_args(out_idx=[-1], target=TARGET)
             .set_profile_args(ref_prog=ref, manual_check_prog=check))
    with autotuner.set_autotune_inputs(x):
        result = tuner.run(warmup=1, rep=1, progress=False,
                           benchmark_multi_gpu=devices is not None)
    return result, trials


def test_multi_gpu_search_matches_the_single_thread_search(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "one"))
    with pytest.warns(UserWarning, match=r"config \{'scale': -1.0\} is wrong"):
        single, single_trials = _tune_with_fake_timing(monkeypatch, None)
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "several"))
    with pytest.warns(UserWarning, match=r"config \{'scale': -1.0\} is wrong"):
        multi, multi_trials = _tune_with_fake_timing(monkeypatch, [0, 1])
    # The same result, in the same form.
    assert single.config == multi.config == {"scale": 2.0}
    assert single.latency == multi.latency == pytest.approx(1.2)
    assert single.ref_latency == multi.ref_latency == 0.25
    assert type(multi.kernel) is type(single.kernel)
    assert multi.kernel.config == multi.config and multi.kernel.latency == multi.latency
    assert multi.func is multi.kernel.prim_func and isinstance(multi.libcode, str)
    # Every config that passed its check was timed once; in one thread here,
    # on both faked devices' threads there.
    timed = sorted(s for s in SCALES if s >= 0)
    assert sorted(s for s, _, _ in single_trials) == timed
    assert sorted(s for s, _, _ in multi_trials) == timed
    assert {d for _, d, _ in single_trials} == {None}
    assert {d for _, d, _ in multi_trials} == {0, 1}
    assert len({t for _, _, t in multi_trials}) == 2
    # The returned kernel runs (on the caller's device).
    x = np.linspace(-1, 1, 37).astype(np.float32)
    np.testing.assert_allclose(to_numpy(multi.kernel(to_device(x))), x * 2.0)


def test_decorator_passes_multi_gpu_to_the_search(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    seen = []
    monkeypatch.setattr(autotuner, "_benchmark_devices",
                        lambda multi, ids, target, backend: seen.append((multi, ids, backend))
                        or None)

    @tile.autotune(configs=[{"block": 16}, {"block": 32}], warmup=1, rep=1, progress=False,
                   benchmark_multi_gpu=True, benchmark_devices=(1, 0), backend="cudagraph")
    @tile.jit(out_idx=[-1], target=TARGET)
    def double(N, block=16):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
                for i in T.Parallel(block):
                    Y[bx * block + i] = X[bx * block + i] * 2.0
        return main

    k = double(45)
    assert seen == [(True, [1, 0], "cudagraph")]
    x = np.arange(45, dtype=np.float32)
    np.testing.assert_allclose(to_numpy(k(to_device(x))), x * 2)


# ---------------------------------------------------------------------------
# On CUDA GPUs
# ---------------------------------------------------------------------------


def _cuda(x, device):
    import torch
    return torch.from_numpy(np.ascontiguousarray(x)).to(f"cuda:{device}")


@two_gpus
def test_a_kernel_runs_on_the_device_of_its_tensors(rng):
    import torch
    _, kernel = scale_kernel(1000, block=128, target="cuda")
    x = rng.standard_normal(1000).astype(np.float32)
    # Against the exact value (a fused multiply-add rounds once, NumPy
    # twice; both are within an ulp of it).
    expected = x.astype(np.float64) * 1.5 + 1
    for device in (0, 1, 0, 1):
        y = kernel(_cuda(x, device), 1.5)
        assert y.device == torch.device("cuda", device)
        np.testing.assert_allclose(to_numpy(y), expected, rtol=1e-6, atol=1e-6)
    # A call on cuda:1 leaves torch's current device as it was, inside and
    # outside torch.cuda.device.
    assert torch.cuda.current_device() == 0
    with torch.cuda.device(1):
        y0 = kernel(_cuda(x, 0), 2.0)
        assert torch.cuda.current_device() == 1
    assert torch.cuda.current_device() == 0
    np.testing.assert_allclose(to_numpy(y0), x.astype(np.float64) * 2 + 1, rtol=1e-6,
                               atol=1e-6)
    # An output the caller gives, on cuda:1.
    out = torch.empty(1000, dtype=torch.float32, device="cuda:1")
    kernel(_cuda(x, 1), -1.0, out)
    np.testing.assert_allclose(to_numpy(out), -x + 1, rtol=1e-6)


@two_gpus
def test_a_pipelined_gemm_gives_the_same_result_on_both_devices(rng):
    import torch
    M, N, K = 200, 136, 168
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    kernel = gemm_cuda(M, N, K)
    results = {}
    for device in (1, 0, 1):
        c = kernel(_cuda(a, device), _cuda(b, device))
        assert c.device == torch.device("cuda", device)
        results[device] = to_numpy(c)
        np.testing.assert_allclose(results[device], reference, rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(results[0], results[1])


@two_gpus
def test_a_call_mixing_devices_names_both():
    _, kernel = scale_kernel(64, target="cuda")
    x0 = _cuda(np.ones(64, np.float32), 0)
    y1 = _cuda(np.zeros(64, np.float32), 1)
    with pytest.raises(ValueError, match=r"argument 'Y' \(#2\) is on cuda:1, but argument "
                                         r"'X' \(#0\) is on cuda:0 \(a kernel's arrays must "
                                         r"be on one device\)"):
        kernel(x0, 1.0, y1)


@two_gpus
def test_multi_gpu_autotune_times_on_both_devices(tmp_path, monkeypatch, rng):
    import torch
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    M, N, K = 256, 192, 160
    configs = [{"block_M": bm, "block_N": bn, "block_K": bk}
               for bm in (32, 64) for bn in (32, 64) for bk in (32, 64)]
    devices_seen, elsewhere = set(), []
    lock = threading.Lock()

    def ref(A, B):
        with lock:
            devices_seen.add(A.device.index)
            if not A.device == B.device == torch.device("cuda", torch.cuda.current_device()):
                elsewhere.append((A.device, B.device, torch.cuda.current_device()))
        return A.float() @ B.float()

    def builder(block_M=64, block_N=64, block_K=32):
        return gemm_cuda.func(M, N, K, block_M=block_M, block_N=block_N, block_K=block_K)

    result = (autotuner.AutoTuner.from_kernel(kernel=builder, configs=configs)
              .set_compile_args(out_idx=[-1], target="cuda")
              .set_profile_args(ref_prog=ref, supply_type=tile.TensorSupplyType.Integer)
              .run(warmup=2, rep=5, progress=False, benchmark_multi_gpu=True,
                   benchmark_devices=[0, 1]))
    assert result.config in configs and result.latency > 0 and result.ref_latency > 0
    assert devices_seen == {0, 1} and not elsewhere
    assert torch.cuda.current_device() == 0
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    for device in (0, 1):
        np.testing.assert_allclose(to_numpy(result.kernel(_cuda(a, device), _cuda(b, device))),
                                   reference, rtol=2e-3, atol=2e-3)


@two_gpus
def test_multi_gpu_autotune_decorator_copies_the_inputs_to_each_device(tmp_path, monkeypatch,
                                                                       rng):
    import torch
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    devices_seen = set()
    lock = threading.Lock()

    def ref(X, s):
        with lock:
            devices_seen.add(X.device.index)
        return X * s + 1

    @tile.autotune(configs=[{"block": b} for b in (32, 64, 128, 256)], warmup=2, rep=4,
                   ref_prog=ref, progress=False, benchmark_multi_gpu=True,
                   benchmark_devices=[1, 0])
    @tile.jit(out_idx=[-1], target="cuda")
    def scale(N, block=32):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), s: T.float32, Y: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
                for i in T.Parallel(block):
                    Y[bx * block + i] = X[bx * block + i] * s + 1.0
        return main

    x = rng.standard_normal(3001).astype(np.float32)
    with autotuner.set_autotune_inputs(_cuda(x, 0), 0.5):
        k = scale(3001)
    assert k.config in [{"block": b} for b in (32, 64, 128, 256)]
    assert devices_seen == {0, 1}
    for device in (1, 0):
        np.testing.assert_allclose(to_numpy(k(_cuda(x, device), 3.0)),
                                   x.astype(np.float64) * 3 + 1, rtol=1e-6, atol=1e-6)
    assert torch.cuda.current_device() == 0


@two_gpus
def test_benchmark_devices_other_than_the_current_one(tmp_path, monkeypatch):
    import torch
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    devices_seen = set()
    build, _ = scale_kernel(500, target="cuda")

    def ref(X, s):
        devices_seen.add(X.device.index)
        return X * s + 1

    def builder(block=32):
        return build.func(500, block=block)

    x = _cuda(np.arange(500, dtype=np.float32), 0)
    with autotuner.set_autotune_inputs(x, 2.0):
        result = (autotuner.AutoTuner.from_kernel(kernel=builder,
                                                  configs=[{"block": 32}, {"block": 64}])
                  .set_compile_args(out_idx=[-1], target="cuda")
                  .set_profile_args(ref_prog=ref)
                  .run(warmup=1, rep=2, progress=False, benchmark_multi_gpu=True,
                       benchmark_devices=[1]))
    assert devices_seen == {1}
    assert torch.cuda.current_device() == 0
    np.testing.assert_allclose(to_numpy(result.kernel(x, 2.0)),
                               np.arange(500, dtype=np.float32) * 2 + 1)


@one_gpu
def test_multi_gpu_autotune_on_the_current_gpu_alone(tmp_path, monkeypatch):
    """With benchmark_devices naming only the current GPU, tuning runs in
    the caller's thread, as without benchmark_multi_gpu."""
    import torch
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    threads = set()
    build, _ = scale_kernel(300, target="cuda")

    def ref(X, s):
        threads.add(threading.get_ident())
        return X * s + 1

    x = _cuda(np.arange(300, dtype=np.float32), 0)
    with autotuner.set_autotune_inputs(x, 2.0):
        result = (autotuner.AutoTuner.from_kernel(
            kernel=lambda block=32: build.func(300, block=block),
            configs=[{"block": 32}, {"block": 64}])
            .set_compile_args(out_idx=[-1], target="cuda")
            .set_profile_args(ref_prog=ref)
            .run(warmup=1, rep=2, progress=False, benchmark_multi_gpu=True,
                 benchmark_devices=[torch.cuda.current_device()]))
    assert threads == {threading.get_ident()}
    assert result.config in ({"block": 32}, {"block": 64})


@two_gpus
def test_multi_gpu_autotune_picks_what_one_gpu_picks(tmp_path, monkeypatch):
    """Tuning over both GPUs and on the current one alone picks the same
    kind of config: the one without redundant work that computes the right
    thing (which block size wins is left to timing). The wrong config, the
    fastest, is rejected on whichever device checks it."""
    import torch
    N = (1 << 20) + 77
    redundant = redundant_kernel("cuda")
    configs = [{"reps": reps, "block": block} for reps in (4096, 1, 1024)
               for block in (128, 256)] + [{"reps": 0, "block": 128, "sign": -1.0}]
    threads = set()
    lock = threading.Lock()

    def ref(X):
        with lock:
            threads.add((threading.get_ident(), X.device.index))
        return X * 2 + 1

    results = {}
    for multi in (False, True):
        monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / str(multi)))
        threads.clear()
        with pytest.warns(UserWarning, match=r"config \{'reps': 0, 'block': 128, "
                                             r"'sign': -1.0\} is wrong"):
            results[multi] = (autotuner.AutoTuner.from_kernel(
                kernel=lambda reps=1, block=128, sign=1.0: redundant.func(
                    N, reps=reps, block=block, sign=sign),
                configs=configs)
                .set_compile_args(out_idx=[-1], target="cuda")
                .set_profile_args(ref_prog=ref, supply_type=tile.TensorSupplyType.Normal,
                                  rtol=0, atol=0)
                .run(warmup=2, rep=5, progress=False, benchmark_multi_gpu=multi,
                     benchmark_devices=[0, 1] if multi else None))
        if multi:
            assert {d for _, d in threads} == {0, 1} and len(threads) == 2
        else:
            assert threads == {(threading.get_ident(), 0)}
        assert torch.cuda.current_device() == 0
    one, both = results[False], results[True]
    assert one.config["reps"] == both.config["reps"] == 1
    assert "sign" not in one.config and "sign" not in both.config
    x = np.linspace(-3, 3, N).astype(np.float32)
    for device in (0, 1):
        np.testing.assert_array_equal(to_numpy(both.kernel(_cuda(x, device))), x * 2 + 1)
