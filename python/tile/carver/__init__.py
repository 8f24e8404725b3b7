"""tile.carver: recommended tile configurations (TileLang's
``tilelang.carver``): device descriptions (``tile.carver.arch``: CUDA, CDNA,
CPU, ``driver``), operation templates (``tile.carver.template``:
MatmulTemplate, GEMVTemplate, ElementwiseTemplate, GeneralReductionTemplate,
FlashAttentionTemplate, ConvTemplate) and what they give
(``tile.carver.roller``: Hint, the rasterization plans, tile's own search
policies). TileLang's analyses of TVM IR are not here."""

from . import arch  # noqa: F401
from . import roller  # noqa: F401
from . import template  # noqa: F401
from .arch import CDNA, CPU, CUDA, auto_infer_current_arch, get_arch  # noqa: F401
from .roller import (Hint, NoRasterization, Rasterization2DColumn,  # noqa: F401
                     Rasterization2DRow, TileDict)
from .template import (ConvTemplate, ElementwiseTemplate, FlashAttentionTemplate,  # noqa: F401
                       GEMVTemplate, GeneralReductionTemplate, MatmulTemplate)

__all__ = ["arch", "roller", "template", "CUDA", "CDNA", "CPU", "get_arch",
           "auto_infer_current_arch", "Hint", "TileDict", "NoRasterization", "Rasterization2DRow",
           "Rasterization2DColumn", "MatmulTemplate", "GEMVTemplate", "ElementwiseTemplate",
           "GeneralReductionTemplate", "FlashAttentionTemplate", "ConvTemplate"]
