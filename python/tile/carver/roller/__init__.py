"""tile.carver.roller: recommended configurations (``tilelang.carver.roller``):
Hint, TileDict, the rasterization plans, and tile's own policies (see
tile.carver.roller.policy). TileLang's PrimFuncNode / OutputNode / Edge and
its DefaultPolicy / TensorCorePolicy work on TVM IR and are not here."""

from ..arch import CUDA, TileDevice  # noqa: F401
from .hint import Hint, IntrinInfo, Stride, TileDict  # noqa: F401
from .policy import FlashAttentionPolicy, MatmulPolicy, ReductionPolicy  # noqa: F401
from .rasterization import (NoRasterization, Rasterization, Rasterization2DColumn,  # noqa: F401
                            Rasterization2DRow)

__all__ = ["Hint", "TileDict", "Stride", "IntrinInfo", "Rasterization", "NoRasterization",
           "Rasterization2DRow", "Rasterization2DColumn", "MatmulPolicy", "ReductionPolicy",
           "FlashAttentionPolicy", "TileDevice", "CUDA"]
