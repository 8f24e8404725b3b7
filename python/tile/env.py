"""Defaults from the environment and the compilers of each target.

- ``TILE_TARGET``: ``auto`` (default: ``cuda`` when a GPU is usable, else
  ``cpu``), ``cuda``, ``rocm`` or ``cpu``;
- ``TILE_VERBOSE``: ``1``/``true``/``yes``/``on`` prints what compiles and
  where it came from (compiled, memory or disk cache);
- ``TILE_CACHE_DIR``: the disk cache (default ``~/.cache/tile``), shared with
  tile-run; ``TILE_DISABLE_CACHE=1`` turns it off.

TileLang's names work too: ``TILELANG_DEFAULT_TARGET``, ``TILELANG_VERBOSE``,
``TILELANG_DISABLE_CACHE``, ``TILELANG_AUTO_TUNING_DISABLE_CACHE``; this
module stands for TileLang's ``tilelang.env`` object (``is_cache_enabled()``,
``disable_cache()``, ``env.TILELANG_CACHE_DIR``, ...), and ``env.env`` is the
module itself, as ``from tilelang.env import env`` expects.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import warnings

from ._ext import ext
from .errors import TileError

_TRUE = ("1", "true", "yes", "on")


def _find_cuda_wheels():
    """NVIDIA's wheels the package depends on, nvidia-cuda-nvcc (ptxas) and
    nvidia-nvvm (libdevice): their toolkit directory ``nvidia/cu13``, told
    to the compiler through ``TILE_CUDA_WHEEL_TOOLKIT``, which it searches
    after ``$CUDA_HOME``, ``$CUDA_PATH``, ptxas on ``$PATH`` and
    ``/usr/local/cuda`` (docs/pipeline.md). Nothing is imported."""
    if os.environ.get("TILE_CUDA_WHEEL_TOOLKIT"):
        return
    import importlib.util
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return
    for root in (spec.submodule_search_locations or []) if spec else []:
        toolkit = os.path.join(root, "cu13")
        if os.path.isfile(os.path.join(toolkit, "bin", "ptxas")) or \
                os.path.isfile(os.path.join(toolkit, "nvvm", "libdevice",
                                            "libdevice.10.bc")):
            os.environ["TILE_CUDA_WHEEL_TOOLKIT"] = toolkit
            return


_find_cuda_wheels()
_lock = threading.Lock()
_compilers = {}
_cuda = None


def verbose(value=None) -> bool:
    if value is not None:
        return bool(value)
    return (os.environ.get("TILE_VERBOSE", "").lower() in _TRUE or
            os.environ.get("TILELANG_VERBOSE", "").lower() in _TRUE)


_cache_enabled = True


def is_cache_enabled() -> bool:
    """Whether compiled kernels and autotuning results are kept on disk
    (TileLang's env.is_cache_enabled): not after disable_cache(), nor with
    TILE_DISABLE_CACHE (or TileLang's TILELANG_DISABLE_CACHE) set."""
    if os.environ.get("TILE_DISABLE_CACHE", "").lower() in _TRUE or \
            os.environ.get("TILELANG_DISABLE_CACHE", "").lower() in _TRUE:
        return False
    return _cache_enabled


def enable_cache() -> None:
    """Turns the disk cache back on (tile.enable_cache)."""
    global _cache_enabled
    _cache_enabled = True


def disable_cache() -> None:
    """Turns the disk cache off for this process (tile.disable_cache): kernels
    compile afresh and are not stored, autotuning runs its search."""
    global _cache_enabled
    _cache_enabled = False


def is_autotune_cache_disabled() -> bool:
    """TileLang's TILELANG_AUTO_TUNING_DISABLE_CACHE: autotuning results are
    neither read nor stored."""
    return os.environ.get("TILELANG_AUTO_TUNING_DISABLE_CACHE", "").lower() in _TRUE


def cache_dir() -> str:
    """The disk cache directory; empty when the cache is off."""
    if not is_cache_enabled():
        return ""
    return os.environ.get("TILE_CACHE_DIR") or ext.default_cache_dir()


def get_default_target() -> str:
    """The target kernels compile for when none is named ($TILE_TARGET, else
    TileLang's $TILELANG_DEFAULT_TARGET, else auto)."""
    return os.environ.get("TILE_TARGET") or os.environ.get("TILELANG_DEFAULT_TARGET") or "auto"


def get_default_verbose() -> bool:
    return verbose()


def get_default_execution_backend() -> str:
    """TileLang's execution backend: tile has one (its JIT library)."""
    return "tile"


def cuda_device():
    """The CUDA device's description (dict) or None, and why not."""
    global _cuda
    if _cuda is None:
        _cuda = ext.cuda_device()
    return _cuda


def resolve_target(target=None) -> str:
    """`target` (or $TILE_TARGET) as one of cpu, cuda, rocm."""
    if target is None:
        target = get_default_target()
    name = str(getattr(target, "kind", target)).strip().lower()
    name = name.split()[0] if name else "auto"
    if name.startswith("cuda") or name == "nvidia":
        name = "cuda"
    aliases = {"llvm": "cpu", "c": "cpu", "host": "cpu", "hip": "rocm", "amd": "rocm"}
    name = aliases.get(name, name)
    if name == "auto":
        info, _ = cuda_device()
        return "cuda" if info is not None else "cpu"
    if name not in ("cpu", "cuda", "rocm"):
        raise TileError(f"unknown target '{target}' (expected auto, cuda, rocm or cpu)")
    if name == "cuda":
        info, why = cuda_device()
        if info is None:
            raise TileError(f"target cuda: no usable CUDA device ({why})")
    if name == "rocm":
        raise TileError("target rocm: this build of tile runs no ROCm kernels yet")
    return name


# ---------------------------------------------------------------------------
# Pass configs (TileLang's tilelang.PassConfigKey; tile.transform)
# ---------------------------------------------------------------------------

# TileLang's key for --use_fast_math; tile marks the kernel's approximable
# math functions fastmath<afn> (values.with_fast_math).
FAST_MATH_CONFIG = "tl.enable_fast_math"

# Keys that take instruction families out of a GPU target: key -> (the
# features of the chip's `#tile.target` left out, the value that leaves
# them out). docs/dialect.md (Targets) describes the features.
FEATURE_CONFIGS = {
    "tl.disable_tma_lower": (("tma",), True),
    "tl.disable_wgmma": (("wgmma",), True),
    "tl.enable_async_copy": (("cp.async",), False),
    "tirx.use_async_copy": (("cp.async",), False),
}

# The GPU lowering's policies (convert-tile-to-gpu's options, the compiler's
# `codegen`), with their defaults; each is also a key of tile's own.
CODEGEN_DEFAULTS = {"warp_specialize": True, "tma_store": True, "tma_multicast": False,
                    "deepen_pipelines": True, "raster_blocks": True, "merge_blocks": True}

# TileLang's keys that set a policy: key -> (the policy, the value of the key
# that turns the policy off).
CODEGEN_CONFIGS = {
    "tl.disable_warp_specialized": ("warp_specialize", True),
}

# Keys that write the kernel's code to a directory (tile IR, and PTX on CUDA:
# what debug_root_path writes).
DUMP_CONFIGS = ("cuda.kernels_output_dir", "tl.dump_ir_path", "tl.enable_dump_ir")

# tile's own keys.
TILE_CONFIGS = ("opt_level", "chip", *CODEGEN_DEFAULTS)

_KNOWN_CONFIGS = {FAST_MATH_CONFIG, *FEATURE_CONFIGS, *CODEGEN_CONFIGS, *DUMP_CONFIGS,
                  *TILE_CONFIGS}


def normalize_pass_configs(pass_configs=None) -> dict:
    """pass_configs with TileLang's PassConfigKey members as their strings."""
    out = {}
    for key, value in (pass_configs or {}).items():
        name = getattr(key, "value", key)
        if not isinstance(name, str):
            raise TypeError(f"pass_configs: keys are strings or tile.PassConfigKey members, "
                            f"got {key!r}")
        out[name] = value
    return out


def fast_math(pass_configs=None):
    """Whether pass_configs ask for fast math (TileLang's tl.enable_fast_math)."""
    return bool(normalize_pass_configs(pass_configs).get(FAST_MATH_CONFIG, False))


def dropped_features(pass_configs=None):
    """The GPU target features that pass_configs leave out (a sorted list)."""
    drop = set()
    for key, value in normalize_pass_configs(pass_configs).items():
        spec = FEATURE_CONFIGS.get(key)
        if spec is not None and value is not None and bool(value) == spec[1]:
            drop.update(spec[0])
    return sorted(drop)


def codegen_options(pass_configs=None):
    """The GPU lowering's policies pass_configs choose (a dict of
    warp_specialize, tma_store, tma_multicast, deepen_pipelines, raster_blocks,
    merge_blocks): tile's own keys of those names, TileLang's tl.disable_warp_specialized."""
    configs = normalize_pass_configs(pass_configs)
    options = dict(CODEGEN_DEFAULTS)
    for key, (policy, off) in CODEGEN_CONFIGS.items():
        if configs.get(key) is not None and bool(configs[key]) == off:
            options[policy] = False
    for policy in CODEGEN_DEFAULTS:
        if configs.get(policy) is not None:
            options[policy] = bool(configs[policy])
    return options


def dump_dir(pass_configs=None):
    """Where pass_configs ask the kernels' code to be written, or None."""
    configs = normalize_pass_configs(pass_configs)
    if configs.get("cuda.kernels_output_dir"):
        return str(configs["cuda.kernels_output_dir"])
    if configs.get("tl.enable_dump_ir"):
        return str(configs.get("tl.dump_ir_path") or "./dump_ir")
    return None


def default_features(chip):
    """The features a chip's `#tile.target` has by default (the compiler's
    own table, lib/Target/Target.cpp)."""
    return list(ext.default_features(chip or ""))


def restrict_target(ir, target, chip, pass_configs=None):
    """`ir` with a `#tile.target` that leaves out the features pass_configs
    turn off (TileLang's tl.disable_warp_specialized, tl.disable_tma_lower,
    ...); unchanged when they turn off none, on the CPU, or when the module
    names its own target."""
    drop = dropped_features(pass_configs)
    if not drop or target == "cpu" or not chip or "tile.target" in ir.split("\n", 1)[0]:
        return ir
    features = [f for f in default_features(chip) if f not in drop]
    listed = ", ".join(f'"{f}"' for f in features)
    attr = f'tile.target = #tile.target<"{chip}", features = [{listed}]>'
    if ir.startswith("module {"):
        return f"module attributes {{{attr}}} {{" + ir[len("module {"):]
    if ir.startswith("module attributes {"):
        return f"module attributes {{{attr}, " + ir[len("module attributes {"):]
    return ir


_noted = set()
_noted_lock = threading.Lock()


def note_once(message):
    """A UserWarning, shown once per message in a process."""
    with _noted_lock:
        if message in _noted:
            return
        _noted.add(message)
    warnings.warn(message, UserWarning, stacklevel=4)


def _describe_ignored(key):
    return (f"tile ignores pass config '{key}': tile has no counterpart to it "
            "(docs/python.md lists what each key does)")


def compiler_options(target, pass_configs=None):
    """(chip, opt_level) of a compilation. Keys tile has no counterpart for
    are accepted and ignored, with a note the first time each is seen."""
    configs = normalize_pass_configs(pass_configs)
    for key in sorted(configs):
        if key not in _KNOWN_CONFIGS:
            note_once(_describe_ignored(key))
        elif target == "cpu" and key in {**FEATURE_CONFIGS, **CODEGEN_CONFIGS} and \
                configs[key] is not None and \
                bool(configs[key]) == {**FEATURE_CONFIGS, **CODEGEN_CONFIGS}[key][1]:
            note_once(f"pass config '{key}' has no effect on the cpu target (it turns off "
                      "GPU instructions or strategies)")
    opt = int(configs.get("opt_level", 3))
    if not 0 <= opt <= 3:
        raise TileError(f"opt_level must be 0 to 3, got {opt}")
    chip = configs.get("chip") or ""
    if target == "cuda" and not chip:
        chip = cuda_device()[0]["chip"]
    return chip, opt


def release_compilers():
    """Drops the compilers (at exit)."""
    with _lock:
        _compilers.clear()


def get_compiler(target, chip="", opt_level=3, codegen=None):
    """The compiler for target and chip with these options (shared); codegen:
    the GPU lowering's policies (codegen_options)."""
    codegen = {**CODEGEN_DEFAULTS, **(codegen or {})}
    key = (target, chip, opt_level, cache_dir(), tuple(sorted(codegen.items())))
    with _lock:
        c = _compilers.get(key)
        if c is None:
            c = _compilers[key] = ext.Compiler(target, chip, opt_level, key[3], **codegen)
        return c


# ---------------------------------------------------------------------------
# TileLang's `env` object
# ---------------------------------------------------------------------------


def _tilelang_variable(name):
    """TileLang's environment settings read as attributes (env.TILELANG_X)."""
    if name == "TILELANG_CACHE_DIR":
        return os.environ.get("TILE_CACHE_DIR") or ext.default_cache_dir()
    if name == "TILELANG_TMP_DIR":
        return os.path.join(_tilelang_variable("TILELANG_CACHE_DIR"), "tmp")
    if name == "TILELANG_DEFAULT_TARGET":
        return get_default_target()
    if name in ("CUDA_HOME", "ROCM_HOME"):
        return os.environ.get(name, "")
    return os.environ.get(name, "0")


def __getattr__(name):
    if name.startswith("TILELANG_") or name in ("CUDA_HOME", "ROCM_HOME"):
        return _tilelang_variable(name)
    raise AttributeError(f"module 'tile.env' has no attribute {name!r}")


env = sys.modules[__name__]
