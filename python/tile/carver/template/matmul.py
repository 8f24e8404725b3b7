"""tile.carver.template.matmul: MatmulTemplate (TileLang's), GEMM tile
configurations from tile.carver.roller.policy.MatmulPolicy."""

from __future__ import annotations

from dataclasses import dataclass

from ..arch import TileDevice
from ..roller.hint import Hint
from ..roller.policy import MatmulPolicy
from ..roller.policy.common import check_extents
from .base import BaseTemplate, Computation, TensorSpec, accumulate_dtype, as_numpy_dtype


def matmul_reference(trans_A, trans_B, accum_dtype, out_dtype, with_bias):
    """C = A @ B (operands transposed as stored), plus Bias, cast to
    `out_dtype`."""
    def reference(a, b, *bias):
        import numpy as np
        wide = accumulate_dtype(accum_dtype)
        a = np.asarray(a).astype(wide)
        b = np.asarray(b).astype(wide)
        c = (a.T if trans_A else a) @ (b.T if trans_B else b)
        if with_bias:
            c = c + np.asarray(bias[0]).astype(wide)
        return c.astype(as_numpy_dtype(out_dtype))
    return reference


@dataclass
class MatmulTemplate(BaseTemplate):
    """C[M, N] = A[M, K] @ B[K, N] (A stored K x M when trans_A, B stored
    N x K when trans_B), optionally + Bias[N]. Hints: ``block`` [block_M,
    block_N], ``warp`` [warp_M, warp_N], ``rstep`` [block_K],
    ``pipeline_stage``, ``rasterization_plan``."""

    M: int = None
    N: int = None
    K: int = None
    trans_A: bool = False
    trans_B: bool = True
    in_dtype: str = "float16"
    out_dtype: str = "float16"
    accum_dtype: str = "float16"
    with_bias: bool = False

    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        return MatmulPolicy(arch or self.arch, self.M, self.N, self.K, self.in_dtype,
                            self.out_dtype, self.accum_dtype,
                            trans_B=self.trans_B).emit_config(topk)

    def initialize_function(self) -> None:
        check_extents(M=self.M, N=self.N, K=self.K)
        M, N, K = self.M, self.N, self.K
        inputs = [TensorSpec("A", (K, M) if self.trans_A else (M, K), str(self.in_dtype)),
                  TensorSpec("B", (N, K) if self.trans_B else (K, N), str(self.in_dtype))]
        if self.with_bias:
            inputs.append(TensorSpec("Bias", (N,), str(self.accum_dtype)))
        self.set_function(Computation(
            "matmul", tuple(inputs), (TensorSpec("C", (M, N), str(self.out_dtype)),),
            matmul_reference(self.trans_A, self.trans_B, self.accum_dtype, self.out_dtype,
                             self.with_bias)))

    def params_as_dict(self) -> dict:
        return {"M": self.M, "N": self.N, "K": self.K, "trans_A": self.trans_A,
                "trans_B": self.trans_B, "in_dtype": self.in_dtype, "out_dtype": self.out_dtype,
                "accum_dtype": self.accum_dtype, "with_bias": self.with_bias}


__all__ = ["MatmulTemplate"]
