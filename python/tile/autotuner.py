"""tile.autotuner: TileLang's autotuner (``tilelang.autotuner``).

The decorator, over lazy and eager kernels:

    @tile.autotune(configs=[{"block_M": 64}, {"block_M": 128}], warmup=5, rep=20)
    @tile.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128): ...

    kernel = matmul(1024, 1024, 1024)   # lazy: the fastest configuration's kernel
                                        # (kernel.config, .latency, .ref_latency)
    C = add(a, b)                       # eager: runs the fastest configuration

and the class, over a function that builds a T.prim_func from a config:

    result = (AutoTuner.from_kernel(kernel=builder, configs=configs)
              .set_compile_args(out_idx=[-1], target="auto")
              .set_profile_args(supply_type=tile.TensorSupplyType.Integer, ref_prog=ref)
              .run(warmup=3, rep=20))     # result.config, .latency, .ref_latency, .kernel

A config is a dict of the function's keyword arguments; its key
``"pass_configs"`` (if any) adds pass configs for that config only. When a
call already gives the tuned arguments, nothing is tuned: the kernel is
compiled (and, eager, run) as given. Configurations compile in parallel
(C++ threads), each is checked against ``ref_prog`` (wrong ones are skipped
with a warning), then timed with the profiler's do_bench: ``warmup`` and
``rep`` are counts of calls, as TileLang's. Inputs come from
``set_autotune_inputs(...)``, else ``supply_prog(params)``, else (eager) the
call's own arguments, else the supply type. With ``benchmark_multi_gpu=True``
(``run``'s or the decorator's) the configurations are timed on every GPU
(or ``benchmark_devices``) at once: a thread per device takes them from a
shared queue, on inputs of its own device. The best config is remembered
per call signature in memory and on disk under $TILE_CACHE_DIR/autotune
(the function's source, the arguments, the configs, the compile and profile
settings, the target and tile's version make the key), so a later process
skips the search; ``tile.disable_cache()`` or TILELANG_AUTO_TUNING_DISABLE_CACHE
turn that off.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import inspect
import json
import os
import queue
import signal
import threading
import time
import warnings

from . import env
from .errors import TileError
from .jit import JITImpl, _hashable, build_kernels, jit
from .profiler import Profiler
from .utils.tensor import TensorSupplyType

_PASS_CONFIGS = "pass_configs"

# ---------------------------------------------------------------------------
# set_autotune_inputs
# ---------------------------------------------------------------------------

_local = threading.local()


class AutotuneInputsCapture:
    """``with set_autotune_inputs(a, b, ...)``: the inputs autotuning runs
    the configurations on (this thread)."""

    __slots__ = ("tensors",)

    def __init__(self, tensors):
        self.tensors = tensors

    def __enter__(self):
        if not hasattr(_local, "stack"):
            _local.stack = []
        _local.stack.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()


def set_autotune_inputs(*args):
    """The inputs for autotuning within a ``with`` block: the kernel's inputs
    in order (tensors and run-time scalars), as arguments or one list."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return AutotuneInputsCapture(list(args[0]))
    return AutotuneInputsCapture(list(args))


def get_autotune_inputs():
    """The innermost set_autotune_inputs' inputs, or None."""
    stack = getattr(_local, "stack", None)
    return stack[-1].tensors if stack else None


# ---------------------------------------------------------------------------
# Settings and results
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CompileArgs:
    """How each configuration compiles (tile.compile's arguments)."""

    out_idx: object = None
    target: object = "auto"
    execution_backend: str = "auto"
    target_host: object = None
    verbose: bool = False
    pass_configs: object = None


@dataclasses.dataclass(frozen=True)
class ProfileArgs:
    """How each configuration is checked and timed."""

    warmup: int = 25
    rep: int = 100
    timeout: int = 30
    supply_type: TensorSupplyType = TensorSupplyType.Auto
    ref_prog: object = None
    supply_prog: object = None
    rtol: float = 1e-2
    atol: float = 1e-2
    max_mismatched_ratio: float = 0.01
    skip_check: bool = False
    manual_check_prog: object = None
    cache_input_tensors: bool = False
    backend: str = "event"


@dataclasses.dataclass
class AutotuneResult:
    """TileLang's result fields: the best ``latency`` (ms) and ``config``,
    the reference program's ``ref_latency`` (None without one), the kernel's
    source (``libcode``), its T.prim_func (``func``) and the ``kernel``."""

    latency: float = None
    config: dict = None
    ref_latency: float = None
    libcode: str = None
    func: object = None
    kernel: object = None


def _mark(kernel, latency, config, ref_latency):
    """TileLang's kernel.update_tuner_result: the result on the kernel."""
    kernel.latency = latency
    kernel.config = dict(config) if config is not None else None
    kernel.ref_latency = ref_latency
    return kernel


def _normalize(value):
    """A hashable key of an argument: tensors by dtype, shape, strides and
    device (not identity), containers item by item."""
    if hasattr(value, "__dlpack__") and hasattr(value, "shape"):
        strides = value.stride() if callable(getattr(value, "stride", None)) else \
            getattr(value, "strides", None)
        device = getattr(value, "device", "cpu")
        return ("tensor", str(value.dtype), tuple(int(s) for s in value.shape),
                tuple(strides) if strides is not None else None, str(device))
    if isinstance(value, (list, tuple)):
        return tuple(_normalize(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _normalize(v)) for k, v in value.items()))
    return _hashable(value)


def _source(fn):
    if fn is None:
        return ""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return getattr(fn, "__qualname__", repr(fn))


def _digest(parts):
    return hashlib.sha256("\n".join(str(p) for p in parts).encode()).hexdigest()


def _split(config):
    """(the kernel's keyword arguments, the config's own pass configs)."""
    kwargs = {k: v for k, v in config.items() if k != _PASS_CONFIGS}
    return kwargs, config.get(_PASS_CONFIGS)


def _check_keys(configs, signature, where):
    params = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    for config in configs:
        unused = sorted(k for k in config if k != _PASS_CONFIGS and k not in params)
        if unused:
            raise ValueError(f"{where}: config {config} has keys that are not parameters of "
                             f"the function: {', '.join(unused)}")


def _resolve_configs(configs, args, kwargs):
    if callable(configs):
        configs = configs(*args, **kwargs)
    if configs is None:
        raise ValueError("autotune needs configs (a list of dicts or a function giving them)")
    out = []
    for c in configs:
        if not isinstance(c, dict):
            raise TypeError(f"configs: each config is a dict of keyword arguments, got {c!r}")
        out.append(dict(c))
    if not out:
        raise ValueError("autotune has no configurations to try")
    return out


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds):
    """Interrupts the block after `seconds` (the main thread, with SIGALRM;
    elsewhere no limit)."""
    if not seconds or seconds <= 0 or not hasattr(signal, "setitimer") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _same_params(profiler, inputs):
    params = profiler._get_params()
    if len(params) != len(inputs):
        return False
    for p, x in zip(params, inputs):
        shape = getattr(x, "shape", None)
        if p.is_scalar() != (shape is None):
            return False
        if shape is not None and list(p.shape) != [int(s) for s in shape]:
            return False
    return True


class _WorkerState:
    """What one timing thread keeps between trials: its device (None: the
    caller's) and its inputs there."""

    def __init__(self, device=None):
        self.device = device
        self.inputs = None  # the last trial's (cache_input_tensors)
        self.moved = {}  # id(list) -> (list, its copy on the device)


class _Search:
    """Checks and times compiled configurations; keeps the best. Trials may
    run on several threads at once (one per device): the shared results are
    taken under a lock."""

    def __init__(self, profile: ProfileArgs, warmup, rep, timeout, early_stop,
                 early_stop_factor, progress, given_inputs=None):
        self.profile = profile
        self.warmup = warmup
        self.rep = rep
        self.timeout = timeout
        self.early_stop = early_stop
        self.early_stop_factor = early_stop_factor
        self.progress = progress
        self.captured = get_autotune_inputs()
        self.given_inputs = given_inputs
        self.ref_latency = None
        self.best = None  # (latency, index, kernel)
        self.timings = []  # (config, latency), in the configs' order
        self._lock = threading.Lock()
        self._ref_claimed = False
        self._main = _WorkerState()
        self.states = [self._main]

    @property
    def inputs(self):
        """The inputs of the last trial (of the caller's device first when
        several devices ran trials)."""
        for state in self.states:
            if state.inputs is not None:
                return state.inputs
        return None

    def _inputs_for(self, profiler, state):
        p = self.profile
        if self.captured is not None:
            return _state_copy(state, self.captured)
        if p.supply_prog is not None:
            return _on_device(list(p.supply_prog(profiler._get_params())), state.device)
        if self.given_inputs is not None:
            return _state_copy(state, self.given_inputs)
        if p.cache_input_tensors and state.inputs is not None and \
                _same_params(profiler, state.inputs):
            return state.inputs
        for q in profiler._get_params():
            if q.is_scalar():
                raise ValueError(
                    f"autotuning kernel '{profiler.kernel.prim_func.name}' cannot make its "
                    f"scalar input '{q.name}': give the inputs with "
                    "`with set_autotune_inputs(...)` or supply_prog")
        return profiler._get_inputs()

    def trial(self, index, config, kernel, state=None):
        """Checks and times one config (on `state`'s device: that thread's
        current one) and records its latency; a config that is wrong, fails
        or runs past the timeout is skipped with a warning."""
        state = state or self._main
        latency = self._measure(config, kernel, state)
        if latency is None:
            return
        with self._lock:
            self.timings.append((index, config, latency))
            if self.best is None or (latency, index) < self.best[:2]:
                self.best = (latency, index, kernel)
        if self.progress:
            where = "" if state.device is None else f" on cuda:{state.device}"
            print(f"Tuned Latency {latency} with config {config} at index {index}{where}")

    def _measure(self, config, kernel, state):
        p = self.profile
        profiler = Profiler(kernel, p.supply_type)
        inputs = self._inputs_for(profiler, state)
        state.inputs = inputs
        # SIGALRM interrupts the main thread only; elsewhere a trial past the
        # timeout is found out when it ends.
        started = time.monotonic()
        try:
            with _deadline(self.timeout):
                if p.ref_prog is not None and not p.skip_check:
                    if p.manual_check_prog is not None:
                        profiler.manual_assert_close(p.ref_prog, inputs, p.manual_check_prog)
                    else:
                        profiler.assert_allclose(p.ref_prog, inputs, atol=p.atol, rtol=p.rtol,
                                                 max_mismatched_ratio=p.max_mismatched_ratio)
                baseline = None
                if self.early_stop:
                    with self._lock:
                        if self.best is not None:
                            baseline = self.best[0] * self.early_stop_factor
                latency = profiler.do_bench(n_warmup=self.warmup, n_repeat=self.rep,
                                            input_tensors=inputs, backend=p.backend,
                                            early_stop_baseline=baseline)
                if p.ref_prog is not None and self._claim_reference():
                    try:
                        self.ref_latency = profiler.do_bench(p.ref_prog, n_warmup=self.warmup,
                                                             n_repeat=self.rep,
                                                             input_tensors=inputs,
                                                             backend=p.backend)
                    except BaseException:
                        # The next trial times it, as one thread would.
                        with self._lock:
                            self._ref_claimed = False
                        raise
            if self.timeout and self.timeout > 0 and \
                    time.monotonic() - started > self.timeout:
                raise _Timeout()
        except AssertionError as e:
            warnings.warn(f"tile.autotune: config {config} is wrong: {e}", stacklevel=5)
            return None
        except _Timeout:
            warnings.warn(f"tile.autotune: config {config} ran past the timeout "
                          f"({self.timeout} s); skipped", stacklevel=5)
            return None
        except Exception as e:  # noqa: BLE001 - a config that cannot run is skipped
            warnings.warn(f"tile.autotune: config {config} failed to run: "
                          f"{type(e).__name__}: {e}", stacklevel=5)
            return None
        return latency

    def _claim_reference(self):
        """Whether this trial times the reference (the first to ask does)."""
        with self._lock:
            if self._ref_claimed:
                return False
            self._ref_claimed = True
            return True

    def trials_on_devices(self, compiled, devices):
        """Every (index, config, kernel) of `compiled`, checked and timed on
        `devices` at once: a thread per device (its current CUDA device and
        a stream of its own), each taking the next config from a shared
        queue."""
        states = {d: _WorkerState(d) for d in devices}
        current = _current_cuda_device()
        self.states = sorted(states.values(), key=lambda state: state.device != current)

        def work(device, item):
            self.trial(*item, state=states[device])

        _run_parallel(compiled, devices, work, _device_scope)

    def finish(self):
        """The timings in the configs' order (as one thread gives them)."""
        self.timings = [(c, t) for _, c, t in sorted(self.timings, key=lambda x: x[0])]


def _current_cuda_device():
    """torch's current CUDA device (None without one)."""
    try:
        import torch
        return torch.cuda.current_device() if torch.cuda.is_available() else None
    except Exception:  # noqa: BLE001 - no torch, or a broken CUDA installation
        return None


def _state_copy(state, values):
    """`values` (the caller's inputs) on `state`'s device, copied once."""
    if state.device is None:
        return list(values)
    key = id(values)
    known = state.moved.get(key)
    if known is None or known[0] is not values:
        known = state.moved[key] = (values, _on_device(list(values), state.device))
    return known[1]


def _on_device(values, device):
    """`values` with each CUDA tensor not on CUDA device `device` copied
    there (None: as they are)."""
    if device is None:
        return values
    out = []
    for v in values:
        if type(v).__module__.startswith("torch") and getattr(v, "is_cuda", False) and \
                v.device.index != device:
            v = v.to(f"cuda:{device}")
        out.append(v)
    return out


@contextlib.contextmanager
def _device_scope(device):
    """A timing thread's CUDA device `device` (torch's current device on the
    thread) and a stream of its own, which tile's kernels and torch's
    launch on; waited for at the end."""
    import torch
    with torch.cuda.device(device):
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            try:
                yield
            finally:
                stream.synchronize()


def _run_parallel(items, devices, work, scope):
    """Calls ``work(device, item)`` for each item on a thread per device,
    each thread (inside ``scope(device)``) taking the next item from a
    shared queue until none is left. The first exception a thread raised
    (outside work's own handling) is raised here once every thread is done;
    on one, the others stop taking items."""
    jobs = queue.Queue()
    for item in items:
        jobs.put(item)
    failures = []
    stop = threading.Event()

    def run(device):
        try:
            with scope(device):
                while not stop.is_set():
                    try:
                        item = jobs.get_nowait()
                    except queue.Empty:
                        return
                    work(device, item)
        except BaseException as e:  # noqa: BLE001 - raised in the caller
            failures.append(e)
            stop.set()

    threads = [threading.Thread(target=run, args=(d,), name=f"tile-autotune-{d}",
                                daemon=True) for d in devices]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.1)
    except BaseException:
        stop.set()
        raise
    if failures:
        raise failures[0]


def _check_devices(devices):
    """benchmark_devices as a list of distinct ordinals (None for none):
    a TypeError or ValueError for anything else."""
    if devices is None:
        return None
    if isinstance(devices, (str, bytes)) or not hasattr(devices, "__iter__"):
        raise TypeError(f"benchmark_devices must be a list of CUDA device ordinals, "
                        f"got {devices!r}")
    ids = []
    for d in devices:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"benchmark_devices: {d!r} is not a CUDA device ordinal")
        if d < 0:
            raise ValueError(f"benchmark_devices: {d} is not a CUDA device ordinal")
        if d not in ids:
            ids.append(d)
    return ids or None


def _resolve_devices(multi_gpu, devices, target, count, current, backend="event"):
    """The CUDA devices to time on with benchmark_multi_gpu / benchmark_devices:
    a list of ordinals (a timing thread each), or None to time on the
    current device in the calling thread. `target` is the resolved target,
    `count` the GPUs torch sees, `current` its current device, `backend`
    the profiler's."""
    ids = _check_devices(devices)
    if not multi_gpu:
        if ids is not None:
            env.note_once("tile.autotune: benchmark_devices is used with "
                          "benchmark_multi_gpu=True; timing on the current GPU")
        return None
    if target != "cuda":
        env.note_once(f"tile.autotune: benchmark_multi_gpu times on CUDA GPUs; the target is "
                      f"{target}, so the configurations are timed here one by one")
        return None
    if backend != "event":
        # CUPTI records every kernel of the process (the other threads'
        # too); a CUDA graph capture forbids the other threads' synchronizing.
        env.note_once(f"tile.autotune: benchmark_multi_gpu times with the event backend; "
                      f"with backend={backend!r} the configurations are timed on the current "
                      f"GPU one by one")
        return None
    if count <= 0:
        env.note_once("tile.autotune: benchmark_multi_gpu found no CUDA GPU (torch sees "
                      "none); timing one by one")
        return None
    if ids is None:
        ids = list(range(count))
    missing = [d for d in ids if d >= count]
    if missing:
        raise ValueError(f"benchmark_devices: no CUDA device {', '.join(map(str, missing))} "
                         f"(torch sees {count}: 0 to {count - 1})")
    if ids == [current]:
        return None
    return ids


def _benchmark_devices(multi_gpu, devices, target, backend="event"):
    """_resolve_devices for this process's GPUs (torch's view)."""
    if not multi_gpu and devices is None:
        return None
    resolved = env.resolve_target(target)
    count, current = 0, 0
    if resolved == "cuda":
        try:
            import torch
            if torch.cuda.is_available():
                count, current = torch.cuda.device_count(), torch.cuda.current_device()
        except ImportError:
            pass
    return _resolve_devices(multi_gpu, devices, resolved, count, current, backend)


def _compile_groups(configs, compile_group, progress):
    """Compiles every config: those sharing pass configs together (in
    parallel); returns a kernel (or None) per config."""
    groups = {}
    for i, config in enumerate(configs):
        kwargs, pc = _split(config)
        key = repr(sorted(env.normalize_pass_configs(pc).items())) if pc else None
        groups.setdefault(key, (pc, []))[1].append((i, kwargs))
    kernels = [None] * len(configs)
    for pc, items in groups.values():
        out = compile_group(pc, [kw for _, kw in items], progress)
        for (i, _), k in zip(items, out):
            kernels[i] = k
    return kernels


def _run_search(configs, kernels, search, devices=None):
    """Checks and times every compiled config, here one by one or on
    `devices` at once; returns the best (latency, index, kernel)."""
    compiled = [(i, c, k) for i, (c, k) in enumerate(zip(configs, kernels)) if k is not None]
    if not compiled:
        raise TileError("tile.autotune: no configuration compiled")
    if devices is None:
        for i, config, kernel in compiled:
            search.trial(i, config, kernel)
    else:
        search.trials_on_devices(compiled, devices)
    search.finish()
    if search.best is None:
        raise TileError("tile.autotune: no configuration compiled and passed its check")
    return search.best


def _cache_file(parts):
    if not env.is_cache_enabled() or env.is_autotune_cache_disabled():
        return None
    directory = env.cache_dir()
    if not directory:
        return None
    return os.path.join(directory, "autotune", _digest(parts) + ".json")


def _load(path, configs):
    if path is None or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            data = json.load(f)
        index = int(data["index"])
        if data.get("config") != repr(configs[index]):
            return None
        return index, float(data["latency"]), data.get("ref_latency")
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None  # a damaged or stale record is a miss


def _store(path, configs, index, latency, ref_latency):
    if path is None:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump({"index": index, "config": repr(configs[index]), "latency": latency,
                       "ref_latency": ref_latency}, f)
        os.replace(tmp, path)
    except OSError as e:
        warnings.warn(f"tile.autotune: cannot record the result ({e})", stacklevel=4)


def _key_parts(func_source, call_key, configs, compile_args, profile, target, pass_configs):
    from . import __version__
    resolved = env.resolve_target(target)
    chip = env.compiler_options(resolved, pass_configs)[0]
    codegen = env.codegen_options(pass_configs)
    return [func_source, repr(call_key), repr(configs), repr(compile_args), resolved, chip,
            repr(sorted(codegen.items())),
            __version__, _source(profile.ref_prog), _source(profile.supply_prog),
            _source(profile.manual_check_prog),
            repr((profile.supply_type, profile.rtol, profile.atol, profile.max_mismatched_ratio,
                  profile.skip_check, profile.backend))]


# ---------------------------------------------------------------------------
# AutoTuner
# ---------------------------------------------------------------------------


class AutoTuner:
    """TileLang's AutoTuner: tunes a function that builds a T.prim_func from
    a config's keyword arguments."""

    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs
        self.compile_args = CompileArgs()
        self.profile_args = ProfileArgs()
        self.ref_latency_cache = None
        self.jit_input_tensors = None
        self._memory = {}

    @classmethod
    def from_kernel(cls, kernel, configs):
        """An AutoTuner over `kernel` (a function returning a T.prim_func)."""
        return cls(kernel, configs)

    def set_compile_args(self, out_idx=None, target=None, execution_backend=None,
                         target_host=None, verbose=None, pass_configs=None):
        """How each configuration compiles; returns self."""
        self.compile_args = CompileArgs(
            out_idx=out_idx, target=target if target is not None else env.get_default_target(),
            execution_backend=execution_backend or "auto", target_host=target_host,
            verbose=env.verbose(verbose), pass_configs=pass_configs)
        return self

    def set_profile_args(self, warmup=25, rep=100, timeout=30,
                         supply_type=TensorSupplyType.Auto, ref_prog=None, supply_prog=None,
                         rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01, skip_check=False,
                         manual_check_prog=None, cache_input_tensors=False, backend="event"):
        """How each configuration is checked and timed; returns self.
        (run's warmup, rep and timeout are the ones used, as TileLang's.)"""
        if not isinstance(supply_type, TensorSupplyType):
            raise TypeError(f"supply_type must be a tile.TensorSupplyType, got {supply_type!r}")
        self.profile_args = ProfileArgs(
            warmup=warmup, rep=rep, timeout=timeout, supply_type=supply_type,
            ref_prog=ref_prog, supply_prog=supply_prog, rtol=rtol, atol=atol,
            max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check,
            manual_check_prog=manual_check_prog, cache_input_tensors=cache_input_tensors,
            backend=backend)
        return self

    def _compile_group(self, pass_configs, calls, progress):
        c = self.compile_args
        merged = {**env.normalize_pass_configs(c.pass_configs),
                  **env.normalize_pass_configs(pass_configs)}
        funcs = []
        for kwargs in calls:
            try:
                funcs.append(self.fn(**kwargs))
            except TileError as e:
                warnings.warn(f"tile.autotune: config {kwargs} failed: {e}", stacklevel=4)
                funcs.append(None)
        return build_kernels(funcs, c.out_idx, c.target, merged or None, c.verbose,
                             ignore_error=True, progress=progress)

    def _cache_parts(self, configs):
        closure = {}
        if getattr(self.fn, "__closure__", None):
            for name, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__):
                try:
                    closure[name] = _hashable(cell.cell_contents)
                except ValueError:
                    pass
        return _key_parts(_source(self.fn), sorted(closure.items(), key=lambda kv: kv[0]),
                          configs, self.compile_args, self.profile_args,
                          self.compile_args.target, self.compile_args.pass_configs)

    def run(self, warmup=25, rep=100, timeout=180, use_pipeline=False,
            enable_grouped_compile=False, group_compile_size=2, benchmark_devices=None,
            benchmark_multi_gpu=False, early_stop=False, early_stop_factor=2.0,
            progress=True):
        """Compiles, checks and times every config; returns an
        AutotuneResult. warmup, rep: counts of calls; timeout: seconds per
        config's check and timing. benchmark_multi_gpu: time on every GPU
        (benchmark_devices: these ordinals) at once, a thread per device."""
        if early_stop and early_stop_factor < 1.0:
            raise ValueError(f"early_stop_factor must be >= 1.0, got {early_stop_factor}")
        devices = _benchmark_devices(benchmark_multi_gpu, benchmark_devices,
                                     self.compile_args.target, self.profile_args.backend)
        configs = _resolve_configs(self.configs, (), {})
        _check_keys(configs, inspect.signature(self.fn), "AutoTuner")
        parts = self._cache_parts(configs)
        key = _digest(parts)
        if key in self._memory:
            return self._memory[key]
        path = _cache_file(parts)
        hit = _load(path, configs)
        if hit is not None:
            index, latency, ref_latency = hit
            kwargs, pc = _split(configs[index])
            kernel = self._compile_group(pc, [kwargs], False)[0]
            if kernel is not None:
                result = self._result(kernel, configs[index], latency, ref_latency)
                self._memory[key] = result
                return result
        kernels = _compile_groups(configs, self._compile_group, progress)
        search = _Search(self.profile_args, warmup, rep, timeout, early_stop,
                         early_stop_factor, progress)
        latency, index, kernel = _run_search(configs, kernels, search, devices)
        self.ref_latency_cache = search.ref_latency
        self.jit_input_tensors = search.inputs
        result = self._result(kernel, configs[index], latency, search.ref_latency)
        _store(path, configs, index, latency, search.ref_latency)
        self._memory[key] = result
        return result

    @staticmethod
    def _result(kernel, config, latency, ref_latency):
        _mark(kernel, latency, config, ref_latency)
        return AutotuneResult(latency=latency, config=dict(config), ref_latency=ref_latency,
                              libcode=kernel.get_kernel_source(), func=kernel.prim_func,
                              kernel=kernel)

    def __call__(self):
        return self.run()


# ---------------------------------------------------------------------------
# @tile.autotune
# ---------------------------------------------------------------------------


class AutoTuneImpl:
    """What @tile.autotune makes of a @tile.jit function: called, it tunes
    (once per argument signature) and returns the best kernel (lazy) or runs
    it and returns its outputs (eager); ``.compile(...)`` returns the best
    kernel in both modes."""

    def __init__(self, jit_impl, configs, warmup=25, rep=100, timeout=100,
                 supply_type=TensorSupplyType.Auto, ref_prog=None, supply_prog=None,
                 rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01, skip_check=False,
                 manual_check_prog=None, cache_input_tensors=False, do_not_specialize=None,
                 early_stop=False, early_stop_factor=2.0, progress=True, backend="event",
                 benchmark_multi_gpu=False, benchmark_devices=None):
        if not isinstance(supply_type, TensorSupplyType):
            raise TypeError(f"supply_type must be a tile.TensorSupplyType, got {supply_type!r}")
        self.benchmark_multi_gpu = bool(benchmark_multi_gpu)
        # Checked now; whether the devices exist, when tuning.
        self.benchmark_devices = _check_devices(benchmark_devices)
        self.jit = jit_impl
        functools.update_wrapper(self, jit_impl.func)
        self.configs = configs
        self.warmup = warmup
        self.rep = rep
        self.timeout = timeout
        self.profile = ProfileArgs(
            warmup=warmup, rep=rep, timeout=timeout, supply_type=supply_type,
            ref_prog=ref_prog, supply_prog=supply_prog, rtol=rtol, atol=atol,
            max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check,
            manual_check_prog=manual_check_prog, cache_input_tensors=cache_input_tensors,
            backend=backend)
        self.do_not_specialize = tuple(do_not_specialize or ())
        self.early_stop = early_stop
        self.early_stop_factor = early_stop_factor
        self.progress = progress
        self._best = {}
        self._impls = {}
        self._lock = threading.RLock()
        self.results = {}

    # TileLang's attribute name.
    @property
    def jit_impl(self):
        return self.jit

    def _impl_for(self, pass_configs):
        """The @tile.jit function compiling with `pass_configs` added (itself
        when there are none): one per distinct set, so their kernels are
        cached apart."""
        if not pass_configs:
            return self.jit
        extra = env.normalize_pass_configs(pass_configs)
        key = repr(sorted(extra.items()))
        impl = self._impls.get(key)
        if impl is None:
            j = self.jit
            impl = self._impls[key] = JITImpl(
                j.func, out_idx=j.out_idx, target=j.target, verbose=j.verbose,
                pass_configs={**env.normalize_pass_configs(j.pass_configs), **extra},
                debug_root_path=j.debug_root_path, mode=j.mode)
        return impl

    def _call_kwargs(self, args, kwargs):
        """The call's arguments by name (positional ones named from the
        signature)."""
        names = [n for n, p in self.jit.signature.parameters.items()
                 if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                               inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        if len(args) > len(names):
            raise TypeError(f"{self.jit.func.__name__}() takes {len(names)} positional "
                            f"arguments but {len(args)} were given")
        return {**dict(zip(names, args)), **kwargs}

    def _given(self, configs, args, kwargs):
        """Whether the call already gives the tuned arguments."""
        names = list(self.jit.signature.parameters)
        for key in configs[0]:
            if key == _PASS_CONFIGS:
                continue
            if key in kwargs or (key in names and names.index(key) < len(args)):
                return True
        return False

    def _key(self, args, kwargs):
        if self.do_not_specialize:
            bound = self.jit.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            kept = {k: v for k, v in bound.arguments.items() if k not in self.do_not_specialize}
            return ((), _normalize(kept))
        return (_normalize(args), _normalize(kwargs))

    def __call__(self, *args, **kwargs):
        return_kernel = kwargs.pop("__return_kernel", False)
        mode = self.jit.initialize_jit_mode(*args, **kwargs)
        configs = _resolve_configs(self.configs, args, kwargs)
        if self._given(configs, args, kwargs):
            if mode == "lazy" or return_kernel:
                return self.jit.compile(*args, **kwargs)
            return self.jit(*args, **kwargs)
        key = self._key(args, kwargs)
        with self._lock:
            best = self._best.get(key)
            if best is None:
                best = self._best[key] = self._tune(configs, args, kwargs, key, mode)
        config, latency, ref_latency = best
        call, pc = _split(config)
        impl = self._impl_for(pc)
        merged = {**kwargs, **call}
        if mode == "lazy" or return_kernel:
            return _mark(impl.compile(*args, **merged), latency, config, ref_latency)
        return impl(*args, **merged)

    def compile(self, *args, **kwargs):
        """The best configuration's kernel (eager kernels too), with
        .config, .latency and .ref_latency."""
        return self(*args, **kwargs, __return_kernel=True)

    def get_tunner(self):
        """TileLang's name: an AutoTuner with this decorator's settings."""
        j = self.jit
        p = self.profile
        tuner = AutoTuner(j.func, self.configs).set_compile_args(
            out_idx=j.out_idx, target=j.target, verbose=j.verbose, pass_configs=j.pass_configs)
        tuner.profile_args = p
        return tuner

    def _eager_inputs(self, impl, call):
        """The eager call's own inputs for the compiled kernel (in its order),
        or None when the call does not give them all."""
        try:
            entry, bound = impl._eager_kernel((), call)
            values = [bound[n] for n in entry.runtime]
        except (AttributeError, KeyError, TypeError, TileError):
            return None
        from .language.frontend import TensorAnnot
        if any(isinstance(v, TensorAnnot) for v in values):
            return None
        return values

    def _tune(self, configs, args, kwargs, key, mode):
        _check_keys(configs, self.jit.signature, f"@tile.autotune {self.jit.func.__name__}")
        parts = _key_parts(self.jit.func_source, key, configs,
                           (self.jit.out_idx, self.do_not_specialize), self.profile,
                           self.jit.target, self.jit.pass_configs)
        path = _cache_file(parts)
        hit = _load(path, configs)
        if hit is not None:
            index, latency, ref_latency = hit
            return configs[index], latency, ref_latency
        base = self._call_kwargs(args, kwargs)

        def compile_group(pass_configs, calls, progress):
            impl = self._impl_for(pass_configs)
            return impl.par_compile([{**base, **c} for c in calls], ignore_error=True,
                                    progress=progress)

        kernels = _compile_groups(configs, compile_group, self.progress)
        given = None
        if mode == "eager":
            for c, k in zip(configs, kernels):
                if k is not None:
                    call, pc = _split(c)
                    given = self._eager_inputs(self._impl_for(pc), {**base, **call})
                    break
        search = _Search(self.profile, self.warmup, self.rep, self.timeout, self.early_stop,
                         self.early_stop_factor, self.progress, given_inputs=given)
        devices = _benchmark_devices(self.benchmark_multi_gpu, self.benchmark_devices,
                                     self.jit.target, self.profile.backend)
        latency, index, _ = _run_search(configs, kernels, search, devices)
        self.results[key] = list(search.timings)
        _store(path, configs, index, latency, search.ref_latency)
        return configs[index], latency, search.ref_latency

    def __repr__(self):
        return f"<tile.autotune {self.jit.func.__name__}>"


def autotune(func=None, *, configs=None, warmup=25, rep=100, timeout=100,
             supply_type=TensorSupplyType.Auto, ref_prog=None, supply_prog=None, rtol=1e-2,
             atol=1e-2, max_mismatched_ratio=0.01, skip_check=False, manual_check_prog=None,
             cache_input_tensors=False, do_not_specialize=None, early_stop=False,
             early_stop_factor=2.0, progress=True, backend="event", benchmark_multi_gpu=False,
             benchmark_devices=None):
    """@tile.autotune(configs=...): above @tile.jit (or a plain kernel
    builder, which it wraps in @tile.jit). warmup and rep are counts of
    calls; timeout is seconds per configuration; benchmark_multi_gpu times
    the configurations on every GPU (or benchmark_devices) at once."""
    if func is not None:
        raise ValueError("@tile.autotune takes keyword arguments: "
                         "@tile.autotune(configs=...) above @tile.jit")
    if configs is None:
        raise ValueError("tile.autotune needs configs (a list of dicts or a function "
                         "giving them)")
    _check_devices(benchmark_devices)

    def decorate(fn):
        impl = fn if isinstance(fn, JITImpl) else jit(fn)
        return AutoTuneImpl(impl, configs, warmup=warmup, rep=rep, timeout=timeout,
                            supply_type=supply_type, ref_prog=ref_prog, supply_prog=supply_prog,
                            rtol=rtol, atol=atol, max_mismatched_ratio=max_mismatched_ratio,
                            skip_check=skip_check, manual_check_prog=manual_check_prog,
                            cache_input_tensors=cache_input_tensors,
                            do_not_specialize=do_not_specialize, early_stop=early_stop,
                            early_stop_factor=early_stop_factor, progress=progress,
                            backend=backend, benchmark_multi_gpu=benchmark_multi_gpu,
                            benchmark_devices=benchmark_devices)
    return decorate


__all__ = ["autotune", "AutoTuner", "AutotuneResult", "CompileArgs", "ProfileArgs",
           "set_autotune_inputs", "get_autotune_inputs", "TensorSupplyType"]
