"""tile.carver.roller.hint: the configurations carver recommends
(``tilelang.carver.roller.hint``).

A Hint has TileLang's fields. Those a template fills:

- ``block``: the output tile of one block, per output dim (a GEMM's
  ``[block_M, block_N]``).
- ``warp``: a warp's share of the block on matrix cores (``[warp_M,
  warp_N]``; ``block[i] // warp[i]`` warps along dim i, each of
  ``arch.warp_size`` threads).
- ``thread``: threads per output dim, without matrix cores; ``step``: the
  contiguous elements a thread takes at a time along each dim.
- ``rstep``: the slice of each reduced dim one step of the block's loop
  takes (a GEMM's ``[block_K]``); ``reduce_thread``: threads that share a
  reduced dim (1: each thread walks it alone).
- ``pipeline_stage``: the software pipeline's depth (1: none);
  ``use_async``: whether its copies are asynchronous.
- ``rasterization_plan``: a Rasterization (NoRasterization,
  Rasterization2DColumn, ...).
- ``use_tc``: whether the plan is for matrix cores; ``intrin_info``;
  ``shared_scope``; ``vectorize`` (buffer name -> vector length).

TileDict is one candidate of a search with what the cost model found:
``smem_cost`` (bytes of shared memory per block), ``block_per_SM``,
``grid_size``, ``num_wave``, ``traffic`` (bytes the blocks read) and, tile's
own, ``cost`` (estimated cycles) and ``hint``.
"""

from __future__ import annotations

import math

from .rasterization import NoRasterization


def _prod(values) -> int:
    result = 1
    for v in values:
        result *= int(v)
    return result


class Stride:
    """A padded stride on one axis of a tensor (``ax`` -1: none)."""

    def __init__(self, stride: int = 1, ax: int = -1) -> None:
        self._ax = int(ax)
        self._stride = int(stride)

    @property
    def ax(self) -> int:
        return self._ax

    @property
    def stride(self) -> int:
        return self._stride

    def is_valid(self) -> bool:
        return self._ax >= 0

    def compute_strides_from_shape(self, shape) -> list[int]:
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = self._stride if i == self._ax else strides[i + 1] * int(shape[i + 1])
        return strides

    def compute_elements_from_shape(self, shape) -> int:
        if not self.is_valid():
            return _prod(shape)
        return _prod(shape[:self._ax + 1]) * self._stride

    def __repr__(self) -> str:
        return f"<Stride, {self._ax}, {self._stride}>"


class IntrinInfo:
    """The matrix instruction's operand types and B's layout."""

    def __init__(self, in_dtype: str, out_dtype: str, trans_b: bool,
                 input_transform_kind: int = 0, weight_transform_kind: int = 0) -> None:
        self.in_dtype = str(in_dtype)
        self.out_dtype = str(out_dtype)
        self.trans_a = False
        self.trans_b = bool(trans_b)
        self.input_transform_kind = input_transform_kind
        self.weight_transform_kind = weight_transform_kind

    def is_input_8bit(self) -> bool:
        from .policy.common import dtype_bits
        return dtype_bits(self.in_dtype) == 8

    @property
    def smooth_a(self) -> bool:
        return self.input_transform_kind >= 2

    @property
    def smooth_b(self) -> bool:
        return self.weight_transform_kind >= 2

    @property
    def inter_transform_a(self) -> bool:
        return self.input_transform_kind >= 1

    @property
    def inter_transform_b(self) -> bool:
        return self.weight_transform_kind >= 1

    def __repr__(self) -> str:
        return (f"<IntrinInfo, in_dtype={self.in_dtype}, out_dtype={self.out_dtype}, "
                f"trans_b={self.trans_b}, input_transform_kind={self.input_transform_kind}, "
                f"weight_transform_kind={self.weight_transform_kind}>")


class TileDict:
    """One candidate configuration and its estimates (see the module's
    docstring)."""

    def __init__(self, output_tile) -> None:
        self.output_tile = list(output_tile)
        self.tile_map = {}
        self.rstep_map = {}
        self.cached_tensors_map = {}
        self.output_strides_map = {}
        self.tensor_strides_map = {}
        self.traffic = -1
        self.smem_cost = -1
        self.block_per_SM = -1
        self.num_wave = -1
        self.grid_size = -1
        self.valid = True
        self.cost = math.inf
        self.hint = None

    def get_tile(self, node) -> list[int]:
        return self.tile_map[node]

    def get_rstep(self, node) -> dict:
        return self.rstep_map[node]

    def __hash__(self) -> int:
        return hash(tuple(self.output_tile))

    def __repr__(self) -> str:
        return (f"<TileDict {self.output_tile} rstep={self.rstep_map} smem={self.smem_cost} "
                f"blocks/SM={self.block_per_SM} waves={self.num_wave} cost={self.cost:.0f}>")


class Hint:
    """A recommended configuration (see the module's docstring)."""

    def __init__(self) -> None:
        self.arch = None
        self.use_tc = None
        self.block = []
        self.thread = []
        self.warp = []
        self.rstep = []
        self.reduce_thread = []
        self.rasterization_plan = NoRasterization()
        self.cached_tensors = []
        self.output_strides = {}
        self.schedule_stages = None
        self.block_reduction_depth = None
        self.split_k_factor = 1
        self._raxis_order = []
        self._step = []
        self.vectorize = {}
        self.pipeline_stage = 1
        self.use_async = False
        self.opt_shapes = {}
        self.intrin_info = IntrinInfo("float16", "float16", True)
        self.shared_scope = "shared"
        self.pass_context = {}

    @property
    def raxis_order(self) -> list[int]:
        return self._raxis_order or list(range(len(self.rstep)))

    @property
    def step(self) -> list[int]:
        return self._step or [1] * len(self.block)

    def to_dict(self) -> dict:
        """The fields that say something, as TileLang's ``to_dict``."""
        d = {"block": self.block}
        if self.use_tc:
            d["warp"] = self.warp
        else:
            d["thread"] = self.thread
        d["rstep"] = self.rstep
        if _prod(self.reduce_thread) > 1:
            d["reduce_thread"] = self.reduce_thread
        if self.use_tc:
            d["use_tc"] = self.use_tc
        strides = {k: s for k, s in self.output_strides.items() if s.is_valid()}
        if strides:
            d["strides"] = strides
        if _prod(self._step) > 1:
            d["step"] = self._step
        if self._raxis_order:
            d["raxis_order"] = self._raxis_order
        if self.vectorize:
            d["vectorize"] = self.vectorize
        if self.pipeline_stage != 1:
            d["pipeline_stage"] = self.pipeline_stage
        if self.block_reduction_depth is not None:
            d["block_reduction_depth"] = self.block_reduction_depth
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Hint":
        hint = cls()
        for key, value in d.items():
            setattr(hint, "_step" if key == "step" else
                    "_raxis_order" if key == "raxis_order" else key, value)
        return hint

    def tensorcore_legalization(self) -> "Hint":
        """Keeps the last two dims of ``block`` and ``warp`` (a matrix
        instruction's M and N)."""
        self.warp = self.warp[-2:]
        self.block = self.block[-2:]
        return self

    def complete_config(self, node=None) -> "Hint":
        return self

    def __repr__(self) -> str:
        return str(self.to_dict())


__all__ = ["Hint", "TileDict", "Stride", "IntrinInfo"]
