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

See docs/python.md.
"""

from . import language  # noqa: F401
from .errors import TileCompileError, TileError  # noqa: F401
from .jit import JITImpl, JITKernel, compile, jit, lazy_jit, par_compile  # noqa: F401
from .autotuner import autotune  # noqa: F401
from . import profiler  # noqa: F401
from .env import resolve_target  # noqa: F401

__version__ = "0.1.0"
