"""tile.carver.template.gemv: GEMVTemplate (TileLang's), matrix-vector
configurations from tile.carver.roller.policy.ReductionPolicy over B."""

from __future__ import annotations

from dataclasses import dataclass

from ..arch import TileDevice
from ..roller.hint import Hint
from ..roller.policy import ReductionPolicy
from ..roller.policy.common import check_extents
from .base import BaseTemplate, Computation, TensorSpec
from .matmul import matmul_reference


@dataclass
class GEMVTemplate(BaseTemplate):
    """C[1, N] = A[1, K] @ B[K, N] (B stored N x K when trans_B), optionally
    + Bias[N]. Hints are for the output [1, N]: ``block`` [1, block_N],
    ``thread`` [1, threads along N], ``rstep`` [block_K], ``reduce_thread``
    [threads sharing K]; a block has ``thread[1] * reduce_thread[0]``
    threads."""

    N: int = None
    K: int = None
    trans_B: bool = True
    in_dtype: str = "float16"
    out_dtype: str = "float16"
    accum_dtype: str = "float16"
    with_bias: bool = False

    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        shape, structure = ([self.N, self.K], "SR") if self.trans_B else ([self.K, self.N], "RS")
        hints = ReductionPolicy(arch or self.arch, shape, structure, self.in_dtype,
                                self.out_dtype, input_name="B").emit_config(topk)
        for hint in hints:  # the output is [1, N]
            hint.block = [1] + hint.block
            hint.thread = [1] + hint.thread
            hint._step = [1] + hint._step
        return hints

    def initialize_function(self) -> None:
        check_extents(N=self.N, K=self.K)
        N, K = self.N, self.K
        inputs = [TensorSpec("A", (1, K), str(self.in_dtype)),
                  TensorSpec("B", (N, K) if self.trans_B else (K, N), str(self.in_dtype))]
        if self.with_bias:
            inputs.append(TensorSpec("Bias", (N,), str(self.accum_dtype)))
        self.set_function(Computation(
            "gemv", tuple(inputs), (TensorSpec("C", (1, N), str(self.out_dtype)),),
            matmul_reference(False, self.trans_B, self.accum_dtype, self.out_dtype,
                             self.with_bias)))

    def params_as_dict(self) -> dict:
        return {"N": self.N, "K": self.K, "trans_B": self.trans_B, "in_dtype": self.in_dtype,
                "out_dtype": self.out_dtype, "accum_dtype": self.accum_dtype,
                "with_bias": self.with_bias}


__all__ = ["GEMVTemplate"]
