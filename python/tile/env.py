"""Defaults from the environment and the compilers of each target.

- ``TILE_TARGET``: ``auto`` (default: ``cuda`` when a GPU is usable, else
  ``cpu``), ``cuda``, ``rocm`` or ``cpu``;
- ``TILE_VERBOSE``: ``1``/``true``/``yes``/``on`` prints what compiles and
  where it came from (compiled, memory or disk cache);
- ``TILE_CACHE_DIR``: the disk cache (default ``~/.cache/tile``), shared with
  tile-run; ``TILE_DISABLE_CACHE=1`` turns it off.
"""

from __future__ import annotations

import os
import threading

from ._ext import ext
from .errors import TileError

_TRUE = ("1", "true", "yes", "on")
_lock = threading.Lock()
_compilers = {}
_cuda = None


def verbose(value=None) -> bool:
    if value is not None:
        return bool(value)
    return os.environ.get("TILE_VERBOSE", "").lower() in _TRUE


def cache_dir() -> str:
    if os.environ.get("TILE_DISABLE_CACHE", "").lower() in _TRUE:
        return ""
    return os.environ.get("TILE_CACHE_DIR") or ext.default_cache_dir()


def cuda_device():
    """The CUDA device's description (dict) or None, and why not."""
    global _cuda
    if _cuda is None:
        _cuda = ext.cuda_device()
    return _cuda


def resolve_target(target=None) -> str:
    """`target` (or $TILE_TARGET) as one of cpu, cuda, rocm."""
    if target is None:
        target = os.environ.get("TILE_TARGET", "auto")
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


# TileLang's key for --use_fast_math; tile marks the kernel's approximable
# math functions fastmath<afn> (values.with_fast_math).
FAST_MATH_CONFIG = "tl.enable_fast_math"
_KNOWN_CONFIGS = {"opt_level", "chip", FAST_MATH_CONFIG}


def fast_math(pass_configs=None):
    """Whether pass_configs ask for fast math (TileLang's tl.enable_fast_math)."""
    return bool((pass_configs or {}).get(FAST_MATH_CONFIG, False))


def compiler_options(target, pass_configs=None):
    """(chip, opt_level) of a compilation."""
    configs = dict(pass_configs or {})
    unknown = sorted(k for k in configs if k not in _KNOWN_CONFIGS)
    if unknown:
        import warnings
        warnings.warn(f"tile ignores these pass configs: {', '.join(unknown)} "
                      f"(known: {', '.join(sorted(_KNOWN_CONFIGS))})", stacklevel=3)
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


def get_compiler(target, chip="", opt_level=3):
    key = (target, chip, opt_level, cache_dir())
    with _lock:
        c = _compilers.get(key)
        if c is None:
            c = _compilers[key] = ext.Compiler(target, chip, opt_level, key[3])
        return c
