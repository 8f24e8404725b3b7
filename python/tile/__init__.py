"""tile: TileLang's Python frontend over tile's MLIR compiler.

    import tile
    import tile.language as T

    @tile.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, block_N=128, block_K=32):
        @T.prim_func
        def kernel(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
                   C: T.Tensor((M, N), T.float32)):
            with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
                ...
        return kernel

TileLang's package-level names are here at TileLang's paths (tile.PassConfigKey,
tile.TensorSupplyType, tile.cdiv, tile.autotuner, tile.profiler, tile.utils,
tile.testing, tile.cache, ...); ``python -m tile.compat PROGRAM.py`` runs a
TileLang program with ``tilelang`` resolved to ``tile``. See docs/python.md.
"""

import logging

from . import language  # noqa: F401
from .errors import TileCompileError, TileError  # noqa: F401
from .jit import JITImpl, JITKernel, compile, jit, lazy_jit, par_compile  # noqa: F401
from . import env  # noqa: F401
from .env import (disable_cache, enable_cache, is_cache_enabled,  # noqa: F401
                  resolve_target)
from .utils.tensor import TensorSupplyType  # noqa: F401
from . import utils  # noqa: F401
from . import profiler  # noqa: F401
from .profiler import Profiler  # noqa: F401
from . import autotuner  # noqa: F401
from .autotuner import autotune  # noqa: F401
from . import transform  # noqa: F401
from .transform import PassConfigKey  # noqa: F401
from . import cache  # noqa: F401
from . import layout  # noqa: F401
from .layout import Layout  # noqa: F401
from . import math  # noqa: F401
from .math import cdiv, next_power_of_2  # noqa: F401
from .language import dtypes  # noqa: F401

__version__ = "0.1.0"

logger = logging.getLogger(__name__)


def set_log_level(level):
    """The level of tile's logger (TileLang's tilelang.set_log_level): a
    name ("INFO", "DEBUG", ...) or a logging level."""
    if isinstance(level, str):
        name = level.upper()
        if not isinstance(getattr(logging, name, None), int):
            raise ValueError(f"set_log_level: unknown level {level!r}")
        level = getattr(logging, name)
    logger.setLevel(level)
