"""tile.carver.template: operation templates that recommend tile
configurations (``tilelang.carver.template``)::

    from tile.carver.template import MatmulTemplate
    from tile.carver.arch import CUDA

    hints = MatmulTemplate(M=4096, N=4096, K=4096, in_dtype="float16",
                           out_dtype="float16", accum_dtype="float32"
                           ).with_arch(CUDA("sm_90")).recommend_hints(topk=10)
    hints[0].block, hints[0].warp, hints[0].rstep, hints[0].pipeline_stage

The searches behind them are tile's own (tile.carver.roller.policy)."""

from .base import BaseTemplate, Computation, TensorSpec  # noqa: F401
from .conv import ConvTemplate  # noqa: F401
from .elementwise import ElementwiseTemplate  # noqa: F401
from .flashattention import FlashAttentionTemplate  # noqa: F401
from .gemv import GEMVTemplate  # noqa: F401
from .general_reduce import GeneralReductionTemplate  # noqa: F401
from .matmul import MatmulTemplate  # noqa: F401

__all__ = ["BaseTemplate", "Computation", "TensorSpec", "MatmulTemplate", "GEMVTemplate",
           "ElementwiseTemplate", "GeneralReductionTemplate", "FlashAttentionTemplate",
           "ConvTemplate"]
