"""tile.autotune: TileLang's autotuner.

    @tile.autotune(configs=[{"block_M": 64}, {"block_M": 128}], warmup=5, rep=20)
    @tile.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128): ...

    kernel = matmul(1024, 1024, 1024)   # the fastest configuration's kernel

The configurations compile in parallel (par_compile), each is checked
against `ref_prog` when one is given, timed with do_bench, and the best one
is remembered per input signature: in memory, and on disk under
$TILE_CACHE_DIR/autotune (the function's source, the arguments, the target
and tile's version make the key), so a later process skips the search.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import warnings

from . import env
from .errors import TileError
from .jit import JITImpl, _hashable, jit
from .profiler import Profiler


class AutoTuneImpl:
    def __init__(self, jit_impl, configs, warmup, rep, ref_prog, supply_type, rtol, atol,
                 max_mismatched_ratio, skip_check, progress):
        self.jit = jit_impl
        functools.update_wrapper(self, jit_impl.func)
        self.configs = configs
        self.warmup = warmup
        self.rep = rep
        self.ref_prog = ref_prog
        self.supply_type = supply_type
        self.rtol = rtol
        self.atol = atol
        self.max_mismatched_ratio = max_mismatched_ratio
        self.skip_check = skip_check
        self.progress = progress
        self._best = {}
        self.results = {}

    def _key(self, args, kwargs):
        return (_hashable(args), _hashable(kwargs))

    def _disk_path(self, key):
        directory = env.cache_dir()
        if not directory:
            return None
        target = env.resolve_target(self.jit.target)
        chip = env.compiler_options(target, self.jit.pass_configs)[0]
        from . import __version__
        text = "\n".join([self.jit.func_source, repr(key), target, chip, __version__,
                          repr(self.configs if not callable(self.configs) else
                               inspect.getsource(self.configs))])
        digest = hashlib.sha256(text.encode()).hexdigest()
        return os.path.join(directory, "autotune", digest + ".json")

    def __call__(self, *args, **kwargs):
        key = self._key(args, kwargs)
        best = self._best.get(key)
        if best is None:
            best = self._load(key)
        if best is None:
            best = self._tune(args, kwargs, key)
        config, latency = best
        kernel = self.jit.compile(*args, **{**kwargs, **config})
        kernel.config = dict(config)
        kernel.latency = latency
        return kernel

    def _load(self, key):
        path = self._disk_path(key)
        if path is None or not os.path.exists(path):
            return None
        try:
            with open(path) as f:
                data = json.load(f)
            best = (data["config"], data["latency"])
        except (OSError, ValueError, KeyError):
            return None  # a damaged record is a miss
        self._best[key] = best
        return best

    def _store(self, key, best):
        path = self._disk_path(key)
        if path is None:
            return
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump({"config": best[0], "latency": best[1]}, f)
            os.replace(tmp, path)
        except OSError as e:
            warnings.warn(f"tile.autotune: cannot record the result ({e})", stacklevel=3)

    def _tune(self, args, kwargs, key):
        configs = self.configs(*args, **kwargs) if callable(self.configs) else self.configs
        configs = [dict(c) for c in configs]
        if not configs:
            raise TileError("tile.autotune has no configurations to try")
        calls = []
        for c in configs:
            bound = self.jit.signature.bind_partial(*args, **{**kwargs, **c})
            calls.append(dict(bound.arguments))
        kernels = self.jit.par_compile(calls, ignore_error=True, progress=self.progress)
        timings = []
        for config, kernel in zip(configs, kernels):
            if kernel is None:
                continue
            profiler = Profiler(kernel, self.supply_type)
            if self.ref_prog is not None and not self.skip_check:
                try:
                    profiler.assert_allclose(self.ref_prog, atol=self.atol, rtol=self.rtol,
                                             max_mismatched_ratio=self.max_mismatched_ratio)
                except AssertionError as e:
                    warnings.warn(f"tile.autotune: config {config} is wrong: {e}",
                                  stacklevel=3)
                    continue
            latency = profiler.do_bench(warmup=self.warmup, rep=self.rep)
            timings.append((latency, config))
        self.results[key] = [(c, t) for t, c in timings]
        if not timings:
            raise TileError("tile.autotune: no configuration compiled and passed its check")
        latency, config = min(timings, key=lambda t: t[0])
        best = (config, latency)
        self._best[key] = best
        self._store(key, best)
        return best


def autotune(configs=None, warmup=25, rep=100, timeout=None, supply_type=None,
             ref_prog=None, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01,
             skip_check=False, cache_input_tensors=False, progress=True):
    """@tile.autotune(configs=...): above @tile.jit (or a plain kernel
    builder, which it wraps in @tile.jit)."""
    if configs is None:
        raise TileError("tile.autotune needs configs (a list of dicts or a function "
                        "giving them)")

    def decorate(fn):
        impl = fn if isinstance(fn, JITImpl) else jit(fn)
        return AutoTuneImpl(impl, configs, warmup, rep, ref_prog, supply_type, rtol, atol,
                            max_mismatched_ratio, skip_check, progress)
    return decorate
