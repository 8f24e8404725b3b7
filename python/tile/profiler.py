"""tile.profiler: timing (do_bench) and checking kernels against references
(TileLang's ``tilelang.profiler``).

``do_bench(fn, warmup=25, rep=100)`` times `fn` as TileLang's and Triton's
do_bench do: warm-up and repetition budgets in milliseconds (or counts with
``_n_warmup`` / ``_n_repeat``), the L2 cache flushed before every run (a
write of a buffer larger than the cache), and one of TileLang's backends on
the GPU: ``"event"`` (CUDA events around each call), ``"cupti"`` (the
kernels' own device time, from torch's profiler) or ``"cudagraph"`` (the
calls captured in a CUDA graph and replayed). On the CPU every backend is
the steady clock around each call. Returns milliseconds: the mean, or
``return_mode`` / ``quantiles``.

``kernel.get_profiler(tensor_supply_type=)`` gives a ``Profiler``: inputs of
the kernel's parameter types, ``assert_allclose(ref_prog)``, ``do_bench()``,
``get_latency()``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import statistics
import sys
import time

from .utils.tensor import (KernelParam, TensorSupplyType, get_tensor_supply,  # noqa: F401
                           torch_assert_close)

BACKENDS = ("event", "cupti", "cudagraph")
RETURN_MODES = ("mean", "median", "min", "max", "all")
_FLUSH_NAME = "tile::cache_flush"


def _cuda_torch():
    """torch, when it is installed and sees a GPU; else None."""
    try:
        import torch
    except ImportError:
        return None
    try:
        return torch if torch.cuda.is_available() else None
    except Exception:  # a broken CUDA installation: time on the CPU
        return None


def _quantiles(times, quantiles):
    """Quantiles with linear interpolation (torch.quantile's)."""
    ordered = sorted(times)
    out = []
    for q in quantiles:
        if not 0 <= q <= 1:
            raise ValueError(f"quantiles must be in [0, 1], got {q}")
        pos = q * (len(ordered) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(ordered) - 1)
        out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
    return out[0] if len(out) == 1 else out


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        return _quantiles(times, quantiles)
    if return_mode == "all":
        return list(times)
    return {"mean": statistics.fmean, "median": statistics.median, "min": min,
            "max": max}[return_mode](times)


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None,
             fast_flush=True, backend="event", return_mode="mean", device=None,
             cache_size=256, early_stop_baseline=None):
    """Milliseconds per call of `fn()`.

    warmup, rep: budgets in milliseconds of warm-up and timed calls (their
    counts follow from a first estimate); _n_warmup, _n_repeat: the counts
    themselves. backend: "event", "cupti" or "cudagraph" (TileLang's; the
    CPU times every call with the steady clock). return_mode: "mean",
    "median", "min", "max" (or "all": every timed call). quantiles: a list
    of them instead. device: the CUDA device (index or torch.device), or
    "cpu" to time on the host. cache_size: the L2 flush buffer in MB.
    early_stop_baseline: when the first estimate is above it (ms), the
    estimate is returned without the timed runs.
    """
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(RETURN_MODES)}, got "
                         f"{return_mode!r}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown profiler backend {backend!r} (expected event, cupti or "
                         "cudagraph)")
    torch = None if device == "cpu" else _cuda_torch()
    if torch is None:
        return _bench_cpu(fn, warmup, rep, _n_warmup, _n_repeat, quantiles, return_mode,
                          fast_flush, cache_size, early_stop_baseline)
    index = _cuda_index(torch, device)
    scope = torch.cuda.device(index) if index is not None else contextlib.nullcontext()
    with scope:
        return _bench_cuda(torch, fn, warmup, rep, _n_warmup, _n_repeat, quantiles,
                           return_mode, fast_flush, backend, cache_size, early_stop_baseline)


def _cuda_index(torch, device):
    if device is None:
        return None
    if isinstance(device, int):
        return device
    d = torch.device(device)
    if d.type != "cuda":
        raise ValueError(f"do_bench: device must be a CUDA device or 'cpu', got {device!r}")
    return d.index if d.index is not None else torch.cuda.current_device()


def _bench_cuda(torch, fn, warmup, rep, n_warmup, n_repeat, quantiles, return_mode,
                fast_flush, backend, cache_size, early_stop_baseline):
    fn()
    torch.cuda.synchronize()
    # Zeroed before each run: larger than any L2 (256 MB by default).
    nbytes = int(cache_size) * 1024 * 1024
    cache = (torch.empty(nbytes // 4, dtype=torch.int32, device="cuda") if fast_flush else
             torch.empty(nbytes, dtype=torch.int8, device="cuda"))
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-4)
    if early_stop_baseline is not None and estimate > early_stop_baseline:
        return [estimate] * len(quantiles) if quantiles is not None else estimate
    n_warmup = n_warmup if n_warmup > 0 else max(1, int(warmup / estimate))
    n_repeat = n_repeat if n_repeat > 0 else max(1, int(rep / estimate))
    for _ in range(n_warmup):
        fn()
    if backend == "cupti":
        ms = _bench_cupti(torch, fn, cache, n_repeat)
        if ms is not None:
            return ms
    elif backend == "cudagraph":
        times = _bench_cudagraph(torch, fn, cache, n_repeat)
        if times is not None:
            return _summarize(times, quantiles, return_mode)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for i in range(n_repeat):
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarize(times, quantiles, return_mode)


@contextlib.contextmanager
def _quiet():
    """stdout and stderr (the file descriptors) to /dev/null: CUPTI talks."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in saved + [null]:
            os.close(f)


def _bench_cupti(torch, fn, cache, n_repeat):
    """The device time of the kernels `fn` launches, per call (ms), from
    torch's profiler (CUPTI): every kernel of the process is recorded, the
    flushes are left out. None when it recorded no kernel (then CUDA events
    time the calls)."""
    from torch import profiler as tp
    try:
        with _quiet():
            prof = tp.profile(activities=[tp.ProfilerActivity.CPU, tp.ProfilerActivity.CUDA],
                              schedule=tp.schedule(wait=1, warmup=0, active=1, repeat=1))
            with prof:
                for _ in range(2):
                    for _ in range(n_repeat):
                        with tp.record_function(_FLUSH_NAME):
                            cache.zero_()
                        fn()
                    prof.step()
            torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - a profiler that cannot start
        _note(f"tile.profiler: the cupti backend failed ({e}); timing with CUDA events")
        return None
    total = flush = 0.0
    kernels = 0
    for event in prof.events():
        if getattr(getattr(event, "device_type", None), "name", "") != "CUDA":
            continue
        if getattr(event, "is_user_annotation", False):
            if event.key == _FLUSH_NAME:
                flush += event.self_device_time_total
            continue
        total += event.self_device_time_total
        kernels += 1
    if kernels == 0 or total - flush <= 0:
        _note("tile.profiler: the cupti backend recorded no kernel; timing with CUDA events")
        return None
    return (total - flush) / n_repeat * 1e-3


def _bench_cudagraph(torch, fn, cache, n_repeat, n_retries=10):
    """Per-call times (ms) of `n_repeat` calls captured in one CUDA graph and
    replayed `n_retries` times (the flush before each replay). None when the
    calls cannot be captured (then CUDA events time them)."""
    stream = torch.cuda.Stream()
    try:
        with torch.cuda.stream(stream):
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(n_repeat):
                    fn()
            torch.cuda.synchronize()
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_retries)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_retries)]
            for i in range(n_retries):
                cache.zero_()
                starts[i].record()
                graph.replay()
                ends[i].record()
            torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - whatever stops the capture
        try:
            torch.cuda.synchronize()
        except Exception:  # noqa: BLE001 - the failed capture's own error again
            pass
        _note(f"tile.profiler: the cudagraph backend cannot capture the calls ({e}); "
              "timing with CUDA events")
        return None
    return [s.elapsed_time(e) / n_repeat for s, e in zip(starts, ends)]


def _note(message):
    from .env import note_once
    note_once(message)


def _bench_cpu(fn, warmup, rep, n_warmup, n_repeat, quantiles, return_mode, flush,
               cache_size, early_stop_baseline):
    import numpy as np
    # At most 64 MB: larger than the last-level caches of most hosts, and
    # written before every timed call.
    cache = (np.empty(min(int(cache_size), 64) * 1024 * 1024 // 8, dtype=np.int64)
             if flush else None)
    fn()
    # The estimate includes the flush, as on the GPU: the budgets bound the
    # time the timing takes.
    t0 = time.perf_counter()
    for _ in range(3):
        if cache is not None:
            cache.fill(0)
        fn()
    estimate = max((time.perf_counter() - t0) / 3 * 1e3, 1e-3)
    if early_stop_baseline is not None and estimate > early_stop_baseline:
        return [estimate] * len(quantiles) if quantiles is not None else estimate
    n_warmup = n_warmup if n_warmup > 0 else max(1, int(warmup / estimate))
    n_repeat = n_repeat if n_repeat > 0 else max(1, int(rep / estimate))
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_repeat):
        if cache is not None:
            cache.fill(0)
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return _summarize(times, quantiles, return_mode)


def _synchronize(kernel):
    if getattr(kernel, "target", "cpu") == "cuda":
        torch = _cuda_torch()
        if torch is not None:
            torch.cuda.synchronize()


class Profiler:
    """kernel.get_profiler(tensor_supply_type=): inputs of the kernel's
    parameter types, checks against a reference program, and timing
    (TileLang's Profiler). ``params`` are the kernel's parameters,
    ``result_idx`` its outputs (what the kernel allocates and returns),
    ``func`` the kernel."""

    def __init__(self, kernel, supply_type=None):
        if supply_type is None:
            supply_type = TensorSupplyType.Auto
        if not isinstance(supply_type, TensorSupplyType):
            raise TypeError(f"tensor_supply_type must be a tile.TensorSupplyType, got "
                            f"{supply_type!r}")
        self.kernel = kernel
        self.adapter = kernel
        self.supply_type = supply_type
        # The caller's parameters: workspaces (T.alloc_global) are the
        # kernel's own, allocated at each call (out_idx counts without them).
        self.params = [KernelParam.from_param(p) for p in kernel.params
                       if not p.workspace]
        self.result_idx = list(kernel.out_idx)
        self.supply = get_tensor_supply(
            supply_type, device="cpu" if kernel.target == "cpu" else kernel.target)

    def with_default_adapter(self, adapter):
        self.adapter = adapter
        return self

    @property
    def func(self):
        """What the profiler runs: the kernel (called with its inputs, it
        returns its outputs)."""
        return self.adapter

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    # -- inputs --------------------------------------------------------------
    def _get_params(self, with_output=False):
        return [p for i, p in enumerate(self.params) if with_output or i not in self.result_idx]

    def _get_inputs(self, with_output=False, dynamic_symbolic_constraints=None):
        """Fresh inputs (and outputs, with_output) for the kernel: tensors from
        the supply; run-time scalars are 1."""
        inputs = []
        for i, p in enumerate(self.params):
            if not with_output and i in self.result_idx:
                continue
            if p.is_scalar():
                inputs.append(1 if p.dtype.is_int else 1.0)
                continue
            if dynamic_symbolic_constraints and any(s is None for s in p.shape):
                raise ValueError(f"parameter '{p.name}' has dims known at run time only: "
                                 "tile cannot name them; pass input_tensors=")
            inputs.append(self.supply(p))
        return inputs

    # -- checks --------------------------------------------------------------
    def _outputs(self, value):
        if value is None:
            return []
        if isinstance(value, (tuple, list)):
            return list(value)
        return [value]

    def assert_allclose(self, reference_program, input_tensors=None, atol=1e-2, rtol=1e-2,
                        max_mismatched_ratio=0.01):
        """Runs `reference_program` and the kernel on the same inputs and
        compares each output (fp8 as float32; dtypes need not match); at
        most `max_mismatched_ratio` of the elements may be off."""
        outs, refs = self._run_both(reference_program, input_tensors)
        for n, (out, ref) in enumerate(zip(outs, refs)):
            if out is None or ref is None:
                continue
            try:
                torch_assert_close(out, ref, rtol=rtol, atol=atol,
                                   max_mismatched_ratio=max_mismatched_ratio,
                                   check_dtype=False, check_device=False,
                                   base_name="tile", ref_name="ref")
            except AssertionError as e:
                raise AssertionError(f"output {n}: {e}") from None

    def manual_assert_close(self, reference_program, input_tensors=None,
                            manual_check_prog=None):
        """Runs both on the same inputs and hands the outputs (lists) to
        `manual_check_prog(outs, refs)`."""
        if manual_check_prog is None:
            raise TypeError("manual_assert_close needs manual_check_prog")
        outs, refs = self._run_both(reference_program, input_tensors)
        manual_check_prog(outs, refs)

    def _run_both(self, reference_program, input_tensors):
        """The kernel's and the reference's outputs (lists) on the same
        inputs; an AssertionError when their counts differ."""
        inputs = list(input_tensors) if input_tensors is not None else self._get_inputs()
        refs = self._outputs(reference_program(*inputs))
        _synchronize(self.kernel)
        outs = self._outputs(self.func(*inputs))
        _synchronize(self.kernel)
        if len(outs) != len(refs):
            raise AssertionError(f"the kernel gives {len(outs)} outputs, the reference "
                                 f"{len(refs)}")
        return outs, refs

    def assert_consistent(self, repeat=10):
        """Runs the kernel `repeat` more times on the same inputs: each run
        must give exactly the first run's outputs (a check for races)."""
        import numpy as np
        from .utils.tensor import _as_float64
        inputs = self._get_inputs()
        first = [_as_float64(o) for o in self._outputs(self.func(*inputs))]
        for _ in range(repeat):
            again = [_as_float64(o) for o in self._outputs(self.func(*inputs))]
            for a, b in zip(again, first):
                if not np.array_equal(a, b, equal_nan=True):
                    raise AssertionError("the kernel's outputs differ between runs on the "
                                         "same inputs")

    def run_once(self, func=None):
        return (func or self.func)(*self._get_inputs())

    # -- timing --------------------------------------------------------------
    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0,
                 input_tensors=None, backend="event", quantiles=None, return_mode="mean",
                 dynamic_symbolic_constraints=None, device=None, early_stop_baseline=None):
        """Milliseconds per call of the kernel (or of `func`, e.g. the
        reference program) on the profiler's inputs (or `input_tensors`);
        the arguments are do_bench's."""
        if input_tensors is not None:
            inputs = list(input_tensors)
        else:
            inputs = self._get_inputs(dynamic_symbolic_constraints=dynamic_symbolic_constraints)
        target = func if func is not None else self.func
        if self.kernel.target == "cpu" and device is None:
            device = "cpu"
        return do_bench(functools.partial(target, *inputs), warmup=warmup, rep=rep,
                        _n_warmup=n_warmup, _n_repeat=n_repeat, quantiles=quantiles,
                        backend=backend, return_mode=return_mode, device=device,
                        early_stop_baseline=early_stop_baseline)

    def get_latency(self, func=None, warmup=25, rep=100, **kwargs):
        """do_bench's milliseconds (TileLang's older name)."""
        return self.do_bench(func, warmup=warmup, rep=rep, **kwargs)


__all__ = ["do_bench", "Profiler", "TensorSupplyType", "BACKENDS"]
