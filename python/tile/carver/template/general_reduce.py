"""tile.carver.template.general_reduce: GeneralReductionTemplate
(TileLang's): C = the sum of A over the dims `structure` marks "R",
configurations from ReductionPolicy."""

from __future__ import annotations

from dataclasses import dataclass

from ..arch import TileDevice
from ..roller.hint import Hint
from ..roller.policy import ReductionPolicy
from .base import BaseTemplate, Computation, TensorSpec, accumulate_dtype, as_numpy_dtype


@dataclass
class GeneralReductionTemplate(BaseTemplate):
    """`structure`: one "S" (kept) or "R" (summed) per dim of `shape`, as in
    "SSR". Hints: ``block`` / ``thread`` / ``step`` per kept dim, ``rstep``
    / ``reduce_thread`` per summed dim (a block has the product of
    ``thread`` and ``reduce_thread`` threads)."""

    structure: str = None
    shape: list = None
    dtype: str = "float16"

    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        return ReductionPolicy(arch or self.arch, self.shape, self.structure, self.dtype,
                               self.dtype).emit_config(topk)

    def initialize_function(self) -> None:
        if not isinstance(self.structure, str) or self.shape is None:
            raise ValueError("GeneralReductionTemplate needs a structure string ('SSR') and "
                             "a shape")
        structure = self.structure.upper()
        if len(structure) != len(self.shape) or set(structure) - {"S", "R"}:
            raise ValueError(f"structure must be one 'S' or 'R' per dim of {self.shape}, "
                             f"got {self.structure!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in self.shape):
            raise ValueError(f"shape must be positive integers, got {self.shape!r}")
        dtype = str(self.dtype)
        axes = tuple(i for i, k in enumerate(structure) if k == "R")
        out_shape = tuple(s for s, k in zip(self.shape, structure) if k == "S")

        def reference(a):
            import numpy as np
            a = np.asarray(a).astype(accumulate_dtype(dtype))
            return a.sum(axis=axes).astype(as_numpy_dtype(dtype))

        self.set_function(Computation("reduce", (TensorSpec("A", tuple(self.shape), dtype),),
                                      (TensorSpec("C", out_shape, dtype),), reference))

    def params_as_dict(self) -> dict:
        return {"structure": self.structure, "shape": self.shape, "dtype": self.dtype}


__all__ = ["GeneralReductionTemplate"]
