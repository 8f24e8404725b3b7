"""tile.carver.template.elementwise: ElementwiseTemplate (TileLang's):
B = A + 1 over `shape`, configurations from ReductionPolicy (every dim
spatial)."""

from __future__ import annotations

from dataclasses import dataclass

from ..arch import TileDevice
from ..roller.hint import Hint
from ..roller.policy import ReductionPolicy
from .base import BaseTemplate, Computation, TensorSpec, as_numpy_dtype


@dataclass
class ElementwiseTemplate(BaseTemplate):
    """Hints: ``block`` (a block's tile, per dim), ``thread`` (threads per
    dim; a block has their product), ``step`` (contiguous elements a thread
    takes: a vector along the innermost dim)."""

    shape: list = None
    dtype: str = "float16"

    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        return ReductionPolicy(arch or self.arch, self.shape, None, self.dtype,
                               self.dtype).emit_config(topk)

    def initialize_function(self) -> None:
        if not self.shape or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                                     for s in self.shape):
            raise ValueError(f"shape must be positive integers, got {self.shape!r}")
        dtype = str(self.dtype)

        def reference(a):
            import numpy as np
            return (np.asarray(a) + 1).astype(as_numpy_dtype(dtype))

        shape = tuple(self.shape)
        self.set_function(Computation("elementwise", (TensorSpec("A", shape, dtype),),
                                      (TensorSpec("B", shape, dtype),), reference))

    def params_as_dict(self) -> dict:
        return {"shape": self.shape, "dtype": self.dtype}


__all__ = ["ElementwiseTemplate"]
