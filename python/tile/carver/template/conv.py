"""tile.carver.template.conv: ConvTemplate (TileLang's), 2-d convolution
configurations as the implicit GEMM's (MatmulPolicy)."""

from __future__ import annotations

from dataclasses import dataclass

from ..arch import TileDevice
from ..roller.hint import Hint
from ..roller.policy import MatmulPolicy
from ..roller.policy.common import check_extents
from .base import BaseTemplate, Computation, TensorSpec, accumulate_dtype, as_numpy_dtype


@dataclass
class ConvTemplate(BaseTemplate):
    """Out[N, OH, OW, F] = conv(A[N, H, W, C], B[K, K, C, F]) with stride S,
    dilation D and zero padding P (NHWC, HWCF), optionally + Bias[F]. Hints
    are the implicit GEMM's: ``block`` [block_M, block_N] over M = N * OH *
    OW and F, ``rstep`` [block_K] over K * K * C."""

    N: int
    C: int
    H: int
    W: int
    F: int
    K: int
    S: int
    D: int
    P: int
    in_dtype: str = "float16"
    out_dtype: str = "float16"
    accum_dtype: str = "float16"
    with_bias: bool = False

    @property
    def output_size(self) -> tuple:
        """(OH, OW)."""
        span = self.D * (self.K - 1) + 1
        return ((self.H + 2 * self.P - span) // self.S + 1,
                (self.W + 2 * self.P - span) // self.S + 1)

    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        oh, ow = self.output_size
        return MatmulPolicy(arch or self.arch, self.N * oh * ow, self.F, self.K * self.K * self.C,
                            self.in_dtype, self.out_dtype, self.accum_dtype,
                            trans_B=False).emit_config(topk)

    def initialize_function(self) -> None:
        check_extents(N=self.N, C=self.C, H=self.H, W=self.W, F=self.F, K=self.K, S=self.S,
                      D=self.D)
        if isinstance(self.P, bool) or not isinstance(self.P, int) or self.P < 0:
            raise ValueError(f"P must be a non-negative integer, got {self.P!r}")
        oh, ow = self.output_size
        if oh <= 0 or ow <= 0:
            raise ValueError(f"the filter ({self.K} x {self.K}, dilation {self.D}) is larger "
                             f"than the padded input ({self.H} x {self.W}, padding {self.P})")
        n, c, f, k, s, d, p = self.N, self.C, self.F, self.K, self.S, self.D, self.P
        accum, out_dtype, with_bias = self.accum_dtype, str(self.out_dtype), self.with_bias

        def reference(a, b, *bias):
            import numpy as np
            wide = accumulate_dtype(accum)
            a = np.pad(np.asarray(a).astype(wide), ((0, 0), (p, p), (p, p), (0, 0)))
            b = np.asarray(b).astype(wide)
            out = np.zeros((n, oh, ow, f), wide)
            for kh in range(k):
                for kw in range(k):
                    rows = a[:, kh * d: kh * d + s * (oh - 1) + 1: s,
                             kw * d: kw * d + s * (ow - 1) + 1: s, :]
                    out += rows @ b[kh, kw]
            if with_bias:
                out += np.asarray(bias[0]).astype(wide)
            return out.astype(as_numpy_dtype(out_dtype))

        dtype = str(self.in_dtype)
        inputs = [TensorSpec("A", (n, self.H, self.W, c), dtype),
                  TensorSpec("B", (k, k, c, f), dtype)]
        if with_bias:
            inputs.append(TensorSpec("Bias", (f,), str(accum)))
        self.set_function(Computation("conv2d", tuple(inputs),
                                      (TensorSpec("Out", (n, oh, ow, f), out_dtype),),
                                      reference))

    def params_as_dict(self) -> dict:
        return {name: getattr(self, name) for name in
                ("N", "C", "H", "W", "F", "K", "S", "D", "P", "in_dtype", "out_dtype",
                 "accum_dtype", "with_bias")}


__all__ = ["ConvTemplate"]
