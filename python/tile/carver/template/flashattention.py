"""tile.carver.template.flashattention: FlashAttentionTemplate (TileLang's),
forward attention configurations from
tile.carver.roller.policy.FlashAttentionPolicy."""

from __future__ import annotations

from dataclasses import dataclass

from ..arch import TileDevice
from ..roller.hint import Hint
from ..roller.policy import FlashAttentionPolicy
from ..roller.policy.common import check_extents
from .base import BaseTemplate, Computation, TensorSpec, as_numpy_dtype


@dataclass
class FlashAttentionTemplate(BaseTemplate):
    """O = softmax(Q K^T / sqrt(head_dim)) V over [batch_size, num_heads,
    seq, head_dim] tensors (with is_causal, query i sees the keys up to i +
    seq_kv_length - seq_length). Hints: ``block`` [block_M, head_dim] (a
    block's query rows), ``warp`` [rows per warp, head_dim], ``rstep``
    [block_N] (keys per step), ``pipeline_stage``."""

    batch_size: int = 1
    num_heads: int = 1
    head_dim: int = 1
    seq_length: int = 1
    seq_kv_length: int = 1
    is_causal: bool = False
    in_dtype: str = "float16"
    out_dtype: str = "float16"
    accum_dtype: str = "float16"

    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        return FlashAttentionPolicy(arch or self.arch, self.batch_size, self.num_heads,
                                    self.seq_length, self.seq_kv_length, self.head_dim,
                                    self.in_dtype, self.out_dtype, self.accum_dtype,
                                    self.is_causal).emit_config(topk)

    def initialize_function(self) -> None:
        check_extents(batch_size=self.batch_size, num_heads=self.num_heads,
                      head_dim=self.head_dim, seq_length=self.seq_length,
                      seq_kv_length=self.seq_kv_length)
        b, h, d = self.batch_size, self.num_heads, self.head_dim
        sq, skv = self.seq_length, self.seq_kv_length
        causal, out_dtype = self.is_causal, str(self.out_dtype)

        def reference(q, k, v):
            import numpy as np
            q, k, v = (np.asarray(x).astype(np.float64) for x in (q, k, v))
            s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
            if causal:
                rows = np.arange(sq)[:, None] + (skv - sq)
                s = np.where(np.arange(skv)[None, :] <= rows, s, -np.inf)
            s = np.exp(s - s.max(axis=-1, keepdims=True))
            p = s / s.sum(axis=-1, keepdims=True)
            return (p @ v).astype(as_numpy_dtype(out_dtype))

        dtype = str(self.in_dtype)
        self.set_function(Computation(
            "flash_attention",
            (TensorSpec("Q", (b, h, sq, d), dtype), TensorSpec("K", (b, h, skv, d), dtype),
             TensorSpec("V", (b, h, skv, d), dtype)),
            (TensorSpec("O", (b, h, sq, d), out_dtype),), reference))

    def params_as_dict(self) -> dict:
        return {"batch_size": self.batch_size, "num_heads": self.num_heads,
                "head_dim": self.head_dim, "seq_length": self.seq_length,
                "seq_kv_length": self.seq_kv_length, "is_causal": self.is_causal,
                "in_dtype": self.in_dtype, "out_dtype": self.out_dtype,
                "accum_dtype": self.accum_dtype}


__all__ = ["FlashAttentionTemplate"]
