"""@tile.jit, tile.compile, tile.par_compile and JITKernel."""

from __future__ import annotations

import atexit
import functools
import inspect
import os
import sys
import threading
import time
import weakref

from . import env
from ._ext import ext
from .errors import TileCompileError, TileError
from .language import dtypes as dt
from .language.frontend import (DynDim, PrimFunc, TensorAnnot, _eval_annotations,
                                lazy_param, ptr, trace)
from .language.rewrite import body_info
from .language.values import with_fast_math

# ---------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------


def is_array(x) -> bool:
    return isinstance(x, TensorAnnot) or hasattr(x, "__dlpack__")


def _array_dtype(x):
    if isinstance(x, TensorAnnot):
        return x.dtype
    return dt.as_dtype(x.dtype)


def _array_device(x, target):
    if isinstance(x, TensorAnnot):
        return target
    device = getattr(x, "device", None)
    kind = getattr(device, "type", None)
    if kind is not None:
        return "cpu" if kind == "cpu" else kind
    return "cpu"


def _new_array(like, shape, d, target):
    """An uninitialized output array of the kind and on the device of
    `like` (a torch tensor or a NumPy array; None: by target)."""
    if like is not None and type(like).__module__.startswith("torch"):
        import torch
        return torch.empty(shape, dtype=dt.to_torch(d), device=like.device)
    if like is None and target != "cpu":
        import torch
        return torch.empty(shape, dtype=dt.to_torch(d), device=target)
    import numpy as np
    return np.empty(shape, dtype=dt.to_numpy(d))


_torch_registered = False


def _register_torch():
    """Once torch is imported, calls read its tensors through its C-level
    DLPack export."""
    global _torch_registered
    if _torch_registered or "torch" not in sys.modules:
        return
    import torch.utils.dlpack
    ext.set_torch(torch.Tensor, torch.utils.dlpack.to_dlpack)
    # Launch on torch's current stream, asynchronously, as torch's kernels
    # (the extension asks torch's DLPack exchange API first; this getter
    # where torch has none). Without one, launches went to tile's own
    # stream, each waited for: events on torch's stream timed nothing.
    if torch.cuda.is_available():
        getter = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if getter is None:
            def getter(index):
                return torch.cuda.current_stream(index).cuda_stream
        ext.set_current_stream(getter)
    _torch_registered = True


# Every JITKernel, so that the exit can release its native objects.
_kernels = weakref.WeakSet()


def _release_native():
    """Drops tile's native objects (compiled kernels, compile results,
    compilers) and its references to torch when the interpreter exits,
    while the interpreter and the GPU runtime are still whole. Left to the
    interpreter's teardown, anything a module kept alive till then (with
    torch loaded, tile's modules were) would unload its GPU code after the
    runtime and be reported by nanobind as leaked."""
    for kernel in list(_kernels):
        kernel._release()
    with _memo_lock:
        _memo.clear()
    env.release_compilers()
    ext.release_torch()


atexit.register(_release_native)


# ---------------------------------------------------------------------------
# JITKernel
# ---------------------------------------------------------------------------


class JITKernel:
    """A compiled kernel: call it with torch tensors (CUDA) or NumPy arrays
    (CPU). Outputs listed in `out_idx` are allocated and returned."""

    # What autotuning found (TileLang's fields; None for a kernel not tuned).
    latency = None
    config = None
    ref_latency = None

    def __init__(self, prim_func: PrimFunc, out_idx, target, compiler, result,
                 verbose=False, debug_root_path=None):
        self.prim_func = prim_func
        self.target = target
        self.compiler = compiler
        self.params = prim_func.params
        n = len(self.params)
        # Workspaces (T.alloc_global) are allocated at each call; the
        # caller's parameters come first (out_idx counts those).
        self._work = [i for i, p in enumerate(self.params) if p.workspace]
        self._user = [i for i in range(n) if i not in self._work]
        self.out_idx = _normalize_out_idx(out_idx, len(self._user), prim_func)
        self._result = result
        self._kernel = ext.Kernel(result, prim_func.name, [p.spec() for p in self.params],
                                  compiler)
        _kernels.add(self)
        _register_torch()
        self._inputs = [i for i in self._user if i not in self.out_idx]
        self._n_in = len(self._inputs)
        self._single = len(self.out_idx) == 1
        for i in self.out_idx + self._work:
            self._check_allocatable(i)
        if debug_root_path:
            self._dump(debug_root_path)
        if verbose:
            print(f"tile: @{prim_func.name} for {target}: {result.cache} "
                  f"({self.compile_time * 1e3:.1f} ms)")

    def _release(self):
        """Drops the native kernel (at exit: the kernel cannot run after)."""
        self._kernel = self._result = self.compiler = None

    # -- calling -------------------------------------------------------------
    def __call__(self, *args):
        if not self.out_idx and not self._work:
            try:
                self._kernel(*args)
            except (TypeError, ValueError):
                if not any(a is None for a in args):
                    raise
                self._call(args)
            return None
        return self._call(args)

    def _call(self, args):
        if len(args) == self._n_in:
            given = self._inputs
        elif len(args) == len(self._user):
            given = self._user
        else:
            raise TypeError(f"kernel @{self.prim_func.name} takes {self._n_in} inputs "
                            f"(outputs {self.out_idx} are allocated), got {len(args)}")
        full = [None] * len(self.params)
        for pos, i in enumerate(given):
            full[i] = args[pos]
        like = next((a for a in args if is_array(a)), None)
        # None for a tensor (TileLang passes a null pointer; the kernel must
        # not read it): an uninitialized tensor of its shape.
        for i in given:
            if full[i] is None and self.params[i].kind == "memref":
                self._check_allocatable(i)
                full[i] = self._allocate(i, full, like)
        outs = []
        for i in self.out_idx:
            if full[i] is None:
                full[i] = self._allocate(i, full, like)
            outs.append(full[i])
        for i in self._work:
            full[i] = self._allocate(i, full, like)
        self._kernel(*full)
        if not outs:
            return None
        return outs[0] if self._single else tuple(outs)

    def _check_allocatable(self, i):
        p = self.params[i]
        if p.kind != "memref":
            raise TileError(f"out_idx names parameter '{p.name}', which is not a tensor")
        if p.alloc_shape is not None:
            return
        shape = []
        for axis, (kind, value, group) in enumerate(p.sizes):
            if kind == 0:
                shape.append(("static", value))
                continue
            source = None
            for j in self._inputs_of(group):
                source = j
                break
            if source is None:
                raise TileError(f"output '{p.name}': dim {axis} is dynamic and no input "
                                "has the same dynamic size, so it cannot be allocated")
            shape.append(("dim",) + source)
        p.alloc_shape = shape

    def _inputs_of(self, group):
        for j, q in enumerate(self.params):
            if j in self.out_idx or j in self._work or q.kind != "memref":
                continue
            for axis, (kind, _, g) in enumerate(q.sizes):
                if kind == 1 and g == group:
                    yield (j, axis)

    def _allocate(self, i, full, like):
        p = self.params[i]
        shape = []
        for entry in p.alloc_shape:
            if entry[0] == "static":
                shape.append(entry[1])
            elif entry[0] == "dim":
                src = full[entry[1]]
                if src is None:
                    raise TileError(f"output '{p.name}' takes its size from another output")
                shape.append(int(src.shape[entry[2]]))
            else:
                shape.append(int(full[entry[1]]))
        return _new_array(like, tuple(shape), p.dtype, self.target)

    # -- inspection ----------------------------------------------------------
    @property
    def ir(self):
        """The tile IR this kernel was compiled from."""
        return self.prim_func.ir

    @property
    def cache(self):
        """Where the compiled code came from: compiled, in-memory hit, disk hit."""
        return self._result.cache

    @property
    def compile_stages(self):
        return list(self._result.stages)

    @property
    def compile_time(self):
        return sum(s for _, s in self._result.stages)

    @property
    def key(self):
        return self._result.key

    def get_kernel_source(self, kind=None):
        """The kernel's code: ``"ir"`` (tile IR, the default on the CPU) or
        ``"ptx"`` (the default on CUDA)."""
        kind = kind or ("ptx" if self.target == "cuda" else "ir")
        if kind in ("ir", "tile", "mlir"):
            return self.prim_func.ir
        if kind == "ptx":
            if self.target != "cuda":
                raise TileError("PTX exists for the cuda target only")
            text, diags = ext.device_source(self.prim_func.ir, "cuda", self.compiler.chip,
                                            **self.compiler.codegen)
            if not text:
                raise TileCompileError(diags, "lowering to PTX failed")
            return text
        raise TileError(f"unknown source kind {kind!r} (ir or ptx)")

    def update_tuner_result(self, latency, config, ref_latency):
        """Records what autotuning found (.latency, .config, .ref_latency);
        returns the kernel."""
        self.latency = latency
        self.config = config
        self.ref_latency = ref_latency
        return self

    def get_profiler(self, tensor_supply_type=None):
        from .profiler import Profiler
        return Profiler(self, tensor_supply_type)

    def _dump(self, root):
        os.makedirs(root, exist_ok=True)
        base = os.path.join(root, self.prim_func.name)
        with open(base + ".mlir", "w") as f:
            f.write(self.prim_func.ir)
        if self.target == "cuda":
            with open(base + ".ptx", "w") as f:
                f.write(self.get_kernel_source("ptx"))

    def __repr__(self):
        return f"<tile JITKernel @{self.prim_func.name} on {self.target} ({self.cache})>"


def _normalize_out_idx(out_idx, n, prim_func):
    if prim_func.outputs:
        if out_idx not in (None, [], prim_func.outputs):
            raise TileError("out_idx is for T.prim_func kernels; eager kernels return "
                            "what T.empty creates")
        return list(prim_func.outputs)
    if out_idx is None:
        return []
    if isinstance(out_idx, int):
        out_idx = [out_idx]
    out = []
    for i in out_idx:
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise TileError(f"out_idx {i} is out of range for {n} parameters")
        out.append(j)
    return out


# ---------------------------------------------------------------------------
# compile / par_compile
# ---------------------------------------------------------------------------

_memo_lock = threading.Lock()
_memo = {}


def _progress(total, desc, enabled):
    if not enabled or total <= 1:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc)


def build_kernels(funcs, out_idx=None, target=None, pass_configs=None, verbose=None,
                  num_workers=None, ignore_error=False, debug_root_path=None,
                  progress=True):
    """Compiles PrimFuncs (in parallel threads when there are several) into
    JITKernels; failures raise TileCompileError, or give None with
    ignore_error."""
    target = env.resolve_target(target)
    chip, opt = env.compiler_options(target, pass_configs)
    compiler = env.get_compiler(target, chip, opt, env.codegen_options(pass_configs))
    verbose = env.verbose(verbose)
    fast = env.fast_math(pass_configs)
    debug_root_path = debug_root_path or env.dump_dir(pass_configs)
    funcs = list(funcs)
    results = [None] * len(funcs)
    todo = []
    for i, f in enumerate(funcs):
        if f is None:
            continue
        if not isinstance(f, PrimFunc):
            raise TileError(f"tile.compile takes T.prim_func functions, got "
                            f"{type(f).__name__}")
        if fast:
            f = funcs[i] = f.with_ir(with_fast_math(f.ir))
        # Pass configs that turn GPU features off (tl.disable_tma_lower, ...).
        restricted = env.restrict_target(f.ir, target, compiler.chip, pass_configs)
        if restricted != f.ir:
            f = funcs[i] = f.with_ir(restricted)
        key = (f.ir, f.name, compiler.target, compiler.chip, opt, compiler.cache_dir,
               tuple(sorted(compiler.codegen.items())))
        with _memo_lock:
            hit = _memo.get(key)
        if hit is not None:
            results[i] = hit
        else:
            todo.append((i, key))
    if len(todo) == 1:
        i, key = todo[0]
        results[i] = compiler.compile(funcs[i].ir, funcs[i].name)
    elif todo:
        workers = num_workers or min(len(todo), max(1, (os.cpu_count() or 2)))
        bar = _progress(len(todo), "Parallel Compiling", progress)
        out = compiler.compile_many([(funcs[i].ir, funcs[i].name) for i, _ in todo],
                                    workers, bar.update if bar else None)
        if bar:
            bar.close()
        for (i, _), r in zip(todo, out):
            results[i] = r
    for i, key in todo:
        if results[i].ok:
            with _memo_lock:
                _memo[key] = results[i]
    kernels = []
    for f, r in zip(funcs, results):
        if f is None:
            kernels.append(None)
            continue
        if not r.ok:
            err = TileCompileError(r.diagnostics)
            if ignore_error:
                import warnings
                warnings.warn(f"tile: compiling @{f.name} failed:\n{err}", stacklevel=3)
                kernels.append(None)
                continue
            raise err
        kernels.append(JITKernel(f, out_idx, target, compiler, r, verbose,
                                 debug_root_path))
    return kernels


def compile(func=None, out_idx=None, execution_backend=None, target=None,  # noqa: A001
            target_host=None, verbose=None, pass_configs=None, compile_flags=None,
            debug_root_path=None):
    """tile.compile(func, out_idx=, target=): a JITKernel from a T.prim_func."""
    return build_kernels([func], out_idx, target, pass_configs, verbose,
                         debug_root_path=debug_root_path)[0]


def par_compile(funcs, out_idx=None, execution_backend=None, target=None,
                target_host=None, verbose=None, pass_configs=None, compile_flags=None,
                num_workers=None, ignore_error=False):
    """Compiles several T.prim_funcs in parallel C++ threads (the GIL is
    released); returns their JITKernels in order."""
    return build_kernels(list(funcs), out_idx, target, pass_configs, verbose,
                         num_workers, ignore_error)


# ---------------------------------------------------------------------------
# @tile.jit
# ---------------------------------------------------------------------------


def _hashable(x):
    if isinstance(x, (list, tuple)):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    if isinstance(x, dt.dtype):
        return ("dtype", x.name)
    try:
        hash(x)
        return x
    except TypeError:
        return ("id", id(x))


# The key of JITImpl._bind's result under which keywords naming T.const
# symbols (not parameters) are kept.
CONSTS = "__tile_consts__"


class MissingTensor(TensorAnnot):
    """A tensor argument left out of an eager call (``.compile(M=...)``):
    its annotation in the body declares it."""

    def __init__(self, name):
        super().__init__((), None)
        self.name = name
        self.shape = None

    def __repr__(self):
        return f"<missing tensor {self.name}>"


class _EagerEntry:
    def __init__(self, kernel, runtime, returns):
        self.kernel = kernel
        self.runtime = runtime  # parameter names passed to the kernel
        self.returns = returns  # "none", "single" or "tuple"


class JITImpl:
    """What @tile.jit makes of a function. Lazy mode (the function returns a
    T.prim_func): calling gives a JITKernel. Eager mode (the body is the
    kernel; tensors are annotated or passed): calling compiles on the first
    call of each specialization and runs."""

    def __init__(self, func, out_idx=None, target=None, verbose=None,
                 pass_configs=None, debug_root_path=None, mode="auto",
                 compile_flags=None, execution_backend=None, target_host=None):
        self.func = func
        functools.update_wrapper(self, func)
        self.out_idx = out_idx
        self.target = target
        self.verbose = verbose
        self.pass_configs = pass_configs
        self.debug_root_path = debug_root_path
        if mode not in ("auto", "lazy", "eager"):
            raise TileError(f"mode must be auto, lazy or eager, got {mode!r}")
        self.mode = mode
        self.signature = inspect.signature(func)
        self._hints = None
        self._lazy = {}
        self._eager = {}
        self._learned = {}  # compile-time key -> {tensor: dims the body made dynamic}
        self._lock = threading.RLock()
        try:
            self.func_source = inspect.getsource(func)
        except (OSError, TypeError):
            self.func_source = ""

    @property
    def hints(self):
        if self._hints is None:
            self._hints = _eval_annotations(self.func)
        return self._hints

    # -- mode ----------------------------------------------------------------
    def initialize_jit_mode(self, *args, **kwargs):
        if self.mode != "auto":
            return self.mode
        for a in list(args) + list(kwargs.values()):
            if is_array(a):
                return "eager"
        for name, ann in self.hints.items():
            if name == "return":
                continue
            if isinstance(ann, TensorAnnot) or ann is ptr or isinstance(ann, dt.dtype):
                return "eager"
        # TileLang's rule: a body that defines a T.prim_func is lazy; one
        # that annotates its tensors or launches a T.Kernel is eager.
        info = body_info(self.func)
        if info.prim_func:
            return "lazy"
        if info.kernel or info.annotated & set(self.signature.parameters):
            return "eager"
        return "lazy"

    # -- calls ---------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.initialize_jit_mode(*args, **kwargs) == "lazy":
            return self._lazy_kernel(args, kwargs)
        entry, bound = self._eager_kernel(args, kwargs)
        missing = [n for n in entry.runtime if isinstance(bound[n], MissingTensor)]
        if missing:
            raise TypeError(f"{self.func.__name__}(): missing tensor argument "
                            f"'{missing[0]}' (.compile(...) gives the kernel without "
                            "running it)")
        out = entry.kernel(*[bound[n] for n in entry.runtime])
        if entry.returns == "tuple" and not isinstance(out, tuple):
            return (out,)
        return out

    def compile(self, *args, **kwargs):
        """The JITKernel for these arguments (compiling it if needed)."""
        if self.initialize_jit_mode(*args, **kwargs) == "lazy":
            return self._lazy_kernel(args, kwargs)
        return self._eager_kernel(args, kwargs)[0].kernel

    def get_ir(self, *args, **kwargs):
        """The traced T.prim_func (TileLang's get_tir)."""
        if self.initialize_jit_mode(*args, **kwargs) == "lazy":
            return self._elaborate(args, kwargs)
        return self._eager_trace(self._bind(args, kwargs))[0]

    get_tir = get_ir

    def get_kernel_source(self, *args, **kwargs):
        """The compiled kernel's code for these arguments (TileLang's
        ``func.get_kernel_source(**constants)``)."""
        return self.compile(*args, **kwargs).get_kernel_source()

    def par_compile(self, configs, num_workers=None, ignore_error=False, progress=True):
        """Compiles one kernel per config (a dict of keyword arguments or a
        tuple of positional ones) in parallel; configs may use T.Tensor
        placeholders for tensors."""
        configs = list(configs)
        calls = [((), dict(c)) if isinstance(c, dict) else (tuple(c), {}) for c in configs]
        bar = _progress(len(calls), "Elaborating", progress)
        funcs, keys, errors = [], [], []
        for args, kwargs in calls:
            try:
                if self.initialize_jit_mode(*args, **kwargs) == "lazy":
                    funcs.append(self._elaborate(args, kwargs))
                    keys.append(("lazy", self._lazy_key(args, kwargs)))
                else:
                    bound = self._bind(args, kwargs)
                    pf, runtime, returns = self._eager_trace(bound)
                    funcs.append(pf)
                    keys.append(("eager", self._eager_key(bound), runtime, returns,
                                 bound))
                errors.append(None)
            except TileError as e:
                if not ignore_error:
                    raise
                import warnings
                warnings.warn(f"tile: config {kwargs or args} failed: {e}", stacklevel=2)
                funcs.append(None)
                keys.append(None)
                errors.append(e)
            if bar:
                bar.update(1)
        if bar:
            bar.close()
        kernels = build_kernels(funcs, self.out_idx, self.target, self.pass_configs,
                                self.verbose, num_workers, ignore_error,
                                self.debug_root_path, progress)
        with self._lock:
            for k, key in zip(kernels, keys):
                if k is None:
                    continue
                if key[0] == "lazy":
                    self._lazy[key[1]] = k
                else:
                    entry = self._eager[key[1]] = _EagerEntry(k, key[2], key[3])
                    self._learn(key[4], entry)
        return kernels

    # -- lazy ----------------------------------------------------------------
    def _lazy_key(self, args, kwargs):
        # Keyed by the bound arguments: f(1, 2) and f(1, b=2) are one kernel.
        try:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return _hashable(tuple(bound.arguments.items()))
        except TypeError:
            return (_hashable(args), _hashable(kwargs))

    def _elaborate(self, args, kwargs):
        result = self.func(*args, **kwargs)
        if not isinstance(result, PrimFunc):
            raise TileError(f"@tile.jit function '{self.func.__name__}' returned "
                            f"{type(result).__name__}; a lazy kernel builder returns a "
                            "T.prim_func (or annotate tensors for eager mode)")
        return result

    def _lazy_kernel(self, args, kwargs):
        key = self._lazy_key(args, kwargs)
        k = self._lazy.get(key)
        if k is None:
            with self._lock:
                k = self._lazy.get(key)
                if k is None:
                    pf = self._elaborate(args, kwargs)
                    k = build_kernels([pf], self.out_idx, self.target, self.pass_configs,
                                      self.verbose, debug_root_path=self.debug_root_path)[0]
                    self._lazy[key] = k
        return k

    # -- eager ---------------------------------------------------------------
    def _bind(self, args, kwargs):
        """The call's arguments by name, defaults applied. Tensors the body
        annotates may be left out (``.compile(M=1024, ...)``: a
        MissingTensor, declared by its annotation); keywords that are not
        parameters bind the body's T.const symbols (under the key
        CONSTS)."""
        params = self.signature.parameters
        takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        consts = {}
        if not takes_kwargs:
            consts = {k: v for k, v in kwargs.items() if k not in params}
            kwargs = {k: v for k, v in kwargs.items() if k in params}
        try:
            bound = self.signature.bind_partial(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.func.__name__}(): {e}") from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        declared = body_info(self.func).annotated
        for name, p in params.items():
            if name in arguments or p.kind in (inspect.Parameter.VAR_POSITIONAL,
                                               inspect.Parameter.VAR_KEYWORD):
                continue
            if name in declared or isinstance(self.hints.get(name), TensorAnnot):
                arguments[name] = MissingTensor(name)
            else:
                raise TypeError(f"{self.func.__name__}(): missing a required argument: "
                                f"'{name}'")
        if consts:
            arguments[CONSTS] = consts
        return arguments

    def _classify(self, name, value):
        ann = self.hints.get(name)
        if isinstance(value, MissingTensor):
            return "tensor"
        if ann is ptr:
            return "pointer"
        if isinstance(ann, (dt.dtype, str)) and not is_array(value):
            return "scalar"
        if is_array(value):
            return "tensor"
        if isinstance(ann, TensorAnnot):
            raise TileError(f"{self.func.__name__}(): argument '{name}' is annotated as a "
                            f"tensor, got {type(value).__name__}")
        return "const"

    def _const_key(self, bound):
        parts = []
        for name, value in bound.items():
            if name == CONSTS:
                parts.append((CONSTS, tuple(sorted((k, _hashable(v))
                                                   for k, v in value.items()))))
            elif self._classify(name, value) == "const":
                parts.append((name, _hashable(value)))
        return tuple(parts)

    def _eager_key(self, bound):
        # Dims the body made dynamic (T.dynamic annotations) in earlier
        # traces with the same compile-time values are not part of the key.
        learned = self._learned.get(self._const_key(bound), {})
        parts = []
        for name, value in bound.items():
            if name == CONSTS:
                parts.append((CONSTS, tuple(sorted((k, _hashable(v))
                                                   for k, v in value.items()))))
                continue
            kind = self._classify(name, value)
            if kind == "tensor":
                if isinstance(value, MissingTensor):
                    parts.append((name, "m"))
                    continue
                ann = self.hints.get(name)
                dyn = [isinstance(d, DynDim) for d in ann.shape] if isinstance(
                    ann, TensorAnnot) else [False] * len(value.shape)
                for axis in learned.get(name, ()):
                    if axis < len(dyn):
                        dyn[axis] = True
                shape = tuple(None if a < len(dyn) and dyn[a] else int(s)
                              for a, s in enumerate(value.shape))
                strides = None
                if isinstance(ann, TensorAnnot) and ann.strided and not isinstance(
                        value, TensorAnnot):
                    st = _strides(value)
                    strides = tuple(None if isinstance(w, DynDim) else s
                                    for w, s in zip(ann.strides, st))
                parts.append((name, "t", _array_dtype(value).name, shape, strides,
                              _array_device(value, self.target)))
            elif kind == "scalar":
                parts.append((name, "s"))
            elif kind == "pointer":
                parts.append((name, "p"))
            else:
                parts.append((name, "c", _hashable(value)))
        return tuple(parts)

    def _learn(self, bound, entry):
        """Remembers which dims of the traced tensors the body made dynamic,
        and files the entry under the key that leaves them out."""
        dyn = {}
        for p in entry.kernel.params:
            if p.kind != "memref" or p.output or p.workspace or p.name not in bound:
                continue
            ann = self.hints.get(p.name)
            axes = [a for a, (kind, _, _) in enumerate(p.sizes) if kind == 1 and not (
                isinstance(ann, TensorAnnot) and a < len(ann.shape) and
                isinstance(ann.shape[a], DynDim))]
            if axes:
                dyn[p.name] = tuple(axes)
        if dyn:
            self._learned[self._const_key(bound)] = dyn
            self._eager[self._eager_key(bound)] = entry

    def _eager_kernel(self, args, kwargs):
        bound = self._bind(args, kwargs)
        key = self._eager_key(bound)
        entry = self._eager.get(key)
        if entry is None:
            with self._lock:
                entry = self._eager.get(key)
                if entry is None:
                    pf, runtime, returns = self._eager_trace(bound)
                    k = build_kernels([pf], None, self.target, self.pass_configs,
                                      self.verbose,
                                      debug_root_path=self.debug_root_path)[0]
                    entry = self._eager[key] = _EagerEntry(k, runtime, returns)
                    self._learn(bound, entry)
        return entry, bound

    def _eager_trace(self, bound):
        runtime = []
        consts = bound.get(CONSTS, {})

        def make_args(sig):
            kwargs = {}
            for name, value in bound.items():
                if name == CONSTS:
                    continue
                kind = self._classify(name, value)
                ann = self.hints.get(name)
                if kind == "tensor":
                    if isinstance(value, MissingTensor):
                        kwargs[name] = sig.reserve_tensor(name)
                    else:
                        kwargs[name] = self._tensor_param(sig, name, value, ann)
                    runtime.append(name)
                elif kind == "pointer":
                    kwargs[name] = sig.pointer(name)
                    runtime.append(name)
                elif kind == "scalar":
                    kwargs[name] = lazy_param(sig, name, ann, self.func)
                    runtime.append(name)
                else:
                    kwargs[name] = value
            return (), kwargs

        pf, result = trace(self.func, make_args, eager=True, const_values=consts)
        outputs = [p.buffer for p in pf.params if p.output]
        returns = _check_returns(self.func, result, outputs)
        return pf, runtime, returns

    def _tensor_param(self, sig, name, value, ann):
        d = _array_dtype(value)
        if d is None:
            raise TileError(f"placeholder '{name}' needs a dtype")
        if isinstance(ann, TensorAnnot):
            if ann.dtype is not None and ann.dtype != d:
                raise TileError(f"{self.func.__name__}(): argument '{name}' has dtype "
                                f"{d.name}, annotated {ann.dtype.name}")
            if len(ann.shape) != len(value.shape):
                raise TileError(f"{self.func.__name__}(): argument '{name}' has "
                                f"{len(value.shape)} dimensions, annotated "
                                f"{len(ann.shape)}")
        shape = []
        for axis, s in enumerate(value.shape):
            want = ann.shape[axis] if isinstance(ann, TensorAnnot) else None
            if isinstance(want, DynDim):
                shape.append(want)
            else:
                if isinstance(want, int) and not isinstance(want, bool) and want is not int \
                        and int(s) != want:
                    raise TileError(f"{self.func.__name__}(): dim {axis} of '{name}' is "
                                    f"{int(s)}, annotated {want}")
                shape.append(int(s))
        strides = None
        if isinstance(ann, TensorAnnot) and ann.strided:
            actual = _strides(value) if not isinstance(value, TensorAnnot) else [None] * len(shape)
            strides = []
            for w, s in zip(ann.strides, actual):
                strides.append(w if isinstance(w, DynDim) or s is None else int(s))
        buf = sig.tensor(name, shape, d, strides)
        # Not annotated in the signature: an annotation in the body may
        # still make dims dynamic (T.dynamic).
        buf.redeclarable = not isinstance(ann, TensorAnnot)
        return buf

    def __repr__(self):
        return f"<tile.jit {self.func.__name__}>"


def _strides(x):
    if hasattr(x, "stride") and callable(x.stride):
        return list(x.stride())
    st = getattr(x, "strides", None)
    if st is not None:
        item = x.dtype.itemsize
        return [s // item for s in st]
    return [None] * len(x.shape)


def _check_returns(func, result, outputs):
    from .language.buffers import Buffer
    if result is None:
        if outputs:
            raise TileError(f"'{func.__name__}' creates outputs with T.empty but "
                            "returns nothing; return them")
        return "none"
    items = result if isinstance(result, tuple) else (result,)
    for r in items:
        if not isinstance(r, Buffer) or not any(r is o for o in outputs):
            raise TileError(f"'{func.__name__}' returns {type(r).__name__}; an eager "
                            "kernel returns the tensors it creates with T.empty")
    if [id(r) for r in items] != [id(o) for o in outputs]:
        raise TileError(f"'{func.__name__}' must return its T.empty outputs in the "
                        "order it creates them")
    return "tuple" if isinstance(result, tuple) else "single"


def jit(func=None, *, out_idx=None, target=None, target_host=None,
        execution_backend=None, verbose=None, pass_configs=None, debug_root_path=None,
        compile_flags=None, mode="auto"):
    """@tile.jit: TileLang's JIT decorator (lazy and eager modes)."""
    def wrap(f):
        return JITImpl(f, out_idx=out_idx, target=target, verbose=verbose,
                       pass_configs=pass_configs, debug_root_path=debug_root_path,
                       mode=mode, compile_flags=compile_flags,
                       execution_backend=execution_backend, target_host=target_host)
    if func is not None:
        return wrap(func)
    return wrap


lazy_jit = jit


def _unused():
    return time
