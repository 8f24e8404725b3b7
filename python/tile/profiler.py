"""tile.profiler: timing (do_bench) and checking kernels against references.

``do_bench(fn, warmup=25, rep=100)`` times `fn` as TileLang's and Triton's
do_bench do: warm-up and repetition budgets in milliseconds, the L2 cache
flushed before every run (a write of a buffer larger than the cache), CUDA
events around each call on the GPU (the steady clock on the CPU); returns
milliseconds (the mean, or `return_mode` / `quantiles`).
"""

from __future__ import annotations

import enum
import statistics
import time

from .errors import TileError
from .language import dtypes as dt


class TensorSupplyType(enum.Enum):
    Integer = 1
    Uniform = 2
    Normal = 3
    Randn = 4
    Zero = 5
    One = 6
    Auto = 7


def _cuda_ready():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        ordered = sorted(times)
        out = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in quantiles]
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return times
    return {"mean": statistics.fmean, "median": statistics.median, "min": min,
            "max": max}[return_mode](times)


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None,
             fast_flush=True, return_mode="mean", device=None):
    """Milliseconds per call of `fn()`."""
    if return_mode not in ("mean", "median", "min", "max", "all"):
        raise TileError(f"return_mode must be mean, median, min, max or all, got "
                        f"{return_mode!r}")
    torch = _cuda_ready() if device != "cpu" else None
    if torch is not None:
        return _bench_cuda(torch, fn, warmup, rep, _n_warmup, _n_repeat, quantiles,
                           return_mode)
    return _bench_cpu(fn, warmup, rep, _n_warmup, _n_repeat, quantiles, return_mode,
                      fast_flush)


def _bench_cuda(torch, fn, warmup, rep, n_warmup, n_repeat, quantiles, return_mode):
    fn()
    torch.cuda.synchronize()
    # 256 MB, zeroed before each run: larger than any L2.
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    n_warmup = n_warmup or max(1, int(warmup / estimate))
    n_repeat = n_repeat or max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarize(times, quantiles, return_mode)


def _bench_cpu(fn, warmup, rep, n_warmup, n_repeat, quantiles, return_mode, flush):
    import numpy as np
    cache = np.empty(64 * 1024 * 1024 // 8, dtype=np.int64) if flush else None
    fn()
    t0 = time.perf_counter()
    for _ in range(3):
        fn()
    estimate = max((time.perf_counter() - t0) / 3 * 1e3, 1e-3)
    n_warmup = n_warmup or max(1, int(warmup / estimate))
    n_repeat = n_repeat or max(1, int(rep / estimate))
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


class Profiler:
    """kernel.get_profiler(): inputs of the kernel's parameter types, a check
    against a reference program, and timing."""

    def __init__(self, kernel, supply_type=None):
        self.kernel = kernel
        self.supply_type = supply_type or TensorSupplyType.Auto
        self._inputs = None

    def _make(self, param, rng):
        import numpy as np
        shape = []
        for kind, value, _ in param.sizes:
            if kind != 0:
                raise TileError(f"the profiler makes inputs of static shapes; '{param.name}' "
                                "is dynamic: pass input_tensors")
            shape.append(value)
        d = param.dtype
        kind = self.supply_type
        if kind is TensorSupplyType.Auto:
            kind = TensorSupplyType.Normal if d.is_float else TensorSupplyType.Integer
        if kind is TensorSupplyType.Zero:
            host = np.zeros(shape, np.float32)
        elif kind is TensorSupplyType.One:
            host = np.ones(shape, np.float32)
        elif kind is TensorSupplyType.Integer:
            host = rng.integers(-2, 3, shape).astype(np.float32)
        elif kind is TensorSupplyType.Uniform:
            host = rng.uniform(0, 1, shape).astype(np.float32)
        else:
            host = rng.standard_normal(shape).astype(np.float32)
        if self.kernel.target == "cpu":
            return host.astype(dt.to_numpy(d))
        import torch
        return torch.from_numpy(host).to(device=self.kernel.target, dtype=dt.to_torch(d))

    def _get_inputs(self, seed=0):
        if self._inputs is None:
            import numpy as np
            rng = np.random.default_rng(seed)
            inputs = []
            for i in self.kernel._inputs:
                p = self.kernel.params[i]
                if p.kind == "scalar":
                    inputs.append(1 if p.dtype.is_int else 1.0)
                else:
                    inputs.append(self._make(p, rng))
            self._inputs = inputs
        return self._inputs

    def assert_allclose(self, reference_program, input_tensors=None, atol=1e-2, rtol=1e-2,
                        max_mismatched_ratio=0.01):
        """Runs the kernel and `reference_program` on the same inputs and
        compares every output."""
        import numpy as np
        inputs = list(input_tensors) if input_tensors is not None else self._get_inputs()
        outs = self.kernel(*inputs)
        refs = reference_program(*inputs)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        refs = list(refs) if isinstance(refs, (tuple, list)) else [refs]
        if len(outs) != len(refs):
            raise AssertionError(f"the kernel gives {len(outs)} outputs, the reference "
                                 f"{len(refs)}")
        for n, (o, r) in enumerate(zip(outs, refs)):
            o, r = _host(o), _host(r)
            close = np.isclose(o, r, rtol=rtol, atol=atol, equal_nan=True)
            bad = close.size - int(close.sum())
            if bad > max_mismatched_ratio * close.size:
                worst = np.unravel_index(np.argmax(np.abs(o - r)), o.shape) if o.size else ()
                raise AssertionError(
                    f"output {n}: {bad} of {close.size} elements differ beyond rtol {rtol}, "
                    f"atol {atol}; worst at {tuple(int(i) for i in worst)}: "
                    f"{o[worst]} vs {r[worst]}")

    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0,
                 input_tensors=None, quantiles=None, return_mode="mean"):
        """Milliseconds per call of the kernel (or of `func`) on the
        profiler's inputs."""
        inputs = list(input_tensors) if input_tensors is not None else self._get_inputs()
        target = func if func is not None else self.kernel
        return do_bench(lambda: target(*inputs), warmup=warmup, rep=rep,
                        _n_warmup=n_warmup, _n_repeat=n_repeat, quantiles=quantiles,
                        return_mode=return_mode,
                        device="cpu" if self.kernel.target == "cpu" else None)


def _host(x):
    import numpy as np
    if isinstance(x, np.ndarray):
        return x.astype(np.float64)
    if hasattr(x, "detach"):
        return x.detach().float().cpu().numpy().astype(np.float64)
    return np.asarray(x, dtype=np.float64)
