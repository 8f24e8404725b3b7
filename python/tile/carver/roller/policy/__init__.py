"""tile.carver.roller.policy: tile's searches for tile configurations (its
own; TileLang's DefaultPolicy and TensorCorePolicy work on TVM IR, which
tile does not have). Each policy has ``candidates()`` (every configuration
that fits, as TileDicts with their estimates, in the order hints are given)
and ``emit_config(topk)`` (the first `topk` as Hints)."""

from .attention import FlashAttentionPolicy  # noqa: F401
from .matmul import MatmulPolicy  # noqa: F401
from .reduction import ReductionPolicy  # noqa: F401

__all__ = ["MatmulPolicy", "ReductionPolicy", "FlashAttentionPolicy"]
