"""tile.cache: the kernel cache (``tilelang.cache``).

Compiled kernels are cached in memory (per process) and on disk under
$TILE_CACHE_DIR (default ``~/.cache/tile``, shared with tile-run);
autotuning results under its ``autotune/`` folder.
"""

from __future__ import annotations

import os
import shutil

from . import env
from ._ext import ext
from .env import disable_cache, enable_cache, is_cache_enabled  # noqa: F401


def cache_dir() -> str:
    """The disk cache directory (also while the cache is off)."""
    return os.environ.get("TILE_CACHE_DIR") or ext.default_cache_dir()


def clear_cache():
    """Empties the disk cache (compiled kernels and autotuning results) and
    this process's in-memory compile results; returns how many compiled
    kernels it removed from disk. Kernels already made keep working."""
    from .jit import _memo, _memo_lock
    with _memo_lock:
        _memo.clear()
    env.release_compilers()
    directory = cache_dir()
    if not os.path.isdir(directory):
        return 0
    removed = ext.clear_cache(directory)
    shutil.rmtree(os.path.join(directory, "autotune"), ignore_errors=True)
    return removed


def cached(func=None, out_idx=None, *args, target=None, target_host=None,
           execution_backend=None, verbose=None, pass_configs=None, compile_flags=None):
    """A JITKernel of the T.prim_func `func`, from the caches when it was
    compiled before (TileLang's tilelang.cache.cached: tile.compile)."""
    from .jit import compile as tile_compile
    return tile_compile(func, out_idx=out_idx, target=target, verbose=verbose,
                        pass_configs=pass_configs)


__all__ = ["cached", "clear_cache", "cache_dir", "disable_cache", "enable_cache",
           "is_cache_enabled"]
